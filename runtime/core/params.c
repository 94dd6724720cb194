/* params.c - see params.h. */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"

/* ---- the value tree ----------------------------------------------------- */
static lcm_pvalue *pv_new(lcm_pv_kind k)
{
    lcm_pvalue *v = base_xcalloc(1, sizeof *v);
    v->kind = k;
    return v;
}

lcm_pvalue *lcm_pv_num(double x)
{
    lcm_pvalue *v = pv_new(LCM_PV_NUM);
    v->num = x;
    return v;
}
lcm_pvalue *lcm_pv_list(void) { return pv_new(LCM_PV_LIST); }
lcm_pvalue *lcm_pv_table(void) { return pv_new(LCM_PV_TABLE); }

/* Makes item v's child: its parent, and the heights above it. */
static void adopt(lcm_pvalue *v, lcm_pvalue *item)
{
    item->parent = v;
    for (int h = item->height + 1; v && v->height < h; v = v->parent, ++h) v->height = h;
}

/* Appends item (key: NULL for a list). */
static void pv_push(lcm_pvalue *v, char *key, lcm_pvalue *item)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 8;
        v->items = base_xrealloc(v->items, (size_t)v->cap * sizeof *v->items);
        v->keys = base_xrealloc(v->keys, (size_t)v->cap * sizeof *v->keys);
    }
    v->keys[v->n] = key;
    v->items[v->n++] = item;
    adopt(v, item);
}

static void pv_free(lcm_pvalue *v)
{
    for (int i = 0; i < v->n; ++i) {
        free(v->keys[i]);
        pv_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->misuse);
    free(v);
}

/* The nodes from v up to its root (0 for NULL); *holds: whether item is one. */
static int levels_above(const lcm_pvalue *v, const lcm_pvalue *item, int *holds)
{
    int n = 0;
    *holds = 0;
    for (; v; v = v->parent, ++n) *holds |= v == item;
    return n;
}

/* Whether item may go into v (a node of kind `want`); if not, v (when there
 * is one) remembers why for core_params_resolve, and item, given away, is
 * freed, unless it belongs to a tree (another, or v's own: a cycle refused)
 * and stays there.  bad_key: why the key is refused, or NULL. */
static int taken(lcm_pvalue *v, lcm_pv_kind want, const char *fn, const char *bad_kind, const char *bad_key,
                 lcm_pvalue *item)
{
    int cycle, levels = levels_above(v, item, &cycle);
    const char *why = !v ? "was given a NULL table or list"
                    : v->kind != want ? bad_kind
                    : bad_key ? bad_key
                    : !item ? "was given a NULL item"
                    : item->parent ? "was given an item that belongs to a table or list already (an item belongs to "
                                     "one place)"
                    : cycle ? "was given a table or list to put into itself or into one of its items (a cycle)"
                    : levels + 1 + item->height > LCM_PV_MAX_DEPTH + 1 ? "would nest tables and lists more than 100 "
                                                                         "deep"
                    : NULL;
    if (!why) return 1;
    if (v && !v->misuse) v->misuse = base_xasprintf("%s %s", fn, why);
    if (item && !item->parent && !cycle) pv_free(item);
    return 0;
}

void lcm_pv_append(lcm_pvalue *list, lcm_pvalue *item)
{
    if (taken(list, LCM_PV_LIST, "lcm_pv_append", "was given a table or a number, not a list (lcm_pv_list)", NULL,
              item))
        pv_push(list, NULL, item);
}

void lcm_pv_put(lcm_pvalue *t, const char *key, lcm_pvalue *item)
{
    if (item && t && item->parent == t && key)
        for (int i = 0; i < t->n; ++i)
            if (t->items[i] == item && !strcmp(t->keys[i], key)) return; /* put again: it stays */
    if (!taken(t, LCM_PV_TABLE, "lcm_pv_put", "was given a list or a number, not a table (lcm_pv_table)",
               key ? NULL : "was given a NULL key", item))
        return;
    for (int i = 0; i < t->n; ++i)
        if (!strcmp(t->keys[i], key)) { /* replaced in place: the old item goes */
            pv_free(t->items[i]);
            t->items[i] = item;
            adopt(t, item);
            return;
        }
    pv_push(t, base_xstrdup(key), item);
}

