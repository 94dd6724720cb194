/* Druedahl (2021)'s durable model (models/durables.lua) by the nested
 * endogenous grid method (-D solver=negm) against its grid-search twin
 * (-D solver=vfi_levels: the same actions, states, durables and last period,
 * consumption on a fine grid of 2000 points), at small grids, as the state
 * grids double together: wealth (a_points) 10, 20, 40 with permanent income
 * and the durable stock (p_points, n_points) 4, 8, 16:
 *
 * - V: the median relative difference at the interior states (a_lag above
 *   0.5, p_lag above its first point: below them V falls towards minus
 *   infinity between two grid points, where the two solvers' readings of it
 *   differ without bound) in periods 0 and 1 falls at least as h^1.5 per
 *   doubling overall (measured 2.4 and 2.0: both solvers interpolate the
 *   next period linearly, EGM its marginal value in 1 / M, grid search V,
 *   and the two readings meet as h^2);
 * - the policy: the mean relative difference of the consumption the two
 *   choose in period 0 for 60 subjects at interior states, where they
 *   choose the same durable, falls at least as h^1 (measured 1.7, then 1.0
 *   as it nears grid search's own resolution, the consumption grid's
 *   spacing of about 0.5%: 5.3%, 1.7%, 0.8%);
 * - Euler errors on the grid: NEGM's at least 10 times below grid search's
 *   on every grid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

#define STATES "n_periods=3", "psi_points=3", "xi_points=3", "d_points=5"
#define PARAMS "models/durables.params.lua"
#define NGRIDS 3

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
    /* 60 subjects at interior states: a_lag 1 .. 5, p_lag 0.8 .. 2, n 0.2 .. 2 (the shocks drawn) */
    enum { N = 60 };
    static double a[N], pl[N], nn[N], age[N];
    static const char *regime[N];
    for (int i = 0; i < N; ++i)
        a[i] = 1 + 4.0 * (i % 5) / 4, pl[i] = 0.8 + 1.2 * (i / 5 % 4) / 3, nn[i] = 0.2 + 1.8 * (i / 20) / 2,
        age[i] = 0, regime[i] = "alive";
    const char *names[] = {"regime", "age", "a_lag", "p_lag", "n"};
    const double *num[] = {NULL, age, a, pl, nn};
    const char *const *text[] = {regime, NULL, NULL, NULL, NULL};
    if (r->sol) CHECK_OK(lcm_initial_from_arrays(r->model, "test_durables_negm", 5, names, num, text, N, &ic, &err));
    lcm_sim_options so = {.seed = 3};
    if (ic) CHECK_OK(lcm_simulate(r->sv, r->sol, ic, &so, &r->panel, &err));
    if (r->panel) CHECK_OK(lcm_euler_grid(r->sv, r->sol, 0.02, &r->euler, NULL, &err));
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median relative difference of V in period t of 'alive' at the
 * interior states: a_lag above 0.5 and p_lag above its first point (V's
 * flat index decoded row-major in the model's order of the states). */
static double v_gap(const run *a, const run *b, int t)
{
    const int alive = 0;
    lcm_index n = 0, m = 0;
    const double *x = lcm_solution_V(a->sol, t, alive, &n), *y = lcm_solution_V(b->sol, t, alive, &m);
    if (!x || !y || n != m) return NAN;
    int ns = lcm_model_regime_states(b->model, alive), points[16], ia = -1, ip = -1;
    for (int k = 0; k < ns && k < 16; ++k) {
        const char *name = lcm_model_state(b->model, alive, k, &points[k], NULL);
        if (!strcmp(name, "a_lag")) ia = k;
        if (!strcmp(name, "p_lag")) ip = k;
    }
    CHECK(ia >= 0 && ip >= 0);
    const double *a_pts = lcm_solution_state_points(b->sol, t, alive, ia);
    double *gaps = malloc((size_t)n * sizeof *gaps);
    lcm_index k = 0;
    for (lcm_index i = 0; i < n && a_pts; ++i) {
        lcm_index rest = i;
        int code[16];
        for (int s = ns - 1; s >= 0; --s) code[s] = (int)(rest % points[s]), rest /= points[s];
        if (a_pts[code[ia]] <= 0.5 || code[ip] == 0) continue;
        gaps[k++] = fabs(x[i] - y[i]) / fabs(y[i]);
    }
    qsort(gaps, (size_t)k, sizeof *gaps, by_value);
    double median = k ? gaps[k / 2] : NAN;
    free(gaps);
    return median;
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
    /* the state grids, doubling together */
    static const char *const apoints[NGRIDS] = {"a_points=10", "a_points=20", "a_points=40"},
                             *ppoints[NGRIDS] = {"p_points=4", "p_points=8", "p_points=16"},
                             *npoints[NGRIDS] = {"n_points=4", "n_points=8", "n_points=16"};
    double v0[NGRIDS], v1[NGRIDS], cg[NGRIDS];
    for (int g = 0; g < NGRIDS; ++g) {
        const char *negm_defs[] = {STATES, apoints[g], ppoints[g], npoints[g], "solver=negm", "savings_points=400", NULL},
                   *vfi_defs[] = {STATES, apoints[g], ppoints[g], npoints[g], "solver=vfi_levels", "c_points=2000", NULL};
        run negm, vfi;
        solve_and_simulate(negm_defs, &negm);
        solve_and_simulate(vfi_defs, &vfi);
        if (!negm.panel || !vfi.panel) CHECK_DONE();
        int same;
        v0[g] = v_gap(&negm, &vfi, 0), v1[g] = v_gap(&negm, &vfi, 1), cg[g] = c_gap(&negm, &vfi, &same);
        printf("%s: median |V_negm - V_vfi| / |V_vfi| period 0 %.3e, period 1 %.3e; consumption %.3e (%d subjects); "
               "Euler errors on the grid: NEGM %.3f (%lld points), grid search %.3f (%lld)\n", apoints[g], v0[g], v1[g],
               cg[g], same, negm.euler.mean, (long long)negm.euler.points, vfi.euler.mean,
               (long long)vfi.euler.points);
        if (g) printf("  rates: V %.2f, %.2f, consumption %.2f\n", log2(v0[g - 1] / v0[g]), log2(v1[g - 1] / v1[g]),
                      log2(cg[g - 1] / cg[g]));
        CHECK_MSG(same >= 25, "%s: only %d subjects chose the same durable", apoints[g], same);
        CHECK_MSG(negm.euler.points > 100 && negm.euler.mean <= vfi.euler.mean - 1,
                  "%s: Euler errors: NEGM %.3f not 10 times below grid search's %.3f", apoints[g], negm.euler.mean,
                  vfi.euler.mean);
        done(&negm), done(&vfi);
    }
    double r0 = log2(v0[0] / v0[NGRIDS - 1]) / (NGRIDS - 1), r1 = log2(v1[0] / v1[NGRIDS - 1]) / (NGRIDS - 1),
           rc = log2(cg[0] / cg[NGRIDS - 1]) / (NGRIDS - 1);
    printf("mean rates over %d doublings of the state grids: V %.2f (period 0), %.2f (period 1), consumption %.2f\n",
           NGRIDS - 1, r0, r1, rc);
    CHECK_MSG(r0 >= 1.5 && r1 >= 1.5, "V: NEGM against grid search falls at rates %.2f, %.2f, not 1.5", r0, r1);
    CHECK_MSG(rc >= 1, "consumption: NEGM against grid search falls at rate %.2f, not 1", rc);
    CHECK_DONE();
}
