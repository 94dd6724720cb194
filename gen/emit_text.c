/* emit_text.c - the text layer of the emitter: indented lines, literals,
 * the names of DAG nodes, expressions, declarations with their source
 * comments, and #line directives (emit_internal.h). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_internal.h"

/* ---- lines ---------------------------------------------------------------- */
void emit_start(emitter *e) { base_sb_printf(e->b, "%*s", 4 * e->depth, ""); }

static void vline(emitter *e, const char *fmt, va_list ap)
{
    emit_start(e);
    base_sb_vprintf(e->b, fmt, ap);
    base_sb_putc(e->b, '\n');
}

void emit_line(emitter *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(e, fmt, ap);
    va_end(ap);
}

void emit_open(emitter *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(e, fmt, ap);
    va_end(ap);
    e->depth++;
}

void emit_close(emitter *e)
{
    e->depth--;
    emit_line(e, "}");
}

void emit_else(emitter *e)
{
    e->depth--;
    emit_open(e, "} else {");
}

const char *emit_fragment(lcm_sb *b)
{
    if (!b->s) return "";
    if (b->len && b->s[b->len - 1] == '\n') b->s[--b->len] = 0;
    return b->s;
}

emit_lit emit_literal(double x)
{
    emit_lit l;
    if (isnan(x)) snprintf(l.s, sizeof l.s, "LCM_NAN");
    else if (isinf(x)) snprintf(l.s, sizeof l.s, "%s", x > 0 ? "LCM_INF" : "(-LCM_INF)");
    else if (x == 0 && signbit(x)) snprintf(l.s, sizeof l.s, "((real)-0.0)"); /* "-0" would be the integer 0 */
    else snprintf(l.s, sizeof l.s, "((real)%.17g)", x);
    return l;
}

const char *emit_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- names of nodes ---------------------------------------------------------
 * A node that reads something of the model is named after it: `s_<state>`,
 * `a_<action>`, `age`, `period`, `E_next_V`, and `p_<parameter>` followed
 * by its indices (a constant index by its label); any other node is
 * `v<id>`.  Model names are identifiers; labels are mangled to one. */
static void put_mangled(lcm_sb *b, const char *s)
{
    for (; *s; ++s) base_sb_putc(b, isalnum((unsigned char)*s) || *s == '_' ? *s : '_');
}

/* The discrete grid of state or action `var` of size n: the regime's, else
 * another regime's state; NULL when none. */
static const ir_grid *var_grid(const ir_model *m, const ir_regime *r, const char *var, int n)
{
    for (int i = 0; i < r->nstates + r->nactions; ++i) {
        const ir_var *v = i < r->nstates ? &r->states[i] : &r->actions[i - r->nstates];
        if (!strcmp(v->name, var) && grid_is_discrete(&v->grid) && v->grid.n == n) return &v->grid;
    }
    for (int g = 0; g < m->nregimes; ++g)
        for (int i = 0; i < m->regimes[g].nstates; ++i) {
            const ir_var *v = &m->regimes[g].states[i];
            if (!strcmp(v->name, var) && grid_is_discrete(&v->grid) && v->grid.n == n) return &v->grid;
        }
    return NULL;
}

/* The grid of the variable that indexes a parameter's dimension d: a state
 * or action, or for the row of a Markov transition (`next_<state>`) that
 * state. */
static const ir_grid *dim_grid(const ir_model *m, const ir_regime *r, const ir_param *p, int d)
{
    const char *var = p->dimnames[d];
    if (!var) return NULL;
    const ir_grid *g = var_grid(m, r, var, p->dims[d]);
    if (!g && !strncmp(var, "next_", 5)) g = var_grid(m, r, var + 5, p->dims[d]);
    return g;
}

/* The part of a parameter read's name for index d (node ix). */
static void index_name(const ir_model *m, const ir_regime *r, const ir_param *p, int d, int ix, lcm_sb *b)
{
    const ir_node *n = &r->nodes[ix];
    switch (n->op) {
    case OP_STATE: put_mangled(b, r->states[n->ref].name); return;
    case OP_ACTION: put_mangled(b, r->actions[n->ref].name); return;
    case OP_AGE: base_sb_puts(b, "age"); return;
    case OP_PERIOD: base_sb_puts(b, "period"); return;
    case OP_CONST:
        if (n->k >= 0 && n->k < p->dims[d] && n->k == floor(n->k)) {
            const ir_grid *g = dim_grid(m, r, p, d);
            if (g && g->labels) put_mangled(b, g->labels[(int)n->k]);
            else base_sb_printf(b, "%d", (int)n->k);
            return;
        }
        break;
    default: break;
    }
    base_sb_printf(b, "v%d", ix);
}

