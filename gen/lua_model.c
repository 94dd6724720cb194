/* lua_model.c - see lua_model.h.  The tables' shape (gen/dsl/build.lua):
 *
 *   { name, file, options = { {name, value} }, ages = { x }, srcs = { "file:line (...)" },
 *     params = { {regime, func, name, dims = { n }, dimnames = { s }, fixed = { x } or nil} },
 *     regimes = { {name, terminal, active = { bool }, states = { {name, grid} }, actions = ...,
 *                  egm = {state, action, savings = grid or nil (a grid-search margin)} or nil,
 *                  margin_why = string or nil, dag = DAG} } }
 *   grid: {kind, n, batch, dist, category, labels, start, stop, runtime, points,
 *          pieces = { {lo, hi, lo_closed, hi_closed, n} }, process, gh, slots, periods = { grid }}
 *   DAG: {nodes = { {op, k or ref, args = { id }, src} }, utility, q, risk_aversion, taste,
 *         constraints = { {name, node} }, funcs = ..., rprob = { {regime, node} },
 *         marginal = {state, node}, euler_marginal = {state, node}, egm = {resources, dresources, discount, marginal, policy}, margin_nodes,
 *         targets = { {regime, next = { {state, kind, node | src | probs} }, egm_next = {next, dnext}} }}
 *
 * Ids are 0-based, as in the manifest; names are the manifest's words. */
#include "lua_model.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "process.h"

typedef struct rd {
    lua_State *L;
    lcm_err *err;
    int internal;
    char ctx[192]; /* where the reader is, for messages */
} rd;

static int bad(rd *r, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->internal = 1;
    return base_fail(r->err, LCM_E_MODEL, "%s%s%s", r->ctx, *r->ctx ? ": " : "", msg);
}

/* Pushes t[key], raw; returns its type. */
static int field(rd *r, int t, const char *key)
{
    lua_pushstring(r->L, key);
    return lua_rawget(r->L, t);
}

/* The value on top, popped: an integer (not a float) in [lo, hi]. */
static int take_int(rd *r, const char *what, int lo, int hi, int *out)
{
    lua_State *L = r->L;
    int ok = lua_type(L, -1) == LUA_TNUMBER && lua_isinteger(L, -1);
    lua_Integer v = ok ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    if (!ok || v < lo || v > hi) return bad(r, "%s must be an integer in %d..%d", what, lo, hi);
    *out = (int)v;
    return 0;
}

static int take_num(rd *r, const char *what, double *out)
{
    lua_State *L = r->L;
    int ok = lua_type(L, -1) == LUA_TNUMBER;
    double v = ok ? (double)lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    if (!ok) return bad(r, "%s must be a number", what);
    *out = isnan(v) ? NAN : v; /* one NaN, as the manifest's "nan" reads */
    return 0;
}

/* A string; word: one of the manifest's unquoted words (a name). */
static int take_str(rd *r, const char *what, int word, char **out)
{
    lua_State *L = r->L;
    size_t len = 0;
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!s) {
        lua_pop(L, 1);
        return bad(r, "%s must be a string", what);
    }
    if (strlen(s) != len) {
        base_fail(r->err, LCM_E_MODEL, "the model's text '%.*s\\0...' holds a NUL byte, which names and labels cannot",
                 (int)strlen(s) < 80 ? (int)strlen(s) : 80, s);
        lua_pop(L, 1);
        return r->err->code;
    }
    int ok = !word || len > 0;
    for (const char *c = s; word && *c; ++c)
        if ((unsigned char)*c <= ' ' || *c == '"' || *c == 0x7f) ok = 0;
    if (ok) *out = base_xstrdup(s);
    lua_pop(L, 1);
    return ok ? 0 : bad(r, "%s '%.80s' is not a name", what, s);
}

static int take_bool(rd *r, const char *what, int *out)
{
    int ok = lua_type(r->L, -1) == LUA_TBOOLEAN;
    *out = ok && lua_toboolean(r->L, -1);
    lua_pop(r->L, 1);
    return ok ? 0 : bad(r, "%s must be true or false", what);
}

