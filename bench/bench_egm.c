/* bench_egm.c - the endogenous grid method against grid search at equal
 * accuracy: for each configuration, the solve's wall time (median of
 * --repeat solves of a cached solver), the peak host memory of a process
 * that does only that, and how close V comes to the truth:
 *   - Iskhakov et al. (2017), five periods: the worst per-point MSE against
 *     the published closed form (tests/reference/iskhakov_2017, the two
 *     lowest wealth points left out), the larger of the two regimes';
 *   - precautionary savings: the largest and the mean |V - V_fine| over the
 *     grid, V_fine by EGM on 1593 wealth and 1600 savings points.
 * Each configuration runs in a fresh process (this program with --one K).
 * Prints; asserts nothing.  Run from the repository root:
 *   bench_egm [--repeat N] [--backend auto|cpu|cuda] [--threads N] [--precision 64|32]
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "files.h"
#include "grid.h"
#include "iskhakov_ref.h"
#include "params_lua.h"

static const struct config {
    const char *what, *model, *params, *defines;
    int stride; /* Iskhakov: the reference points' stride on the wealth grid; 0: precautionary savings */
} configs[] = {
    {"grid search, 100 wealth x 500 consumption (published)", "models/iskhakov_2017.lua",
     "models/iskhakov_2017.params.lua", "", 1},
    {"grid search, 991 wealth x 500 consumption", "models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua",
     "wealth_points=991", 10},
    {"grid search, 991 wealth x 4000 consumption", "models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua",
     "wealth_points=991 consumption_points=4000", 10},
    {"DC-EGM, 100 wealth x 200 savings", "models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua",
     "solver=egm savings_points=200", 1},
    {"DC-EGM, 991 wealth x 2000 savings", "models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua",
     "solver=egm wealth_points=991", 10},
    {"DC-EGM, 3961 wealth x 8000 savings", "models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua",
     "solver=egm wealth_points=3961 savings_points=8000", 40},
    {"grid search, 200 wealth x 500 consumption", "models/precautionary_savings.lua",
     "models/precautionary_savings.params.lua", "wealth_points=200 consumption_points=500 consumption_stop=20", 0},
    {"grid search, 200 wealth x 2000 consumption", "models/precautionary_savings.lua",
     "models/precautionary_savings.params.lua", "wealth_points=200 consumption_points=2000 consumption_stop=20", 0},
    {"grid search, 200 wealth x 8000 consumption", "models/precautionary_savings.lua",
     "models/precautionary_savings.params.lua", "wealth_points=200 consumption_points=8000 consumption_stop=20", 0},
    {"EGM, 200 wealth x 200 savings", "models/precautionary_savings.lua", "models/precautionary_savings.params.lua",
     "solver=egm wealth_points=200 savings_points=200", 0},
    {"EGM, 800 wealth x 800 savings", "models/precautionary_savings.lua", "models/precautionary_savings.params.lua",
     "solver=egm wealth_points=800 savings_points=800", 0},
};
enum { NCONFIGS = sizeof configs / sizeof *configs };
static const char *FINE = "solver=egm wealth_points=1593 savings_points=1600";

static void fail(const lcm_err *err) { bench_die("bench_egm", err); }

/* Generates a configuration's model and solves it (defines: "a=1 b=2"). */
static void solve(const char *model_path, const char *defines, const char *params_path, const lcm_solver_options *so,
                  lcm_model **model, lcm_solver **solver, lcm_pvalue **params, lcm_solution **sol)
{
    lcm_err err = {0};
    ir_option defs[8];
    int ndefs = 0;
    char *copy = base_xstrdup(defines), *save = NULL;
    for (char *d = strtok_r(copy, " ", &save); d && ndefs < 8; d = strtok_r(NULL, " ", &save))
        if (lcmgen_parse_define(d, &defs[ndefs++], &err)) fail(&err);
    free(copy);
    lcmgen_inputs in = {defs, ndefs, NULL, 0};
    lcmgen_output gen;
    if (cli_params_read_lua(params_path, params, NULL, NULL, &err) || lcmgen_generate(model_path, &in, &gen, &err) ||
        lcm_model_from_text(gen.manifest, gen.source, model, &err) || lcm_solver_new(*model, so, solver, &err) ||
        lcm_solve(*solver, *params, sol, &err))
        fail(&err);
    lcmgen_output_free(&gen);
    for (int i = 0; i < ndefs; ++i) free(defs[i].name), free(defs[i].value);
}

