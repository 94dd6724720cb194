/* fold.c - see fold.h. */
#include "fold.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "eval.h"
#include "grid.h"
#include "layout.h"

/* The fold must decide a node as every kernel does: in float32, and on a
 * GPU that fuses a * b + c and flushes float32 subnormals to zero.  So a
 * known value is either
 *   FOLD_EXACT  an integer of at most 2^24 in magnitude, made by ops that
 *               give such integers exactly in any precision (0.1 + 0.2 ==
 *               0.3 holds in float32 alone, and is not folded), or
 *   FOLD_POINT  a value the kernel reads as stored, a literal or a fixed
 *               action's grid point (exact_points), whose only folded use is a comparison
 *               that comes out alike in double, in float32 and with
 *               float32's subnormals flushed (d_new <= 0). */
enum { FOLD_UNKNOWN = 0, FOLD_EXACT, FOLD_POINT };

static int small_integer(double v) { return v == floor(v) && fabs(v) <= 16777216.0; }

static int exact_op(ir_op op)
{
    switch (op) {
    case OP_NEG: case OP_NOT: case OP_ABS: case OP_FLOOR: case OP_CEIL: case OP_ADD: case OP_SUB: case OP_MUL:
    case OP_DIV: case OP_MIN: case OP_MAX: case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE:
    case OP_AND: case OP_OR: case OP_WHERE: return 1;
    default: return 0;
    }
}

static int compare(ir_op op, double a, double b)
{
    switch (op) {
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_EQ: return a == b;
    default: return a != b; /* OP_NE */
    }
}

static double flushed(float v) { return fabsf(v) < FLT_MIN ? 0.0 : (double)v; }

/* A comparison of two known values (one of them a point): known where
 * every precision agrees. */
static int fold_compare(ir_fold *f, const ir_node *n, double *out)
{
    int a = n->args[0], b = n->args[1];
    int d = compare(n->op, f->val[a], f->val[b]);
    if (compare(n->op, f->val32[a], f->val32[b]) != d || compare(n->op, flushed(f->val32[a]), flushed(f->val32[b])) != d)
        return 0;
    *out = d;
    return 1;
}

/* Node i's knowledge from its arguments' (they come first). */
static void fold_node(ir_fold *f, size_t i, int fixed)
{
    const ir_node *n = &f->r->nodes[i];
    char *known = f->known;
    f->val32[i] = (float)f->val[i];
    if (n->op == OP_ACTION && n->ref < fixed) {
        const ir_grid *g = &f->r->actions[n->ref].grid;
        known[i] = grid_is_discrete(g) ? FOLD_EXACT : isnan(f->val[i]) ? FOLD_UNKNOWN : FOLD_POINT;
        return;
    }
    if (n->op == OP_CONST) {
        known[i] = small_integer(n->k) ? FOLD_EXACT : isfinite(n->k) ? FOLD_POINT : FOLD_UNKNOWN;
        return;
    }
    if (!exact_op(n->op)) return;
    int all = 1, any_false = 0, any_true = 0, points = 1;
    for (int a = 0; a < n->nargs; ++a) {
        int k = known[n->args[a]];
        all &= k == FOLD_EXACT;
        points &= k != FOLD_UNKNOWN;
        any_false |= k == FOLD_EXACT && f->val[n->args[a]] == 0;
        any_true |= k == FOLD_EXACT && f->val[n->args[a]] != 0;
    }
    double v;
    if (all && small_integer(f->val[i])) { /* exact ops on exact integers */
        known[i] = FOLD_EXACT;
    } else if (n->op == OP_AND && any_false) {
        known[i] = FOLD_EXACT, f->val[i] = 0;
    } else if (n->op == OP_OR && any_true) {
        known[i] = FOLD_EXACT, f->val[i] = 1;
    } else if (n->op == OP_WHERE && known[n->args[0]] == FOLD_EXACT) { /* the taken branch's value */
        int taken = n->args[f->val[n->args[0]] != 0 ? 1 : 2];
        known[i] = known[taken], f->val[i] = f->val[taken], f->val32[i] = f->val32[taken];
        return;
    } else if (n->op >= OP_LT && n->op <= OP_NE && points && fold_compare(f, n, &v)) {
        known[i] = FOLD_EXACT, f->val[i] = v;
    }
    f->val32[i] = (float)f->val[i];
}