static int get_int(rd *r, int t, const char *key, int lo, int hi, int *out)
{
    field(r, t, key);
    return take_int(r, key, lo, hi, out);
}

/* An optional node id: absent leaves *out (-1). */
static int get_opt_int(rd *r, int t, const char *key, int lo, int hi, int *out)
{
    if (field(r, t, key) == LUA_TNIL) {
        lua_pop(r->L, 1);
        return 0;
    }
    return take_int(r, key, lo, hi, out);
}

static int get_num(rd *r, int t, const char *key, double *out)
{
    field(r, t, key);
    return take_num(r, key, out);
}

static int get_str(rd *r, int t, const char *key, int word, char **out)
{
    field(r, t, key);
    return take_str(r, key, word, out);
}

static int get_bool(rd *r, int t, const char *key, int *out)
{
    field(r, t, key);
    return take_bool(r, key, out);
}

/* Pushes t[key], which must be a list (a table) of at most max entries; *n its length. */
static int get_list(rd *r, int t, const char *key, int max, int *n)
{
    *n = 0; /* on every path: callers' counts are never left unset */
    if (field(r, t, key) != LUA_TTABLE) {
        lua_pop(r->L, 1);
        return bad(r, "%s must be a table", key);
    }
    lua_Unsigned len = lua_rawlen(r->L, -1);
    if (len > (lua_Unsigned)max) {
        lua_pop(r->L, 1);
        return bad(r, "%s has %llu entries, at most %d", key, (unsigned long long)len, max);
    }
    *n = (int)len;
    return 0;
}

/* Pushes the i-th (1-based) entry of the list on top, which must be a table. */
static int get_entry(rd *r, const char *what, int i)
{
    if (lua_rawgeti(r->L, -1, i) != LUA_TTABLE) {
        lua_pop(r->L, 1);
        return bad(r, "%s %d must be a table", what, i);
    }
    return 0;
}

enum { MAX_LIST = 1 << 26 }; /* entries of a list: far above any model, below int overflow of sizes */

static int int_list(rd *r, int t, const char *key, int lo, int hi, int **out, int *n)
{
    int len, rc = get_list(r, t, key, MAX_LIST, &len);
    if (rc) return rc;
    *out = base_xcalloc((size_t)len + 1, sizeof **out);
    *n = len;
    for (int i = 0; i < len && !rc; ++i) {
        lua_rawgeti(r->L, -1, i + 1);
        rc = take_int(r, key, lo, hi, &(*out)[i]);
    }
    lua_pop(r->L, 1);
    return rc;
}

/* A list of exactly n numbers. */
static int num_list(rd *r, int t, const char *key, int n, double **out)
{
    int len, rc = get_list(r, t, key, MAX_LIST, &len);
    if (rc) return rc;
    if (len != n) {
        lua_pop(r->L, 1);
        return bad(r, "%s has %d entries, wants %d", key, len, n);
    }
    *out = base_xcalloc((size_t)len + 1, sizeof **out);
    for (int i = 0; i < len && !rc; ++i) {
        lua_rawgeti(r->L, -1, i + 1);
        rc = take_num(r, key, &(*out)[i]);
    }
    lua_pop(r->L, 1);
    return rc;
}

/* ---- grids ------------------------------------------------------------- */

static int read_grid(rd *r, int t, ir_grid *g, int in_age);