/* Whether a parameter slot's name is also the name of another slot the
 * regime reads (one name used by two functions, e.g. per-target next
 * states): such reads are named after their function too. */
static int shared_name(const ir_model *m, const ir_regime *r, int slot)
{
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        if ((n->op == OP_PARAM || n->op == OP_PIDX) && n->ref != slot &&
            !strcmp(m->params[n->ref].name, m->params[slot].name))
            return 1;
    }
    return 0;
}

/* The name of node id, when it reads something of the model (else NULL). */
static char *model_name(const ir_model *m, const ir_regime *r, int id)
{
    const ir_node *n = &r->nodes[id];
    lcm_sb b;
    base_sb_init(&b);
    switch (n->op) {
    case OP_STATE:
        base_sb_puts(&b, "s_");
        put_mangled(&b, r->states[n->ref].name);
        break;
    case OP_ACTION:
        base_sb_puts(&b, "a_");
        put_mangled(&b, r->actions[n->ref].name);
        break;
    case OP_AGE: base_sb_puts(&b, "age"); break;
    case OP_PERIOD: base_sb_puts(&b, "period"); break;
    case OP_ENEXT: base_sb_puts(&b, "E_next_V"); break;
    case OP_STAGE: base_sb_printf(&b, "best_%s", r->actions[n->ref >= 0 ? (int)n->k : 0].name); break;
    case OP_STAGE_OK: base_sb_printf(&b, "some_%s", r->actions[n->ref >= 0 ? (int)n->k : 0].name); break;
    case OP_SAVINGS: base_sb_puts(&b, "egm_a"); break;
    case OP_MARGINAL: base_sb_puts(&b, "egm_m"); break;
    case OP_PARAM:
    case OP_PIDX: {
        const ir_param *p = &m->params[n->ref];
        base_sb_puts(&b, "p_");
        if (p->func && *p->func && shared_name(m, r, n->ref)) {
            put_mangled(&b, p->func);
            base_sb_putc(&b, '_');
        }
        put_mangled(&b, p->name);
        for (int d = 0; n->op == OP_PIDX && d < p->ndims; ++d) {
            base_sb_putc(&b, '_');
            index_name(m, r, p, d, n->args[d], &b);
        }
        break;
    }
    default: return NULL;
    }
    return base_sb_take(&b);
}

/* Node i's model name, or with its id appended until no earlier name is
 * the same (two names can still meet: labels that mangle alike, an index
 * computed by an expression); `v<id>` never clashes with a model name. */
static char *unique_name(char *name, size_t i, char **named, int nnamed)
{
    for (int j = 0; j < nnamed; ++j)
        if (!strcmp(named[j], name)) {
            char *longer = base_xasprintf("%s_%zu", name, i);
            free(name);
            name = longer;
            j = -1;
        }
    return name;
}

void emit_names_build(const ir_model *m, const ir_regime *r, emit_names *out)
{
    out->n = r->nnodes;
    out->name = base_xcalloc(r->nnodes + 1, sizeof *out->name);
    out->num = base_xcalloc(r->nnodes + 1, sizeof *out->num);
    out->cond = base_xcalloc(r->nnodes + 1, sizeof *out->cond);
    char **named = base_xcalloc(r->nnodes + 1, sizeof *named); /* the model names given so far */
    int nnamed = 0;
    for (size_t i = 0; i < r->nnodes; ++i) {
        char *name = model_name(m, r, (int)i);
        if (name) {
            name = unique_name(name, i, named, nnamed);
            named[nnamed++] = name;
        } else {
            name = base_xasprintf("v%zu", i);
        }
        int boolean = r->nodes[i].type == IR_BOOL;
        out->name[i] = name;
        out->num[i] = boolean ? base_xasprintf("((real)%s)", name) : base_xstrdup(name);
        out->cond[i] = boolean ? base_xstrdup(name) : base_xasprintf("(%s != 0)", name);
    }
    free(named);
}

void emit_names_free(emit_names *n)
{
    for (size_t i = 0; i < n->n; ++i) free(n->name[i]), free(n->num[i]), free(n->cond[i]);
    free(n->name), free(n->num), free(n->cond);
    memset(n, 0, sizeof *n);
}

