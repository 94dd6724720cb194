/* interp_point.c - see interp_point.h.  The semantics of the solve written
 * out directly: the DAG node by node (ir/eval.c), cells by binary search on
 * every grid kind, interpolation as nested per-axis linear interpolation,
 * Markov next states as weighted sums. */
#include "interp_point.h"

#include <math.h>
#include <stdlib.h>

#include "arith.h"
#include "eval.h"
#include "layout.h"

const ir_target *ir_find_target(const ir_regime *r, int g)
{
    for (int i = 0; i < r->ntargets; ++i)
        if (r->targets[i].regime == g) return &r->targets[i];
    return NULL;
}

/* Flat index -> values: codes, or points of the grids at the period. */
static void decode(const ir_var *v, int n, const size_t *off, const double *G, int period, lcm_index flat, double *out)
{
    int mine[64], *code = n <= 64 ? mine : base_xcalloc((size_t)n, sizeof *code);
    ir_layout_decode(v, n, -1, flat, code);
    for (int i = 0; i < n; ++i)
        out[i] = grid_is_discrete(&v[i].grid) ? code[i] : G[ir_grid_at(&v[i].grid, off[i], period) + (size_t)code[i]];
    if (code != mine) free(code);
}

void ir_point_state(lcm_point *p, lcm_index s)
{
    decode(p->r->states, p->r->nstates, p->L->state_off[p->r->id], p->G, (int)p->period, s, p->x);
}

void ir_point_action(lcm_point *p, lcm_index a)
{
    decode(p->r->actions, p->r->nactions, p->L->action_off[p->r->id], p->G, (int)p->period, a, p->act);
}

void ir_describe_action(const lcm_point *p, lcm_index a, lcm_sb *out)
{
    const ir_regime *r = p->r;
    if (!r->nactions) {
        base_sb_puts(out, "(no actions)");
        return;
    }
    double v[IR_POINT_VARS];
    lcm_assert(r->nactions <= IR_POINT_VARS);
    decode(r->actions, r->nactions, p->L->action_off[r->id], p->G, (int)p->period, a, v);
    for (int i = 0; i < r->nactions; ++i) {
        const ir_grid *g = &r->actions[i].grid;
        base_sb_printf(out, "%s%s=", i ? ", " : "", r->actions[i].name);
        if (grid_is_discrete(g)) base_sb_puts(out, g->labels[(int)v[i]]);
        else base_sb_printf(out, "%.10g", v[i]);
    }
}

/* ---- taste shocks ---------------------------------------------------------- */
void ir_choices_reset(lcm_choices *ch, const ir_regime *r)
{
    ch->n = r->taste_scale >= 0 ? ir_taste_choices(r) : 0;
    ch->inner = ir_taste_inner(r);
    ch->scale = 0;
    for (int d = 0; d < ch->n; ++d) ch->v[d] = -INFINITY, ch->a[d] = -1;
}

void ir_choices_add(lcm_choices *ch, lcm_index ai, double q)
{
    if (!ch->n) return;
    int d = (int)(ai / ch->inner);
    if (q > ch->v[d] || ch->a[d] < 0) ch->v[d] = q, ch->a[d] = ai;
}

double ir_choices_value(const lcm_choices *ch, double vmax)
{
    if (!ch->n || ch->scale == 0 || !(vmax > -INFINITY && vmax < INFINITY)) return vmax;
    if (!(ch->scale > 0 && ch->scale < INFINITY)) return NAN;
    double sum = 0;
    for (int d = 0; d < ch->n; ++d) sum += exp((ch->v[d] - vmax) / ch->scale);
    return vmax + ch->scale * log(sum);
}

/* ---- the continuation ---------------------------------------------------- */
typedef struct target_ctx {
    const lcm_point *p;
    const ir_regime *tr;
    const ir_target *tg;
    lcm_index stride[IR_POINT_VARS];
    int cell[IR_POINT_VARS], code[IR_POINT_VARS];
    double t[IR_POINT_VARS];
    int row[IR_POINT_VARS];     /* processes: the row of the current value (and row + 1 weighted by rowt) */
    double rowt[IR_POINT_VARS];
} target_ctx;

/* Cell of x in increasing points p[0..n-1]: the last i <= n-2 with p[i] <= x
 * (0 when x is below the grid); t is the linear fraction within it. */
