/* solver.c - solvers: the workers of this process (`--devices N`) and of
 * the MPI job, each solving its block of the sharded states (ir/shard.h)
 * with no communication during the solve; then their blocks are put
 * together (on rank 0 across ranks), their check flags reduced, and the
 * checks reported in solve order, by the solver's policy (lcm_solver_options.checks).
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "comm.h"
#include "cuda_api.h"
#include "diagnose.h"
#include "log.h"
#include "memory.h"  /* LCM_MEMORY_LIMIT checked with the options */
#include "message.h" /* base_escape_text */
#include "params.h"
#include "sha256.h"
#include "solver_internal.h"

/* ---- solvers ---------------------------------------------------------------- */
static void describe_layout(const lcm_solver *sv)
{
    const ir_model *m = &sv->model->ir;
    if (sv->total_workers == 1) return;
    if (!sv->shard.nsharded) {
        io_warn("%d workers, but model '%s' shards no state (distributed = true): each of them solves everything",
                 sv->total_workers, m->name);
        return;
    }
    lcm_sb names;
    base_sb_init(&names);
    for (int k = 0; k < sv->shard.nsharded; ++k)
        base_sb_printf(&names, "%s%s", k ? " x " : "", sv->vars.state_names[sv->shard.slot[k]]);
    long long lo, hi;
    ir_shard_block(&sv->shard, 0, sv->total_workers, &lo, &hi);
    io_progress("sharding model '%s' over %d workers (%d ranks x %d devices): %s = %lld values, %lld per worker",
                 m->name, sv->total_workers, core_comm_size(), sv->nworkers, names.s, sv->shard.combos, hi - lo);
    base_sb_free(&names);
}

/* ---- NCCL: the GPU workers' communicator ------------------------------------------ */
#ifdef LCM_HAVE_NCCL
/* Every GPU worker of the job joins one communicator, bootstrapped over
 * MPI (rank 0 makes the id): from then on they reduce their check flags on
 * the GPUs.  Without NCCL they do it on the host, which gives the same. */
static void join_nccl(lcm_solver *sv)
{
    lcm_backend *be = sv->workers[0]->backend;
    /* one worker has nobody to reduce with: no communicator (NCCL's start
     * costs time and memory) */
    if (!be->join || sv->total_workers < 2 || base_env_switch("LCM_NO_NCCL")) return;
    lcm_err err = {0};
    const lcm_nccl_api *nc = be_nccl(&err);
    const char *given = getenv("LCM_NCCL_LIBRARY");
    if (!nc && given && *given) io_warn("%s; the GPU workers reduce their checks on the host", err.msg);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    int ok = nc != NULL;
    if (ok && core_comm_rank() == 0) ok = nc->ncclGetUniqueId(&id) == ncclSuccess;
    if (core_comm_agree(ok ? 0 : 1, NULL) || core_comm_bcast(&id, sizeof id, &err)) {
        io_debug("the GPU workers reduce their checks on the host (%s)", err.msg[0] ? err.msg : "NCCL failed");
        return;
    }
    int rc = 0, version = 0;
    if (sv->nworkers > 1) nc->ncclGroupStart();
    for (int w = 0; w < sv->nworkers && !rc; ++w)
        rc = sv->workers[w]->backend->join(sv->workers[w]->backend, &id, sv->total_workers, sv->workers[w]->index, &err);
    if (sv->nworkers > 1 && nc->ncclGroupEnd() != ncclSuccess && !rc)
        rc = base_fail(&err, LCM_E_DEVICE, "ncclGroupEnd failed");
    if (core_comm_agree(rc, &err)) {
        io_warn("NCCL could not join the GPU workers (%s): their checks are reduced on the host", err.msg);
        return;
    }
    nc->ncclGetVersion(&version);
    sv->nccl = 1;
    io_progress("NCCL %d.%d.%d joins %d GPU worker(s)", version / 10000, version / 100 % 100, version % 100,
                 sv->total_workers);
}

