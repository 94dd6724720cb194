/* emit.c - see emit.h. */
#include "emit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "emit_internal.h"
#include "grid.h"
#include "layout.h"
#include "process.h"
#include "template.h"
#include "vars.h"

void emit_indent(emitter *e, int level) { sb_printf(e->b, "%*s", 8 + 4 * level, ""); }

void emit_literal(lcm_sb *b, double x)
{
    if (isnan(x)) sb_puts(b, "LCM_NAN");
    else if (isinf(x)) sb_puts(b, x > 0 ? "LCM_INF" : "(-LCM_INF)");
    else sb_printf(b, "((real)%.17g)", x);
}

/* A node used as a number / as a condition. */
void emit_num(emitter *e, int id)
{
    if (e->r->nodes[id].type == IR_BOOL) sb_printf(e->b, "((real)v%d)", id);
    else sb_printf(e->b, "v%d", id);
}

void emit_cond(emitter *e, int id)
{
    if (e->r->nodes[id].type == IR_BOOL) sb_printf(e->b, "v%d", id);
    else sb_printf(e->b, "(v%d != 0)", id);
}

static void leaf(emitter *e, const ir_node *n)
{
    int ns = e->r->nstates, na = e->r->nactions;
    if (e->leaves == LEAVES_VECTOR) {
        switch (n->op) {
        case OP_STATE: sb_printf(e->b, "x[%d]", n->ref); return;
        case OP_ACTION: sb_printf(e->b, "x[%d]", ns + n->ref); return;
        case OP_AGE: sb_printf(e->b, "x[%d]", ns + na); return;
        case OP_PERIOD: sb_printf(e->b, "x[%d]", ns + na + 1); return;
        case OP_ENEXT: sb_printf(e->b, "x[%d]", ns + na + 2); return;
        default: return;
        }
    }
    switch (n->op) {
    case OP_STATE: sb_printf(e->b, "x[%d]", n->ref); return;
    case OP_ACTION: sb_printf(e->b, "act%d", n->ref); return;
    case OP_AGE: sb_puts(e->b, "((real)a->age)"); return;
    case OP_PERIOD: sb_puts(e->b, "((real)a->period)"); return;
    case OP_ENEXT: sb_puts(e->b, "E"); return;
    default: return;
    }
}

