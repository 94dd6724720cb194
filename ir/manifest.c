/* manifest.c - reading and writing the manifest (see manifest.h). */
#include "manifest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "layout.h"
#include "process.h"
#include "sha256.h"

/* ---- writing ------------------------------------------------------------ */
static void put_str(lcm_sb *b, const char *s)
{
    base_sb_putc(b, '"');
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') base_sb_putc(b, '\\'), base_sb_putc(b, *s);
        else if (*s == '\n') base_sb_puts(b, "\\n");
        else if (*s == '\r') base_sb_puts(b, "\\r");
        else base_sb_putc(b, *s);
    }
    base_sb_putc(b, '"');
}

static void put_num(lcm_sb *b, double x)
{
    base_sb_putc(b, ' ');
    base_sb_double(b, x);
}

static void put_grid(lcm_sb *b, const ir_grid *g)
{
    base_sb_printf(b, "%s n %d", ir_grid_kind_name(g->kind), g->n);
    if (g->kind == GRID_AGE) {
        if (g->batch_size) base_sb_printf(b, " batch %d", g->batch_size);
        base_sb_printf(b, " periods %d", g->nperiods);
        for (int t = 0; t < g->nperiods; ++t) base_sb_puts(b, " | "), put_grid(b, &g->periods[t]);
        return;
    }
    switch (g->kind) {
    case GRID_DISCRETE:
        if (g->category) base_sb_puts(b, " category "), put_str(b, g->category);
        base_sb_puts(b, " labels");
        for (int i = 0; i < g->n; ++i) base_sb_putc(b, ' '), put_str(b, g->labels[i]);
        break;
    case GRID_LIN:
    case GRID_LOG:
        base_sb_puts(b, " start"), put_num(b, g->start);
        base_sb_puts(b, " stop"), put_num(b, g->stop);
        break;
    case GRID_IRREG:
        if (!g->points) {
            base_sb_printf(b, " runtime %d", g->points_slot);
            break;
        }
        base_sb_puts(b, " points");
        for (int i = 0; i < g->n; ++i) put_num(b, g->points[i]);
        break;
    case GRID_PWLIN:
    case GRID_PWLOG:
        base_sb_printf(b, " pieces %d", g->npieces);
        for (int i = 0; i < g->npieces; ++i) {
            const ir_piece *p = &g->pieces[i];
            put_num(b, p->lo), put_num(b, p->hi);
            base_sb_printf(b, " %d %d %d", p->lo_closed, p->hi_closed, p->n);
        }
        break;
    case GRID_PROCESS:
        base_sb_printf(b, " kind %s gh %d slots %d", ir_process_name((ir_process_kind)g->process), g->gauss_hermite,
                  g->nslots);
        for (int i = 0; i < g->nslots; ++i) base_sb_printf(b, " %d", g->slots[i]);
        break;
    case GRID_AGE: break; /* above */
    }
    if (g->batch_size) base_sb_printf(b, " batch %d", g->batch_size);
    if (g->distributed) base_sb_printf(b, " dist %d", g->distributed);
}

static void put_node(lcm_sb *b, const ir_node *n)
{
    base_sb_printf(b, "node %s", ir_ops[n->op].name);
    switch (n->op) {
    case OP_CONST: put_num(b, n->k); break;
    case OP_STATE: case OP_ACTION: case OP_PARAM: base_sb_printf(b, " %d", n->ref); break;
    case OP_PIDX: base_sb_printf(b, " %d", n->ref); break;
    default: break;
    }
    for (int a = 0; a < n->nargs; ++a) base_sb_printf(b, " %d", n->args[a]);
    if (n->src >= 0) base_sb_printf(b, " @%d", n->src);
    base_sb_putc(b, '\n');
}

static void put_ints(lcm_sb *b, const char *key, const int *v, int n)
{
    base_sb_printf(b, " %s %d", key, n);
    for (int i = 0; i < n; ++i) base_sb_printf(b, " %d", v[i]);
}