void core_pv_put_new(lcm_pvalue *t, const char *key, lcm_pvalue *item) { pv_push(t, base_xstrdup(key), item); }

lcm_pvalue *lcm_pv_get(const lcm_pvalue *t, const char *key)
{
    if (!t || t->kind != LCM_PV_TABLE || !key) return NULL;
    for (int i = 0; i < t->n; ++i)
        if (!strcmp(t->keys[i], key)) return t->items[i];
    return NULL;
}

void core_pv_remove(lcm_pvalue *t, const char *key)
{
    for (int i = 0; t && t->kind == LCM_PV_TABLE && i < t->n; ++i)
        if (!strcmp(t->keys[i], key)) {
            free(t->keys[i]);
            pv_free(t->items[i]);
            memmove(t->keys + i, t->keys + i + 1, (size_t)(t->n - i - 1) * sizeof *t->keys);
            memmove(t->items + i, t->items + i + 1, (size_t)(t->n - i - 1) * sizeof *t->items);
            t->n--;
            return;
        }
}

void lcm_pv_free(lcm_pvalue *v)
{
    if (v && !v->parent) pv_free(v); /* an item is freed with its tree */
}

int lcm_pv_set_path(lcm_pvalue *root, const char *path, lcm_pvalue *item, lcm_err *err)
{
    int cycle;
    levels_above(root, item, &cycle);
    int owned = item && (item->parent || cycle); /* it belongs to a tree, and stays there */
    if (!err || !root || !path || !item || owned) {
        if (item && !owned) pv_free(item); /* given away */
        LCM_NEEDS(err, root, path, item);
        return base_fail(err, LCM_E_USAGE, "lcm_pv_set_path: the item %s", cycle ? "is the root or one of its tables "
                        "(a cycle)" : "belongs to a table or list already (an item belongs to one place)");
    }
    if (root->kind != LCM_PV_TABLE) {
        lcm_pv_free(item);
        return base_fail(err, LCM_E_PARAMS, "'%s': the root of the parameters is %s, not a table (lcm_pv_table)", path,
                        root->kind == LCM_PV_LIST ? "a list" : "a number");
    }
    lcm_pvalue *t = root;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char *key = base_xstrndup(p, len);
        if (!base_is_identifier(key)) {
            int rc = base_fail(err, LCM_E_PARAMS, "'%s': '%s' is not a parameter, regime or function name", path, key);
            free(key);
            lcm_pv_free(item);
            return rc;
        }
        if (!dot) {
            lcm_pv_put(t, key, item);
            free(key);
            return 0;
        }
        lcm_pvalue *next = lcm_pv_get(t, key);
        if (!next) {
            next = lcm_pv_table();
            lcm_pv_put(t, key, next);
        } else if (next->kind != LCM_PV_TABLE) {
            int rc = base_fail(err, LCM_E_PARAMS, "'%s': '%s' is a value, not a table", path, key);
            free(key);
            lcm_pv_free(item);
            return rc;
        }
        free(key);
        t = next;
        p = dot + 1;
    }
}

/* The value at a dotted path of a params tree, and the table holding it. */
static lcm_pvalue *pv_at_path(lcm_pvalue *root, const char *path, lcm_pvalue **parent, const char **leaf)
{
    lcm_pvalue *t = root;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        char *key = dot ? base_xstrndup(p, (size_t)(dot - p)) : base_xstrdup(p);
        lcm_pvalue *v = lcm_pv_get(t, key);
        free(key);
        if (!dot) {
            *parent = t, *leaf = p;
            return v;
        }
        if (!v) return NULL;
        t = v, p = dot + 1;
    }
}