/* The queued flags of every GPU worker, reduced to their minimum on the GPUs. */
static int nccl_flags(lcm_solver *sv, lcm_err *err)
{
    if (!sv->nccl) return 0;
    const ir_model *m = &sv->model->ir;
    size_t n = (size_t)(m->nperiods * m->nregimes) * sizeof(lcm_flags) / sizeof(long long);
    const lcm_nccl_api *nc = be_nccl(err);
    int rc = 0;
    if (sv->nworkers > 1) nc->ncclGroupStart();
    for (int w = 0; w < sv->nworkers && !rc; ++w)
        rc = sv->workers[w]->backend->allreduce_min_i64(sv->workers[w]->backend, sv->workers[w]->F, n, err);
    if (sv->nworkers > 1 && nc->ncclGroupEnd() != ncclSuccess && !rc)
        rc = base_fail(err, LCM_E_DEVICE, "NCCL: reducing the checks' flags failed (ncclGroupEnd)");
    return rc;
}
#else
static void join_nccl(lcm_solver *sv) { (void)sv; }
static int nccl_flags(lcm_solver *sv, lcm_err *err) { return (void)sv, (void)err, 0; }
#endif

/* OMP_NUM_THREADS, which sets the threads when the options leave them to
 * OpenMP (and those of the interp backend always): positive whole numbers (a list for nested levels), the first at
 * most LCM_MAX_THREADS.  OpenMP itself warns of a bad value without naming
 * it and runs on its default; a huge one lcm would cut silently. */
static int check_omp_threads(lcm_err *err)
{
    const char *v = getenv("OMP_NUM_THREADS");
    if (!v || !*v) return 0;
    long first = -1;
    for (const char *p = v;;) {
        char *end;
        long n = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;
        if (n <= 0 || (*end && *end != ',')) {
            first = -1;
            break;
        }
        if (first < 0) first = n;
        if (!*end) break;
        p = end + 1;
    }
    if (first > 0 && first <= LCM_MAX_THREADS) return 0;
    char *shown = base_escaped(v);
    int rc = base_fail(err, LCM_E_USAGE, "OMP_NUM_THREADS='%s': the number of threads must be a whole number from 1 to "
                      "%d (or unset it: all cores)", shown, LCM_MAX_THREADS);
    free(shown);
    return rc;
}

/* The options, defaults filled in and the backend chosen: 0 or a usage error. */
static int settle_options(lcm_solver_options *o, lcm_err *err)
{
    if (base_env_switches_check(err)) return err->code;
    if (check_omp_threads(err)) return err->code; /* also with --threads: interp and host work take OpenMP's own */
    double room;
    int whole;
    char what[128];
    if (solve_host_memory_room(&room, &whole, what, sizeof what, err)) return err->code; /* LCM_MEMORY_LIMIT, before a compile */
    if (!o->precision) o->precision = 64;
    if (o->precision != 64 && o->precision != 32)
        return base_fail(err, LCM_E_USAGE, "precision must be 64 or 32, not %d", o->precision);
    if ((int)o->backend < LCM_BACKEND_AUTO || (int)o->backend > LCM_BACKEND_INTERP)
        return base_fail(err, LCM_E_USAGE, "backend %d is not one of lcm_backend_kind", (int)o->backend);
    if (o->threads < 0 || o->threads > LCM_MAX_THREADS)
        return base_fail(err, LCM_E_USAGE, "threads must be 0 (all cores) to %d, not %d", LCM_MAX_THREADS, o->threads);
    o->backend = solve_choose_backend(o->backend);
    if (o->backend == LCM_BACKEND_INTERP && o->precision != 64)
        return base_fail(err, LCM_E_USAGE, "the interp backend computes in float64 only");
    if (o->devices < 0 || o->devices > 4096) return base_fail(err, LCM_E_USAGE, "devices must be 1 to 4096");
    if ((int)o->checks < LCM_CHECKS_DEFAULT || (int)o->checks > LCM_CHECKS_OFF)
        return base_fail(err, LCM_E_USAGE, "checks %d is not one of lcm_check_policy", (int)o->checks);
    if (o->checks == LCM_CHECKS_DEFAULT) o->checks = LCM_CHECKS_RAISE;
    return 0;
}

/* In an MPI job, whether every rank has the model (its generated source,
 * which holds the -D options) and the precision and workers per rank of
 * rank 0: ranks that differ would split and gather V by other layouts
 * (a crash, or a V that mixes two models, before this check).  A
 * collective, after the ranks agreed on their options. */
