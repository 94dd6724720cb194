/* estimate.c - a simulated-moments estimation loop on liblcm.
 *
 * Finds the discount factor at which simulated subjects of the Iskhakov et
 * al. (2017) model hold a target mean wealth at age 60, by bisection.  The
 * model is generated once (lcmgen ... -o DIR), the solver is created once,
 * and every iteration only solves with the new parameters and simulates the
 * same subjects with the same seed (common random numbers): no compilation
 * inside the loop, and a moment that moves only with the parameter.  Each
 * simulation goes into the memory of the panel before it
 * (lcm_simulate_again): the loop takes the panel's memory once.
 *
 *   estimate DIR INITIAL.csv [target]
 *
 * Built in the tree by examples/CMakeLists.txt; against an installed liblcm
 * by CMakeLists.txt here (find_package(lcm)) or with pkg-config.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lcm.h"

/* Mean wealth of the simulated rows at age 60 (simulated into *panel). */
static int moment_at(lcm_solver *solver, const lcm_initial *subjects, double beta, lcm_panel **panel, double *moment,
                     lcm_err *err)
{
    lcm_pvalue *p = lcm_pv_table();
    lcm_pv_put(p, "discount_factor", lcm_pv_num(beta));
    lcm_pv_put(p, "disutility_of_work", lcm_pv_num(1.0));
    lcm_pv_put(p, "interest_rate", lcm_pv_num(0.0));
    lcm_pv_put(p, "wage", lcm_pv_num(20.0));
    lcm_solution *sol = NULL;
    lcm_sim_options so = {.seed = 1};
    int rc = lcm_solve(solver, p, &sol, err);
    if (!rc) rc = lcm_simulate_again(solver, sol, subjects, &so, panel, err);
    double *age = NULL, *wealth = NULL;
    if (!rc) {
        lcm_index n = lcm_panel_rows(*panel);
        age = calloc((size_t)n, sizeof *age), wealth = calloc((size_t)n, sizeof *wealth);
        rc = lcm_panel_column(*panel, "age", age, err);
        if (!rc) rc = lcm_panel_column(*panel, "wealth", wealth, err);
        double sum = 0;
        int count = 0;
        for (lcm_index i = 0; i < n && !rc; ++i)
            if (age[i] == 60) sum += wealth[i], ++count;
        if (!rc && !count) { /* a moment of no rows is no moment: an error, not a NaN the bisection would chase */
            snprintf(err->msg, sizeof err->msg, "no simulated subject reaches age 60 at discount factor %g", beta);
            rc = err->code = 1;
        }
        if (!rc) *moment = sum / count;
    }
    free(age), free(wealth);
    lcm_solution_free(sol);
    lcm_pv_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: estimate DIR INITIAL.csv [target]\n");
        return 2;
    }
    double target = argc > 3 ? atof(argv[3]) : 120.0;
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_solver *solver = NULL;
    lcm_initial *subjects = NULL;
    /* the default log level, info, prints nothing from the library but
     * warnings and makes a failed check (NaN V, probabilities that do not
     * sum to 1) an error (code 7) of the solve or simulation: an estimation
     * must stop there, not go on with NaN moments.  warning and progress
     * would only warn (docs/debugging.md, section 1). */
    if (lcm_model_open_dir(argv[1], &model, &err) || lcm_initial_read(model, argv[2], &subjects, &err) ||
        lcm_solver_new(model, NULL, &solver, &err)) {
        fprintf(stderr, "estimate: %s\n", err.msg);
        return err.code;
    }
    lcm_panel *panel = NULL; /* each iteration's simulation, in the memory of the one before */
    double lo = 0.8, hi = 1.0, moment = 0;
    int iterations = 0;
    while (hi - lo > 1e-5) {
        double mid = 0.5 * (lo + hi);
        if (moment_at(solver, subjects, mid, &panel, &moment, &err)) {
            fprintf(stderr, "estimate: %s\n", err.msg);
            return err.code;
        }
        ++iterations;
        if (moment < target) lo = mid;
        else hi = mid;
    }
    printf("discount factor %.5f gives mean wealth %.4f at age 60 (target %.4f) after %d solves and simulations; "
           "compiled: %s\n", 0.5 * (lo + hi), moment, target, iterations,
           lcm_solver_compiled(solver) ? "once, before the loop" : "never (cache)");
    int ok = fabs(moment - target) < 0.005 * target;
    lcm_panel_free(panel);
    lcm_initial_free(subjects);
    lcm_solver_free(solver);
    lcm_model_free(model);
    return ok ? 0 : 1;
}
