/* fold.c - see fold.h. */
#include "fold.h"

#include <math.h>
#include <stdlib.h>

#include "eval.h"
#include "layout.h"

/* The fold must decide a where() as every kernel does, in float32 and on a
 * GPU that fuses a * b + c: so a known value is an integer of at most
 * 2^24 in magnitude, made by ops that give such integers exactly in any
 * precision (0.1 + 0.2 == 0.3 holds in float32 alone, and is not folded). */
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

void ir_fold_init(ir_fold *f, const ir_model *m, const ir_regime *r, long long dc)
{
    lcm_assert(f && m && r && r->nstates <= IR_SET_BITS);
    int nd = ir_discrete_actions(r);
    size_t n = r->nnodes;
    f->r = r;
    f->states = 0;
    f->known = base_xcalloc(n + 1, 1);
    f->val = base_xcalloc(n + 1, sizeof *f->val);
    f->seen = base_xcalloc(n + 1, 1);
    f->stack = base_xcalloc(n + 1, sizeof *f->stack);
    /* every value ir_eval reads: the discrete actions' codes at dc, NaN for
     * the rest (the nodes that read them are not known, whatever their
     * value), zeros for the parameters (likewise) */
    double *states = base_xcalloc((size_t)r->nstates + 1, sizeof *states);
    double *actions = base_xcalloc((size_t)r->nactions + 1, sizeof *actions);
    double *params = base_xcalloc(m->params_size + 1, sizeof *params);
    int *code = base_xcalloc((size_t)nd + 1, sizeof *code);
    ir_layout_decode(r->actions, nd, -1, (lcm_index)dc, code);
    for (int s = 0; s < r->nstates; ++s) states[s] = NAN;
    for (int a = 0; a < r->nactions; ++a) actions[a] = a < nd ? code[a] : NAN;
    ir_env env = {.states = states, .actions = actions, .age = NAN, .period = NAN, .enext = NAN, .savings = NAN,
                  .marginal = NAN, .params = params};
    ir_eval(m, r, &env, f->val, n);
    for (size_t i = 0; i < n; ++i) {
        const ir_node *node = &r->nodes[i];
        if (node->op == OP_ACTION) f->known[i] = node->ref < nd;
        else if (node->op == OP_CONST || exact_op(node->op)) {
            f->known[i] = small_integer(f->val[i]);
            for (int a = 0; a < node->nargs; ++a) f->known[i] &= f->known[node->args[a]];
        }
    }
    free(states), free(actions), free(params), free(code);
}

void ir_fold_free(ir_fold *f)
{
    free(f->known), free(f->val), free(f->seen), free(f->stack);
    *f = (ir_fold){0};
}

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
        if (n->op == OP_WHERE && f->known[n->args[0]]) /* only the branch taken */
            first = f->val[n->args[0]] != 0 ? 1 : 2, last = first + 1;
        for (int a = first; a < last; ++a) {
            int id = n->args[a];
            if (!f->seen[id]) f->seen[id] = 1, f->stack[top++] = id;
        }
    }
    return f->states;
}
