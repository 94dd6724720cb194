/* solve.c - solvers and backward induction.
 *
 * For t = T-1 down to 0, every regime active at t runs the kernel of its
 * period class, on its own queue: V_t from V_{t+1} of the regimes it can
 * move to; a barrier separates periods.  Host backends compute straight
 * into the solution and are checked kernel by kernel, so a failing check
 * stops the solve at once.  Device backends keep only two V buffers per
 * regime (V_t and V_{t+1}, alternating), queue a copy of each finished V_t
 * to pinned host memory, and are checked when the whole solve has run; a
 * backend that can record graphs runs the first solve of a solver while
 * recording it and replays the graph on every later solve (an estimation
 * loop), when the results fit a pinned staging area.
 *
 * Every kernel sets validation flags (kernel_abi.h) in its own slot; they
 * become an error or a warning naming the regime, period, age and state,
 * explained further by re-evaluating that state with the interpreter.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "cuda_compile.h"
#include "diagnose.h"
#include "snapshot.h"
#include "solver_internal.h"

/* Graph replay needs fixed host buffers for the results: only up to this size. */
#define GRAPH_STAGE_LIMIT ((size_t)256 << 20)

int lcm_backend_by_name(const char *name)
{
    static const char *names[] = {"auto", "cpu", "cuda", "interp"};
    for (int i = 0; i < 4; ++i)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

void lcm_to_precision(const double *x, size_t n, int precision, void *dst)
{
    if (precision == 64) memcpy(dst, x, n * sizeof *x);
    else
        for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = (float)x[i];
}

static lcm_backend_kind choose_backend(lcm_backend_kind asked)
{
    if (asked != LCM_BACKEND_AUTO) return asked;
    if (lcm_cuda_device_count() > 0) return LCM_BACKEND_CUDA;
    lcm_debug("no usable CUDA device: using the cpu backend");
    return LCM_BACKEND_CPU;
}

int lcm_solver_new(const lcm_model *model, const lcm_solver_options *opts, lcm_solver **out, lcm_err *err)
{
    lcm_solver_options o = {0};
    if (opts) o = *opts;
    if (!o.precision) o.precision = 64;
    if (o.precision != 64 && o.precision != 32)
        return lcm_fail(err, LCM_E_USAGE, "precision must be 64 or 32, not %d", o.precision);
    lcm_backend_kind kind = choose_backend(o.backend);
    if (kind == LCM_BACKEND_INTERP && o.precision != 64)
        return lcm_fail(err, LCM_E_USAGE, "the interp backend computes in float64 only");
    lcm_solver *s = xcalloc(1, sizeof *s);
    s->model = model;
    s->log_path = o.log_path ? xstrdup(o.log_path) : NULL;
    s->log_keep = o.log_keep > 0 ? o.log_keep : 3;
    lcm_cache_open(&s->cache, o.cache_dir);
    int rc;
    switch (kind) {
    case LCM_BACKEND_INTERP: rc = lcm_backend_interp_new(&model->ir, &s->backend, err); break;
    case LCM_BACKEND_CUDA:
        rc = lcm_backend_cuda_new(&model->ir, model->source, o.precision, &s->cache, o.device, &s->backend, err);
        break;
    default:
        rc = lcm_backend_cpu_new(&model->ir, model->source, o.precision, &s->cache, o.threads, &s->backend, err);
        break;
    }
    if (rc) {
        lcm_cache_close(&s->cache);
        free(s->log_path);
        free(s);
        return rc;
    }
    lcm_backend *be = s->backend;
    const char *on = be->target ? be->target : "";
    if (be->compiled)
        lcm_progress("compiled the %s solver of model '%s' (float%d%s%s) in %.2f s", be->name, model->ir.name,
                     o.precision, *on ? ", " : "", on, be->compile_seconds);
    else if (be->cache_entry)
        lcm_progress("loaded the %s solver of model '%s' (float%d%s%s) from the cache", be->name, model->ir.name,
                     o.precision, *on ? ", " : "", on);
    /* the grid buffer: filled from the parameters at every solve */
    ir_grid_layout_build(&model->ir, &s->layout);
    s->grids64 = xcalloc(s->layout.total + 1, sizeof *s->grids64);
    size_t gbytes = (s->layout.total + 1) * lcm_real_bytes(o.precision);
    s->grids_host = be->alloc_host(be, gbytes, err);
    s->grids = s->grids_host ? be->alloc(be, gbytes, err) : NULL;
    if (!s->grids) {
        lcm_solver_free(s);
        return err->code;
    }
    *out = s;
    return 0;
}

int lcm_precompile_cuda(const lcm_model *m, int arch, int precision, const char *cache_dir, int *compiled,
                        double *seconds, char **target, lcm_err *err)
{
    lcm_cache cache;
    lcm_cache_open(&cache, cache_dir);
    lcm_cuda_image img;
    int rc = lcm_cuda_compile(&m->ir, m->source, arch, precision, &cache, &img, err);
    if (!rc) {
        *compiled = img.compiled;
        *seconds = img.seconds;
        *target = xstrdup(img.target);
    }
    lcm_cuda_image_free(&img);
    lcm_cache_close(&cache);
    return rc;
}

const char *lcm_solver_backend(const lcm_solver *s) { return s->backend->name; }
int lcm_solver_precision(const lcm_solver *s) { return s->backend->precision; }
int lcm_solver_compiled(const lcm_solver *s) { return s->backend->compiled; }
double lcm_solver_compile_seconds(const lcm_solver *s) { return s->backend->compile_seconds; }
size_t lcm_solver_device_peak(const lcm_solver *s) { return s->backend->bytes_peak; }

/* ---- buffers of a solve (made once per solver, reused) ------------------ */
static void release_buffers(lcm_solver *s)
{
    lcm_backend *be = s->backend;
    const ir_model *m = &s->model->ir;
    for (int k = 0; k < 2; ++k)
        for (int r = 0; r < m->nregimes; ++r)
            if (s->vbuf[k][r]) be->release(be, s->vbuf[k][r]), s->vbuf[k][r] = NULL;
    if (s->P) be->release(be, s->P);
    if (s->F) be->release(be, s->F);
    if (s->P_host) be->release_host(be, s->P_host);
    if (s->F_host) be->release_host(be, s->F_host);
    if (s->F_init) be->release_host(be, s->F_init);
    if (s->stage) be->release_host(be, s->stage);
    free(s->stage_off);
    s->P = s->F = s->P_host = NULL;
    s->F_host = s->F_init = NULL;
    s->stage = NULL;
    s->stage_off = NULL;
    s->captured = 0;
    s->buffers_ready = 0;
}

void lcm_solver_free(lcm_solver *s)
{
    if (!s) return;
    release_buffers(s);
    if (s->grids) s->backend->release(s->backend, s->grids);
    if (s->grids_host) s->backend->release_host(s->backend, s->grids_host);
    s->backend->destroy(s->backend);
    ir_grid_layout_free(&s->layout);
    lcm_cache_close(&s->cache);
    free(s->grids64);
    free(s->log_path);
    free(s);
}

/* The first period a regime is active (for messages). */
static int first_active(const ir_regime *r, int T)
{
    for (int t = T - 1; t >= 0; --t)
        if (r->active[t]) return t;
    return 0;
}

static int make_buffers_once(lcm_solver *s, lcm_err *err);

int lcm_solver_buffers(lcm_solver *s, lcm_err *err)
{
    if (s->buffers_ready) return 0;
    int rc = make_buffers_once(s, err);
    if (rc) release_buffers(s);
    else s->buffers_ready = 1;
    return rc;
}

static int make_buffers_once(lcm_solver *s, lcm_err *err)
{
    lcm_backend *be = s->backend;
    const ir_model *m = &s->model->ir;
    int R = m->nregimes, T = m->nperiods;
    size_t rb = lcm_real_bytes(be->precision);
    s->P_host = be->alloc_host(be, (m->params_size + 1) * rb, err);
    s->P = s->P_host ? be->alloc(be, (m->params_size + 1) * rb, err) : NULL;
    size_t fbytes = (size_t)(T * R) * sizeof(lcm_flags);
    s->F_host = s->P ? be->alloc_host(be, fbytes, err) : NULL;
    s->F_init = s->F_host ? be->alloc_host(be, fbytes, err) : NULL;
    s->F = s->F_init ? be->alloc(be, fbytes, err) : NULL;
    if (!s->F) return err->code;
    for (int i = 0; i < T * R; ++i) {
        memset(&s->F_init[i], 0, sizeof *s->F_init);
        for (int b = 0; b < LCM_NFLAGS; ++b) s->F_init[i].first[b] = INT64_MAX;
    }
    if (be->host_memory) return 0;
    /* device: two V buffers per regime, and pinned staging for the results */
    s->stage_off = xcalloc((size_t)(T * R) + 1, sizeof *s->stage_off);
    size_t total = 0;
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r) {
            s->stage_off[t * R + r] = total;
            if (m->regimes[r].active[t]) total += (size_t)ir_state_space_size(&m->regimes[r]) * rb;
        }
    s->stage_bytes = total;
    for (int r = 0; r < R; ++r) {
        const ir_regime *reg = &m->regimes[r];
        int active = 0;
        for (int t = 0; t < T; ++t) active |= reg->active[t];
        if (!active) continue;
        size_t bytes = (size_t)ir_state_space_size(reg) * rb;
        for (int k = 0; k < 2; ++k)
            if (!(s->vbuf[k][r] = be->alloc(be, bytes, err)))
                return lcm_fail_prefix(err, "model '%s', period %d: V of regime '%s' needs 2 x %.1f MiB on the device "
                                       "(a coarser state grid or --precision 32 needs less)", m->name,
                                       first_active(reg, T), reg->name, (double)bytes / 1048576.0);
    }
    s->stage = be->alloc_host(be, total + 1, err);
    if (!s->stage) return err->code;
    return 0;
}