static int read_pieces(rd *r, int t, ir_grid *g)
{
    int n, rc = get_list(r, t, "pieces", MAX_LIST, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    if (n < 1) rc = bad(r, "bad pieces");
    g->pieces = base_xcalloc((size_t)n + 1, sizeof *g->pieces);
    g->npieces = n;
    long long total = 0;
    for (int k = 0; k < n && !rc; ++k) {
        if ((rc = get_entry(r, "piece", k + 1))) break;
        int e = lua_gettop(r->L);
        ir_piece *p = &g->pieces[k];
        if (!(rc = get_num(r, e, "lo", &p->lo)) && !(rc = get_num(r, e, "hi", &p->hi)) &&
            !(rc = get_bool(r, e, "lo_closed", &p->lo_closed)) && !(rc = get_bool(r, e, "hi_closed", &p->hi_closed)) &&
            !(rc = get_int(r, e, "n", INT_MIN + 1, INT_MAX, &p->n)) && (p->n < 2 || !(p->lo < p->hi)))
            rc = bad(r, "bad piece");
        total += p->n;
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    if (!rc && total != g->n) rc = bad(r, "the pieces do not add up to n points");
    return rc;
}

static int read_process(rd *r, int t, ir_grid *g)
{
    char *name = NULL;
    int rc = get_str(r, t, "process", 1, &name);
    if (rc) return rc;
    g->process = ir_process_by_name(name);
    free(name);
    if (g->process < 0) return bad(r, "unknown process");
    if ((rc = get_bool(r, t, "gh", &g->gauss_hermite))) return rc;
    if ((rc = int_list(r, t, "slots", INT_MIN + 1, INT_MAX, &g->slots, &g->nslots))) return rc;
    const char *names[IR_PROCESS_MAX_PARAMS];
    if (g->nslots != ir_process_params((ir_process_kind)g->process, g->gauss_hermite, names))
        return bad(r, "process has the wrong number of parameter slots");
    return 0;
}

/* A grid by age: one fixed continuous grid of the outer n points per period. */
static int read_age_periods(rd *r, int t, ir_grid *g)
{
    int n, rc = get_list(r, t, "periods", MAX_LIST, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    if (n < 1) rc = bad(r, "bad number of periods in a grid by age");
    g->periods = base_xcalloc((size_t)n + 1, sizeof *g->periods);
    g->nperiods = n;
    for (int k = 0; k < n && !rc; ++k) {
        if ((rc = get_entry(r, "period", k + 1))) break;
        ir_grid *p = &g->periods[k];
        if (!(rc = read_grid(r, lua_gettop(r->L), p, 1))) {
            if (p->kind == GRID_DISCRETE || p->kind == GRID_PROCESS || p->kind == GRID_AGE ||
                (p->kind == GRID_IRREG && !p->points))
                rc = bad(r, "a period's grid in a grid by age must be a fixed continuous grid");
            else if (p->n != g->n) rc = bad(r, "a period's grid in a grid by age has another number of points");
        }
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    return rc;
}

static int read_grid(rd *r, int t, ir_grid *g, int in_age)
{
    g->points_slot = -1;
    char *kind_name = NULL;
    int rc = get_str(r, t, "kind", 1, &kind_name);
    if (rc) return rc;
    int kind = ir_grid_kind_by_name(kind_name);
    free(kind_name);
    if (kind < 0) return bad(r, "unknown grid kind");
    g->kind = (grid_kind)kind;
    if (in_age && g->kind == GRID_AGE) /* before reading it: no nesting without end */
        return bad(r, "a period's grid in a grid by age must be a fixed continuous grid");
    if ((rc = get_int(r, t, "n", 1, INT_MAX, &g->n))) return rc;
    if ((rc = get_int(r, t, "batch", INT_MIN + 1, INT_MAX, &g->batch_size))) return rc;
    if (g->kind != GRID_AGE && (rc = get_bool(r, t, "dist", &g->distributed))) return rc;
    switch (g->kind) {
    case GRID_DISCRETE: {
        if (field(r, t, "category") == LUA_TNIL) lua_pop(r->L, 1);
        else if ((rc = take_str(r, "category", 0, &g->category))) return rc;
        int n;
        if ((rc = get_list(r, t, "labels", MAX_LIST, &n))) return rc;
        if (n != g->n) {
            lua_pop(r->L, 1);
            return bad(r, "%d labels for %d points", n, g->n);
        }
        g->labels = base_xcalloc((size_t)n, sizeof *g->labels);
        for (int k = 0; k < n && !rc; ++k) {
            lua_rawgeti(r->L, -1, k + 1);
            rc = take_str(r, "label", 0, &g->labels[k]);
        }
        lua_pop(r->L, 1);
        return rc;
    }
    case GRID_LIN:
    case GRID_LOG:
        if ((rc = get_num(r, t, "start", &g->start))) return rc;
        return get_num(r, t, "stop", &g->stop);
    case GRID_IRREG:
        if (field(r, t, "runtime") != LUA_TNIL) return take_int(r, "runtime", INT_MIN + 1, INT_MAX, &g->points_slot);
        lua_pop(r->L, 1);
        return num_list(r, t, "points", g->n, &g->points);
    case GRID_PWLIN:
    case GRID_PWLOG: return read_pieces(r, t, g);
    case GRID_PROCESS: return read_process(r, t, g);
    case GRID_AGE: return read_age_periods(r, t, g);
    }
    return 0;
}

/* Pushes nothing; fills *vars from the list t[key] of {name, grid}. */
static int read_vars(rd *r, int t, const char *key, const char *what, ir_var **vars, int *nvars)
{
    int n, rc = get_list(r, t, key, MAX_LIST, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    *vars = base_xcalloc((size_t)n + 1, sizeof **vars);
    *nvars = n;
    size_t ctx_len = strlen(r->ctx);
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, what, i + 1))) break;
        int e = lua_gettop(r->L);
        ir_var *v = &(*vars)[i];
        if (!(rc = get_str(r, e, "name", 1, &v->name)) && field(r, e, "grid") != LUA_TTABLE)
            rc = bad(r, "%s '%s': grid must be a table", what, v->name);
        if (!rc) {
            snprintf(r->ctx + ctx_len, sizeof r->ctx - ctx_len, ", %s '%.40s'", what, v->name);
            rc = read_grid(r, lua_gettop(r->L), &v->grid, 0);
            r->ctx[ctx_len] = 0;
        }
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    return rc;
}

/* ---- regimes ----------------------------------------------------------- */

static int read_regime(rd *r, int t, ir_model *m, ir_regime *g)
{
    int rc = get_bool(r, t, "terminal", &g->terminal);
    if (rc) return rc;
    int n;
    if ((rc = get_list(r, t, "active", MAX_LIST, &n))) return rc;
    if (n != m->nperiods) {
        lua_pop(r->L, 1);
        return bad(r, "active needs one flag per period");
    }
    g->active = base_xcalloc((size_t)n, 1);
    for (int k = 0; k < n && !rc; ++k) {
        int a = 0;
        lua_rawgeti(r->L, -1, k + 1);
        rc = take_bool(r, "active", &a);
        g->active[k] = (unsigned char)a;
    }
    lua_pop(r->L, 1);
    if (rc || (rc = read_vars(r, t, "states", "state", &g->states, &g->nstates)) ||
        (rc = read_vars(r, t, "actions", "action", &g->actions, &g->nactions)))
        return rc;
    int type = field(r, t, "margin_why");
    if (type == LUA_TSTRING) rc = get_str(r, t, "margin_why", 0, &g->margin_why);
    else if (type != LUA_TNIL) rc = bad(r, "margin_why must be a string");
    lua_pop(r->L, 1);
    if (rc) return rc;
    type = field(r, t, "egm");
    if (type == LUA_TNIL) {
        lua_pop(r->L, 1);
        return 0;
    }
    if (type != LUA_TTABLE) return lua_pop(r->L, 1), bad(r, "egm must be a table");
    int e = lua_gettop(r->L);
    char *state = NULL, *action = NULL;
    if (!(rc = get_str(r, e, "state", 1, &state)) && !(rc = get_str(r, e, "action", 1, &action))) {
        g->egm.state = ir_find_state(g, state);
        g->egm.action = ir_find_action(g, action);
        if (g->egm.state < 0 || g->egm.action < 0) rc = bad(r, "egm names no state or action of the regime");
    }
    free(state), free(action);
    g->egm.savings.name = base_xstrdup("savings");
    g->egm.resources = g->egm.dresources = g->egm.discount = g->egm.marginal = g->egm.policy = -1;
    int savings = rc ? LUA_TNIL : field(r, e, "savings");
    if (!rc && savings == LUA_TNIL) g->egm.margin = 1; /* grid search: the margin alone */
    else if (!rc && savings != LUA_TTABLE) rc = bad(r, "egm: savings must be a grid");
    else if (!rc) rc = read_grid(r, lua_gettop(r->L), &g->egm.savings.grid, 0);
    if (!rc && !ir_has_margin(g)) rc = bad(r, "egm: savings must be a grid");
    if (!rc && g->terminal) rc = bad(r, "egm: a terminal regime has no margin");
    lua_settop(r->L, e - 1);
    return rc;
}

static int read_named(rd *r, int t, const char *key, ir_named **v, int *nv)
{
    int n, rc = get_list(r, t, key, MAX_LIST, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    *v = base_xcalloc((size_t)n + 1, sizeof **v);
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, key, i + 1))) break;
        int e = lua_gettop(r->L);
        ir_named *x = &(*v)[(*nv)++];
        if (!(rc = get_str(r, e, "name", 1, &x->name))) rc = get_int(r, e, "node", INT_MIN + 1, INT_MAX, &x->node);
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    return rc;
}