static void expr(emitter *e, int id)
{
    const ir_node *n = &e->r->nodes[id];
    const int *a = n->args;
    lcm_sb *b = e->b;
    static const char *infix[OP_COUNT] = {
        [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
        [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_EQ] = "==", [OP_NE] = "!=",
    };
    static const char *call1[OP_COUNT] = {
        [OP_LOG] = "LCM_LOG", [OP_EXP] = "LCM_EXP", [OP_SQRT] = "LCM_SQRT", [OP_ABS] = "LCM_ABS",
        [OP_FLOOR] = "LCM_FLOOR", [OP_CEIL] = "LCM_CEIL", [OP_LOG1P] = "LCM_LOG1P",
        [OP_EXPM1] = "LCM_EXPM1", [OP_NCDF] = "lcm_normal_cdf", [OP_TANH] = "LCM_TANH",
    };
    static const char *call2[OP_COUNT] = {
        [OP_POW] = "LCM_POW", [OP_MOD] = "lcm_mod", [OP_MIN] = "lcm_min", [OP_MAX] = "lcm_max",
    };
    switch (n->op) {
    case OP_CONST: emit_literal(b, n->k); return;
    case OP_STATE: case OP_ACTION: case OP_AGE: case OP_PERIOD: case OP_ENEXT: leaf(e, n); return;
    case OP_PARAM: sb_printf(b, "P[%zu]", e->m->params[n->ref].offset); return;
    case OP_PIDX: {
        const ir_param *p = &e->m->params[n->ref];
        sb_printf(b, "P[%zu", p->offset);
        size_t stride = p->size;
        for (int d = 0; d < p->ndims; ++d) {
            stride /= (size_t)p->dims[d];
            sb_puts(b, " + (lcm_index)");
            emit_num(e, a[d]);
            if (stride != 1) sb_printf(b, " * %zu", stride);
        }
        sb_putc(b, ']');
        return;
    }
    case OP_NEG: sb_puts(b, "(-"), emit_num(e, a[0]), sb_putc(b, ')'); return;
    case OP_NOT: sb_puts(b, "(!"), emit_cond(e, a[0]), sb_putc(b, ')'); return;
    case OP_AND: case OP_OR:
        sb_putc(b, '('), emit_cond(e, a[0]), sb_puts(b, n->op == OP_AND ? " && " : " || "), emit_cond(e, a[1]);
        sb_putc(b, ')');
        return;
    case OP_IDIV: sb_puts(b, "LCM_FLOOR("), emit_num(e, a[0]), sb_puts(b, " / "), emit_num(e, a[1]), sb_putc(b, ')'); return;
    case OP_WHERE:
        sb_putc(b, '('), emit_cond(e, a[0]), sb_puts(b, " ? ");
        if (n->type == IR_BOOL) sb_printf(b, "v%d : v%d)", a[1], a[2]);
        else emit_num(e, a[1]), sb_puts(b, " : "), emit_num(e, a[2]), sb_putc(b, ')');
        return;
    default: break;
    }
    if (infix[n->op]) {
        sb_putc(b, '('), emit_num(e, a[0]), sb_printf(b, " %s ", infix[n->op]), emit_num(e, a[1]), sb_putc(b, ')');
    } else if (call1[n->op]) {
        sb_printf(b, "%s(", call1[n->op]), emit_num(e, a[0]), sb_putc(b, ')');
    } else if (call2[n->op]) {
        sb_printf(b, "%s(", call2[n->op]), emit_num(e, a[0]), sb_puts(b, ", "), emit_num(e, a[1]), sb_putc(b, ')');
    }
}

const char *emit_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Source comment: where in the model file this node came from. */
static void src_comment(emitter *e, const ir_node *n)
{
    if (n->src < 0) return;
    sb_puts(e->b, " /* ");
    for (const char *s = emit_base_name(ir_src(e->m, n->src)); *s; ++s) {
        if (s[0] == '*' && s[1] == '/') sb_puts(e->b, "* /");
        else sb_putc(e->b, *s);
    }
    sb_puts(e->b, " */");
}

void emit_node_decl(emitter *e, int id, int level)
{
    const ir_node *n = &e->r->nodes[id];
    emit_indent(e, level);
    sb_printf(e->b, "const %s v%d = ", n->type == IR_BOOL ? "int" : "real", id);
    expr(e, id);
    sb_putc(e->b, ';');
    src_comment(e, n);
    sb_putc(e->b, '\n');
}

/* ---- analysis of one kernel --------------------------------------------- */
void emit_mark(emitter *e, int id)
{
    if (id < 0 || e->needed[id]) return;
    e->needed[id] = 1;
    const ir_node *n = &e->r->nodes[id];
    for (int i = 0; i < n->nargs; ++i) emit_mark(e, n->args[i]);
}

static void compute_levels(emitter *e, int enext_level)
{
    const ir_regime *r = e->r;
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        int l = LVL_KERNEL, h = 0;
        switch (n->op) {
        case OP_STATE: l = LVL_STATE; break;
        case OP_ACTION: l = LVL_ACTION0 + n->ref; break;
        case OP_ENEXT: l = enext_level, h = 1; break;
        default:
            for (int a = 0; a < n->nargs; ++a) {
                if (e->lvl[n->args[a]] > l) l = e->lvl[n->args[a]];
                h |= e->has_enext[n->args[a]];
            }
        }
        e->lvl[i] = l;
        e->has_enext[i] = (char)h;
    }
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* Level at which the continuation of target g can be computed. */
static int target_level(const emitter *e, const ir_target *tg)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    int l = LVL_KERNEL;
    if (e->flat) return -1;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET) l = max_int(l, e->lvl[nx->node]);
        else if (nx->kind == NEXT_PROCESS) l = max_int(l, nx->src >= 0 ? LVL_STATE : LVL_KERNEL);
        else
            for (int j = 0; j < nx->nprobs; ++j) l = max_int(l, e->lvl[nx->probs[j]]);
    }
    return l;
}

/* Whether the kernel body reads its continuation from a table (when the
 * solve gives one) rather than computing it. */
static int reads_table(const emitter *e) { return e->pre.active && !e->flat; }

/* What the continuation reads: the targets' regime probabilities, next
 * states and weights (ir/precompute.c counts the same). */
static void mark_continuation(emitter *e)
{
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        emit_mark(e, e->r->rprob[tg->regime]);
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            if (tg->next[s].kind == NEXT_DET) emit_mark(e, tg->next[s].node);
            else if (tg->next[s].kind == NEXT_MARKOV)
                for (int j = 0; j < tg->next[s].nprobs; ++j) emit_mark(e, tg->next[s].probs[j]);
        }
    }
}

static int analyze(emitter *e, lcm_err *err)
{
    const ir_regime *r = e->r;
    const ir_kernel *k = e->k;
    e->innermost = LVL_STATE + r->nactions;
    compute_levels(e, 0);
    e->e_level = LVL_KERNEL;
    for (int t = 0; t < k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, k->targets[t]);
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_PROCESS) continue;
            int bad = nx->kind == NEXT_DET ? e->has_enext[nx->node] : 0;
            for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j) bad |= e->has_enext[nx->probs[j]];
            if (bad)
                return lcm_fail(err, LCM_E_MODEL, "regime '%s': the next value of '%s' depends on E_next_V",
                                r->name, tr->states[s].name);
        }
        e->e_level = max_int(e->e_level, max_int(target_level(e, tg), e->lvl[r->rprob[tg->regime]]));
    }
    compute_levels(e, e->e_level);
    e->rp_level = LVL_KERNEL;
    for (int g = 0; g < e->m->nregimes; ++g)
        if (r->rprob[g] >= 0) e->rp_level = max_int(e->rp_level, e->lvl[r->rprob[g]]);
    emit_mark(e, r->q);
    emit_mark(e, r->utility);
    for (int c = 0; c < r->nconstraints; ++c) emit_mark(e, r->constraints[c].node);
    mark_continuation(e);
    for (int i = 0; i < k->ninactive; ++i) emit_mark(e, r->rprob[k->inactive[i]]);
    ir_pre_plan(e->m, e->S, (int)(k - e->m->kernels), &e->pre);
    return 0;
}

