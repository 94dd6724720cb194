/* solve.c - solvers and backward induction.
 *
 * For t = T-1 down to 0, every regime active at t runs the kernel of its
 * period class: V_t from V_{t+1} of the regimes it can move to.  Only the
 * current period and the next live in backend memory; finished periods go
 * to the solution on the host.  After each kernel the validation flags it
 * set are read back and turned into an error or a warning that names the
 * regime, period, age and state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "solver_internal.h"

int lcm_backend_by_name(const char *name)
{
    static const char *names[] = {"auto", "cpu", "cuda", "interp"};
    for (int i = 0; i < 4; ++i)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

/* Converts doubles to the backend's precision (a copy either way), with
 * one spare element so that empty buffers are valid allocations too. */
static void *to_precision(const double *x, size_t n, int precision)
{
    if (precision == 64) {
        double *d = xcalloc(n + 1, sizeof *d);
        memcpy(d, x, n * sizeof *d);
        return d;
    }
    float *f = xcalloc(n + 1, sizeof *f);
    for (size_t i = 0; i < n; ++i) f[i] = (float)x[i];
    return f;
}

static void *upload_copy(lcm_backend *b, const void *host, size_t bytes, lcm_err *err)
{
    void *dev = b->alloc(b, bytes, err);
    if (!dev) return NULL;
    if (b->upload(b, dev, host, bytes, err)) {
        b->release(b, dev);
        return NULL;
    }
    return dev;
}

int lcm_solver_new(const lcm_model *model, const lcm_solver_options *opts, lcm_solver **out, lcm_err *err)
{
    lcm_solver_options o = {0};
    if (opts) o = *opts;
    if (!o.precision) o.precision = 64;
    if (o.precision != 64 && o.precision != 32)
        return lcm_fail(err, LCM_E_USAGE, "precision must be 64 or 32, not %d", o.precision);
    if (o.backend == LCM_BACKEND_CUDA)
        return lcm_fail(err, LCM_E_DEVICE, "the cuda backend is not available in this build yet; use --backend cpu");
    if (o.backend == LCM_BACKEND_INTERP && o.precision != 64)
        return lcm_fail(err, LCM_E_USAGE, "the interp backend computes in float64 only");
    lcm_solver *s = xcalloc(1, sizeof *s);
    s->model = model;
    lcm_cache_open(&s->cache, o.cache_dir);
    int rc = o.backend == LCM_BACKEND_INTERP
                 ? lcm_backend_interp_new(&model->ir, &s->backend, err)
                 : lcm_backend_cpu_new(&model->ir, model->source, o.precision, &s->cache, o.threads, &s->backend, err);
    if (rc) {
        lcm_cache_close(&s->cache);
        free(s);
        return rc;
    }
    if (s->backend->compiled)
        lcm_progress("compiled the %s solver of model '%s' (float%d) in %.2f s", s->backend->name, model->ir.name,
                     o.precision, s->backend->compile_seconds);
    else if (s->backend->cache_entry)
        lcm_progress("loaded the %s solver of model '%s' (float%d) from the cache", s->backend->name,
                     model->ir.name, o.precision);
    ir_grid_layout_build(&model->ir, &s->layout);
    s->grids64 = xcalloc(s->layout.total + 1, sizeof *s->grids64);
    ir_grid_buffer_fill(&model->ir, &s->layout, s->grids64);
    void *g = to_precision(s->grids64, s->layout.total, o.precision);
    s->grids = upload_copy(s->backend, g, (s->layout.total + 1) * lcm_real_bytes(o.precision), err);
    free(g);
    if (!s->grids) {
        lcm_solver_free(s);
        return err->code;
    }
    *out = s;
    return 0;
}

const char *lcm_solver_backend(const lcm_solver *s) { return s->backend->name; }
int lcm_solver_precision(const lcm_solver *s) { return s->backend->precision; }
int lcm_solver_compiled(const lcm_solver *s) { return s->backend->compiled; }
double lcm_solver_compile_seconds(const lcm_solver *s) { return s->backend->compile_seconds; }

