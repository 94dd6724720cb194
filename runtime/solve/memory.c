/* memory.c - see memory.h.
 *
 * The figures follow what worker.c, solver.c and simulate.c allocate, the
 * large arrays only: V, the grid buffer, the continuation tables, the
 * subjects, the simulation's records and the panel (flags, parameters and
 * the process itself are small).  Sizes are multiplied in double: a model
 * with many axes has more states than a 64-bit count holds, and it must be
 * refused, not wrapped around into a small number.
 */
#define _GNU_SOURCE
#include "memory.h"

#include "comm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- what this process may allocate ------------------------------------------ */
typedef struct room {
    double bytes;
    char *what, *end; /* what bounds it (the caller's buffer) */
} room;

static void bound(room *r, double bytes, const char *what)
{
    if (!(bytes < r->bytes)) return;
    r->bytes = bytes > 0 ? bytes : 0;
    snprintf(r->what, (size_t)(r->end - r->what), "%s", what);
}

/* The first number of a file ("max": infinite); -1 when it cannot be read. */
static int read_value(const char *path, double *x)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[64] = "";
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    if (!strncmp(buf, "max", 3)) return *x = INFINITY, 0;
    char *end;
    *x = strtod(buf, &end);
    return end == buf ? -1 : 0;
}

/* The value of `key` in a memory.stat file (lines "key value"); -1 when
 * the file or the key is missing. */
static int read_stat(const char *path, const char *key, double *x)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    size_t k = strlen(key);
    int found = -1;
    while (found && fgets(line, sizeof line, f))
        if (!strncmp(line, key, k) && line[k] == ' ') *x = strtod(line + k + 1, NULL), found = 0;
    fclose(f);
    return found;
}

/* The usage counts the page cache, and the cache of a machine that has
 * just built or copied files fills it up to the limit: without taking off
 * the inactive file pages, which the kernel drops first when the limit is
 * near, room would seem gone that the kernel gives back on demand. */
double solve_cgroup_used(const char *stat_path, const char *key, double usage)
{
    double inactive;
    if (!read_stat(stat_path, key, &inactive) && inactive > 0 && inactive <= usage) usage -= inactive;
    return usage;
}

static void meminfo_bound(room *r)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "MemAvailable:", 13)) kib = strtod(line + 13, NULL);
    if (f) fclose(f);
    if (kib >= 0) bound(r, kib * 1024, "the memory available on this machine, MemAvailable");
    else bound(r, (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE),
               "the free memory of this machine");
}

/* cgroup v2: the limit of the process's cgroup and of every cgroup above it. */
static void cgroup2_bound(room *r, const char *path)
{
    char *dir = base_xstrdup(path);
    for (;;) {
        size_t len = strlen(dir);
        if (len > 0 && dir[len - 1] == '/') dir[--len] = 0;
        char *max = base_xasprintf("/sys/fs/cgroup%s/memory.max", dir), *cur = base_xasprintf("/sys/fs/cgroup%s/memory.current", dir),
             *stat = base_xasprintf("/sys/fs/cgroup%s/memory.stat", dir);
        double limit, used;
        if (!read_value(max, &limit) && isfinite(limit) && !read_value(cur, &used))
            bound(r, limit - solve_cgroup_used(stat, "inactive_file", used), "what the memory limit of its cgroup leaves");
        free(max), free(cur), free(stat);
        char *slash = strrchr(dir, '/');
        if (!slash) break;
        *slash = 0;
    }
    free(dir);
}

/* cgroup v1: the memory controller's limit of the process's cgroup. */
static void cgroup1_bound(room *r, const char *path)
{
    const char *dirs[] = {path, ""};
    for (int i = 0; i < 2; ++i) {
        char *max = base_xasprintf("/sys/fs/cgroup/memory%s/memory.limit_in_bytes", dirs[i]),
             *cur = base_xasprintf("/sys/fs/cgroup/memory%s/memory.usage_in_bytes", dirs[i]),
             *stat = base_xasprintf("/sys/fs/cgroup/memory%s/memory.stat", dirs[i]);
        double limit, used;
        int found = !read_value(max, &limit) && !read_value(cur, &used);
        if (found && limit < 0x1p60)
            bound(r, limit - solve_cgroup_used(stat, "total_inactive_file", used),
                  "what the memory limit of its cgroup leaves");
        free(max), free(cur), free(stat);
        if (found) break;
    }
}