/* Precautionary savings: V at every (period, income, wealth) of a solution
 * as a flat array with its wealth grid, in a file of doubles. */
static void write_fine(const lcm_model *model, const lcm_solution *sol, const char *path)
{
    const ir_model *m = core_model_ir(model);
    int r = ir_find_regime(m, "alive");
    const ir_regime *R = &m->regimes[r];
    double head[3] = {m->nperiods, R->states[0].grid.n, R->states[1].grid.n};
    FILE *f = fopen(path, "wb");
    double *w = calloc((size_t)head[2], sizeof *w);
    ir_grid_points(&R->states[1].grid, w);
    fwrite(head, sizeof *head, 3, f);
    fwrite(w, sizeof *w, (size_t)head[2], f);
    for (int t = 0; t < m->nperiods; ++t)
        for (lcm_index i = 0; i < ir_state_space_size(R); ++i) {
            double v = R->active[t] ? lcm_solution_value(sol, t, r, i) : 0;
            fwrite(&v, sizeof v, 1, f);
        }
    fclose(f);
    free(w);
}

/* The largest and the mean |V - V_fine| of a precautionary-savings solution. */
static void against_fine(const lcm_model *model, const lcm_solution *sol, const char *path, double *worst, double *mean)
{
    const ir_model *m = core_model_ir(model);
    int r = ir_find_regime(m, "alive");
    const ir_regime *R = &m->regimes[r];
    FILE *f = fopen(path, "rb");
    double head[3];
    if (!f || fread(head, sizeof *head, 3, f) != 3) exit(5);
    int T = (int)head[0], ny = (int)head[1], N = (int)head[2], n = R->states[1].grid.n;
    double *W = calloc((size_t)N, sizeof *W), *F = calloc((size_t)T * ny * N, sizeof *F), *w = calloc((size_t)n, sizeof *w);
    if (fread(W, sizeof *W, (size_t)N, f) != (size_t)N || fread(F, sizeof *F, (size_t)T * ny * N, f) != (size_t)T * ny * N)
        exit(5);
    fclose(f);
    ir_grid_points(&R->states[1].grid, w);
    double sum = 0;
    long count = 0;
    *worst = 0;
    for (int t = 0; t < T; ++t) {
        if (!R->active[t]) continue;
        for (int y = 0; y < ny; ++y)
            for (int i = 0; i < n; ++i) {
                int k = 0;
                while (k + 2 < N && W[k + 1] <= w[i]) ++k;
                double a = (w[i] - W[k]) / (W[k + 1] - W[k]);
                const double *row = F + ((size_t)t * ny + y) * N;
                double d = fabs(lcm_solution_value(sol, t, r, (lcm_index)y * n + i) - ((1 - a) * row[k] + a * row[k + 1]));
                if (d > *worst) *worst = d;
                sum += d, ++count;
            }
    }
    *mean = sum / (double)count;
    free(W), free(F), free(w);
}

/* One configuration in this process: "seconds accuracy [mean] peak_MiB". */
static int one(int k, int repeat, const lcm_solver_options *so, const char *fine)
{
    const struct config *c = &configs[k];
    lcm_model *model;
    lcm_solver *solver;
    lcm_pvalue *params;
    lcm_solution *sol;
    lcm_err err = {0};
    solve(c->model, c->defines, c->params, so, &model, &solver, &params, &sol); /* compiles and warms up */
    double *wall = calloc((size_t)repeat, sizeof *wall), lo, mid, hi;
    for (int i = 0; i < repeat; ++i) {
        lcm_solution *s;
        double t0 = base_now_seconds();
        if (lcm_solve(solver, params, &s, &err)) fail(&err);
        wall[i] = base_now_seconds() - t0;
        lcm_solution_free(s);
    }
    bench_stats(wall, repeat, &lo, &mid, &hi);
    const double peak = bench_peak_rss_mib(); /* before the accuracy check loads its references */
    if (c->stride) {
        double worst[2];
        if (iskhakov_worst_mse(sol, "tests/reference/iskhakov_2017", "five_periods", c->stride, worst, NULL, &err))
            fail(&err);
        printf("%.6f %.3e 0 %.1f\n", mid, worst[0] > worst[1] ? worst[0] : worst[1], peak);
    } else {
        double worst, mean;
        against_fine(model, sol, fine, &worst, &mean);
        printf("%.6f %.3e %.3e %.1f\n", mid, worst, mean, peak);
    }
    free(wall);
    lcm_solution_free(sol);
    lcm_solver_free(solver);
    lcm_pv_free(params);
    lcm_model_free(model);
    return 0;
}

