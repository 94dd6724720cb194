/* bench_solve.c - figures for solving a model: generation time, cold and
 * cached compile time, solve wall time (median of repeats), state-action
 * evaluations per second and peak host memory.  Prints; asserts nothing.
 *
 *   bench_solve MODEL.lua [--params P.lua] [-D name=value]... [--fix path[=value]]... [--precision 64|32]
 *               [--backend auto|cpu|cuda|interp] [--device N] [--threads N] [--repeat N]
 *               [--arch sm_XX] [--checks raise|warn|off] [--log-level warning|off]
 *
 * --arch measures the NVRTC compile for that GPU architecture (cold and
 * cached) and needs no GPU; the solve is then skipped unless one is usable.
 *
 * A cold compile is measured in fresh processes (this program run again
 * with --child, an empty LCM_CACHE_DIR each): in the process that measures
 * the solves the driver, NVRTC and the compiler's files are already warm.
 * "whole process" is such a process that generates, loads the cached
 * solver and solves once, from fork to exit.  On cuda, "bare CUDA context"
 * is a fresh process that only loads the driver and creates the device's
 * context, the floor under any whole cuda process.
 *
 * The roofline at the end: each kernel body's operations and bytes per
 * state-action pair (gen/cost.h), its time alone (lcm_solver_profile) and
 * the share of each of the machine's peaks (bench/peak.h) it reaches
 * (docs/tuning.md, section 6).  --fix path[=value] fixes a parameter as
 * lcm solve --fix does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <unistd.h>

#include "bench_common.h"
#include "cuda_api.h"
#include "cuda_compile.h"
#include "eliminate.h"
#include "lcm_internal.h"
#include "lcmgen.h"
#include "log.h"
#include "params_lua.h"
#include "cost.h"
#include "peak.h"
#include "precompute.h"
#include "vars.h"

static void fail(const lcm_err *err) { bench_die("bench_solve", err); }

/* The state-action pairs kernel k evaluates in one solve: over the periods
 * it serves, its regime's states times actions (grid search; an EGM kernel
 * evaluates a few candidates per state and discrete choice, not its action
 * grid: 0, and counted by egm_points). */
static double kernel_pairs(const ir_model *m, int k)
{
    const ir_regime *r = &m->regimes[m->kernels[k].regime];
    double pairs = 0;
    if (ir_is_egm(r)) return 0;
    for (int t = 0; t < m->nperiods; ++t)
        if (m->period_kernel[r->id * m->nperiods + t] == k)
            pairs += (double)ir_state_space_size(r) * (double)ir_action_space_size(r);
    return pairs;
}

/* The plan of each kernel's tables and stages (ir/precompute.h), in pre[]. */
static void kernel_plans(const ir_model *m, ir_pre *pre)
{
    ir_vars V;
    ir_shard S;
    ir_vars_build(m, &V);
    ir_shard_build(m, &V, &S);
    for (int k = 0; k < m->nkernels; ++k) ir_elim_plan_kernel(m, &S, k, &pre[k]);
    ir_vars_free(&V);
}

/* The pairs kernel k's body evaluates in one solve: kernel_pairs', or of
 * a staged solve (ir/eliminate.h) the states times the actions its outer
 * loops keep (its stages fill their tables in the table passes). */
static double body_pairs(const ir_model *m, int k, const ir_pre *pre)
{
    const ir_elim *el = &pre->elim;
    if (!el->nstages) return kernel_pairs(m, k);
    double tables = 0;
    for (int s = 0; s < el->nstages; ++s)
        tables += (double)el->stage[s].shape.whole *
                  m->regimes[m->kernels[k].regime].actions[el->stage[s].action].grid.n;
    return kernel_pairs(m, k) / el->pairs * (el->staged - tables);
}

/* The time of each table pass of each kernel with more than one
 * (ir/precompute.h, ir_pre_passes: the expected V, the continuation
 * table, the stages of a staged solve), median over the repeats. */