static void cgroup_bound(room *r)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = *c2 = 0;
        char *controllers = c1 + 1, *path = c2 + 1, *save = NULL;
        if (!strcmp(line, "0") && !*controllers) cgroup2_bound(r, path);
        for (char *c = strtok_r(controllers, ",", &save); c; c = strtok_r(NULL, ",", &save))
            if (!strcmp(c, "memory")) cgroup1_bound(r, path);
    }
    if (f) fclose(f);
}

/* An rlimit less what the process already holds (field of /proc/self/statm). */
static void rlimit_bound(room *r, int resource, int field, const char *what)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
    double pages[7] = {0};
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        for (int i = 0; i < 7 && fscanf(f, "%lf", &pages[i]) == 1; ++i) {}
        fclose(f);
    }
    bound(r, (double)rl.rlim_cur - pages[field] * (double)sysconf(_SC_PAGESIZE), what);
}

int solve_host_memory_room(double *bytes, int *whole, char *what, size_t size, lcm_err *err)
{
    room r = {.bytes = INFINITY, .what = what, .end = what + size};
    snprintf(what, size, "no limit found");
    const char *env = getenv("LCM_MEMORY_LIMIT");
    *whole = env && *env;
    if (env && *env) {
        double x;
        if (base_parse_size(env, &x))
            return base_fail(err, LCM_E_USAGE, "LCM_MEMORY_LIMIT must be a size in bytes like 64G or 512M, not '%s'",
                            env);
        bound(&r, x, "LCM_MEMORY_LIMIT");
    } else {
        meminfo_bound(&r);
        cgroup_bound(&r);
        rlimit_bound(&r, RLIMIT_AS, 0, "the room left under the address-space limit, ulimit -v");
        rlimit_bound(&r, RLIMIT_DATA, 5, "the room left under the data size limit, ulimit -d");
    }
    *bytes = r.bytes;
    return 0;
}

/* ---- the lcm_bill ------------------------------------------------------------------ */
void solve_bill_add(lcm_bill *b, int side, double bytes, const char *fmt, ...)
{
    if (!(bytes > 0)) return;
    lcm_sb text;
    base_sb_init(&text);
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(&text, fmt, ap);
    va_end(ap);
    LCM_GROW(b->items, b->cap, b->n + 1);
    b->items[b->n++] = (lcm_bill_item){side, bytes, base_sb_take(&text)};
    b->total[side] += bytes;
}

void solve_bill_free(lcm_bill *b)
{
    for (size_t i = 0; i < b->n; ++i) free(b->items[i].text);
    free(b->items);
}

static void put_bytes(lcm_sb *b, double x)
{
    static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    int i = 0;
    while (x >= 1024 && i < 8) x /= 1024, ++i;
    if (i == 0) base_sb_printf(b, "%.0f bytes", x);
    else base_sb_printf(b, "%.1f %s", x, units[i]);
}

/* A count: whole below 1e15, else like 1.2e+21. */
void solve_put_count(lcm_sb *b, double x) { base_sb_printf(b, x < 1e15 ? "%.0f" : "%.3g", x); }

/* "1e+15 states: a 1000 x b 1000 x c 1000 points" */
static double describe_states(lcm_sb *b, const ir_regime *r)
{
    double n = 1;
    for (int i = 0; i < r->nstates; ++i) n *= r->states[i].grid.n;
    solve_put_count(b, n);
    base_sb_puts(b, n == 1 ? " state" : " states");
    int listed = 0;
    for (int i = 0; i < r->nstates; ++i)
        if (r->states[i].grid.n > 1)
            base_sb_printf(b, "%s%s %d", listed++ ? " x " : ": ", r->states[i].name, r->states[i].grid.n);
    if (listed) base_sb_puts(b, " points");
    return n;
}

/* The grid buffers: every continuous grid's points (and each process's
 * transition matrix), per_value bytes each over the copies, described by
 * the largest grid. */
static void bill_grids(lcm_bill *b, const ir_model *m, double total, int side, double per_value)
{
    double most = 0;
    const ir_regime *at = NULL;
    const ir_var *var = NULL;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        for (int i = 0; i <= R->nstates + R->nactions; ++i) { /* the states, the actions, EGM's savings */
            const ir_var *v = i < R->nstates ? &R->states[i]
                              : i < R->nstates + R->nactions ? &R->actions[i - R->nstates]
                                                            : &R->egm.savings;
            const ir_grid *g = &v->grid;
            double values = grid_is_discrete(g) ? 0 : g->n + (g->kind == GRID_PROCESS ? (double)g->n * g->n : 0);
            if (values > most) most = values, at = R, var = v;
        }
    }
    if (!var) return;
    lcm_sb what;
    base_sb_init(&what);
    base_sb_puts(&what, "the grid points (");
    solve_put_count(&what, total);
    base_sb_printf(&what, " values; the largest grid: %s of regime '%s', %d points",
                  var == &at->egm.savings ? "the savings (EGM)" : var->name, at->name, var->grid.n);
    if (var->grid.kind == GRID_PROCESS) base_sb_printf(&what, " and its %d x %d transition matrix", var->grid.n, var->grid.n);
    base_sb_puts(&what, ")");
    solve_bill_add(b, side, total * per_value, "%s", what.s);
    base_sb_free(&what);
}

