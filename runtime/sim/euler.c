/* euler.c - Euler errors of a solution (lcm.h: lcm_euler_grid,
 * lcm_euler_panel), in the regimes with a consumption-saving margin
 * (ir_has_margin: the liquid state x, the continuous action c paid from it
 * and savings a = R - c, R the resources; derived from the model's
 * equations as the endogenous grid method's are, gen/dsl/egm_plan.lua).
 *
 * At a point of period t (a state and the action chosen there) the Euler
 * equation of the margin is
 *
 *     u_c(c~) = delta * sum_g P_g * dx'_g/da * E[ M_{t+1,g}(x'_g, z') ],
 *
 * M = d V / d x the marginal value of x in the period after, by the
 * envelope theorem u_c(c*) * dR/dx at its decision c*.  The error is the
 * distance of the chosen c from the c~ that solves it (egm.policy, the
 * closed-form inverse of u_c), relative and in log10: log10 |c - c~| / c
 * (Judd 1992; Druedahl 2021 reports its mean and percentiles over the
 * interior points of a panel), floored at EULER_FLOOR.
 *
 * M_{t+1} lives on the grid of period t+1: at each point the decision the
 * simulation makes there (the same kernels: grid search's argmax of Q,
 * EGM's candidates from its endogenous grid), taken by simulating the
 * grid's points for one period (sim_simulate_span); between the points it
 * is interpolated in 1 / M, as EGM's table reads it.  A terminal regime
 * without actions that carries x (a bequest) gives d utility / d x there,
 * the node `marginal` an EGM regime's kernel stores or that the Euler
 * errors of grid-search regimes alone read (ir.h, euler_marginal).
 *
 * A point counts (is interior) where its savings exceed the borrowing limit
 * (EGM's first savings point, 0 for grid search: the budget c <= R) by more
 * than the cutoff, x lives on in the period after (the right side is
 * positive), and, for grid search, the next point of c's grid is feasible
 * (grid_binds: else the budget binds between the two).  Taste shocks are refused: the choice-weighted marginal value
 * of a grid-search regime is not kept.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "eval.h"
#include "initial.h"
#include "interp_point.h"
#include "panel.h"
#include "simulate.h"
#include "solver_internal.h"

#define EULER_FLOOR 1e-16 /* |c - c~| / c below this (rounding) counts as this */

/* The decisions at the grid's points: per period and regime with a margin
 * (or a marginal value of its own), the actions chosen at each point and
 * 1 / M there. */
typedef struct euler_grid {
    const ir_model *m;
    double **act;   /* [t * nregimes + r]: [points * nactions], NaN where nothing is feasible */
    double **inv_m; /* [t * nregimes + r]: [points] 1 / M */
} euler_grid;

/* What one point needs: the solution's buffers and the grid's decisions. */
typedef struct euler_ctx {
    lcm_solver *sv;
    const lcm_solution *sol;
    const ir_model *m;
    euler_grid g;
    double cutoff;
} euler_ctx;

typedef struct point_ctx {
    const euler_ctx *e;
    int t1; /* the period of M */
} point_ctx;

static double inv_m_next(const void *ctx, int regime, lcm_index i)
{
    const point_ctx *c = ctx;
    const double *a = c->e->g.inv_m[(size_t)c->t1 * (size_t)c->e->m->nregimes + (size_t)regime];
    return a ? a[i] : NAN;
}

static lcm_point point_at(const euler_ctx *e, const ir_regime *r, int t, const point_ctx *pc, double *vals)
{
    const ir_model *m = e->m;
    return (lcm_point){.m = m, .k = &m->kernels[m->period_kernel[r->id * m->nperiods + t]], .r = r,
                       .L = &e->sol->layout, .G = e->sol->grids, .params = e->sol->params, .vnext = inv_m_next,
                       .vnext_ctx = pc, .age = m->ages[t], .period = t, .vals = vals};
}

static ir_env leaf_env(const lcm_point *p, double savings, double marginal)
{
    return (ir_env){.states = p->x, .actions = p->act, .age = p->age, .period = p->period, .enext = NAN,
                    .savings = savings, .marginal = marginal, .params = p->params};
}

/* Whether regime r's taste shocks (if any) are off at the point (vals evaluated). */
static int taste_off(const ir_regime *r, const double *vals) { return r->taste_scale < 0 || vals[r->taste_scale] == 0; }

/* refused: a regime id + 1 (0: none) */
static int taste_refused(const ir_model *m, int refused, lcm_err *err)
{
    const ir_regime *r = &m->regimes[refused - 1];
    return base_fail(err, LCM_E_USAGE, "Euler errors of model '%s': regime '%s' has taste shocks, whose "
                     "choice-weighted marginal value is not kept (not supported yet)", m->name, r->name);
}