/* ---- continuation ------------------------------------------------------- */

/* The cell of a piecewise grid: which piece (comparisons with the pieces'
 * starts), then that piece's closed form. */
static void piece_cell(emitter *e, const ir_grid *gr, int node)
{
    lcm_sb *b = e->b;
    int offset = 0;
    for (int k = 0; k < gr->npieces; offset += gr->pieces[k++].n) {
        double start, stop, next_start = 0, next_stop;
        ir_piece_bounds(&gr->pieces[k], &start, &stop);
        if (k + 1 < gr->npieces) {
            ir_piece_bounds(&gr->pieces[k + 1], &next_start, &next_stop);
            sb_putc(b, '('), emit_num(e, node), sb_puts(b, " < "), emit_literal(b, next_start), sb_puts(b, " ? ");
        }
        int np = gr->pieces[k].n;
        if (gr->kind == GRID_PWLIN) {
            sb_puts(b, "lcm_cell_pwlin("), emit_num(e, node), sb_puts(b, ", "), emit_literal(b, start);
            sb_puts(b, ", "), emit_literal(b, (np - 1) / (stop - start));
        } else {
            sb_puts(b, "lcm_cell_pwlog("), emit_num(e, node), sb_puts(b, ", "), emit_literal(b, start);
            sb_puts(b, ", "), emit_literal(b, log(start)), sb_puts(b, ", "), emit_literal(b, (np - 1) / (log(stop) - log(start)));
        }
        sb_printf(b, ", %d, %d, %d)", offset, np, gr->n);
        if (k + 1 < gr->npieces) sb_puts(b, " : ");
    }
    for (int k = 0; k + 1 < gr->npieces; ++k) sb_putc(b, ')');
    sb_putc(b, ';');
}
/* Where the next-state weights of state s of a target are known: its
 * Markov probabilities' level, or the current state's (an AR(1) row). */
static int weights_level(const emitter *e, const ir_next *nx)
{
    if (e->flat) return -1;
    if (nx->kind == NEXT_PROCESS) return nx->src >= 0 ? LVL_STATE : LVL_KERNEL;
    int l = LVL_KERNEL;
    for (int j = 0; j < nx->nprobs; ++j) l = max_int(l, e->lvl[nx->probs[j]]);
    return l;
}

/* The weights of the kernel's targets' stochastic next states known at this
 * level (and their check), declared here once rather than in every
 * continuation block below: a Markov state's probabilities, a process's
 * transition matrix and, for an AR(1) process, the row of the current value. */
static void stochastic_weights(emitter *e, int level)
{
    lcm_sb *b = e->b;
    for (int t = 0; t < e->k->ntargets && !e->k->last; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        int g = tg->regime;
        const ir_regime *tr = &e->m->regimes[g];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_DET || weights_level(e, nx) != level) continue;
            if (nx->kind == NEXT_PROCESS) {
                int n = tr->states[s].grid.n;
                emit_indent(e, level), sb_printf(b, "const real *LCM_RESTRICT pm%d_%d = G + %zu; /* %s */\n", g, s,
                                                 e->L->matrix_off[g][s], tr->states[s].name);
                if (nx->src >= 0) {
                    size_t soff = e->L->state_off[e->r->id][nx->src];
                    emit_indent(e, level), sb_printf(b, "const int pc%d_%d = lcm_cell_search(x[%d], G + %zu, %d);\n", g,
                                                     s, nx->src, soff, n);
                    emit_indent(e, level), sb_printf(b, "const real pt%d_%d = lcm_frac(x[%d], G + %zu, pc%d_%d);\n", g, s,
                                                     nx->src, soff, g, s);
                }
                continue;
            }
            emit_indent(e, level), sb_printf(b, "const real pm%d_%d[%d] = {", g, s, nx->nprobs);
            for (int j = 0; j < nx->nprobs; ++j) {
                if (j) sb_puts(b, ", ");
                emit_num(e, nx->probs[j]);
            }
            sb_puts(b, "}; /* next ");
            sb_puts(b, tr->states[s].name);
            sb_puts(b, " */\n");
            emit_indent(e, level), sb_printf(b, "const int pmok%d_%d = !checks || lcm_probs_ok(pm%d_%d, %d);\n", g, s, g,
                                             s, nx->nprobs);
        }
    }
}

