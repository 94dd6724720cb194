/* test_progress_mpi.c - cancelling from the progress callback in a sharded
 * solve: tests/models/sharded.lua on the workers of this process
 * (--devices N, argv[1]) and, under mpirun, of every rank.  Rank 0 alone
 * is told of the steps; a cancel there after the first returns
 * LCM_E_CANCELLED on every rank, with no solution or panel, and no rank
 * waits for ever (ctest's timeout would end it); then the same solver
 * solves and simulates in full, and its V is that of a solve that was
 * never cancelled.
 *
 *   progress_sharded [DEVICES]     (default 2; mpirun -np R progress_sharded DEVICES)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "comm.h"
#include "testlib.h"

static int calls;
static long long cancel_at; /* the step at which the callback cancels; 0: never */

static int tell(const lcm_progress_info *p, void *user)
{
    (void)user;
    ++calls;
    return cancel_at && p->done >= cancel_at;
}

int main(int argc, char **argv)
{
    lcm_err err = {0};
    if (core_comm_init(&argc, &argv, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int devices = argc > 1 ? atoi(argv[1]) : 2, rank = core_comm_rank();
    lcm_set_log_level(LCM_LOG_WARNING);
    const char *defines[] = {"axes=1", NULL};
    lcm_model *m = NULL;
    lcm_solver *sv = NULL;
    lcm_pvalue *params = NULL;
    lcm_initial *ic = NULL;
    char *initial = test_path("tests/models/sharded.initial.csv");
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .devices = devices, .progress = tell};
    if (test_generate("tests/models/sharded.lua", defines, &m, &err) ||
        test_params("tests/models/sharded.params.lua", &params, &err) || lcm_solver_new(m, &o, &sv, &err) ||
        lcm_initial_read(m, initial, &ic, &err)) {
        fprintf(stderr, "rank %d: %s\n", rank, err.msg);
        return 1;
    }
    free(initial);
    int T = lcm_model_periods(m), workers = devices * core_comm_size();

    lcm_solution *whole = NULL, *sol = NULL;
    CHECK(lcm_solve(sv, params, &whole, &err) == 0 && whole);
    CHECK(calls == (rank == 0 ? devices * T : 0)); /* each worker of rank 0 tells its periods */

    cancel_at = 1, calls = 0;
    CHECK(lcm_solve(sv, params, &sol, &err) == LCM_E_CANCELLED && !sol);
    CHECK(strstr(err.msg, "cancelled by its progress callback after period") != NULL);
    CHECK(calls == (rank == 0 ? 1 : 0));

    cancel_at = 0, calls = 0;
    CHECK(lcm_solve(sv, params, &sol, &err) == 0 && sol);
    if (sol && whole && rank == 0) CHECK(test_max_rel_diff(sol, whole) == 0); /* rank 0 holds the whole V */

    lcm_sim_options so = {.seed = 4};
    lcm_panel *panel = NULL;
    cancel_at = 1, calls = 0;
    CHECK(lcm_simulate(sv, whole, ic, &so, &panel, &err) == LCM_E_CANCELLED && !panel);
    CHECK(strstr(err.msg, "the simulation of model") && strstr(err.msg, "no panel"));
    cancel_at = 0;
    CHECK(lcm_simulate(sv, whole, ic, &so, &panel, &err) == 0 && panel);
    if (panel && rank == 0) CHECK(lcm_panel_rows(panel) > 0);

    lcm_panel_free(panel);
    lcm_solution_free(sol);
    lcm_solution_free(whole);
    lcm_initial_free(ic);
    lcm_pv_free(params);
    lcm_solver_free(sv);
    lcm_model_free(m);
    if (!check_failures) printf("rank %d of %d (%d workers): cancelled and solved again\n", rank, core_comm_size(), workers);
    core_comm_finalize();
    return check_failures != 0;
}