void lcm_solver_free(lcm_solver *s)
{
    if (!s) return;
    if (s->grids) s->backend->release(s->backend, s->grids);
    s->backend->destroy(s->backend);
    ir_grid_layout_free(&s->layout);
    lcm_cache_close(&s->cache);
    free(s->grids64);
    free(s);
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

static int report_flags(const lcm_solver *sv, const lcm_solution *sol, const double *params, int r_id, int t,
                        const lcm_flags *f, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    const ir_regime *r = &m->regimes[r_id];
    int rc = 0;
    for (size_t i = 0; i < sizeof flag_text / sizeof *flag_text; ++i) {
        int bit = flag_text[i].bit;
        if (!(f->bits & (1u << bit))) continue;
        lcm_sb state;
        sb_init(&state);
        lcm_describe_state(m, r, f->first[bit], &state);
        lcm_diagnose(m, &sv->layout, sv->grids64, params, sol, t, r_id, f->first[bit], bit, &state);
        if (flag_text[i].error && !rc)
            rc = lcm_fail(err, LCM_E_NUMERIC, "regime '%s', period %d (age %g): %s, first at %s", r->name, t,
                          m->ages[t], flag_text[i].what, state.s);
        else if (!flag_text[i].error)
            lcm_warn("regime '%s', period %d (age %g): %s, first at %s", r->name, t, m->ages[t], flag_text[i].what,
                     state.s);
        sb_free(&state);
    }
    return rc;
}

/* ---- backward induction ------------------------------------------------- */
void lcm_solution_free(lcm_solution *s)
{
    if (!s) return;
    for (int i = 0; i < s->m->nperiods * s->m->nregimes; ++i) free(s->V[i]);
    free(s->V);
    free(s->n);
    free(s);
}

static int run_period(lcm_solver *sv, lcm_solution *sol, void **dev, int t, const double *params, void *P, void *F,
                      lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    lcm_backend *be = sv->backend;
    size_t rb = lcm_real_bytes(be->precision);
    int R = m->nregimes;
    for (int r = 0; r < R; ++r) {
        if (!m->regimes[r].active[t]) continue;
        int k = m->period_kernel[r * m->nperiods + t];
        const ir_kernel *kn = &m->kernels[k];
        lcm_index n = sol->n[r];
        sol->V[t * R + r] = malloc((size_t)n * rb);
        if (!sol->V[t * R + r])
            return lcm_fail(err, LCM_E_MEMORY, "out of host memory: V of regime '%s' at period %d needs %.1f MiB "
                            "(%lld states); a smaller grid or float32 (--precision 32) needs less",
                            m->regimes[r].name, t, (double)n * (double)rb / 1048576.0, (long long)n);
        dev[t * R + r] = be->host_memory ? sol->V[t * R + r] : be->alloc(be, (size_t)n * rb, err);
        if (!dev[t * R + r]) return err->code;
        lcm_kernel_args a;
        memset(&a, 0, sizeof a);
        a.params = P;
        a.grids = sv->grids;
        for (int i = 0; i < kn->ntargets && t + 1 < m->nperiods; ++i)
            a.v_next[kn->targets[i]] = dev[(t + 1) * R + kn->targets[i]];
        a.v_out = dev[t * R + r];
        a.flags = F;
        a.age = m->ages[t];
        a.period = t;
        a.checks = 1;
        lcm_flags flags = {0};
        for (int i = 0; i < LCM_NFLAGS; ++i) flags.first[i] = INT64_MAX;
        int rc = be->upload(be, F, &flags, sizeof flags, err);
        if (!rc) rc = be->run(be, k, &a, n, err);
        if (!rc) rc = be->download(be, &flags, F, sizeof flags, err);
        if (!rc && !be->host_memory) rc = be->download(be, sol->V[t * R + r], dev[t * R + r], (size_t)n * rb, err);
        if (!rc) rc = report_flags(sv, sol, params, r, t, &flags, err);
        if (rc) return rc;
    }
    return 0;
}

int lcm_solve_resolved(lcm_solver *sv, const double *params, lcm_solution **out, lcm_err *err)
{
    const ir_model *m = &sv->model->ir;
    lcm_backend *be = sv->backend;
    int R = m->nregimes, T = m->nperiods;
    double t0 = now_seconds();
    lcm_solution *sol = xcalloc(1, sizeof *sol);
    sol->m = m;
    sol->precision = be->precision;
    sol->V = xcalloc((size_t)(R * T), sizeof *sol->V);
    sol->n = xcalloc((size_t)R, sizeof *sol->n);
    for (int r = 0; r < R; ++r) sol->n[r] = ir_state_space_size(&m->regimes[r]);
    void **dev = xcalloc((size_t)(R * T), sizeof *dev);
    void *ph = to_precision(params, m->params_size, be->precision);
    void *P = upload_copy(be, ph, (m->params_size + 1) * lcm_real_bytes(be->precision), err);
    free(ph);
    void *F = P ? be->alloc(be, sizeof(lcm_flags), err) : NULL;
    int rc = P && F ? 0 : err->code;
    for (int t = T - 1; t >= 0 && !rc; --t) {
        rc = run_period(sv, sol, dev, t, params, P, F, err);
        /* V_{t+1} is no longer needed in backend memory */
        for (int r = 0; r < R && t + 1 < T && !be->host_memory; ++r)
            if (dev[(t + 1) * R + r]) be->release(be, dev[(t + 1) * R + r]), dev[(t + 1) * R + r] = NULL;
    }
    if (!be->host_memory)
        for (int i = 0; i < R * T; ++i)
            if (dev[i]) be->release(be, dev[i]);
    if (P) be->release(be, P);
    if (F) be->release(be, F);
    free(dev);
    if (rc) {
        lcm_solution_free(sol);
        return rc;
    }
    sol->seconds = now_seconds() - t0;
    lcm_progress("solved model '%s' on %s (float%d) in %.3f s", m->name, be->name, be->precision, sol->seconds);
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