void ir_manifest_write(const ir_model *m, lcm_sb *b)
{
    base_sb_printf(b, "lcm-manifest %d\n", LCM_MANIFEST_VERSION);
    base_sb_puts(b, "model "), put_str(b, m->name), base_sb_putc(b, '\n');
    base_sb_puts(b, "file "), put_str(b, m->file ? m->file : ""), base_sb_putc(b, '\n');
    for (int i = 0; i < m->noptions; ++i) {
        base_sb_printf(b, "option %s ", m->options[i].name);
        put_str(b, m->options[i].value);
        base_sb_putc(b, '\n');
    }
    base_sb_printf(b, "ages %d", m->nperiods);
    for (int t = 0; t < m->nperiods; ++t) put_num(b, m->ages[t]);
    base_sb_putc(b, '\n');
    for (int i = 0; i < m->nsrc; ++i) base_sb_puts(b, "src "), put_str(b, m->src[i]), base_sb_putc(b, '\n');
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        base_sb_printf(b, "param %s %s %s %d", p->regime, p->func, p->name, p->ndims);
        for (int d = 0; d < p->ndims; ++d) base_sb_printf(b, " %d %s", p->dims[d], p->dimnames[d]);
        if (p->fixed) {
            base_sb_puts(b, " fixed");
            for (size_t k = 0; k < p->size; ++k) put_num(b, p->values[k]);
        }
        base_sb_putc(b, '\n');
    }
    for (int i = 0; i < m->nregimes; ++i) {
        const ir_regime *r = &m->regimes[i];
        base_sb_printf(b, "regime %s terminal %d\nactive %d", r->name, r->terminal, m->nperiods);
        for (int t = 0; t < m->nperiods; ++t) base_sb_printf(b, " %d", r->active[t]);
        base_sb_putc(b, '\n');
        for (int s = 0; s < r->nstates; ++s)
            base_sb_printf(b, "state %s ", r->states[s].name), put_grid(b, &r->states[s].grid), base_sb_putc(b, '\n');
        for (int a = 0; a < r->nactions; ++a)
            base_sb_printf(b, "action %s ", r->actions[a].name), put_grid(b, &r->actions[a].grid), base_sb_putc(b, '\n');
        if (ir_is_egm(r)) {
            base_sb_printf(b, "egm %s %s savings ", r->states[r->egm.state].name, r->actions[r->egm.action].name);
            put_grid(b, &r->egm.savings.grid);
            base_sb_putc(b, '\n');
        } else if (ir_has_margin(r)) { /* grid search with the margin (gen/dsl/egm_plan.lua's probe) */
            base_sb_printf(b, "margin %s %s nodes %d\n", r->states[r->egm.state].name, r->actions[r->egm.action].name,
                          r->margin_nodes);
        }
        if (r->margin_why) base_sb_puts(b, "margin_why "), put_str(b, r->margin_why), base_sb_putc(b, '\n');
        base_sb_puts(b, "endregime\n");
    }
    for (int i = 0; i < m->nregimes; ++i) {
        const ir_regime *r = &m->regimes[i];
        base_sb_printf(b, "dag %s\n", r->name);
        for (size_t n = 0; n < r->nnodes; ++n) put_node(b, &r->nodes[n]);
        base_sb_printf(b, "utility %d\nq %d\n", r->utility, r->q);
        if (r->risk_aversion >= 0) base_sb_printf(b, "risk_aversion %d\n", r->risk_aversion);
        for (int c = 0; c < r->nconstraints; ++c)
            base_sb_printf(b, "constraint %s %d\n", r->constraints[c].name, r->constraints[c].node);
        for (int f = 0; f < r->nfuncs; ++f)
            base_sb_printf(b, "func %s %d\n", r->funcs[f].name, r->funcs[f].node);
        if (r->taste_scale >= 0) base_sb_printf(b, "taste %d\n", r->taste_scale);
        for (int g = 0; g < m->nregimes; ++g)
            if (r->rprob[g] >= 0) base_sb_printf(b, "rprob %s %d\n", m->regimes[g].name, r->rprob[g]);
        if (ir_has_margin(r))
            base_sb_printf(b, "egm resources %d dresources %d discount %d marginal %d policy %d\n", r->egm.resources,
                          r->egm.dresources, r->egm.discount, r->egm.marginal, r->egm.policy);
        if (ir_has_terminal_marginal(r))
            base_sb_printf(b, "%s %s %d\n", r->terminal_marginal ? "marginal" : "euler_marginal",
                          r->states[r->marginal_state].name, r->marginal);
        for (int t = 0; t < r->ntargets; ++t) {
            const ir_target *tg = &r->targets[t];
            const ir_regime *tr = &m->regimes[tg->regime];
            base_sb_printf(b, "target %s\n", tr->name);
            for (int s = 0; s < tr->nstates; ++s) {
                const ir_next *nx = &tg->next[s];
                if (nx->kind == NEXT_DET) base_sb_printf(b, "next %s det %d\n", tr->states[s].name, nx->node);
                else if (nx->kind == NEXT_PROCESS) base_sb_printf(b, "next %s process src %d\n", tr->states[s].name, nx->src);
                else {
                    base_sb_printf(b, "next %s markov", tr->states[s].name);
                    put_ints(b, "p", nx->probs, nx->nprobs);
                    base_sb_putc(b, '\n');
                }
            }
            if (ir_has_margin(r) && r->egm.next[t] >= 0)
                base_sb_printf(b, "egm_next %d %d\n", r->egm.next[t], r->egm.dnext[t]);
        }
        base_sb_puts(b, "enddag\n");
    }
    for (int k = 0; k < m->nkernels; ++k) {
        const ir_kernel *kn = &m->kernels[k];
        base_sb_printf(b, "kernel %s %s last %d par %d terms %d staged %d", kn->symbol, m->regimes[kn->regime].name,
                      kn->last, kn->par, kn->nterms, kn->staged);
        put_ints(b, "targets", kn->targets, kn->ntargets);
        put_ints(b, "inactive", kn->inactive, kn->ninactive);
        base_sb_putc(b, '\n');
    }
    if (m->period_kernel)
        for (int i = 0; i < m->nregimes; ++i) {
            base_sb_printf(b, "period_kernel %s", m->regimes[i].name);
            for (int t = 0; t < m->nperiods; ++t) base_sb_printf(b, " %d", m->period_kernel[i * m->nperiods + t]);
            base_sb_putc(b, '\n');
        }
    if (m->source_hash) base_sb_printf(b, "source_hash %s\n", m->source_hash);
    /* the checksum covers every byte before its line */
    char sum[65];
    base_sha256_hex(b->s, b->len, sum);
    base_sb_printf(b, "checksum %s\nend\n", sum);
}

