/* Iskhakov, Jørgensen, Rust & Schjerning (2017): our V against the
 * published closed-form tables (tests/reference/iskhakov_2017, a copy of
 * the project's shared reference data).  Per wealth point, the mean over
 * periods of the squared difference: below 0.15 everywhere but at the two
 * lowest points for grid search, and at least 100 times smaller at the
 * worst of those points by DC-EGM (the endogenous grid method). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "iskhakov_ref.h"
#include "testlib.h"

/* The worst per-point MSE of V against the published table of each regime
 * (worst[0] working life, worst[1] retirement), V read at every
 * `stride`-th point of a wealth grid that holds the table's points. */
static void compare(const char *name, const char *const *defines, const char *params, int stride, double *worst)
{
    lcm_model *model = NULL;
    lcm_solution *sol = NULL;
    lcm_err err = {0};
    int at[2] = {-1, -1};
    worst[0] = worst[1] = INFINITY;
    CHECK_OK(test_solve("models/iskhakov_2017.lua", defines, params, LCM_BACKEND_CPU, 64, &model, &sol, &err));
    if (!sol) return;
    char *dir = test_path("tests/reference/iskhakov_2017");
    CHECK_OK(iskhakov_worst_mse(sol, dir, name, stride, worst, at, &err));
    for (int k = 0; k < 2; ++k)
        printf("%s / %s (%s%s%s): worst per-point MSE %.3e at wealth point %d\n", name, k ? "retirement" : "working_life",
               defines[0], defines[1] ? " " : "", defines[1] ? defines[1] : "", worst[k], at[k]);
    free(dir);
    lcm_solution_free(sol);
    lcm_model_free(model);
}

/* Grid search on the published grids (100 wealth, 500 consumption points)
 * below 0.15 at every point but the two lowest; DC-EGM on 991 wealth points
 * (every tenth one a point of the table) and 2000 savings points at least
 * 100 times closer at the worst point of each regime, than that and than
 * grid search on the same 991 wealth points (whose error is then the
 * consumption grid's). */
static void both(const char *name, const char *periods, const char *params)
{
    const char *grid[] = {periods, NULL}, *dense[] = {periods, "wealth_points=991", NULL},
               *egm[] = {periods, "solver=egm", "wealth_points=991", NULL};
    double g[2], d[2], e[2];
    compare(name, grid, params, 1, g);
    compare(name, dense, params, 10, d);
    compare(name, egm, params, 10, e);
    for (int k = 0; k < 2; ++k) {
        printf("%s, %s: grid search %.3e (on 991 wealth points %.3e), DC-EGM %.3e: %.0f (%.0f) times smaller\n", name,
               k ? "retirement" : "working life", g[k], d[k], e[k], g[k] / e[k], d[k] / e[k]);
        CHECK_MSG(g[k] < 0.15, "%s: grid search MSE %.4f", name, g[k]);
        CHECK_MSG(e[k] * 100 <= g[k] && e[k] * 100 <= d[k], "%s: DC-EGM MSE %.3e is not 100 times below grid search's "
                  "%.3e (%.3e)", name, e[k], g[k], d[k]);
    }
}

int main(void)
{
    both("five_periods", "n_periods=6", "models/iskhakov_2017.params.lua");
    both("low_delta", "n_periods=4", "models/iskhakov_2017_low_delta.params.lua");
    CHECK_DONE();
}
