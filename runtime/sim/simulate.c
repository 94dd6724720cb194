/* simulate.c - forward simulation of a panel (lcm.h: lcm_simulate).
 *
 * Batch after batch (`subject_batch_size` subjects in the backend's memory
 * at once), period after period.  A batch's subjects stay in the backend's
 * memory from its first period to its last: their states, regimes, start
 * periods and periods lived.  Each period, every regime active then steps
 * its subjects (its simulation kernel covers the batch and takes the rows
 * in that regime that have started: the solve kernel's body at the
 * subject's exact state, then the regime's step, templates/step.c.in), and
 * the record (templates/sim_record.h) writes the period's panel cells and
 * moves the subjects on.  Only the check flags come back each period.
 * Every draw is keyed by (seed, subject, period, purpose), so the panel
 * does not depend on the batch size or the backend.
 *
 * The panel's cells are (subject, period): a subject's periods are
 * consecutive, so the panel's order (by subject, then period) comes from
 * moving each column's cells down in place at the end.  A float64 host
 * backend records straight into the panel; the others record into cells
 * of their own, which come home into the panel at the end of the batch.
 * The host's per-subject work (initial states, staging, copies) runs on
 * the host threads.
 */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "comm.h"
#include "diagnose.h"
#include "grid.h"
#include "initial.h"
#include "layout.h"
#include "log.h"
#include "sim_memory.h"
#include "panel.h"
#include "process.h"
#include "random.h"
#include "simulate.h"
#include "solver_internal.h"

/* the record, in both precisions of the batch (sim_record.h) */
#define LCM_RECORD_REAL double
#define LCM_RECORD_FN record_row64
#include "sim_record.h"
#undef LCM_RECORD_REAL
#undef LCM_RECORD_FN
#define LCM_RECORD_REAL float
#define LCM_RECORD_FN record_row32
#include "sim_record.h"
#undef LCM_RECORD_REAL
#undef LCM_RECORD_FN

/* A check's report: the subject it names (-1: none) and the text. */
typedef struct sim_report {
    lcm_index subject;
    int t;
    char *text;
} sim_report;

typedef struct sim_run {
    lcm_solver *sv;
    lcm_worker *w;             /* the worker simulating now, and its backend */
    lcm_backend *be;
    const unsigned char *mine; /* [n]: the subjects of its block */
    const lcm_solution *sol;
    const ir_model *m;
    ir_vars V;
    int nstates;               /* the model's state slots (ir_vars), a subject's row of states */
    int nactions;              /* the actions' slots and the hidden choice slots (lcm_panel.nchoice) */
    int nperiods;              /* the model's periods */
    int t_first, t_last;       /* the periods stepped (all, but for sim_simulate_span) */
    int nregimes;              /* the model's regimes */
    int choice_slots;
    size_t real_bytes;         /* bytes per real (the solve's precision) */
    unsigned long long seed;
    lcm_index n;               /* subjects */
    lcm_index batch;           /* subjects per batch */
    lcm_index cap;             /* subjects the batch buffers hold (>= batch) */
    int na_cap;                /* ... and action slots per subject (>= nactions) */
    double held[2];            /* ... their host and backend bytes */
    /* every subject, on the host */
    double *x;                 /* [n * nstates] initial state values by slot (moved on in place by a float64
                                * host backend: its batch's states are these) */
    int *regime;               /* [n] start regime */
    const int *start;          /* [n] start period */
    int *len;                  /* [n] periods lived (from start, consecutive) */
    lcm_panel *p;              /* the columns, by cell (subject * nperiods + period) until compacted */
    int threads;               /* host threads */
    /* one batch in backend memory (d), host copies (h): states and next
     * states, V and the action of the period, next regimes, flags;
     * ints: [3 * cap + 1] regimes, starts, periods lived, the bad row (a
     * host backend: regimes and the bad row; it reads and writes the starts,
     * periods lived and float64 states of the host's subjects in place);
     * masks: has_state [nregimes * nstates], then active [(nperiods + 1) *
     * nregimes] (lcm_record_args);
     * the batch's panel cells where it does not record into the panel
     * (records_direct); a device's pinned staging (move_parts) */
    void *states_dev;          /* the batch's states by slot, [batch * nstates] reals */
    void *next_states_dev;     /* ... its next states, the same */
    void *val_d, *act_d;
    int *next_regimes_dev;     /* ... its next regimes, [batch] */
    int *panel_regimes_dev;    /* ... its panel cells' regimes, [batch * nperiods] (not records_direct) */
    int *bad_h, *ints_d;
    int *reg_d, *start_d, *len_d, *bad_d; /* the batch's: in ints_d, or a host backend's own (batch_in) */
    lcm_flags *F_h, *F_d, *F_init;
    unsigned char *masks_h, *masks_d;
    void *preal_d, *stage_h;
    void *vnext[IR_MAX_REGIMES];  /* device backends: V_{t+1} */
    void *mnext[IR_MAX_REGIMES];  /* ... and their marginal values where kept (ir_marginal_state) */
    void *egm[IR_MAX_REGIMES];    /* EGM regimes: the period's endogenous grid (ir/precompute.h) */
    long long egm_cap[IR_MAX_REGIMES]; /* ... its reals */
    void *ev[IR_MAX_REGIMES];     /* the period's expected next V (ir/precompute.h, "ev"), where planned */
    /* What the checks report does not depend on the batches or workers:
     * per period and kind of warning the lowest subject; the error (and
     * the snapshot) of the lowest subject that fails, at its first failing
     * period.  A batch that fails runs on to its last period, and no batch
     * starts past a subject that failed: then the error is that of the
     * lowest subject of all.  Warnings are printed at the end (below a
     * failed subject only, as a run of one batch would have printed). */
    sim_report *warnings;      /* [nwarnings = nperiods * kinds] by period and kind (sim_flag_text's order) */
    int nwarnings;
    sim_report failure;        /* subject -1: none yet */
    sim_report snap;           /* the lowest subject of an error-level check (a warning at --log-level warning) */
    double *phase;             /* seconds by part (panel.h: LCM_SIM_PHASES) */
    lcm_progress_run progress; /* the solver's progress callback, told of each period of each batch */
} sim_run;

const char *const lcm_sim_phase_names[LCM_SIM_PHASES] = {"buffers", "initial", "steps", "record",
                                                         "checks",  "home",    "compact"};

/* Adds the seconds since *t0 to part `phase` and restarts *t0. */
static void lap(const sim_run *s, int phase, double *t0)
{
    double now = base_now_seconds();
    s->phase[phase] += now - *t0;
    *t0 = now;
}

/* ---- buffers ---------------------------------------------------------------- */
/* Whether the batch records straight into the panel: a host backend in
 * float64 writes the panel's own cells (double) in host memory. */
static int records_direct(const sim_run *s) { return s->be->host_memory && s->real_bytes == 8; }

/* The reals of a panel cell besides its regime: value, states, actions. */
static size_t panel_reals(const sim_run *s) { return 1 + (size_t)s->nstates + (size_t)s->nactions; }

static void *dev(sim_run *s, size_t bytes, lcm_err *err) { return s->be->alloc(s->be, bytes + 8, err); }

/* One buffer of a simulation: where its pointer lives, whether this
 * backend uses it, its bytes for `cap` subjects per batch, and whether in
 * backend memory. */
typedef struct sim_buffer {
    void **at;
    int used;
    size_t bytes;
    int device;
} sim_buffer;
#define SIM_BUFFERS 15 /* buffer_list's entries */

/* Every buffer of a simulation.  The list and its `used` flags depend only
 * on the backend and the precision, which a worker keeps: exchange_buffers
 * and sim_sim_buffers_free rely on that (their sim_run has little else). */
