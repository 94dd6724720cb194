/* worker.c - workers: one backend each, solving one block of the sharded
 * states by backward induction (solver.c makes a solver of them).
 *
 * For t = T-1 down to 0, every regime active at t runs the kernel of its
 * period class, on its own queue: V_t from V_{t+1} of the regimes it can
 * move to; a barrier separates periods.  A regime carrying the sharded
 * states is solved only on the worker's block of them (ir/shard.h), and a
 * splayed regime in chunks of its splayed states, one launch each
 * (ir/layout.h).  Host
 * backends compute straight into the solution.  Device backends keep only
 * two V buffers per regime (V_t and V_{t+1}, alternating) and queue a copy
 * of each finished V_t to pinned host memory; a backend that can record
 * graphs runs the first solve while recording it and replays the graph on
 * every later solve (an estimation loop), when the results fit a pinned
 * staging area.  Every kernel sets validation flags (kernel_abi.h) in its
 * own slot; the solution carries them, and solver.c reports them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_args.h"
#include "cuda_api.h"
#include "cuda_compile.h"
#include "eliminate.h"
#include "log.h"
#include "memory.h"
#include "solver_internal.h"

/* Graph replay needs fixed host buffers for the results: only up to this size. */
#define GRAPH_STAGE_LIMIT ((size_t)256 << 20)