/* ---- the decisions at the grid's points ------------------------------------ */

/* Whether M of regime r is needed: it has a margin, or is terminal with
 * d utility / d x (kept as its marginal value, or for the Euler errors
 * alone: ir_has_terminal_marginal). */
static int keeps_m(const ir_regime *r) { return ir_has_margin(r) || ir_has_terminal_marginal(r); }

/* 1 / M at every point of a terminal regime that keeps d utility / d x. */
static int terminal_inv_m(euler_ctx *e, const ir_regime *r, int t, double *out)
{
    lcm_index n = ir_state_space_size(r);
    double *vals = base_xcalloc(r->nnodes + 1, sizeof *vals);
    point_ctx pc = {e, t};
    lcm_point pt = point_at(e, r, t, &pc, vals);
    for (lcm_index i = 0; i < n; ++i) {
        ir_point_state(&pt, i);
        ir_point_eval_values(&pt);
        out[i] = 1 / vals[r->marginal];
    }
    free(vals);
    return 0;
}

/* The decisions at period t's grid points of the regimes with a margin:
 * one simulation of one period whose subjects are the points. */
static int decide_on_grid(euler_ctx *e, int t, lcm_err *err)
{
    const ir_model *m = e->m;
    lcm_solver *sv = e->sv;
    size_t R = (size_t)m->nregimes, ns = (size_t)sv->vars.nstates;
    lcm_index n = 0;
    for (int r = 0; r < m->nregimes; ++r)
        if (ir_has_margin(&m->regimes[r]) && m->regimes[r].active[t]) n += ir_state_space_size(&m->regimes[r]);
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *reg = &m->regimes[r];
        if (!reg->active[t] || !keeps_m(reg)) continue;
        lcm_index pts = ir_state_space_size(reg);
        e->g.inv_m[(size_t)t * R + (size_t)r] = base_xmalloc(((size_t)pts + 1) * sizeof(double));
        if (!ir_has_margin(reg)) terminal_inv_m(e, reg, t, e->g.inv_m[(size_t)t * R + (size_t)r]);
    }
    if (!n) return 0;
    /* the subjects: every point of every such regime, in regime order */
    lcm_initial ic = {.n = n, .nslots = (int)ns, .source_hash = NULL};
    ic.regime = base_xmalloc(((size_t)n + 1) * sizeof *ic.regime);
    ic.period = base_xmalloc(((size_t)n + 1) * sizeof *ic.period);
    ic.x = base_xmalloc(((size_t)n * ns + 1) * sizeof *ic.x);
    ic.given = base_xcalloc((size_t)n * ns + 1, 1);
    double *vals = base_xcalloc(ir_most_nodes(m) + 1, sizeof *vals);
    lcm_index k = 0;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *reg = &m->regimes[r];
        if (!ir_has_margin(reg) || !reg->active[t]) continue;
        point_ctx pc = {e, t};
        lcm_point pt = point_at(e, reg, t, &pc, vals);
        for (lcm_index i = 0; i < ir_state_space_size(reg); ++i, ++k) {
            ir_point_state(&pt, i);
            ic.regime[k] = r, ic.period[k] = t;
            for (size_t s = 0; s < ns; ++s) ic.x[(size_t)k * ns + s] = NAN;
            for (int s = 0; s < reg->nstates; ++s) {
                size_t slot = (size_t)sv->vars.state_slot[r][s];
                ic.x[(size_t)k * ns + slot] = pt.x[s], ic.given[(size_t)k * ns + slot] = 1;
            }
        }
    }
    lcm_panel *p = NULL;
    int rc = sim_simulate_span(sv, e->sol, &ic, t, t, &p, err);
    free(ic.regime), free(ic.period), free(ic.x), free(ic.given);
    /* row k is subject k at period t (one row each: a subject lives from its start) */
    if (!rc) lcm_assert(p->n == n);
    for (int r = 0; r < m->nregimes && !rc; ++r) {
        const ir_regime *reg = &m->regimes[r];
        if (!ir_has_margin(reg) || !reg->active[t]) continue;
        lcm_index pts = ir_state_space_size(reg);
        double *act = base_xmalloc(((size_t)pts * (size_t)reg->nactions + 1) * sizeof *act);
        double *inv = e->g.inv_m[(size_t)t * R + (size_t)r];
        e->g.act[(size_t)t * R + (size_t)r] = act;
        point_ctx pc = {e, t};
        lcm_point pt = point_at(e, reg, t, &pc, vals);
        lcm_index first = 0;
        while (first < p->n && p->regime[first] != r) ++first;
        for (lcm_index i = 0; i < pts && !rc; ++i) {
            lcm_index row = first + i;
            lcm_assert(row < p->n && p->regime[row] == r && (lcm_index)p->subject[row] == row);
            ir_point_state(&pt, i);
            int none = 0;
            for (int a = 0; a < reg->nactions; ++a) {
                pt.act[a] = act[(size_t)i * (size_t)reg->nactions + (size_t)a] =
                    p->act[p->vars.action_slot[r][a]][row];
                none |= pt.act[a] != pt.act[a];
            }
            if (none) {
                inv[i] = NAN;
                continue;
            }
            ir_point_eval_values(&pt);
            if (!taste_off(reg, vals)) rc = taste_refused(m, r + 1, err);
            inv[i] = 1 / (vals[reg->egm.marginal] * vals[reg->egm.dresources]);
        }
    }
    free(vals);
    lcm_panel_free(p);
    return rc;
}