static void target_block(emitter *e, const ir_target *tg, int level)
{
    const ir_model *m = e->m;
    const ir_regime *tr = &m->regimes[tg->regime];
    int g = tg->regime, P = e->r->rprob[g];
    lcm_sb *b = e->b;
    emit_indent(e, level), sb_printf(b, "/* continuation in regime '%s' */\n", tr->name);
    emit_indent(e, level), sb_printf(b, "real E%d = 0;\n", g);
    emit_indent(e, level), sb_printf(b, "int code_ok%d = 1;\n", g);
    emit_indent(e, level), sb_printf(b, "(void)code_ok%d;\n", g);
    int guarded = e->lvl[P] <= level, in = level + 1;
    const char *inline_only = reads_table(e) ? "!pre" : ""; /* with a table, the block is skipped */
    emit_indent(e, level);
    if (guarded) sb_printf(b, "if (%s%sv%d != 0) {\n", inline_only, *inline_only ? " && " : "", P);
    else if (*inline_only) sb_printf(b, "if (%s) {\n", inline_only);
    else sb_puts(b, "{\n");

    long long *stride = xcalloc((size_t)tr->nstates + 1, sizeof *stride); /* of the target's V */
    ir_strides(tr, stride);
    int ncont = 0; /* interpolated axes: continuous, not processes (read at their nodes) */
    for (int s = 0; s < tr->nstates; ++s) ncont += tg->next[s].kind == NEXT_DET && !grid_is_discrete(&tr->states[s].grid);
    int m1 = ncont ? ncont : 1;
    emit_indent(e, in), sb_printf(b, "const real *LCM_RESTRICT Vn = (const real *)a->v_next[%d];\n", g);
    emit_indent(e, in), sb_puts(b, "lcm_index base = 0;\n");
    emit_indent(e, in), sb_printf(b, "int cell[%d]; real t[%d]; lcm_index st[%d];\n", m1, m1, m1);
    emit_indent(e, in), sb_puts(b, "(void)cell, (void)t, (void)st;\n");
    int kc = 0;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        const ir_grid *gr = &tr->states[s].grid;
        if (nx->kind != NEXT_DET) continue;
        if (grid_is_discrete(gr)) {
            emit_indent(e, in), sb_printf(b, "{ const int c = lcm_code(");
            emit_num(e, nx->node);
            sb_printf(b, ", %d); if (c < 0) code_ok%d = 0; else base += (lcm_index)c * %lld; }\n", gr->n, g,
                      (long long)stride[s]);
            continue;
        }
        size_t off = e->L->state_off[g][s];
        emit_indent(e, in), sb_printf(b, "cell[%d] = ", kc);
        switch (gr->kind) {
        case GRID_LIN:
            sb_puts(b, "lcm_cell_lin("), emit_num(e, nx->node), sb_puts(b, ", "), emit_literal(b, gr->start);
            sb_puts(b, ", "), emit_literal(b, (gr->n - 1) / (gr->stop - gr->start)), sb_printf(b, ", %d);", gr->n);
            break;
        case GRID_LOG:
            sb_puts(b, "lcm_cell_log("), emit_num(e, nx->node), sb_puts(b, ", "), emit_literal(b, gr->start);
            sb_puts(b, ", "), emit_literal(b, log(gr->start));
            sb_puts(b, ", "), emit_literal(b, (gr->n - 1) / (log(gr->stop) - log(gr->start)));
            sb_printf(b, ", %d);", gr->n);
            break;
        case GRID_PWLIN:
        case GRID_PWLOG:
            piece_cell(e, gr, nx->node);
            break;
        default:
            sb_puts(b, "lcm_cell_search("), emit_num(e, nx->node), sb_printf(b, ", G + %zu, %d);", off, gr->n);
            break;
        }
        sb_printf(b, " t[%d] = lcm_frac(", kc), emit_num(e, nx->node);
        sb_printf(b, ", G + %zu, cell[%d]); st[%d] = %lld; /* %s */\n", off, kc, kc, (long long)stride[s],
                  tr->states[s].name);
        ++kc;
    }
    /* Markov states and processes: loops over next points, weighted */
    int depth = in, nm = -1;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET) continue;
        int n = nx->kind == NEXT_MARKOV ? nx->nprobs : tr->states[s].grid.n;
        emit_indent(e, depth);
        sb_printf(b, "for (int k%d = 0; k%d < %d; ++k%d) {\n", s, s, n, s);
        emit_indent(e, depth + 1);
        sb_printf(b, "const real w%d = ", s);
        if (nm >= 0) sb_printf(b, "w%d * ", nm);
        if (nx->kind == NEXT_MARKOV || nx->src < 0) sb_printf(b, "pm%d_%d[k%d];\n", g, s, s);
        else
            sb_printf(b, "((1 - pt%d_%d) * pm%d_%d[pc%d_%d * %d + k%d] + pt%d_%d * pm%d_%d[(pc%d_%d + 1) * %d + k%d]);\n",
                      g, s, g, s, g, s, n, s, g, s, g, s, g, s, n, s);
        emit_indent(e, depth + 1), sb_printf(b, "if (w%d == 0) continue;\n", s);
        nm = s;
        ++depth;
    }
    emit_indent(e, depth);
    int any_markov = depth > in;
    if (any_markov) {
        sb_printf(b, "E%d += w%d * lcm_interp(Vn, base", g, nm);
        for (int s = 0; s < tr->nstates; ++s)
            if (tg->next[s].kind != NEXT_DET) sb_printf(b, " + (lcm_index)k%d * %lld", s, (long long)stride[s]);
    } else {
        sb_printf(b, "E%d = lcm_interp(Vn, base", g);
    }
    sb_printf(b, ", %d, st, cell, t);\n", ncont);
    for (; depth > in; --depth) emit_indent(e, depth - 1), sb_puts(b, "}\n");
    emit_indent(e, level), sb_puts(b, "}\n");
    free(stride);
}