static int same_job(const lcm_model *model, const lcm_solver_options *o, lcm_err *err)
{
    if (core_comm_size() < 2) return 0; /* one rank: no hashing */
    lcm_sha256 h;
    base_sha256_init(&h);
    base_sha256_update(&h, model->source, strlen(model->source));
    int shape[2] = {o->precision, o->devices > 0 ? o->devices : 1};
    base_sha256_update(&h, shape, sizeof shape);
    char digest[65];
    base_sha256_hex_final(&h, digest);
    return core_comm_same(digest, sizeof digest, "the model (its file and -D options), the precision or the workers "
                         "(--devices)", err);
}

int lcm_solver_new(const lcm_model *model, const lcm_solver_options *opts, lcm_solver **out, lcm_err *err)
{
    LCM_NEEDS(err, model, out);
    lcm_solver_options o = {0};
    if (opts) o = *opts;
    int rc = core_comm_agree(settle_options(&o, err), err); /* every rank stops, or none */
    if (!rc) rc = core_comm_agree(same_job(model, &o, err), err);
    if (rc) return rc;
    lcm_solver *sv = base_xcalloc(1, sizeof *sv);
    sv->model = core_model_retain(model); /* the model lives as long as its solver */
    sv->nworkers = o.devices > 0 ? o.devices : 1;
    sv->total_workers = sv->nworkers * core_comm_size();
    sv->log_path = o.log_path && *o.log_path ? base_xstrdup(o.log_path) : NULL;
    sv->log_keep = o.log_keep > 0 ? o.log_keep : 3;
    sv->threads = o.threads > 0 ? o.threads : 0;
    sv->progress = o.progress, sv->progress_user = o.progress_user;
    sv->checks = o.checks;
    ir_vars_build(&model->ir, &sv->vars);
    ir_shard_build(&model->ir, &sv->vars, &sv->shard);
    sv->workers = base_xcalloc((size_t)sv->nworkers, sizeof *sv->workers);
    for (int w = 0; w < sv->nworkers && !rc; ++w) {
        int index = core_comm_rank() * sv->nworkers + w;
        int device = o.device + core_comm_local_rank() * sv->nworkers + w; /* one GPU per worker of a machine */
        rc = solve_worker_new(model, &o, &sv->shard, device, index, sv->total_workers, &sv->workers[w], err);
    }
    rc = core_comm_agree(rc, err); /* no rank goes on to NCCL or a solve without the others */
    if (rc) {
        lcm_solver_free(sv);
        return rc;
    }
    describe_layout(sv);
    join_nccl(sv);
    *out = sv;
    return 0;
}

void lcm_solver_free(lcm_solver *sv)
{
    if (!sv) return;
    for (int w = 0; w < sv->nworkers; ++w) solve_worker_free(sv->workers[w]);
    free(sv->workers);
    ir_vars_free(&sv->vars);
    free(sv->log_path);
    core_model_release(sv->model);
    free(sv);
}

/* lcm.h's getters: a NULL solver has nothing */
static const lcm_backend *first_backend(const lcm_solver *s) { return s->workers[0]->backend; }
const char *lcm_solver_backend(const lcm_solver *s) { return s ? first_backend(s)->name : NULL; }
int lcm_solver_precision(const lcm_solver *s) { return s ? first_backend(s)->precision : 0; }
int lcm_solver_compiled(const lcm_solver *s) { return s ? first_backend(s)->compiled : 0; }
double lcm_solver_compile_seconds(const lcm_solver *s) { return s ? first_backend(s)->compile_seconds : NAN; }

size_t lcm_solver_device_peak(const lcm_solver *s)
{
    size_t peak = 0;
    for (int w = 0; s && w < s->nworkers; ++w)
        if (s->workers[w]->backend->bytes_peak > peak) peak = s->workers[w]->backend->bytes_peak;
    return peak;
}

size_t lcm_solver_table_bytes(const lcm_solver *s)
{
    size_t most = 0;
    for (int w = 0; s && w < s->nworkers; ++w) {
        const lcm_worker *wk = s->workers[w];
        size_t bytes = 0;
        for (int r = 0; r < wk->model->ir.nregimes; ++r)
            bytes += (size_t)wk->table_cap[r] * (core_real_bytes(wk->backend->precision) + 1);
        if (bytes > most) most = bytes;
    }
    return most;
}

/* ---- putting the blocks together ------------------------------------------------ */

/* Where the states of the combined-index block [lo, hi) of a sharded
 * regime (its layout L) lie in its V, in the order the workers solve them
 * (*n of them). */
