/* Shock processes and grids in solved models: the precautionary savings
 * model with every income process on lin, log and irregular wealth grids
 * agrees with the interpreter; an irregular grid holding the lin grid's
 * points (fixed in the model or given at run time) gives the lin grid's V;
 * piecewise grids agree with the interpreter; changing run-time process
 * parameters or grid points changes V without compiling again. */
#include <stdlib.h>

#include "check.h"
#include "testlib.h"

static lcm_pvalue *ps_params(const char *shock, double rho)
{
    lcm_pvalue *p = NULL;
    lcm_err err = {0};
    CHECK_OK(test_params("models/precautionary_savings.params.lua", &p, &err));
    if (!strcmp(shock, "normal_gh")) {
        lcm_pvalue *inc = lcm_pv_get(lcm_pv_get(p, "alive"), "income");
        lcm_pvalue *fresh = lcm_pv_table();
        lcm_pv_put(fresh, "mu", lcm_pv_num(lcm_pv_get(inc, "mu")->num));
        lcm_pv_put(fresh, "sigma", lcm_pv_num(lcm_pv_get(inc, "sigma")->num));
        lcm_pv_put(lcm_pv_get(p, "alive"), "income", fresh);
    } else {
        CHECK_OK(lcm_pv_set_path(p, "alive.income.rho", lcm_pv_num(rho), &err));
    }
    return p;
}

static lcm_solution *solve_with(lcm_solver *s, lcm_pvalue *p)
{
    lcm_err err = {0};
    lcm_solution *sol = NULL;
    if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
    return sol;
}

static lcm_solver *solver_for(lcm_model *m, lcm_backend_kind b)
{
    lcm_err err = {0};
    lcm_solver *s = NULL;
    lcm_solver_options o = {.backend = b};
    if (m) CHECK_OK(lcm_solver_new(m, &o, &s, &err));
    return s;
}

static lcm_pvalue *lin_points(lcm_pvalue *p, int n)
{
    lcm_pvalue *pts = lcm_pv_list();
    double h = 19.0 / (n - 1);
    for (int i = 0; i < n; ++i) lcm_pv_append(pts, lcm_pv_num(i + 1 == n ? 20.0 : 1.0 + i * h));
    lcm_err err = {0};
    CHECK_OK(lcm_pv_set_path(p, "alive.wealth.points", pts, &err));
    return p;
}