int lcm_backend_by_name(const char *name)
{
    static const char *names[] = {"auto", "cpu", "cuda", "interp"};
    for (int i = 0; i < 4 && name; ++i)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

int lcm_check_policy_by_name(const char *name)
{
    static const char *names[] = {"raise", "warn", "off"};
    for (int i = 0; i < (int)(sizeof names / sizeof *names) && name; ++i)
        if (!strcmp(name, names[i])) return LCM_CHECKS_RAISE + i;
    return -1;
}

void solve_to_precision(const double *x, size_t n, int precision, void *dst)
{
    lcm_assert((x && dst) || !n);
    lcm_assert(precision == 64 || precision == 32);
    if (precision == 64) memcpy(dst, x, n * sizeof *x);
    else
        for (size_t i = 0; i < n; ++i) ((float *)dst)[i] = (float)x[i];
}

lcm_backend_kind solve_choose_backend(lcm_backend_kind asked)
{
    if (asked != LCM_BACKEND_AUTO) return asked;
    /* no NVIDIA device node (Linux: /dev/nvidiactl; WSL: /dev/dxg): no
     * GPU, and no need to load the driver library and initialise it */
    if (access("/dev/nvidiactl", F_OK) && access("/dev/dxg", F_OK)) {
        io_debug("no NVIDIA device node: using the cpu backend");
        return LCM_BACKEND_CPU;
    }
    if (be_cuda_device_count() > 0) return LCM_BACKEND_CUDA;
    io_debug("no usable CUDA device: using the cpu backend");
    return LCM_BACKEND_CPU;
}

int solve_worker_new(const lcm_model *model, const lcm_solver_options *o, const ir_shard *shard, int device, int index,
                   int total, lcm_worker **out, lcm_err *err)
{
    lcm_assert(model && o && shard && out);
    lcm_assert(total > 0 && index >= 0 && index < total);
    lcm_assert(o->precision == 64 || o->precision == 32); /* settle_options */
    lcm_assert(o->checks != LCM_CHECKS_DEFAULT);       /* ... settled too */
    lcm_worker *s = base_xcalloc(1, sizeof *s);
    s->model = model;
    s->index = index;
    s->total = total;
    be_cache_open(&s->cache, o->cache_dir);
    s->cache.required = o->cache_required;
    int rc;
    switch (o->backend) {
    case LCM_BACKEND_INTERP: rc = be_backend_interp_new(&model->ir, &s->backend, err); break;
    case LCM_BACKEND_CUDA:
        rc = be_backend_cuda_new(&model->ir, model->source, o->precision, &s->cache, device, &s->backend, err);
        break;
    default:
        rc = be_backend_cpu_new(&model->ir, model->source, o->precision, &s->cache, o->threads, &s->backend, err);
        break;
    }
    if (rc) {
        be_cache_close(&s->cache);
        free(s);
        return rc;
    }
    lcm_backend *be = s->backend;
    const char *on = be->target ? be->target : "";
    if (index == 0 && be->compiled)
        io_progress("compiled the %s solver of model '%s' (float%d%s%s) in %.2f s", be->name, model->ir.name,
                     o->precision, *on ? ", " : "", on, be->compile_seconds);
    else if (index == 0 && be->cache_entry)
        io_progress("loaded the %s solver of model '%s' (float%d%s%s) from the cache", be->name, model->ir.name,
                     o->precision, *on ? ", " : "", on);
    s->checks = o->checks != LCM_CHECKS_OFF;
    /* its block of the sharded states */
    s->shard = *shard;
    ir_shard_block(&s->shard, index, total, &s->shard_lo, &s->shard_hi);
    s->pre = base_xcalloc((size_t)model->ir.nkernels + 1, sizeof *s->pre);
    for (int k = 0; k < model->ir.nkernels; ++k) ir_elim_plan_kernel(&model->ir, &s->shard, k, &s->pre[k]);
    ir_vars vars;
    ir_vars_build(&model->ir, &vars);
    s->states = base_xcalloc((size_t)model->ir.nregimes + 1, sizeof *s->states);
    for (int r = 0; r < model->ir.nregimes; ++r) ir_state_layout_build(&model->ir, &vars, &s->shard, r, &s->states[r]);
    ir_vars_free(&vars);
    /* the parameter and grid buffers (solves and simulations): filled from
     * the parameters at every run */
    ir_grid_layout_build(&model->ir, &s->layout);
    if ((rc = solve_memory_check_solve(s, o->devices, err))) { /* before anything is made as large as the model */
        solve_worker_free(s);
        return rc;
    }
    s->grids64 = base_xcalloc(s->layout.total + 1, sizeof *s->grids64);
    size_t rb = core_real_bytes(o->precision), pbytes = (model->ir.params_size + 1) * rb,
           gbytes = (s->layout.total + 1) * rb;
    s->P_host = be->alloc_host(be, pbytes, err);
    s->P = s->P_host ? be->alloc(be, pbytes, err) : NULL;
    s->grids_host = s->P ? be->alloc_host(be, gbytes, err) : NULL;
    s->grids = s->grids_host ? be->alloc(be, gbytes, err) : NULL;
    if (!s->grids) {
        solve_worker_free(s);
        return err->code;
    }
    *out = s;
    return 0;
}

int lcm_precompile_cuda(const lcm_model *m, int arch, int precision, const char *cache_dir, int *compiled,
                        double *seconds, char **target, lcm_err *err)
{
    LCM_NEEDS(err, m, compiled, seconds, target);
    if (!precision) precision = 64; /* as lcm_solver_new */
    if (precision != 64 && precision != 32)
        return base_fail(err, LCM_E_USAGE, "precision must be 64 or 32, not %d", precision);
    lcm_cache cache;
    be_cache_open(&cache, cache_dir);
    cache.required = 1; /* the cache entry is all it makes */
    lcm_cuda_image img;
    int rc = be_cuda_compile(&m->ir, m->source, arch, precision, &cache, &img, err);
    if (!rc) {
        *compiled = img.compiled;
        *seconds = img.seconds;
        *target = base_xstrdup(img.target);
    }
    be_cuda_image_free(&img);
    be_cache_close(&cache);
    return rc;
}

/* ---- buffers of a solve (made by the first solve, reused) ---------------- */
static void release_buffers(lcm_worker *s)
{
    lcm_backend *be = s->backend;
    const ir_model *m = &s->model->ir;
    for (int k = 0; k < 2; ++k)
        for (int r = 0; r < m->nregimes; ++r) {
            if (s->vbuf[k][r]) be->release(be, s->vbuf[k][r]), s->vbuf[k][r] = NULL;
            if (s->mbuf[k][r]) be->release(be, s->mbuf[k][r]), s->mbuf[k][r] = NULL;
        }
    for (int r = 0; r < m->nregimes; ++r) {
        if (s->table[r]) be->release(be, s->table[r]), s->table[r] = NULL, s->table_cap[r] = 0;
        if (s->ev[r]) be->release(be, s->ev[r]), s->ev[r] = NULL;
        for (int k = 0; k < LCM_MAX_STAGES; ++k)
            if (s->stages[r][k]) be->release(be, s->stages[r][k]), s->stages[r][k] = NULL, s->stage_cap[r][k] = 0;
    }
    if (s->F) be->release(be, s->F);
    if (s->F_host) be->release_host(be, s->F_host);
    if (s->F_init) be->release_host(be, s->F_init);
    if (s->stage) be->release_host(be, s->stage);
    free(s->stage_off), free(s->mstage_off);
    s->F = NULL;
    s->F_host = s->F_init = NULL;
    s->stage = NULL;
    s->stage_off = s->mstage_off = NULL;
    s->captured = 0;
    s->buffers_ready = 0;
}

void solve_worker_free(lcm_worker *s)
{
    if (!s) return;
    release_buffers(s);
    sim_sim_buffers_free(s);
    lcm_backend *be = s->backend;
    if (s->P) be->release(be, s->P);
    if (s->P_host) be->release_host(be, s->P_host);
    if (s->grids) be->release(be, s->grids);
    if (s->grids_host) be->release_host(be, s->grids_host);
    s->backend->destroy(s->backend);
    ir_grid_layout_free(&s->layout);
    be_cache_close(&s->cache);
    free(s->grids64);
    free(s->pre);
    free(s->prof);
    for (int r = 0; s->states && r < s->model->ir.nregimes; ++r) ir_state_layout_free(&s->states[r]);
    free(s->states);
    free(s);
}

/* The first period a regime is active (for messages). */
static int first_active(const ir_regime *r, int T)
{
    for (int t = 0; t < T; ++t)
        if (r->active[t]) return t;
    return 0;
}

/* The kernel of regime r whose table is the largest, which sizes the
 * regime's table (the first of equals; -1: none). */
static int sizing_kernel(const lcm_worker *w, int r)
{
    const ir_model *m = &w->model->ir;
    int best = -1;
    long long most = 0;
    for (int k = 0; k < m->nkernels; ++k) {
        long long n = ir_pre_reals(&w->pre[k], w->shard_hi - w->shard_lo);
        if (m->kernels[k].regime == r && w->pre[k].active && n > most) most = n, best = k;
    }
    return best;
}

/* Whether the worker makes tables at all: its backend runs them, and
 * LCM_NO_TABLES does not switch them off (an EGM regime's table is its
 * solver, not a shortcut: always there). */
static int makes_tables(const lcm_worker *w, int r)
{
    return w->backend->launch_table && (ir_is_egm(&w->model->ir.regimes[r]) || !base_env_switch("LCM_NO_TABLES"));
}

/* The continuation table of each regime whose kernels read one, as large
 * as the largest of one launch (the worker's block of the sharded states,
 * a chunk of the splayed ones); none without backend support or with
 * LCM_NO_TABLES set. */
long long solve_worker_table_entries(const lcm_worker *s, int r)
{
    lcm_assert(s && r >= 0 && r < s->model->ir.nregimes);
    int k = sizing_kernel(s, r);
    return makes_tables(s, r) && k >= 0 ? ir_pre_reals(&s->pre[k], s->shard_hi - s->shard_lo) : 0;
}

long long solve_worker_ev_entries(const lcm_worker *w, int r, long long subjects)
{
    lcm_assert(w && r >= 0 && r < w->model->ir.nregimes);
    const ir_model *m = &w->model->ir;
    long long most = 0;
    /* LCM_NO_TABLES sums inline in an EGM regime too, whose endogenous grid
     * is made regardless (the body reads the expected V where it is given) */
    if (!w->backend->launch_table || base_env_switch("LCM_NO_TABLES")) return 0;
    for (int k = 0; k < m->nkernels; ++k) {
        const ir_pre *p = &w->pre[k];
        int reads = subjects < 0 || ir_pre_sim_reads_ev(p, subjects);
        if (m->kernels[k].regime == r && reads && p->ev_entries > most) most = p->ev_entries;
    }
    return most;
}

long long solve_worker_stage_entries(const lcm_worker *w, int r, int s)
{
    lcm_assert(w && r >= 0 && r < w->model->ir.nregimes);
    lcm_assert(s >= 0 && s < LCM_MAX_STAGES);
    const ir_model *m = &w->model->ir;
    long long most = 0;
    for (int k = 0; k < m->nkernels && makes_tables(w, r); ++k) {
        const ir_elim *el = &w->pre[k].elim;
        if (m->kernels[k].regime != r || s >= el->nstages) continue;
        long long n = ir_shape_entries(&el->stage[s].shape, w->shard_hi - w->shard_lo);
        if (n > most) most = n;
    }
    return most;
}

const char *solve_worker_table_what(const lcm_worker *w, int r)
{
    int k = sizing_kernel(w, r);
    return k >= 0 && w->pre[k].egm ? "the endogenous grid" : "the continuation table";
}

const char *solve_worker_table_remedy(const lcm_worker *w, int r)
{
    int k = sizing_kernel(w, r);
    if (k >= 0 && w->pre[k].egm) return "fewer savings points make it smaller";
    return "splay a state it reads with batch_size, or set LCM_NO_TABLES=1 to compute it inline";
}

static int make_tables(lcm_worker *s, lcm_err *err)
{
    lcm_backend *be = s->backend;
    const ir_model *m = &s->model->ir;
    size_t rb = core_real_bytes(be->precision);
    for (int r = 0; r < m->nregimes; ++r) {
        long long ev = solve_worker_ev_entries(s, r, -1);
        if (ev > 0 && (ev > (long long)(SIZE_MAX / 2 / rb) || !(s->ev[r] = be->alloc(be, (size_t)ev * rb, err))))
            return base_fail_prefix(err, "model '%s': the expected next V of regime '%s' needs %.1f MiB (LCM_NO_TABLES=1 "
                                   "sums over the next points inline instead)", m->name, m->regimes[r].name,
                                   (double)ev * (double)rb / 1048576.0);
        for (int k = 0; k < LCM_MAX_STAGES; ++k) {
            double bytes = (double)(s->stage_cap[r][k] = solve_worker_stage_entries(s, r, k)) * (double)(rb + 1);
            if (bytes > 0 && (bytes > (double)SIZE_MAX / 2 || !(s->stages[r][k] = be->alloc(be, (size_t)bytes, err))))
                return base_fail_prefix(err, "model '%s': the table of stage %d of regime '%s' needs %.1f MiB (splay a "
                                       "state it reads with batch_size, or set LCM_NO_TABLES=1 to make a state's rows "
                                       "as it is solved)", m->name, k, m->regimes[r].name, bytes / 1048576.0);
        }
        if (!(s->table_cap[r] = solve_worker_table_entries(s, r))) continue;
        double bytes = (double)s->table_cap[r] * (double)(rb + 1);
        if (bytes > (double)SIZE_MAX / 2 || !(s->table[r] = be->alloc(be, (size_t)bytes, err)))
            return base_fail_prefix(err, "model '%s': %s of regime '%s' needs %.1f MiB (%s)", m->name,
                                   solve_worker_table_what(s, r), m->regimes[r].name, bytes / 1048576.0,
                                   solve_worker_table_remedy(s, r));
    }
    return 0;
}

static int make_buffers(lcm_worker *s, lcm_err *err)
{
    lcm_backend *be = s->backend;
    const ir_model *m = &s->model->ir;
    int R = m->nregimes, T = m->nperiods;
    size_t rb = core_real_bytes(be->precision);
    size_t fbytes = (size_t)(T * R) * sizeof(lcm_flags);
    s->F_host = be->alloc_host(be, fbytes, err);
    s->F_init = s->F_host ? be->alloc_host(be, fbytes, err) : NULL;
    s->F = s->F_init ? be->alloc(be, fbytes, err) : NULL;
    if (!s->F) return err->code;
    core_flags_clear(s->F_init, (size_t)(T * R));
    int rc = make_tables(s, err);
    if (rc || be->host_memory) return rc;
    /* device: two V buffers per regime (and marginal values of EGM
     * regimes), and pinned staging for the results */
    s->stage_off = base_xcalloc((size_t)(T * R) + 1, sizeof *s->stage_off);
    s->mstage_off = base_xcalloc((size_t)(T * R) + 1, sizeof *s->mstage_off);
    size_t total = 0;
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r) {
            size_t bytes = m->regimes[r].active[t] ? (size_t)ir_state_space_size(&m->regimes[r]) * rb : 0;
            s->stage_off[t * R + r] = total;
            total += bytes;
            s->mstage_off[t * R + r] = total;
            if (ir_marginal_state(&m->regimes[r]) >= 0) total += bytes;
        }
    s->stage_bytes = total;
    for (int r = 0; r < R; ++r) {
        const ir_regime *reg = &m->regimes[r];
        int active = 0;
        for (int t = 0; t < T; ++t) active |= reg->active[t];
        if (!active) continue;
        size_t bytes = (size_t)ir_state_space_size(reg) * rb;
        for (int k = 0; k < 2; ++k)
            if (!(s->vbuf[k][r] = be->alloc(be, bytes, err)) ||
                (ir_marginal_state(reg) >= 0 && !(s->mbuf[k][r] = be->alloc(be, bytes, err))))
                return base_fail_prefix(err, "model '%s', period %d: V of regime '%s' needs 2 x %.1f MiB on the device "
                                       "(a coarser state grid or --precision 32 needs less)", m->name,
                                       first_active(reg, T), reg->name, (double)bytes / 1048576.0);
    }
    s->stage = be->alloc_host(be, total + 1, err);
    if (!s->stage) return err->code;
    return 0;
}

