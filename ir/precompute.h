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
 * of the kernel carries the liquid state: curves of J entries, J the
 * savings points, each for a row of the states the entry reads
 * (ir_pre.states: those the Euler equation's right side and the policy
 * read, and the sharded ones; never the liquid one) and a combination d of
 * the actions it enumerates (ir_egm_choices: its discrete actions, and with
 * nested EGM its continuous ones besides the EGM action, on their grids).
 * The choices fall into groups (egm_groups: one per combination of the
 * discrete actions, or one for all), d = g * egm_inner + i; group g's
 * curve of its choice i < egm_kept[g] and row r is egm_first[g] + i *
 * egm_rows[g] + r, its row over the row states' points, row-major, but
 * those of the states the group shares (egm_shared[g]), whose points its
 * entries serve alike.  The choices from egm_kept[g] on, which a
 * constraint rules out, have none.  Entry (curve * J + j) holds two
 * reals, the resources R (entries [0, n)) and the action C (entries [n,
 * 2n)) at which savings j is optimal.  A second pass of the table then
 * bounds blocks of LCM_EGM_BLOCK segments of each curve (a segment joins
 * points j and j + 1): the least and the
 * greatest R of their points (reals 2n + 2q and 2n + 2q + 1 for block q =
 * curve * blocks per curve + b; the last block reaches to +inf,
 * where its last segment extrapolates), so that a state seeks its
 * candidates only in the blocks that hold its resources.  Simulation reads
 * the table too: the table of a period is made from that period's V_{t+1}
 * and marginal values.  Its bytes are not used.
 *
 * The expected next V (`ev`): where a target regime has shock processes
 * (or Markov states whose probabilities are a matrix's rows: ir_pre_ev_axis),
 * V_{t+1} summed over their next nodes, weighted by the rows of their
 * transition matrices, once per period rather than once per state-action
 * pair.  Interpolation in the other next states is linear in V, so the
 * continuation then reads one interpolation of the expected V where it read
 * one per node: at an AR(1) process's axis the row of the current node,
 * blended with the next node's row when the current value lies between
 * them (a simulated subject: the row is linear in the value, so is the
 * expected V), at a Markov state's the row of its source's current
 * category.  The table holds, for each such target of the kernel in turn
 * (bit t of ev_targets), an array of V_{t+1}'s shape: at such an axis the
 * current node or category (its matrix row) in place of the next, at an IID
 * process's (or a Markov state's of fixed probabilities) the expectation at
 * index 0 (the other entries 0, never read).  It is read wherever the
 * continuation is computed: by the continuation table's entries when the
 * kernel has that table too (the table is then cheap to make), by the body
 * when it has none (it reads every state; an EGM regime's body, at its
 * candidates, beside the endogenous grid, whose entries sum the marginal
 * values inline) and by the simulation, which
 * makes the expected V of each period (it is small: V's size).  The sum is
 * associated differently from the inline one (LCM_NO_TABLES=1), so the two
 * agree to rounding, not to the bit.  One more difference: the inline sum
 * skips a node whose weight, the product of the weights of all its
 * stochastic states, underflows to 0, where the table has added the node at
 * the weight of the axes it sums alone; where V_{t+1} is -inf at such a
 * node (a probability below about 1e-308), the solve's V is -inf and the
 * inline sum's is not.
 */
#ifndef LCM_PRECOMPUTE_H
#define LCM_PRECOMPUTE_H

#include <stdint.h>

#include "kernel_abi.h"
#include "shard.h"

/* The shape of a table over some states and actions of a regime (a
 * continuation table's, a stage's): one launch's table holds entry
 * ((combo * rows + row) * acts + act) as described above. */
typedef struct ir_shape {
    uint64_t states, actions; /* bit i: state i, bit j: action j */
    int sharded;        /* a state of it is sharded: a combo dimension */
    int splayed;        /* a state of it is splayed: each chunk needs its own table */
    long long rows;     /* product over its non-sharded states (ir_chunk_width: a chunk when splayed) */
    long long acts;     /* product over its actions */
    long long whole;    /* the entries of the whole table (every chunk and block): what plans weigh, so that
                         * no choice depends on splay or the devices */
} ir_shape;
void ir_table_shape(const ir_model *m, const ir_shard *S, const ir_regime *r, uint64_t states, uint64_t actions,
                    ir_shape *out);
/* Entries of one launch's table of shape sh for a block of `combos` sharded values. */
static inline long long ir_shape_entries(const ir_shape *sh, long long combos)
{
    return (sh->sharded ? combos : 1) * sh->rows * sh->acts;
}
/* The most entries a table of regime r may have: 16 per state of the
 * regime, or 2^16 in all for small models (beyond, the memory would
 * outweigh the evaluations it saves). */
long long ir_table_cap(const ir_regime *r);
/* Which states (sm) and actions (am) each node of a regime reads. */
void ir_node_masks(const ir_regime *r, uint64_t *sm, uint64_t *am);
/* Which states and actions the continuation of kernel kn of regime r
 * reads: its targets' regime probabilities, next states and stochastic
 * weights (an AR(1) process's source state), an Epstein-Zin regime's risk
 * aversion (sm, am: ir_node_masks). */
void ir_continuation_reads(const ir_model *m, const ir_regime *r, const ir_kernel *kn, const uint64_t *sm,
                           const uint64_t *am, uint64_t *states, uint64_t *actions);

/* One stage of a kernel's staged solve (ir/eliminate.h): the action it
 * maximises out, into a table over its scope (shape), with the regime's
 * constraints it takes. */
typedef struct ir_stage {
    int action;
    ir_shape shape;
    uint64_t constraints; /* bit c: constraint c */
    int cont;             /* its terms hold E_next_V: it computes the continuation */
} ir_stage;

typedef struct ir_elim {
    int nstages;
    ir_stage stage[LCM_MAX_STAGES];
    int cont;             /* the outer loops compute the continuation (no stage took E_next_V) */
    double pairs, staged; /* evaluations a period: grid search, and staged (its tables' included) */
    double subject;       /* evaluations of one state that makes its own rows of each stage (a simulated
                           * subject's): each stage's row times its action's points, then the remaining
                           * actions' combinations; without stages, all the actions' combinations */
    char why[256];        /* without a stage: why, where an action would have saved work (else "") */
} ir_elim;

#define IR_EGM_GROUPS 64 /* the most groups of an endogenous grid's choices, each a combination of the discrete actions */

typedef struct ir_pre {
    int active;         /* the kernel reads a continuation table (or an EGM regime's endogenous grid) */
    uint64_t states;    /* bit i: the continuation reads state i (EGM: ir_pre_egm_row_state) */
    uint64_t actions;   /* bit j: ... action j */
    int sharded;        /* a read state is sharded: the table has a combo dimension */
    int splayed;        /* a read state is splayed: each chunk needs its own table */
    long long rows;     /* product over the read non-sharded states (ir_chunk_width: a chunk when splayed);
                         * EGM: the curves */
    long long acts;     /* product over the read actions; EGM: the savings points */
    long long item_acts; /* the entries of one launch item of its pass: acts over the first read action's points */
    int egm;            /* the endogenous grid of an EGM regime (rows: its curves, acts: the savings points) */
    int reals;          /* reals per entry: 1, EGM 2 */
    long long blocks;   /* EGM: the bounded blocks (the second pass's launch) */
    /* EGM: the constraints (bit c) its entries test, those that read only
     * its rows' discrete states and the enumerated actions (never a
     * continuous state, whose rows a state between them blends, nor the EGM
     * action).  The kernel tests them before it seeks the choice's
     * candidates, so an entry that one rules out is never read: it is left
     * NaN (no segment), and its Euler equation is not computed; where one
     * rules out a group's last choices in every precision (ir/fold.h), they
     * take no room (egm_kept: durables.lua, a keeper's durables past the
     * first point, half the choices) */
    uint64_t egm_tests;
    uint64_t egm_cuts;    /* EGM: those of them that rule out a group's last choices (egm_kept) */
    int egm_groups;       /* EGM: the groups of its choices (above) */
    long long egm_inner;  /* EGM: the choices of a group */
    /* EGM, for each group g: the row states whose points share one entry
     * (only when a group is a combination of the discrete actions): those
     * its entries do not read, the where()s the discrete actions decide
     * followed to their taken branch (ir/fold.h; never a sharded state,
     * whose points other workers make).  The kernel reads that entry at
     * every point (durables.lua: an adjuster's entries do not read the
     * durable it holds, n, so they are made once, not once per n) */
    uint64_t egm_shared[IR_EGM_GROUPS];
    long long egm_kept[IR_EGM_GROUPS];  /* its first choices, which have curves (the others are ruled out) */
    long long egm_rows[IR_EGM_GROUPS];  /* the rows of each of its choices */
    long long egm_first[IR_EGM_GROUPS]; /* its first curve */
    int ev;             /* the expected next V of targets with shock processes */
    uint64_t ev_targets; /* bit t: the kernel's target t is read from it */
    long long ev_entries; /* its reals: the targets' V sizes */
    ir_elim elim;       /* the staged solve (ir/eliminate.h) */
} ir_pre;

/* Whether state i of an EGM regime is an axis of its endogenous grid's
 * rows (a regime of more than IR_SET_BITS states keeps those beyond). */
static inline int ir_pre_egm_row_state(const ir_pre *p, int i) { return i >= IR_SET_BITS || (p->states >> i & 1); }
/* The roots an entry of the endogenous grid of kernel kn of EGM regime r
 * evaluates, each passed to root(ctx, id) (id may be -1): for each target
 * of the kernel that carries the liquid state its regime probability, its
 * next states (the liquid one as a function of savings, with its
 * derivative) and its Markov probabilities; the discount and the policy.
 * Returns the states it reads besides (an AR(1) process's current value,
 * which weighs its next nodes).  gen/plan.c marks these nodes, egm_plan
 * counts the states they read: one list for both. */
uint64_t ir_egm_entry_roots(const ir_model *m, const ir_regime *r, const ir_kernel *kn, void (*root)(void *ctx, int id),
                            void *ctx);

/* The tables of kernel k; 1 when its actions may also be staged (not an
 * EGM regime, at most IR_SET_BITS states and actions: ir_elim_plan_kernel). */
int ir_pre_plan(const ir_model *m, const ir_shard *S, int k, ir_pre *p);
/* Whether a simulation of `subjects` subjects reads the expected V from
 * the table it makes for each period (else it sums the continuation
 * inline, as the interpreter does): where the subjects' evaluations
 * outnumber the table's entries, so that a few subjects do not pay for a
 * table over every state.  It depends on the whole panel's size only, not
 * on its batches or workers (docs/simulation.md, "Reproducibility"). */
int ir_pre_sim_reads_ev(const ir_pre *p, long long subjects);
/* The first action the continuation table reads (-1: none): a launch item
 * of its pass is a row and a value of it, which makes the entries of the
 * other actions it reads. */
int ir_pre_first_action(const ir_pre *p);
/* Entries of one launch's continuation table for a block of `combos`
 * sharded values (ignored unless p->sharded), and the reals it holds (0
 * without one). */
long long ir_pre_entries(const ir_pre *p, long long combos);
long long ir_pre_reals(const ir_pre *p, long long combos);

/* The launches that make a kernel's tables before each launch of the
 * kernel, in order (each reads what the ones before wrote): the expected V,
 * then the continuation table's entries (or the endogenous grid's), then
 * an endogenous grid's blocks' bounds, then each stage's table (one launch
 * item per row of it: the stage fills a row's entries).  Pass i's symbol
 * is <kernel>_table (i = 0) or <kernel>_table<i> (templates/table.c.in). */
typedef enum ir_pass { IR_PASS_EV, IR_PASS_TABLE, IR_PASS_EGM_BOUNDS, IR_PASS_STAGE } ir_pass;
int ir_pre_passes(const ir_pre *p);
/* Pass i's kind, and for a stage's which stage. */
ir_pass ir_pre_pass(const ir_pre *p, int i);
int ir_pre_pass_stage(const ir_pre *p, int i);
/* The pass of stage s. */
static inline int ir_pre_stage_pass(const ir_pre *p, int s) { return p->ev + p->active + p->egm + s; }
/* Pass i's launch size for a block of `combos` sharded values, and
 * whether it must run again for each chunk of the splayed states (the
 * continuation table's and a stage's, whose rows a chunk holds, when they
 * read a splayed state; the expected V reads V_{t+1} alone). */
long long ir_pre_launch(const ir_pre *p, int i, long long combos);
int ir_pre_per_chunk(const ir_pre *p, int i);
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
static inline int ir_pre_ev_target(const ir_pre *p, int t) { return p->ev && t < IR_SET_BITS && (p->ev_targets >> t & 1); }
/* Whether target t of EGM regime r carries its liquid state (the endogenous
 * grid reads that target's marginal value). */
static inline int ir_egm_target(const ir_regime *r, int t) { return ir_is_egm(r) && r->egm.next && r->egm.next[t] >= 0; }

#endif