static int buffer_list(sim_run *s, sim_buffer *list)
{
    size_t K = (size_t)s->cap, R = (size_t)s->nregimes, ns = (size_t)s->nstates, na = (size_t)s->nactions,
           T = (size_t)s->nperiods, rb = s->real_bytes, masks = R * ns + (T + 1) * R;
    int cells = !records_direct(s), dev = !s->be->host_memory, n = 0;
#define BUF(field, use, size, where) list[n++] = (sim_buffer){(void **)&s->field, (use), (size), (where)}
    BUF(bad_h, dev, sizeof(int), 0);
    BUF(masks_h, 1, masks, 0);
    BUF(F_h, 1, R * sizeof(lcm_flags), 0);
    BUF(F_init, 1, R * sizeof(lcm_flags), 0);
    BUF(stage_h, dev, 2 * LCM_SIM_STAGE_BYTES, 0);
    BUF(states_dev, dev || rb != 8, K * ns * rb, 1);
    BUF(next_states_dev, 1, K * ns * rb, 1);
    BUF(val_d, 1, K * rb, 1);
    BUF(act_d, 1, K * na * rb, 1);
    BUF(next_regimes_dev, 1, K * sizeof(int), 1);
    BUF(ints_d, 1, ((dev ? 3 : 1) * K + 1) * sizeof(int), 1);
    BUF(masks_d, 1, masks, 1);
    BUF(F_d, 1, R * sizeof(lcm_flags), 1);
    BUF(panel_regimes_dev, cells, K * T * sizeof(int), 1);
    BUF(preal_d, cells, K * T * panel_reals(s) * rb, 1);
#undef BUF
    lcm_assert(n == SIM_BUFFERS);
    return n;
}

/* What a device worker keeps between simulations: the buffers of the last
 * one, for up to `cap` subjects per batch. */
struct lcm_sim_buffers {
    lcm_index cap;
    int na_cap;
    double held[2];
    void *p[SIM_BUFFERS];
    void *vnext[IR_MAX_REGIMES], *mnext[IR_MAX_REGIMES], *egm[IR_MAX_REGIMES], *ev[IR_MAX_REGIMES];
    long long egm_cap[IR_MAX_REGIMES];
};

/* The buffers into s, or from s into the worker's keeping (keep = 1). */
static void exchange_buffers(sim_run *s, struct lcm_sim_buffers *b, int keep)
{
    sim_buffer list[SIM_BUFFERS];
    int n = buffer_list(s, list);
    for (int i = 0; i < n; ++i)
        if (keep) b->p[i] = *list[i].at;
        else *list[i].at = b->p[i];
    size_t regimes = (size_t)s->nregimes * sizeof(void *), caps = (size_t)s->nregimes * sizeof *s->egm_cap;
    if (keep) {
        b->cap = s->cap, b->na_cap = s->na_cap, b->held[0] = s->held[0], b->held[1] = s->held[1];
        memcpy(b->vnext, s->vnext, regimes), memcpy(b->mnext, s->mnext, regimes), memcpy(b->egm, s->egm, regimes);
        memcpy(b->ev, s->ev, regimes), memcpy(b->egm_cap, s->egm_cap, caps);
    } else {
        s->cap = b->cap, s->na_cap = b->na_cap, s->held[0] = b->held[0], s->held[1] = b->held[1];
        memcpy(s->vnext, b->vnext, regimes), memcpy(s->mnext, b->mnext, regimes), memcpy(s->egm, b->egm, regimes);
        memcpy(s->ev, b->ev, regimes), memcpy(s->egm_cap, b->egm_cap, caps);
    }
}

/* s holds no buffers (they were given back, or kept by its worker). */
static void forget_buffers(sim_run *s)
{
    sim_buffer list[SIM_BUFFERS];
    int n = buffer_list(s, list);
    for (int i = 0; i < n; ++i) *list[i].at = NULL;
    for (int r = 0; r < s->nregimes; ++r) s->vnext[r] = s->mnext[r] = s->egm[r] = s->ev[r] = NULL, s->egm_cap[r] = 0;
    s->cap = 0, s->na_cap = 0, s->held[0] = s->held[1] = 0;
}

/* Gives back the buffers s holds. */
static void release_batch(sim_run *s)
{
    lcm_backend *be = s->be;
    sim_buffer list[SIM_BUFFERS];
    int n = buffer_list(s, list);
    for (int i = 0; i < n; ++i)
        if (*list[i].at && list[i].used) {
            if (list[i].device) be->release(be, *list[i].at);
            else be->release_host(be, *list[i].at);
            *list[i].at = NULL;
        }
    for (int r = 0; r < s->nregimes; ++r) {
        if (s->vnext[r]) be->release(be, s->vnext[r]), s->vnext[r] = NULL;
        if (s->mnext[r]) be->release(be, s->mnext[r]), s->mnext[r] = NULL;
        if (s->egm[r]) be->release(be, s->egm[r]), s->egm[r] = NULL;
        if (s->ev[r]) be->release(be, s->ev[r]), s->ev[r] = NULL;
    }
}

void sim_sim_buffers_held(const lcm_worker *w, double *host, double *device)
{
    *host = w->sim ? w->sim->held[0] : 0;
    *device = w->sim ? w->sim->held[1] : 0;
}

void sim_sim_buffers_free(lcm_worker *w)
{
    if (!w->sim) return;
    sim_run s = {.be = w->backend, .nregimes = w->model->ir.nregimes, .real_bytes = core_real_bytes(w->backend->precision)};
    exchange_buffers(&s, w->sim, 0);
    release_batch(&s);
    free(w->sim), w->sim = NULL;
}

/* The batch buffers: the last simulation's where they hold `batch` subjects and
 * their action slots (a worker's backend, precision, V sizes and EGM
 * tables do not change; the hidden choice slots may), else new ones. */
static int make_batch_buffers(sim_run *s, lcm_err *err)
{
    lcm_backend *be = s->be;
    if (s->w->sim && s->w->sim->cap >= s->batch && s->w->sim->na_cap >= s->nactions) { /* s owns them now */
        exchange_buffers(s, s->w->sim, 0);
        free(s->w->sim), s->w->sim = NULL;
        core_flags_clear(s->F_init, (size_t)s->nregimes);
        return 0;
    }
    sim_sim_buffers_free(s->w);
    s->cap = s->batch, s->na_cap = s->nactions;
    sim_buffer list[SIM_BUFFERS];
    int n = buffer_list(s, list);
    for (int i = 0; i < n; ++i) {
        if (!list[i].used) continue;
        size_t bytes = list[i].bytes + 8;
        if (!(*list[i].at = list[i].device ? be->alloc(be, bytes, err) : be->alloc_host(be, bytes, err)))
            return base_fail_prefix(err, "simulating %lld subjects per batch (--subject-batch-size bounds it)",
                                   (long long)s->batch);
        s->held[list[i].device && !be->host_memory] += (double)bytes;
    }
    core_flags_clear(s->F_init, (size_t)s->nregimes);
    for (int r = 0; r < s->nregimes; ++r) { /* the endogenous grid of an EGM regime, as large as its largest period's */
        s->egm_cap[r] = ir_is_egm(&s->m->regimes[r]) ? solve_worker_table_entries(s->w, r) : 0;
        if (!s->egm_cap[r]) continue;
        if (!(s->egm[r] = dev(s, (size_t)s->egm_cap[r] * (s->real_bytes + 1), err))) return err->code;
        s->held[!be->host_memory] += (double)s->egm_cap[r] * (double)(s->real_bytes + 1);
    }
    for (int r = 0; r < s->nregimes; ++r) { /* the expected next V of a period, where a kernel of the regime reads one */
        long long ev = solve_worker_ev_entries(s->w, r, s->n);
        if (!ev) continue;
        if (!(s->ev[r] = dev(s, (size_t)ev * s->real_bytes, err))) return err->code;
        s->held[!be->host_memory] += (double)ev * (double)s->real_bytes;
    }
    if (!be->host_memory)
        for (int r = 0; r < s->nregimes; ++r) {
            int marginal = ir_marginal_state(&s->m->regimes[r]) >= 0;
            if (!(s->vnext[r] = dev(s, (size_t)s->sol->n[r] * s->real_bytes, err))) return err->code;
            if (marginal && !(s->mnext[r] = dev(s, (size_t)s->sol->n[r] * s->real_bytes, err))) return err->code;
            s->held[1] += (double)s->sol->n[r] * (double)s->real_bytes * (marginal ? 2 : 1);
        }
    return 0;
}