/* A name of the list on top: {regime|state = NAME, node = ID}, the name looked up. */
static int named_ref(rd *r, int e, const char *key, int (*find)(const void *, const char *), const void *in,
                     int *index, int *node)
{
    char *name = NULL;
    int rc = get_str(r, e, key, 1, &name);
    if (rc) return rc;
    *index = find(in, name);
    if (*index < 0) rc = bad(r, "unknown %s '%s'", key, name);
    free(name);
    return rc ? rc : get_int(r, e, "node", INT_MIN + 1, INT_MAX, node);
}

static int find_regime(const void *m, const char *name) { return ir_find_regime(m, name); }
static int find_state(const void *g, const char *name) { return ir_find_state(g, name); }

static int read_node(rd *r, int e, ir_node *n)
{
    char *op = NULL;
    int rc = get_str(r, e, "op", 1, &op);
    if (rc) return rc;
    int o = ir_op_by_name(op);
    free(op);
    if (o < 0) return bad(r, "unknown op");
    n->op = (ir_op)o;
    n->src = -1;
    if ((rc = get_opt_int(r, e, "src", INT_MIN + 1, INT_MAX, &n->src))) return rc;
    int has_ref = field(r, e, "ref") != LUA_TNIL;
    lua_pop(r->L, 1);
    if (n->op == OP_CONST) {
        if ((rc = get_num(r, e, "k", &n->k))) return rc;
    } else if (n->op == OP_STATE || n->op == OP_ACTION || n->op == OP_PARAM || n->op == OP_PIDX) {
        if ((rc = get_int(r, e, "ref", INT_MIN + 1, INT_MAX, &n->ref))) return rc;
    } else if (has_ref) return bad(r, "a node %s has no ref", ir_ops[n->op].name);
    int nargs;
    if ((rc = get_list(r, e, "args", IR_MAX_ARGS, &nargs))) return rc;
    for (int a = 0; a < nargs && !rc; ++a) {
        lua_rawgeti(r->L, -1, a + 1);
        rc = take_int(r, "args", INT_MIN + 1, INT_MAX, &n->args[n->nargs++]);
    }
    lua_pop(r->L, 1);
    return rc;
}

