/* Cake eating with log utility against its closed form, on the CPU and the
 * interpreter, in float64 and float32. */
#include <stdlib.h>

#include "check.h"
#include "grid.h"
#include "testlib.h"

static void check_solution(const lcm_model *model, const lcm_solution *sol, double beta, double tol, const char *what)
{
    const ir_model *m = core_model_ir(model);
    int T = m->nperiods;
    double *B = calloc((size_t)T, sizeof *B), *A = calloc((size_t)T, sizeof *A);
    B[T - 1] = 1, A[T - 1] = 0;
    for (int t = T - 2; t >= 0; --t) {
        B[t] = 1 + beta * B[t + 1];
        A[t] = log(1 / B[t]) + beta * (A[t + 1] + B[t + 1] * log(1 - 1 / B[t]));
    }
    double worst = 0;
    for (int t = 0; t < T; ++t) {
        int r = ir_find_regime(m, t < T - 1 ? "eating" : "last_bite");
        const ir_grid *g = &m->regimes[r].states[0].grid;
        double *w = calloc((size_t)g->n, sizeof *w);
        ir_grid_points(g, w);
        for (int i = 0; i < g->n; ++i) {
            if (w[i] < 1) continue; /* optimal next wealth stays on the grid */
            double exact = B[t] * log(w[i]) + A[t], v = lcm_solution_value(sol, t, r, i);
            double d = fabs(v - exact);
            if (d > worst) worst = d;
            CHECK_MSG(d <= tol, "%s: t=%d w=%g: V=%.10f closed form %.10f", what, t, w[i], v, exact);
        }
        free(w);
    }
    printf("%s: largest |V - closed form| = %.2e (tolerance %.0e)\n", what, worst, tol);
    free(A), free(B);
}

int main(void)
{
    const double beta = 0.95;
    lcm_err err = {0};
    lcm_pvalue *params = lcm_pv_table();
    CHECK_OK(lcm_pv_set_path(params, "discount_factor", lcm_pv_num(beta), &err));
    const struct {
        lcm_backend_kind backend;
        int precision;
        double tol;
        const char *name;
    } runs[] = {{LCM_BACKEND_CPU, 64, 2.5e-4, "cpu float64"},
                {LCM_BACKEND_INTERP, 64, 2.5e-4, "interp float64"},
                {LCM_BACKEND_CPU, 32, 2e-3, "cpu float32"}};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; ++k) {
        lcm_model *model = NULL;
        CHECK_OK(test_generate("tests/models/cake_eating.lua", NULL, &model, &err));
        lcm_solver *solver = NULL;
        lcm_solution *sol = NULL;
        lcm_solver_options o = {.backend = runs[k].backend, .precision = runs[k].precision};
        CHECK_OK(lcm_solver_new(model, &o, &solver, &err));
        if (solver) CHECK_OK(lcm_solve(solver, params, &sol, &err));
        if (sol) check_solution(model, sol, beta, runs[k].tol, runs[k].name);
        lcm_solution_free(sol);
        lcm_solver_free(solver);
        lcm_model_free(model);
    }
    lcm_pv_free(params);
    CHECK_DONE();
}
