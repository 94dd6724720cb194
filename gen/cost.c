/* cost.c - see cost.h. */
#include "cost.h"

#include <math.h>
#include <stdlib.h>

#include "arith.h" /* lcm_pow_kind, lcm_div_by: what the solve reduces */
#include "emit_internal.h"
#include "eval.h"
#include "shard.h"

/* Times a node of `level` runs per state-action pair: 1 in the innermost
 * action loop, 1/n for each inner loop of n actions it is outside of;
 * nothing for what a launch computes once. */
static double per_pair(const emitter *e, int level)
{
    if (level <= LVL_KERNEL) return 0;
    double w = 1;
    for (int l = level + 1; l <= e->n->innermost; ++l)
        w /= e->r->actions[plan_loop_action(e->n, l)].grid.n;
    return w;
}

/* A value the loop sees as one number: a constant, or with the
 * parameters given, a node of parameters, age and period alone (its value
 * at the kernel's first period). */
static int known(const emitter *e, const double *vals, int id, double *k)
{
    const ir_node *n = &e->r->nodes[id];
    if (n->op == OP_CONST) *k = n->k;
    else if (vals && e->n->lvl[id] == LVL_KERNEL) *k = vals[id];
    else return 0;
    return 1;
}

/* What node id costs each time it runs. */
static void node_cost(const emitter *e, const double *vals, int id, double rb, double w, lcm_kernel_cost *c)
{
    const ir_node *n = &e->r->nodes[id];
    double k;
    switch (n->op) {
    case OP_CONST: case OP_AGE: case OP_PERIOD: case OP_ENEXT: case OP_PARAM: return;
    case OP_STATE: case OP_ACTION: { /* a grid point: start + i * step, or a load */
        const ir_var *v = n->op == OP_STATE ? &e->r->states[n->ref] : &e->r->actions[n->ref];
        if (v->grid.kind == GRID_LIN) c->arith += 2 * w;
        else if (!grid_is_discrete(&v->grid)) c->bytes += rb * w;
        return;
    }
    case OP_PIDX: c->bytes += rb * w, c->arith += 2.0 * (n->nargs - 1) * w; return;
    case OP_NOT: case OP_AND: case OP_OR: case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE:
    case OP_WHERE: c->compare += w; return;
    case OP_SQRT: c->divide += w; return;
    case OP_MOD: c->divide += w, c->arith += 3 * w; return;
    case OP_IDIV: c->divide += w, c->arith += w; return;
    case OP_DIV: { /* a product where exact: by a constant power of two (the compiler's), lcm_div_by's divisors */
        int exponent, is_const = n->args[1] >= 0 && e->r->nodes[n->args[1]].op == OP_CONST;
        if (known(e, vals, n->args[1], &k) &&
            (is_const ? k != 0 && isfinite(k) && fabs(frexp(k, &exponent)) == 0.5 : lcm_div_by(k) != 0))
            c->arith += w;
        else c->divide += w;
        return;
    }
    case OP_POW: { /* lcm_pow at an exponent the loop sees as one number (arith.h) */
        int kind = known(e, vals, n->args[1], &k) ? lcm_pow_kind(k) : 0; /* 1: x * x, 2: 1 / x, 3 and 4: none */
        if (kind == 1) c->arith += w;
        else if (kind == 2) c->divide += w;
        else if (kind == 0 && known(e, vals, n->args[1], &k) && k == 0.5) c->divide += w, c->compare += w; /* sqrt */
        else if (kind == 0) c->calls += w;
        return;
    }
    case OP_LOG: case OP_EXP: case OP_LOG1P: case OP_EXPM1: case OP_NCDF: case OP_TANH: c->calls += w; return;
    default: c->arith += w; return; /* neg, abs, floor, ceil, add, sub, mul, min, max */
    }
}

/* Locating a continuous next state in target g's grid and the fraction
 * between its points (prelude.h: lcm_cell_*, lcm_frac). */
static void cell_cost(const ir_grid *gr, double rb, double w, lcm_kernel_cost *c)
{
    switch (gr->kind) {
    case GRID_LIN: c->arith += 3 * w, c->compare += 2 * w; break;
    case GRID_LOG: c->arith += 3 * w, c->compare += 3 * w, c->calls += w; break;
    case GRID_PWLIN: case GRID_PWLOG:
        c->compare += (gr->npieces + 1) * w, c->arith += 4 * w, c->calls += (gr->kind == GRID_PWLOG) * w;
        break;
    default: { /* a binary search */
        double steps = ceil(log2(gr->n > 2 ? gr->n - 1 : 1));
        c->compare += steps * w, c->bytes += steps * rb * w;
    }
    }
    c->arith += 2 * w, c->divide += w, c->bytes += 2 * rb * w; /* lcm_frac */
}

/* The continuation computed in the body, per evaluation (emit_continuation.c,
 * emit_target_block): per target, the next states' cells, then over the Markov
 * categories and process nodes the 2^c corners of the interpolation; over
 * the Markov categories only where the solve reads the target's expected V
 * (ir/precompute.h, "ev"), whose V it then reads. */