static lcm_index *block_states(const ir_state_layout *L, long long lo, long long hi, lcm_index *n)
{
    *n = ir_layout_launch_size(L, hi > lo ? hi - lo : 0, NULL);
    lcm_index *at = base_xcalloc((size_t)*n + 1, sizeof *at);
    for (lcm_index l = 0; l < *n; ++l) at[l] = ir_layout_state(L, lo, NULL, l);
    return at;
}

/* What a worker solves for each state, and a solve puts together: V, and
 * the marginal values of a regime that keeps them (an EGM regime's, which
 * a simulation reads as the solve did). */
#define SOLUTION_ARRAYS 2
static void **solution_array(const lcm_solution *sol, int k) { return k ? sol->M : sol->V; }

/* Copies worker w's block of every sharded regime from `from` into `to`. */
static void copy_block(const lcm_solver *sv, const lcm_worker *w, const lcm_solution *from, lcm_solution *to)
{
    const ir_model *m = &sv->model->ir;
    size_t rb = core_real_bytes(from->precision);
    for (int r = 0; r < m->nregimes; ++r) {
        if (!ir_shard_regime(m, &sv->shard, r)) continue;
        lcm_index n, *at = block_states(&w->states[r], w->shard_lo, w->shard_hi, &n);
        for (int t = 0; t < m->nperiods; ++t)
            for (int k = 0; k < SOLUTION_ARRAYS; ++k) {
                const char *src = solution_array(from, k)[t * m->nregimes + r];
                char *dst = solution_array(to, k)[t * m->nregimes + r];
                if (!src) continue;
                for (lcm_index l = 0; l < n; ++l) memcpy(dst + (size_t)at[l] * rb, src + (size_t)at[l] * rb, rb);
            }
        free(at);
    }
}

/* Minimum of the flags' first indices; a bit is set where one is. */
static void merge_flags(lcm_flags *into, const lcm_flags *from, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        for (int b = 0; b < LCM_NFLAGS; ++b)
            if (from[i].first[b] < into[i].first[b]) into[i].first[b] = from[i].first[b];
}

static void flags_bits(lcm_flags *f, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        f[i].bits = 0;
        for (int b = 0; b < LCM_NFLAGS; ++b)
            if (f[i].first[b] != INT64_MAX) f[i].bits |= 1u << b;
    }
}

/* Across MPI ranks: the flags reduced everywhere, the sharded regimes'
 * blocks (V and marginal values) gathered on rank 0. */
static int combine_ranks(const lcm_solver *sv, lcm_solution *sol, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    size_t nf = (size_t)(m->nperiods * m->nregimes);
    long long *first = base_xcalloc(nf * LCM_NFLAGS + 1, sizeof *first);
    for (size_t i = 0; i < nf; ++i)
        for (int b = 0; b < LCM_NFLAGS; ++b) first[i * LCM_NFLAGS + b] = sol->flags[i].first[b];
    int rc = core_comm_min_i64(first, nf * LCM_NFLAGS, err);
    for (size_t i = 0; i < nf && !rc; ++i)
        for (int b = 0; b < LCM_NFLAGS; ++b) sol->flags[i].first[b] = first[i * LCM_NFLAGS + b];
    free(first);
    if (rc || core_comm_size() == 1) return rc;
    /* this rank's workers hold one contiguous stretch of the combined
     * index; rank 0 puts every rank's stretch into place */
    int root = core_comm_rank() == 0;
    long long lo = sv->workers[0]->shard_lo, hi = sv->workers[sv->nworkers - 1]->shard_hi;
    long long from = root ? 0 : lo, to = root ? sv->shard.combos : hi;
    size_t rb = core_real_bytes(sol->precision), *sizes = base_xcalloc((size_t)core_comm_size(), sizeof *sizes);
    for (int r = 0; r < m->nregimes && !rc; ++r) {
        if (!ir_shard_regime(m, &sv->shard, r)) continue;
        const ir_state_layout *L = &sv->workers[0]->states[r];
        lcm_index per = L->per_combo, nall;
        lcm_index *at = block_states(L, from, to, &nall), *mine = at + (lo - from) * per;
        lcm_index n = ir_layout_launch_size(L, hi > lo ? hi - lo : 0, NULL);
        char *send = base_xcalloc((size_t)n * rb + 1, 1);
        for (int i = 0; i < m->nperiods * SOLUTION_ARRAYS && !rc; ++i) {
            /* V of each period, then its marginal values */
            char *X = solution_array(sol, i % SOLUTION_ARRAYS)[i / SOLUTION_ARRAYS * m->nregimes + r];
            if (!X) continue;
            for (lcm_index l = 0; l < n; ++l) memcpy(send + (size_t)l * rb, X + (size_t)mine[l] * rb, rb);
            void *all = NULL;
            rc = core_comm_gather(send, (size_t)n * rb, &all, sizes, err);
            if (!rc && all) {
                const char *part = all;
                for (int k = 0; k < core_comm_size(); ++k) {
                    long long klo, khi;
                    ir_shard_block(&sv->shard, k * sv->nworkers, sv->total_workers, &klo, &khi);
                    const lcm_index *theirs = at + klo * per;
                    for (lcm_index l = 0; l < (lcm_index)(sizes[k] / rb); ++l)
                        memcpy(X + (size_t)theirs[l] * rb, part + (size_t)l * rb, rb);
                    part += sizes[k];
                }
            }
            free(all);
        }
        free(send), free(at);
    }
    free(sizes);
    return rc;
}

