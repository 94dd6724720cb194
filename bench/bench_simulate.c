/* bench_simulate.c - figures for simulating a panel: wall time of
 * lcm_simulate (median of repeats) and of lcm_simulate_again (each into
 * the panel before it, as an estimation loop), subject-periods per second and peak
 * host and device memory, for N subjects made by repeating the rows of an
 * initial-conditions file.  Prints; asserts nothing.
 *
 *   bench_simulate MODEL.lua --params P.lua --initial I.csv [--subjects N] [-D name=value]...
 *                  [--precision 64|32] [--backend auto|cpu|cuda|interp] [--device N] [--threads N]
 *                  [--subject-batch-size K] [--repeat N] [--write-repeat N] [--whole-repeat N]
 *
 * --write-repeat and --whole-repeat (default 3; 0: not measured) repeat the
 * writes and the whole-process run.
 * Writing the panel (HDF5 and CSV, into a temporary directory) is measured
 * apart from simulating; "whole process" runs this program again (--child)
 * to generate, load the cached solver, solve, simulate and write the HDF5
 * panel once, from fork to exit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"
#include "cache.h"
#include "files.h"
#include "panel.h"
#include "params_lua.h"

static void fail(const lcm_err *err) { bench_die("bench_simulate", err); }

/* n subjects: the file's rows over and over (each keeps its own draws: ids differ). */
static lcm_initial *tile(const lcm_initial *base, lcm_index n)
{
    lcm_initial *ic = base_xcalloc(1, sizeof *ic);
    size_t ns = (size_t)base->nslots;
    ic->n = n, ic->nslots = base->nslots;
    ic->source_hash = base->source_hash ? base_xstrdup(base->source_hash) : NULL;
    ic->regime = base_xcalloc((size_t)n, sizeof *ic->regime);
    ic->period = base_xcalloc((size_t)n, sizeof *ic->period);
    ic->x = base_xcalloc((size_t)n * ns + 1, sizeof *ic->x);
    ic->given = base_xcalloc((size_t)n * ns + 1, 1);
    for (lcm_index i = 0; i < n; ++i) {
        lcm_index j = i % base->n;
        ic->regime[i] = base->regime[j], ic->period[i] = base->period[j];
        memcpy(ic->x + (size_t)i * ns, base->x + (size_t)j * ns, ns * sizeof *ic->x);
        memcpy(ic->given + (size_t)i * ns, base->given + (size_t)j * ns, ns);
    }
    return ic;
}

/* Where a simulation's time went: the medians of its parts (panel.h). */
static void print_parts(double *const *phase, int repeat)
{
    printf("  its parts        ");
    for (int q = 0; q < LCM_SIM_PHASES; ++q)
        printf("%s%s %.4f", q ? ", " : "", lcm_sim_phase_names[q], bench_median(phase[q], repeat));
    printf(" s (medians)\n");
}