int core_params_take_fixes(lcm_pvalue *params, ir_option *fixes, int nfixes, lcm_err *err)
{
    for (int i = 0; i < nfixes; ++i) {
        ir_option *f = &fixes[i];
        lcm_pvalue *parent = NULL;
        const char *leaf = NULL;
        lcm_pvalue *v = params ? pv_at_path(params, f->name, &parent, &leaf) : NULL;
        if (v && v->kind != LCM_PV_NUM)
            return base_fail(err, LCM_E_PARAMS, "--fix %s: the parameters give '%s' %s; only a number can be fixed "
                            "this way", f->name, f->name, v->kind == LCM_PV_LIST ? "an array (an array is no faster "
                            "fixed: give it in the params file)" : "a table (a regime's or a function's parameters, "
                            "or an array by label)");
        if (!v && !f->value) {
            const char *name = strrchr(f->name, '.');
            int at_top = name && lcm_pv_get(params, name + 1); /* given at model level, fixed at another */
            return base_fail(err, LCM_E_PARAMS, "--fix %s: the parameters (--params, --set) give no value at '%s'%s%s%s; "
                            "give one (--fix %s=VALUE) or put it in the params file at that path", f->name, f->name,
                            at_top ? " (they give it at model level: --fix " : "", at_top ? name + 1 : "",
                            at_top ? ")" : "", f->name);
        }
        if (v && f->value) {
            double x = strtod(f->value, NULL); /* checked by lcmgen_parse_fix */
            if (memcmp(&x, &v->num, sizeof x)) {
                lcm_sb theirs;
                base_sb_init(&theirs);
                base_sb_double(&theirs, v->num);
                base_fail(err, LCM_E_PARAMS, "--fix %s=%s: the parameters (--params, --set) give '%s' = %s; give the "
                         "value in one place (--fix %s takes theirs)", f->name, f->value, f->name, theirs.s, f->name);
                base_sb_free(&theirs);
                return err->code;
            }
        }
        if (!v) continue;
        if (!f->value) f->value = base_xasprintf("%a", v->num); /* the same double, -0 included */
        core_pv_remove(parent, leaf);
    }
    return 0;
}

/* ---- resolution --------------------------------------------------------- */

/* Does function f of regime r take parameters (i.e. is `r.f` a level)? */
static int is_param_function(const ir_model *m, const char *regime, const char *f)
{
    for (int i = 0; i < m->nparams; ++i)
        if (!strcmp(m->params[i].regime, regime) && !strcmp(m->params[i].func, f)) return 1;
    return 0;
}

/* Labels of the variable indexing a dimension, or NULL (period,
 * non-categorical); regime_names: the caller's room for the regimes' names
 * (next_regime), so that threads resolving at once do not share it. */
static char **dim_labels(const ir_model *m, const char *regime, const char *dimname,
                         char *regime_names[IR_MAX_REGIMES])
{
    if (!strcmp(dimname, "next_regime")) {
        for (int g = 0; g < m->nregimes; ++g) regime_names[g] = m->regimes[g].name;
        return regime_names;
    }
    const char *state = !strncmp(dimname, "next_", 5) ? dimname + 5 : dimname;
    int r = ir_find_regime(m, regime);
    const ir_regime *R = r >= 0 ? &m->regimes[r] : NULL;
    if (R) {
        int i = ir_find_state(R, dimname);
        if (i >= 0 && grid_is_discrete(&R->states[i].grid)) return R->states[i].grid.labels;
        i = ir_find_action(R, dimname);
        if (i >= 0 && grid_is_discrete(&R->actions[i].grid)) return R->actions[i].grid.labels;
    }
    for (int g = 0; g < m->nregimes; ++g) {
        int i = ir_find_state(&m->regimes[g], state);
        if (i >= 0 && grid_is_discrete(&m->regimes[g].states[i].grid)) return m->regimes[g].states[i].grid.labels;
    }
    return NULL;
}

typedef struct path_set {
    char **v;
    int n, cap;
} path_set;

static void path_add(path_set *s, const char *p)
{
    for (int i = 0; i < s->n; ++i)
        if (!strcmp(s->v[i], p)) return;
    if (s->n == s->cap) s->cap = s->cap ? 2 * s->cap : 16, s->v = base_xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
    s->v[s->n++] = base_xstrdup(p);
}

static int path_has(const path_set *s, const char *p)
{
    for (int i = 0; i < s->n; ++i)
        if (!strcmp(s->v[i], p)) return 1;
    return 0;
}

static void path_free(path_set *s)
{
    for (int i = 0; i < s->n; ++i) free(s->v[i]);
    free(s->v);
}

