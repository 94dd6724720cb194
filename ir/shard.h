/* shard.h - how the two knobs of a state axis divide the state sweep;
 * shared by the emitter (which bakes it into the kernels) and the runtime
 * (which launches the pieces).
 *
 * Shard (`distributed = true`, discrete states that never transition): the
 * model's sharded states, taken together in slot order (ir_vars), form a
 * combined index of `combos` values; worker w of D solves the block
 * [w * b, min((w + 1) * b, combos)) with b = ceil(combos / D), so blocks
 * never communicate during the solve.  A regime carries every sharded state
 * or none (the generator checks it); regimes without them are solved by
 * every worker.  An uneven split just leaves the last blocks shorter (or
 * empty): padding that never reaches V.
 *
 * Splay (`batch_size = k` on a state): the state sweep of a regime runs in
 * chunks of k points along that axis, one launch per chunk, V unchanged.
 */
#ifndef LCM_SHARD_H
#define LCM_SHARD_H

#include "vars.h"

#define IR_MAX_SHARDED 8 /* sharded states per model */
#define IR_MAX_SPLAYED 8 /* splayed states per regime; must match LCM_MAX_SPLAYED */

typedef struct ir_shard {
    int nsharded;
    int slot[IR_MAX_SHARDED]; /* their state slots, ascending */
    int n[IR_MAX_SHARDED];    /* their lengths */
    long long combos;         /* product of the lengths; 1 when nothing is sharded */
} ir_shard;

void ir_shard_build(const ir_model *m, const ir_vars *V, ir_shard *S);
/* Whether regime r carries the sharded states. */
int ir_shard_regime(const ir_model *m, const ir_shard *S, int r);
/* The combined-index block [*lo, *hi) of worker w of D. */
void ir_shard_block(const ir_shard *S, int w, int D, long long *lo, long long *hi);
/* The worker of D whose block holds combined index `combo`. */
int ir_shard_owner(const ir_shard *S, long long combo, int D);
/* Whether the model stays within IR_MAX_SHARDED and IR_MAX_SPLAYED (the
 * generator says so first; a hand-edited manifest is caught here). */
int ir_shard_check(const ir_model *m, lcm_err *err);
/* The splayed states of regime r (batch_size > 0), in V order; returns how many. */
int ir_splayed(const ir_regime *r, int *states);
/* Which splayed state of regime r (in ir_splayed's order, the index of its
 * chunk in lcm_kernel_args.chunk) state i is, or -1. */
int ir_splay_index(const ir_regime *r, int i);
/* The state of regime r that is the k-th sharded state, or -1. */
int ir_shard_state(const ir_vars *V, const ir_shard *S, const ir_regime *r, int k);

#endif