/* ---- expressions ------------------------------------------------------------ */
static void leaf(const emitter *e, const ir_node *n, lcm_sb *b)
{
    int ns = e->r->nstates, na = e->r->nactions;
    if (e->leaves == LEAVES_VECTOR) {
        switch (n->op) {
        case OP_STATE: base_sb_printf(b, "x[%d]", n->ref); return;
        case OP_ACTION: base_sb_printf(b, "x[%d]", ns + n->ref); return;
        case OP_AGE: base_sb_printf(b, "x[%d]", ns + na); return;
        case OP_PERIOD: base_sb_printf(b, "x[%d]", ns + na + 1); return;
        case OP_ENEXT: base_sb_printf(b, "x[%d]", ns + na + 2); return;
        default: return;
        }
    }
    switch (n->op) {
    case OP_STATE: base_sb_printf(b, "x[%d]", n->ref); return;
    case OP_ACTION: base_sb_printf(b, "act%d", n->ref); return;
    case OP_AGE: base_sb_puts(b, "((real)a->age)"); return;
    case OP_PERIOD: base_sb_puts(b, "((real)a->period)"); return;
    case OP_ENEXT: base_sb_puts(b, "E"); return;
    case OP_SAVINGS: base_sb_puts(b, "egm_savings"); return; /* the EGM table's point (emit_egm.c) */
    case OP_MARGINAL: base_sb_puts(b, "egm_rhs"); return;     /* ... and its Euler equation's right side */
    default: return;
    }
}

/* A parameter read: its offset in P, plus each index times its stride. */
static void param_read(const emitter *e, const ir_node *n, lcm_sb *b)
{
    const ir_param *p = &e->m->params[n->ref];
    base_sb_printf(b, "P[%zu", p->offset);
    size_t stride = p->size;
    for (int d = 0; n->op == OP_PIDX && d < p->ndims; ++d) {
        stride /= (size_t)p->dims[d];
        base_sb_printf(b, " + (lcm_index)%s", emit_num(e, n->args[d]));
        if (stride != 1) base_sb_printf(b, " * %zu", stride);
    }
    base_sb_putc(b, ']');
}

static void expr(const emitter *e, int id, lcm_sb *b)
{
    const ir_node *n = &e->r->nodes[id];
    const int *a = n->args;
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
        [OP_POW] = "lcm_pow", [OP_MOD] = "lcm_mod", [OP_MIN] = "lcm_min", [OP_MAX] = "lcm_max",
    };
    switch (n->op) {
    case OP_CONST: base_sb_puts(b, emit_literal(n->k).s); return;
    case OP_STATE: case OP_ACTION: case OP_AGE: case OP_PERIOD: case OP_ENEXT: case OP_SAVINGS: case OP_MARGINAL:
        leaf(e, n, b);
        return;
    case OP_PARAM: case OP_PIDX: param_read(e, n, b); return;
    case OP_STAGE: case OP_STAGE_OK: { /* the stage's entry of this pair (emit_stage.c) */
        lcm_sb idx;
        base_sb_init(&idx);
        emit_stage_index(e, n->ref, 'i', &idx);
        if (n->op == OP_STAGE) base_sb_printf(b, "gv%d[%s]", n->ref, idx.s);
        else base_sb_printf(b, "(gc%d[%s] & LCM_STAGE_FEASIBLE)", n->ref, idx.s);
        base_sb_free(&idx);
        return;
    }
    case OP_NEG: base_sb_printf(b, "(-%s)", emit_num(e, a[0])); return;
    case OP_NOT: base_sb_printf(b, "(!%s)", emit_cond(e, a[0])); return;
    case OP_AND: case OP_OR:
        base_sb_printf(b, "(%s %s %s)", emit_cond(e, a[0]), n->op == OP_AND ? "&&" : "||", emit_cond(e, a[1]));
        return;
    case OP_IDIV: base_sb_printf(b, "LCM_FLOOR(%s / %s)", emit_num(e, a[0]), emit_num(e, a[1])); return;
    case OP_POW:
        if (!emit_reduced(e, id)) break;
        base_sb_printf(b, "lcm_pow_by(%s, pk%d)", emit_num(e, a[0]), id);
        return;
    case OP_DIV: /* a divisor known outside this node's loop: lcm_div (templates/arith.h) */
        if (emit_reduced(e, id)) base_sb_printf(b, "(%s * df%d)", emit_num(e, a[0]), id);
        else if (emit_outer_operand(e, id))
            base_sb_printf(b, "lcm_div(%s, %s)", emit_num(e, a[0]), emit_num(e, a[1]));
        else base_sb_printf(b, "(%s / %s)", emit_num(e, a[0]), emit_num(e, a[1]));
        return;
    case OP_WHERE:
        if (n->type == IR_BOOL)
            base_sb_printf(b, "(%s ? %s : %s)", emit_cond(e, a[0]), emit_name(e, a[1]), emit_name(e, a[2]));
        else
            base_sb_printf(b, "(%s ? %s : %s)", emit_cond(e, a[0]), emit_num(e, a[1]), emit_num(e, a[2]));
        return;
    default: break;
    }
    if (infix[n->op]) base_sb_printf(b, "(%s %s %s)", emit_num(e, a[0]), infix[n->op], emit_num(e, a[1]));
    else if (call1[n->op]) base_sb_printf(b, "%s(%s)", call1[n->op], emit_num(e, a[0]));
    else if (call2[n->op]) base_sb_printf(b, "%s(%s, %s)", call2[n->op], emit_num(e, a[0]), emit_num(e, a[1]));
}