int main(int argc, char **argv)
{
    bench_check_switches("bench_egm");
    int repeat = 5, k1 = -1;
    const char *fine = NULL;
    lcm_solver_options so = {.backend = LCM_BACKEND_AUTO, .precision = 64, .checks = LCM_CHECKS_WARN};
    char common[256] = "";
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--repeat")) repeat = atoi(v) > 0 ? atoi(v) : 1, ++i;
        else if (!strcmp(a, "--backend")) so.backend = lcm_backend_by_name(v), ++i;
        else if (!strcmp(a, "--threads")) so.threads = atoi(v), ++i;
        else if (!strcmp(a, "--precision")) so.precision = atoi(v), ++i;
        else if (!strcmp(a, "--one")) k1 = atoi(v), ++i;
        else if (!strcmp(a, "--fine")) fine = v, ++i;
        else {
            fprintf(stderr, "usage: bench_egm [--repeat N] [--backend auto|cpu|cuda] [--threads N] [--precision 64|32]\n");
            return 2;
        }
        if (strcmp(a, "--one") && strcmp(a, "--fine"))
            snprintf(common + strlen(common), sizeof common - strlen(common), " %s %s", a, v);
    }
    if ((int)so.backend < 0) return 2;
    lcm_set_log_level(LCM_LOG_WARNING);
    if (k1 >= 0) return k1 < NCONFIGS ? one(k1, repeat, &so, fine) : 2;

    /* the reference of precautionary savings, once */
    char *dir = bench_tempdir("lcm-bench-egm"), *path = base_path_join(dir, "fine.bin");
    lcm_model *model;
    lcm_solver *solver;
    lcm_pvalue *params;
    lcm_solution *sol;
    solve("models/precautionary_savings.lua", FINE, "models/precautionary_savings.params.lua", &so, &model, &solver,
          &params, &sol);
    write_fine(model, sol, path);
    printf("backend %s, float%d, %ld cores; median of %d solves of a cached solver; peak host memory of a process "
           "that solves only that\n", lcm_solver_backend(solver), so.precision, sysconf(_SC_NPROCESSORS_ONLN), repeat);
    lcm_solution_free(sol), lcm_solver_free(solver), lcm_pv_free(params), lcm_model_free(model);
    for (int k = 0; k < NCONFIGS; ++k) {
        if (k == 0) printf("\nIskhakov et al. (2017), five periods: worst per-point MSE against the closed form\n");
        if (!configs[k].stride && configs[k - 1].stride)
            printf("\nprecautionary savings (5 income points): |V - V_fine|, V_fine by EGM on 1593 wealth points\n");
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' --one %d --fine '%s'%s", argv[0], k, path, common);
        FILE *p = popen(cmd, "r");
        double secs = -1, acc = -1, mean = -1, mib = -1;
        int got = p ? fscanf(p, "%lf %lf %lf %lf", &secs, &acc, &mean, &mib) : 0;
        if (p) pclose(p);
        if (got != 4) {
            printf("  %-55s failed\n", configs[k].what);
            continue;
        }
        if (configs[k].stride)
            printf("  %-55s solve %9.4f s   MSE %.2e   peak %6.1f MiB\n", configs[k].what, secs, acc, mib);
        else
            printf("  %-55s solve %9.4f s   largest %.2e, mean %.2e   peak %6.1f MiB\n", configs[k].what, secs, acc,
                   mean, mib);
    }
    bench_rmdir(dir);
    free(path);
    return 0;
}
