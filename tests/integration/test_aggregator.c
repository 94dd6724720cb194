/* Custom aggregators H: a renamed linear H equals the default exactly; a
 * nonlinear H agrees with the interpreter and differs from the default. */
#include <stdlib.h>

#include "check.h"
#include "testlib.h"

static lcm_solution *solve(const char *which, lcm_backend_kind backend, lcm_model **model)
{
    char def[64];
    snprintf(def, sizeof def, "aggregator=%s", which);
    const char *defines[] = {def, NULL};
    lcm_err err = {0};
    CHECK_OK(test_generate("tests/models/aggregator.lua", defines, model, &err));
    lcm_pvalue *p = lcm_pv_table();
    if (!strcmp(which, "renamed")) lcm_pv_put(p, "beta", lcm_pv_num(0.9));
    else lcm_pv_put(p, "discount_factor", lcm_pv_num(0.9));
    if (!strcmp(which, "nonlinear")) lcm_pv_put(p, "penalty", lcm_pv_num(0.01));
    lcm_solver *s = NULL;
    lcm_solution *sol = NULL;
    lcm_solver_options o = {.backend = backend};
    if (*model) CHECK_OK(lcm_solver_new(*model, &o, &s, &err));
    if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
    lcm_solver_free(s);
    lcm_pv_free(p);
    return sol;
}

int main(void)
{
    lcm_model *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;
    lcm_solution *def = solve("default", LCM_BACKEND_CPU, &m1);
    lcm_solution *ren = solve("renamed", LCM_BACKEND_CPU, &m2);
    lcm_solution *non = solve("nonlinear", LCM_BACKEND_CPU, &m3);
    lcm_solution *non_i = solve("nonlinear", LCM_BACKEND_INTERP, &m4);
    if (def && ren && non && non_i) {
        CHECK(test_max_rel_diff(ren, def) == 0);
        CHECK(test_max_rel_diff(non, non_i) <= 1e-12);
        CHECK(test_max_rel_diff(non, def) > 1e-3);
        /* in the last period of saving nothing follows but death: H(u, 0) = u */
        CHECK(lcm_solution_value(non, 3, 0, 10) == lcm_solution_value(def, 3, 0, 10));
    }
    lcm_solution_free(def), lcm_solution_free(ren), lcm_solution_free(non), lcm_solution_free(non_i);
    lcm_model_free(m1), lcm_model_free(m2), lcm_model_free(m3), lcm_model_free(m4);
    CHECK_DONE();
}
