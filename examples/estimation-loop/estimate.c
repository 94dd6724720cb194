/* estimate.c - an estimation loop on liblcm.
 *
 * Finds the discount factor at which the value of a 40-year-old worker with
 * wealth 97.7 (grid point 24) in the Iskhakov et al. (2017) model equals a
 * target, by
 * bisection.  The model is generated once (lcmgen ... -o DIR), the solver is
 * created once, and every iteration only solves with new parameters: no
 * compilation inside the loop.
 *
 *   estimate DIR [target]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lcm.h"

static int solve_at(lcm_solver *solver, const ir_model *m, double beta, double *moment, lcm_err *err)
{
    lcm_pvalue *p = lcm_pv_table();
    lcm_pv_put(p, "discount_factor", lcm_pv_num(beta));
    lcm_pv_put(p, "disutility_of_work", lcm_pv_num(1.0));
    lcm_pv_put(p, "interest_rate", lcm_pv_num(0.0));
    lcm_pv_put(p, "wage", lcm_pv_num(20.0));
    lcm_solution *sol;
    int rc = lcm_solve(solver, p, &sol, err);
    lcm_pv_free(p);
    if (rc) return rc;
    /* wealth grid 1..400 with 100 points: point 24 is wealth 97.7 */
    *moment = lcm_solution_value(sol, 0, ir_find_regime(m, "working_life"), 24);
    lcm_solution_free(sol);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: estimate DIR [target]\n");
        return 2;
    }
    double target = argc > 2 ? atof(argv[2]) : 12.0;
    lcm_err err = {0};
    lcm_model *model;
    lcm_solver *solver;
    lcm_set_log_level(LCM_LOG_WARNING);
    if (lcm_model_open_dir(argv[1], &model, &err) || lcm_solver_new(model, NULL, &solver, &err)) {
        fprintf(stderr, "estimate: %s\n", err.msg);
        return err.code;
    }
    const ir_model *m = lcm_model_ir(model);
    double lo = 0.5, hi = 1.0, moment = 0;
    int iterations = 0;
    while (hi - lo > 1e-6) {
        double mid = 0.5 * (lo + hi);
        if (solve_at(solver, m, mid, &moment, &err)) {
            fprintf(stderr, "estimate: %s\n", err.msg);
            return err.code;
        }
        ++iterations;
        if (moment < target) lo = mid;
        else hi = mid;
    }
    printf("discount factor %.6f gives V = %.6f (target %.6f) after %d solves; compiled: %s\n", 0.5 * (lo + hi),
           moment, target, iterations, lcm_solver_compiled(solver) ? "once, before the loop" : "never (cache)");
    int ok = fabs(moment - target) < 1e-3;
    lcm_solver_free(solver);
    lcm_model_free(model);
    return ok ? 0 : 1;
}