/* E: the targets' continuations weighted by their probabilities, or the
 * table's entry (and its off-grid byte) when the solve gives a table. */
static void e_accumulate(emitter *e, int level)
{
    lcm_sb *b = e->b;
    emit_indent(e, level), sb_puts(b, "real E = 0;\n");
    int table = reads_table(e), in = level;
    if (table) {
        emit_indent(e, level), sb_puts(b, "int pre_bad = 0;\n");
        emit_indent(e, level), sb_puts(b, "if (pre) {\n");
        emit_indent(e, level + 1), sb_puts(b, "const lcm_index at = ");
        int open = 0;
        for (int j = 0; j < e->r->nactions; ++j) open += (int)(e->pre.actions >> j & 1);
        for (int j = 0; j < open; ++j) sb_putc(b, '(');
        sb_puts(b, "pre_row");
        for (int j = 0; j < e->r->nactions; ++j)
            if (e->pre.actions >> j & 1) sb_printf(b, " * %d + i%d)", e->r->actions[j].grid.n, j);
        sb_puts(b, ";\n");
        emit_indent(e, level + 1), sb_puts(b, "E = pre[at], pre_bad = pre_code[at];\n");
        emit_indent(e, level), sb_puts(b, "} else {\n");
        ++in;
    }
    for (int t = 0; t < e->k->ntargets; ++t) {
        int g = e->k->targets[t], P = e->r->rprob[g];
        emit_indent(e, in), sb_printf(b, "if (v%d != 0) E += ", P);
        emit_num(e, P);
        sb_printf(b, " * E%d;\n", g);
    }
    if (table) emit_indent(e, level), sb_puts(b, "}\n");
}

/* The table's row of the state with flat index `point` (ir/precompute.h):
 * the combined index of its sharded states within the launch's block, then
 * its read non-sharded states, a splayed one within its chunk. */
static void table_row(emitter *e, int level)
{
    const ir_state_layout *lay = e->lay;
    lcm_sb *b = e->b;
    int nstates = e->r->nstates;
    /* a left-nested ((0 * n + code) * n + code)...: the parentheses first;
     * the sharded states slowest first, then the others slowest first */
    int open = e->pre.sharded ? nstates - lay->nfree + 1 : 0;
    for (int d = 0; d < lay->nfree; ++d) open += (int)(e->pre.states >> lay->order[d] & 1);
    emit_indent(e, level), sb_puts(b, "const lcm_index pre_row = pre ? ");
    for (int j = 0; j < open; ++j) sb_putc(b, '(');
    sb_puts(b, "0");
    for (int d = nstates - 1; e->pre.sharded && d >= lay->nfree; --d) {
        sb_printf(b, " * %d + ", lay->axis[lay->order[d]].n);
        ir_layout_print_code(lay, lay->order[d], "point", b), sb_putc(b, ')');
    }
    if (e->pre.sharded) sb_puts(b, " - a->shard_lo)");
    for (int d = lay->nfree - 1; d >= 0; --d) {
        int i = lay->order[d];
        if (!(e->pre.states >> i & 1)) continue;
        sb_printf(b, " * %d + ", lay->axis[i].width);
        ir_layout_print_code(lay, i, "point", b), sb_putc(b, ')');
    }
    sb_puts(b, " : 0; /* the state's row of the table */\n");
}

/* The regime probabilities' check, hoisted to where they are all known. */
static void regime_prob_check(emitter *e, int level)
{
    const ir_regime *r = e->r;
    lcm_sb *b = e->b;
    int nprob = 0;
    for (int g = 0; g < e->m->nregimes; ++g) nprob += r->rprob[g] >= 0;
    if (nprob == 0 || e->k->last || level != e->rp_level) return;
    emit_indent(e, level), sb_printf(b, "const real rp[%d] = {", nprob);
    for (int g = 0, first = 1; g < e->m->nregimes; ++g) {
        if (r->rprob[g] < 0) continue;
        if (!first) sb_puts(b, ", ");
        first = 0;
        emit_num(e, r->rprob[g]);
    }
    sb_puts(b, "};\n");
    emit_indent(e, level), sb_printf(b, "const int rp_ok = !checks || lcm_probs_ok(rp, %d);\n", nprob);
}

/* Probability and code checks, for feasible state-action pairs only: the
 * verdicts are computed at their own levels; here, without a branch, the
 * failed ones join `bad`, which the body flags once when it ends. */