/* ---- flags -> messages ---------------------------------------------------- */
static const struct {
    int bit, error;
    const char *what;
} flag_text[] = {
    {LCM_FLAG_NAN, 1, "V is NaN (a feasible action has a NaN Q: check the functions there, e.g. log of a "
                      "negative number or 0 * inf)"},
    {LCM_FLAG_REGIME_PROB, 1, "the regime transition probabilities are negative or do not sum to 1 (or a "
                              "deterministic transition returned an invalid regime id)"},
    {LCM_FLAG_STATE_PROB, 1, "Markov state transition probabilities are negative or do not sum to 1"},
    {LCM_FLAG_INACTIVE, 1, "a regime that is inactive in the next period has a positive probability"},
    {LCM_FLAG_CODE, 1, "a deterministic transition gives a discrete state a value that is not one of its codes"},
    {LCM_FLAG_INF, 0, "V is +inf"},
    {LCM_FLAG_INFEASIBLE, 0, "no action is feasible (V = -inf)"},
};

/* What the checks of (t, r) found, by the level's policy: nothing at off;
 * warnings at warning and progress; at debug an error for the first
 * failing check of the error kind (warnings for the others).  The first
 * failure of a solve also writes a snapshot (--log-path). */
static int report_flags(const lcm_solver *sv, const lcm_solution *sol, const double *params, int r_id, int t,
                        const lcm_flags *f, int *snapped, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    const ir_regime *r = &m->regimes[r_id];
    lcm_checks mode = lcm_checks_mode();
    int rc = 0;
    for (size_t i = 0; i < sizeof flag_text / sizeof *flag_text && mode != LCM_CHECKS_OFF; ++i) {
        int bit = flag_text[i].bit, raise = flag_text[i].error && mode == LCM_CHECKS_RAISE;
        if (!(f->bits & (1u << bit)) || (rc && !flag_text[i].error)) continue;
        lcm_sb state, report;
        sb_init(&state), sb_init(&report);
        lcm_describe_state(m, r, f->first[bit], sv->grids64, &sv->layout, &state);
        lcm_diagnose(m, &sv->layout, sv->grids64, params, sol, t, r_id, f->first[bit], bit, &state);
        sb_printf(&report, "regime '%s', period %d (age %g): %s, first at %s", r->name, t, m->ages[t], flag_text[i].what,
                  state.s);
        if (flag_text[i].error && !*snapped) {
            /* V of the failing regime at t and of every regime at t + 1, which it read */
            unsigned char *include = xcalloc((size_t)(m->nperiods * m->nregimes), 1);
            include[t * m->nregimes + r_id] = 1;
            for (int g = 0; g < m->nregimes && t + 1 < m->nperiods; ++g) include[(t + 1) * m->nregimes + g] = 1;
            lcm_snapshot_write(sv, sol, params, include, report.s);
            free(include);
            *snapped = 1;
        }
        if (raise && !rc) rc = lcm_fail(err, LCM_E_NUMERIC, "%s", report.s);
        else if (!raise) lcm_warn("%s", report.s);
        sb_free(&state), sb_free(&report);
    }
    return rc;
}