static void bill_solve(lcm_bill *b, const lcm_worker *w, int workers)
{
    const ir_model *m = &w->model->ir;
    const lcm_backend *be = w->backend;
    int host = be->host_memory;
    double rb = (double)core_real_bytes(be->precision);
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        int periods = 0;
        for (int t = 0; t < m->nperiods; ++t) periods += R->active[t] != 0;
        if (!periods) continue;
        lcm_sb states;
        base_sb_init(&states);
        double n = describe_states(&states, R);
        /* each worker's solution holds V whole (solver.c, solve_workers): a
         * device's is filled whole from its staging copy; a host worker
         * writes only its block of a sharded regime (the rest of the pages
         * are never touched), which worker 0's solution then takes too */
        int sharded = ir_shard_regime(m, &w->shard, r);
        double copies = host && sharded && workers > 1 ? 2.0 - 1.0 / workers : (double)workers;
        const char *each = workers == 1 ? ""
                           : copies < workers ? ", its blocks (--devices) and then whole"
                                              : ", for each worker (--devices)";
        solve_bill_add(b, LCM_BILL_HOST, copies * (host ? 1 : 2) * n * rb * periods, "V of regime '%s' over %d period%s (%s)%s%s", R->name,
            periods, periods == 1 ? "" : "s", states.s, host ? "" : ", twice: the solution and its pinned staging copy",
            each);
        if (!host) solve_bill_add(b, LCM_BILL_DEVICE, 2 * n * rb, "V of regime '%s' for two periods (%s)", R->name, states.s);
        if (ir_marginal_state(R) >= 0) { /* the marginal value the endogenous grid method keeps: as V */
            solve_bill_add(b, LCM_BILL_HOST, copies * (host ? 1 : 2) * n * rb * periods, "the marginal value of regime '%s' over %d "
                "period%s (the endogenous grid method)%s", R->name, periods, periods == 1 ? "" : "s", each);
            if (!host) solve_bill_add(b, LCM_BILL_DEVICE, 2 * n * rb, "the marginal value of regime '%s' for two periods", R->name);
        }
        base_sb_free(&states);
        double entries = (double)solve_worker_table_entries(w, r);
        solve_bill_add(b, host ? LCM_BILL_HOST : LCM_BILL_DEVICE, (host ? workers : 1) * entries * (rb + 1), "%s of regime '%s' (%.0f %s; %s)%s",
            solve_worker_table_what(w, r), R->name, entries, ir_is_egm(R) ? "reals" : "entries",
            solve_worker_table_remedy(w, r), host && workers > 1 ? ", for each worker (--devices)" : "");
        for (int k = 0; k < LCM_MAX_STAGES; ++k) {
            double n = (double)solve_worker_stage_entries(w, r, k);
            solve_bill_add(b, host ? LCM_BILL_HOST : LCM_BILL_DEVICE, (host ? workers : 1) * n * (rb + 1), "the table of stage %d of regime '%s' "
                "(%.0f entries; splay a state it reads, or LCM_NO_TABLES=1 makes a state's rows as it is solved)%s", k,
                R->name, n, host && workers > 1 ? ", for each worker (--devices)" : "");
        }
        double ev = (double)solve_worker_ev_entries(w, r, -1);
        solve_bill_add(b, host ? LCM_BILL_HOST : LCM_BILL_DEVICE, (host ? workers : 1) * ev * rb, "the expected next V of regime '%s' (%.0f reals; "
            "LCM_NO_TABLES=1 sums over the next points inline instead)%s", R->name, ev,
            host && workers > 1 ? ", for each worker (--devices)" : "");
    }
    /* solver.c (combine_ranks): in a job of several ranks, rank 0 gathers
     * each sharded regime's V (and an EGM regime's marginal values), one
     * period's array at a time, into its solution (which is counted
     * above): the places of the regime's states (an index each), every
     * rank's values as they come, and its own block's copy */
    if (core_comm_size() > 1 && core_comm_rank() == 0) {
        double most = 0;
        for (int r = 0; r < m->nregimes; ++r)
            if (ir_shard_regime(m, &w->shard, r)) most = fmax(most, (double)ir_state_space_size(&m->regimes[r]));
        if (most > 0)
            solve_bill_add(b, LCM_BILL_HOST, most * (8 + 2 * rb), "the gathering of V from the other ranks (rank 0; the largest sharded "
                "regime, an array at a time)");
    }
    /* the worker's float64 buffer and its staged copy, the backend's copy
     * (host backends), the solution's float64 copy */
    double total = (double)w->layout.total;
    bill_grids(b, m, total, LCM_BILL_HOST, workers * (8 + rb + (host ? rb : 0) + 8));
    if (!host) bill_grids(b, m, total, LCM_BILL_DEVICE, rb);
}