static void checks(emitter *e, int level)
{
    const ir_regime *r = e->r;
    const ir_kernel *k = e->k;
    lcm_sb *b = e->b;
    int nprob = 0;
    for (int g = 0; g < e->m->nregimes; ++g) nprob += r->rprob[g] >= 0;
    if (nprob == 0) return;
    emit_indent(e, level), sb_puts(b, "if (checks) bad |= (unsigned)!rp_ok << LCM_FLAG_REGIME_PROB");
    for (int i = 0; i < k->ninactive; ++i)
        sb_printf(b, "\n"), emit_indent(e, level + 1),
            sb_printf(b, "| (unsigned)(v%d != 0) << LCM_FLAG_INACTIVE", r->rprob[k->inactive[i]]);
    for (int t = 0; t < k->ntargets; ++t) {
        int g = k->targets[t];
        const ir_target *tg = ir_target_of(r, g);
        const ir_regime *tr = &e->m->regimes[g];
        sb_printf(b, "\n"), emit_indent(e, level + 1);
        sb_printf(b, "| (unsigned)(v%d != 0 && !code_ok%d) << LCM_FLAG_CODE", r->rprob[g], g);
        for (int s = 0; s < tr->nstates; ++s)
            if (tg->next[s].kind == NEXT_MARKOV)
                sb_printf(b, "\n"), emit_indent(e, level + 1),
                    sb_printf(b, "| (unsigned)(v%d != 0 && !pmok%d_%d) << LCM_FLAG_STATE_PROB", r->rprob[g], g, s);
    }
    if (reads_table(e)) sb_printf(b, "\n"), emit_indent(e, level + 1), sb_puts(b, "| (unsigned)pre_bad << LCM_FLAG_CODE");
    sb_puts(b, ";\n");
}

/* ---- the loop nest -------------------------------------------------------- */
static void emit_level(emitter *e, int level)
{
    const ir_regime *r = e->r;
    lcm_sb *b = e->b;
    if (level >= LVL_ACTION0) {
        int j = level - LVL_ACTION0;
        const ir_grid *g = &r->actions[j].grid;
        emit_indent(e, level - 1);
        if (j == e->k->par) /* split across the lanes of a GPU state; one lane on the CPU */
            sb_printf(b, "for (int i%d = LCM_LANE; i%d < %d; i%d += LCM_LANES) { /* action %s */\n", j, j, g->n, j,
                      r->actions[j].name);
        else
            sb_printf(b, "for (int i%d = 0; i%d < %d; ++i%d) { /* action %s */\n", j, j, g->n, j, r->actions[j].name);
        emit_indent(e, level);
        if (grid_is_discrete(g)) sb_printf(b, "const real act%d = (real)i%d;\n", j, j);
        else sb_printf(b, "const real act%d = G[%zu + i%d];\n", j, e->L->action_off[r->id][j], j);
        emit_indent(e, level);
        if (j == 0) sb_printf(b, "const lcm_index ai%d = i0;\n", j);
        else sb_printf(b, "const lcm_index ai%d = ai%d * %d + i%d;\n", j, j - 1, g->n, j);
    }
    if (reads_table(e) && level == LVL_KERNEL) {
        emit_indent(e, level), sb_puts(b, "const real *LCM_RESTRICT pre = (const real *)a->cont; /* 0: inline */\n");
        emit_indent(e, level), sb_puts(b, "const unsigned char *LCM_RESTRICT pre_code = a->cont_code;\n");
    }
    if (reads_table(e) && level == LVL_STATE) table_row(e, level);
    for (size_t i = 0; i < r->nnodes; ++i)
        if (e->needed[i] && e->lvl[i] == level && !e->has_enext[i]) emit_node_decl(e, (int)i, level);
    regime_prob_check(e, level);
    stochastic_weights(e, level);
    for (int c = 0; c < r->nconstraints; ++c) {
        int id = r->constraints[c].node;
        if (e->lvl[id] != level) continue;
        emit_indent(e, level), sb_puts(b, "if (!");
        emit_cond(e, id);
        sb_printf(b, ") %s; /* constraint %s */\n", level < LVL_ACTION0 ? "break" : "continue", r->constraints[c].name);
    }
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, e->k->targets[t]);
        if (target_level(e, tg) == level) target_block(e, tg, level);
    }
    if (!e->k->last && level == e->e_level) e_accumulate(e, level);
    for (size_t i = 0; i < r->nnodes; ++i)
        if (e->needed[i] && e->lvl[i] == level && e->has_enext[i]) emit_node_decl(e, (int)i, level);
    if (level == e->innermost) {
        if (!e->k->last) checks(e, level);
        emit_indent(e, level), sb_puts(b, "{\n");
        emit_indent(e, level + 1), sb_puts(b, "const real q = "), emit_num(e, r->q), sb_puts(b, ";\n");
        emit_indent(e, level + 1), sb_puts(b, "if (q != q) nan_q = 1;\n");
        emit_indent(e, level + 1);
        if (r->nactions)
            sb_printf(b, "else if (q > best || best_a < 0) { best = q; best_a = ai%d; }\n", r->nactions - 1);
        else
            sb_puts(b, "else if (q > best || best_a < 0) { best = q; best_a = 0; }\n");
        emit_indent(e, level), sb_puts(b, "}\n");
    } else {
        emit_level(e, level + 1);
    }
    if (level >= LVL_ACTION0) emit_indent(e, level - 1), sb_puts(b, "}\n");
}