static void describe_shape(const ir_param *p, lcm_sb *b)
{
    if (p->ndims == 0) {
        base_sb_puts(b, "a number");
        return;
    }
    for (int d = 0; d < p->ndims; ++d) base_sb_printf(b, "%s%d", d ? " x " : "", p->dims[d]);
    base_sb_puts(b, " values by ");
    for (int d = 0; d < p->ndims; ++d) base_sb_printf(b, "%s%s", d ? ", " : "", p->dimnames[d]);
}

/* Flattens v into out[] following p's dimensions from dimension d. */
static int flatten(const ir_model *m, const ir_param *p, const lcm_pvalue *v, int d, double *out,
                   size_t *pos, const char *where, lcm_err *err)
{
    if (d == p->ndims) {
        if (v->kind != LCM_PV_NUM)
            return base_fail(err, LCM_E_PARAMS, "parameter %s: expected a number, found a %s", where,
                            v->kind == LCM_PV_LIST ? "list" : "table");
        if (v->num != v->num) return base_fail(err, LCM_E_PARAMS, "parameter %s is NaN", where);
        out[(*pos)++] = v->num;
        return 0;
    }
    if (d >= IR_MAX_DIMS) /* the manifest reader keeps ndims within; gcc -O3 cannot see it through the recursion */
        return base_fail(err, LCM_E_INTERNAL, "parameter %s: more than %d dimensions", where, IR_MAX_DIMS);
    int n = p->dims[d];
    if (v->kind == LCM_PV_NUM) {
        lcm_sb b;
        base_sb_init(&b);
        describe_shape(p, &b);
        int rc = base_fail(err, LCM_E_PARAMS, "parameter %s: expected an array (%s), found a number", where, b.s);
        base_sb_free(&b);
        return rc;
    }
    if (v->kind == LCM_PV_TABLE) {
        char *regime_names[IR_MAX_REGIMES];
        char **labels = dim_labels(m, p->regime, p->dimnames[d], regime_names);
        if (!labels)
            return base_fail(err, LCM_E_PARAMS, "parameter %s: dimension %d (%s) is not categorical; give a list",
                            where, d + 1, p->dimnames[d]);
        for (int i = 0; i < v->n; ++i) {
            int found = 0;
            for (int j = 0; j < n; ++j) found |= !strcmp(v->keys[i], labels[j]);
            if (!found) {
                lcm_sb cats;
                base_sb_init(&cats);
                for (int j = 0; j < n; ++j) base_sb_printf(&cats, "%s%s", j ? ", " : "", labels[j]);
                int rc = base_fail(err, LCM_E_PARAMS, "parameter %s: '%s' is not a category of %s (categories: %s)",
                                  where, v->keys[i], p->dimnames[d], cats.s);
                base_sb_free(&cats);
                return rc;
            }
        }
        for (int j = 0; j < n; ++j) {
            const lcm_pvalue *item = lcm_pv_get(v, labels[j]);
            if (!item)
                return base_fail(err, LCM_E_PARAMS, "parameter %s: no entry for '%s' (%s)", where, labels[j],
                                p->dimnames[d]);
            int rc = flatten(m, p, item, d + 1, out, pos, where, err);
            if (rc) return rc;
        }
        return 0;
    }
    /* a flat list of every element, in row-major order, is accepted too */
    if (d == 0 && p->ndims > 1 && (size_t)v->n == p->size) {
        int flat = 1;
        for (int i = 0; i < v->n; ++i) flat &= v->items[i]->kind == LCM_PV_NUM;
        if (flat) {
            for (int i = 0; i < v->n; ++i) {
                int rc = flatten(m, p, v->items[i], p->ndims, out, pos, where, err);
                if (rc) return rc;
            }
            return 0;
        }
    }
    if (v->n != n)
        return base_fail(err, LCM_E_PARAMS, "parameter %s: dimension %d (%s) has %d entries, the model needs %d",
                        where, d + 1, p->dimnames[d], v->n, n);
    for (int i = 0; i < n; ++i) {
        int rc = flatten(m, p, v->items[i], d + 1, out, pos, where, err);
        if (rc) return rc;
    }
    return 0;
}

typedef struct candidate {
    const lcm_pvalue *v;
    char *path;
} candidate;