/* Whether a grid's points are the same wherever they are computed: given
 * in the model, or made by IEEE arithmetic alone.  The runtime plans its
 * tables again from the manifest, perhaps on another machine, and must
 * fold as lcmgen did (the table's size depends on it), so a logspace's
 * points, which come from the machine's exp and log, are not known. */
static int exact_points(const ir_grid *g)
{
    return (g->kind == GRID_IRREG && g->points) || g->kind == GRID_LIN || g->kind == GRID_PWLIN;
}

void ir_fold_init(ir_fold *f, const ir_model *m, const ir_regime *r, long long d, int fixed)
{
    lcm_assert(f && m && r && r->nstates <= IR_SET_BITS);
    lcm_assert(fixed >= 0 && fixed <= r->nactions);
    size_t n = r->nnodes;
    f->r = r;
    f->states = 0;
    f->known = base_xcalloc(n + 1, 1);
    f->val = base_xcalloc(n + 1, sizeof *f->val);
    f->val32 = base_xcalloc(n + 1, sizeof *f->val32);
    f->seen = base_xcalloc(n + 1, 1);
    f->stack = base_xcalloc(n + 1, sizeof *f->stack);
    /* every value ir_eval reads: the fixed actions' codes and points at d
     * (NaN for a point the model does not fix), NaN for the rest (the nodes
     * that read them are not known, whatever their value), zeros for the
     * parameters (likewise) */
    double *states = base_xcalloc((size_t)r->nstates + 1, sizeof *states);
    double *actions = base_xcalloc((size_t)r->nactions + 1, sizeof *actions);
    double *params = base_xcalloc(m->params_size + 1, sizeof *params);
    int *code = base_xcalloc((size_t)fixed + 1, sizeof *code);
    ir_layout_decode(r->actions, fixed, -1, (lcm_index)d, code);
    for (int s = 0; s < r->nstates; ++s) states[s] = NAN;
    for (int a = 0; a < r->nactions; ++a) {
        const ir_grid *g = &r->actions[a].grid;
        actions[a] = NAN;
        if (a >= fixed) continue;
        if (grid_is_discrete(g)) {
            actions[a] = code[a];
        } else if (exact_points(g)) {
            double *points = base_xcalloc((size_t)g->n, sizeof *points);
            ir_grid_points(g, points);
            actions[a] = points[code[a]];
            free(points);
        }
    }
    ir_env env = {.states = states, .actions = actions, .age = NAN, .period = NAN, .enext = NAN, .savings = NAN,
                  .marginal = NAN, .params = params};
    ir_eval(m, r, &env, f->val, n);
    for (size_t i = 0; i < n; ++i) fold_node(f, i, fixed);
    free(states), free(actions), free(params), free(code);
}

void ir_fold_free(ir_fold *f)
{
    free(f->known), free(f->val), free(f->val32), free(f->seen), free(f->stack);
    *f = (ir_fold){0};
}

int ir_fold_false(const ir_fold *f, int id) { return id >= 0 && f->known[id] == FOLD_EXACT && f->val[id] == 0; }

uint64_t ir_fold_reads(ir_fold *f, int root)
{
    if (root < 0 || f->seen[root]) return f->states;
    const ir_regime *r = f->r;
    int top = 0;
    f->stack[top++] = root;
    f->seen[root] = 1;
    while (top) {
        const ir_node *n = &r->nodes[f->stack[--top]];
        if (n->op == OP_STATE) f->states |= (uint64_t)1 << n->ref;
        int first = 0, last = n->nargs;
        if (n->op == OP_WHERE && f->known[n->args[0]] == FOLD_EXACT) /* only the branch taken */
            first = f->val[n->args[0]] != 0 ? 1 : 2, last = first + 1;
        for (int a = first; a < last; ++a) {
            int id = n->args[a];
            if (!f->seen[id]) f->seen[id] = 1, f->stack[top++] = id;
        }
    }
    return f->states;
}
