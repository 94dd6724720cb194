/* diagnose.c - see diagnose.h. */
#include "diagnose.h"

#include <math.h>
#include <stdlib.h>

#include "interp_point.h"

typedef struct next_ctx {
    const lcm_solution *sol;
    int period;
} next_ctx;

static double vnext_from_solution(const void *ctx, int regime, lcm_index i)
{
    const next_ctx *c = ctx;
    return lcm_solution_value(c->sol, c->period + 1, regime, i);
}

static void put_value(lcm_sb *b, double x)
{
    if (isnan(x)) base_sb_puts(b, "nan");
    else if (isinf(x)) base_sb_puts(b, x > 0 ? "inf" : "-inf");
    else base_sb_printf(b, "%.10g", x);
}

/* The first traced function (in computation order) whose value is NaN. */
static const char *first_nan_function(const lcm_point *p)
{
    const ir_regime *r = p->r;
    const char *name = NULL;
    int best = -1;
    for (int f = 0; f < r->nfuncs; ++f) {
        int id = r->funcs[f].node;
        if (isnan(p->vals[id]) && (best < 0 || id < best)) best = id, name = r->funcs[f].name;
    }
    return name;
}

static int probs_bad(const double *v, int n, double *sum)
{
    *sum = 0;
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        bad |= !(v[i] >= 0);
        *sum += v[i];
    }
    return bad || fabs(*sum - 1) > 1e-9;
}

/* Describes the failure at the current (feasible) pair; returns 1 if found. */
static int explain(const lcm_point *p, int bit, lcm_sb *b)
{
    const ir_model *m = p->m;
    const ir_regime *r = p->r;
    const double *v = p->vals;
    switch (bit) {
    case LCM_FLAG_NAN:
    case LCM_FLAG_INF: {
        if (bit == LCM_FLAG_NAN ? !isnan(p->q) : p->q != INFINITY) return 0;
        base_sb_printf(b, "utility = "), put_value(b, v[r->utility]);
        if (!p->k->last) base_sb_puts(b, ", E_next_V = "), put_value(b, p->E);
        base_sb_puts(b, ", Q = "), put_value(b, p->q);
        const char *f = bit == LCM_FLAG_NAN ? first_nan_function(p) : NULL;
        if (f) base_sb_printf(b, "; the first NaN is function '%s'", f);
        else if (isnan(p->E))
            base_sb_puts(b, "; E_next_V is NaN: next period's V is infinite where it is read (inf - inf, or 0 * inf)");
        return 1;
    }
    case LCM_FLAG_REGIME_PROB: {
        double pr[IR_MAX_REGIMES], sum;
        int n = 0;
        for (int g = 0; g < m->nregimes; ++g)
            if (r->rprob[g] >= 0) pr[n++] = v[r->rprob[g]];
        if (!probs_bad(pr, n, &sum)) return 0;
        base_sb_puts(b, "next regime probabilities");
        for (int g = 0, i = 0; g < m->nregimes; ++g)
            if (r->rprob[g] >= 0) base_sb_printf(b, "%s %s=", i++ ? "," : "", m->regimes[g].name), put_value(b, v[r->rprob[g]]);
        base_sb_puts(b, " (sum "), put_value(b, sum), base_sb_putc(b, ')');
        return 1;
    }
    case LCM_FLAG_INACTIVE:
        for (int i = 0; i < p->k->ninactive; ++i) {
            int g = p->k->inactive[i];
            if (v[r->rprob[g]] == 0) continue;
            base_sb_printf(b, "regime '%s' is inactive at age %g but has probability ", m->regimes[g].name,
                      m->ages[(int)p->period + 1]);
            put_value(b, v[r->rprob[g]]);
            return 1;
        }
        return 0;
    case LCM_FLAG_TASTE_SCALE:
        base_sb_puts(b, "scale = ");
        put_value(b, v[r->taste_scale]);
        return 1;
    case LCM_FLAG_CODE:
    case LCM_FLAG_STATE_PROB:
        for (int i = 0; i < p->k->ntargets; ++i) {
            int g = p->k->targets[i];
            if (v[r->rprob[g]] == 0) continue;
            const ir_target *tg = ir_find_target(r, g);
            const ir_regime *tr = &m->regimes[g];
            for (int s = 0; s < tr->nstates; ++s) {
                const ir_next *nx = &tg->next[s];
                const ir_grid *gr = &tr->states[s].grid;
                if (bit == LCM_FLAG_CODE && nx->kind == NEXT_DET && grid_is_discrete(gr)) {
                    double x = v[nx->node];
                    if (x >= 0 && x <= gr->n - 1 && x == floor(x)) continue;
                    base_sb_printf(b, "the next '%s' (in regime '%s') is ", tr->states[s].name, tr->name);
                    put_value(b, x);
                    base_sb_printf(b, ", not a code of 0..%d", gr->n - 1);
                    return 1;
                }
                if (bit == LCM_FLAG_STATE_PROB && nx->kind == NEXT_MARKOV) {
                    double pr[256], sum;
                    int n = nx->nprobs < 256 ? nx->nprobs : 256;
                    for (int j = 0; j < n; ++j) pr[j] = v[nx->probs[j]];
                    if (!probs_bad(pr, n, &sum)) continue;
                    base_sb_printf(b, "the probabilities of the next '%s' (in regime '%s') are", tr->states[s].name, tr->name);
                    for (int j = 0; j < n; ++j) base_sb_printf(b, "%s %s=", j ? "," : "", gr->labels[j]), put_value(b, pr[j]);
                    base_sb_puts(b, " (sum "), put_value(b, sum), base_sb_putc(b, ')');
                    return 1;
                }
            }
        }
        return 0;
    case LCM_FLAG_CE:
        if (!p->ce_bad) return 0;
        base_sb_puts(b, "risk_aversion = "), put_value(b, v[r->risk_aversion]);
        for (int i = 0; i < p->k->ntargets && isfinite(v[r->risk_aversion]); ++i) {
            int g = p->k->targets[i];
            if (v[r->rprob[g]] == 0) continue;
            double low = ir_point_target_min(p, g);
            if (!(low < 0)) continue;
            base_sb_printf(b, "; V of regime '%s' next period is ", m->regimes[g].name), put_value(b, low);
            base_sb_puts(b, " where it is read: the certainty equivalent needs V >= 0 (V in consumption units, "
                           "e.g. a dead regime worth 0 or a bequest)");
            return 1;
        }
        return 1;
    default:
        return 0;
    }
}