/* ---- reading ------------------------------------------------------------ */
typedef struct tokens {
    char **v;
    int n, cap;
} tokens;

typedef struct reader {
    const char *text, *line_start;
    const char *p;
    int line;
    tokens tk;
    lcm_err *err;
} reader;

static void tokens_clear(tokens *t)
{
    for (int i = 0; i < t->n; ++i) free(t->v[i]);
    t->n = 0;
}

/* Splits the next non-empty line into tokens; returns 0 at end of text. */
static int next_line(reader *rd)
{
    tokens_clear(&rd->tk);
    while (*rd->p) {
        rd->line++;
        const char *e = strchr(rd->p, '\n');
        if (!e) e = rd->p + strlen(rd->p);
        const char *s = rd->p;
        rd->line_start = s;
        rd->p = *e ? e + 1 : e;
        while (s < e) {
            while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) ++s;
            if (s >= e) break;
            lcm_sb b;
            base_sb_init(&b);
            if (*s == '"') {
                for (++s; s < e && *s != '"'; ++s) {
                    if (*s == '\\' && s + 1 < e) {
                        ++s;
                        base_sb_putc(&b, *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s);
                    } else base_sb_putc(&b, *s);
                }
                ++s; /* closing quote */
            } else {
                while (s < e && *s != ' ' && *s != '\t' && *s != '\r') base_sb_putc(&b, *s++);
            }
            if (rd->tk.n == rd->tk.cap) {
                rd->tk.cap = rd->tk.cap ? 2 * rd->tk.cap : 16;
                rd->tk.v = base_xrealloc(rd->tk.v, (size_t)rd->tk.cap * sizeof *rd->tk.v);
            }
            rd->tk.v[rd->tk.n++] = base_sb_take(&b);
        }
        if (rd->tk.n > 0) return 1;
    }
    return 0;
}

static int bad(reader *rd, const char *what)
{
    return base_fail(rd->err, LCM_E_MODEL, "manifest line %d: %s", rd->line, what);
}

static const char *tok(reader *rd, int i) { return i < rd->tk.n ? rd->tk.v[i] : NULL; }

static int get_int(reader *rd, int i, int *out)
{
    const char *s = tok(rd, i);
    if (!s) return bad(rd, "missing integer");
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < -2147483647L || v > 2147483647L) return bad(rd, "bad integer");
    *out = (int)v;
    return 0;
}

static int get_double(reader *rd, int i, double *out)
{
    const char *s = tok(rd, i);
    if (!s) return bad(rd, "missing number");
    char *end;
    *out = strtod(s, &end);
    if (*end) return bad(rd, "bad number");
    return 0;
}

static int get_ints(reader *rd, int *i, int **out, int *n)
{
    int rc;
    if ((rc = get_int(rd, (*i)++, n))) return rc;
    if (*n < 0 || *i + *n > rd->tk.n) return bad(rd, "bad integer list");
    *out = base_xcalloc((size_t)*n, sizeof **out);
    for (int k = 0; k < *n; ++k)
        if ((rc = get_int(rd, (*i)++, &(*out)[k]))) return rc;
    return 0;
}

static int read_pieces(reader *rd, int *i, ir_grid *g)
{
    int rc;
    if ((rc = get_int(rd, (*i)++, &g->npieces))) return rc;
    if (g->npieces < 1 || *i + 5 * g->npieces > rd->tk.n) return bad(rd, "bad pieces");
    g->pieces = base_xcalloc((size_t)g->npieces, sizeof *g->pieces);
    int total = 0;
    for (int k = 0; k < g->npieces; ++k) {
        ir_piece *p = &g->pieces[k];
        if ((rc = get_double(rd, (*i)++, &p->lo)) || (rc = get_double(rd, (*i)++, &p->hi)) ||
            (rc = get_int(rd, (*i)++, &p->lo_closed)) || (rc = get_int(rd, (*i)++, &p->hi_closed)) ||
            (rc = get_int(rd, (*i)++, &p->n)))
            return rc;
        if (p->n < 2 || !(p->lo < p->hi)) return bad(rd, "bad piece");
        total += p->n;
    }
    if (total != g->n) return bad(rd, "the pieces do not add up to n points");
    return 0;
}

static int read_process(reader *rd, int *i, ir_grid *g)
{
    int rc;
    const char *name = tok(rd, (*i)++);
    if (!name || (g->process = ir_process_by_name(name)) < 0) return bad(rd, "unknown process");
    if (!tok(rd, *i) || strcmp(tok(rd, (*i)++), "gh")) return bad(rd, "process needs gh");
    if ((rc = get_int(rd, (*i)++, &g->gauss_hermite))) return rc;
    if (!tok(rd, *i) || strcmp(tok(rd, (*i)++), "slots")) return bad(rd, "process needs slots");
    if ((rc = get_ints(rd, i, &g->slots, &g->nslots))) return rc;
    const char *names[IR_PROCESS_MAX_PARAMS];
    if (g->nslots != ir_process_params((ir_process_kind)g->process, g->gauss_hermite, names))
        return bad(rd, "process has the wrong number of parameter slots");
    return 0;
}