static int read_next(rd *r, int e, const ir_regime *tr, int s, ir_next *nx)
{
    char *state = NULL, *kind = NULL;
    int rc = get_str(r, e, "state", 1, &state);
    if (!rc && strcmp(state, tr->states[s].name)) rc = bad(r, "next states out of order");
    if (!rc) rc = get_str(r, e, "kind", 1, &kind);
    if (!rc) {
        if (!strcmp(kind, "det")) {
            nx->kind = NEXT_DET;
            rc = get_int(r, e, "node", INT_MIN + 1, INT_MAX, &nx->node);
        } else if (!strcmp(kind, "process")) {
            nx->kind = NEXT_PROCESS;
            rc = get_int(r, e, "src", INT_MIN + 1, INT_MAX, &nx->src);
        } else if (!strcmp(kind, "markov")) {
            nx->kind = NEXT_MARKOV;
            rc = int_list(r, e, "probs", INT_MIN + 1, INT_MAX, &nx->probs, &nx->nprobs);
        } else rc = bad(r, "unknown next kind");
    }
    free(state), free(kind);
    return rc;
}

static int read_targets(rd *r, int t, ir_model *m, ir_regime *g)
{
    int n, rc = get_list(r, t, "targets", IR_MAX_REGIMES, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    g->targets = base_xcalloc((size_t)n + 1, sizeof *g->targets);
    if (ir_has_margin(g)) {
        g->egm.next = base_xmalloc(((size_t)n + 1) * sizeof *g->egm.next);
        g->egm.dnext = base_xmalloc(((size_t)n + 1) * sizeof *g->egm.dnext);
        for (int i = 0; i < n; ++i) g->egm.next[i] = g->egm.dnext[i] = -1;
    }
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, "target", i + 1))) break;
        int e = lua_gettop(r->L);
        char *name = NULL;
        if ((rc = get_str(r, e, "regime", 1, &name))) break;
        int id = ir_find_regime(m, name);
        free(name);
        if (id < 0) {
            rc = bad(r, "unknown regime");
            break;
        }
        ir_target *tg = &g->targets[g->ntargets++];
        const ir_regime *tr = &m->regimes[id];
        tg->regime = id;
        tg->next = base_xcalloc((size_t)tr->nstates + 1, sizeof *tg->next);
        int nn;
        if ((rc = get_list(r, e, "next", MAX_LIST, &nn))) break;
        if (nn != tr->nstates) rc = bad(r, "target '%s' has %d next states, wants %d", tr->name, nn, tr->nstates);
        int nl = lua_gettop(r->L);
        for (int s = 0; s < nn && !rc; ++s) {
            if ((rc = get_entry(r, "next", s + 1))) break;
            rc = read_next(r, lua_gettop(r->L), tr, s, &tg->next[s]);
            lua_settop(r->L, nl);
        }
        lua_settop(r->L, e);
        int type = rc ? LUA_TNIL : field(r, e, "egm_next");
        if (type != LUA_TNIL) {
            if (type != LUA_TTABLE || !ir_has_margin(g)) rc = bad(r, "bad egm_next");
            else {
                int x = lua_gettop(r->L);
                if (!(rc = get_int(r, x, "next", INT_MIN + 1, INT_MAX, &g->egm.next[i])))
                    rc = get_int(r, x, "dnext", INT_MIN + 1, INT_MAX, &g->egm.dnext[i]);
            }
        }
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    return rc;
}