static void table_passes(const ir_model *m, const ir_pre *plans, double *pass, int repeat)
{
    for (int k = 0; k < m->nkernels; ++k) {
        ir_pre pre = plans[k];
        if (ir_pre_passes(&pre) < 2) continue;
        printf("  %-24s tables:", m->kernels[k].symbol);
        for (int i = 0; i < ir_pre_passes(&pre); ++i) {
            double t = bench_median(pass + (k * LCM_TABLE_PASSES + i) * repeat, repeat);
            const char *sep = i ? "," : "";
            switch (ir_pre_pass(&pre, i)) {
            case IR_PASS_EV: printf("%s expected V %.3g s", sep, t); break;
            case IR_PASS_TABLE: printf("%s %s %.3g s", sep, pre.egm ? "endogenous grid" : "continuation", t); break;
            case IR_PASS_EGM_BOUNDS: printf("%s its bounds %.3g s", sep, t); break;
            default: {
                const ir_stage *st = &pre.elim.stage[ir_pre_pass_stage(&pre, i)];
                printf("%s stage '%s' %.3g s", sep, m->regimes[m->kernels[k].regime].actions[st->action].name, t);
            }
            }
        }
        printf("\n");
    }
}

/* The roofline of each kernel body: its per-pair operations and bytes (the
 * IR's count, gen/cost.h) at the rate it achieved (lcm_solver_profile,
 * median of `repeat`), against the peaks of this machine (bench/peak.h; a
 * GPU's from its attributes).  The bound is the resource nearest its peak. */