static int read_grid(reader *rd, int i, int end, ir_grid *g);

/* A grid by age: `periods T` then T grids, each after a '|' and up to the
 * next '|' or the end; each a fixed continuous grid of the outer n points. */
static int read_age_periods(reader *rd, int *i, int end, ir_grid *g)
{
    int rc;
    if (g->periods) return bad(rd, "a grid by age with two lists of periods");
    if ((rc = get_int(rd, (*i)++, &g->nperiods))) return rc;
    if (g->nperiods < 1 || g->nperiods > end - *i) return bad(rd, "bad number of periods in a grid by age");
    g->periods = base_xcalloc((size_t)g->nperiods, sizeof *g->periods);
    for (int t = 0; t < g->nperiods; ++t) {
        if (*i >= end || strcmp(tok(rd, *i), "|")) return bad(rd, "a grid by age needs '|' before each period's grid");
        int stop = ++*i;
        while (stop < end && strcmp(tok(rd, stop), "|")) ++stop;
        ir_grid *p = &g->periods[t];
        if ((rc = read_grid(rd, *i, stop, p))) return rc;
        if (p->kind == GRID_DISCRETE || p->kind == GRID_PROCESS || p->kind == GRID_AGE ||
            (p->kind == GRID_IRREG && !p->points))
            return bad(rd, "a period's grid in a grid by age must be a fixed continuous grid");
        if (p->n != g->n) return bad(rd, "a period's grid in a grid by age has another number of points");
        *i = stop;
    }
    return 0;
}

static int read_grid(reader *rd, int i, int end, ir_grid *g)
{
    int kind = ir_grid_kind_by_name(tok(rd, i) ? tok(rd, i) : "");
    if (kind < 0) return bad(rd, "unknown grid kind");
    g->kind = (grid_kind)kind;
    g->points_slot = -1;
    int rc;
    for (++i; i < end;) {
        const char *key = tok(rd, i++);
        if (!strcmp(key, "n")) {
            if ((rc = get_int(rd, i++, &g->n))) return rc;
            if (g->n <= 0) return bad(rd, "grid without points");
        } else if (!strcmp(key, "start")) {
            if ((rc = get_double(rd, i++, &g->start))) return rc;
        } else if (!strcmp(key, "stop")) {
            if ((rc = get_double(rd, i++, &g->stop))) return rc;
        } else if (!strcmp(key, "batch")) {
            if ((rc = get_int(rd, i++, &g->batch_size))) return rc;
        } else if (!strcmp(key, "dist")) {
            if ((rc = get_int(rd, i++, &g->distributed))) return rc;
        } else if (!strcmp(key, "category")) {
            if (!tok(rd, i)) return bad(rd, "missing category");
            g->category = base_xstrdup(tok(rd, i++));
        } else if (!strcmp(key, "labels")) {
            if (g->n > end - i) return bad(rd, "too few labels");
            g->labels = base_xcalloc((size_t)g->n, sizeof *g->labels);
            for (int k = 0; k < g->n; ++k) g->labels[k] = base_xstrdup(tok(rd, i++));
        } else if (!strcmp(key, "runtime")) {
            if ((rc = get_int(rd, i++, &g->points_slot))) return rc;
        } else if (!strcmp(key, "pieces")) {
            if ((rc = read_pieces(rd, &i, g))) return rc;
        } else if (!strcmp(key, "kind")) {
            if ((rc = read_process(rd, &i, g))) return rc;
        } else if (!strcmp(key, "periods") && g->kind == GRID_AGE) {
            if ((rc = read_age_periods(rd, &i, end, g))) return rc;
        } else if (!strcmp(key, "points")) {
            if (g->n > end - i) return bad(rd, "too few points");
            g->points = base_xcalloc((size_t)g->n, sizeof *g->points);
            for (int k = 0; k < g->n; ++k)
                if ((rc = get_double(rd, i++, &g->points[k]))) return rc;
        } else return bad(rd, "unknown grid key");
    }
    if (g->kind == GRID_DISCRETE && !g->labels) return bad(rd, "discrete grid without labels");
    if (g->kind == GRID_IRREG && !g->points && g->points_slot < 0) return bad(rd, "irregular grid without points");
    if ((g->kind == GRID_PWLIN || g->kind == GRID_PWLOG) && !g->pieces) return bad(rd, "piecewise grid without pieces");
    if (g->kind == GRID_PROCESS && !g->slots) return bad(rd, "process without parameters");
    if (g->kind == GRID_AGE && !g->periods) return bad(rd, "grid by age without periods");
    return 0;
}

static int read_var(reader *rd, ir_var **vars, int *n)
{
    if (!tok(rd, 1)) return bad(rd, "missing variable name");
    *vars = base_xrealloc(*vars, (size_t)(*n + 1) * sizeof **vars);
    ir_var *v = &(*vars)[(*n)++];
    memset(v, 0, sizeof *v);
    v->name = base_xstrdup(tok(rd, 1));
    return read_grid(rd, 2, rd->tk.n, &v->grid);
}

/* `egm STATE ACTION savings GRID`, or a grid-search regime's `margin STATE
 * ACTION`, after the regime's states and actions. */
