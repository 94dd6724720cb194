/* estimation_loop.c - the C side of bench/python/overhead.sh: an estimation
 * loop on liblcm, timed.  Each iteration solves the Iskhakov et al. (2017)
 * model at a new discount factor (a parameter tree built as in
 * examples/estimation-loop), simulates the same subjects with the same
 * seed into the panel before (lcm_simulate_again) and takes the mean
 * wealth at age 60: what estimation_loop.py does through lcmgen.
 *
 *   estimation_loop DIR INITIAL.csv ITERATIONS
 *
 * Prints the loop's seconds and the sum of the moments (equal in both). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lcm.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int iteration(lcm_solver *solver, const lcm_initial *subjects, double beta, lcm_panel **panel, double *age,
                     double *wealth, size_t room, double *moment, lcm_err *err)
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
    lcm_index n = rc ? 0 : lcm_panel_rows(*panel);
    if (!rc && (size_t)n > room) /* a subject lives at most every period */
        rc = err->code = LCM_E_INTERNAL, snprintf(err->msg, sizeof err->msg, "%lld rows: more than room", n);
    if (!rc) rc = lcm_panel_column(*panel, "age", age, err);
    if (!rc) rc = lcm_panel_column(*panel, "wealth", wealth, err);
    double sum = 0;
    lcm_index count = 0;
    for (lcm_index i = 0; i < n && !rc; ++i)
        if (age[i] == 60) sum += wealth[i], ++count;
    *moment = count ? sum / (double)count : 0;
    lcm_solution_free(sol);
    lcm_pv_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: estimation_loop DIR INITIAL.csv ITERATIONS\n");
        return 2;
    }
    int iterations = atoi(argv[3]);
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_solver *solver = NULL;
    lcm_initial *subjects = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU};
    if (lcm_model_open_dir(argv[1], &model, &err) || lcm_initial_read(model, argv[2], &subjects, &err) ||
        lcm_solver_new(model, &o, &solver, &err)) {
        fprintf(stderr, "estimation_loop: %s\n", err.msg);
        return err.code;
    }
    size_t room = (size_t)lcm_initial_subjects(subjects) * (size_t)lcm_model_periods(model);
    double *age = malloc(room * sizeof *age), *wealth = malloc(room * sizeof *wealth);
    lcm_panel *panel = NULL;
    double total = 0, t0 = now();
    for (int i = 0; i < iterations; ++i) {
        double moment, beta = 0.90 + 0.09 * i / iterations;
        if (iteration(solver, subjects, beta, &panel, age, wealth, room, &moment, &err)) {
            fprintf(stderr, "estimation_loop: %s\n", err.msg);
            return err.code ? err.code : 1;
        }
        total += moment;
    }
    printf("c %d iterations %.6f s moments %.12g\n", iterations, now() - t0, total);
    free(age), free(wealth);
    lcm_panel_free(panel);
    lcm_initial_free(subjects);
    lcm_solver_free(solver);
    lcm_model_free(model);
    return 0;
}