static int find_candidates(const ir_model *m, const lcm_pvalue *root, const ir_param *p, candidate c[3])
{
    int n = 0;
    const lcm_pvalue *rt = lcm_pv_get(root, p->regime);
    if (rt && rt->kind == LCM_PV_TABLE) {
        const lcm_pvalue *ft = lcm_pv_get(rt, p->func);
        if (ft && ft->kind == LCM_PV_TABLE && is_param_function(m, p->regime, p->func)) {
            const lcm_pvalue *v = lcm_pv_get(ft, p->name);
            if (v) c[n].v = v, c[n++].path = base_xasprintf("%s.%s.%s", p->regime, p->func, p->name);
        }
        const lcm_pvalue *v = lcm_pv_get(rt, p->name);
        if (v) c[n].v = v, c[n++].path = base_xasprintf("%s.%s", p->regime, p->name);
    }
    if (ir_find_regime(m, p->name) < 0) {
        const lcm_pvalue *v = lcm_pv_get(root, p->name);
        if (v) c[n].v = v, c[n++].path = base_xstrdup(p->name);
    }
    return n;
}

/* For a missing parameter: " - a misspelling of the action 'consumption'?" */
static void suggest_variable(const ir_model *m, const ir_param *p, lcm_sb *b);

/* A hint for NAME, which no model function takes where the parameters put
 * it (at model level when regime is NULL, else in REGIME or REGIME.FUNCTION):
 * what NAME is instead, or the closest parameter name.
 *   " ('risk_aversion' is a parameter of regime 'alive', function 'utility':
 *      give it as 'risk_aversion', 'alive.risk_aversion' or 'alive.utility.risk_aversion')"
 *   " ('utility' is a function of regime 'alive', not a parameter; its
 *      parameters go in a table: alive.utility.risk_aversion)"
 *   " ('risk_aversion' is a parameter of regime 'alive', function 'utility',
 *      fixed in the model (fixed_params or --fix): it cannot be set)"
 *   " ('wealth' is a state of regime 'alive', not a parameter)"
 *   " (did you mean 'wage'?)"  or nothing */
static void hint_unknown(const ir_model *m, const char *regime, const char *name, lcm_sb *b)
{
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        if (strcmp(p->name, name)) continue;
        if (p->fixed) {
            base_sb_printf(b, " ('%s' is a parameter of regime '%s', function '%s', fixed in the model (fixed_params "
                          "or --fix): it cannot be set)", name, p->regime, p->func);
            return;
        }
        base_sb_printf(b, " ('%s' is a parameter of regime '%s', function '%s': give it as ", name, p->regime, p->func);
        if (ir_find_regime(m, name) < 0) base_sb_printf(b, "'%s', ", name);
        base_sb_printf(b, "'%s.%s' or '%s.%s.%s')", p->regime, name, p->regime, p->func, name);
        return;
    }
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        if (regime && strcmp(R->name, regime)) continue;
        for (int i = 0; i < R->nfuncs; ++i) {
            if (strcmp(R->funcs[i].name, name)) continue;
            base_sb_printf(b, " ('%s' is a function of regime '%s', not a parameter", name, R->name);
            int np = 0;
            for (int k = 0; k < m->nparams; ++k)
                if (!strcmp(m->params[k].regime, R->name) && !strcmp(m->params[k].func, name))
                    base_sb_printf(b, "%s%s.%s.%s", np++ ? ", " : "; its parameters go in a table: ", R->name, name,
                                  m->params[k].name);
            base_sb_puts(b, np ? ")" : "; it takes none)");
            return;
        }
        const char *kind = NULL;
        for (int i = 0; i < R->nstates && !kind; ++i)
            if (!strcmp(R->states[i].name, name)) kind = "a state";
        for (int i = 0; i < R->nactions && !kind; ++i)
            if (!strcmp(R->actions[i].name, name)) kind = "an action";
        if (kind) {
            base_sb_printf(b, " ('%s' is %s of regime '%s', not a parameter)", name, kind, R->name);
            return;
        }
    }
    const char *best = NULL;
    unsigned bd = 3;
    for (int i = 0; i < m->nparams; ++i) {
        unsigned d = base_edit_distance(name, m->params[i].name);
        if (d < bd) bd = d, best = m->params[i].name;
    }
    if (best) base_sb_printf(b, " (did you mean '%s'?)", best);
}