/* ---- solutions ------------------------------------------------------------ */
lcm_solution *lcm_solution_alloc(const ir_model *m, int precision, lcm_err *err)
{
    int R = m->nregimes, T = m->nperiods;
    lcm_solution *sol = xcalloc(1, sizeof *sol);
    sol->m = m;
    sol->precision = precision;
    sol->V = xcalloc((size_t)(R * T), sizeof *sol->V);
    sol->n = xcalloc((size_t)R, sizeof *sol->n);
    ir_grid_layout_build(m, &sol->layout);
    sol->grids = xcalloc(sol->layout.total + 1, sizeof *sol->grids);
    sol->params = xcalloc(m->params_size + 1, sizeof *sol->params);
    size_t rb = lcm_real_bytes(precision);
    for (int r = 0; r < R; ++r) sol->n[r] = ir_state_space_size(&m->regimes[r]);
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r) {
            if (!m->regimes[r].active[t]) continue;
            if (!(sol->V[t * R + r] = malloc((size_t)sol->n[r] * rb))) {
                lcm_fail(err, LCM_E_MEMORY, "out of host memory: V of regime '%s' at period %d needs %.1f MiB "
                         "(%lld states); a coarser grid or --precision 32 needs less", m->regimes[r].name, t,
                         (double)sol->n[r] * (double)rb / 1048576.0, (long long)sol->n[r]);
                lcm_solution_free(sol);
                return NULL;
            }
        }
    return sol;
}