static int read_egm(reader *rd, ir_regime *r, int margin)
{
    if (ir_has_margin(r)) return bad(rd, "a second egm or margin line");
    if (r->terminal) return bad(rd, "a terminal regime has no margin");
    if (margin ? rd->tk.n != 5 || strcmp(tok(rd, 3), "nodes") : rd->tk.n < 6)
        return bad(rd, margin ? "bad margin line" : "bad egm line");
    if (!tok(rd, 1) || !tok(rd, 2) || (!margin && (!tok(rd, 3) || strcmp(tok(rd, 3), "savings"))))
        return bad(rd, "bad egm line");
    r->egm.state = ir_find_state(r, tok(rd, 1));
    r->egm.action = ir_find_action(r, tok(rd, 2));
    if (r->egm.state < 0 || r->egm.action < 0) return bad(rd, "egm names no state or action of the regime");
    r->egm.resources = r->egm.dresources = r->egm.discount = r->egm.marginal = r->egm.policy = -1;
    if (margin) {
        int rc = get_int(rd, 4, &r->margin_nodes);
        return rc ? rc : (r->egm.margin = 1, 0);
    }
    r->egm.savings.name = base_xstrdup("savings");
    return read_grid(rd, 4, rd->tk.n, &r->egm.savings.grid);
}

static int read_header(reader *rd, ir_model *m)
{
    int rc;
    const char *k = tok(rd, 0);
    if (!strcmp(k, "regime")) {
        if (!tok(rd, 1) || !tok(rd, 3)) return bad(rd, "bad regime line");
        if (m->nregimes >= IR_MAX_REGIMES) return bad(rd, "too many regimes");
        m->regimes = base_xrealloc(m->regimes, (size_t)(m->nregimes + 1) * sizeof *m->regimes);
        ir_regime *r = &m->regimes[m->nregimes];
        memset(r, 0, sizeof *r);
        r->id = m->nregimes++;
        r->name = base_xstrdup(tok(rd, 1));
        r->utility = r->q = r->risk_aversion = r->taste_scale = -1;
        r->egm.state = r->egm.action = -1;
        for (int g = 0; g < IR_MAX_REGIMES; ++g) r->rprob[g] = -1;
        if ((rc = get_int(rd, 3, &r->terminal))) return rc;
        while (next_line(rd)) {
            const char *kk = tok(rd, 0);
            if (!strcmp(kk, "endregime")) return 0;
            if (!strcmp(kk, "active")) {
                int n;
                if ((rc = get_int(rd, 1, &n))) return rc;
                if (n != m->nperiods || rd->tk.n != 2 + n) return bad(rd, "active needs one flag per period");
                r->active = base_xcalloc((size_t)n, 1);
                for (int t = 0; t < n; ++t) {
                    int a;
                    if ((rc = get_int(rd, 2 + t, &a))) return rc;
                    r->active[t] = (unsigned char)(a != 0);
                }
            } else if (!strcmp(kk, "state")) {
                if ((rc = read_var(rd, &r->states, &r->nstates))) return rc;
            } else if (!strcmp(kk, "action")) {
                if ((rc = read_var(rd, &r->actions, &r->nactions))) return rc;
            } else if (!strcmp(kk, "egm") || !strcmp(kk, "margin")) {
                if ((rc = read_egm(rd, r, kk[0] == 'm'))) return rc;
            } else if (!strcmp(kk, "margin_why")) {
                if (rd->tk.n != 2 || r->margin_why) return bad(rd, "bad margin_why line");
                r->margin_why = base_xstrdup(tok(rd, 1));
            } else return bad(rd, "unexpected line in regime");
        }
        return bad(rd, "regime without endregime");
    }
    return bad(rd, "unexpected line");
}

static int read_node(reader *rd, ir_regime *r)
{
    int op = ir_op_by_name(tok(rd, 1) ? tok(rd, 1) : "");
    if (op < 0) return bad(rd, "unknown op");
    ir_node n;
    memset(&n, 0, sizeof n);
    n.op = (ir_op)op;
    n.src = -1;
    int rc, i = 2;
    int last = rd->tk.n;
    if (last > 2 && rd->tk.v[last - 1][0] == '@') {
        char *end;
        n.src = (int)strtol(rd->tk.v[last - 1] + 1, &end, 10);
        if (*end) return bad(rd, "bad source reference");
        --last;
    }
    switch (n.op) {
    case OP_CONST:
        if ((rc = get_double(rd, i++, &n.k))) return rc;
        break;
    case OP_STATE: case OP_ACTION: case OP_PARAM: case OP_PIDX:
        if ((rc = get_int(rd, i++, &n.ref))) return rc;
        break;
    default:
        break;
    }
    if (last - i > IR_MAX_ARGS) return bad(rd, "too many node arguments");
    for (; i < last; ++i)
        if ((rc = get_int(rd, i, &n.args[n.nargs++]))) return rc;
    if (r->nnodes % 256 == 0) r->nodes = base_xrealloc(r->nodes, (r->nnodes + 256) * sizeof *r->nodes);
    r->nodes[r->nnodes++] = n;
    return 0;
}

static int read_named(reader *rd, ir_named **v, int *n)
{
    if (!tok(rd, 1)) return bad(rd, "missing name");
    *v = base_xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[*n].name = base_xstrdup(tok(rd, 1));
    return get_int(rd, 2, &(*v)[(*n)++].node);
}