static void euler_grid_free(euler_grid *g)
{
    size_t cells = (size_t)g->m->nperiods * (size_t)g->m->nregimes;
    for (size_t i = 0; g->act && i < cells; ++i) free(g->act[i]), free(g->inv_m[i]);
    free(g->act), free(g->inv_m);
}

/* ---- the error at a point ---------------------------------------------------- */

static void harmonic_node(void *acc, double w, double inv) { *(double *)acc += w / inv; }

/* Whether grid search's c at pt is at its limit: the last point of its grid,
 * or the next point is infeasible (the budget binds between the two, where
 * the savings that are left say nothing of the Euler equation).  pt->vals
 * evaluated at pt on return. */
static int grid_binds(lcm_point *pt)
{
    const ir_regime *r = pt->r;
    int k = r->egm.action;
    const ir_grid *g = &r->actions[k].grid;
    const double *pts = pt->G + ir_grid_at(g, pt->L->action_off[r->id][k], (int)pt->period);
    double c = pt->act[k];
    int j = 0;
    while (j + 1 < g->n && pts[j] < c) ++j;
    if (pts[j] != c || j + 1 >= g->n) return 1; /* off the grid (not grid search's), or its last point */
    pt->act[k] = pts[j + 1];
    ir_point_eval_values(pt);
    int feasible = 1;
    for (int i = 0; i < r->nconstraints; ++i) feasible &= pt->vals[r->constraints[i].node] != 0;
    pt->act[k] = c;
    ir_point_eval_values(pt);
    return !feasible;
}

/* The Euler error at pt (regime r, period t < the last, state and action
 * set): log10 |c - c~| / c, or NaN where the point is not interior
 * (*refused = r's id + 1 where its taste shocks are on). */
static double error_at(const euler_ctx *e, lcm_point *pt, int *refused)
{
    const ir_regime *r = pt->r;
    const ir_egm *E = &r->egm;
    ir_point_eval_values(pt);
    double *vals = pt->vals;
    if (!taste_off(r, vals)) {
        *refused = r->id + 1;
        return NAN;
    }
    double c = pt->act[E->action], a = vals[E->resources] - c;
    double limit = ir_is_egm(r) ? pt->G[pt->L->savings_off[r->id][0]] : 0;
    if (!(a > limit + e->cutoff) || !(c > 0) || (!ir_is_egm(r) && grid_binds(pt))) return NAN;
    ir_env env = leaf_env(pt, a, NAN);
    ir_eval(e->m, r, &env, vals, r->nnodes); /* dx'/da at these savings */
    double rhs = 0;
    for (int i = 0; i < r->ntargets; ++i) {
        int g = r->targets[i].regime, ok;
        double P = vals[r->rprob[g]];
        if (P == 0 || E->next[i] < 0) continue; /* x does not live on there */
        double Em = 0;
        ir_point_target_visit(pt, g, harmonic_node, &Em, &ok);
        rhs += P * vals[E->dnext[i]] * Em;
    }
    rhs *= vals[E->discount];
    if (!(rhs > 0)) return NAN;
    env.marginal = rhs;
    ir_eval(e->m, r, &env, vals, r->nnodes);
    double rel = fabs(c - vals[E->policy]) / c;
    return rel == rel ? log10(rel > EULER_FLOOR ? rel : EULER_FLOOR) : NAN;
}