/* A device's batch buffers go back to the worker's keeping, for the next
 * simulation (pinned and device memory are slow to take); a host
 * backend's, and those of a failed simulation, are given back (the panel
 * takes more memory from here on: compact writes its subject and period
 * columns). */
static void free_batch(sim_run *s, int failed)
{
    if (failed || s->be->host_memory) release_batch(s);
    else {
        if (!s->w->sim) s->w->sim = base_xcalloc(1, sizeof *s->w->sim);
        exchange_buffers(s, s->w->sim, 1);
    }
    forget_buffers(s); /* the next worker starts with none */
}

/* What every worker shares: the subjects and the rows. */
static void free_shared(sim_run *s)
{
    free(s->x), free(s->regime), free(s->len);
    ir_vars_free(&s->V);
    for (int i = 0; s->warnings && i < s->nwarnings; ++i) free(s->warnings[i].text); /* what report_checks left */
    free(s->warnings), free(s->snap.text), free(s->failure.text);
}

/* ---- the start: initial states, processes drawn where not given ----------- */
static int initial_states(sim_run *s, const lcm_initial *ic, lcm_err *err)
{
    const ir_model *m = s->m;
    size_t ns = (size_t)s->nstates; /* = ic->nslots (check_initial) */
    s->x = base_xmalloc(((size_t)s->n * ns + 1) * sizeof *s->x);
    s->regime = base_xmalloc(((size_t)s->n + 1) * sizeof *s->regime);
    s->len = base_xcalloc((size_t)s->n + 1, sizeof *s->len);
    s->start = ic->period;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (lcm_index i = 0; i < s->n; ++i) {
        const ir_regime *r = &m->regimes[ic->regime[i]];
        s->regime[i] = r->id;
        memcpy(s->x + (size_t)i * ns, ic->x + (size_t)i * ns, ns * sizeof *s->x);
        for (int k = 0; k < r->nstates; ++k) {
            const ir_grid *g = &r->states[k].grid;
            int slot = s->V.state_slot[r->id][k];
            size_t at = (size_t)i * ns + (size_t)slot;
            if (g->kind != GRID_PROCESS || ic->given[at]) continue;
            double v[IR_PROCESS_MAX_PARAMS];
            for (int p = 0; p < g->nslots; ++p) v[p] = s->sol->params[m->params[g->slots[p]].offset];
            s->x[at] = lcm_process_initial(g->process, v, s->seed, (lcm_u64)i, LCM_DRAW_INITIAL + (lcm_u32)slot);
        }
    }
    return 0;
}

/* The arguments of period t's launches of kernel kn: parameters, grids,
 * its targets' V_{t+1} (and of EGM targets their marginal values), and an
 * EGM regime's endogenous grid of the period. */
static void period_args(const sim_run *s, const ir_kernel *kn, int t, lcm_kernel_args *a)
{
    int host = s->be->host_memory;
    memset(a, 0, sizeof *a);
    a->params = s->w->P;
    a->grids = s->w->grids;
    for (int i = 0; i < kn->ntargets && t + 1 < s->nperiods; ++i) {
        int g = kn->targets[i];
        a->v_next[g] = host ? s->sol->V[(t + 1) * s->nregimes + g] : s->vnext[g];
        a->m_next[g] = host ? s->sol->M[(t + 1) * s->nregimes + g] : s->mnext[g];
    }
    a->age = s->m->ages[t];
    a->period = t;
    a->checks = s->sv->checks != LCM_CHECKS_OFF;
    /* no continuation table here: a host's body keeps its state's row
     * (gen/emit.c, "the state's row"), unless tables are switched off */
    a->cont_lazy = !base_env_switch("LCM_NO_TABLES");
    int r = kn->regime;
    const ir_pre *pre = &s->w->pre[kn - s->m->kernels];
    if (s->egm[r] && pre->active) {
        a->cont = s->egm[r];
        a->cont_code = (unsigned char *)s->egm[r] + (size_t)s->egm_cap[r] * s->real_bytes;
    }
    if (ir_pre_sim_reads_ev(pre, s->n)) a->ev = s->ev[r];
}

/* The tables of period t the subjects read, for the batch: the endogenous
 * grid of every EGM regime active at t and every expected next V (the
 * same code as the solve's, from the solution's V_{t+1} and marginal
 * values); a continuation table is not made (the subjects sit between its
 * points). */
static int period_tables(sim_run *s, int t, lcm_err *err)
{
    int any = 0, rc = 0;
    for (int r = 0; r < s->nregimes && !rc; ++r) {
        if (!s->m->regimes[r].active[t]) continue;
        int k = s->m->period_kernel[r * s->nperiods + t];
        lcm_kernel_args a;
        period_args(s, &s->m->kernels[k], t, &a);
        if (!a.cont && !a.ev) continue;
        a.flags = s->F_d; /* the tables flag nothing */
        a.shard_lo = s->w->shard_lo, a.shard_hi = s->w->shard_hi; /* the rows of this worker's subjects */
        rc = solve_worker_table(s->w, k, &a, 1, 1, r, err);
        any = 1;
    }
    return !rc && any ? s->be->barrier(s->be, err) : rc;
}

/* V_{t+1} of every regime active then (and the marginal values of EGM
 * regimes), into the device (device backends). */
static int upload_vnext(sim_run *s, int t, lcm_err *err)
{
    if (s->be->host_memory || t + 1 >= s->nperiods) return 0;
    for (int g = 0; g < s->nregimes; ++g) {
        const void *V = s->sol->V[(t + 1) * s->nregimes + g], *M = s->sol->M[(t + 1) * s->nregimes + g];
        size_t bytes = (size_t)s->sol->n[g] * s->real_bytes;
        int rc = V ? s->be->upload(s->be, s->vnext[g], V, bytes, s->nregimes, err) : 0;
        if (!rc && M) rc = s->be->upload(s->be, s->mnext[g], M, bytes, s->nregimes, err);
        if (rc) return rc;
    }
    return s->be->barrier(s->be, err);
}

/* ---- a batch, period after period ---------------------------------------------- */

/* The regimes' state slots and activity (lcm_record_args), once per worker. */
static int upload_masks(sim_run *s, lcm_err *err)
{
    size_t R = (size_t)s->nregimes, ns = (size_t)s->nstates, T = (size_t)s->nperiods;
    memset(s->masks_h, 0, R * ns + (T + 1) * R);
    for (int r = 0; r < s->nregimes; ++r) {
        const ir_regime *reg = &s->m->regimes[r];
        for (int k = 0; k < reg->nstates; ++k) s->masks_h[(size_t)r * ns + (size_t)s->V.state_slot[r][k]] = 1;
        for (int t = 0; t < s->nperiods; ++t) s->masks_h[R * ns + (size_t)t * R + (size_t)r] = (unsigned char)reg->active[t];
    }
    return s->be->upload(s->be, s->masks_d, s->masks_h, R * ns + (T + 1) * R, s->nregimes, err);
}

/* ---- a batch's ways in and home ---------------------------------------------
 * A batch's arrays (one or more: `parts`) go between the backend and the
 * host in pieces.  A device's pieces pass through the two halves of the
 * pinned staging area: the host threads fill or empty one half while the
 * other is on its way.  A host backend's are read or written in place. */
typedef struct sim_part {
    void *dev;    /* the array in backend memory */
    size_t count; /* its elements */
    size_t width; /* bytes each */
    int what;     /* for the host's side (give_piece, take_piece) */
} sim_part;

enum { IN_STATES, IN_REGIMES, IN_STARTS, IN_ZEROS };      /* ways in */
/* ways home: the periods lived, then the cells' columns by number: 0 the
 * regime, 1 the value, 2 .. 1 + ns the states by slot, then the actions */
enum { HOME_LIVED = -1 };