int main(void)
{
    lcm_err err = {0};
    const char *shocks[] = {"rouwenhorst", "tauchen", "normal_gh"};
    const char *grids[] = {"lin", "log", "irregular", "runtime"};
    for (int k = 0; k < 3; ++k) {
        lcm_solution *by_grid[4] = {0};
        lcm_model *models[4] = {0};
        for (int g = 0; g < 4; ++g) {
            char d1[64], d2[64];
            snprintf(d1, sizeof d1, "shock=%s", shocks[k]);
            snprintf(d2, sizeof d2, "wealth_grid=%s", grids[g]);
            const char *defines[] = {d1, d2, "wealth_points=25", "consumption_points=40", NULL};
            CHECK_OK(test_generate("models/precautionary_savings.lua", defines, &models[g], &err));
            lcm_pvalue *p = ps_params(shocks[k], 0.9);
            if (g == 3) lin_points(p, 25);
            lcm_solver *cpu = solver_for(models[g], LCM_BACKEND_CPU), *ip = solver_for(models[g], LCM_BACKEND_INTERP);
            by_grid[g] = solve_with(cpu, p);
            lcm_solution *oracle = solve_with(ip, p);
            if (by_grid[g] && oracle) {
                double d = test_max_rel_diff(by_grid[g], oracle);
                printf("%s on %s wealth: cpu vs interp %.1e\n", shocks[k], grids[g], d);
                CHECK(d <= 1e-12);
            }
            lcm_solution_free(oracle);
            lcm_solver_free(cpu), lcm_solver_free(ip);
            lcm_pv_free(p);
        }
        if (by_grid[0] && by_grid[2] && by_grid[3]) {
            double fixed = test_max_rel_diff(by_grid[2], by_grid[0]), runtime = test_max_rel_diff(by_grid[3], by_grid[0]);
            printf("%s: irregular vs lin %.1e, run-time points vs lin %.1e\n", shocks[k], fixed, runtime);
            CHECK(fixed <= 1e-12);
            CHECK(runtime <= 1e-12);
        }
        for (int g = 0; g < 4; ++g) lcm_solution_free(by_grid[g]), lcm_model_free(models[g]);
    }

    /* piecewise grids, lin and log pieces */
    for (int k = 0; k < 2; ++k) {
        const char *defines[] = {k ? "kind=log" : "kind=lin", NULL};
        lcm_model *m = NULL;
        lcm_pvalue *p = NULL;
        CHECK_OK(test_generate("tests/models/piecewise.lua", defines, &m, &err));
        CHECK_OK(test_params("tests/models/piecewise.params.lua", &p, &err));
        lcm_solver *cpu = solver_for(m, LCM_BACKEND_CPU), *ip = solver_for(m, LCM_BACKEND_INTERP);
        lcm_solution *a = solve_with(cpu, p), *b = solve_with(ip, p);
        if (a && b) {
            printf("piecewise %s: cpu vs interp %.1e\n", defines[0], test_max_rel_diff(a, b));
            CHECK(test_max_rel_diff(a, b) <= 1e-12);
        }
        lcm_solution_free(a), lcm_solution_free(b);
        lcm_solver_free(cpu), lcm_solver_free(ip);
        lcm_pv_free(p);
        lcm_model_free(m);
    }

    /* run-time parameters change V, not the code: one solver, several solves */
    const char *defines[] = {"wealth_grid=runtime", NULL};
    lcm_model *m = NULL;
    CHECK_OK(test_generate("models/precautionary_savings.lua", defines, &m, &err));
    lcm_solver *s = solver_for(m, LCM_BACKEND_CPU);
    lcm_pvalue *p1 = lin_points(ps_params("rouwenhorst", 0.9), 7), *p2 = lin_points(ps_params("rouwenhorst", 0.5), 7);
    lcm_pvalue *p3 = ps_params("rouwenhorst", 0.9);
    lcm_pvalue *pts = lcm_pv_list();
    for (int i = 0; i < 7; ++i) lcm_pv_append(pts, lcm_pv_num(1 + i * i * 0.5));
    CHECK_OK(lcm_pv_set_path(p3, "alive.wealth.points", pts, &err));
    lcm_solution *a = solve_with(s, p1), *b = solve_with(s, p2), *c = solve_with(s, p3), *d = solve_with(s, p1);
    if (a && b && c && d) {
        CHECK(test_max_rel_diff(b, a) > 1e-6); /* another rho */
        CHECK(test_max_rel_diff(c, a) > 1e-6); /* other points */
        CHECK(test_max_rel_diff(d, a) == 0);   /* back to the first: the same V */
    }
    /* bad run-time values are parameter errors naming the grid */
    lcm_pvalue *bad = ps_params("rouwenhorst", 1.0);
    lin_points(bad, 7);
    lcm_solution *none = NULL;
    int rc = lcm_solve(s, bad, &none, &err);
    CHECK_MSG(rc == LCM_E_PARAMS && strstr(err.msg, "regime 'alive', grid of 'income': rho must be inside (-1, 1)"),
              "%s", err.msg);
    lcm_pv_free(bad);
    bad = ps_params("rouwenhorst", 0.9);
    lcm_pvalue *down = lcm_pv_list();
    for (int i = 0; i < 7; ++i) lcm_pv_append(down, lcm_pv_num(i == 3 ? 0.5 : 1.0 + i));
    CHECK_OK(lcm_pv_set_path(bad, "alive.wealth.points", down, &err));
    rc = lcm_solve(s, bad, &none, &err);
    CHECK_MSG(rc == LCM_E_PARAMS && strstr(err.msg, "grid of 'wealth': points must increase: point 4 is 0.5 after 3"),
              "%s", err.msg);
    lcm_pv_free(bad);
    lcm_solution_free(a), lcm_solution_free(b), lcm_solution_free(c), lcm_solution_free(d);
    lcm_pv_free(p1), lcm_pv_free(p2), lcm_pv_free(p3);
    lcm_solver_free(s);
    lcm_model_free(m);
    CHECK_DONE();
}
