/* precompute.h - the continuation table of a kernel (design section 6).
 *
 * The continuation E(s, a) of a kernel reads some states and actions: those
 * its regime probabilities, next-state values and stochastic weights depend
 * on.  When a state axis is not among them (e.g. next wealth = saving, an
 * action, so current wealth only enters utility), E takes far fewer distinct
 * values than the kernel evaluates.  The solve then computes each distinct
 * value once into a table, in a launch before each kernel launch, and the
 * kernel reads it.  Simulation (subjects off the grid) and the interpreter
 * evaluate E inline; the table holds the same numbers, computed by the same
 * code.  The plan depends on the model only, never on the devices.
 *
 * One launch's table: entry ((combo * rows + row) * acts + act), with
 *   combo  the launch's block of the sharded states' combined index, minus
 *          shard_lo (only when a read state is sharded; 1 value otherwise),
 *   row    the read non-sharded states, row-major in the regime's order, a
 *          splayed state counted within its chunk (batch_size long: splay
 *          bounds the table),
 *   act    the read actions, row-major in the regime's order.
 * Beside it, one byte per entry: bit 0 a next discrete state off its grid
 * (LCM_FLAG_CODE), bit 1 an Epstein-Zin certainty equivalent without a value
 * (LCM_FLAG_CE), which the kernel raises for feasible pairs only.  An
 * Epstein-Zin regime's risk aversion is read like the continuation's inputs.
 *
 * A kernel of a regime that solves by the endogenous grid method (ir.h,
 * ir_egm) has its endogenous grid in the table instead, whenever a target
 * of the kernel carries the liquid state: entry ((row * choices + d) * J +
 * j), row the regime's states but the liquid one (row-major, every point),
 * d the combination of its discrete actions, j the savings point; two reals
 * each, the resources R (entries [0, n)) and the action C (entries [n, 2n))
 * at which savings j is optimal.  A second pass of the table then bounds
 * blocks of LCM_EGM_BLOCK segments of each row and choice: the least and the
 * greatest R of their points (reals 2n + 2q and 2n + 2q + 1 for block q =
 * (row * choices + d) * blocks per row + b; the last block reaches to +inf,
 * where its last segment extrapolates), so that a state seeks its
 * candidates only in the blocks that hold its resources.  Simulation reads
 * the table too: the table of a period is made from that period's V_{t+1}
 * and marginal values.  Its bytes are not used.
 *
 * Where the continuation reads every state (no table above) but a target
 * regime has shock processes (or Markov states whose probabilities are a
 * matrix's rows: ir_pre_ev_axis), the table holds that target's expected
 * next V instead (`ev`): V_{t+1} summed over their next nodes, weighted by
 * the rows of their transition matrices, once per period rather than once
 * per state-action pair.  Interpolation in the other next states is linear
 * in V, so the kernel then reads one interpolation of the expected V where
 * it read one per node: at an AR(1) process's axis the row of the current
 * node (off the nodes, which a solve never is, it sums inline), at a
 * Markov state's the row of its source's current category.  The table
 * holds, for each such target of the kernel in turn (bit t of ev_targets),
 * an array of V_{t+1}'s shape: at such an axis the current node or
 * category (its matrix row) in place of the next, at an IID process's (or
 * a Markov state's of fixed probabilities) the expectation at index 0 (the
 * other entries 0, never read).  Only the solve reads it; simulation and
 * the interpreter sum over the nodes inline, so its values agree with
 * theirs to rounding (the sum is associated differently), not to the bit.
 * One more difference: the inline sum skips a node whose weight, the
 * product of the weights of all its stochastic states, underflows to 0,
 * where the table has added the node at the weight of the axes it sums
 * alone; where V_{t+1} is -inf at such a node (a probability below about
 * 1e-308), the solve's V is -inf and the inline sum's is not.
 */
#ifndef LCM_PRECOMPUTE_H
#define LCM_PRECOMPUTE_H

#include <stdint.h>

#include "kernel_abi.h"
#include "shard.h"

typedef struct ir_pre {
    int active;         /* the kernel reads a table */
    uint64_t states;    /* bit i: the continuation reads state i */
    uint64_t actions;   /* bit j: ... action j */
    int sharded;        /* a read state is sharded: the table has a combo dimension */
    int splayed;        /* a read state is splayed: each chunk needs its own table */
    long long rows;     /* product over the read non-sharded states (ir_chunk_width: a chunk when splayed) */
    long long acts;     /* product over the read actions */
    int egm;            /* the endogenous grid of an EGM regime (rows: its states but the liquid one) */
    int reals;          /* reals per entry: 1, EGM 2 */
    long long blocks;   /* EGM: the bounded blocks (the second pass's launch) */
    int ev;             /* the expected next V of targets with shock processes (rows: its entries) */
    uint64_t ev_targets; /* bit t: the kernel's target t is read from it */
} ir_pre;

/* The plan of kernel k. */
void ir_pre_plan(const ir_model *m, const ir_shard *S, int k, ir_pre *p);
/* Entries of one launch's table for a block of `combos` sharded values
 * (ignored unless p->sharded). */
long long ir_pre_entries(const ir_pre *p, long long combos);
/* The table's passes (1, or 2 for EGM's bounds), the launch size of pass
 * `pass` (pass 0: the entries), and the reals the table holds. */
static inline int ir_pre_passes(const ir_pre *p) { return p->egm ? 2 : 1; }
long long ir_pre_launch(const ir_pre *p, int pass, long long combos);
long long ir_pre_reals(const ir_pre *p, long long combos);
/* ev: how the expected V of target tg (of regime r) sums over each of its
 * states s, into axis[s]: IR_EV_PROCESS for a shock process; for a Markov
 * state whose probabilities read no action and at most one state of r, a
 * discrete one with as many categories (its current category is then the
 * row, as an AR(1) process's node is), that state's index, or IR_EV_FIXED
 * when they read no state (one row, as an IID process's); IR_EV_NONE for
 * any other state, deterministic or a Markov state the kernel keeps
 * summing over (its probabilities read an action, two states, a source
 * another Markov state of the target already takes, ...).  Returns the
 * number of axes the table sums and *nodes their nodes' product. */
enum { IR_EV_NONE = -3, IR_EV_PROCESS = -2, IR_EV_FIXED = -1 };
int ir_pre_ev_axes(const ir_model *m, const ir_regime *r, const ir_target *tg, int *axis, long long *nodes);
/* ev: where the expected V of the kernel's target t starts in the table. */
long long ir_pre_ev_offset(const ir_model *m, const ir_kernel *kn, const ir_pre *p, int t);
/* Whether the kernel's target t is read from the expected V. */
static inline int ir_pre_ev_target(const ir_pre *p, int t) { return p->ev && t < 64 && (p->ev_targets >> t & 1); }
/* Whether target t of EGM regime r carries its liquid state (the endogenous
 * grid reads that target's marginal value). */
static inline int ir_egm_target(const ir_regime *r, int t) { return r->egm.next && r->egm.next[t] >= 0; }

#endif