static int read_dag(rd *r, int t, ir_model *m, ir_regime *g)
{
    int n, rc = get_list(r, t, "nodes", MAX_LIST, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    g->nodes = base_xcalloc((size_t)n + 1, sizeof *g->nodes);
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, "node", i + 1))) break;
        rc = read_node(r, lua_gettop(r->L), &g->nodes[g->nnodes++]);
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    if (rc || (rc = get_int(r, t, "utility", INT_MIN + 1, INT_MAX, &g->utility)) ||
        (rc = get_int(r, t, "q", INT_MIN + 1, INT_MAX, &g->q)) ||
        (rc = get_opt_int(r, t, "risk_aversion", INT_MIN + 1, INT_MAX, &g->risk_aversion)) ||
        (rc = get_opt_int(r, t, "taste", INT_MIN + 1, INT_MAX, &g->taste_scale)) ||
        (rc = get_opt_int(r, t, "margin_nodes", 0, INT_MAX, &g->margin_nodes)) ||
        (rc = read_named(r, t, "constraints", &g->constraints, &g->nconstraints)) ||
        (rc = read_named(r, t, "funcs", &g->funcs, &g->nfuncs)))
        return rc;
    if ((rc = get_list(r, t, "rprob", IR_MAX_REGIMES, &n))) return rc;
    list = lua_gettop(r->L);
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, "rprob", i + 1))) break;
        int id = -1, node = -1;
        if (!(rc = named_ref(r, lua_gettop(r->L), "regime", find_regime, m, &id, &node))) g->rprob[id] = node;
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    if (rc) return rc;
    int type = field(r, t, "marginal");
    if (type == LUA_TTABLE) {
        rc = named_ref(r, lua_gettop(r->L), "state", find_state, g, &g->marginal_state, &g->marginal);
        g->terminal_marginal = 1;
    } else if (type != LUA_TNIL) rc = bad(r, "bad marginal");
    lua_pop(r->L, 1);
    if (rc) return rc;
    type = field(r, t, "euler_marginal"); /* d utility / d x for the Euler errors alone (ir.h) */
    if (type == LUA_TTABLE && !g->terminal_marginal) {
        rc = named_ref(r, lua_gettop(r->L), "state", find_state, g, &g->marginal_state, &g->marginal);
        g->euler_marginal = 1;
    } else if (type != LUA_TNIL) rc = bad(r, "bad euler_marginal");
    lua_pop(r->L, 1);
    if (rc) return rc;
    type = field(r, t, "egm");
    if (type == LUA_TTABLE && ir_has_margin(g)) {
        int e = lua_gettop(r->L);
        if (!(rc = get_int(r, e, "resources", INT_MIN + 1, INT_MAX, &g->egm.resources)) &&
            !(rc = get_int(r, e, "dresources", INT_MIN + 1, INT_MAX, &g->egm.dresources)) &&
            !(rc = get_int(r, e, "discount", INT_MIN + 1, INT_MAX, &g->egm.discount)) &&
            !(rc = get_int(r, e, "marginal", INT_MIN + 1, INT_MAX, &g->egm.marginal)))
            rc = get_int(r, e, "policy", INT_MIN + 1, INT_MAX, &g->egm.policy);
    } else if (type != LUA_TNIL) rc = bad(r, "bad egm roots");
    lua_pop(r->L, 1);
    return rc ? rc : read_targets(r, t, m, g);
}