/* The table entry of a kernel (templates/table.c.in): entry j's read
 * actions and states (ir/precompute.h), then the continuation as the kernel
 * body computes it inline, every node at one level. */
static int emit_table(const emitter *e, const char *nx, lcm_sb *out, lcm_err *err)
{
    const ir_regime *r = e->r;
    emitter f = *e;
    f.flat = 1;
    f.lvl = xcalloc(r->nnodes + 1, sizeof *f.lvl);
    f.needed = xcalloc(r->nnodes + 1, 1);
    for (size_t i = 0; i < r->nnodes; ++i) f.lvl[i] = -1;
    mark_continuation(&f);
    lcm_sb decode, body, off_grid;
    sb_init(&decode), sb_init(&body), sb_init(&off_grid);
    for (int j = r->nactions - 1; j >= 0; --j) {
        const ir_grid *g = &r->actions[j].grid;
        if (!(f.pre.actions >> j & 1)) continue;
        sb_printf(&decode, "    const int i%d = (int)(rest %% %d);\n    rest /= %d;\n", j, g->n, g->n);
        if (grid_is_discrete(g)) sb_printf(&decode, "    const real act%d = (real)i%d;", j, j);
        else sb_printf(&decode, "    const real act%d = G[%zu + i%d];", j, f.L->action_off[r->id][j], j);
        sb_printf(&decode, " /* %s */\n", r->actions[j].name);
    }
    const ir_state_layout *lay = f.lay;
    for (int d = 0; d < lay->nfree; ++d) { /* the read states, fastest first, a splayed one within its chunk */
        int i = lay->order[d];
        const ir_grid *g = &r->states[i].grid;
        if (!(f.pre.states >> i & 1)) continue;
        sb_puts(&decode, "    { const int c = ");
        if (lay->axis[i].chunk >= 0) ir_layout_print_chunk_start(lay, i, &decode), sb_puts(&decode, " + ");
        sb_printf(&decode, "(int)(rest %% %d); rest /= %d; if (c >= %d) return; x[%d] = ", lay->axis[i].width,
                  lay->axis[i].width, g->n, i);
        if (grid_is_discrete(g)) sb_puts(&decode, "(real)c; }");
        else sb_printf(&decode, "G[%zu + c]; }", f.L->state_off[r->id][i]);
        sb_printf(&decode, " /* %s */\n", r->states[i].name);
    }
    if (f.pre.sharded) {
        sb_puts(&decode, "    lcm_index combo = a->shard_lo + rest; /* the sharded states, last fastest */\n");
        for (int d = lay->nfree; d < r->nstates; ++d) {
            int i = lay->order[d];
            sb_printf(&decode, "    x[%d] = (real)(combo %% %d); /* %s */\n    combo /= %d;\n", i, lay->axis[i].n,
                      r->states[i].name, lay->axis[i].n);
        }
    }
    f.b = &body;
    for (size_t i = 0; i < r->nnodes; ++i)
        if (f.needed[i] && !f.has_enext[i]) emit_node_decl(&f, (int)i, -1);
    stochastic_weights(&f, -1);
    for (int t = 0; t < f.k->ntargets; ++t) target_block(&f, ir_target_of(r, f.k->targets[t]), -1);
    e_accumulate(&f, -1);
    sb_puts(&off_grid, "0");
    for (int t = 0; t < f.k->ntargets; ++t)
        sb_printf(&off_grid, " | (v%d != 0 && !code_ok%d)", r->rprob[f.k->targets[t]], f.k->targets[t]);
    const char *kv[] = {"symbol", f.k->symbol, "nx", nx, "decode", decode.s ? decode.s : "", "body", body.s,
                        "off_grid", off_grid.s, NULL};
    int rc = lcm_fill_template(lcm_embed_table_c_in, kv, out, err);
    sb_free(&decode), sb_free(&body), sb_free(&off_grid);
    free(f.lvl), free(f.needed);
    return rc;
}

