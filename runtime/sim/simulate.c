/* simulate.c - forward simulation of a panel (lcm.h: lcm_simulate).
 *
 * Period by period, batch by batch: the subjects of a batch that live in
 * this period are grouped by regime, and each regime's simulation kernel
 * (the solve kernel's body at the subject's exact state, then the
 * regime's step: templates/step.c.in) gives their value, action, next
 * regime and next states.  V_{t+1} is uploaded once per period; a batch
 * holds `subject_batch_size` subjects in the backend's memory.  Every
 * draw is keyed by (seed, subject, period, purpose), so the panel does not
 * depend on the batch size or the backend (up to float rounding).
 *
 * The host keeps every subject's state and the panel's columns.  Each
 * period's results go straight into the columns at the cell (subject,
 * period); a subject's periods are consecutive, so the panel's order (by
 * subject, then period) comes from moving each column's cells down in
 * place at the end.  Every per-subject step on the host (drawing initial
 * states, grouping by regime, recording) runs on the host threads; a host
 * backend (cpu, interp) reads and writes the batch in place, without copies.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "diagnose.h"
#include "grid.h"
#include "memory.h"
#include "panel.h"
#include "process.h"
#include "random.h"
#include "solver_internal.h"

typedef struct sim_run {
    lcm_solver *sv;
    lcm_worker *w;             /* the worker simulating now, and its backend */
    lcm_backend *be;
    const unsigned char *mine; /* [n]: the subjects of its block */
    const lcm_solution *sol;
    const ir_model *m;
    ir_vars V;
    int ns, na, T, R;
    size_t rb;                 /* bytes per real */
    unsigned long long seed;
    lcm_index n, K;            /* subjects, subjects per batch */
    /* every subject, on the host */
    double *x;                 /* [n * ns] current state values by slot */
    int *regime;               /* [n] current regime, -1 when its path has ended */
    const int *start;          /* [n] start period */
    int *len;                  /* [n] periods lived so far (from start, consecutive) */
    lcm_panel *p;              /* the columns, by cell (subject * T + period) until compacted */
    int threads;               /* host threads */
    /* one batch: host staging (h) and backend memory (d); a host backend's
     * d is its h (x_h: only float32 stages the states) */
    int *rows_h, *rows_d, *rn_h, *rn_d;
    void *x_h, *x_d, *xn_h, *xn_d, *val_h, *val_d, *act_h, *act_d;
    lcm_flags *F_h, *F_d, *F_init;
    void *vnext[IR_MAX_REGIMES];  /* device backends: V_{t+1} */
    void *mnext[IR_MAX_REGIMES];  /* ... and their marginal values where kept (ir_marginal_state) */
    void *egm[IR_MAX_REGIMES];    /* EGM regimes: the period's endogenous grid (ir/precompute.h) */
    long long egm_cap[IR_MAX_REGIMES]; /* ... its reals */
    unsigned *warned;          /* [T]: the flag kinds already reported per period */
    int snapped;               /* a snapshot was written */
} sim_run;