/* Copies `bytes` on the host threads, in blocks of 1 MiB. */
static void copy_on_threads(const sim_run *s, void *to, const void *from, size_t bytes)
{
    const size_t block = (size_t)1 << 20, blocks = (bytes + block - 1) / block;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (size_t b = 0; b < blocks; ++b)
        memcpy((char *)to + b * block, (const char *)from + b * block, b + 1 < blocks ? block : bytes - b * block);
}

/* Elements [lo, hi) of way in `what` for the batch at b0, into `to`. */
static void give_piece(const sim_run *s, lcm_index b0, int what, size_t lo, size_t hi, void *to)
{
    const double *x = s->x + (size_t)b0 * (size_t)s->nstates;
    int *ints = to;
    float *f32 = to;
    switch (what) {
    case IN_STATES:
        if (s->real_bytes == 8) {
            copy_on_threads(s, to, x + lo, (hi - lo) * sizeof *x);
            break;
        }
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (size_t q = lo; q < hi; ++q) f32[q - lo] = (float)x[q];
        break;
    case IN_REGIMES:
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (size_t q = lo; q < hi; ++q) ints[q - lo] = s->mine[b0 + (lcm_index)q] ? s->regime[b0 + (lcm_index)q] : -1;
        break;
    case IN_STARTS: copy_on_threads(s, to, s->start + b0 + (lcm_index)lo, (hi - lo) * sizeof *s->start); break;
    default: memset(to, 0, (hi - lo) * sizeof(int));
    }
}

/* Elements [lo, hi) of way home `what` for the batch at b0, from `from`,
 * into the host's subjects or panel: only this worker's subjects (all_mine:
 * every subject of the batch is). */