/* The buffers of a solve (flags, device V), made once per worker and
 * reused; a failure leaves none.  A simulation's kept buffers go back
 * first: the solve's memory was checked when the worker was made, without
 * them. */
static int solve_buffers(lcm_worker *s, lcm_err *err)
{
    if (s->buffers_ready) return 0;
    sim_sim_buffers_free(s);
    int rc = make_buffers(s, err);
    if (rc) release_buffers(s);
    else s->buffers_ready = 1;
    return rc;
}

/* ---- backward induction ------------------------------------------------- */

/* Where V of (t, r) lives for the kernels. */
static void *v_at(const lcm_worker *w, const lcm_solution *sol, int t, int r)
{
    int R = w->model->ir.nregimes;
    return w->backend->host_memory ? sol->V[t * R + r] : w->vbuf[t % 2][r];
}

/* ... and its marginal value, where it keeps one (ir_marginal_state), else NULL. */
static void *m_at(const lcm_worker *w, const lcm_solution *sol, int t, int r)
{
    int R = w->model->ir.nregimes;
    if (ir_marginal_state(&w->model->ir.regimes[r]) < 0) return NULL;
    return w->backend->host_memory ? sol->M[t * R + r] : w->mbuf[t % 2][r];
}

/* Queues one launch of kernel k (pass table - 1 of its table, or with
 * table 0 its body); when profiling, between barriers and two stamps that
 * time it alone (after the periods' stamps 0..T). */