void solve_diagnose(const ir_model *m, const ir_grid_layout *L, const double *G, const double *params,
                  const lcm_solution *sol, int period, int regime, lcm_index state, int bit, lcm_sb *out)
{
    const ir_regime *r = &m->regimes[regime];
    if (r->nstates > IR_POINT_VARS) return;
    double x[IR_POINT_VARS];
    lcm_point p = {.m = m, .r = r, .L = L, .G = G, .period = period};
    ir_point_state(&p, state);
    for (int s = 0; s < r->nstates; ++s) x[s] = p.x[s];
    solve_diagnose_at(m, L, G, params, sol, period, regime, x, bit, out);
}

void solve_diagnose_at(const ir_model *m, const ir_grid_layout *L, const double *G, const double *params,
                     const lcm_solution *sol, int period, int regime, const double *x, int bit, lcm_sb *out)
{
    int k = m->period_kernel[regime * m->nperiods + period];
    const ir_regime *r = &m->regimes[regime];
    if (k < 0 || r->nstates > IR_POINT_VARS || r->nactions > IR_POINT_VARS) return;
    next_ctx ctx = {.sol = sol, .period = period};
    lcm_point p = {.m = m, .k = &m->kernels[k], .r = r, .L = L, .G = G, .params = params,
                   .vnext = vnext_from_solution, .vnext_ctx = &ctx, .age = m->ages[period], .period = period};
    p.vals = base_xcalloc(r->nnodes + 1, sizeof *p.vals);
    for (int s = 0; s < r->nstates; ++s) p.x[s] = x[s];
    lcm_index na = ir_action_space_size(r);
    int *fails = base_xcalloc((size_t)r->nconstraints + 1, sizeof *fails);
    for (lcm_index a = 0; a < na; ++a) {
        ir_point_action(&p, a);
        ir_point_eval(&p);
        for (int c = 0; c < r->nconstraints; ++c) fails[c] += p.vals[r->constraints[c].node] == 0;
        if (!p.feasible || bit == LCM_FLAG_INFEASIBLE) continue;
        lcm_sb detail;
        base_sb_init(&detail);
        if (explain(&p, bit, &detail)) {
            int own = bit == LCM_FLAG_TASTE_SCALE; /* a value of the state, not of the action */
            if (r->nactions && !own) {
                base_sb_puts(out, "; at ");
                ir_describe_action(&p, a, out);
                /* EGM's own actions are off the action grid, which only shows the cause */
                base_sb_puts(out, ir_is_egm(r) ? " (feasible; a point of the action's grid, which EGM does not "
                                                "search):"
                                              : " (feasible):");
            }
            base_sb_printf(out, "; %s" + (r->nactions && !own ? 1 : 0), detail.s);
            if (bit != LCM_FLAG_NAN && bit != LCM_FLAG_INF && !own) { /* those say it already */
                base_sb_puts(out, "; utility = "), put_value(out, p.vals[r->utility]);
                if (!p.k->last) base_sb_puts(out, ", E_next_V = "), put_value(out, p.E);
                base_sb_puts(out, ", Q = "), put_value(out, p.q);
            }
            base_sb_free(&detail);
            break;
        }
        base_sb_free(&detail);
    }
    if (bit == LCM_FLAG_INFEASIBLE)
        for (int c = 0; c < r->nconstraints; ++c)
            if (fails[c]) base_sb_printf(out, "; constraint '%s' fails for %d of %lld actions%s", r->constraints[c].name,
                                    fails[c], (long long)na, ir_is_egm(r) ? " of the action grids" : "");
    free(fails);
    free(p.vals);
}
