/* analyze.c - see analyze.h. */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

#include "eliminate.h"
#include "vars.h"

static int same_ints(const int *a, int na, const int *b, int nb)
{
    return na == nb && (na == 0 || memcmp(a, b, (size_t)na * sizeof *a) == 0);
}

static int find_or_add_kernel(ir_model *m, int regime, int last, int *targets, int nt, int *inactive, int ni)
{
    for (int k = 0; k < m->nkernels; ++k) {
        ir_kernel *kn = &m->kernels[k];
        if (kn->regime == regime && kn->last == last && same_ints(kn->targets, kn->ntargets, targets, nt) &&
            same_ints(kn->inactive, kn->ninactive, inactive, ni)) {
            free(targets), free(inactive);
            return k;
        }
    }
    m->kernels = base_xrealloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *m->kernels);
    ir_kernel *kn = &m->kernels[m->nkernels];
    kn->symbol = base_xasprintf("lcm_k%d_%s", m->nkernels, m->regimes[regime].name);
    kn->regime = regime;
    kn->last = last;
    kn->staged = !base_env_switch("LCM_NO_ELIMINATION"); /* the staged solve, where it applies (ir/eliminate.h) */
    kn->targets = targets, kn->ntargets = nt;
    kn->inactive = inactive, kn->ninactive = ni;
    kn->par = -1; /* lanes_of */
    return m->nkernels++;
}

/* The action whose loop the GPU's threads of a state split: the largest
 * the body loops over (the first of equals), not one a stage of a staged
 * solve maximises out (ir/eliminate.h); none for an EGM regime, whose
 * candidates are few and come from one scan. */
static void lanes_of(const ir_model *m, const ir_shard *S, ir_kernel *kn)
{
    const ir_regime *R = &m->regimes[kn->regime];
    ir_elim el;
    ir_elim_plan(m, S, kn, &el, NULL);
    uint64_t out = 0;
    for (int s = 0; s < el.nstages; ++s) out |= (uint64_t)1 << el.stage[s].action;
    for (int j = 0; j < R->nactions && !ir_is_egm(R); ++j)
        if (!(out >> j & 1) && (kn->par < 0 || R->actions[j].grid.n > R->actions[kn->par].grid.n)) kn->par = j;
}

void gen_plan_kernels(ir_model *m)
{
    int T = m->nperiods;
    m->period_kernel = base_xmalloc((size_t)(m->nregimes * T) * sizeof *m->period_kernel);
    for (int i = 0; i < m->nregimes * T; ++i) m->period_kernel[i] = -1;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        for (int t = 0; t < T; ++t) {
            if (!R->active[t]) continue;
            int *targets = base_xcalloc((size_t)m->nregimes, sizeof *targets);
            int *inactive = base_xcalloc((size_t)m->nregimes, sizeof *inactive);
            int nt = 0, ni = 0;
            if (!R->terminal && t + 1 < T) {
                for (int k = 0; k < R->ntargets; ++k) {
                    int g = R->targets[k].regime;
                    if (m->regimes[g].active[t + 1]) targets[nt++] = g;
                }
                for (int g = 0; g < m->nregimes; ++g)
                    if (R->rprob[g] >= 0 && !m->regimes[g].active[t + 1]) inactive[ni++] = g;
            }
            m->period_kernel[r * T + t] = find_or_add_kernel(m, r, R->terminal, targets, nt, inactive, ni);
        }
    }
    ir_vars V;
    ir_shard S;
    ir_vars_build(m, &V);
    ir_shard_build(m, &V, &S);
    for (int k = 0; k < m->nkernels; ++k) lanes_of(m, &S, &m->kernels[k]);
    ir_vars_free(&V);
}