static int launch_one(lcm_worker *w, int table, int k, const lcm_kernel_args *a, lcm_index n, int queue, lcm_err *err)
{
    lcm_backend *be = w->backend;
    int stamp = w->model->ir.nperiods + 1 + 2 * w->nprof, rc = 0;
    if (w->profiling) {
        LCM_GROW(w->prof, w->prof_cap, (size_t)w->nprof + 1);
        w->prof[w->nprof++] = (struct lcm_profile_mark){k, table, stamp};
        rc = be->barrier(be, err);
        if (!rc) rc = be->stamp(be, stamp, err);
    }
    if (!rc) rc = table ? be->launch_table(be, k, table - 1, a, n, queue, err) : be->launch(be, k, a, n, queue, err);
    if (!rc && w->profiling) rc = be->barrier(be, err);
    if (!rc && w->profiling) rc = be->stamp(be, stamp + 1, err);
    return rc;
}

int solve_worker_table(lcm_worker *w, int k, const lcm_kernel_args *a, long long states, int first, int queue,
                     lcm_err *err)
{
    lcm_assert(w && a && k >= 0 && k < w->model->ir.nkernels);
    lcm_assert(states >= 0);
    const ir_pre *pre = &w->pre[k];
    int rc = 0, queued = 0;
    for (int pass = 0; pass < ir_pre_passes(pre) && !rc; ++pass) {
        ir_pass kind = ir_pre_pass(pre, pass);
        int given = kind == IR_PASS_EV      ? a->ev != NULL
                    : kind == IR_PASS_STAGE ? a->stage[ir_pre_pass_stage(pre, pass)] != NULL
                                            : a->cont != NULL;
        if (!given || !(first || ir_pre_per_chunk(pre, pass))) continue;
        if (queued++) rc = w->backend->barrier(w->backend, err); /* a pass reads the ones before */
        if (!rc) rc = launch_one(w, 1 + pass, k, a, ir_pre_launch(pre, pass, states), queue, err);
    }
    return rc;
}