static void suggest_variable(const ir_model *m, const ir_param *p, lcm_sb *b)
{
    int r = ir_find_regime(m, p->regime);
    if (r < 0) return;
    const ir_regime *R = &m->regimes[r];
    for (int i = 0; i < R->nstates; ++i)
        if (base_near_miss(p->name, R->states[i].name)) {
            base_sb_printf(b, " - a misspelling of the state '%s'?", R->states[i].name);
            return;
        }
    for (int i = 0; i < R->nactions; ++i)
        if (base_near_miss(p->name, R->actions[i].name)) {
            base_sb_printf(b, " - a misspelling of the action '%s'?", R->actions[i].name);
            return;
        }
    for (int i = 0; i < R->nfuncs; ++i)
        if (base_near_miss(p->name, R->funcs[i].name)) {
            base_sb_printf(b, " - a misspelling of the function '%s'?", R->funcs[i].name);
            return;
        }
}

static int check_unknown(const ir_model *m, const lcm_pvalue *root, const path_set *used, lcm_err *err)
{
    for (int i = 0; i < root->n; ++i) {
        const char *k = root->keys[i];
        const lcm_pvalue *v = root->items[i];
        int r = ir_find_regime(m, k);
        if (r < 0) {
            if (!path_has(used, k)) {
                lcm_sb b;
                base_sb_init(&b);
                hint_unknown(m, NULL, k, &b);
                int rc = base_fail(err, LCM_E_PARAMS, "unknown parameter '%s': no model function uses it%s", k,
                                  b.s ? b.s : "");
                base_sb_free(&b);
                return rc;
            }
            continue;
        }
        if (v->kind != LCM_PV_TABLE)
            return base_fail(err, LCM_E_PARAMS, "'%s' is a regime: give its parameters as a table", k);
        for (int j = 0; j < v->n; ++j) {
            const char *k2 = v->keys[j];
            const lcm_pvalue *v2 = v->items[j];
            if (v2->kind == LCM_PV_TABLE && is_param_function(m, k, k2)) {
                for (int l = 0; l < v2->n; ++l) {
                    char *path = base_xasprintf("%s.%s.%s", k, k2, v2->keys[l]);
                    int ok = path_has(used, path);
                    if (!ok) {
                        lcm_sb b;
                        base_sb_init(&b);
                        hint_unknown(m, k, v2->keys[l], &b);
                        base_fail(err, LCM_E_PARAMS, "unknown parameter '%s': function '%s' of regime '%s' has no parameter '%s'%s",
                                 path, k2, k, v2->keys[l], b.s ? b.s : "");
                        base_sb_free(&b);
                        free(path);
                        return LCM_E_PARAMS;
                    }
                    free(path);
                }
                continue;
            }
            char *path = base_xasprintf("%s.%s", k, k2);
            int ok = path_has(used, path);
            if (!ok) {
                lcm_sb b;
                base_sb_init(&b);
                hint_unknown(m, k, k2, &b);
                base_fail(err, LCM_E_PARAMS, "unknown parameter '%s': no function of regime '%s' uses '%s'%s", path, k,
                         k2, b.s ? b.s : "");
                base_sb_free(&b);
                free(path);
                return LCM_E_PARAMS;
            }
            free(path);
        }
    }
    return 0;
}

/* The first misuse recorded in the tree (lcm_pvalue.misuse), or NULL. */
static const char *pv_misuse(const lcm_pvalue *v)
{
    if (v->misuse) return v->misuse;
    for (int i = 0; i < v->n; ++i) {
        const char *why = pv_misuse(v->items[i]);
        if (why) return why;
    }
    return NULL;
}