int main(int argc, char **argv)
{
    bench_check_switches("bench_simulate");
    const char *model_path = NULL, *params_path = NULL, *initial_path = NULL, *child = NULL;
    int repeat = 5, nwrite = 3, nwhole = 3;
    lcm_index subjects = 1000000;
    bench_model_args ma = {.so = {.backend = LCM_BACKEND_AUTO, .precision = 64}};
    lcm_sim_options sim = {.seed = 1};
    lcm_err err = {0};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (bench_model_arg("bench_simulate", argc, argv, &i, &ma)) continue;
        if (!strcmp(a, "--params")) params_path = v, ++i;
        else if (!strcmp(a, "--initial")) initial_path = v, ++i;
        else if (!strcmp(a, "--subjects")) subjects = atoll(v), ++i;
        else if (!strcmp(a, "--subject-batch-size")) sim.subject_batch_size = atoll(v), ++i;
        else if (!strcmp(a, "--repeat")) repeat = atoi(v) > 0 ? atoi(v) : 1, ++i;
        else if (!strcmp(a, "--child")) child = v, ++i;
        else if (!strcmp(a, "--write-repeat")) nwrite = atoi(v) > 0 ? atoi(v) : 0, ++i;
        else if (!strcmp(a, "--whole-repeat")) nwhole = atoi(v) > 0 ? atoi(v) : 0, ++i;
        else if (a[0] != '-') model_path = a;
        else {
            fprintf(stderr, "bench_simulate: unknown option %s\n", a);
            return 2;
        }
    }
    if (!model_path || !params_path || !initial_path || subjects < 1 || (int)ma.so.backend < 0) {
        fprintf(stderr, "usage: bench_simulate MODEL.lua --params P.lua --initial I.csv [--subjects N] [-D k=v] [--fix path[=v]] "
                        "[--precision 64|32] [--backend auto|cpu|cuda|interp] [--device N] [--threads N] "
                        "[--subject-batch-size K] [--repeat N]\n");
        return 2;
    }
    lcm_set_log_level(LCM_LOG_WARNING);
    ma.so.checks = LCM_CHECKS_WARN; /* checks on, the run completes */
    lcmgen_output gen;
    lcm_model *model;
    lcm_pvalue *params = NULL;
    lcm_initial *base = NULL;
    lcmgen_inputs in = {ma.defs, ma.ndefs, ma.fixes, ma.nfixes};
    if (cli_params_read_lua(params_path, &params, NULL, NULL, &err) || core_params_take_fixes(params, ma.fixes, ma.nfixes, &err) ||
        lcmgen_generate(model_path, &in, &gen, &err) ||
        lcm_model_from_text(gen.manifest, gen.source, &model, &err) ||
        lcm_initial_read(model, initial_path, &base, &err))
        fail(&err);
    const ir_model *m = core_model_ir(model);
    lcm_initial *ic = tile(base, subjects);
    lcm_solver *solver;
    lcm_solution *sol;
    if (lcm_solver_new(model, &ma.so, &solver, &err) || lcm_solve(solver, params, &sol, &err)) fail(&err);
    char *dir = bench_tempdir("lcm-bench-panel");
    char *h5 = base_path_join(dir, "panel.h5"), *csv = base_path_join(dir, "panel.csv");
    if (child) { /* a fresh process: simulate once, write the HDF5 panel, exit */
        lcm_panel *p;
        if (lcm_simulate(solver, sol, ic, &sim, &p, &err) || lcm_panel_write_h5(p, h5, &err)) fail(&err);
        bench_rmdir(dir);
        printf("done: 0\n");
        fflush(stdout);
        _exit(0);
    }
    double *wall = calloc((size_t)repeat, sizeof *wall), *w_h5 = calloc((size_t)repeat, sizeof *w_h5),
           *w_csv = calloc((size_t)repeat, sizeof *w_csv), *whole = calloc((size_t)(nwhole > 0 ? nwhole : 1), sizeof *whole);
    lcm_index rows = 0;
    double *phase[LCM_SIM_PHASES];
    double *again_wall = calloc((size_t)repeat, sizeof *again_wall), *again_phase[LCM_SIM_PHASES];
    for (int q = 0; q < LCM_SIM_PHASES; ++q) phase[q] = calloc((size_t)repeat, sizeof *phase[q]);
    for (int q = 0; q < LCM_SIM_PHASES; ++q) again_phase[q] = calloc((size_t)repeat, sizeof *again_phase[q]);
    double panel_bytes = 0;
    for (int k = 0; k < repeat; ++k) {
        lcm_panel *p;
        double t0 = base_now_seconds();
        if (lcm_simulate(solver, sol, ic, &sim, &p, &err)) fail(&err);
        wall[k] = base_now_seconds() - t0;
        rows = lcm_panel_rows(p);
        for (int q = 0; q < LCM_SIM_PHASES; ++q) phase[q][k] = p->phase_seconds[q];
        panel_bytes = (double)sim_panel_bytes(p);
        if (k < nwrite) {
            t0 = base_now_seconds();
            if (lcm_panel_write_h5(p, h5, &err)) fail(&err);
            w_h5[k] = base_now_seconds() - t0;
            t0 = base_now_seconds();
            if (lcm_panel_write_csv(p, csv, &err)) fail(&err);
            w_csv[k] = base_now_seconds() - t0;
        }
        lcm_panel_free(p);
    }
    /* as an estimation loop: each simulation into the memory of the one
     * before (the first, untimed, makes it) */
    lcm_panel *kept = NULL;
    for (int k = -1; k < repeat; ++k) {
        double t0 = base_now_seconds();
        if (lcm_simulate_again(solver, sol, ic, &sim, &kept, &err)) fail(&err);
        if (k < 0) continue;
        again_wall[k] = base_now_seconds() - t0;
        for (int q = 0; q < LCM_SIM_PHASES; ++q) again_phase[q][k] = kept->phase_seconds[q];
    }
    lcm_panel_free(kept);
    if (nwrite > repeat) nwrite = repeat;
    struct stat st_h5 = {0}, st_csv = {0};
    if (nwrite && (stat(h5, &st_h5) || stat(csv, &st_csv))) return 5;
    const char *cache = ma.so.cache_dir ? ma.so.cache_dir : getenv("LCM_CACHE_DIR");
    char *cache_dir = cache && *cache ? base_xstrdup(cache) : be_cache_default_dir();
    for (int k = 0; k < nwhole; ++k) {
        double fig;
        if ((whole[k] = bench_child(argc, argv, "whole", cache_dir, &fig)) < 0) return 1;
    }
    free(cache_dir);
    bench_rmdir(dir);
    double lo, t, hi;
    bench_stats(wall, repeat, &lo, &t, &hi);
    char *cpu = bench_cpu_name();
    printf("model              %s (%d periods, %d regimes)\n", m->name, m->nperiods, m->nregimes);
    if (!strcmp(lcm_solver_backend(solver), "cuda"))
        printf("backend            cuda, float%d\n", lcm_solver_precision(solver));
    else
        printf("backend            %s, float%d, %s, %ld cores online\n", lcm_solver_backend(solver),
               lcm_solver_precision(solver), cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("subjects           %lld (batch %lld), %lld subject-periods\n", (long long)subjects,
           (long long)(sim.subject_batch_size ? sim.subject_batch_size : subjects), (long long)rows);
    printf("simulate           %.4f s (lcm_simulate, a new panel each time; median of %d; min %.4f, max %.4f)\n", t,
           repeat, lo, hi);
    print_parts(phase, repeat);
    printf("throughput         %.3g subject-periods / s\n", (double)rows / t);
    double mid;
    bench_stats(again_wall, repeat, &lo, &mid, &hi);
    printf("simulate again     %.4f s (lcm_simulate_again, into the panel before it, as an estimation loop; median of "
           "%d; min %.4f, max %.4f)\n", mid, repeat, lo, hi);
    print_parts(again_phase, repeat);
    if (nwrite) {
        bench_stats(w_h5, nwrite, &lo, &mid, &hi);
        printf("write HDF5         %.4f s (median of %d; min %.4f, max %.4f), %.1f MiB\n", mid, nwrite, lo, hi,
               (double)st_h5.st_size / 1048576.0);
        bench_stats(w_csv, nwrite, &lo, &mid, &hi);
        printf("write CSV          %.4f s (median of %d; min %.4f, max %.4f), %.1f MiB\n", mid, nwrite, lo, hi,
               (double)st_csv.st_size / 1048576.0);
    }
    if (nwhole) {
        bench_stats(whole, nwhole, &lo, &mid, &hi);
        printf("whole process      %.3f s (generate, cached solver, solve, simulate, write HDF5; fork to exit; median "
               "of %d; min %.3f, max %.3f)\n", mid, nwhole, lo, hi);
    }
    printf("peak host memory   %.1f MiB (the panel's columns: %.1f MiB)\n", bench_peak_rss_mib(),
           panel_bytes / 1048576.0);
    if (lcm_solver_device_peak(solver))
        printf("peak device memory %.2f MiB\n", (double)lcm_solver_device_peak(solver) / 1048576.0);
    for (int q = 0; q < LCM_SIM_PHASES; ++q) free(phase[q]), free(again_phase[q]);
    free(again_wall);
    free(cpu), free(wall), free(w_h5), free(w_csv), free(whole), free(h5), free(csv);
    lcm_initial_free(ic), lcm_initial_free(base);
    lcm_solution_free(sol);
    lcm_solver_free(solver);
    lcm_pv_free(params);
    lcm_model_free(model);
    lcmgen_output_free(&gen);
    bench_model_args_free(&ma);
    return 0;
}