/* Launches regime r's kernel of period t over the worker's block of its
 * sharded states, one launch per chunk of its splayed states. */
static int launch_regime(lcm_worker *w, lcm_kernel_args *a, int k, int r, lcm_err *err)
{
    const ir_state_layout *L = &w->states[r];
    long long lo = 0, hi = 1;
    if (L->sharded) lo = w->shard_lo, hi = w->shard_hi;
    if (hi <= lo) return 0; /* none of this regime's states are in the block */
    a->shard_lo = lo, a->shard_hi = hi;
    /* the tables, made before the first launch, and the continuation table
     * again before each launch when a state it reads is splayed */
    const ir_pre *pre = &w->pre[k];
    int table = pre->active && w->table[r];
    a->cont = table ? w->table[r] : NULL;
    a->cont_code = table ? (unsigned char *)w->table[r] + w->table_cap[r] * core_real_bytes(w->backend->precision) : NULL;
    a->ev = pre->ev ? w->ev[r] : NULL;
    size_t rb = core_real_bytes(w->backend->precision);
    int stages = pre->elim.nstages > 0; /* every stage's table, or none (the body makes its rows) */
    for (int k = 0; k < pre->elim.nstages; ++k) stages &= w->stages[r][k] != NULL;
    for (int k = 0; k < LCM_MAX_STAGES; ++k) {
        a->stage[k] = stages && k < pre->elim.nstages ? w->stages[r][k] : NULL;
        a->stage_code[k] = a->stage[k] ? (unsigned char *)a->stage[k] + w->stage_cap[r][k] * rb : NULL;
    }
    for (long long tile = 0, tiles = ir_layout_tiles(L); tile < tiles; ++tile) {
        ir_layout_tile(L, tile, a->chunk);
        int rc = solve_worker_table(w, k, a, hi - lo, tile == 0, r, err);
        if (!rc) rc = launch_one(w, 0, k, a, ir_layout_launch_size(L, hi - lo, a->chunk), r, err);
        if (rc) return rc;
    }
    return 0;
}