int core_params_resolve(const ir_model *m, const lcm_pvalue *root, double *buf, lcm_err *err)
{
    if (!root || root->kind != LCM_PV_TABLE) return base_fail(err, LCM_E_PARAMS, "parameters must be a table");
    const char *misuse = pv_misuse(root);
    if (misuse) return base_fail(err, LCM_E_PARAMS, "the parameters were built wrongly: %s", misuse);
    path_set used = {0};
    lcm_sb missing;
    base_sb_init(&missing);
    int nmissing = 0, rc = 0;
    for (int i = 0; i < m->nparams && !rc; ++i) {
        const ir_param *p = &m->params[i];
        candidate c[3];
        int nc = find_candidates(m, root, p, c);
        if (p->fixed) {
            if (nc > 0)
                rc = base_fail(err, LCM_E_PARAMS, "parameter '%s' (regime '%s', function '%s') is fixed in the model "
                              "(fixed_params or --fix); it cannot be set", c[0].path, p->regime, p->func);
            else memcpy(buf + p->offset, p->values, p->size * sizeof *buf);
        } else if (nc > 1) {
            rc = base_fail(err, LCM_E_PARAMS, "parameter '%s' of regime '%s', function '%s' is given at two levels: "
                          "'%s' and '%s'; keep one", p->name, p->regime, p->func, c[0].path, c[1].path);
        } else if (nc == 0) {
            base_sb_printf(&missing, "%s%s (%s.%s, ", nmissing++ ? ", " : "", p->name, p->regime, p->func);
            describe_shape(p, &missing);
            base_sb_putc(&missing, ')');
            suggest_variable(m, p, &missing);
        } else {
            size_t pos = 0;
            char *where = base_xasprintf("'%s' (%s.%s)", c[0].path, p->regime, p->func);
            rc = flatten(m, p, c[0].v, 0, buf + p->offset, &pos, where, err);
            free(where);
            path_add(&used, c[0].path);
        }
        for (int k = 0; k < nc; ++k) free(c[k].path);
    }
    if (!rc && nmissing)
        rc = base_fail(err, LCM_E_PARAMS, "missing parameter%s: %s", nmissing > 1 ? "s" : "", missing.s);
    if (!rc) rc = check_unknown(m, root, &used, err);
    base_sb_free(&missing);
    path_free(&used);
    return rc;
}

int core_params_check_buffer(const ir_model *m, const double *buf, lcm_err *err)
{
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        for (size_t j = 0; j < p->size && !p->fixed; ++j)
            if (buf[p->offset + j] != buf[p->offset + j])
                return p->size == 1 ? base_fail(err, LCM_E_PARAMS, "parameter '%s' (%s.%s) is NaN (buffer slot %zu)",
                                               p->name, p->regime, p->func, p->offset)
                                    : base_fail(err, LCM_E_PARAMS, "parameter '%s' (%s.%s) is NaN at element %zu "
                                               "(buffer slot %zu)", p->name, p->regime, p->func, j, p->offset + j);
    }
    return 0;
}

/* ---- template ----------------------------------------------------------- */
/* Whether p belongs to a state's grid (the law of a shock process, points
 * given at run time: regime.state.name) rather than to a function. */
static int is_grid_param(const ir_model *m, const ir_param *p)
{
    int r = ir_find_regime(m, p->regime);
    return r >= 0 && ir_find_state(&m->regimes[r], p->func) >= 0;
}

static int same_shape(const ir_param *a, const ir_param *b)
{
    if (a->ndims != b->ndims) return 0;
    for (int d = 0; d < a->ndims; ++d)
        if (a->dims[d] != b->dims[d] || strcmp(a->dimnames[d], b->dimnames[d])) return 0;
    return 1;
}