/* ---- reports ------------------------------------------------------------------------ */
static const struct {
    int bit, error;
    const char *what;
} flag_text[] = {
    {LCM_FLAG_CE, 1, "the Epstein-Zin certainty equivalent has no value: next period's V is negative where it is "
                     "read, or the risk aversion is not a finite number"},
    {LCM_FLAG_TASTE_SCALE, 1, "the taste-shock scale is negative or not finite (V is NaN there)"},
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

/* What the checks of (t, r) found, by the solver's policy (sv->checks):
 * nothing at off; warnings at warn; at raise an error for the first
 * failing check of the error kind (warnings for the others).  The first
 * failure of a solve also writes a snapshot (--log-path). */
static int report_flags(const lcm_solver *sv, const lcm_solution *sol, int r_id, int t, int *snapped, lcm_err *err)
{
    if (core_comm_rank() != 0) { /* rank 0 holds the whole V and reports; the others only stop with it */
        const lcm_flags *f = &sol->flags[t * sv->model->ir.nregimes + r_id];
        for (size_t i = 0; i < sizeof flag_text / sizeof *flag_text; ++i)
            if (flag_text[i].error && (f->bits & (1u << flag_text[i].bit)) && sv->checks == LCM_CHECKS_RAISE)
                return base_fail(err, LCM_E_NUMERIC, "a check failed (rank 0 reports it)");
        return 0;
    }
    const ir_model *m = &sv->model->ir;
    const ir_regime *r = &m->regimes[r_id];
    const lcm_flags *f = &sol->flags[t * m->nregimes + r_id];
    lcm_check_policy mode = sv->checks;
    int rc = 0;
    for (size_t i = 0; i < sizeof flag_text / sizeof *flag_text && mode != LCM_CHECKS_OFF && !rc; ++i) {
        int bit = flag_text[i].bit, raise = flag_text[i].error && mode == LCM_CHECKS_RAISE;
        if (!(f->bits & (1u << bit))) continue;
        lcm_sb state, report;
        base_sb_init(&state), base_sb_init(&report);
        core_describe_state(r, f->first[bit], t, sol->grids, &sol->layout, &state);
        solve_diagnose(m, &sol->layout, sol->grids, sol->params, sol, t, r_id, f->first[bit], bit, &state);
        base_sb_printf(&report, "regime '%s', period %d (age %g): %s, first at %s", r->name, t, m->ages[t], flag_text[i].what,
                  state.s);
        if (flag_text[i].error && !*snapped) {
            /* V of the failing regime at t and of every regime at t + 1, which it read */
            unsigned char *include = base_xcalloc((size_t)(m->nperiods * m->nregimes), 1);
            include[t * m->nregimes + r_id] = 1;
            for (int g = 0; g < m->nregimes && t + 1 < m->nperiods; ++g) include[(t + 1) * m->nregimes + g] = 1;
            solve_solver_snapshot(sv, sol, include, report.s);
            free(include);
            *snapped = 1;
        }
        if (raise) rc = base_fail(err, LCM_E_NUMERIC, "%s", report.s);
        else io_warn("%s", report.s);
        base_sb_free(&state), base_sb_free(&report);
    }
    return rc;
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
            base_sb_init(&extra);
            if (neg_inf) base_sb_printf(&extra, ", %lld at -inf", (long long)neg_inf);
            if (pos_inf) base_sb_printf(&extra, ", %lld at +inf", (long long)pos_inf);
            if (nan) base_sb_printf(&extra, ", %lld NaN", (long long)nan);
            if (finite)
                io_debug("period %d (age %g), regime '%s': V min %.6g, max %.6g, mean %.6g over %lld states%s", t,
                          m->ages[t], m->regimes[r].name, lo, hi, sum / (double)finite, (long long)n,
                          extra.s ? extra.s : "");
            else
                io_debug("period %d (age %g), regime '%s': no finite V among %lld states%s", t, m->ages[t],
                          m->regimes[r].name, (long long)n, extra.s ? extra.s : "");
            base_sb_free(&extra);
        }
}