/* At level progress: how long period t took (stamps T - t - 1 to T - t). */
static void log_period(lcm_worker *w, int t)
{
    const ir_model *m = &w->model->ir;
    int T = m->nperiods;
    io_progress("solving '%s': period %d (age %g) in %.4f s", m->name, t, m->ages[t],
                 w->backend->stamp_seconds(w->backend, T - t - 1, T - t));
}

/* Tells the solve's progress callback that period t is done (LCM_E_CANCELLED
 * when it asks to stop): a device worker first waits for the period, whose
 * kernels were only queued. */
static int tell_period(lcm_worker *w, int t, lcm_err *err)
{
    int rc = w->backend->host_memory ? 0 : w->backend->finish(w->backend, err);
    return rc ? rc : solve_progress_tell(w->progress, t, err);
}

/* Queues the whole solve (host backends: runs it, reporting each period's
 * time as it goes when this is the only worker; telling the progress
 * callback of each period, when this worker tells it). */
static int queue_solve(lcm_worker *w, lcm_solution *sol, lcm_err *err)
{
    const ir_model *m = &w->model->ir;
    lcm_backend *be = w->backend;
    int R = m->nregimes, T = m->nperiods, root = R;
    size_t rb = core_real_bytes(be->precision);
    int rc = be->upload(be, w->P, w->P_host, (m->params_size + 1) * rb, root, err);
    if (!rc) rc = be->upload(be, w->grids, w->grids_host, (w->layout.total + 1) * rb, root, err);
    if (!rc) rc = be->upload(be, w->F, w->F_init, (size_t)(T * R) * sizeof(lcm_flags), root, err);
    if (!rc) rc = be->barrier(be, err);
    if (!rc) rc = be->stamp(be, 0, err);
    /* the only worker of a host backend reports each period as it is done */
    int checks = w->checks, live = be->host_memory && w->total == 1;
    for (int t = T - 1; t >= 0 && !rc; --t) {
        for (int r = 0; r < R && !rc; ++r) {
            if (!m->regimes[r].active[t]) continue;
            int k = m->period_kernel[r * T + t];
            const ir_kernel *kn = &m->kernels[k];
            lcm_kernel_args a;
            memset(&a, 0, sizeof a);
            a.params = w->P;
            a.grids = w->grids;
            for (int i = 0; i < kn->ntargets && t + 1 < T; ++i) {
                a.v_next[kn->targets[i]] = v_at(w, sol, t + 1, kn->targets[i]);
                a.m_next[kn->targets[i]] = m_at(w, sol, t + 1, kn->targets[i]);
            }
            a.v_out = v_at(w, sol, t, r);
            a.m_out = m_at(w, sol, t, r);
            a.flags = (lcm_flags *)w->F + (t * R + r);
            a.age = m->ages[t];
            a.period = t;
            a.checks = checks;
            rc = launch_regime(w, &a, k, r, err);
            lcm_index n = ir_state_space_size(&m->regimes[r]);
            if (!rc && !be->host_memory)
                rc = be->download(be, w->stage + w->stage_off[t * R + r], a.v_out, (size_t)n * rb, r, err);
            if (!rc && !be->host_memory && a.m_out)
                rc = be->download(be, w->stage + w->mstage_off[t * R + r], a.m_out, (size_t)n * rb, r, err);
        }
        if (!rc) rc = be->barrier(be, err);
        if (!rc) rc = be->stamp(be, T - t, err);
        if (!rc && live) log_period(w, t);
        if (!rc && w->progress) rc = tell_period(w, t, err);
    }
    return rc;
}

