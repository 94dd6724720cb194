/* shard.c - see shard.h. */
#include "shard.h"

void ir_shard_build(const ir_model *m, const ir_vars *V, ir_shard *S)
{
    lcm_assert(m && V && S);
    S->nsharded = 0;
    S->combos = 1;
    for (int slot = 0; slot < V->nstates; ++slot) {
        const ir_grid *g = V->state_grid[slot];
        if (!g->distributed) continue;
        lcm_assert(S->nsharded < IR_MAX_SHARDED); /* ir_shard_check and the DSL refuse more */
        if (S->nsharded == IR_MAX_SHARDED) break;
        S->slot[S->nsharded] = slot;
        S->n[S->nsharded++] = g->n;
        S->combos *= g->n;
    }
    (void)m;
}

int ir_shard_regime(const ir_model *m, const ir_shard *S, int r)
{
    lcm_assert(m && S && r >= 0 && r < m->nregimes);
    const ir_regime *R = &m->regimes[r];
    for (int s = 0; s < R->nstates; ++s)
        if (R->states[s].grid.distributed) return S->nsharded > 0;
    return 0;
}

/* Every block but the last holds this many combined-index values. */
static long long block_length(const ir_shard *S, int D) { return (S->combos + D - 1) / D; }

void ir_shard_block(const ir_shard *S, int w, int D, long long *lo, long long *hi)
{
    lcm_assert(S && lo && hi);
    lcm_assert(D > 0 && w >= 0 && w < D);
    long long b = block_length(S, D);
    *lo = (long long)w * b;
    *hi = *lo + b;
    if (*lo > S->combos) *lo = S->combos;
    if (*hi > S->combos) *hi = S->combos;
}

int ir_shard_owner(const ir_shard *S, long long combo, int D) { return (int)(combo / block_length(S, D)); }

int ir_shard_check(const ir_model *m, lcm_err *err)
{
    int sharded = 0;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        int here = 0;
        for (int s = 0; s < R->nstates; ++s) here += R->states[s].grid.distributed != 0;
        if (here > sharded) sharded = here;
    }
    if (sharded > IR_MAX_SHARDED)
        return base_fail(err, LCM_E_MODEL, "at most %d states can be sharded (distributed = true)", IR_MAX_SHARDED);
    return 0;
}

int ir_shard_state(const ir_vars *V, const ir_shard *S, const ir_regime *r, int k)
{
    lcm_assert(V && S && r);
    lcm_assert(k >= 0 && k < S->nsharded);
    for (int i = 0; i < r->nstates; ++i)
        if (V->state_slot[r->id][i] == S->slot[k]) return i;
    return -1;
}
