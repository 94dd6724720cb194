/* shard.c - see shard.h. */
#include "shard.h"

void ir_shard_build(const ir_model *m, const ir_vars *V, ir_shard *S)
{
    S->nsharded = 0;
    S->combos = 1;
    for (int slot = 0; slot < V->nstates && S->nsharded < IR_MAX_SHARDED; ++slot) {
        const ir_grid *g = V->state_grid[slot];
        if (!g->distributed) continue;
        S->slot[S->nsharded] = slot;
        S->n[S->nsharded++] = g->n;
        S->combos *= g->n;
    }
    (void)m;
}

int ir_shard_regime(const ir_model *m, const ir_shard *S, int r)
{
    const ir_regime *R = &m->regimes[r];
    for (int s = 0; s < R->nstates; ++s)
        if (R->states[s].grid.distributed) return S->nsharded > 0;
    return 0;
}

void ir_shard_block(const ir_shard *S, int w, int D, long long *lo, long long *hi)
{
    long long b = (S->combos + D - 1) / D;
    *lo = (long long)w * b;
    *hi = *lo + b;
    if (*lo > S->combos) *lo = S->combos;
    if (*hi > S->combos) *hi = S->combos;
}

int ir_splayed(const ir_regime *r, int *states)
{
    int n = 0;
    for (int s = 0; s < r->nstates && n < IR_MAX_SPLAYED; ++s)
        if (r->states[s].grid.batch_size > 0 && r->states[s].grid.batch_size < r->states[s].grid.n) states[n++] = s;
    return n;
}