/* ---- reals in the backend's precision ------------------------------------ */
static double rget(const sim_run *s, const void *a, size_t i)
{
    return s->rb == 4 ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

static void rset(const sim_run *s, void *a, size_t i, double x)
{
    if (s->rb == 4) ((float *)a)[i] = (float)x;
    else ((double *)a)[i] = x;
}

/* ---- buffers ---------------------------------------------------------------- */
static void *host(sim_run *s, size_t bytes, lcm_err *err) { return s->be->alloc_host(s->be, bytes + 8, err); }
static void *dev(sim_run *s, size_t bytes, lcm_err *err) { return s->be->alloc(s->be, bytes + 8, err); }

#define NBUF_H 8
#define NBUF_D 7
static void batch_pointers(sim_run *s, void ***h, void ***d)
{
    void **hh[NBUF_H] = {(void **)&s->rows_h, (void **)&s->rn_h, &s->x_h, &s->xn_h, &s->val_h, &s->act_h,
                         (void **)&s->F_h, (void **)&s->F_init};
    void **dd[NBUF_D] = {(void **)&s->rows_d, (void **)&s->rn_d, &s->x_d, &s->xn_d, &s->val_d, &s->act_d,
                         (void **)&s->F_d};
    memcpy(h, hh, sizeof hh), memcpy(d, dd, sizeof dd);
}

static int make_batch_buffers(sim_run *s, lcm_err *err)
{
    size_t K = (size_t)s->K, R = (size_t)s->R;
    void **h[NBUF_H], **d[NBUF_D];
    batch_pointers(s, h, d);
    int host_mem = s->be->host_memory;
    size_t bytes[] = {K * sizeof(int), K * sizeof(int), s->rb == 8 ? 0 : K * (size_t)s->ns * s->rb,
                      K * (size_t)s->ns * s->rb, K * s->rb, K * (size_t)s->na * s->rb, R * sizeof(lcm_flags),
                      R * sizeof(lcm_flags)};
    for (size_t i = 0; i < NBUF_H; ++i)
        if ((bytes[i] || i != 2) && !(*h[i] = host(s, bytes[i], err))) return err->code;
    for (size_t i = 0; i < NBUF_D; ++i) {
        if (host_mem) {
            *d[i] = *h[i]; /* runs in place: x_d is set per batch */
            continue;
        }
        if (!(*d[i] = dev(s, i == 2 ? K * (size_t)s->ns * s->rb : bytes[i], err)))
            return lcm_fail_prefix(err, "simulating %lld subjects per batch (--subject-batch-size bounds it)",
                                   (long long)s->K);
    }
    lcm_flags_clear(s->F_init, (size_t)s->R);
    for (int r = 0; r < s->R; ++r) /* the endogenous grid of an EGM regime, as large as its largest period's */
        if ((s->egm_cap[r] = ir_is_egm(&s->m->regimes[r]) ? lcm_worker_table_entries(s->w, r) : 0) &&
            !(s->egm[r] = dev(s, (size_t)s->egm_cap[r] * (s->rb + 1), err)))
            return err->code;
    if (host_mem) return 0;
    for (int r = 0; r < s->R; ++r) {
        if (!(s->vnext[r] = dev(s, (size_t)s->sol->n[r] * s->rb, err))) return err->code;
        if (ir_marginal_state(&s->m->regimes[r]) >= 0 && !(s->mnext[r] = dev(s, (size_t)s->sol->n[r] * s->rb, err)))
            return err->code;
    }
    return 0;
}

/* The batch buffers of the current worker. */
static void free_batch(sim_run *s)
{
    lcm_backend *be = s->be;
    void **h[NBUF_H], **d[NBUF_D];
    batch_pointers(s, h, d);
    if (!be->host_memory) {
        for (size_t i = 0; i < NBUF_D; ++i)
            if (*d[i]) be->release(be, *d[i]);
    }
    for (size_t i = 0; i < NBUF_D; ++i) *d[i] = NULL;
    for (size_t i = 0; i < NBUF_H; ++i)
        if (*h[i]) be->release_host(be, *h[i]), *h[i] = NULL;
    for (int r = 0; r < s->R; ++r) {
        if (s->vnext[r]) be->release(be, s->vnext[r]), s->vnext[r] = NULL;
        if (s->mnext[r]) be->release(be, s->mnext[r]), s->mnext[r] = NULL;
        if (s->egm[r]) be->release(be, s->egm[r]), s->egm[r] = NULL;
    }
}

/* What every worker shares: the subjects and the rows. */
static void free_shared(sim_run *s)
{
    free(s->x), free(s->regime), free(s->len), free(s->warned);
    ir_vars_free(&s->V);
}

/* ---- the start: initial states, processes drawn where not given ----------- */
static int initial_states(sim_run *s, const lcm_initial *ic, lcm_err *err)
{
    const ir_model *m = s->m;
    if (ic->nslots != s->ns) return lcm_fail(err, LCM_E_INPUT, "the initial conditions were read for another model");
    size_t ns = (size_t)s->ns;
    s->x = lcm_xmalloc(((size_t)s->n * ns + 1) * sizeof *s->x);
    s->regime = lcm_xmalloc(((size_t)s->n + 1) * sizeof *s->regime);
    s->len = lcm_xcalloc((size_t)s->n + 1, sizeof *s->len);
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

/* ---- one batch at one period ---------------------------------------------- */
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

/* "subject 12, period 3 (age 50), regime 'working' at wealth=12.5" */
static void describe_subject(const sim_run *s, lcm_index i, int t, lcm_sb *out)
{
    const ir_regime *r = &s->m->regimes[s->regime[i]];
    double x[64];
    const double *row = s->x + (size_t)i * (size_t)s->ns;
    for (int k = 0; k < r->nstates && k < 64; ++k) x[k] = row[s->V.state_slot[r->id][k]];
    lcm_sb_printf(out, "subject %lld, period %d (age %g), regime '%s' at ", (long long)i, t, s->m->ages[t], r->name);
    lcm_describe_values(r, x, out);
}

/* The batch's failed checks at period t, by the level's policy (as in the
 * solve: nothing at off, warnings at warning and progress, an error at
 * debug), each explained by the interpreter at the first subject's state;
 * a warning once per period and kind, a snapshot at the first failure. */
static int check_flags(sim_run *s, lcm_index b0, int t, lcm_err *err)
{
    lcm_checks mode = lcm_checks_mode();
    for (int r = 0; r < s->R && mode != LCM_CHECKS_OFF; ++r)
        for (size_t k = 0; k < sizeof sim_flag_text / sizeof *sim_flag_text; ++k) {
            int bit = sim_flag_text[k].bit, raise = sim_flag_text[k].error && mode == LCM_CHECKS_RAISE;
            const lcm_flags *f = &s->F_h[r];
            if (!(f->bits & (1u << bit)) || (!raise && (s->warned[t] & (1u << bit)))) continue;
            lcm_index i = b0 + f->first[bit];
            lcm_sb report, detail;
            lcm_sb_init(&report), lcm_sb_init(&detail);
            describe_subject(s, i, t, &report);
            double x[64];
            const ir_regime *reg = &s->m->regimes[s->regime[i]];
            for (int q = 0; q < reg->nstates && q < 64; ++q)
                x[q] = s->x[(size_t)i * (size_t)s->ns + (size_t)s->V.state_slot[reg->id][q]];
            lcm_diagnose_at(s->m, &s->sol->layout, s->sol->grids, s->sol->params, s->sol, t, reg->id, x, bit, &detail);
            lcm_sb_printf(&report, ": %s%s", sim_flag_text[k].what, detail.s ? detail.s : "");
            if (sim_flag_text[k].error && !s->snapped) {
                unsigned char *include = lcm_xcalloc((size_t)(s->T * s->R), 1);
                for (int g = 0; g < s->R; ++g) {
                    include[t * s->R + g] = 1;
                    if (t + 1 < s->T) include[(t + 1) * s->R + g] = 1;
                }
                lcm_sb full;
                lcm_sb_init(&full);
                lcm_sb_printf(&full, "simulation: %s", report.s);
                lcm_solver_snapshot(s->sv, s->sol, include, full.s);
                lcm_sb_free(&full);
                free(include);
                s->snapped = 1;
            }
            s->warned[t] |= 1u << bit;
            int rc = raise ? lcm_fail(err, LCM_E_NUMERIC, "simulation: %s", report.s) : 0;
            if (!raise) lcm_warn("simulation: %s", report.s);
            lcm_sb_free(&report), lcm_sb_free(&detail);
            if (rc) return rc;
        }
    return 0;
}

/* Groups the batch's living subjects by regime into rows_h (in order of
 * their rows within each regime); counts[r] and offsets[r] say where each
 * regime's rows are.  Returns how many live.  Each thread counts and then
 * places the subjects of its own block of rows. */
static lcm_index group_rows(sim_run *s, lcm_index b0, lcm_index bn, int t, lcm_index *counts, lcm_index *offsets)
{
    int R = s->R, threads = s->threads > 0 ? s->threads : omp_get_max_threads();
    if (bn < 65536) threads = 1;
    /* [thread * stride + r]: each thread's counters on cache lines of their own,
     * a line apart whatever the block's alignment (adjacent ones, written for
     * every row, made two threads slower than one) */
    const size_t line = 64 / sizeof(lcm_index), stride = ((size_t)R + line - 1) / line * line + line;
    lcm_index *part = lcm_xcalloc((size_t)threads * stride + 1, sizeof *part);
    const unsigned char *mine = s->mine + b0;
    const int *start = s->start + b0, *regime = s->regime + b0;
#pragma omp parallel num_threads(threads)
    {
        int th = omp_get_thread_num(), nth = omp_get_num_threads();
        lcm_index lo = bn * th / nth, hi = bn * (th + 1) / nth;
        lcm_index *mine_counts = part + (size_t)th * stride;
        for (lcm_index row = lo; row < hi; ++row)
            if (mine[row] && start[row] <= t && regime[row] >= 0) ++mine_counts[regime[row]];
#pragma omp barrier
#pragma omp single
        {
            lcm_index total = 0;
            for (int r = 0; r < R; ++r) {
                offsets[r] = total, counts[r] = 0;
                for (int k = 0; k < nth; ++k) {
                    lcm_index c = part[(size_t)k * stride + (size_t)r];
                    part[(size_t)k * stride + (size_t)r] = total;
                    total += c, counts[r] += c;
                }
            }
        }
        for (lcm_index row = lo; row < hi; ++row) {
            int r = regime[row];
            if (mine[row] && start[row] <= t && r >= 0) s->rows_h[mine_counts[r]++] = (int)row;
        }
    }
    free(part);
    lcm_index total = 0;
    for (int r = 0; r < R; ++r) total += counts[r];
    return total;
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
    for (int i = 0; i < kn->ntargets && t + 1 < s->T; ++i) {
        int g = kn->targets[i];
        a->v_next[g] = host ? s->sol->V[(t + 1) * s->R + g] : s->vnext[g];
        a->m_next[g] = host ? s->sol->M[(t + 1) * s->R + g] : s->mnext[g];
    }
    a->age = s->m->ages[t];
    a->period = t;
    a->checks = lcm_checks_mode() != LCM_CHECKS_OFF;
    int r = kn->regime;
    if (s->egm[r]) {
        a->cont = s->egm[r];
        a->cont_code = (unsigned char *)s->egm[r] + (size_t)s->egm_cap[r] * s->rb;
    }
}

/* The endogenous grid of every EGM regime active at t, once for all batches
 * (the same code as the solve's, from the solution's V_{t+1} and marginal
 * values). */
static int egm_tables(sim_run *s, int t, lcm_err *err)
{
    int any = 0, rc = 0;
    for (int r = 0; r < s->R && !rc; ++r) {
        if (!s->egm[r] || !s->m->regimes[r].active[t]) continue;
        int k = s->m->period_kernel[r * s->T + t];
        const ir_pre *pre = &s->w->pre[k];
        if (!pre->active) continue;
        lcm_kernel_args a;
        period_args(s, &s->m->kernels[k], t, &a);
        a.flags = s->F_d; /* the table flags nothing */
        for (int pass = 0; pass < ir_pre_passes(pre) && !rc; ++pass) {
            if (pass) rc = s->be->barrier(s->be, err); /* a pass reads the one before */
            if (!rc) rc = s->be->launch_table(s->be, k, pass, &a, ir_pre_launch(pre, pass, 1), r, err);
        }
        any = 1;
    }
    return !rc && any ? s->be->barrier(s->be, err) : rc;
}

static int launch_batch(sim_run *s, lcm_index b0, lcm_index bn, int t, const lcm_index *counts, const lcm_index *offsets,
                        lcm_index live, lcm_err *err)
{
    lcm_backend *be = s->be;
    const ir_model *m = s->m;
    int root = s->R, rc = 0;
    size_t ns = (size_t)s->ns, na = (size_t)s->na;
    const void *x = s->rb == 8 ? (const void *)(s->x + (size_t)b0 * ns) : s->x_h;
    if (be->host_memory) s->x_d = (void *)x; /* in place */
    else {
        rc = be->upload(be, s->rows_d, s->rows_h, (size_t)live * sizeof(int), root, err);
        if (!rc) rc = be->upload(be, s->x_d, x, (size_t)bn * ns * s->rb, root, err);
    }
    if (!rc) rc = be->upload(be, s->F_d, s->F_init, (size_t)s->R * sizeof(lcm_flags), root, err);
    if (!rc) rc = be->barrier(be, err);
    for (int r = 0; r < s->R && !rc; ++r) {
        if (!counts[r]) continue;
        const ir_kernel *kn = &m->kernels[m->period_kernel[r * s->T + t]];
        lcm_kernel_args a;
        period_args(s, kn, t, &a);
        a.flags = s->F_d + r;
        lcm_sim_args sim = {.rows = s->rows_d + offsets[r], .subject0 = (unsigned long long)b0, .x = s->x_d,
                            .x_next = s->xn_d, .value = s->val_d, .action = s->act_d, .regime_next = s->rn_d,
                            .seed = s->seed, .nstates = s->ns, .nactions = s->na, .ends = t + 1 == s->T};
        rc = be->launch_sim(be, (int)(kn - m->kernels), &a, &sim, counts[r], r, err);
    }
    if (!rc) rc = be->barrier(be, err);
    if (!rc && !be->host_memory) {
        rc = be->download(be, s->val_h, s->val_d, (size_t)bn * s->rb, root, err);
        if (!rc) rc = be->download(be, s->act_h, s->act_d, (size_t)bn * na * s->rb, root, err);
        if (!rc) rc = be->download(be, s->xn_h, s->xn_d, (size_t)bn * ns * s->rb, root, err);
        if (!rc) rc = be->download(be, s->rn_h, s->rn_d, (size_t)bn * sizeof(int), root, err);
        if (!rc) rc = be->download(be, s->F_h, s->F_d, (size_t)s->R * sizeof(lcm_flags), root, err);
    }
    if (!rc) rc = be->finish(be, err);
    return rc;
}

/* Records the period's rows of the batch into the panel's cells and moves
 * its subjects on, on the host threads; a move into a regime inactive next
 * period is an error naming the first such row. */
static int advance(sim_run *s, lcm_index b0, int t, lcm_index live, lcm_err *err)
{
    size_t ns = (size_t)s->ns, na = (size_t)s->na, T = (size_t)s->T;
    lcm_panel *p = s->p;
    lcm_index bad = live;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(min : bad)
    for (lcm_index k = 0; k < live; ++k) {
        int row = s->rows_h[k];
        lcm_index i = b0 + row;
        size_t at = (size_t)i * T + (size_t)t;
        const ir_regime *r = &s->m->regimes[s->regime[i]];
        const double *xi = s->x + (size_t)i * ns;
        p->regime[at] = r->id;
        p->value[at] = rget(s, s->val_h, (size_t)row);
        for (size_t q = 0; q < ns; ++q) p->x[q][at] = NAN;
        for (int q = 0; q < r->nstates; ++q) {
            size_t slot = (size_t)s->V.state_slot[r->id][q];
            p->x[slot][at] = xi[slot];
        }
        for (size_t q = 0; q < na; ++q) p->act[q][at] = rget(s, s->act_h, (size_t)row * na + q);
        int g = s->rn_h[row];
        if (g >= 0 && !(t + 1 < s->T && s->m->regimes[g].active[t + 1])) {
            if (k < bad) bad = k;
            continue;
        }
        s->regime[i] = g;
        ++s->len[i];
        if (g >= 0) {
            double *xo = s->x + (size_t)i * ns;
            if (s->rb == 8) memcpy(xo, (const double *)s->xn_h + (size_t)row * ns, ns * sizeof *xo);
            else
                for (size_t q = 0; q < ns; ++q) xo[q] = ((const float *)s->xn_h)[(size_t)row * ns + q];
        }
    }
    if (bad < live) {
        int row = s->rows_h[bad];
        lcm_index i = b0 + row;
        lcm_sb who;
        lcm_sb_init(&who);
        describe_subject(s, i, t, &who);
        lcm_fail(err, LCM_E_NUMERIC, "simulation: %s: moved to regime '%s', which is not active in period %d", who.s,
                 s->m->regimes[s->rn_h[row]].name, t + 1);
        lcm_sb_free(&who);
        return err->code;
    }
    return 0;
}

/* V_{t+1} of every regime active then (and the marginal values of EGM
 * regimes), into the device (device backends). */
static int upload_vnext(sim_run *s, int t, lcm_err *err)
{
    if (s->be->host_memory || t + 1 >= s->T) return 0;
    for (int g = 0; g < s->R; ++g) {
        const void *V = s->sol->V[(t + 1) * s->R + g], *M = s->sol->M[(t + 1) * s->R + g];
        size_t bytes = (size_t)s->sol->n[g] * s->rb;
        int rc = V ? s->be->upload(s->be, s->vnext[g], V, bytes, s->R, err) : 0;
        if (!rc && M) rc = s->be->upload(s->be, s->mnext[g], M, bytes, s->R, err);
        if (rc) return rc;
    }
    return s->be->barrier(s->be, err);
}

static int run_period(sim_run *s, int t, lcm_err *err)
{
    lcm_index *counts = lcm_xcalloc((size_t)s->R, sizeof *counts), *offsets = lcm_xcalloc((size_t)s->R, sizeof *offsets);
    lcm_index stepped = 0;
    double t0 = lcm_now_seconds();
    int rc = upload_vnext(s, t, err);
    if (!rc) rc = egm_tables(s, t, err);
    for (lcm_index b0 = 0; b0 < s->n && !rc; b0 += s->K) {
        lcm_index bn = s->n - b0 < s->K ? s->n - b0 : s->K;
        lcm_index live = group_rows(s, b0, bn, t, counts, offsets);
        if (!live) continue;
        stepped += live;
        if (s->rb != 8) { /* float32: the states in the backend's precision */
            size_t cells = (size_t)bn * (size_t)s->ns;
            const double *from = s->x + (size_t)b0 * (size_t)s->ns;
#pragma omp parallel for schedule(static) num_threads(s->threads)
            for (size_t q = 0; q < cells; ++q) rset(s, s->x_h, q, from[q]);
        }
        rc = launch_batch(s, b0, bn, t, counts, offsets, live, err);
        if (!rc) rc = check_flags(s, b0, t, err);
        if (!rc) rc = advance(s, b0, t, live, err);
    }
    if (!rc)
        lcm_progress_step(t + 1, s->T, "simulating '%s': period %d (age %g), %lld subjects in %.4f s", s->m->name, t,
                          s->m->ages[t], (long long)stepped, lcm_now_seconds() - t0);
    free(counts), free(offsets);
    return rc;
}

/* Moves each subject's cells (subject * T + period) down to its rows:
 * rows start at the sum of the earlier subjects' lengths, never after its
 * cells, so each column moves in place, front to back (the columns on the
 * host threads); subject and period are written from the lengths. */
static void compact(sim_run *s)
{
    lcm_panel *p = s->p;
    size_t T = (size_t)s->T, n = (size_t)s->n;
    lcm_index *first = lcm_xmalloc((n + 1) * sizeof *first);
    lcm_index rows = 0;
    for (size_t i = 0; i < n; ++i) first[i] = rows, rows += s->len[i];
    int ncols = 2 + s->ns + s->na;
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (int c = 0; c < ncols; ++c) {
            if (rows == (lcm_index)(n * T)) continue; /* every cell lived: already in order */
            size_t width = c == 0 ? sizeof *p->regime : sizeof(double);
            char *col = c == 0 ? (char *)p->regime : c == 1 ? (char *)p->value
                        : c < 2 + s->ns ? (char *)p->x[c - 2] : (char *)p->act[c - 2 - s->ns];
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
    lcm_panel_truncate(p, rows);
}

static int check_inputs(const lcm_solver *sv, const lcm_solution *sol, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    int precision = lcm_solver_precision(sv);
    if (sol->m != m && (!sol->m->source_hash || !m->source_hash || strcmp(sol->m->source_hash, m->source_hash)))
        return lcm_fail(err, LCM_E_INPUT, "the solution was computed for another model (or another version of it)");
    if (sol->precision != precision)
        return lcm_fail(err, LCM_E_INPUT, "the solution is float%d but the solver computes in float%d; simulate with "
                        "--precision %d", sol->precision, precision, sol->precision);
    if (!sol->params) return lcm_fail(err, LCM_E_INPUT, "the solution does not carry its parameters");
    return 0;
}

/* The worker (among all of the job) whose block holds subject i: where its
 * sharded states put it (they never change), worker 0 for a subject in a
 * regime without them (which never reaches one with them). */
static int owner_of(const lcm_solver *sv, const lcm_initial *ic, lcm_index i)
{
    const ir_shard *S = &sv->shard;
    if (!ir_shard_regime(&sv->model->ir, S, ic->regime[i])) return 0;
    long long combo = 0;
    for (int k = 0; k < S->nsharded; ++k) combo = combo * S->n[k] + (long long)ic->x[(size_t)i * (size_t)ic->nslots + (size_t)S->slot[k]];
    return ir_shard_owner(S, combo, sv->total_workers);
}

/* One worker simulates its subjects, period by period, into the shared rows. */
static int simulate_worker(sim_run *s, lcm_err *err)
{
    const ir_model *m = s->m;
    lcm_worker *w = s->w;
    int rc = lcm_worker_load(w, s->sol->params, err);
    if (!rc) rc = s->be->upload(s->be, w->P, w->P_host, (m->params_size + 1) * s->rb, s->R, err);
    if (!rc) rc = s->be->upload(s->be, w->grids, w->grids_host, (w->layout.total + 1) * s->rb, s->R, err);
    if (!rc) rc = make_batch_buffers(s, err);
    for (int t = 0; t < s->T && !rc; ++t) rc = run_period(s, t, err);
    free_batch(s);
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
    if (lcm_comm_size() == 1) return 0;
    lcm_panel *mine = *p;
    size_t ns = (size_t)mine->vars.nstates, na = (size_t)mine->vars.nactions;
    size_t row = sizeof(unsigned long long) + 2 * sizeof(int) + (1 + ns + na) * sizeof(double);
    char *buf = lcm_xcalloc((size_t)mine->n * row + 1, 1);
    for (lcm_index i = 0; i < mine->n; ++i) {
        char *at = buf + (size_t)i * row;
        memcpy(at, &mine->subject[i], 8), memcpy(at + 8, &mine->period[i], 4), memcpy(at + 12, &mine->regime[i], 4);
        memcpy(at + 16, &mine->value[i], 8);
        for (size_t q = 0; q < ns; ++q) memcpy(at + 24 + q * 8, &mine->x[q][i], 8);
        for (size_t q = 0; q < na; ++q) memcpy(at + 24 + (ns + q) * 8, &mine->act[q][i], 8);
    }
    void *all = NULL;
    size_t *sizes = lcm_xcalloc((size_t)lcm_comm_size(), sizeof *sizes);
    int rc = lcm_comm_gather(buf, (size_t)mine->n * row, &all, sizes, err);
    free(buf);
    if (!rc) {
        size_t total = 0;
        for (int k = 0; all && k < lcm_comm_size(); ++k) total += sizes[k] / row;
        row_ref *order = lcm_xcalloc(total + 1, sizeof *order);
        for (size_t i = 0; i < total; ++i) {
            const char *at = (const char *)all + i * row;
            memcpy(&order[i].subject, at, 8), memcpy(&order[i].period, at + 8, 4);
            order[i].at = (lcm_index)i;
        }
        qsort(order, total, sizeof *order, by_subject_period);
        lcm_panel *merged = lcm_panel_new(m, mine->precision, (lcm_index)total);
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

int lcm_simulate_fits(const lcm_solver *sv, const lcm_initial *ic, const lcm_sim_options *opts, lcm_err *err)
{
    return lcm_memory_check_simulate(sv, ic->n, opts, err);
}

int lcm_simulate(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic, const lcm_sim_options *opts,
                 lcm_panel **out, lcm_err *err)
{
    lcm_sim_options o = {0};
    if (opts) o = *opts;
    int rc = check_inputs(sv, sol, err);
    if (!rc) rc = lcm_simulate_fits(sv, ic, &o, err);
    if (rc) return rc;
    double t0 = lcm_now_seconds();
    const ir_model *m = &sv->model->ir;
    sim_run s = {.sv = sv, .sol = sol, .m = m, .T = m->nperiods, .R = m->nregimes,
                 .rb = lcm_real_bytes(lcm_solver_precision(sv)), .seed = o.seed, .n = ic->n};
    ir_vars_build(m, &s.V);
    s.ns = s.V.nstates, s.na = s.V.nactions;
    s.K = o.subject_batch_size > 0 && o.subject_batch_size < s.n ? o.subject_batch_size : s.n;
    if (s.K < 1) s.K = 1;
    s.threads = sv->threads > 0 ? sv->threads : omp_get_max_threads();
    s.warned = lcm_xcalloc((size_t)s.T + 1, sizeof *s.warned);
    /* the columns by cell (subject * T + period), compacted into rows at the end */
    s.p = lcm_panel_new(m, s.rb == 4 ? 32 : 64, (lcm_index)((size_t)s.n * (size_t)s.T));
    s.p->threads = sv->threads;
    int *owner = lcm_xmalloc(((size_t)s.n + 1) * sizeof *owner);
    unsigned char *mine = lcm_xmalloc((size_t)s.n + 1);
#pragma omp parallel for schedule(static) num_threads(s.threads)
    for (lcm_index i = 0; i < s.n; ++i) owner[i] = owner_of(sv, ic, i);
    rc = initial_states(&s, ic, err);
    for (int k = 0; k < sv->nworkers && !rc; ++k) {
        s.w = sv->workers[k], s.be = s.w->backend, s.mine = mine;
#pragma omp parallel for schedule(static) num_threads(s.threads)
        for (lcm_index i = 0; i < s.n; ++i) mine[i] = owner[i] == s.w->index;
        rc = simulate_worker(&s, err);
    }
    rc = lcm_comm_agree(rc, err);
    lcm_panel *p = NULL;
    if (!rc) compact(&s), p = s.p;
    else lcm_panel_free(s.p);
    free(owner), free(mine);
    free_shared(&s);
    if (!rc) rc = gather_panel(m, &p, err);
    if (!rc && o.targets && *o.targets) rc = lcm_panel_add_targets(p, sol, o.targets, err);
    if (rc) {
        lcm_panel_free(p);
        return rc;
    }
    p->seconds = lcm_now_seconds() - t0;
    lcm_progress("simulated %lld subjects of model '%s' on %s (float%d): %lld rows in %.3f s", (long long)s.n, m->name,
                 lcm_solver_backend(sv), lcm_solver_precision(sv), (long long)p->n, p->seconds);
    *out = p;
    return 0;
}
