/* shard.h - how sharding divides the state sweep among workers; shared by
 * the emitter (which bakes it into the kernels) and the runtime (which gives
 * each worker its block).  The other knob, splay, and the map from a
 * launch's threads to states are in layout.h.
 *
 * Shard (`distributed = true`, discrete states that never transition): the
 * model's sharded states, taken together in slot order (ir_vars), form a
 * combined index of `combos` values; worker w of D solves the block
 * [w * b, min((w + 1) * b, combos)) with b = ceil(combos / D), so blocks
 * never communicate during the solve.  A regime carries every sharded state
 * or none (the generator checks it); regimes without them are solved by
 * every worker.  An uneven split just leaves the last blocks shorter (or
 * empty): padding that never reaches V.
 */
#ifndef LCM_SHARD_H
#define LCM_SHARD_H

#include "vars.h"

#define IR_MAX_SHARDED 8 /* sharded states per model */

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
/* Whether the model stays within IR_MAX_SHARDED (the generator says so
 * first; a hand-edited manifest is caught here). */
int ir_shard_check(const ir_model *m, lcm_err *err);
/* The state of regime r that is the k-th sharded state, or -1. */
int ir_shard_state(const ir_vars *V, const ir_shard *S, const ir_regime *r, int k);

#endif