void lcm_solution_free(lcm_solution *s)
{
    if (!s) return;
    for (int i = 0; i < s->m->nperiods * s->m->nregimes; ++i) free(s->V[i]);
    free(s->V);
    free(s->n);
    free(s->grids);
    free(s->params);
    ir_grid_layout_free(&s->layout);
    free(s);
}

/* ---- backward induction ------------------------------------------------- */

/* Where V of (t, r) lives for the kernels. */
static void *v_at(const lcm_solver *sv, const lcm_solution *sol, int t, int r)
{
    int R = sv->model->ir.nregimes;
    return sv->backend->host_memory ? sol->V[t * R + r] : sv->vbuf[t % 2][r];
}

/* Queues the whole solve.  Host backends compute as it goes; their flags are
 * checked kernel by kernel (sol and params are then needed). */
/* At level progress: how long period t took (stamps T - t - 1 to T - t). */
static void log_period(lcm_solver *sv, int t)
{
    const ir_model *m = &sv->model->ir;
    int T = m->nperiods;
    lcm_progress_step(T - t, T, "solving '%s': period %d (age %g) in %.4f s", m->name, t, m->ages[t],
                      sv->backend->stamp_seconds(sv->backend, T - t - 1, T - t));
}

/* At level debug: V's range and mean per period and regime. */
static void log_v_stats(const lcm_solution *sol)
{
    const ir_model *m = sol->m;
    for (int t = m->nperiods - 1; t >= 0; --t)
        for (int r = 0; r < m->nregimes; ++r) {
            lcm_index n;
            if (!lcm_solution_V(sol, t, r, &n)) continue;
            double lo = INFINITY, hi = -INFINITY, sum = 0;
            lcm_index finite = 0, neg_inf = 0, pos_inf = 0, nan = 0;
            for (lcm_index i = 0; i < n; ++i) {
                double v = lcm_solution_value(sol, t, r, i);
                if (v != v) ++nan;
                else if (v == -INFINITY) ++neg_inf;
                else if (v == INFINITY) ++pos_inf;
                else lo = v < lo ? v : lo, hi = v > hi ? v : hi, sum += v, ++finite;
            }
            lcm_sb extra;
            sb_init(&extra);
            if (neg_inf) sb_printf(&extra, ", %lld at -inf", (long long)neg_inf);
            if (pos_inf) sb_printf(&extra, ", %lld at +inf", (long long)pos_inf);
            if (nan) sb_printf(&extra, ", %lld NaN", (long long)nan);
            if (finite)
                lcm_debug("period %d (age %g), regime '%s': V min %.6g, max %.6g, mean %.6g over %lld states%s", t,
                          m->ages[t], m->regimes[r].name, lo, hi, sum / (double)finite, (long long)n,
                          extra.s ? extra.s : "");
            else
                lcm_debug("period %d (age %g), regime '%s': no finite V among %lld states%s", t, m->ages[t],
                          m->regimes[r].name, (long long)n, extra.s ? extra.s : "");
            sb_free(&extra);
        }
}