/* ---- the model --------------------------------------------------------- */

static int read_params(rd *r, int t, ir_model *m)
{
    int n, rc = get_list(r, t, "params", MAX_LIST, &n);
    if (rc) return rc;
    int list = lua_gettop(r->L);
    m->params = base_xcalloc((size_t)n + 1, sizeof *m->params);
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, "param", i + 1))) break;
        int e = lua_gettop(r->L);
        ir_param *p = &m->params[m->nparams++];
        if ((rc = get_str(r, e, "regime", 1, &p->regime)) || (rc = get_str(r, e, "func", 1, &p->func)) ||
            (rc = get_str(r, e, "name", 1, &p->name)))
            break;
        snprintf(r->ctx, sizeof r->ctx, "parameter '%.40s' of %.40s.%.40s", p->name, p->regime, p->func);
        int nd, nn;
        if ((rc = get_list(r, e, "dims", IR_MAX_DIMS, &nd))) break;
        lua_pop(r->L, 1);
        if ((rc = get_list(r, e, "dimnames", IR_MAX_DIMS, &nn))) break;
        lua_pop(r->L, 1);
        if (nn != nd) {
            rc = bad(r, "bad parameter dimensions");
            break;
        }
        int *dims = NULL, ndims = 0;
        if ((rc = int_list(r, e, "dims", 1, INT_MAX, &dims, &ndims))) {
            free(dims);
            break;
        }
        memcpy(p->dims, dims, (size_t)ndims * sizeof *dims);
        free(dims);
        p->size = 1;
        if ((rc = get_list(r, e, "dimnames", IR_MAX_DIMS, &nn))) break;
        for (int d = 0; d < nd && !rc; ++d) {
            lua_rawgeti(r->L, -1, d + 1);
            if (!(rc = take_str(r, "dimnames", 1, &p->dimnames[d]))) ++p->ndims;
            if (!rc && p->size > ((size_t)1 << 48) / (size_t)p->dims[d]) rc = bad(r, "too many values");
            p->size *= (size_t)p->dims[d];
        }
        lua_settop(r->L, e);
        if (!rc && field(r, e, "fixed") != LUA_TNIL) {
            lua_pop(r->L, 1);
            if (p->size > MAX_LIST) rc = bad(r, "too many values");
            else if (!(rc = num_list(r, e, "fixed", (int)p->size, &p->values))) p->fixed = 1;
        }
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    return rc;
}