static void continuation_cost(const emitter *e, double rb, double w, lcm_kernel_cost *c)
{
    int ez = e->r->risk_aversion >= 0;
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        const ir_regime *tr = &e->m->regimes[tg->regime];
        int *axis = emit_ev_axes(e, tg); /* read from the expected V: no loop over the states it sums */
        double combos = 1;
        int ncont = 0;
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            const ir_grid *gr = &tr->states[s].grid;
            if (axis && axis[s] != IR_EV_NONE) /* its row of the expected V: the current node's or category's, or 0 */
                c->arith += 2 * w * (axis[s] >= 0 || (axis[s] == IR_EV_PROCESS && nx->src >= 0));
            else if (nx->kind == NEXT_MARKOV) combos *= nx->nprobs;
            else if (nx->kind == NEXT_PROCESS) combos *= gr->n;
            else if (grid_is_discrete(gr)) c->compare += 4 * w, c->arith += 3 * w; /* lcm_code, base */
            else cell_cost(gr, rb, w, c), ++ncont;
        }
        double corners = ldexp(1, ncont);
        c->arith += combos * corners * (2.0 * ncont + 2) * w; /* the corner's weight, then acc += w * V */
        c->compare += combos * corners * w;                   /* a zero weight skips its corner */
        c->bytes += combos * corners * rb * w;                /* V of the next period */
        c->arith += combos * 3 * w, c->compare += combos * w;  /* the category's weight, E += w * v */
        c->calls += ez * combos * w;                           /* Epstein-Zin: a power per lottery entry */
        c->arith += 2 * w;                                     /* the regime's probability times its E */
        c->footprint += (double)ir_state_space_size(tr) * rb;
        free(axis);
    }
}

/* The value of every node at the kernel's first period, from the
 * parameters (states and actions at 0: only the values of nodes that read
 * neither are used). */
static double *kernel_values(const emitter *e, const double *params)
{
    const ir_model *m = e->m;
    const ir_regime *r = e->r;
    int t = 0;
    while (t + 1 < m->nperiods && m->period_kernel[r->id * m->nperiods + t] != (int)(e->k - m->kernels)) ++t;
    double *zeros = base_xcalloc((size_t)(r->nstates + r->nactions) + 1, sizeof *zeros);
    double *vals = base_xcalloc(r->nnodes + 1, sizeof *vals);
    ir_env env = {.states = zeros, .actions = zeros + r->nstates, .age = m->ages[t], .period = t, .params = params};
    ir_eval(m, r, &env, vals, r->nnodes);
    free(zeros);
    return vals;
}

/* On the CPU, the loops that build the hoisted terms (emit.c, "hoisted
 * terms"; emit_loops.c builds them): at each level, for each home action
 * inside it, that action's points times what one of them computes and its
 * caps' tests, that often per pair as the level runs (a loop of LVL_KERNEL
 * runs once per state, in the body; at most: a cap may end it sooner). */
static void hoisted_cost(const emitter *e, const double *vals, double rb, lcm_kernel_cost *c)
{
    const ir_regime *r = e->r;
    char *chain = base_xmalloc(r->nnodes + 1);
    for (int level = LVL_KERNEL; level < e->n->innermost; ++level)
        for (int home = level + 1 > LVL_ACTION0 ? level + 1 : LVL_ACTION0; home <= e->n->innermost; ++home) {
            if (!emit_hoist_chain(e, level, home, chain)) continue;
            int points = r->actions[plan_loop_action(e->n, home)].grid.n;
            double w = per_pair(e, level < LVL_STATE ? LVL_STATE : level) * points;
            c->compare += emit_hoist_caps(e, level, home, NULL) * w;
            for (size_t i = 0; i < r->nnodes; ++i) {
                if (!chain[i]) continue;
                if (emit_hoist_reads(e, (int)i, level)) c->bytes += rb * w;
                else node_cost(e, vals, (int)i, rb, w, c);
                if (emit_hoisted_to(e, (int)i, level)) c->footprint += rb * points;
            }
        }
    free(chain);
}

int gen_kernel_cost_of(const ir_model *m, int k, int precision, const double *params, int tables, int host,
                       lcm_kernel_cost *out, lcm_err *err)
{
    *out = (lcm_kernel_cost){0};
    if (k < 0 || k >= m->nkernels) return base_fail(err, LCM_E_INTERNAL, "no kernel %d", k);
    emit_layouts lo;
    emit_layouts_build(m, &lo);
    kernel_plan p;
    int rc = gen_plan_kernel(&p, m, &lo, &m->kernels[k], tables, host, err);
    emitter e = emit_printer(&p, &p.body, NULL, 0); /* the body's questions, nothing printed */
    double rb = precision / 8, *vals = !rc && params ? kernel_values(&e, params) : NULL;
    const plan_nest *b = &p.body;
    for (size_t i = 0; !rc && i < p.r->nnodes; ++i) {
        if (!b->needed[i] || b->terms_only[i] || b->next_only[i]) continue; /* next states: in the table */
        if (b->hoist_only[i]) continue; /* computed where the hoisted terms are built */
        double w = per_pair(&e, b->lvl[i]);
        if (b->tabled[i] || b->hoisted[i]) out->bytes += rb * w; /* read from lcm_at or its lcm_h */
        else node_cost(&e, vals, (int)i, rb, w, out);
    }
    out->footprint = b->nat * rb;
    if (!rc) hoisted_cost(&e, vals, rb, out);
    free(vals);
    if (!rc) out->compare += 2; /* the running best: Q against it, then the feasibility the update needs */
    if (!rc && !p.k->last && p.pre.active) {
        out->table = 1;
        out->bytes += rb + 1; /* the entry and its flag byte */
        out->footprint += (double)ir_pre_entries(&p.pre, 1) * (rb + 1);
    } else if (!rc && !p.k->last) {
        out->inline_continuation = 1;
        out->expected_v = p.pre.ev;
        continuation_cost(&e, rb, per_pair(&e, b->e_level), out);
    }
    gen_plan_free(&p);
    emit_layouts_free(&lo);
    return rc;
}