static void take_piece(sim_run *s, lcm_index b0, int what, size_t lo, size_t hi, const void *from, int all_mine)
{
    lcm_panel *p = s->p;
    size_t T = (size_t)s->nperiods, ns = (size_t)s->nstates, per_row = what == HOME_LIVED ? 1 : T;
    void *to; /* the destination of element q is to[q] */
    if (what == HOME_LIVED) to = s->len + b0;
    else if (what == 0) to = p->regime + (size_t)b0 * T;
    else if (what == 1) to = p->value + (size_t)b0 * T;
    else if ((size_t)what < 2 + ns) to = p->x[what - 2] + (size_t)b0 * T;
    else to = p->act[(size_t)what - 2 - ns] + (size_t)b0 * T;
    int floats = what > 0 && s->real_bytes == 4; /* float32 reals become float64 */
    size_t width = what > 0 ? sizeof(double) : sizeof(int);
    if (all_mine && !floats) {
        copy_on_threads(s, (char *)to + lo * width, from, (hi - lo) * width);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (size_t q = lo; q < hi; ++q) {
        if (!all_mine && !s->mine[b0 + (lcm_index)(q / per_row)]) continue;
        if (floats) ((double *)to)[q] = (double)((const float *)from)[q - lo];
        else if (width == sizeof(double)) ((double *)to)[q] = ((const double *)from)[q - lo];
        else ((int *)to)[q] = ((const int *)from)[q - lo];
    }
}

/* Moves the parts in (home = 0) or home, piece by piece; a device's through
 * the staging, half k % 2 for piece k. */
static int move_parts(sim_run *s, lcm_index b0, const sim_part *parts, int nparts, int home, int all_mine,
                      lcm_err *err)
{
    lcm_backend *be = s->be;
    const size_t half = LCM_SIM_STAGE_BYTES;
    int rc = 0;
    if (be->host_memory) { /* in place */
        for (int k = 0; k < nparts; ++k)
            if (home) take_piece(s, b0, parts[k].what, 0, parts[k].count, parts[k].dev, all_mine);
            else give_piece(s, b0, parts[k].what, 0, parts[k].count, parts[k].dev);
        return 0;
    }
    /* the pieces in order: (part, lo, hi); piece k's half is k % 2 */
    size_t k = 0, prev_lo = 0, prev_hi = 0;
    int prev = -1;
    for (int c = 0; c <= nparts && !rc; ++c) {
        size_t count = c < nparts ? parts[c].count : 1, per = c < nparts ? half / parts[c].width : 1;
        for (size_t lo = 0; lo < count && !rc; lo += per, ++k) {
            size_t hi = c < nparts && lo + per < count ? lo + per : count;
            unsigned char *stage = (unsigned char *)s->stage_h + (k % 2) * half;
            if (!home && c < nparts) { /* in: fill this half, the previous piece still on its way; then send */
                give_piece(s, b0, parts[c].what, lo, hi, stage);
                rc = be->finish(be, err); /* the piece before is up: this half may go */
                if (!rc) rc = be->upload(be, (unsigned char *)parts[c].dev + lo * parts[c].width, stage,
                                         (hi - lo) * parts[c].width, s->nregimes, err);
            } else if (home) { /* home: ask for this piece, empty the half of the one before meanwhile */
                if (c < nparts)
                    rc = be->download(be, stage, (const unsigned char *)parts[c].dev + lo * parts[c].width,
                                      (hi - lo) * parts[c].width, s->nregimes, err);
                if (!rc && prev >= 0)
                    take_piece(s, b0, parts[prev].what, prev_lo, prev_hi,
                               (unsigned char *)s->stage_h + ((k + 1) % 2) * half, all_mine);
                if (!rc) rc = be->finish(be, err);
                prev = c < nparts ? c : -1, prev_lo = lo, prev_hi = hi;
            }
        }
    }
    return rc ? rc : be->finish(be, err);
}

/* The batch's subjects into the backend: states (in its precision),
 * regimes (-1 where not this worker's), starts, no periods lived, no bad
 * row.  A host backend's starts and periods lived are the host's own
 * arrays, and so are its float64 states. */
static int batch_in(sim_run *s, lcm_index b0, lcm_index bn, lcm_err *err)
{
    lcm_backend *be = s->be;
    size_t cap = (size_t)s->cap, ns = (size_t)s->nstates;
    int dev = !be->host_memory;
    s->reg_d = s->ints_d;
    s->start_d = dev ? s->ints_d + cap : (int *)s->start + b0; /* only read (lcm_record_args: const) */
    s->len_d = dev ? s->ints_d + 2 * cap : s->len + b0;
    s->bad_d = s->ints_d + (dev ? 3 : 1) * cap;
    if (!dev && s->real_bytes == 8) s->states_dev = s->x + (size_t)b0 * ns; /* in place (not in use: never given back) */
    sim_part parts[4] = {{s->reg_d, (size_t)bn, sizeof(int), IN_REGIMES}, {s->states_dev, (size_t)bn * ns, s->real_bytes, IN_STATES},
                         {s->start_d, (size_t)bn, sizeof(int), IN_STARTS}, {s->len_d, (size_t)bn, sizeof(int), IN_ZEROS}};
    int nparts = dev ? 4 : s->real_bytes == 8 ? 1 : 2, rc = move_parts(s, b0, parts, nparts, 0, 1, err);
    if (!dev) *s->bad_d = (int)bn;
    else if (!rc) { /* after move_parts' last wait: bad_h is free */
        *s->bad_h = (int)bn;
        rc = be->upload(be, s->bad_d, s->bad_h, sizeof(int), s->nregimes, err);
    }
    return rc;
}

/* The record's arguments for period t of the batch: its cells in the panel
 * itself (records_direct) or in the backend's own, column after column. */
static lcm_record_args record_args(const sim_run *s, lcm_index b0, lcm_index bn, int t)
{
    size_t R = (size_t)s->nregimes;
    lcm_record_args r = {.regime = s->reg_d, .start = s->start_d, .len = s->len_d, .bad_row = s->bad_d,
                         .regime_next = s->next_regimes_dev, .x = s->states_dev, .x_next = s->next_states_dev,
                         .value = s->val_d, .action = s->act_d, .has_state = s->masks_d,
                         .active_next = s->masks_d + R * (size_t)s->nstates + (size_t)(t + 1) * R, .n = bn, .period = t,
                         .nperiods = s->nperiods, .nstates = s->nstates, .nactions = s->nactions};
    if (records_direct(s)) {
        size_t first = (size_t)b0 * (size_t)s->nperiods;
        r.p_regime = s->p->regime + first, r.p_real = s->p->value + first, r.stride = s->p->stride;
    } else
        r.p_regime = s->panel_regimes_dev, r.p_real = s->preal_d, r.stride = bn * s->nperiods, r.fill = 1;
    return r;
}

/* The record of a host backend, on the host threads (a device backend
 * queues lcm_sim_record, the same text: sim_record.h). */
static void record_on_host(const sim_run *s, const lcm_record_args *r)
{
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (lcm_index row = 0; row < r->n; ++row)
        if (s->real_bytes == 8) record_row64(r, row);
        else record_row32(r, row);
}

/* ---- checks: failed ones explained at their first subject -------------------- */
static const struct {
    int bit, error;
    const char *what;
} sim_flag_text[] = {
    {LCM_FLAG_CE, 1, "the Epstein-Zin certainty equivalent has no value at the subject's state: next period's V "
                     "is negative where it is read, or the risk aversion is not a finite number"},
    {LCM_FLAG_TASTE_SCALE, 1, "the taste-shock scale is negative or not finite"},
    {LCM_FLAG_NAN, 1, "V is NaN at the subject's state (a feasible action has a NaN Q)"},
    {LCM_FLAG_INFEASIBLE, 0, "no action is feasible at the subject's state: its path ends here (value -inf); "
                             "the first such subject is shown"},
    {LCM_FLAG_REGIME_PROB, 1, "the regime transition probabilities at the chosen action are negative or do not "
                              "sum to 1"},
    {LCM_FLAG_STATE_PROB, 1, "Markov state transition probabilities at the chosen action are negative or do not sum "
                          "to 1"},
    {LCM_FLAG_INACTIVE, 1, "a regime that is inactive in the next period has a positive probability"},
    {LCM_FLAG_CODE, 1, "a deterministic transition gives a discrete state a value that is not one of its codes"},
};

/* A subject as a message shows it: its id, its regime and states in the
 * period (by the regime's state order: all of them, however many), the next
 * regime its step drew. */
typedef struct sim_subject {
    lcm_index i;
    int regime, next;
    double *x; /* [nstates of the regime] (fetch_subject allocates, the caller frees) */
} sim_subject;

/* Batch row `row` in period t, from its panel cell (written by the record). */
static int fetch_subject(sim_run *s, lcm_index b0, lcm_index bn, lcm_index row, int t, sim_subject *who, lcm_err *err)
{
    lcm_assert(s && who && bn > 0 && row >= 0 && row < bn);
    lcm_assert(t >= 0 && t < s->nperiods);
    lcm_backend *be = s->be;
    lcm_record_args r = record_args(s, b0, bn, t);
    size_t at = (size_t)row * (size_t)s->nperiods + (size_t)t;
    int ints[2];
    int rc = be->download(be, &ints[0], r.p_regime + at, sizeof(int), s->nregimes, err);
    if (!rc) rc = be->download(be, &ints[1], s->next_regimes_dev + row, sizeof(int), s->nregimes, err);
    if (!rc) rc = be->finish(be, err);
    if (rc) return rc;
    who->i = b0 + row, who->regime = ints[0], who->next = ints[1];
    lcm_assert(who->regime >= 0 && who->regime < s->nregimes);
    const ir_regime *reg = &s->m->regimes[who->regime];
    union {
        double d;
        float f;
    } *v = base_xcalloc((size_t)reg->nstates + 1, sizeof *v);
    who->x = base_xcalloc((size_t)reg->nstates + 1, sizeof *who->x);
    for (int k = 0; k < reg->nstates && !rc; ++k) {
        size_t slot = (size_t)s->V.state_slot[reg->id][k];
        rc = be->download(be, &v[k], (const unsigned char *)r.p_real + ((1 + slot) * (size_t)r.stride + at) * s->real_bytes,
                          s->real_bytes, s->nregimes, err);
    }
    if (!rc) rc = be->finish(be, err);
    for (int k = 0; k < reg->nstates && !rc; ++k) who->x[k] = s->real_bytes == 8 ? v[k].d : (double)v[k].f;
    free(v);
    return rc;
}

/* Keeps the report of `subject` in *r when it names a lower subject than
 * *r does (or *r none): text is taken over, or freed. */
static void keep_report(sim_report *r, lcm_index subject, int t, char *text)
{
    if (r->subject >= 0 && r->subject <= subject) {
        free(text);
        return;
    }
    free(r->text);
    *r = (sim_report){subject, t, text};
}

/* "subject 12, period 3 (age 50), regime 'working' at wealth=12.5" */
static void describe_subject(const sim_run *s, const sim_subject *who, int t, lcm_sb *out)
{
    const ir_regime *r = &s->m->regimes[who->regime];
    base_sb_printf(out, "subject %lld, period %d (age %g), regime '%s' at ", (long long)who->i, t, s->m->ages[t],
                  r->name);
    core_describe_values(r, who->x, out);
}

/* The failure of a subject that period t's step moved to a regime not
 * active in period t + 1. */
static void moved_to_inactive(sim_run *s, const sim_subject *who, int t)
{
    lcm_sb report;
    base_sb_init(&report);
    base_sb_puts(&report, "simulation: ");
    describe_subject(s, who, t, &report);
    base_sb_printf(&report, ": moved to regime '%s', which is not active in period %d", s->m->regimes[who->next].name,
                  t + 1);
    keep_report(&s->failure, who->i, t, base_sb_take(&report));
}

/* The batch's failed checks at period t, by the solver's policy (as in the
 * solve: nothing at off, warnings at warn, an error at raise), each explained by the interpreter at the first subject's state,
 * kept by keep_report (sim_run: "what the checks report"). */
static int check_flags(sim_run *s, lcm_index b0, lcm_index bn, int t, lcm_err *err)
{
    lcm_assert(s && b0 >= 0 && bn > 0 && t >= 0 && t < s->nperiods);
    lcm_check_policy mode = s->sv->checks;
    const int kinds = (int)(sizeof sim_flag_text / sizeof *sim_flag_text);
    for (int r = 0; r < s->nregimes && mode != LCM_CHECKS_OFF; ++r)
        for (int k = 0; k < kinds; ++k) {
            int bit = sim_flag_text[k].bit, raise = sim_flag_text[k].error && mode == LCM_CHECKS_RAISE;
            const lcm_flags *f = &s->F_h[r];
            if (!(f->bits & (1u << bit))) continue;
            lcm_index subject = b0 + f->first[bit];
            const sim_report *against = raise ? &s->failure : &s->warnings[t * kinds + k];
            int snap = sim_flag_text[k].error && (s->snap.subject < 0 || subject < s->snap.subject);
            if (!snap && against->subject >= 0 && against->subject <= subject) continue;
            sim_subject who = {.x = NULL};
            int rc = fetch_subject(s, b0, bn, f->first[bit], t, &who, err);
            if (rc) {
                free(who.x);
                return rc;
            }
            lcm_sb report, detail;
            base_sb_init(&report), base_sb_init(&detail);
            base_sb_puts(&report, "simulation: ");
            describe_subject(s, &who, t, &report);
            solve_diagnose_at(s->m, &s->sol->layout, s->sol->grids, s->sol->params, s->sol, t, who.regime, who.x, bit,
                            &detail);
            base_sb_printf(&report, ": %s%s", sim_flag_text[k].what, detail.s ? detail.s : "");
            if (snap) keep_report(&s->snap, subject, t, base_xstrdup(report.s));
            keep_report(raise ? &s->failure : &s->warnings[t * kinds + k], subject, t, base_sb_take(&report));
            base_sb_free(&report), base_sb_free(&detail);
            free(who.x);
        }
    return 0;
}

/* What the checks found (sim_run: "what the checks report"): the warnings,
 * by period and kind, then the snapshot and the error of the failure. */
static int report_checks(sim_run *s, lcm_err *err)
{
    lcm_index below = s->failure.subject >= 0 ? s->failure.subject : s->n;
    for (int i = 0; i < s->nwarnings; ++i) {
        if (s->warnings[i].subject >= 0 && s->warnings[i].subject < below) io_warn("%s", s->warnings[i].text);
        free(s->warnings[i].text);
    }
    free(s->warnings);
    s->warnings = NULL;
    if (s->snap.subject >= 0 && s->snap.subject <= below) {
        unsigned char *include = base_xcalloc((size_t)(s->nperiods * s->nregimes), 1);
        for (int g = 0; g < s->nregimes; ++g) {
            include[s->snap.t * s->nregimes + g] = 1;
            if (s->snap.t + 1 < s->nperiods) include[(s->snap.t + 1) * s->nregimes + g] = 1;
        }
        solve_solver_snapshot(s->sv, s->sol, include, s->snap.text);
        free(include);
    }
    int rc = s->failure.subject >= 0 ? base_fail(err, LCM_E_NUMERIC, "%s", s->failure.text) : 0;
    free(s->snap.text), free(s->failure.text);
    s->snap.text = s->failure.text = NULL;
    return rc;
}

/* One period of the batch: every regime active then steps its subjects,
 * the record moves them on; then the checks. */
static int batch_period(sim_run *s, lcm_index b0, lcm_index bn, int t, lcm_err *err)
{
    lcm_assert(s && b0 >= 0 && bn > 0 && b0 + bn <= s->n);
    lcm_assert(t >= 0 && t < s->nperiods);
    lcm_backend *be = s->be;
    const ir_model *m = s->m;
    size_t R = (size_t)s->nregimes;
    double t0 = base_now_seconds(), lap0 = t0;
    int rc = upload_vnext(s, t, err);
    if (!rc) rc = period_tables(s, t, err);
    if (!rc) rc = be->upload(be, s->F_d, s->F_init, R * sizeof(lcm_flags), s->nregimes, err);
    if (!rc) rc = be->barrier(be, err);
    /* Every living subject is in a regime active at t (initial.c checks the
     * start, the record refuses a move into an inactive one), so the steps
     * of the active regimes step every row that the record records. */
    for (int r = 0; r < s->nregimes && !rc; ++r) {
        if (!m->regimes[r].active[t]) continue;
        const ir_kernel *kn = &m->kernels[m->period_kernel[r * s->nperiods + t]];
        lcm_kernel_args a;
        period_args(s, kn, t, &a);
        a.flags = s->F_d + r;
        lcm_sim_args sim = {.regime = s->reg_d, .start = s->start_d, .regime_id = r,
                            .subject0 = (unsigned long long)b0, .x = s->states_dev, .x_next = s->next_states_dev, .value = s->val_d,
                            .action = s->act_d, .regime_next = s->next_regimes_dev, .seed = s->seed, .nstates = s->nstates,
                            .nactions = s->nactions, .ends = t + 1 == s->nperiods, .choice_slots = s->choice_slots};
        rc = be->launch_sim(be, (int)(kn - m->kernels), &a, &sim, bn, r, err);
    }
    if (!rc) rc = be->barrier(be, err);
    lcm_record_args rec = record_args(s, b0, bn, t);
    int device = be->launch_record != NULL; /* else the host threads record, after the steps */
    if (!rc && device) rc = be->launch_record(be, &rec, err);
    if (!rc && device) rc = be->barrier(be, err);
    if (!rc && device) rc = be->download(be, s->bad_h, s->bad_d, sizeof(int), s->nregimes, err);
    if (!rc) rc = be->download(be, s->F_h, s->F_d, R * sizeof(lcm_flags), s->nregimes, err);
    if (!rc) rc = be->finish(be, err);
    lap(s, LCM_SIM_STEPS, &lap0);
    if (!rc && !device) record_on_host(s, &rec);
    int bad = rc ? (int)bn : device ? *s->bad_h : *s->bad_d;
    lap(s, LCM_SIM_RECORD, &lap0);
    if (!rc) rc = check_flags(s, b0, bn, t, err);
    sim_subject who = {.x = NULL};
    if (!rc && bad < bn && (s->failure.subject < 0 || b0 + bad < s->failure.subject) &&
        !(rc = fetch_subject(s, b0, bn, bad, t, &who, err)))
        moved_to_inactive(s, &who, t);
    free(who.x);
    lap(s, LCM_SIM_CHECKS, &lap0);
    if (!rc)
        io_progress("simulating '%s': period %d (age %g), subjects %lld to %lld in %.4f s", m->name, t, m->ages[t],
                     (long long)b0, (long long)(b0 + bn - 1), base_now_seconds() - t0);
    s->progress.info.batch_first = b0, s->progress.info.batch_size = bn;
    if (!rc) rc = solve_progress_tell(&s->progress, t, err);
    return rc;
}

/* The batch's periods lived (a device's: a host backend counted in the
 * host's own) and its cells (unless recorded into the panel) home: only
 * this worker's subjects. */
static int batch_home(sim_run *s, lcm_index b0, lcm_index bn, lcm_err *err)
{
    lcm_panel *p = s->p;
    size_t T = (size_t)s->nperiods, cells = (size_t)bn * T, ns = (size_t)s->nstates;
    int all_mine = 1, nparts = 0;
    for (lcm_index row = 0; row < bn && all_mine; ++row) all_mine = s->mine[b0 + row];
    sim_part *parts = base_xcalloc(2 + panel_reals(s), sizeof *parts);
    if (!s->be->host_memory) parts[nparts++] = (sim_part){s->len_d, (size_t)bn, sizeof(int), HOME_LIVED};
    if (!records_direct(s)) {
        parts[nparts++] = (sim_part){s->panel_regimes_dev, cells, sizeof(int), 0};
        for (size_t c = 1; c <= panel_reals(s); ++c)
            parts[nparts++] = (sim_part){(unsigned char *)s->preal_d + (c - 1) * cells * s->real_bytes, cells, s->real_bytes, (int)c};
    }
    int rc = move_parts(s, b0, parts, nparts, 1, all_mine, err);
    free(parts);
    if (rc || records_direct(s) || s->real_bytes == 8) return rc;
    /* float32: a subject's first cell keeps its initial states as given, in
     * float64 (the host has them: what a float64 batch records) */
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (lcm_index row = 0; row < bn; ++row) {
        lcm_index i = b0 + row;
        if (!s->len[i] || !s->mine[i]) continue;
        size_t at = (size_t)i * T + (size_t)s->start[i];
        const ir_regime *r = &s->m->regimes[p->regime[at]];
        for (int k = 0; k < r->nstates; ++k) {
            size_t slot = (size_t)s->V.state_slot[r->id][k];
            p->x[slot][at] = s->x[(size_t)i * ns + slot];
        }
    }
    return 0;
}

/* Every batch of this worker. */
static int simulate_batches(sim_run *s, lcm_err *err)
{
    int rc = upload_masks(s, err);
    for (lcm_index b0 = 0; b0 < s->n && !rc; b0 += s->batch) {
        if (s->failure.subject >= 0 && b0 > s->failure.subject) break; /* its subjects come after the failure */
        lcm_index bn = s->n - b0 < s->batch ? s->n - b0 : s->batch;
        double lap0 = base_now_seconds();
        rc = batch_in(s, b0, bn, err);
        lap(s, LCM_SIM_STEPS, &lap0);
        for (int t = s->t_first; t <= s->t_last && !rc; ++t) rc = batch_period(s, b0, bn, t, err);
        lap0 = base_now_seconds();
        if (!rc && s->failure.subject < 0) rc = batch_home(s, b0, bn, err);
        lap(s, LCM_SIM_HOME, &lap0);
    }
    return rc;
}

/* Moves each subject's cells (subject * T + period) down to its rows:
 * rows start at the sum of the earlier subjects' lengths, never after its
 * cells, so each column moves in place, front to back (the columns on the
 * host threads); subject and period are written from the lengths. */
static void compact(sim_run *s)
{
    lcm_panel *p = s->p;
    size_t T = (size_t)s->nperiods, n = (size_t)s->n;
    lcm_index *first = base_xmalloc((n + 1) * sizeof *first);
    lcm_index rows = 0;
    for (size_t i = 0; i < n; ++i) first[i] = rows, rows += s->len[i];
    int ncols = 2 + s->nstates + s->nactions;
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (int c = 0; c < ncols; ++c) {
            if (rows == (lcm_index)(n * T)) continue; /* every cell lived: already in order */
            size_t width = c == 0 ? sizeof *p->regime : sizeof(double);
            char *col = c == 0 ? (char *)p->regime : c == 1 ? (char *)p->value
                        : c < 2 + s->nstates ? (char *)p->x[c - 2] : (char *)p->act[c - 2 - s->nstates];
            for (size_t i = 0; i < n; ++i) {
                size_t from = i * T + (size_t)s->start[i], to = (size_t)first[i];
                if (s->len[i] && from != to) memmove(col + to * width, col + from * width, s->len[i] * width);
            }
        }
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; ++i)
            for (int k = 0; k < s->len[i]; ++k) {
                p->subject[first[i] + k] = i;
                p->period[first[i] + k] = s->start[i] + k;
            }
    }
    free(first);
    sim_panel_truncate(p, rows);
}