static int emit_kernel(const ir_model *m, const ir_grid_layout *L, const ir_vars *V, const ir_shard *S,
                       const ir_kernel *k, lcm_sb *out, lcm_err *err)
{
    const ir_regime *r = &m->regimes[k->regime];
    ir_state_layout lay;
    ir_state_layout_build(m, V, S, r->id, &lay);
    emitter e = {.m = m, .r = r, .k = k, .L = L, .S = S, .lay = &lay, .leaves = LEAVES_KERNEL};
    e.lvl = xcalloc(r->nnodes + 1, sizeof *e.lvl);
    e.needed = xcalloc(r->nnodes + 1, 1);
    e.has_enext = xcalloc(r->nnodes + 1, 1);
    lcm_sb body, decode, what, names, load, state, order, table;
    sb_init(&body), sb_init(&decode), sb_init(&what), sb_init(&names), sb_init(&load), sb_init(&state);
    sb_init(&order), sb_init(&table);
    int rc = analyze(&e, err);
    if (!rc) {
        e.b = &body;
        emit_level(&e, LVL_KERNEL);
        /* state decode: flat index -> codes -> values */
        if (r->nstates) sb_printf(&decode, "    lcm_index rem = s;\n");
        for (int s = r->nstates - 1; s >= 0; --s) {
            const ir_grid *g = &r->states[s].grid;
            sb_printf(&decode, "    { const int c = (int)(rem %% %d); rem /= %d; x[%d] = ", g->n, g->n, s);
            if (grid_is_discrete(g)) sb_puts(&decode, "(real)c; }");
            else sb_printf(&decode, "G[%zu + c]; }", L->state_off[r->id][s]);
            sb_printf(&decode, " /* %s */\n", r->states[s].name);
        }
        sb_puts(&what, "periods");
        for (int t = 0; t < m->nperiods; ++t)
            if (m->period_kernel[r->id * m->nperiods + t] == (int)(k - m->kernels)) sb_printf(&what, " %d", t);
        for (int s = 0; s < r->nstates; ++s) sb_printf(&names, "%s%s", s ? ", " : "", r->states[s].name);
        if (!r->nstates) sb_puts(&names, "no states");
        /* simulation: a subject's state values from its slots */
        for (int s = 0; s < r->nstates; ++s)
            sb_printf(&load, "    x[%d] = X[%d]; /* %s */\n", s, V->state_slot[r->id][s], r->states[s].name);
        char nx[32], step[128];
        snprintf(nx, sizeof nx, "%d", r->nstates ? r->nstates : 1);
        lcm_step_symbol(m, r->id, step, sizeof step);
        ir_layout_print_state(&lay, &state, &order);
        const char *kv[] = {"symbol", k->symbol, "regime", r->name, "what", what.s, "state_names", names.s,
                            "body", body.s ? body.s : "", "nx", nx, "decode", decode.s ? decode.s : "",
                            "load", load.s ? load.s : "", "step", step, "state_of", state.s,
                            "launch_order", order.s, "table", "", NULL};
        if (e.pre.active) rc = emit_table(&e, nx, &table, err);
        kv[sizeof kv / sizeof *kv - 2] = table.s ? table.s : "";
        if (!rc) rc = lcm_fill_template(lcm_embed_kernel_c_in, kv, out, err);
    }
    sb_free(&body), sb_free(&decode), sb_free(&what), sb_free(&names), sb_free(&load), sb_free(&state);
    sb_free(&order), sb_free(&table);
    free(e.lvl), free(e.needed), free(e.has_enext);
    ir_state_layout_free(&lay);
    return rc;
}

void lcm_emit_prelude(lcm_sb *out)
{
    sb_puts(out, lcm_embed_kernel_abi_h);
    sb_puts(out, "\n");
    sb_puts(out, lcm_embed_prelude_h);
    sb_puts(out, "\n");
    sb_puts(out, lcm_embed_random_h);
}

int lcm_emit_source(const ir_model *m, lcm_sb *out, lcm_err *err)
{
    sb_printf(out, "/* Generated by lcmgen from %s (model '%s'). Do not edit. */\n\n", emit_base_name(m->file ? m->file : "?"),
              m->name);
    lcm_emit_prelude(out);
    ir_grid_layout L = {0};
    ir_grid_layout_build(m, &L);
    ir_vars V;
    ir_vars_build(m, &V);
    ir_shard S;
    ir_shard_build(m, &V, &S);
    int rc = 0;
    /* the simulation steps of the regimes that have kernels, then the kernels */
    for (int r = 0; r < m->nregimes && !rc; ++r) {
        int used = 0;
        for (int k = 0; k < m->nkernels; ++k) used |= m->kernels[k].regime == r;
        if (used) rc = lcm_emit_step(m, &L, &V, r, out, err);
    }
    for (int k = 0; k < m->nkernels && !rc; ++k) rc = emit_kernel(m, &L, &V, &S, &m->kernels[k], out, err);
    ir_vars_free(&V);
    ir_grid_layout_free(&L);
    return rc;
}

int lcm_emit_node_function(const ir_model *m, const ir_regime *r, int node, const char *name,
                           lcm_sb *out, lcm_err *err)
{
    emitter e = {.m = m, .r = r, .leaves = LEAVES_VECTOR, .b = out};
    e.needed = xcalloc(r->nnodes + 1, 1);
    if (node < 0 || node >= (int)r->nnodes) {
        free(e.needed);
        return lcm_fail(err, LCM_E_INTERNAL, "no node %d", node);
    }
    emit_mark(&e, node);
    sb_printf(out, "LCM_EXTERN real %s(const real *x, const real *P)\n{\n    (void)x, (void)P;\n", name);
    for (int i = 0; i <= node; ++i)
        if (e.needed[i]) emit_node_decl(&e, i, -1);
    sb_printf(out, "    return ");
    emit_num(&e, node);
    sb_puts(out, ";\n}\n");
    free(e.needed);
    return 0;
}
