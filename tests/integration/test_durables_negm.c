/* Druedahl (2021)'s durable model (models/durables.lua) by the nested
 * endogenous grid method (-D solver=negm) against its grid-search twin
 * (-D solver=vfi_levels: the same actions, states, durables and last period,
 * consumption on a grid of c_points), at small grids:
 *
 * - V: grid search's consumption grid is the only difference, and a
 *   consumption off by h loses O(h^2) of value, so the largest relative
 *   difference of V at the interior states (p_lag above its first point,
 *   a_lag above 0) falls at least as h^1.5 as c_points doubles (measured:
 *   RATES below);
 * - the policy: the consumption the two choose for the bundled subjects in
 *   period 0 (the same states), where they choose the same durable, falls
 *   at least as h^0.8 (first order);
 * - Euler errors: NEGM's, along the panel, at least 10 times below grid
 *   search's at its finest grid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

#define STATES "n_periods=3", "a_points=10", "p_points=6", "n_points=6", "psi_points=3", "xi_points=3", "d_points=10"
#define PARAMS "models/durables.params.lua"
#define INITIAL "models/durables.initial.csv"
#define NGRIDS 4

typedef struct run {
    lcm_model *model;
    lcm_solver *sv;
    lcm_solution *sol;
    lcm_panel *panel;
    lcm_euler_stats euler;
} run;

static void solve_and_simulate(const char *const *defines, run *r)
{
    lcm_err err = {0};
    lcm_pvalue *p = NULL;
    lcm_initial *ic = NULL;
    memset(r, 0, sizeof *r);
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    CHECK_OK(test_generate("models/durables.lua", defines, &r->model, &err));
    if (r->model) CHECK_OK(test_params(PARAMS, &p, &err));
    if (p) CHECK_OK(lcm_solver_new(r->model, &o, &r->sv, &err));
    if (r->sv) CHECK_OK(lcm_solve(r->sv, p, &r->sol, &err));
    char *path = test_path(INITIAL);
    if (r->sol) CHECK_OK(lcm_initial_read(r->model, path, &ic, &err));
    lcm_sim_options so = {.seed = 3};
    if (ic) CHECK_OK(lcm_simulate(r->sv, r->sol, ic, &so, &r->panel, &err));
    if (r->panel) CHECK_OK(lcm_euler_panel(r->sv, r->sol, r->panel, 0.02, &r->euler, NULL, &err));
    free(path);
    lcm_initial_free(ic);
    lcm_pv_free(p);
}

static void done(run *r)
{
    lcm_panel_free(r->panel);
    lcm_solution_free(r->sol);
    lcm_solver_free(r->sv);
    lcm_model_free(r->model);
}

/* The largest relative difference of V in period 0 of 'alive' at the
 * interior states: a_lag and p_lag above their first points (V's flat
 * index decoded row-major in the model's order of the states). */
static double v_gap(const run *a, const run *b)
{
    const int alive = 0;
    lcm_index n = 0, m = 0;
    const double *x = lcm_solution_V(a->sol, 0, alive, &n), *y = lcm_solution_V(b->sol, 0, alive, &m);
    if (!x || !y || n != m) return NAN;
    int ns = lcm_model_regime_states(b->model, alive), points[16], ia = -1, ip = -1;
    for (int k = 0; k < ns && k < 16; ++k) {
        const char *name = lcm_model_state(b->model, alive, k, &points[k], NULL);
        if (!strcmp(name, "a_lag")) ia = k;
        if (!strcmp(name, "p_lag")) ip = k;
    }
    CHECK(ia >= 0 && ip >= 0);
    double worst = 0;
    for (lcm_index i = 0; i < n; ++i) {
        lcm_index rest = i;
        int code[16];
        for (int k = ns - 1; k >= 0; --k) code[k] = (int)(rest % points[k]), rest /= points[k];
        if (code[ia] == 0 || code[ip] == 0) continue;
        double d = fabs(x[i] - y[i]) / fabs(y[i]);
        if (d > worst) worst = d;
    }
    return worst;
}