static void roofline(lcm_solver *solver, const ir_model *m, const lcm_pvalue *params, int repeat, int threads, int device)
{
    lcm_err err = {0};
    int K = m->nkernels, gpu = !strcmp(lcm_solver_backend(solver), "cuda"), precision = lcm_solver_precision(solver);
    if (!strcmp(lcm_solver_backend(solver), "interp")) {
        printf("roofline           none: the interp backend runs no kernels\n");
        return;
    }
    int P = LCM_TABLE_PASSES;
    ir_pre *plans = calloc((size_t)K + 1, sizeof *plans);
    kernel_plans(m, plans);
    double *body = calloc((size_t)(K * repeat), sizeof *body), *table = calloc((size_t)(K * repeat), sizeof *table);
    double *pass = calloc((size_t)(K * P * repeat), sizeof *pass);
    double *one = calloc((size_t)K, sizeof *one), *one_pass = calloc((size_t)(K * P), sizeof *one_pass);
    for (int i = 0; i < repeat; ++i) {
        if (solve_solver_profile_passes(solver, params, one, one_pass, &err)) fail(&err);
        for (int k = 0; k < K; ++k) {
            body[k * repeat + i] = one[k];
            for (int q = 0; q < P; ++q) {
                table[k * repeat + i] += one_pass[k * P + q];
                pass[(k * P + q) * repeat + i] = one_pass[k * P + q];
            }
        }
    }
    double *buf = calloc(m->params_size + 1, sizeof *buf);
    if (core_params_resolve(m, params, buf, &err)) fail(&err);
    bench_peaks peak = {0};
    const char *source;
    if (gpu) {
        double fp64, fp32;
        if (be_cuda_device_peaks(device, &fp64, &fp32, &peak.bytes)) fp64 = fp32 = peak.bytes = 0;
        peak.arith = precision == 32 ? fp32 : fp64;
        source = "from the device's attributes";
    } else {
        bench_cpu_peaks(threads, precision, &peak);
        source = "measured here, bench/peak.h";
    }
    printf("roofline           each kernel body per state-action pair: operations and bytes counted from the IR\n"
           "                   (gen/cost.h), its time alone between barriers (median of %d), the peaks %s\n",
           repeat, source);
    int team = threads > 0 ? threads : omp_get_max_threads();
    printf("  peaks            arithmetic %.3g op/s, division %.3g/s, library calls %.3g/s, memory %.3g B/s, "
           "cache %.3g B/s\n                   (float%d; \"mem\" is against the cache's rate when what the pairs read "
           "fits %d x %d KiB)\n", peak.arith, peak.divide, peak.calls, peak.bytes, peak.cache, precision, team,
           BENCH_CACHE_BYTES >> 10);
    printf("  %-24s %9s %9s %9s %9s | %6s %5s %5s %5s %6s | %% of peak: %5s %5s %5s %5s | bound\n", "kernel", "pairs",
           "body s", "table s", "pairs/s", "arith", "cmp", "div", "call", "bytes", "arith", "div", "call", "mem");
    for (int k = 0; k < K; ++k) {
        lcm_kernel_cost c;
        if (ir_is_egm(&m->regimes[m->kernels[k].regime])) { /* no state-action pairs to count */
            printf("  %-24s %9s %9.3g %9.3g | the endogenous grid method: its table and a few exact Q per state\n",
                   m->kernels[k].symbol, "EGM", bench_median(body + k * repeat, repeat),
                   bench_median(table + k * repeat, repeat));
            continue;
        }
        if (gen_kernel_cost_of(m, k, precision, buf, !base_env_switch("LCM_NO_TABLES"), !gpu, &c, &err)) fail(&err);
        double pairs = body_pairs(m, k, &plans[k]), t = bench_median(body + k * repeat, repeat);
        double tt = bench_median(table + k * repeat, repeat), rate = t > 0 ? pairs / t : 0;
        /* loads from data that fits the caches of the team are measured against their rate */
        int cached = !gpu && c.footprint <= (double)team * BENCH_CACHE_BYTES;
        const char *names[] = {"arithmetic", "division", "library calls", cached ? "cache reads" : "memory"};
        double need[] = {c.arith + c.compare, c.divide, c.calls, c.bytes};
        double peaks[] = {peak.arith, peak.divide, peak.calls, cached ? peak.cache : peak.bytes}, use[4];
        int bound = -1;
        for (int i = 0; i < 4; ++i) {
            use[i] = peaks[i] > 0 ? 100.0 * need[i] * rate / peaks[i] : -1;
            if (use[i] >= 0 && (bound < 0 || use[i] > use[bound])) bound = i;
        }
        printf("  %-24s %9.3g %9.3g %9.3g %9.3g | %6.1f %5.1f %5.2f %5.2f %6.1f |            ", m->kernels[k].symbol,
               pairs, t, tt, rate, c.arith, c.compare, c.divide, c.calls, c.bytes);
        for (int i = 0; i < 4; ++i) {
            if (use[i] < 0) printf(" %5s", "-");
            else printf(" %5.1f", use[i]);
        }
        if (bound >= 0 && use[bound] >= 0.5) printf(" | %s, at %.0f%% of its peak", names[bound], use[bound]);
        else printf(" | - (near no peak: launch overhead)");
        if (plans[k].elim.nstages) printf(" (staged: the outer loops' pairs)");
        printf("%s\n", c.table                ? " (continuation from the table)"
                       : c.expected_v         ? " (continuation from the expected V)"
                       : c.inline_continuation ? " (continuation inline)"
                                              : "");
    }
    table_passes(m, plans, pass, repeat);
    free(plans);
    free(body), free(table), free(pass), free(one), free(one_pass), free(buf);
}

/* The "context" child: the driver loaded and the device's context created,
 * as lcm's cuda backend does it, then exit. */