/* ---- statistics ----------------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-th quantile of sorted x[n] (linear between order statistics, numpy's default). */
static double quantile(const double *x, lcm_index n, double q)
{
    double at = q * (double)(n - 1);
    lcm_index lo = (lcm_index)floor(at);
    if (lo >= n - 1) return x[n - 1];
    return x[lo] + (at - (double)lo) * (x[lo + 1] - x[lo]);
}

/* Summarises errs[n] (NaN: not interior; counted as constrained where
 * counted[i]) into *out. */
static void summarise(const double *errs, const unsigned char *counted, lcm_index n, lcm_euler_stats *out)
{
    double *x = base_xmalloc(((size_t)n + 1) * sizeof *x), sum = 0;
    lcm_index k = 0, left = 0;
    for (lcm_index i = 0; i < n; ++i) {
        if (!counted[i]) continue;
        if (errs[i] == errs[i]) x[k++] = errs[i], sum += errs[i];
        else ++left;
    }
    qsort(x, (size_t)k, sizeof *x, by_value);
    *out = (lcm_euler_stats){.points = k, .constrained = left, .mean = NAN, .p5 = NAN, .p50 = NAN, .p95 = NAN};
    if (k) {
        out->mean = sum / (double)k;
        out->p5 = quantile(x, k, 0.05), out->p50 = quantile(x, k, 0.5), out->p95 = quantile(x, k, 0.95);
    }
    free(x);
}

/* ---- the entry points -------------------------------------------------------------- */

/* The checks both entry points make, and the decisions on the grid of
 * periods first .. T-1 (M needs 1 .. T-1; the grid's errors also read
 * period 0's decisions, a panel's its own). */
static int euler_begin(euler_ctx *e, lcm_solver *sv, const lcm_solution *sol, double cutoff, int first, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    *e = (euler_ctx){.sv = sv, .sol = sol, .m = m, .cutoff = cutoff, .g = {.m = m}};
    if (!(cutoff >= 0))
        return base_fail(err, LCM_E_USAGE, "an Euler-error cutoff of %g: give savings of 0 or more", cutoff);
    if (sol->m != m && (!sol->m->source_hash || !m->source_hash || strcmp(sol->m->source_hash, m->source_hash)))
        return base_fail(err, LCM_E_INPUT, "the solution was computed for another model (or another version of it)");
    int any = 0;
    lcm_sb why;
    base_sb_init(&why);
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *reg = &m->regimes[r];
        any |= ir_has_margin(reg);
        if (reg->nstates > IR_POINT_VARS || reg->nactions > IR_POINT_VARS)
            return base_sb_free(&why), base_fail(err, LCM_E_USAGE, "Euler errors: regime '%s' has more than %d "
                                                "states or actions", reg->name, IR_POINT_VARS);
        if (!ir_has_margin(reg) && reg->margin_why) base_sb_printf(&why, "; regime '%s': %s", reg->name, reg->margin_why);
    }
    if (!any) {
        int rc = base_fail(err, LCM_E_USAGE, "Euler errors: model '%s' has no regime with a consumption-saving margin "
                           "(a liquid state and a continuous action paid from it: docs/solvers.md)%s", m->name,
                           why.s ? why.s : "");
        base_sb_free(&why);
        return rc;
    }
    base_sb_free(&why);
    size_t cells = (size_t)m->nperiods * (size_t)m->nregimes + 1;
    e->g.act = base_xcalloc(cells, sizeof *e->g.act);
    e->g.inv_m = base_xcalloc(cells, sizeof *e->g.inv_m);
    int rc = 0;
    for (int t = first; t < m->nperiods && !rc; ++t) rc = decide_on_grid(e, t, err);
    return rc;
}

/* by_regime[r] from the points of regime r (regime[i]), all from all. */
static void summarise_all(const double *errs, const int *regime, lcm_index n, int nregimes, lcm_euler_stats *all,
                          lcm_euler_stats *by_regime)
{
    unsigned char *counted = base_xmalloc((size_t)n + 1);
    for (lcm_index i = 0; i < n; ++i) counted[i] = regime[i] >= 0;
    summarise(errs, counted, n, all);
    for (int r = 0; by_regime && r < nregimes; ++r) {
        for (lcm_index i = 0; i < n; ++i) counted[i] = regime[i] == r;
        summarise(errs, counted, n, &by_regime[r]);
    }
    free(counted);
}