static int regime_arg(reader *rd, const ir_model *m, int i)
{
    int g = tok(rd, i) ? ir_find_regime(m, tok(rd, i)) : -1;
    if (g < 0) bad(rd, "unknown regime");
    return g;
}

static int read_dag(reader *rd, ir_model *m)
{
    int rid = regime_arg(rd, m, 1);
    if (rid < 0) return rd->err->code;
    ir_regime *r = &m->regimes[rid];
    ir_target *cur = NULL;
    int next_state = 0, rc;
    while (next_line(rd)) {
        const char *k = tok(rd, 0);
        if (!strcmp(k, "enddag")) {
            if (cur && next_state != m->regimes[cur->regime].nstates) return bad(rd, "target misses next states");
            return 0;
        } else if (!strcmp(k, "node")) {
            if ((rc = read_node(rd, r))) return rc;
        } else if (!strcmp(k, "utility")) {
            if ((rc = get_int(rd, 1, &r->utility))) return rc;
        } else if (!strcmp(k, "q")) {
            if ((rc = get_int(rd, 1, &r->q))) return rc;
        } else if (!strcmp(k, "risk_aversion")) {
            if ((rc = get_int(rd, 1, &r->risk_aversion))) return rc;
        } else if (!strcmp(k, "constraint")) {
            if ((rc = read_named(rd, &r->constraints, &r->nconstraints))) return rc;
        } else if (!strcmp(k, "func")) {
            if ((rc = read_named(rd, &r->funcs, &r->nfuncs))) return rc;
        } else if (!strcmp(k, "taste")) {
            if ((rc = get_int(rd, 1, &r->taste_scale))) return rc;
        } else if (!strcmp(k, "rprob")) {
            int g = regime_arg(rd, m, 1);
            if (g < 0) return rd->err->code;
            if ((rc = get_int(rd, 2, &r->rprob[g]))) return rc;
        } else if (!strcmp(k, "egm")) {
            if (!ir_has_margin(r) || rd->tk.n != 11 || strcmp(tok(rd, 1), "resources") ||
                strcmp(tok(rd, 3), "dresources") || strcmp(tok(rd, 5), "discount") || strcmp(tok(rd, 7), "marginal") ||
                strcmp(tok(rd, 9), "policy"))
                return bad(rd, "bad egm line");
            if ((rc = get_int(rd, 2, &r->egm.resources)) || (rc = get_int(rd, 4, &r->egm.dresources)) ||
                (rc = get_int(rd, 6, &r->egm.discount)) || (rc = get_int(rd, 8, &r->egm.marginal)) ||
                (rc = get_int(rd, 10, &r->egm.policy)))
                return rc;
        } else if (!strcmp(k, "marginal") || !strcmp(k, "euler_marginal")) {
            if (rd->tk.n != 3 || ir_has_terminal_marginal(r) || (r->marginal_state = ir_find_state(r, tok(rd, 1))) < 0)
                return bad(rd, k[0] == 'm' ? "bad marginal line" : "bad euler_marginal line");
            if ((rc = get_int(rd, 2, &r->marginal))) return rc;
            if (k[0] == 'm') r->terminal_marginal = 1;
            else r->euler_marginal = 1;
        } else if (!strcmp(k, "egm_next")) {
            if (!cur || !ir_has_margin(r) || rd->tk.n != 3) return bad(rd, "bad egm_next line");
            if ((rc = get_int(rd, 1, &r->egm.next[r->ntargets - 1])) || (rc = get_int(rd, 2, &r->egm.dnext[r->ntargets - 1])))
                return rc;
        } else if (!strcmp(k, "target")) {
            if (cur && next_state != m->regimes[cur->regime].nstates) return bad(rd, "target misses next states");
            int g = regime_arg(rd, m, 1);
            if (g < 0) return rd->err->code;
            r->targets = base_xrealloc(r->targets, (size_t)(r->ntargets + 1) * sizeof *r->targets);
            if (ir_has_margin(r)) {
                r->egm.next = base_xrealloc(r->egm.next, (size_t)(r->ntargets + 1) * sizeof *r->egm.next);
                r->egm.dnext = base_xrealloc(r->egm.dnext, (size_t)(r->ntargets + 1) * sizeof *r->egm.dnext);
                r->egm.next[r->ntargets] = r->egm.dnext[r->ntargets] = -1;
            }
            cur = &r->targets[r->ntargets++];
            cur->regime = g;
            cur->next = base_xcalloc((size_t)(m->regimes[g].nstates + 1), sizeof *cur->next);
            next_state = 0;
        } else if (!strcmp(k, "next")) {
            if (!cur || next_state >= m->regimes[cur->regime].nstates) return bad(rd, "unexpected next");
            const ir_regime *tr = &m->regimes[cur->regime];
            if (!tok(rd, 1) || strcmp(tok(rd, 1), tr->states[next_state].name))
                return bad(rd, "next states out of order");
            ir_next *nx = &cur->next[next_state++];
            const char *kind = tok(rd, 2) ? tok(rd, 2) : "";
            if (!strcmp(kind, "det")) {
                nx->kind = NEXT_DET;
                if ((rc = get_int(rd, 3, &nx->node))) return rc;
            } else if (!strcmp(kind, "process")) {
                nx->kind = NEXT_PROCESS;
                if (!tok(rd, 3) || strcmp(tok(rd, 3), "src")) return bad(rd, "process needs src");
                if ((rc = get_int(rd, 4, &nx->src))) return rc;
            } else if (!strcmp(kind, "markov")) {
                nx->kind = NEXT_MARKOV;
                if (!tok(rd, 3) || strcmp(tok(rd, 3), "p")) return bad(rd, "markov needs p");
                int i = 4;
                if ((rc = get_ints(rd, &i, &nx->probs, &nx->nprobs))) return rc;
            } else return bad(rd, "unknown next kind");
        } else return bad(rd, "unexpected line in dag");
    }
    return bad(rd, "dag without enddag");
}

