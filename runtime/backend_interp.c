/* backend_interp.c - backward induction by the IR interpreter: every state,
 * every action of the product, each pair evaluated by interp_point.c.  It
 * shares no code with the emitter or the kernel templates, so agreement
 * between the two is evidence; it is the oracle of the differential tests
 * and `--backend interp`. */
#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "interp_point.h"

typedef struct interp_backend {
    lcm_backend base;
    const ir_model *m;
    ir_grid_layout layout;
} interp_backend;

static double vnext_from_args(const void *ctx, int regime, lcm_index i)
{
    return ((const double *)((const lcm_kernel_args *)ctx)->v_next[regime])[i];
}

static int probs_ok(const double *p, int n)
{
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        if (!(p[i] >= 0)) return 0;
        sum += p[i];
    }
    return fabs(sum - 1) <= 1e-9;
}

static void flag(lcm_flags *f, int bit, lcm_index at)
{
#pragma omp critical(lcm_interp_flags)
    {
        f->bits |= 1u << bit;
        if (at < f->first[bit]) f->first[bit] = at;
    }
}

/* The checks the kernels make at a feasible state-action pair. */
static void check_pair(const lcm_point *p, lcm_flags *f, lcm_index s)
{
    const ir_model *m = p->m;
    const ir_regime *r = p->r;
    const double *vals = p->vals;
    double rp[IR_MAX_REGIMES];
    int nrp = 0;
    for (int g = 0; g < m->nregimes; ++g)
        if (r->rprob[g] >= 0) rp[nrp++] = vals[r->rprob[g]];
    if (nrp && !probs_ok(rp, nrp)) flag(f, LCM_FLAG_REGIME_PROB, s);
    for (int i = 0; i < p->k->ninactive; ++i)
        if (vals[r->rprob[p->k->inactive[i]]] != 0) flag(f, LCM_FLAG_INACTIVE, s);
    for (int i = 0; i < p->k->ntargets; ++i) {
        int g = p->k->targets[i];
        if (vals[r->rprob[g]] == 0) continue;
        const ir_target *tg = lcm_find_target(r, g);
        const ir_regime *tr = &m->regimes[g];
        for (int st = 0; st < tr->nstates; ++st) {
            const ir_next *nx = &tg->next[st];
            if (nx->kind == NEXT_MARKOV) {
                double pr[256];
                int n = nx->nprobs < 256 ? nx->nprobs : 256;
                for (int j = 0; j < n; ++j) pr[j] = vals[nx->probs[j]];
                if (!probs_ok(pr, n)) flag(f, LCM_FLAG_STATE_PROB, s);
            } else if (grid_is_discrete(&tr->states[st].grid)) {
                double x = vals[nx->node];
                if (!(x >= 0 && x <= tr->states[st].grid.n - 1 && x == floor(x))) flag(f, LCM_FLAG_CODE, s);
            }
        }
    }
}

static void solve_state(lcm_point *p, lcm_kernel_args *a, lcm_index s)
{
    lcm_point_state(p, s);
    lcm_index na = ir_action_space_size(p->r);
    double best = -INFINITY;
    lcm_index best_a = -1;
    int nan_q = 0;
    for (lcm_index ai = 0; ai < na; ++ai) {
        lcm_point_action(p, ai);
        lcm_point_eval(p);
        if (!p->feasible) continue;
        if (a->checks && !p->k->last) check_pair(p, a->flags, s);
        double q = p->q;
        if (q != q) nan_q = 1;
        else if (q > best || best_a < 0) best = q, best_a = ai;
    }
    double v = nan_q ? NAN : best;
    ((double *)a->v_out)[s] = v;
    if (a->policy) a->policy[s] = best_a;
    if (v != v) flag(a->flags, LCM_FLAG_NAN, s);
    else if (v == INFINITY) flag(a->flags, LCM_FLAG_INF, s);
    else if (best_a < 0) flag(a->flags, LCM_FLAG_INFEASIBLE, s);
}

static int interp_run(lcm_backend *base, int kernel, const lcm_kernel_args *cargs, lcm_index n, int queue,
                      lcm_err *err)
{
    lcm_kernel_args *args = (lcm_kernel_args *)cargs; /* host memory: flags and V are written through it */
    (void)queue;
    interp_backend *b = (interp_backend *)base;
    const ir_kernel *k = &b->m->kernels[kernel];
    const ir_regime *r = &b->m->regimes[k->regime];
    if (r->nstates > 64 || r->nactions > 64)
        return lcm_fail(err, LCM_E_INTERNAL, "the interpreter handles at most 64 states and actions");
#pragma omp parallel
    {
        lcm_point p = {.m = b->m, .k = k, .r = r, .L = &b->layout, .G = args->grids, .params = args->params,
                       .vnext = vnext_from_args, .vnext_ctx = args, .age = args->age, .period = args->period};
        p.vals = xcalloc(r->nnodes + 1, sizeof *p.vals);
#pragma omp for schedule(dynamic, 4)
        for (lcm_index s = 0; s < n; ++s) solve_state(&p, args, s);
        free(p.vals);
    }
    return 0;
}

static void interp_destroy(lcm_backend *base)
{
    interp_backend *b = (interp_backend *)base;
    ir_grid_layout_free(&b->layout);
    free(b);
}

int lcm_backend_interp_new(const ir_model *m, lcm_backend **out, lcm_err *err)
{
    interp_backend *b = xcalloc(1, sizeof *b);
    b->m = m;
    b->base.name = "interp";
    b->base.precision = 64;
    lcm_host_backend_ops(&b->base);
    b->base.launch = interp_run;
    b->base.destroy = interp_destroy;
    ir_grid_layout_build(m, &b->layout);
    *out = &b->base;
    (void)err;
    return 0;
}