static int read_strings(rd *r, int t, const char *key, char ***out, int *nout)
{
    int n, rc = get_list(r, t, key, MAX_LIST, &n);
    if (rc) return rc;
    *out = base_xcalloc((size_t)n + 1, sizeof **out);
    for (int i = 0; i < n && !rc; ++i) {
        lua_rawgeti(r->L, -1, i + 1);
        if (!(rc = take_str(r, key, 0, &(*out)[*nout]))) ++*nout;
    }
    lua_pop(r->L, 1);
    return rc;
}

static int read_model(rd *r, int t, ir_model *m)
{
    int rc, n;
    if ((rc = get_str(r, t, "name", 1, &m->name)) || (rc = get_str(r, t, "file", 0, &m->file))) return rc;
    if ((rc = get_list(r, t, "options", MAX_LIST, &n))) return rc;
    int list = lua_gettop(r->L);
    m->options = base_xcalloc((size_t)n + 1, sizeof *m->options);
    for (int i = 0; i < n && !rc; ++i) {
        if ((rc = get_entry(r, "option", i + 1))) break;
        ir_option *o = &m->options[m->noptions++];
        if (!(rc = get_str(r, lua_gettop(r->L), "name", 1, &o->name)))
            rc = get_str(r, lua_gettop(r->L), "value", 0, &o->value);
        lua_settop(r->L, list);
    }
    lua_settop(r->L, list - 1);
    if (rc || (rc = get_list(r, t, "ages", MAX_LIST, &n))) return rc;
    lua_pop(r->L, 1);
    if (n < 1) return bad(r, "bad ages");
    if ((rc = num_list(r, t, "ages", n, &m->ages))) return rc;
    m->nperiods = n;
    if ((rc = read_strings(r, t, "srcs", &m->src, &m->nsrc)) || (rc = read_params(r, t, m))) return rc;
    r->ctx[0] = 0;
    if ((rc = get_list(r, t, "regimes", IR_MAX_REGIMES, &n))) return rc;
    list = lua_gettop(r->L);
    m->regimes = base_xcalloc((size_t)n + 1, sizeof *m->regimes);
    /* the headers first: a DAG names later regimes */
    for (int pass = 0; pass < 2 && !rc; ++pass)
        for (int i = 0; i < n && !rc; ++i) {
            if ((rc = get_entry(r, "regime", i + 1))) break;
            int e = lua_gettop(r->L);
            ir_regime *g = &m->regimes[i];
            if (pass == 0) {
                g->id = m->nregimes++;
                g->utility = g->q = g->risk_aversion = g->taste_scale = -1;
                g->egm.state = g->egm.action = -1;
                for (int k = 0; k < IR_MAX_REGIMES; ++k) g->rprob[k] = -1;
                if (!(rc = get_str(r, e, "name", 1, &g->name))) {
                    snprintf(r->ctx, sizeof r->ctx, "regime '%.40s'", g->name);
                    rc = read_regime(r, e, m, g);
                }
            } else {
                snprintf(r->ctx, sizeof r->ctx, "regime '%.40s', DAG", g->name);
                if (field(r, e, "dag") != LUA_TTABLE) rc = bad(r, "dag must be a table");
                else rc = read_dag(r, lua_gettop(r->L), m, g);
            }
            r->ctx[0] = 0;
            lua_settop(r->L, list);
        }
    lua_settop(r->L, list - 1);
    return rc;
}

int gen_lua_read_model(lua_State *L, int index, ir_model *m, int *internal, lcm_err *err)
{
    rd r = {.L = L, .err = err};
    int t = lua_absindex(L, index), top = lua_gettop(L);
    int rc = lua_type(L, t) == LUA_TTABLE ? read_model(&r, t, m) : bad(&r, "the model is not a table");
    lua_settop(L, top);
    if (!rc) r.internal = 1, rc = ir_manifest_check(m, err);
    *internal = r.internal;
    return rc;
}