static void locate(const double *pts, int n, double x, int *cell, double *t)
{
    int i = 0;
    for (int lo = 0, hi = n - 1; lo <= hi;) {
        int mid = (lo + hi) / 2;
        if (pts[mid] <= x) i = mid, lo = mid + 1;
        else hi = mid - 1;
    }
    if (i > n - 2) i = n - 2;
    *cell = i;
    *t = (x - pts[i]) / (pts[i + 1] - pts[i]);
}

/* Interpolates along continuous axes from axis s on (discrete axes fixed). */
static double interp_from(const target_ctx *c, int s, lcm_index at)
{
    if (s == c->tr->nstates) return c->p->vnext(c->p->vnext_ctx, c->tr->id, at);
    if (grid_is_discrete(&c->tr->states[s].grid) || c->tg->next[s].kind == NEXT_PROCESS)
        return interp_from(c, s + 1, at + c->code[s] * c->stride[s]); /* processes: read at their nodes */
    double t = c->t[s], lo = 0, hi = 0;
    if (1 - t != 0) lo = (1 - t) * interp_from(c, s + 1, at + c->cell[s] * c->stride[s]);
    if (t != 0) hi = t * interp_from(c, s + 1, at + (c->cell[s] + 1) * c->stride[s]);
    return lo + hi;
}

/* Probability of next point j of target state s. */
static double weight(const target_ctx *c, int s, int j)
{
    const ir_next *nx = &c->tg->next[s];
    if (nx->kind == NEXT_MARKOV) return c->p->vals[nx->probs[j]];
    int n = c->tr->states[s].grid.n;
    const double *M = c->p->G + c->p->L->matrix_off[c->tr->id][s];
    if (nx->src < 0) return M[j]; /* IID: every row is the same */
    double t = c->rowt[s];
    return (1 - t) * M[c->row[s] * n + j] + t * M[(c->row[s] + 1) * n + j];
}

/* Visits every node of positive weight w over the Markov next states and
 * processes from state s on, with its interpolated value v: node(ctx, w, v),
 * in one order that both the expectation (a single running sum, not a sum
 * per level) and the Epstein-Zin lottery take, which is the order of the
 * generated kernels' continuation loop, so a model with two random states
 * gets the same bits from both. */
static void visit_from(target_ctx *c, int s, double w, ir_node_fn node, void *ctx)
{
    if (s == c->tr->nstates) {
        node(ctx, w, interp_from(c, 0, 0));
        return;
    }
    const ir_next *nx = &c->tg->next[s];
    if (nx->kind == NEXT_DET) {
        visit_from(c, s + 1, w, node, ctx);
        return;
    }
    int n = nx->kind == NEXT_MARKOV ? nx->nprobs : c->tr->states[s].grid.n;
    for (int j = 0; j < n; ++j) {
        double pj = weight(c, s, j);
        if (w * pj == 0) continue;
        c->code[s] = j;
        visit_from(c, s + 1, w * pj, node, ctx);
    }
}

static void expect_node(void *acc, double w, double v) { *(double *)acc += w * v; }

/* ---- Epstein-Zin: the certainty equivalent of the whole lottery -----------
 * Folded as the kernels fold it (templates/arith.h, one text for both, so
 * V and panels are the same to the bit): each target's nodes into its own
 * lottery, in the order of the kernels' loops (visit_from), then each
 * target's lottery at its regime probability into the whole. */
typedef struct ce_fold {
    lcm_ce c;
    double alpha;
} ce_fold;

static void ce_node(void *ctx, double w, double v)
{
    ce_fold *f = ctx;
    lcm_ce_add(&f->c, f->alpha, w, v);
}

/* The smallest value among a target's nodes (for the diagnosis). */
static void min_node(void *ctx, double w, double v)
{
    double *min = ctx;
    (void)w;
    if (!(v >= *min)) *min = v;
}