static int queue_solve(lcm_solver *sv, lcm_solution *sol, const double *params, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    lcm_backend *be = sv->backend;
    int R = m->nregimes, T = m->nperiods, root = R;
    size_t rb = lcm_real_bytes(be->precision);
    int rc = be->upload(be, sv->P, sv->P_host, (m->params_size + 1) * rb, root, err);
    if (!rc) rc = be->upload(be, sv->grids, sv->grids_host, (sv->layout.total + 1) * rb, root, err);
    if (!rc) rc = be->upload(be, sv->F, sv->F_init, (size_t)(T * R) * sizeof(lcm_flags), root, err);
    if (!rc) rc = be->barrier(be, err);
    if (!rc) rc = be->stamp(be, 0, err);
    int snapped = 0, checks = lcm_checks_mode() != LCM_CHECKS_OFF;
    for (int t = T - 1; t >= 0 && !rc; --t) {
        for (int r = 0; r < R && !rc; ++r) {
            if (!m->regimes[r].active[t]) continue;
            int k = m->period_kernel[r * T + t];
            const ir_kernel *kn = &m->kernels[k];
            lcm_kernel_args a;
            memset(&a, 0, sizeof a);
            a.params = sv->P;
            a.grids = sv->grids;
            for (int i = 0; i < kn->ntargets && t + 1 < T; ++i)
                a.v_next[kn->targets[i]] = v_at(sv, sol, t + 1, kn->targets[i]);
            a.v_out = v_at(sv, sol, t, r);
            a.flags = (lcm_flags *)sv->F + (t * R + r);
            a.age = m->ages[t];
            a.period = t;
            a.checks = checks;
            lcm_index n = ir_state_space_size(&m->regimes[r]);
            rc = be->launch(be, k, &a, n, r, err);
            if (!rc && !be->host_memory)
                rc = be->download(be, sv->stage + sv->stage_off[t * R + r], a.v_out, (size_t)n * rb, r, err);
            if (!rc && be->host_memory) rc = report_flags(sv, sol, params, r, t, a.flags, &snapped, err);
        }
        if (!rc) rc = be->barrier(be, err);
        if (!rc) rc = be->stamp(be, T - t, err);
        if (!rc && be->host_memory) log_period(sv, t);
    }
    if (!rc && !be->host_memory)
        rc = be->download(be, sv->F_host, sv->F, (size_t)(T * R) * sizeof(lcm_flags), root, err);
    return rc;
}

/* Device backends: the queued solve, recorded as a graph when possible
 * (and again when the checks were switched since it was recorded). */
static int run_device_solve(lcm_solver *sv, lcm_err *err)
{
    lcm_backend *be = sv->backend;
    int checks = lcm_checks_mode() != LCM_CHECKS_OFF;
    if (sv->captured && sv->captured_checks == checks) return be->replay(be, err);
    sv->captured = 0;
    sv->captured_checks = checks;
    if (be->capture_begin && sv->stage_bytes <= GRAPH_STAGE_LIMIT && !getenv("LCM_NO_GRAPHS")) {
        lcm_err graph_err = {0};
        int rc = be->capture_begin(be, &graph_err);
        if (!rc) rc = queue_solve(sv, NULL, NULL, &graph_err);
        int rc2 = be->capture_end(be, rc ? NULL : &graph_err);
        if (!rc && !rc2) {
            sv->captured = 1;
            return be->replay(be, err);
        }
        lcm_debug("recording the solve as a graph failed (%s); running it without", graph_err.msg);
    }
    return queue_solve(sv, NULL, NULL, err);
}