static int check_inputs(const lcm_solver *sv, const lcm_solution *sol, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    int precision = lcm_solver_precision(sv);
    if (sol->m != m && (!sol->m->source_hash || !m->source_hash || strcmp(sol->m->source_hash, m->source_hash)))
        return base_fail(err, LCM_E_INPUT, "the solution was computed for another model (or another version of it)");
    if (sol->precision != precision)
        return base_fail(err, LCM_E_INPUT, "the solution is float%d but the solver computes in float%d; simulate with "
                        "--precision %d", sol->precision, precision, sol->precision);
    if (!sol->params) return base_fail(err, LCM_E_INPUT, "the solution does not carry its parameters");
    return 0;
}

/* Initial conditions read for this solver's model (or its twin: the same
 * generated code), whose subjects start in its regimes and periods: the
 * simulation indexes the model's tables by them. */
static int check_initial(const lcm_solver *sv, const lcm_initial *ic, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    const char *here = m->source_hash, *there = ic->source_hash;
    int bad = ic->nslots != sv->vars.nstates || (here && there && strcmp(here, there));
    for (lcm_index i = 0; i < ic->n && !bad; ++i)
        bad = ic->regime[i] < 0 || ic->regime[i] >= m->nregimes || ic->period[i] < 0 || ic->period[i] >= m->nperiods;
    if (bad)
        return base_fail(err, LCM_E_INPUT, "the initial conditions were read for another model (or another version "
                        "of it): read them with lcm_initial_read for this model");
    /* a state beyond float32's range would start as inf, and fail a check
     * of the solve's (exit 7) far from the file's value */
    if (lcm_solver_precision(sv) != 32) return 0;
    for (lcm_index i = 0; i < ic->n; ++i)
        for (int k = 0; k < ic->nslots; ++k) {
            double x = ic->x[(size_t)i * (size_t)ic->nslots + (size_t)k];
            if (isfinite(x) && !isfinite((float)x))
                return base_fail(err, LCM_E_INPUT, "the initial conditions: subject %lld: state '%s' is %g, beyond "
                                "float32's range (about 3.4e38): simulate with --precision 64", (long long)i,
                                sv->vars.state_names[k], x);
        }
    return 0;
}