/* Device backends: the queued solve, recorded as a graph when possible
 * (and again when the checks were switched since it was recorded). */
static int run_device_solve(lcm_worker *w, lcm_err *err)
{
    lcm_backend *be = w->backend;
    int checks = w->checks;
    if (w->profiling) return queue_solve(w, NULL, err); /* its stamps are not in the graph */
    if (w->progress) return queue_solve(w, NULL, err);  /* a graph runs whole: no period to wait for */
    if (w->captured && w->captured_checks == checks) return be->replay(be, err);
    w->captured = 0;
    w->captured_checks = checks;
    if (be->capture_begin && w->stage_bytes <= GRAPH_STAGE_LIMIT && !base_env_switch("LCM_NO_GRAPHS")) {
        lcm_err graph_err = {0};
        int rc = be->capture_begin(be, &graph_err);
        if (!rc) rc = queue_solve(w, NULL, &graph_err);
        int rc2 = be->capture_end(be, rc ? NULL : &graph_err);
        if (!rc && !rc2) {
            w->captured = 1;
            return be->replay(be, err);
        }
        io_debug("recording the solve as a graph failed (%s); running it without", graph_err.msg);
    }
    return queue_solve(w, NULL, err);
}

int solve_worker_load(lcm_worker *w, const double *params, lcm_err *err)
{
    lcm_assert(w && (params || !w->model->ir.params_size));
    const ir_model *m = &w->model->ir;
    char why[512];
    int bad = ir_grid_buffer_fill(m, &w->layout, params, w->backend->precision == 32, w->grids64, why, sizeof why);
    if (bad) return base_fail(err, bad == 2 ? LCM_E_MODEL : LCM_E_PARAMS, "%s", why);
    solve_to_precision(params, m->params_size, w->backend->precision, w->P_host);
    solve_to_precision(w->grids64, w->layout.total, w->backend->precision, w->grids_host);
    return 0;
}