static int read_param(reader *rd, ir_model *m)
{
    if (rd->tk.n < 5) return bad(rd, "bad param line");
    m->params = base_xrealloc(m->params, (size_t)(m->nparams + 1) * sizeof *m->params);
    ir_param *p = &m->params[m->nparams++];
    memset(p, 0, sizeof *p);
    p->regime = base_xstrdup(tok(rd, 1));
    p->func = base_xstrdup(tok(rd, 2));
    p->name = base_xstrdup(tok(rd, 3));
    int rc, i = 5;
    if ((rc = get_int(rd, 4, &p->ndims))) return rc;
    if (p->ndims < 0 || p->ndims > IR_MAX_DIMS) return bad(rd, "bad parameter dimensions");
    p->size = 1;
    for (int d = 0; d < p->ndims; ++d) {
        if ((rc = get_int(rd, i++, &p->dims[d]))) return rc;
        if (p->dims[d] <= 0 || !tok(rd, i)) return bad(rd, "bad parameter dimension");
        p->dimnames[d] = base_xstrdup(tok(rd, i++));
        p->size *= (size_t)p->dims[d];
    }
    if (tok(rd, i) && !strcmp(tok(rd, i), "fixed")) {
        ++i;
        if ((size_t)(rd->tk.n - i) != p->size) return bad(rd, "fixed parameter has the wrong number of values");
        p->fixed = 1;
        p->values = base_xcalloc(p->size, sizeof *p->values);
        for (size_t k = 0; k < p->size; ++k)
            if ((rc = get_double(rd, i++, &p->values[k]))) return rc;
    } else if (tok(rd, i)) return bad(rd, "unexpected token after parameter");
    return 0;
}

static int read_kernel(reader *rd, ir_model *m)
{
    if (rd->tk.n < 5) return bad(rd, "bad kernel line");
    m->kernels = base_xrealloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *m->kernels);
    ir_kernel *k = &m->kernels[m->nkernels++];
    memset(k, 0, sizeof *k);
    k->symbol = base_xstrdup(tok(rd, 1));
    if ((k->regime = regime_arg(rd, m, 2)) < 0) return rd->err->code;
    int rc, i = 7;
    if (strcmp(tok(rd, 3), "last")) return bad(rd, "kernel needs last");
    if ((rc = get_int(rd, 4, &k->last))) return rc;
    if (!tok(rd, 5) || strcmp(tok(rd, 5), "par")) return bad(rd, "kernel needs par");
    if ((rc = get_int(rd, 6, &k->par))) return rc;
    if (k->par < -1 || k->par >= m->regimes[k->regime].nactions) return bad(rd, "bad parallel action");
    if (!tok(rd, i) || strcmp(tok(rd, i++), "terms")) return bad(rd, "kernel needs terms");
    if ((rc = get_int(rd, i++, &k->nterms))) return rc;
    if (k->nterms < 0 || k->nterms > IR_MAX_ACTION_TERMS) return bad(rd, "bad action terms");
    if (!tok(rd, i) || strcmp(tok(rd, i++), "staged")) return bad(rd, "kernel needs staged");
    if ((rc = get_int(rd, i++, &k->staged))) return rc;
    if (k->staged != 0 && k->staged != 1) return bad(rd, "bad staged");
    if (!tok(rd, i) || strcmp(tok(rd, i++), "targets")) return bad(rd, "kernel needs targets");
    if ((rc = get_ints(rd, &i, &k->targets, &k->ntargets))) return rc;
    if (!tok(rd, i) || strcmp(tok(rd, i++), "inactive")) return bad(rd, "kernel needs inactive");
    if ((rc = get_ints(rd, &i, &k->inactive, &k->ninactive))) return rc;
    for (int t = 0; t < k->ntargets; ++t)
        if (k->targets[t] < 0 || k->targets[t] >= m->nregimes) return bad(rd, "bad kernel target");
    for (int t = 0; t < k->ninactive; ++t)
        if (k->inactive[t] < 0 || k->inactive[t] >= m->nregimes) return bad(rd, "bad kernel target");
    return 0;
}

static int read_period_kernel(reader *rd, ir_model *m)
{
    int g = regime_arg(rd, m, 1);
    if (g < 0) return rd->err->code;
    if (rd->tk.n != 2 + m->nperiods) return bad(rd, "period_kernel needs one entry per period");
    if (!m->period_kernel) {
        m->period_kernel = base_xmalloc((size_t)(m->nregimes * m->nperiods) * sizeof *m->period_kernel);
        for (int i = 0; i < m->nregimes * m->nperiods; ++i) m->period_kernel[i] = -1;
    }
    for (int t = 0; t < m->nperiods; ++t) {
        int k, rc;
        if ((rc = get_int(rd, 2 + t, &k))) return rc;
        if (k < -1 || k >= m->nkernels) return bad(rd, "bad kernel index");
        m->period_kernel[g * m->nperiods + t] = k;
    }
    return 0;
}