/* ---- the verdict ------------------------------------------------------------------ */
static int by_bytes(const void *a, const void *b)
{
    double x = ((const lcm_bill_item *)a)->bytes, y = ((const lcm_bill_item *)b)->bytes;
    return (x < y) - (x > y);
}

/* The error: what is needed, what there is, and the items that make most
 * of it (largest first, up to three), then the advice. */
static int refuse(lcm_bill *b, int side, const char *doing, double room, const char *where, const char *advice,
                  lcm_err *err)
{
    qsort(b->items, b->n, sizeof *b->items, by_bytes);
    lcm_sb msg;
    base_sb_init(&msg);
    base_sb_printf(&msg, "%s needs about ", doing);
    put_bytes(&msg, b->total[side]);
    base_sb_printf(&msg, " of %s memory, more than the ", side == LCM_BILL_HOST ? "host" : "device");
    put_bytes(&msg, room);
    base_sb_printf(&msg, " %s: ", where);
    double shown = 0;
    int listed = 0;
    for (size_t i = 0; i < b->n && listed < 3 && shown < 0.9 * b->total[side]; ++i) {
        if (b->items[i].side != side) continue;
        base_sb_printf(&msg, "%s%s, ", listed++ ? "; " : "", b->items[i].text);
        put_bytes(&msg, b->items[i].bytes);
        shown += b->items[i].bytes;
    }
    base_sb_printf(&msg, ". %s", advice);
    int rc = base_fail(err, LCM_E_MEMORY, "%s", msg.s);
    base_sb_free(&msg);
    return rc;
}

int solve_bill_settle(lcm_bill *b, const char *doing, const lcm_backend *be, const char *host_advice,
                  const char *device_advice, lcm_err *err)
{
    double room;
    char what[160], where[300];
    int whole, rc = solve_host_memory_room(&room, &whole, what, sizeof what, err);
    if (rc) return rc;
    snprintf(where, sizeof where, "this process may use (%s)", what);
    if (!whole) room += b->held[LCM_BILL_HOST]; /* what it holds is room beside what is free, not beside a whole */
    if (b->total[LCM_BILL_HOST] > room) return refuse(b, LCM_BILL_HOST, doing, room, where, host_advice, err);
    size_t free_b = 0, total_b = 0;
    if (b->total[LCM_BILL_DEVICE] > 0 && be->memory_info && !be->memory_info((lcm_backend *)be, &free_b, &total_b) &&
        b->total[LCM_BILL_DEVICE] > (double)free_b + b->held[LCM_BILL_DEVICE]) {
        free_b += (size_t)b->held[LCM_BILL_DEVICE];
        lcm_sb at;
        base_sb_init(&at);
        base_sb_printf(&at, "free on %s (of ", be->target ? be->target : be->name);
        put_bytes(&at, (double)total_b);
        base_sb_puts(&at, ")");
        rc = refuse(b, LCM_BILL_DEVICE, doing, (double)free_b, at.s, device_advice, err);
        base_sb_free(&at);
    }
    return rc;
}

int solve_memory_check_solve(const lcm_worker *w, int workers, lcm_err *err)
{
    lcm_bill b = {0};
    bill_solve(&b, w, workers > 0 ? workers : 1);
    char doing[300];
    snprintf(doing, sizeof doing, "solving model '%s'", w->model->ir.name);
    int rc = solve_bill_settle(&b, doing, w->backend,
                    "A coarser grid, fewer periods or --precision 32 needs less (LCM_MEMORY_LIMIT sets the memory lcm "
                    "may use, docs/tuning.md)",
                    "A coarser grid or --precision 32 needs less (sharding does not divide V on a GPU, "
                    "docs/tuning.md)", err);
    solve_bill_free(&b);
    return rc;
}