static void bare_context(int device)
{
#ifdef LCM_HAVE_CUDA
    lcm_err err = {0};
    const lcm_cu_api *cu = be_cu(&err);
    CUdevice dev;
    CUcontext ctx;
    if (!cu) fail(&err);
    if (cu->cuDeviceGet(&dev, device) != CUDA_SUCCESS || cu->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cu->cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        _exit(1);
    printf("context: 0\n");
    fflush(stdout);
    _exit(0);
#else
    (void)device;
    _exit(1);
#endif
}

int main(int argc, char **argv)
{
    bench_check_switches("bench_solve");
    const char *model_path = NULL, *params_path = NULL, *arch_text = NULL, *child = NULL;
    int repeat = 5, log_level = LCM_LOG_WARNING, checks = LCM_CHECKS_WARN;
    bench_model_args ma = {.so = {.backend = LCM_BACKEND_CPU, .precision = 64}};
    lcm_err err = {0};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (bench_model_arg("bench_solve", argc, argv, &i, &ma)) continue;
        if (!strcmp(a, "--params")) params_path = v, ++i;
        else if (!strcmp(a, "--arch")) arch_text = v, ++i;
        else if (!strcmp(a, "--repeat")) repeat = atoi(v) > 0 ? atoi(v) : 1, ++i;
        else if (!strcmp(a, "--log-level")) log_level = lcm_log_level_by_name(v), ++i;
        else if (!strcmp(a, "--checks")) checks = lcm_check_policy_by_name(v), ++i;
        else if (!strcmp(a, "--child")) child = v, ++i;
        else if (a[0] != '-') model_path = a;
        else {
            fprintf(stderr, "bench_solve: unknown option %s\n", a);
            return 2;
        }
    }
    if (!model_path) {
        fprintf(stderr, "usage: bench_solve MODEL.lua [--params P.lua] [-D k=v] [--fix path[=v]] [--precision 64|32] "
                        "[--backend auto|cpu|cuda|interp] [--device N] [--threads N] [--repeat N] [--arch sm_XX] "
                        "[--checks raise|warn|off] [--log-level warning|off]\n");
        return 2;
    }
    if (child && !strcmp(child, "context")) bare_context(ma.so.device);
    if (log_level < 0) log_level = LCM_LOG_WARNING;
    lcm_set_log_level((lcm_log_level)log_level); /* what is printed: warning (quiet) or off */
    if (checks < 0) checks = LCM_CHECKS_WARN;   /* warn (default): checks on, the solve completes; off: none */
    ma.so.checks = (lcm_check_policy)checks;

    lcm_pvalue *params = NULL;
    if (params_path && cli_params_read_lua(params_path, &params, NULL, NULL, &err)) fail(&err);
    if (!params) params = lcm_pv_table();
    if (core_params_take_fixes(params, ma.fixes, ma.nfixes, &err)) fail(&err);
    double t0 = base_now_seconds();
    lcmgen_output gen;
    lcmgen_inputs in = {ma.defs, ma.ndefs, ma.fixes, ma.nfixes};
    if (lcmgen_generate(model_path, &in, &gen, &err)) fail(&err);
    double t_gen = base_now_seconds() - t0;
    lcm_model *model;
    if (lcm_model_from_text(gen.manifest, gen.source, &model, &err)) fail(&err);
    const ir_model *m = core_model_ir(model);

    if (child) { /* a fresh process: "compile" times the solver's creation, "whole" solves once */
        lcm_solver *sv;
        lcm_solution *sol;
        t0 = base_now_seconds();
        if (lcm_solver_new(model, &ma.so, &sv, &err)) fail(&err);
        double t_new = base_now_seconds() - t0;
        if (!strcmp(child, "whole")) {
            if (lcm_solve(sv, params, &sol, &err)) fail(&err);
            lcm_solution_free(sol);
        }
        printf("solver: %.6f\n", t_new);
        fflush(stdout);
        _exit(0); /* as a process that is done: no teardown measured */
    }

    if (arch_text) { /* NVRTC for an architecture: no GPU needed */
        int arch = be_cuda_parse_arch(arch_text), compiled = 0;
        double sec = 0, *cold_nv = calloc((size_t)repeat, sizeof *cold_nv), *warm_nv = calloc((size_t)repeat, sizeof *warm_nv);
        char *target = NULL, nvdir[] = "/tmp/lcm-bench-nvrtc-XXXXXX";
        if (!arch || !mkdtemp(nvdir)) return 2;
        for (int k = 0; k < repeat; ++k) {
            char *cmd = base_xasprintf("rm -rf %s/*", nvdir);
            if (system(cmd)) {
            }
            free(cmd), free(target), target = NULL;
            t0 = base_now_seconds();
            if (lcm_precompile_cuda(model, arch, ma.so.precision, nvdir, &compiled, &sec, &target, &err)) fail(&err);
            cold_nv[k] = base_now_seconds() - t0;
            t0 = base_now_seconds();
            free(target), target = NULL;
            if (lcm_precompile_cuda(model, arch, ma.so.precision, nvdir, &compiled, &sec, &target, &err)) fail(&err);
            warm_nv[k] = base_now_seconds() - t0;
        }
        printf("model              %s (%d kernels), float%d\n", m->name, m->nkernels, ma.so.precision);
        printf("NVRTC, cold        %.3f s for %s (median of %d)\n", bench_median(cold_nv, repeat), target, repeat);
        printf("NVRTC, cached      %.4f s (median of %d)\n", bench_median(warm_nv, repeat), repeat);
        char *cmd = base_xasprintf("rm -rf %s", nvdir);
        if (system(cmd)) {
        }
        free(cmd), free(target), free(cold_nv), free(warm_nv);
        if (be_cuda_device_count() == 0) {
            printf("(no usable GPU here: solve not measured)\n");
            return 0;
        }
        ma.so.backend = LCM_BACKEND_CUDA;
    }

    /* compile: cold in fresh processes with empty caches, then cached loads here */
    double *cold = calloc((size_t)repeat, sizeof *cold), *cold_whole = calloc((size_t)repeat, sizeof *cold_whole);
    double *warm = calloc((size_t)repeat, sizeof *warm), *whole = calloc((size_t)repeat, sizeof *whole);
    char *cache_dir = bench_tempdir("lcm-bench-cache");
    ma.so.cache_dir = cache_dir;
    lcm_solver *solver = NULL;
    int ncold = ma.so.backend == LCM_BACKEND_INTERP ? 0 : (repeat < 3 ? repeat : 3), nwhole = repeat < 5 ? repeat : 5;
    for (int k = 0; k < ncold; ++k) {
        char *fresh = bench_tempdir("lcm-bench-cold");
        cold_whole[k] = bench_child(argc, argv, "compile", fresh, &cold[k]);
        if (cold_whole[k] < 0) return 1;
        bench_rmdir(fresh);
    }
    double fig;
    if (bench_child(argc, argv, "compile", cache_dir, &fig) < 0) return 1; /* fills the cache */
    for (int k = 0; k < nwhole; ++k)
        if ((whole[k] = bench_child(argc, argv, "whole", cache_dir, &fig)) < 0) return 1;
    for (int k = 0; k < repeat; ++k) {
        t0 = base_now_seconds();
        if (lcm_solver_new(model, &ma.so, &solver, &err)) fail(&err);
        warm[k] = base_now_seconds() - t0;
        if (k + 1 < repeat) lcm_solver_free(solver);
    }
    double *solve = calloc((size_t)repeat, sizeof *solve);
    lcm_solution *sol;
    for (int k = 0; k < repeat; ++k) {
        t0 = base_now_seconds();
        if (lcm_solve(solver, params, &sol, &err)) fail(&err);
        solve[k] = base_now_seconds() - t0;
        lcm_solution_free(sol);
    }
    double pairs = 0, states = 0, egm_points = 0; /* EGM: its tables' savings points over the states and choices */
    for (int k = 0; k < m->nkernels; ++k) pairs += kernel_pairs(m, k);
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            const ir_regime *R = &m->regimes[r];
            if (R->active[t] && ir_is_egm(R))
                egm_points += (double)ir_state_space_size(R) / R->states[R->egm.state].grid.n * (double)ir_egm_choices(R) *
                              R->egm.savings.grid.n;
        }
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r)
            if (m->regimes[r].active[t]) states += (double)ir_state_space_size(&m->regimes[r]);
    char *cpu = bench_cpu_name();
    double s_min, t_solve, s_max;
    bench_stats(solve, repeat, &s_min, &t_solve, &s_max);
    printf("model              %s (%d periods, %d regimes, %d kernels)\n", m->name, m->nperiods, m->nregimes,
           m->nkernels);
    if (!strcmp(lcm_solver_backend(solver), "cuda"))
        printf("backend            cuda, float%d\n", lcm_solver_precision(solver));
    else
        printf("backend            %s, float%d, %s, %ld cores online\n", lcm_solver_backend(solver),
               lcm_solver_precision(solver), cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("work               %.0f states, %.3g state-action pairs per solve", states, pairs);
    if (egm_points > 0) printf(" (grid search), %.3g endogenous grid points (EGM)", egm_points);
    printf("\n");
    printf("generate (Lua)     %.4f s\n", t_gen);
    for (const char *line = gen.plan, *nl; *line; line = nl + 1) { /* the staged solve (gen/plan.h) */
        nl = strchr(line, '\n');
        printf("plan               %.*s\n", (int)(nl - line), line);
    }
    double lo, mid, hi;
    if (ncold) {
        bench_stats(cold, ncold, &lo, &mid, &hi);
        printf("compile, cold      %.3f s (fresh process, empty cache; median of %d; min %.3f, max %.3f)\n", mid,
               ncold, lo, hi);
        bench_stats(cold_whole, ncold, &lo, &mid, &hi);
        printf("  that process     %.3f s (generate + compile, fork to exit; median of %d)\n", mid, ncold);
    }
    bench_stats(warm, repeat, &lo, &mid, &hi);
    printf("solver, cached     %.4f s (median of %d; min %.4f, max %.4f)\n", mid, repeat, lo, hi);
    bench_stats(whole, nwhole, &lo, &mid, &hi);
    printf("whole process      %.3f s (generate, cached solver, one solve; fork to exit; median of %d; min %.3f, "
           "max %.3f)\n", mid, nwhole, lo, hi);
    if (!strcmp(lcm_solver_backend(solver), "cuda")) {
        double bare[5];
        for (int k = 0; k < 5; ++k)
            if ((bare[k] = bench_child(argc, argv, "context", cache_dir, &fig)) < 0) return 1;
        bench_stats(bare, 5, &lo, &mid, &hi);
        printf("bare CUDA context  %.3f s (driver loaded, context created; fork to exit; median of 5; min %.3f, "
               "max %.3f)\n", mid, lo, hi);
    }
    printf("solve              %.4f s (median of %d; min %.4f, max %.4f), checks %s\n", t_solve, repeat, s_min,
           s_max, ma.so.checks == LCM_CHECKS_OFF ? "off" : "on");
    printf("throughput         %.3g state-action pairs / s\n", pairs / t_solve);
    /* memory before the roofline, whose peak measurements allocate their own */
    printf("peak host memory   %.1f MiB\n", bench_peak_rss_mib());
    printf("continuation tables %.2f MiB (ir/precompute.h)\n", (double)lcm_solver_table_bytes(solver) / 1048576.0);
    if (lcm_solver_device_peak(solver))
        printf("peak device memory %.2f MiB\n", (double)lcm_solver_device_peak(solver) / 1048576.0);
    roofline(solver, m, params, repeat, ma.so.threads, ma.so.device);
    bench_rmdir(cache_dir);
    free(cpu), free(cold), free(cold_whole), free(warm), free(whole), free(solve);
    lcm_solver_free(solver);
    lcm_pv_free(params);
    lcm_model_free(model);
    lcmgen_output_free(&gen);
    bench_model_args_free(&ma);
    return 0;
}