/* ---- the solve ------------------------------------------------------------------------ */

/* Whether the workers of this process tell the progress callback of each
 * period as they solve it: those of a host backend, which solve one after
 * the other, and a device worker alone (it then waits for each period).
 * Several device workers solve at once, all started before any is waited
 * for: their periods are told when all are done. */
static int tells_live(const lcm_solver *sv) { return sv->workers[0]->backend->host_memory || sv->nworkers == 1; }

/* Every worker's block, put together in sols[0]; the others freed. */
static int solve_workers(lcm_solver *sv, const double *params, lcm_solution **out, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    lcm_solution **sols = base_xcalloc((size_t)sv->nworkers, sizeof *sols);
    int rc = 0, live = tells_live(sv);
    lcm_progress_run run;
    /* live, each worker's periods are steps of their own */
    solve_progress_begin(&run, sv->progress, sv->progress_user, LCM_PROGRESS_SOLVE, m,
                       (long long)m->nperiods * (live ? sv->nworkers : 1));
    for (int w = 0; w < sv->nworkers; ++w) sv->workers[w]->progress = live && run.fn ? &run : NULL;
    /* device workers run at the same time: all are started before any is waited for */
    for (int w = 0; w < sv->nworkers && !rc; ++w) rc = solve_worker_start(sv->workers[w], params, &sols[w], err);
    for (int w = 0; w < sv->nworkers; ++w) sv->workers[w]->progress = NULL; /* run lives no longer */
    if (sv->nccl) rc = core_comm_agree(rc, err); /* NCCL's reduction needs every worker of the job */
    if (!rc) rc = nccl_flags(sv, err);
    for (int w = 0; w < sv->nworkers && !rc; ++w) rc = solve_worker_finish(sv->workers[w], sols[w], err);
    for (int t = m->nperiods - 1; t >= 0 && !rc && !live; --t) rc = solve_progress_tell(&run, t, err);
    for (int w = 1; w < sv->nworkers && !rc; ++w) {
        copy_block(sv, sv->workers[w], sols[w], sols[0]);
        merge_flags(sols[0]->flags, sols[w]->flags, (size_t)(m->nperiods * m->nregimes));
    }
    for (int w = 1; w < sv->nworkers; ++w) lcm_solution_free(sols[w]);
    if (rc) lcm_solution_free(sols[0]);
    else *out = sols[0];
    free(sols);
    return rc;
}