int lcm_solve_resolved(lcm_solver *sv, const double *params, lcm_solution **out, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    lcm_backend *be = sv->backend;
    int R = m->nregimes, T = m->nperiods;
    double t0 = now_seconds();
    int rc = lcm_solver_buffers(sv, err);
    if (rc) return rc;
    char why[512];
    if (ir_grid_buffer_fill(m, &sv->layout, params, sv->grids64, why, sizeof why))
        return lcm_fail(err, LCM_E_PARAMS, "%s", why);
    lcm_to_precision(params, m->params_size, be->precision, sv->P_host);
    lcm_to_precision(sv->grids64, sv->layout.total, be->precision, sv->grids_host);
    lcm_solution *sol = lcm_solution_alloc(m, be->precision, err);
    if (!sol) return err->code;
    memcpy(sol->grids, sv->grids64, sv->layout.total * sizeof *sol->grids);
    memcpy(sol->params, params, m->params_size * sizeof *sol->params);
    if (be->host_memory) {
        rc = queue_solve(sv, sol, params, err);
    } else {
        rc = run_device_solve(sv, err);
        if (!rc) rc = be->finish(be, err);
        size_t rb = lcm_real_bytes(be->precision);
        for (int t = 0; t < T && !rc; ++t)
            for (int r = 0; r < R; ++r)
                if (sol->V[t * R + r])
                    memcpy(sol->V[t * R + r], sv->stage + sv->stage_off[t * R + r], (size_t)sol->n[r] * rb);
        for (int t = T - 1; t >= 0 && !rc; --t) log_period(sv, t);
        int snapped = 0;
        for (int t = T - 1; t >= 0 && !rc; --t)
            for (int r = 0; r < R && !rc; ++r)
                if (m->regimes[r].active[t])
                    rc = report_flags(sv, sol, params, r, t, &sv->F_host[t * R + r], &snapped, err);
    }
    if (rc) {
        lcm_solution_free(sol);
        return rc;
    }
    sol->seconds = now_seconds() - t0;
    lcm_progress("solved model '%s' on %s (float%d) in %.3f s", m->name, be->name, be->precision, sol->seconds);
    if (lcm_get_log_level() >= LCM_LOG_DEBUG) log_v_stats(sol);
    if (!be->host_memory)
        lcm_progress("peak device memory %.2f MiB (V buffers, parameters, grids, flags)",
                     (double)be->bytes_peak / 1048576.0);
    *out = sol;
    return 0;
}

int lcm_solve(lcm_solver *sv, const lcm_pvalue *params, lcm_solution **out, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    double *buf = xcalloc(m->params_size + 1, sizeof *buf);
    int rc = lcm_params_resolve(m, params, buf, err);
    if (!rc) rc = lcm_solve_resolved(sv, buf, out, err);
    free(buf);
    return rc;
}

/* ---- accessors ------------------------------------------------------------- */
const void *lcm_solution_V(const lcm_solution *s, int t, int r, lcm_index *n)
{
    if (t < 0 || t >= s->m->nperiods || r < 0 || r >= s->m->nregimes) return NULL;
    if (n) *n = s->n[r];
    return s->V[t * s->m->nregimes + r];
}

double lcm_solution_value(const lcm_solution *s, int t, int r, lcm_index i)
{
    const void *v = lcm_solution_V(s, t, r, NULL);
    if (!v || i < 0 || i >= s->n[r]) return 0.0 / 0.0;
    return s->precision == 32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

int lcm_solution_precision(const lcm_solution *s) { return s->precision; }
double lcm_solution_seconds(const lcm_solution *s) { return s->seconds; }
const ir_model *lcm_solution_model(const lcm_solution *s) { return s->m; }
