/* backend_interp.c - backward induction by the IR interpreter.
 *
 * The semantics of docs/model-language.md written out directly: every
 * action of the product, the DAG evaluated node by node (ir/eval.c), cells
 * found by binary search for every grid kind, interpolation as nested
 * per-axis linear interpolation.  Nothing here is shared with the emitter
 * or the kernel templates, so agreement between the two is evidence. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "eval.h"
#include "grid.h"

typedef struct interp_backend {
    lcm_backend base;
    const ir_model *m;
    ir_grid_layout layout;
} interp_backend;

typedef struct point_ctx {
    const ir_regime *tr;
    const ir_grid_layout *L;
    const double *G, *V;
    const double *vals;
    const ir_target *tg;
    lcm_index *stride;
    int *cell, *code;
    double *t;
    int ok_codes;
} point_ctx;

/* Cell of x in increasing points p[0..n-1]: the last i <= n-2 with p[i] <= x
 * (0 when x is below the grid); t is the linear fraction within it. */
static void locate(const double *p, int n, double x, int *cell, double *t)
{
    int i = 0;
    for (int lo = 0, hi = n - 1; lo <= hi;) {
        int mid = (lo + hi) / 2;
        if (p[mid] <= x) i = mid, lo = mid + 1;
        else hi = mid - 1;
    }
    if (i > n - 2) i = n - 2;
    *cell = i;
    *t = (x - p[i]) / (p[i + 1] - p[i]);
}

/* Interpolates V along continuous axes from axis s on; discrete axes use
 * code[s], already fixed. */
static double interp_from(const point_ctx *c, int s, lcm_index at)
{
    if (s == c->tr->nstates) return c->V[at];
    if (grid_is_discrete(&c->tr->states[s].grid)) return interp_from(c, s + 1, at + c->code[s] * c->stride[s]);
    double t = c->t[s], lo = 0, hi = 0;
    if (1 - t != 0) lo = (1 - t) * interp_from(c, s + 1, at + c->cell[s] * c->stride[s]);
    if (t != 0) hi = t * interp_from(c, s + 1, at + (c->cell[s] + 1) * c->stride[s]);
    return lo + hi;
}

/* Expected V of the target over its Markov states, from state s on. */
static double expect_from(point_ctx *c, int s, double w)
{
    if (s == c->tr->nstates) return w * interp_from(c, 0, 0);
    const ir_next *nx = &c->tg->next[s];
    if (nx->kind != NEXT_MARKOV) return expect_from(c, s + 1, w);
    double acc = 0;
    for (int j = 0; j < nx->nprobs; ++j) {
        double p = c->vals[nx->probs[j]];
        if (w * p == 0) continue;
        c->code[s] = j;
        acc += expect_from(c, s + 1, w * p);
    }
    return acc;
}

static double target_value(point_ctx *c)
{
    const ir_regime *tr = c->tr;
    c->ok_codes = 1;
    lcm_index acc = 1;
    for (int s = tr->nstates - 1; s >= 0; --s) c->stride[s] = acc, acc *= tr->states[s].grid.n;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &c->tg->next[s];
        const ir_grid *g = &tr->states[s].grid;
        if (nx->kind == NEXT_MARKOV) continue;
        double x = c->vals[nx->node];
        if (grid_is_discrete(g)) {
            int ok = x >= 0 && x <= g->n - 1 && x == floor(x);
            c->ok_codes &= ok;
            c->code[s] = ok ? (int)x : 0;
        } else {
            locate(c->G + c->L->state_off[tr->id][s], g->n, x, &c->cell[s], &c->t[s]);
        }
    }
    return expect_from(c, 0, 1.0);
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

static const ir_target *find_target(const ir_regime *r, int g)
{
    for (int i = 0; i < r->ntargets; ++i)
        if (r->targets[i].regime == g) return &r->targets[i];
    return NULL;
}