/* ---- source positions --------------------------------------------------------- */

/* The line of a source location "file:line (regime.function)" and the
 * length of its file part; 0 when it names no line ("(built in)"). */
static int src_position(const char *src, size_t *file_len)
{
    const char *paren = NULL;
    for (const char *p = strstr(src, " ("); p; p = strstr(p + 1, " (")) paren = p;
    const char *digits = paren;
    while (digits && digits > src && isdigit((unsigned char)digits[-1])) --digits;
    if (!digits || digits == paren || digits - 1 <= src || digits[-1] != ':') return 0;
    *file_len = (size_t)(digits - 1 - src);
    return atoi(digits);
}

/* A file name as a C string literal's contents. */
static void put_c_string(lcm_sb *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') base_sb_printf(b, "\\%c", c);
        else if (c < 0x20 || c == 0x7f) base_sb_printf(b, "\\%03o", c);
        else base_sb_putc(b, (char)c);
    }
}

void emit_line_directive(emitter *e, int src)
{
    if (!e->lines || src < 0) return;
    const char *where = ir_src(e->m, src);
    size_t file_len;
    int line = src_position(where, &file_len);
    if (line <= 0) return;
    base_sb_printf(e->b, "#line %d \"", line);
    put_c_string(e->b, where, file_len);
    base_sb_puts(e->b, "\"\n");
}

void emit_comment(emitter *e, const char *what, int src)
{
    if (!what && src < 0) return;
    base_sb_printf(e->b, " /* %s%s", what ? what : "", what && src >= 0 ? ": " : "");
    for (const char *s = src >= 0 ? emit_base_name(ir_src(e->m, src)) : ""; *s; ++s) {
        if (s[0] == '*' && s[1] == '/') base_sb_puts(e->b, "* /");
        else base_sb_putc(e->b, *s);
    }
    base_sb_puts(e->b, " */");
}

void emit_node_decl(emitter *e, int id)
{
    const ir_node *n = &e->r->nodes[id];
    emit_line_directive(e, n->src);
    emit_start(e);
    /* an action read only as a next state on its own grid is read there by its code (emit_continuation.c) */
    base_sb_printf(e->b, "%sconst %s %s = ", n->op == OP_ACTION ? "LCM_UNUSED " : "", n->type == IR_BOOL ? "int" : "real",
                  emit_name(e, id));
    expr(e, id, e->b);
    base_sb_putc(e->b, ';');
    emit_comment(e, NULL, n->src);
    base_sb_putc(e->b, '\n');
}

void emit_line_returns(const char *src, lcm_sb *out)
{
    int line = 1, traced = 0, after_directive = 0;
    for (const char *p = src; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        int directive = !strncmp(p, "#line ", 6);
        if (traced && !directive && !after_directive) {
            base_sb_printf(out, "#line %d \"kernels.c\"\n", line + 1);
            ++line;
            traced = 0;
        }
        traced = after_directive || (traced && directive);
        after_directive = directive;
        base_sb_putn(out, p, len);
        line += nl != NULL;
        p += len;
    }
}

/* ---- shared by the kernel emitter (emit.c) and the step emitter
 * (emit_step.c), which both build on this file and not on each other ---- */

/* The value act<j> of action j at loop index <index><j>. */
void emit_state_points(const emitter *e, int g, int s, const char *period, char *buf, size_t len)
{
    const ir_grid *gr = &e->m->regimes[g].states[s].grid;
    size_t off = e->L->state_off[g][s];
    if (gr->kind == GRID_AGE) snprintf(buf, len, "G + %zu + (lcm_index)(%s) * %d", off, period, gr->n);
    else snprintf(buf, len, "G + %zu", off);
}

void emit_action_value(emitter *e, int j, char index)
{
    const ir_var *v = &e->r->actions[j];
    if (grid_is_discrete(&v->grid)) emit_line(e, "LCM_UNUSED const real act%d = (real)%c%d; /* %s */", j, index, j, v->name);
    else emit_line(e, "LCM_UNUSED const real act%d = G[%zu + %c%d]; /* %s */", j, e->L->action_off[e->r->id][j], index, j, v->name);
}

/* The state names of a regime, for comments: "health, wealth" or "no states". */
void emit_state_names(const ir_regime *r, lcm_sb *b)
{
    for (int s = 0; s < r->nstates; ++s) base_sb_printf(b, "%s%s", s ? ", " : "", r->states[s].name);
    if (!r->nstates) base_sb_puts(b, "no states");
}