static int read_body(reader *rd, ir_model *m)
{
    int rc;
    if (!next_line(rd) || strcmp(tok(rd, 0), "lcm-manifest")) return bad(rd, "not an lcm manifest");
    int version;
    if ((rc = get_int(rd, 1, &version))) return rc;
    if (version != LCM_MANIFEST_VERSION)
        return base_fail(rd->err, LCM_E_MODEL, "manifest version %d, this lcm reads version %d: regenerate the model",
                        version, LCM_MANIFEST_VERSION);
    while (next_line(rd)) {
        const char *k = tok(rd, 0);
        if (!strcmp(k, "end")) return 0;
        if (m->sealed) /* the checksum covers what comes before it: only "end" may follow */
            return base_fail(rd->err, LCM_E_MODEL, "the manifest was changed after lcmgen wrote it "
                            "(a line after its checksum); regenerate the model");
        if (!strcmp(k, "model") || !strcmp(k, "file")) {
            if (!tok(rd, 1)) return bad(rd, "missing value");
            char **dst = !strcmp(k, "model") ? &m->name : &m->file;
            free(*dst);
            *dst = base_xstrdup(tok(rd, 1));
        } else if (!strcmp(k, "option")) {
            if (rd->tk.n != 3) return bad(rd, "bad option");
            m->options = base_xrealloc(m->options, (size_t)(m->noptions + 1) * sizeof *m->options);
            m->options[m->noptions].name = base_xstrdup(tok(rd, 1));
            m->options[m->noptions++].value = base_xstrdup(tok(rd, 2));
        } else if (!strcmp(k, "ages")) {
            if ((rc = get_int(rd, 1, &m->nperiods))) return rc;
            if (m->nperiods <= 0 || rd->tk.n != 2 + m->nperiods) return bad(rd, "bad ages");
            m->ages = base_xcalloc((size_t)m->nperiods, sizeof *m->ages);
            for (int t = 0; t < m->nperiods; ++t)
                if ((rc = get_double(rd, 2 + t, &m->ages[t]))) return rc;
        } else if (!strcmp(k, "src")) {
            if (!tok(rd, 1)) return bad(rd, "missing source text");
            m->src = base_xrealloc(m->src, (size_t)(m->nsrc + 1) * sizeof *m->src);
            m->src[m->nsrc++] = base_xstrdup(tok(rd, 1));
        } else if (!strcmp(k, "param")) {
            if ((rc = read_param(rd, m))) return rc;
        } else if (!strcmp(k, "regime")) {
            if (!m->nperiods) return bad(rd, "regime before ages");
            if ((rc = read_header(rd, m))) return rc;
        } else if (!strcmp(k, "dag")) {
            if ((rc = read_dag(rd, m))) return rc;
        } else if (!strcmp(k, "kernel")) {
            if ((rc = read_kernel(rd, m))) return rc;
        } else if (!strcmp(k, "period_kernel")) {
            if ((rc = read_period_kernel(rd, m))) return rc;
        } else if (!strcmp(k, "checksum")) {
            char sum[65];
            base_sha256_hex(rd->text, (size_t)(rd->line_start - rd->text), sum);
            if (!tok(rd, 1) || strcmp(tok(rd, 1), sum))
                return base_fail(rd->err, LCM_E_MODEL, "the manifest was changed after lcmgen wrote it "
                                "(checksum mismatch); regenerate the model");
            m->sealed = 1;
        } else if (!strcmp(k, "source_hash")) {
            if (!tok(rd, 1)) return bad(rd, "missing hash");
            free(m->source_hash);
            m->source_hash = base_xstrdup(tok(rd, 1));
        } else return bad(rd, "unknown line");
    }
    return bad(rd, "manifest ends without 'end'");
}

int ir_manifest_read(const char *text, ir_model *m, lcm_err *err)
{
    reader rd = {.text = text, .line_start = text, .p = text, .line = 0, .err = err};
    int rc = read_body(&rd, m);
    tokens_clear(&rd.tk);
    free(rd.tk.v);
    return rc ? rc : ir_manifest_check(m, err);
}

int ir_manifest_check(ir_model *m, lcm_err *err)
{
    for (int i = 0; i < m->nregimes; ++i)
        if (!m->regimes[i].active) return base_fail(err, LCM_E_MODEL, "regime '%s' has no active line", m->regimes[i].name);
    if (!m->name) return base_fail(err, LCM_E_MODEL, "manifest has no model name");
    int rc = ir_model_check(m, err);
    if (!rc) rc = ir_shard_check(m, err);
    if (!rc) rc = ir_splay_check(m, err);
    return rc;
}

int ir_manifest_read_file(const char *path, ir_model *m, lcm_err *err)
{
    char *text = sys_read_file(path, NULL, err);
    if (!text) return err->code;
    int rc = ir_manifest_read(text, m, err);
    free(text);
    if (rc) base_fail_prefix(err, "%s", path);
    return rc;
}