/* The mean relative difference of consumption in period 0 where both chose
 * the same adjustment and durable. */
static double c_gap(const run *a, const run *b, int *same)
{
    lcm_index n = lcm_panel_rows(a->panel);
    const double *pa = NULL, *pb = NULL;
    double *ta = malloc((size_t)n * sizeof *ta), *tb = malloc((size_t)lcm_panel_rows(b->panel) * sizeof *tb);
    lcm_err err = {0};
    CHECK_OK(lcm_panel_column(a->panel, "period", ta, &err));
    CHECK_OK(lcm_panel_column(b->panel, "period", tb, &err));
    const double *ca = lcm_panel_column_data(a->panel, "c"), *cb = lcm_panel_column_data(b->panel, "c");
    const double *da = lcm_panel_column_data(a->panel, "d_new"), *db = lcm_panel_column_data(b->panel, "d_new");
    pa = lcm_panel_column_data(a->panel, "adjust"), pb = lcm_panel_column_data(b->panel, "adjust");
    double sum = 0;
    int k = 0;
    *same = 0;
    /* rows by subject, then period: period 0 is each subject's first row */
    for (lcm_index i = 0, j = 0; i < n && j < lcm_panel_rows(b->panel); ++i, ++j) {
        while (i < n && ta[i] != 0) ++i;
        while (j < lcm_panel_rows(b->panel) && tb[j] != 0) ++j;
        if (i >= n || j >= lcm_panel_rows(b->panel)) break;
        if (pa[i] != pb[j] || da[i] != db[j]) continue;
        sum += fabs(ca[i] - cb[j]) / cb[j], ++k;
    }
    free(ta), free(tb);
    *same = k;
    return k ? sum / k : NAN;
}

int main(void)
{
    const char *negm_defs[] = {STATES, "solver=negm", "savings_points=300", NULL};
    run negm;
    solve_and_simulate(negm_defs, &negm);
    if (!negm.panel) CHECK_DONE();
    static const char *const cpoints[NGRIDS] = {"c_points=100", "c_points=200", "c_points=400", "c_points=800"};
    double vg[NGRIDS], cg[NGRIDS];
    lcm_euler_stats finest = {0};
    for (int g = 0; g < NGRIDS; ++g) {
        const char *defs[] = {STATES, "solver=vfi_levels", cpoints[g], NULL};
        run vfi;
        solve_and_simulate(defs, &vfi);
        if (!vfi.panel) break;
        int same;
        vg[g] = v_gap(&vfi, &negm), cg[g] = c_gap(&vfi, &negm, &same);
        printf("%s: V %.3e, consumption %.3e (%d subjects), Euler errors grid search %.3f, NEGM %.3f\n", cpoints[g],
               vg[g], cg[g], same, vfi.euler.mean, negm.euler.mean);
        if (g) printf("  rates: V %.2f, consumption %.2f\n", log2(vg[g - 1] / vg[g]), log2(cg[g - 1] / cg[g]));
        CHECK_MSG(same >= 25, "%s: only %d subjects chose the same durable", cpoints[g], same);
        finest = vfi.euler;
        done(&vfi);
    }
    double v_rate = log2(vg[0] / vg[NGRIDS - 1]) / (NGRIDS - 1), c_rate = log2(cg[0] / cg[NGRIDS - 1]) / (NGRIDS - 1);
    printf("mean rates over %d doublings: V %.2f, consumption %.2f\n", NGRIDS - 1, v_rate, c_rate);
    CHECK_MSG(v_rate >= 1.5, "V: NEGM against grid search falls at rate %.2f, not 1.5", v_rate);
    CHECK_MSG(c_rate >= 0.8, "consumption: NEGM against grid search falls at rate %.2f, not 0.8", c_rate);
    CHECK_MSG(negm.euler.points > 20 && negm.euler.mean <= finest.mean - 1,
              "Euler errors: NEGM %.3f (%lld points) not 10 times below grid search's %.3f", negm.euler.mean,
              (long long)negm.euler.points, finest.mean);
    done(&negm);
    CHECK_DONE();
}