/* The worker (among all of the job) whose block holds subject i: where its
 * sharded states put it (they never change), worker 0 for a subject in a
 * regime without them (which never reaches one with them). */
static int owner_of(const lcm_solver *sv, const lcm_initial *ic, lcm_index i)
{
    const ir_shard *S = &sv->shard;
    if (!ir_shard_regime(&sv->model->ir, S, ic->regime[i])) return 0;
    long long combo = ir_layout_combo_of_slots(S, ic->x + (size_t)i * (size_t)ic->nslots);
    return ir_shard_owner(S, combo, sv->total_workers);
}

/* One worker simulates its subjects, period by period, into the shared rows. */
static int simulate_worker(sim_run *s, lcm_err *err)
{
    const ir_model *m = s->m;
    lcm_worker *w = s->w;
    double lap0 = base_now_seconds();
    int rc = solve_worker_load(w, s->sol->params, err);
    if (!rc) rc = s->be->upload(s->be, w->P, w->P_host, (m->params_size + 1) * s->real_bytes, s->nregimes, err);
    if (!rc) rc = s->be->upload(s->be, w->grids, w->grids_host, (w->layout.total + 1) * s->real_bytes, s->nregimes, err);
    if (!rc) rc = make_batch_buffers(s, err);
    lap(s, LCM_SIM_BUFFERS, &lap0);
    if (!rc) rc = simulate_batches(s, err);
    lap0 = base_now_seconds();
    free_batch(s, rc != 0);
    lap(s, LCM_SIM_BUFFERS, &lap0);
    return rc;
}

/* ---- a sharded job: every rank's rows on rank 0 ---------------------------------- */
typedef struct row_ref {
    unsigned long long subject;
    int period;
    lcm_index at;
} row_ref;

static int by_subject_period(const void *a, const void *b)
{
    const row_ref *x = a, *y = b;
    if (x->subject != y->subject) return x->subject < y->subject ? -1 : 1;
    return (x->period > y->period) - (x->period < y->period);
}

/* Rank 0 gets the rows of every rank, in panel order; the others an empty panel. */
static int gather_panel(const ir_model *m, lcm_panel **p, lcm_err *err)
{
    if (core_comm_size() == 1) return 0;
    lcm_panel *mine = *p;
    size_t ns = (size_t)mine->vars.nstates, na = (size_t)(mine->vars.nactions + mine->nchoice); /* the hidden too */
    size_t row = sizeof(unsigned long long) + 2 * sizeof(int) + (1 + ns + na) * sizeof(double);
    char *buf = base_xcalloc((size_t)mine->n * row + 1, 1);
    for (lcm_index i = 0; i < mine->n; ++i) {
        char *at = buf + (size_t)i * row;
        memcpy(at, &mine->subject[i], 8), memcpy(at + 8, &mine->period[i], 4), memcpy(at + 12, &mine->regime[i], 4);
        memcpy(at + 16, &mine->value[i], 8);
        for (size_t q = 0; q < ns; ++q) memcpy(at + 24 + q * 8, &mine->x[q][i], 8);
        for (size_t q = 0; q < na; ++q) memcpy(at + 24 + (ns + q) * 8, &mine->act[q][i], 8);
    }
    void *all = NULL;
    size_t *sizes = base_xcalloc((size_t)core_comm_size(), sizeof *sizes);
    int rc = core_comm_gather(buf, (size_t)mine->n * row, &all, sizes, err);
    free(buf);
    if (!rc) {
        size_t total = 0;
        for (int k = 0; all && k < core_comm_size(); ++k) total += sizes[k] / row;
        row_ref *order = base_xcalloc(total + 1, sizeof *order);
        for (size_t i = 0; i < total; ++i) {
            const char *at = (const char *)all + i * row;
            memcpy(&order[i].subject, at, 8), memcpy(&order[i].period, at + 8, 4);
            order[i].at = (lcm_index)i;
        }
        qsort(order, total, sizeof *order, by_subject_period);
        lcm_panel *merged = sim_panel_new(m, mine->precision, (lcm_index)total, mine->nchoice);
        merged->threads = mine->threads;
        for (size_t i = 0; i < total; ++i) {
            const char *at = (const char *)all + (size_t)order[i].at * row;
            memcpy(&merged->subject[i], at, 8), memcpy(&merged->period[i], at + 8, 4);
            memcpy(&merged->regime[i], at + 12, 4), memcpy(&merged->value[i], at + 16, 8);
            for (size_t q = 0; q < ns; ++q) memcpy(&merged->x[q][i], at + 24 + q * 8, 8);
            for (size_t q = 0; q < na; ++q) memcpy(&merged->act[q][i], at + 24 + (ns + q) * 8, 8);
        }
        free(order);
        lcm_panel_free(mine);
        *p = merged;
    }
    free(all), free(sizes);
    return rc;
}