void core_params_template(const ir_model *m, lcm_sb *b)
{
    base_sb_printf(b, "-- Parameters of model '%s' (written by lcm params-template).\n", m->name);
    base_sb_puts(b, "-- Replace each nil by a value.  A name can also be given per regime\n"
               "-- (regime = { name = ... }) or per function (regime = { fn = { name = ... } }),\n"
               "-- but not at two levels.  Arrays are nested lists, first element = code 0,\n"
               "-- or tables keyed by category label.\n"
               "return {\n");
    /* a name whose every use has the same shape is listed once, at model
     * level, unless it names a grid's parameter and a function's too (a
     * process's sigma and a CRRA sigma): one value there would set both */
    char *model_level = base_xcalloc((size_t)m->nparams + 1, 1);
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        int uniform = !p->fixed, first = 1;
        for (int j = 0; j < m->nparams; ++j) {
            const ir_param *q = &m->params[j];
            if (q->fixed || strcmp(q->name, p->name)) continue;
            if (!same_shape(p, q) || is_grid_param(m, p) != is_grid_param(m, q)) uniform = 0;
            if (j < i) first = 0;
        }
        model_level[i] = (char)uniform;
        if (!uniform || !first) continue;
        base_sb_printf(b, "  %s = nil, -- ", p->name);
        describe_shape(p, b);
        base_sb_puts(b, "; used by");
        for (int j = i; j < m->nparams; ++j)
            if (!m->params[j].fixed && !strcmp(m->params[j].name, p->name))
                base_sb_printf(b, " %s.%s", m->params[j].regime, m->params[j].func);
        base_sb_putc(b, '\n');
    }
    /* the others at function level, grouped by regime and function */
    for (int r = 0; r < m->nregimes; ++r) {
        const char *rn = m->regimes[r].name;
        int opened = 0;
        for (int i = 0; i < m->nparams; ++i) {
            const ir_param *p = &m->params[i];
            if (model_level[i] || p->fixed || strcmp(p->regime, rn)) continue;
            int first_of_func = 1;
            for (int j = 0; j < i; ++j)
                if (!model_level[j] && !m->params[j].fixed && !strcmp(m->params[j].regime, rn) &&
                    !strcmp(m->params[j].func, p->func))
                    first_of_func = 0;
            if (!first_of_func) continue;
            if (!opened) base_sb_printf(b, "  %s = {\n", rn), opened = 1;
            base_sb_printf(b, "    %s = {\n", p->func);
            for (int j = i; j < m->nparams; ++j) {
                const ir_param *q = &m->params[j];
                if (model_level[j] || q->fixed || strcmp(q->regime, rn) || strcmp(q->func, p->func)) continue;
                base_sb_printf(b, "      %s = nil, -- ", q->name);
                describe_shape(q, b);
                base_sb_putc(b, '\n');
            }
            base_sb_puts(b, "    },\n");
        }
        if (opened) base_sb_puts(b, "  },\n");
    }
    free(model_level);
    base_sb_puts(b, "}\n");
}

/* ---- values back to a params file (snapshots) ---------------------------- */
static void put_number(lcm_sb *b, double x)
{
    if (x != x) base_sb_puts(b, "0 / 0");
    else if (x == 1.0 / 0.0) base_sb_puts(b, "math.huge");
    else if (x == -1.0 / 0.0) base_sb_puts(b, "-math.huge");
    else base_sb_double(b, x);
}

/* Dimension d of an array parameter as nested lists (first element = code 0). */
static void put_array(lcm_sb *b, const ir_param *p, const double *v, int d, size_t *pos)
{
    if (d == p->ndims) {
        put_number(b, v[(*pos)++]);
        return;
    }
    base_sb_putc(b, '{');
    for (int i = 0; i < p->dims[d]; ++i) {
        if (i) base_sb_puts(b, ", ");
        put_array(b, p, v, d + 1, pos);
    }
    base_sb_putc(b, '}');
}

void core_params_write_lua(const ir_model *m, const double *buf, lcm_sb *b)
{
    base_sb_printf(b, "-- Parameters of model '%s', each given to the function that uses it.\n", m->name);
    base_sb_puts(b, "return {\n");
    for (int r = 0; r < m->nregimes; ++r) {
        const char *rn = m->regimes[r].name;
        int opened = 0;
        for (int i = 0; i < m->nparams; ++i) {
            const ir_param *p = &m->params[i];
            int first_of_func = 1;
            for (int j = 0; j < i; ++j)
                first_of_func &= m->params[j].fixed || strcmp(m->params[j].regime, rn) ||
                                 strcmp(m->params[j].func, p->func);
            if (p->fixed || strcmp(p->regime, rn) || !first_of_func) continue;
            if (!opened) base_sb_printf(b, "  %s = {\n", rn), opened = 1;
            base_sb_printf(b, "    %s = {\n", p->func);
            for (int j = i; j < m->nparams; ++j) {
                const ir_param *q = &m->params[j];
                if (q->fixed || strcmp(q->regime, rn) || strcmp(q->func, p->func)) continue;
                size_t pos = 0;
                base_sb_printf(b, "      %s = ", q->name);
                put_array(b, q, buf + q->offset, 0, &pos);
                base_sb_puts(b, ",\n");
            }
            base_sb_puts(b, "    },\n");
        }
        if (opened) base_sb_puts(b, "  },\n");
    }
    base_sb_puts(b, "}\n");
}
