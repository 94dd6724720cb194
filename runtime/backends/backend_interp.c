/* backend_interp.c - backward induction by the IR interpreter: every state,
 * every action of the product, each pair evaluated by interp_point.c.  It
 * shares no code with the emitter or the kernel templates but the state
 * layout (ir/layout.h, whose C and printed forms test_layout.c compares),
 * so agreement between the two is evidence; it is the oracle of the
 * differential tests and `--backend interp`. */
#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "interp_point.h"
#include "layout.h"
#include "process.h"
#include "random.h"
#include "vars.h"

/* random.h numbers the processes for the generated code; they must be ir's */
_Static_assert(LCM_PROC_NORMAL_IID == PROC_NORMAL_IID && LCM_PROC_LOGNORMAL_IID == PROC_LOGNORMAL_IID &&
               LCM_PROC_UNIFORM_IID == PROC_UNIFORM_IID && LCM_PROC_NORMAL_MIXTURE_IID == PROC_NORMAL_MIXTURE_IID &&
               LCM_PROC_TAUCHEN_AR1 == PROC_TAUCHEN_AR1 && LCM_PROC_ROUWENHORST_AR1 == PROC_ROUWENHORST_AR1 &&
               LCM_PROC_TAUCHEN_MIXTURE_AR1 == PROC_TAUCHEN_MIXTURE_AR1 && PROC_COUNT == 7,
               "random.h's process numbers differ from ir_process_kind");

typedef struct interp_backend {
    lcm_backend base;
    const ir_model *m;
    ir_grid_layout layout;
    ir_vars vars;
    ir_shard shard;
    ir_state_layout *states; /* by regime: which state a launch's l-th is (ir/layout.h, as the kernels count) */
} interp_backend;

static double vnext_from_args(const void *ctx, int regime, lcm_index i)
{
    return ((const double *)((const lcm_kernel_args *)ctx)->v_next[regime])[i];
}

static int probs_ok(const double *p, int n)
{
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        if (!(p[i] >= 0)) return 0;
        sum += p[i];
    }
    return fabs(sum - 1) <= 1e-9;
}

static void flag(lcm_flags *f, int bit, lcm_index at)
{
#pragma omp critical(lcm_interp_flags)
    {
        f->bits |= 1u << bit;
        if (at < f->first[bit]) f->first[bit] = at;
    }
}

/* The checks the kernels make at a feasible state-action pair. */
static void check_pair(const lcm_point *p, lcm_flags *f, lcm_index s)
{
    const ir_model *m = p->m;
    const ir_regime *r = p->r;
    const double *vals = p->vals;
    double rp[IR_MAX_REGIMES];
    int nrp = 0;
    for (int g = 0; g < m->nregimes; ++g)
        if (r->rprob[g] >= 0) rp[nrp++] = vals[r->rprob[g]];
    if (nrp && !probs_ok(rp, nrp)) flag(f, LCM_FLAG_REGIME_PROB, s);
    if (p->ce_bad) flag(f, LCM_FLAG_CE, s);
    for (int i = 0; i < p->k->ninactive; ++i)
        if (vals[r->rprob[p->k->inactive[i]]] != 0) flag(f, LCM_FLAG_INACTIVE, s);
    for (int i = 0; i < p->k->ntargets; ++i) {
        int g = p->k->targets[i];
        if (vals[r->rprob[g]] == 0) continue;
        const ir_target *tg = ir_find_target(r, g);
        const ir_regime *tr = &m->regimes[g];
        for (int st = 0; st < tr->nstates; ++st) {
            const ir_next *nx = &tg->next[st];
            if (nx->kind == NEXT_MARKOV) {
                double pr[256];
                lcm_assert(nx->nprobs <= 256);
                int n = nx->nprobs < 256 ? nx->nprobs : 256;
                for (int j = 0; j < n; ++j) pr[j] = vals[nx->probs[j]];
                if (!probs_ok(pr, n)) flag(f, LCM_FLAG_STATE_PROB, s);
            } else if (grid_is_discrete(&tr->states[st].grid)) {
                double x = vals[nx->node];
                if (!(x >= 0 && x <= tr->states[st].grid.n - 1 && x == floor(x))) flag(f, LCM_FLAG_CODE, s);
            }
        }
    }
}

/* The best action at the state in p->x (first of equals); *nan_q when a
 * feasible Q is NaN.  Checks the feasible pairs, flagging at `at`; fills
 * ch when the regime has taste shocks. */
static lcm_index best_action(lcm_point *p, const lcm_kernel_args *a, lcm_index at, double *best_q, int *nan_q,
                             lcm_choices *ch)
{
    const ir_regime *r = p->r;
    lcm_index na = ir_action_space_size(r);
    double best = -INFINITY;
    lcm_index best_a = -1;
    *nan_q = 0;
    ir_choices_reset(ch, r);
    for (lcm_index ai = 0; ai < na; ++ai) {
        ir_point_action(p, ai);
        ir_point_eval(p);
        if (ch->n) ch->scale = p->vals[r->taste_scale]; /* known before the actions: the same at each */
        if (!p->feasible) continue;
        if (a->checks && !p->k->last) check_pair(p, a->flags, at);
        double q = p->q;
        if (q != q) {
            *nan_q = 1;
            continue;
        }
        if (q > best || best_a < 0) best = q, best_a = ai;
        ir_choices_add(ch, ai, q);
    }
    if (ch->n && !(ch->scale >= 0 && ch->scale < INFINITY)) flag(a->flags, LCM_FLAG_TASTE_SCALE, at);
    *best_q = best;
    return best_a;
}