/* The cells, codes and process rows of target g's next states at the pair. */
static void target_setup(const lcm_point *p, int g, target_ctx *out, int *codes_ok)
{
    target_ctx c = {.p = p, .tr = &p->m->regimes[g], .tg = ir_find_target(p->r, g)};
    const ir_regime *tr = c.tr;
    lcm_assert(c.tg); /* a kernel's targets are regimes its regime reaches */
    lcm_assert(tr->nstates <= IR_POINT_VARS);
    *codes_ok = 1;
    ir_strides(tr, c.stride);
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &c.tg->next[s];
        const ir_grid *gr = &tr->states[s].grid;
        if (nx->kind == NEXT_MARKOV) continue;
        if (nx->kind == NEXT_PROCESS) {
            /* an AR(1) row: the cell of the current value in the source's grid
             * (off the grid: rows weighted like linear interpolation; in an
             * Epstein-Zin regime, a lottery, the outer node's row, as the
             * kernels' lcm_lottery_t) */
            if (nx->src >= 0) {
                locate(p->G + p->L->state_off[p->r->id][nx->src], gr->n, p->x[nx->src], &c.row[s], &c.rowt[s]);
                double *t = &c.rowt[s];
                if (p->r->risk_aversion >= 0) *t = *t < 0 ? 0 : *t > 1 ? 1 : *t;
            }
            continue;
        }
        double x = p->vals[nx->node];
        if (grid_is_discrete(gr)) {
            int ok = x >= 0 && x <= gr->n - 1 && x == floor(x);
            *codes_ok &= ok;
            c.code[s] = ok ? (int)x : 0;
        } else {
            locate(p->G + ir_grid_at(gr, p->L->state_off[g][s], (int)p->period + 1), gr->n, x, &c.cell[s], &c.t[s]);
        }
    }
    *out = c;
}

double ir_point_target(const lcm_point *p, int g, int *codes_ok)
{
    target_ctx c;
    target_setup(p, g, &c, codes_ok);
    double E = 0;
    visit_from(&c, 0, 1.0, expect_node, &E);
    return E;
}

void ir_point_target_visit(const lcm_point *p, int g, ir_node_fn node, void *ctx, int *codes_ok)
{
    target_ctx c;
    target_setup(p, g, &c, codes_ok);
    visit_from(&c, 0, 1.0, node, ctx);
}

double ir_point_target_min(const lcm_point *p, int g)
{
    double min = INFINITY;
    target_ctx c;
    int ok;
    target_setup(p, g, &c, &ok);
    visit_from(&c, 0, 1, min_node, &min);
    return min;
}

/* The certainty equivalent of the pair's continuation; *bad when it has none. */
static double point_ce(const lcm_point *p, int *bad)
{
    const ir_regime *r = p->r;
    double alpha = p->vals[r->risk_aversion];
    lcm_ce C = LCM_CE_EMPTY;
    for (int i = 0; i < p->k->ntargets; ++i) {
        int g = p->k->targets[i], ok;
        double P = p->vals[r->rprob[g]];
        if (P == 0) continue;
        ce_fold f = {.c = LCM_CE_EMPTY, .alpha = alpha};
        target_ctx c;
        target_setup(p, g, &c, &ok);
        visit_from(&c, 0, 1, ce_node, &f);
        lcm_ce_merge(&C, alpha, P, &f.c);
    }
    *bad = C.bad;
    return lcm_ce_value(&C, alpha);
}

static ir_env point_env(const lcm_point *p)
{
    return (ir_env){.states = p->x, .actions = p->act, .age = p->age, .period = p->period, .enext = NAN,
                    .params = p->params};
}

void ir_point_eval_values(lcm_point *p)
{
    ir_env env = point_env(p);
    ir_eval(p->m, p->r, &env, p->vals, p->r->nnodes);
}

void ir_point_eval(lcm_point *p)
{
    const ir_regime *r = p->r;
    ir_env env = point_env(p);
    ir_eval(p->m, r, &env, p->vals, r->nnodes);
    p->feasible = 1;
    for (int c = 0; c < r->nconstraints; ++c) p->feasible &= p->vals[r->constraints[c].node] != 0;
    p->E = 0;
    p->q = NAN;
    if (!p->feasible) return;
    if (p->k->last) {
        p->q = p->vals[r->q];
        return;
    }
    p->ce_bad = 0;
    if (r->risk_aversion >= 0) p->E = point_ce(p, &p->ce_bad);
    for (int i = 0; i < p->k->ntargets && r->risk_aversion < 0; ++i) {
        int g = p->k->targets[i], ok;
        double P = p->vals[r->rprob[g]];
        if (P != 0) p->E += P * ir_point_target(p, g, &ok);
    }
    env.enext = p->E;
    ir_eval(p->m, r, &env, p->vals, r->nnodes);
    p->q = p->vals[r->q];
}