int lcm_euler_grid(lcm_solver *sv, const lcm_solution *sol, double cutoff, lcm_euler_stats *all,
                   lcm_euler_stats *by_regime, lcm_err *err)
{
    LCM_NEEDS(err, sv, sol, all);
    euler_ctx e;
    int rc = euler_begin(&e, sv, sol, cutoff, 0, err);
    const ir_model *m = e.m;
    lcm_index n = 0;
    for (int t = 0; t + 1 < m->nperiods && !rc; ++t)
        for (int r = 0; r < m->nregimes; ++r)
            if (ir_has_margin(&m->regimes[r]) && m->regimes[r].active[t]) n += ir_state_space_size(&m->regimes[r]);
    double *errs = base_xmalloc(((size_t)n + 1) * sizeof *errs);
    int *regime = base_xmalloc(((size_t)n + 1) * sizeof *regime), refused = 0;
    lcm_index at = 0;
    for (int t = 0; t + 1 < m->nperiods && !rc; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            const ir_regime *reg = &m->regimes[r];
            if (!ir_has_margin(reg) || !reg->active[t]) continue;
            lcm_index pts = ir_state_space_size(reg);
            const double *act = e.g.act[(size_t)t * (size_t)m->nregimes + (size_t)r];
#pragma omp parallel num_threads(base_host_threads(sv->threads)) reduction(max : refused)
            {
                double *vals = base_xcalloc(reg->nnodes + 1, sizeof *vals);
                point_ctx pc = {&e, t + 1};
                lcm_point pt = point_at(&e, reg, t, &pc, vals);
#pragma omp for schedule(dynamic, 256)
                for (lcm_index i = 0; i < pts; ++i) {
                    ir_point_state(&pt, i);
                    int none = 0;
                    for (int a = 0; a < reg->nactions; ++a)
                        pt.act[a] = act[(size_t)i * (size_t)reg->nactions + (size_t)a], none |= pt.act[a] != pt.act[a];
                    errs[at + i] = none ? NAN : error_at(&e, &pt, &refused);
                    regime[at + i] = r;
                }
                free(vals);
            }
            at += pts;
        }
    if (!rc && refused) rc = taste_refused(m, refused, err);
    if (!rc) summarise_all(errs, regime, at, m->nregimes, all, by_regime);
    free(errs), free(regime);
    euler_grid_free(&e.g);
    return rc;
}

int lcm_euler_panel(lcm_solver *sv, const lcm_solution *sol, lcm_panel *panel, double cutoff, lcm_euler_stats *all,
                    lcm_euler_stats *by_regime, lcm_err *err)
{
    LCM_NEEDS(err, sv, sol, panel, all);
    const ir_model *m = &sv->model->ir;
    if (panel->m != m && strcmp(panel->m->source_hash ? panel->m->source_hash : "", m->source_hash ? m->source_hash : ""))
        return base_fail(err, LCM_E_USAGE, "lcm_euler_panel: the panel was simulated with another model");
    for (int i = 0; i < panel->ntargets; ++i)
        if (!strcmp(panel->target_names[i], "euler_error"))
            return base_fail(err, LCM_E_USAGE, "the panel has a column 'euler_error' already");
    euler_ctx e;
    int rc = euler_begin(&e, sv, sol, cutoff, 1, err); /* the panel's own decisions in each period: M from 1 on */
    lcm_index n = panel->n;
    double *errs = rc ? NULL : sim_panel_add_column(panel, "euler_error");
    int *regime = base_xmalloc(((size_t)n + 1) * sizeof *regime), refused = 0;
    size_t most = ir_most_nodes(m);
#pragma omp parallel num_threads(base_host_threads(sv->threads)) reduction(max : refused) if (!rc)
    {
        double *vals = base_xcalloc(most + 1, sizeof *vals);
#pragma omp for schedule(dynamic, 256)
        for (lcm_index k = 0; k < n; ++k) {
            const ir_regime *r = &m->regimes[panel->regime[k]];
            int t = panel->period[k];
            regime[k] = -1;
            if (rc) continue;
            errs[k] = NAN;
            if (!ir_has_margin(r) || t + 1 >= m->nperiods) continue;
            point_ctx pc = {&e, t + 1};
            lcm_point pt = point_at(&e, r, t, &pc, vals);
            int none = 0;
            for (int s = 0; s < r->nstates; ++s) pt.x[s] = panel->x[panel->vars.state_slot[r->id][s]][k];
            for (int a = 0; a < r->nactions; ++a)
                pt.act[a] = panel->act[panel->vars.action_slot[r->id][a]][k], none |= pt.act[a] != pt.act[a];
            regime[k] = r->id;
            if (!none) errs[k] = error_at(&e, &pt, &refused);
        }
        free(vals);
    }
    if (!rc && refused) rc = taste_refused(m, refused, err);
    if (!rc) summarise_all(errs, regime, n, m->nregimes, all, by_regime);
    free(regime);
    euler_grid_free(&e.g);
    return rc;
}