/* Checks at one feasible state-action pair (as the kernels do). */
static void check_pair(const interp_backend *b, const ir_regime *r, const ir_kernel *k, const double *vals,
                       lcm_kernel_args *a, lcm_index s)
{
    const ir_model *m = b->m;
    double rp[IR_MAX_REGIMES];
    int nrp = 0;
    for (int g = 0; g < m->nregimes; ++g)
        if (r->rprob[g] >= 0) rp[nrp++] = vals[r->rprob[g]];
    if (nrp && !probs_ok(rp, nrp)) flag(a->flags, LCM_FLAG_REGIME_PROB, s);
    for (int i = 0; i < k->ninactive; ++i)
        if (vals[r->rprob[k->inactive[i]]] != 0) flag(a->flags, LCM_FLAG_INACTIVE, s);
    for (int i = 0; i < k->ntargets; ++i) {
        int g = k->targets[i];
        if (vals[r->rprob[g]] == 0) continue;
        const ir_target *tg = find_target(r, g);
        const ir_regime *tr = &m->regimes[g];
        for (int st = 0; st < tr->nstates; ++st) {
            const ir_next *nx = &tg->next[st];
            if (nx->kind == NEXT_MARKOV) {
                double p[256];
                int n = nx->nprobs < 256 ? nx->nprobs : 256;
                for (int j = 0; j < n; ++j) p[j] = vals[nx->probs[j]];
                if (!probs_ok(p, n)) flag(a->flags, LCM_FLAG_STATE_PROB, s);
            } else if (grid_is_discrete(&tr->states[st].grid)) {
                double x = vals[nx->node];
                if (!(x >= 0 && x <= tr->states[st].grid.n - 1 && x == floor(x))) flag(a->flags, LCM_FLAG_CODE, s);
            }
        }
    }
}

static void solve_state(const interp_backend *b, const ir_kernel *k, lcm_kernel_args *a, lcm_index s, double *vals)
{
    const ir_model *m = b->m;
    const ir_regime *r = &m->regimes[k->regime];
    const double *G = a->grids;
    double x[64], act[64];
    lcm_index rem = s;
    for (int i = r->nstates - 1; i >= 0; --i) {
        int n = r->states[i].grid.n, c = (int)(rem % n);
        rem /= n;
        x[i] = grid_is_discrete(&r->states[i].grid) ? c : G[b->layout.state_off[r->id][i] + c];
    }
    lcm_index na = ir_action_space_size(r);
    double best = -INFINITY;
    lcm_index best_a = -1;
    int nan_q = 0;
    ir_env env = {.states = x, .actions = act, .age = a->age, .period = a->period, .enext = NAN,
                  .params = a->params};
    lcm_index stride[64];
    int cell[64], code[64];
    double t[64];
    for (lcm_index ai = 0; ai < na; ++ai) {
        lcm_index arem = ai;
        for (int j = r->nactions - 1; j >= 0; --j) {
            int n = r->actions[j].grid.n, c = (int)(arem % n);
            arem /= n;
            act[j] = grid_is_discrete(&r->actions[j].grid) ? c : G[b->layout.action_off[r->id][j] + c];
        }
        env.enext = NAN;
        ir_eval(m, r, &env, vals, r->nnodes);
        int feasible = 1;
        for (int c = 0; c < r->nconstraints; ++c) feasible &= vals[r->constraints[c].node] != 0;
        if (!feasible) continue;
        double q;
        if (k->last) {
            q = vals[r->q];
        } else {
            double E = 0;
            for (int i = 0; i < k->ntargets; ++i) {
                int g = k->targets[i];
                double P = vals[r->rprob[g]];
                if (P == 0) continue;
                point_ctx pc = {.tr = &m->regimes[g], .L = &b->layout, .G = G,
                                .V = a->v_next[g], .vals = vals, .tg = find_target(r, g),
                                .stride = stride, .cell = cell, .code = code, .t = t};
                E += P * target_value(&pc);
            }
            if (a->checks) check_pair(b, r, k, vals, a, s);
            env.enext = E;
            ir_eval(m, r, &env, vals, r->nnodes);
            q = vals[r->q];
        }
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

static int interp_run(lcm_backend *base, int kernel, lcm_kernel_args *args, lcm_index n, lcm_err *err)
{
    interp_backend *b = (interp_backend *)base;
    const ir_kernel *k = &b->m->kernels[kernel];
    const ir_regime *r = &b->m->regimes[k->regime];
    if (r->nstates > 64 || r->nactions > 64)
        return lcm_fail(err, LCM_E_INTERNAL, "the interpreter handles at most 64 states and actions");
#pragma omp parallel
    {
        double *vals = xcalloc(r->nnodes + 1, sizeof *vals);
#pragma omp for schedule(dynamic, 4)
        for (lcm_index s = 0; s < n; ++s) solve_state(b, k, args, s, vals);
        free(vals);
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
    b->base.run = interp_run;
    b->base.destroy = interp_destroy;
    lcm_host_memory_ops(&b->base);
    ir_grid_layout_build(m, &b->layout);
    *out = &b->base;
    (void)err;
    return 0;
}