/* The options' own sense (NULL: the defaults): their targets name columns
 * of the model, and a batch holds some subjects or all (0). */
static int check_options(const lcm_solver *sv, const lcm_sim_options *opts, lcm_err *err)
{
    if (!opts) return 0;
    if (opts->subject_batch_size < 0)
        return base_fail(err, LCM_E_USAGE, "a subject batch size of %lld: give a positive number of subjects, or 0 "
                        "for all at once", (long long)opts->subject_batch_size);
    return sim_targets_check(&sv->model->ir, opts->targets, err);
}

int lcm_simulate_fits(const lcm_solver *sv, const lcm_initial *ic, const lcm_sim_options *opts, lcm_err *err)
{
    LCM_NEEDS(err, sv, ic);
    int rc = check_options(sv, opts, err);
    return rc ? rc : sim_memory_check_simulate(sv, ic->n, opts, 0, err);
}

/* lcm_simulate (again = 0) or lcm_simulate_again, into the memory of
 * `reuse` (an earlier panel, NULL: none), which it frees whatever happens. */
static int simulate(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic, const lcm_sim_options *opts,
                    int again, lcm_panel *reuse, int t_first, int t_last, lcm_panel **out, lcm_err *err)
{
    lcm_assert(sv && sol && ic && out); /* lcm_simulate, lcm_simulate_again: LCM_NEEDS */
    lcm_sim_options o = {0};
    if (opts) o = *opts;
    int rc = check_inputs(sv, sol, err);
    if (!rc) rc = check_initial(sv, ic, err);
    if (!rc) rc = check_options(sv, &o, err);
    if (!rc) rc = sim_memory_check_simulate(sv, ic->n, &o, sim_panel_bytes(reuse), err);
    rc = core_comm_agree(rc, err); /* an MPI job: every rank stops, or none */
    if (!rc) { /* each rank steps its share of rank 0's subjects, with rank 0's draws */
        unsigned char same[sizeof o.seed + sizeof ic->digest];
        memcpy(same, &o.seed, sizeof o.seed);
        memcpy(same + sizeof o.seed, ic->digest, sizeof ic->digest);
        rc = core_comm_agree(core_comm_same(same, sizeof same, "the seed or the subjects (initial conditions)", err),
                            err);
    }
    if (rc) {
        lcm_panel_free(reuse);
        return rc;
    }
    double t0 = base_now_seconds();
    const ir_model *m = &sv->model->ir;
    sim_run s = {.sv = sv, .sol = sol, .m = m, .nperiods = m->nperiods, .t_first = t_first, .t_last = t_last,
                 .nregimes = m->nregimes,
                 .real_bytes = core_real_bytes(lcm_solver_precision(sv)), .seed = o.seed, .n = ic->n};
    ir_vars_build(m, &s.V);
    sim_targets_shape(m, o.targets, &s.choice_slots);
    s.nstates = s.V.nstates, s.nactions = s.V.nactions + s.choice_slots;
    s.batch = o.subject_batch_size > 0 && o.subject_batch_size < s.n ? o.subject_batch_size : s.n;
    if (s.batch > INT_MAX) s.batch = INT_MAX; /* batch rows are ints (kernel_abi.h) */
    if (s.batch < 1) s.batch = 1;
    s.threads = base_host_threads(sv->threads);
    const int kinds = (int)(sizeof sim_flag_text / sizeof *sim_flag_text);
    s.nwarnings = s.nperiods * kinds;
    s.warnings = base_xcalloc((size_t)s.nwarnings, sizeof *s.warnings);
    for (int i = 0; i < s.nwarnings; ++i) s.warnings[i].subject = -1;
    s.failure.subject = s.snap.subject = -1;
    /* the columns by cell (subject * T + period), compacted into rows at the end */
    lcm_index cells = (lcm_index)((size_t)s.n * (size_t)s.nperiods);
    s.p = again ? sim_panel_renew(reuse, m, s.real_bytes == 4 ? 32 : 64, cells, s.choice_slots, o.targets && *o.targets)
                : sim_panel_new(m, s.real_bytes == 4 ? 32 : 64, cells, s.choice_slots);
    s.p->threads = sv->threads;
    double phase[LCM_SIM_PHASES] = {0}, lap0 = t0;
    s.phase = phase;
    /* every worker of this process steps every batch (of its own subjects) through every period */
    long long batches = (long long)((s.n + s.batch - 1) / s.batch);
    solve_progress_begin(&s.progress, sv->progress, sv->progress_user, LCM_PROGRESS_SIMULATE, m,
                       (long long)sv->nworkers * batches * (t_last - t_first + 1));
    s.progress.info.subjects = s.n;
    int *owner = base_xmalloc(((size_t)s.n + 1) * sizeof *owner);
    unsigned char *mine = base_xmalloc((size_t)s.n + 1);
#pragma omp parallel for schedule(static) num_threads(s.threads)
    for (lcm_index i = 0; i < s.n; ++i) owner[i] = owner_of(sv, ic, i);
    rc = initial_states(&s, ic, err);
    lap(&s, LCM_SIM_INITIAL, &lap0);
    for (int k = 0; k < sv->nworkers && !rc; ++k) {
        s.w = sv->workers[k], s.be = s.w->backend, s.mine = mine;
#pragma omp parallel for schedule(static) num_threads(s.threads)
        for (lcm_index i = 0; i < s.n; ++i) mine[i] = owner[i] == s.w->index;
        rc = simulate_worker(&s, err);
    }
    if (!rc) rc = report_checks(&s, err);
    rc = core_comm_agree(rc, err);
    lcm_panel *p = NULL;
    lap0 = base_now_seconds();
    if (!rc) compact(&s), p = s.p;
    else lcm_panel_free(s.p);
    lap(&s, LCM_SIM_COMPACT, &lap0);
    free(owner), free(mine);
    free_shared(&s);
    if (!rc) rc = gather_panel(m, &p, err);
    if (!rc && o.targets && *o.targets) rc = sim_panel_add_targets(p, sol, o.targets, err);
    if (rc) {
        lcm_panel_free(p);
        return rc;
    }
    p->seconds = base_now_seconds() - t0;
    memcpy(p->phase_seconds, phase, sizeof phase);
    io_progress("simulated %lld subjects of model '%s' on %s (float%d): %lld rows in %.3f s", (long long)s.n, m->name,
                 lcm_solver_backend(sv), lcm_solver_precision(sv), (long long)p->n, p->seconds);
    *out = p;
    return 0;
}

int lcm_simulate(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic, const lcm_sim_options *opts,
                 lcm_panel **out, lcm_err *err)
{
    LCM_NEEDS(err, sv, sol, ic, out);
    int rc = simulate(sv, sol, ic, opts, 0, NULL, 0, sv->model->ir.nperiods - 1, out, err);
    if (!rc) sim_panel_hold_model(*out, sv->model);
    return rc;
}

int sim_simulate_span(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic, int t_first, int t_last,
                      lcm_panel **out, lcm_err *err)
{
    lcm_assert(t_first >= 0 && t_first <= t_last && t_last < sv->model->ir.nperiods);
    return simulate(sv, sol, ic, NULL, 0, NULL, t_first, t_last, out, err);
}

int lcm_simulate_again(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic, const lcm_sim_options *opts,
                       lcm_panel **panel, lcm_err *err)
{
    LCM_NEEDS(err, sv, sol, ic, panel);
    lcm_panel *earlier = *panel;
    *panel = NULL;
    int rc = simulate(sv, sol, ic, opts, 1, earlier, 0, sv->model->ir.nperiods - 1, panel, err);
    if (!rc) sim_panel_hold_model(*panel, sv->model);
    return rc;
}