int solve_worker_start(lcm_worker *w, const double *params, lcm_solution **out, lcm_err *err)
{
    lcm_assert(w && out && (params || !w->model->ir.params_size));
    const ir_model *m = &w->model->ir;
    lcm_backend *be = w->backend;
    *out = NULL;
    int rc = solve_buffers(w, err);
    if (!rc) rc = solve_worker_load(w, params, err);
    if (rc) return rc;
    lcm_solution *sol = core_solution_alloc(m, be->precision, err);
    if (!sol) return err->code;
    memcpy(sol->grids, w->grids64, w->layout.total * sizeof *sol->grids);
    memcpy(sol->params, params, m->params_size * sizeof *sol->params);
    rc = be->host_memory ? queue_solve(w, sol, err) : run_device_solve(w, err);
    if (rc) {
        lcm_solution_free(sol);
        return rc;
    }
    *out = sol;
    return 0;
}

int solve_worker_finish(lcm_worker *w, lcm_solution *sol, lcm_err *err)
{
    lcm_assert(w && sol);
    const ir_model *m = &w->model->ir;
    lcm_backend *be = w->backend;
    int R = m->nregimes, T = m->nperiods, rc = 0;
    if (!be->host_memory) {
        rc = be->download(be, w->F_host, w->F, (size_t)(T * R) * sizeof(lcm_flags), R, err);
        if (!rc) rc = be->finish(be, err);
        size_t rb = core_real_bytes(be->precision);
        for (int t = 0; t < T && !rc; ++t)
            for (int r = 0; r < R; ++r) {
                if (sol->V[t * R + r])
                    memcpy(sol->V[t * R + r], w->stage + w->stage_off[t * R + r], (size_t)sol->n[r] * rb);
                if (sol->M[t * R + r])
                    memcpy(sol->M[t * R + r], w->stage + w->mstage_off[t * R + r], (size_t)sol->n[r] * rb);
            }
    }
    if (!rc) memcpy(sol->flags, be->host_memory ? (lcm_flags *)w->F : w->F_host, (size_t)(T * R) * sizeof *sol->flags);
    return rc;
}

/* Per-period times of a finished solve (what queue_solve printed live). */
void solve_worker_log_periods(lcm_worker *w)
{
    for (int t = w->model->ir.nperiods - 1; t >= 0; --t) log_period(w, t);
}