/* Simulation with taste shocks: the choice with the largest v_d + scale *
 * g_d, there its best action (the kernels' lcm_taste_draw). */
static lcm_index taste_draw(const lcm_choices *ch, lcm_index best, const lcm_sim_args *sim, int row, int period)
{
    if (!ch->n || !(ch->scale > 0 && ch->scale < INFINITY)) return best;
    lcm_index pick = best;
    double top = -INFINITY;
    for (int d = 0; d < ch->n; ++d) {
        if (ch->a[d] < 0) continue;
        double w = ch->v[d] + ch->scale * lcm_gumbel(sim->seed, LCM_SUBJECT(sim, row), (lcm_u32)period, (lcm_u32)d);
        if (w > top) top = w, pick = ch->a[d];
    }
    return pick;
}

static void solve_state(lcm_point *p, lcm_kernel_args *a, lcm_index s)
{
    ir_point_state(p, s);
    double best;
    int nan_q;
    lcm_choices ch;
    lcm_index best_a = best_action(p, a, s, &best, &nan_q, &ch);
    double v = nan_q ? NAN : ir_choices_value(&ch, best);
    ((double *)a->v_out)[s] = v;
    if (v != v) flag(a->flags, LCM_FLAG_NAN, s);
    else if (v == INFINITY) flag(a->flags, LCM_FLAG_INF, s);
    else if (best_a < 0) flag(a->flags, LCM_FLAG_INFEASIBLE, s);
}

/* ---- simulation: the semantics of templates/step.c.in, written out ---------- */

/* The next value of state s of target regime g for the subject at batch row
 * `row`, whose chosen pair is evaluated in p. */
static double sim_next_state(const interp_backend *b, const lcm_point *p, const lcm_kernel_args *a,
                             const lcm_sim_args *sim, int row, const ir_target *tg, int s)
{
    const ir_model *m = b->m;
    const ir_next *nx = &tg->next[s];
    const ir_grid *gr = &m->regimes[tg->regime].states[s].grid;
    lcm_u64 subject = LCM_SUBJECT(sim, row);
    lcm_u32 purpose = LCM_DRAW_STATE + (lcm_u32)b->vars.state_slot[tg->regime][s];
    if (nx->kind == NEXT_DET && !grid_is_discrete(gr)) return p->vals[nx->node];
    if (nx->kind == NEXT_DET) {
        double x = p->vals[nx->node];
        if (x >= 0 && x <= gr->n - 1 && x == floor(x)) return x;
        flag(a->flags, LCM_FLAG_CODE, row);
        return NAN;
    }
    if (nx->kind == NEXT_MARKOV) {
        double pm[256];
        int n = nx->nprobs < 256 ? nx->nprobs : 256;
        for (int j = 0; j < n; ++j) pm[j] = p->vals[nx->probs[j]];
        int c = lcm_pick_drawn(pm, n, sim->seed, subject, (lcm_u32)a->period, purpose);
        if (c < 0 || (a->checks && !probs_ok(pm, n))) flag(a->flags, LCM_FLAG_STATE_PROB, row);
        return c < 0 ? NAN : c;
    }
    double v[IR_PROCESS_MAX_PARAMS];
    for (int i = 0; i < gr->nslots; ++i) v[i] = p->params[m->params[gr->slots[i]].offset];
    return lcm_process_next(gr->process, v, nx->src >= 0 ? p->x[nx->src] : 0.0, sim->seed, subject,
                            (lcm_u32)a->period, purpose);
}