int lcm_solve_resolved(lcm_solver *sv, const double *params, lcm_solution **out, lcm_err *err)
{
    LCM_NEEDS(err, sv, params, out);
    const ir_model *m = &sv->model->ir;
    double t0 = base_now_seconds();
    lcm_solution *sol = NULL;
    /* every rank solves with rank 0's parameters, or none */
    int rc = core_comm_agree(core_params_check_buffer(m, params, err), err);
    if (!rc) rc = core_comm_agree(core_comm_same(params, m->params_size * sizeof *params, "the parameters", err), err);
    if (rc) return rc;
    rc = core_comm_agree(solve_workers(sv, params, &sol, err), err);
    if (!rc) rc = core_comm_agree(combine_ranks(sv, sol, err), err);
    if (rc) {
        lcm_solution_free(sol);
        return rc;
    }
    sol->shards = sv->total_workers;
    flags_bits(sol->flags, (size_t)(m->nperiods * m->nregimes));
    lcm_worker *w0 = sv->workers[0];
    if (sv->total_workers > 1 || !w0->backend->host_memory) solve_worker_log_periods(w0);
    int snapped = 0;
    for (int t = m->nperiods - 1; t >= 0 && !rc; --t)
        for (int r = 0; r < m->nregimes && !rc; ++r)
            if (m->regimes[r].active[t]) rc = report_flags(sv, sol, r, t, &snapped, err);
    if (rc) {
        lcm_solution_free(sol);
        return rc;
    }
    sol->seconds = base_now_seconds() - t0;
    const lcm_backend *be = w0->backend;
    io_progress("solved model '%s' on %s (float%d) in %.3f s", m->name, be->name, be->precision, sol->seconds);
    if (!be->host_memory)
        io_progress("peak device memory %.2f MiB (V buffers, parameters, grids, flags)",
                     (double)lcm_solver_device_peak(sv) / 1048576.0);
    if (lcm_get_log_level() >= LCM_LOG_DEBUG && core_comm_rank() == 0) log_v_stats(sol);
    sol->owner = core_model_retain(sv->model); /* the model lives as long as its solutions */
    *out = sol;
    return 0;
}

int solve_solver_profile_passes(lcm_solver *sv, const lcm_pvalue *params, double *seconds, double *pass_seconds,
                              lcm_err *err)
{
    LCM_NEEDS(err, sv, params, seconds, pass_seconds);
    const ir_model *m = &sv->model->ir;
    if (sv->total_workers != 1)
        return base_fail(err, LCM_E_USAGE, "profiling times the kernels of one worker; this solver has %d",
                        sv->total_workers);
    lcm_worker *w = sv->workers[0];
    lcm_backend *be = w->backend;
    w->profiling = 1, w->nprof = 0;
    lcm_solution *sol = NULL;
    int rc = lcm_solve(sv, params, &sol, err); /* solve_worker_finish waited for the stamps */
    w->profiling = 0;
    lcm_solution_free(sol);
    for (int k = 0; k < m->nkernels; ++k) {
        seconds[k] = 0;
        for (int i = 0; i < LCM_TABLE_PASSES; ++i) pass_seconds[k * LCM_TABLE_PASSES + i] = 0;
    }
    for (int i = 0; i < w->nprof && !rc; ++i) {
        const struct lcm_profile_mark *p = &w->prof[i];
        double s = be->stamp_seconds(be, p->stamp, p->stamp + 1);
        if (p->table) pass_seconds[p->kernel * LCM_TABLE_PASSES + p->table - 1] += s;
        else seconds[p->kernel] += s;
    }
    return rc;
}

int lcm_solver_profile(lcm_solver *sv, const lcm_pvalue *params, double *seconds, double *table_seconds, lcm_err *err)
{
    LCM_NEEDS(err, sv, params, seconds, table_seconds);
    int K = sv->model->ir.nkernels;
    double *passes = base_xcalloc((size_t)K * LCM_TABLE_PASSES + 1, sizeof *passes);
    int rc = solve_solver_profile_passes(sv, params, seconds, passes, err);
    for (int k = 0; k < K; ++k) {
        table_seconds[k] = 0;
        for (int i = 0; i < LCM_TABLE_PASSES; ++i) table_seconds[k] += passes[k * LCM_TABLE_PASSES + i];
    }
    free(passes);
    return rc;
}

int lcm_solve(lcm_solver *sv, const lcm_pvalue *params, lcm_solution **out, lcm_err *err)
{
    LCM_NEEDS(err, sv, params, out);
    const ir_model *m = &sv->model->ir;
    double *buf = base_xcalloc(m->params_size + 1, sizeof *buf);
    int rc = core_params_resolve(m, params, buf, err);
    if (!rc) rc = lcm_solve_resolved(sv, buf, out, err);
    free(buf);
    return rc;
}

void solve_solver_snapshot(const lcm_solver *sv, const lcm_solution *sol, const unsigned char *include,
                         const char *report)
{
    lcm_snapshot_place at = {.log_path = sv->log_path, .log_keep = sv->log_keep, .m = &sv->model->ir,
                             .manifest = sv->model->manifest, .source = sv->model->source,
                             .backend = lcm_solver_backend(sv), .precision = lcm_solver_precision(sv)};
    solve_snapshot_write(&at, sol, sol->params, include, report);
}