static void sim_subject(const interp_backend *b, lcm_point *p, const lcm_kernel_args *a, const lcm_sim_args *sim,
                        int row)
{
    const ir_regime *r = p->r;
    const int *slot = b->vars.state_slot[r->id];
    const double *X = (const double *)sim->x + (lcm_index)row * sim->nstates;
    double *xn = (double *)sim->x_next + (lcm_index)row * sim->nstates;
    double *an = (double *)sim->action + (lcm_index)row * sim->nactions;
    for (int s = 0; s < r->nstates; ++s) p->x[s] = X[slot[s]];
    double best;
    int nan_q;
    lcm_choices ch;
    lcm_index best_a = best_action(p, a, row, &best, &nan_q, &ch);
    best_a = taste_draw(&ch, best_a, sim, row, a->period);
    double v = nan_q ? NAN : ir_choices_value(&ch, best);
    ((double *)sim->value)[row] = v;
    for (int i = 0; i < sim->nstates; ++i) xn[i] = NAN;
    for (int i = 0; i < sim->nactions; ++i) an[i] = NAN;
    sim->regime_next[row] = -1;
    if (v != v || best_a < 0) {
        flag(a->flags, v != v ? LCM_FLAG_NAN : LCM_FLAG_INFEASIBLE, row);
        return;
    }
    ir_point_action(p, best_a);
    ir_point_eval(p);
    for (int j = 0; j < r->nactions; ++j) an[b->vars.action_slot[r->id][j]] = p->act[j];
    if (r->terminal || sim->ends) return;
    double rp[IR_MAX_REGIMES];
    int ids[IR_MAX_REGIMES], n = 0;
    for (int g = 0; g < b->m->nregimes; ++g)
        if (r->rprob[g] >= 0) ids[n] = g, rp[n++] = p->vals[r->rprob[g]];
    int pick = lcm_pick_drawn(rp, n, sim->seed, LCM_SUBJECT(sim, row), (lcm_u32)a->period, LCM_DRAW_REGIME);
    if (pick < 0 || (a->checks && !probs_ok(rp, n))) flag(a->flags, LCM_FLAG_REGIME_PROB, row);
    if (pick < 0) return;
    int g = ids[pick];
    sim->regime_next[row] = g;
    const ir_target *tg = ir_find_target(r, g);
    lcm_assert(tg); /* r->rprob[g] >= 0: r reaches g */
    for (int s = 0; tg && s < b->m->regimes[g].nstates; ++s)
        xn[b->vars.state_slot[g][s]] = sim_next_state(b, p, a, sim, row, tg, s);
}

/* Every state (sim NULL) or every subject of a launch, on the OpenMP threads. */
static int interp_launch(interp_backend *b, int kernel, const lcm_kernel_args *cargs, const lcm_sim_args *sim,
                         lcm_index n, lcm_err *err)
{
    lcm_kernel_args *args = (lcm_kernel_args *)cargs; /* host memory: flags and V are written through it */
    const ir_kernel *k = &b->m->kernels[kernel];
    const ir_regime *r = &b->m->regimes[k->regime];
    if (r->nstates > IR_POINT_VARS || r->nactions > IR_POINT_VARS)
        return base_fail(err, LCM_E_INTERNAL, "the interpreter handles at most %d states and actions", IR_POINT_VARS);
#pragma omp parallel
    {
        lcm_point p = {.m = b->m, .k = k, .r = r, .L = &b->layout, .G = args->grids, .params = args->params,
                       .vnext = vnext_from_args, .vnext_ctx = args, .age = args->age, .period = args->period};
        p.vals = base_xcalloc(r->nnodes + 1, sizeof *p.vals);
#pragma omp for schedule(dynamic, 4)
        for (lcm_index i = 0; i < n; ++i) {
            if (!sim) solve_state(&p, args, ir_layout_state(&b->states[r->id], args->shard_lo, args->chunk, i));
            else if (LCM_SIM_STEPS(sim, i, args->period)) sim_subject(b, &p, args, sim, (int)i);
        }
        free(p.vals);
    }
    return 0;
}

static int interp_run(lcm_backend *base, int kernel, const lcm_kernel_args *args, lcm_index n, int queue,
                      lcm_err *err)
{
    (void)queue;
    return interp_launch((interp_backend *)base, kernel, args, NULL, n, err);
}

static int interp_sim(lcm_backend *base, int kernel, const lcm_kernel_args *args, const lcm_sim_args *sim,
                      lcm_index n, int queue, lcm_err *err)
{
    (void)queue;
    return interp_launch((interp_backend *)base, kernel, args, sim, n, err);
}

static void interp_destroy(lcm_backend *base)
{
    interp_backend *b = (interp_backend *)base;
    for (int r = 0; r < b->m->nregimes; ++r) ir_state_layout_free(&b->states[r]);
    free(b->states);
    ir_grid_layout_free(&b->layout);
    ir_vars_free(&b->vars);
    be_host_backend_release(base);
    free(b);
}

int be_backend_interp_new(const ir_model *m, lcm_backend **out, lcm_err *err)
{
    for (int r = 0; r < m->nregimes; ++r)
        if (ir_is_egm(&m->regimes[r]))
            return base_fail(err, LCM_E_USAGE, "model '%s': regime '%s' solves by the endogenous grid method, which the "
                            "interp backend (grid search only) does not run; use --backend cpu or cuda", m->name,
                            m->regimes[r].name);
    interp_backend *b = base_xcalloc(1, sizeof *b);
    b->m = m;
    b->base.name = "interp";
    b->base.precision = 64;
    be_host_backend_ops(&b->base);
    b->base.launch = interp_run;
    b->base.launch_sim = interp_sim;
    b->base.destroy = interp_destroy;
    ir_grid_layout_build(m, &b->layout);
    ir_vars_build(m, &b->vars);
    ir_shard_build(m, &b->vars, &b->shard);
    b->states = base_xcalloc((size_t)m->nregimes + 1, sizeof *b->states);
    for (int r = 0; r < m->nregimes; ++r) ir_state_layout_build(m, &b->vars, &b->shard, r, &b->states[r]);
    *out = &b->base;
    return 0;
}
