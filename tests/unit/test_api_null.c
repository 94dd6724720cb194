/* Every LCM_API function with NULL in each pointer argument, the others
 * valid (lcm.h alone, against liblcm.so): what lcm.h's contract says, never
 * a signal.  The calls are written from lcm.h at build time
 * (api_null_calls.awk), so a new function is called by construction; this
 * file gives the valid arguments (arg, iarg: a type it does not know aborts
 * the test, naming it) and checks each kind of result:
 *   - a status (int, with an lcm_err): LCM_E_USAGE naming the argument for a
 *     NULL the function needs (err's own NULL: the status alone); for an
 *     LCM_NULLABLE one, a status that is one of lcm_status's;
 *   - a pointer: NULL; a double: NaN; another number: 0, or -1 for a
 *     look-up by name (for a NULL the function needs; anything for an
 *     LCM_NULLABLE argument);
 *   - void: it returns.
 * Then the two misuses that used to crash: a params tree with a cycle (a
 * table put into itself, a list into its own item), refused and reported by
 * the solve, and a model freed before the solver, solution and panel made
 * from it, which keep it (a solve and a simulation after lcm_model_free).
 * Runs under ASan and UBSan in scripts/sanitize.sh: a leak or a wild read is
 * a failure too.
 *
 * Usage: api_null MODEL_DIR INITIAL.csv (a directory lcmgen made of
 * models/tiny.lua, and its initial conditions). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lcm.h"

static int failures, checked;

#define FAIL(...) (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr), ++failures)

struct api_call {
    const char *fn, *arg;
    int nullable;
    void (*call)(const struct api_call *c);
};

/* ---- what the valid arguments are made of ----------------------------------- */
static struct {
    const char *dir, *initial_path;
    char tmp[256], solution_path[300], cache[300];
    char *manifest, *source;
    lcm_model *model;
    lcm_solver *solver;
    lcm_solver_options so;
    lcm_sim_options sim;
    lcm_pvalue *params;
    double *buf;
    lcm_solution *solution;
    lcm_initial *initial;
    lcm_panel *panel;
} F;

/* What one call makes: freed after it (slots, cleared before it). */
static struct {
    lcm_err err;
    lcm_model *model;
    lcm_solver *solver;
    lcm_solution *solution;
    lcm_initial *initial;
    lcm_panel *panel;
    lcm_pvalue *tree;
    char *text;
    const char *ctext;
    int i;
    size_t z;
    lcm_index index;
    double d, room[1 << 14];
    lcm_euler_stats euler[64]; /* by_regime: one per regime */
    char path[320];
} S;
static int nfiles;

static void clear_slots(void)
{
    lcm_panel_free(S.panel), lcm_solution_free(S.solution), lcm_initial_free(S.initial);
    lcm_solver_free(S.solver), lcm_model_free(S.model), lcm_pv_free(S.tree), free(S.text);
    memset(&S, 0, sizeof S);
}

static char *read_text(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc((size_t)n + 1, 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
    fclose(f);
    return s;
}

/* A valid value of a pointer parameter of fn; aborts for one it does not
 * know, so that a new kind of argument is given one here. */
static void *arg(const char *fn, const char *type, const char *name)
{
    if (!strcmp(type, "lcm_model **")) return &S.model; /* (before "lcm_model *", which it holds) */
    if (!strcmp(type, "lcm_solver **")) return &S.solver;
    if (!strcmp(type, "lcm_solution **")) return &S.solution;
    if (!strcmp(type, "lcm_initial **")) return &S.initial;
    if (!strcmp(type, "lcm_panel **")) return &S.panel;
    if (strstr(type, "lcm_model *")) return F.model;
    if (strstr(type, "lcm_solver *")) return F.solver;
    if (strstr(type, "lcm_solution *")) return F.solution;
    if (strstr(type, "lcm_initial *")) return F.initial;
    if (strstr(type, "lcm_panel *")) return F.panel;
    if (!strcmp(type, "const lcm_solver_options *")) return &F.so;
    if (!strcmp(type, "const lcm_sim_options *")) return &F.sim;
    if (!strcmp(type, "lcm_err *")) return &S.err;
    if (!strcmp(type, "const lcm_pvalue *")) return F.params;
    if (!strcmp(type, "lcm_pvalue *")) { /* given away (item), or the call's own tree */
        if (!strcmp(name, "item")) return lcm_pv_num(1);
        if (!S.tree) S.tree = !strcmp(name, "list") ? lcm_pv_list() : lcm_pv_table();
        return S.tree;
    }
    if (!strcmp(type, "const double *")) return F.buf;
    if (!strcmp(type, "double *")) return !strcmp(name, "seconds") && strstr(fn, "precompile") ? &S.d : S.room;
    if (!strcmp(type, "lcm_euler_stats *")) return S.euler;
    if (!strcmp(type, "int *")) return &S.i;
    if (!strcmp(type, "size_t *")) return &S.z;
    if (!strcmp(type, "lcm_index *")) return &S.index;
    if (!strcmp(type, "const char **")) return &S.ctext;
    if (!strcmp(type, "char **")) return &S.text;
    /* columns of initial conditions: one column, "regime", of no cells (the calls pass n = 0) */
    static const char *const names[] = {"regime"}, *const labels[] = {"alive"}, *const *const texts[] = {labels};
    static const double codes[] = {0}, *const nums[] = {codes};
    if (!strcmp(type, "const char *const *")) return (void *)names;
    if (!strcmp(type, "const double *const *")) return (void *)nums;
    if (!strcmp(type, "const char *const *const *")) return (void *)texts;
    if (!strcmp(type, "const char *")) {
        if (!strcmp(name, "source")) return "arrays";
        if (!strcmp(name, "dir")) return (void *)F.dir;
        if (!strcmp(name, "manifest")) return F.manifest;
        if (!strcmp(name, "source")) return F.source;
        if (!strcmp(name, "cache_dir")) return F.cache;
        if (!strcmp(name, "key")) return "discount_factor";
        if (!strcmp(name, "name")) {
            if (strstr(fn, "regime")) return "alive";
            if (strstr(fn, "log_level")) return "info";
            if (strstr(fn, "backend")) return "cpu";
            if (strstr(fn, "panel")) return "value";
            return "discount_factor";
        }
        if (!strcmp(name, "path")) {
            if (strstr(fn, "set_path")) return "discount_factor";
            if (strstr(fn, "read_h5")) return F.solution_path;
            if (strstr(fn, "initial_read")) return (void *)F.initial_path;
            if (strstr(fn, "write")) { /* a new file each time */
                snprintf(S.path, sizeof S.path, "%s/out%d.%s", F.tmp, nfiles++, strstr(fn, "h5") ? "h5" : "csv");
                return S.path;
            }
        }
    }
    fprintf(stderr, "test_api_null: no valid value of type '%s' for '%s' of %s: add one to arg()\n", type, name, fn);
    abort();
}

static int iarg(const char *fn, const char *name)
{
    (void)fn;
    if (!strcmp(name, "arch")) return 90;
    if (!strcmp(name, "precision")) return 64;
    return 0; /* period, regime, i: the first */
}

/* ---- the checks of each kind of result ------------------------------------------ */
static void check_status(const struct api_call *c, int rc)
{
    ++checked;
    int known = rc == 0 || (rc >= LCM_E_USAGE && rc <= LCM_E_MEMORY) || rc == LCM_E_INTERNAL;
    if (c->nullable) {
        if (!known) FAIL("%s with %s = NULL: returned %d, not an lcm_status", c->fn, c->arg, rc);
        return;
    }
    char want[128];
    snprintf(want, sizeof want, "'%s' is NULL", c->arg);
    if (rc != LCM_E_USAGE) FAIL("%s with %s = NULL: returned %d, not LCM_E_USAGE (%s)", c->fn, c->arg, rc, S.err.msg);
    else if (strcmp(c->arg, "err") && (!strstr(S.err.msg, want) || !strstr(S.err.msg, c->fn)))
        FAIL("%s with %s = NULL: the message does not name it: %s", c->fn, c->arg, S.err.msg);
}

static void check_pointer(const struct api_call *c, int got)
{
    ++checked;
    if (!c->nullable && got) FAIL("%s with %s = NULL: returned a pointer, not NULL", c->fn, c->arg);
}

static void check_real(const struct api_call *c, double x)
{
    ++checked;
    if (!c->nullable && !isnan(x)) FAIL("%s with %s = NULL: returned %g, not NaN", c->fn, c->arg, x);
}

static void check_count(const struct api_call *c, long long n)
{
    ++checked;
    long long want = strstr(c->fn, "_by_name") ? -1 : 0;
    if (!c->nullable && n != want) FAIL("%s with %s = NULL: returned %lld, not %lld", c->fn, c->arg, n, want);
}

static void check_void(const struct api_call *c) { (void)c, ++checked; }

#include "api_null_calls.inc"

/* ---- the fixtures ------------------------------------------------------------------ */
static lcm_pvalue *tiny_params(void)
{
    lcm_pvalue *p = lcm_pv_table();
    lcm_pv_put(p, "discount_factor", lcm_pv_num(0.95));
    lcm_pv_put(p, "risk_aversion", lcm_pv_num(2.0));
    lcm_pv_put(p, "interest_rate", lcm_pv_num(0.04));
    return p;
}

static int setup(const char *dir, const char *initial)
{
    lcm_err err = {0};
    F.dir = dir, F.initial_path = initial;
    const char *t = getenv("TMPDIR");
    snprintf(F.tmp, sizeof F.tmp, "%s/lcm-api-null-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(F.tmp)) return FAIL("mkdtemp %s", F.tmp);
    snprintf(F.solution_path, sizeof F.solution_path, "%s/solution.h5", F.tmp);
    snprintf(F.cache, sizeof F.cache, "%s/cache", F.tmp);
    F.manifest = read_text(dir, "manifest.lcm"), F.source = read_text(dir, "kernels.c");
    F.so.backend = LCM_BACKEND_CPU;
    F.params = tiny_params();
    if (!F.manifest || !F.source || lcm_model_open_dir(dir, &F.model, &err) ||
        lcm_solver_new(F.model, &F.so, &F.solver, &err) ||
        !(F.buf = calloc(lcm_model_params_size(F.model) + 1, sizeof *F.buf)) ||
        lcm_model_resolve_params(F.model, F.params, F.buf, &err) || lcm_solve(F.solver, F.params, &F.solution, &err) ||
        lcm_solution_write_h5(F.solution, F.solution_path, &err) || lcm_initial_read(F.model, initial, &F.initial, &err) ||
        lcm_simulate(F.solver, F.solution, F.initial, NULL, &F.panel, &err))
        return FAIL("setting up: %s", err.msg);
    return 0;
}

static void teardown(void)
{
    lcm_panel_free(F.panel), lcm_initial_free(F.initial), lcm_solution_free(F.solution);
    lcm_solver_free(F.solver), lcm_model_free(F.model), lcm_pv_free(F.params);
    free(F.buf), free(F.manifest), free(F.source);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", F.tmp);
    if (system(cmd)) FAIL("removing %s", F.tmp);
}

/* ---- the misuses that crashed --------------------------------------------------- */
/* A tree put into itself, a list into its own item, an item in two places:
 * refused (the tree stays a tree: freeing it and resolving it end), and the
 * solve says why. */
static void cycles(void)
{
    lcm_err err = {0};
    lcm_solution *sol = NULL;
    lcm_pvalue *p = tiny_params(), *list = lcm_pv_list(), *inner = lcm_pv_list(), *n = lcm_pv_num(1);
    lcm_pv_put(p, "self", p);
    int rc = lcm_solve(F.solver, p, &sol, &err);
    if (rc != LCM_E_PARAMS || !strstr(err.msg, "lcm_pv_put was given a table or list to put into itself"))
        FAIL("a table put into itself: %d %s", rc, err.msg);
    lcm_pv_free(p);
    lcm_pv_append(list, inner);
    lcm_pv_append(inner, list); /* the list into its own item */
    lcm_pv_append(inner, n);
    memset(&err, 0, sizeof err);
    p = tiny_params();
    lcm_pv_put(p, "nested", list);
    rc = lcm_solve(F.solver, p, &sol, &err);
    if (rc != LCM_E_PARAMS || !strstr(err.msg, "lcm_pv_append was given a table or list to put into itself or into "
                                               "one of its items (a cycle)"))
        FAIL("a list put into its own item: %d %s", rc, err.msg);
    memset(&err, 0, sizeof err);
    rc = lcm_pv_set_path(p, "again", p, &err);
    if (rc != LCM_E_USAGE || !strstr(err.msg, "a cycle")) FAIL("lcm_pv_set_path of the root: %d %s", rc, err.msg);
    lcm_pvalue *other = tiny_params();
    lcm_pv_put(other, "n", n); /* an item in a second place: it stays in the first */
    memset(&err, 0, sizeof err);
    rc = lcm_solve(F.solver, other, &sol, &err);
    if (rc != LCM_E_PARAMS || !strstr(err.msg, "lcm_pv_put was given an item that belongs to a table or list already"))
        FAIL("an item in two places: %d %s", rc, err.msg);
    lcm_pv_free(n); /* an item: freed with its tree, not now */
    lcm_pv_free(other), lcm_pv_free(p);
    /* deeper than 100: refused, before a recursion over it could overflow */
    lcm_pvalue *deep = lcm_pv_list();
    for (int i = 0; i < 200; ++i) {
        lcm_pvalue *up = lcm_pv_list();
        lcm_pv_append(up, deep);
        deep = up;
    }
    p = tiny_params();
    lcm_pv_put(p, "deep", deep);
    memset(&err, 0, sizeof err);
    rc = lcm_solve(F.solver, p, &sol, &err);
    if (rc != LCM_E_PARAMS || !strstr(err.msg, "more than 100 deep")) FAIL("a tree 200 deep: %d %s", rc, err.msg);
    lcm_pv_free(p);
    checked += 5;
}

/* The model freed first: its solver, solution and panel keep it. */
static void model_freed_first(void)
{
    lcm_err err = {0};
    lcm_model *m = NULL;
    lcm_solver *sv = NULL;
    lcm_solution *sol = NULL, *again = NULL;
    lcm_panel *panel = NULL;
    if (lcm_model_open_dir(F.dir, &m, &err) || lcm_solver_new(m, &F.so, &sv, &err) ||
        lcm_solve(sv, F.params, &sol, &err)) {
        FAIL("model_freed_first: %s", err.msg);
        return;
    }
    lcm_model_free(m); /* the caller's hold only */
    int rc = lcm_solve(sv, F.params, &again, &err);
    if (rc) FAIL("a solve after lcm_model_free: %d %s", rc, err.msg);
    else if (lcm_solution_value(again, 0, 0, 3) != lcm_solution_value(F.solution, 0, 0, 3))
        FAIL("a solve after lcm_model_free: V differs");
    lcm_solver_free(sv);
    if (!rc && lcm_solver_new(F.model, &F.so, &sv, &err) == 0) {
        rc = lcm_simulate(sv, again, F.initial, NULL, &panel, &err);
        if (rc) FAIL("a simulation of a solution whose model was freed: %s", err.msg);
        lcm_solver_free(sv);
    }
    lcm_solution_free(sol);
    lcm_solution_free(again); /* the last hold of m but the panel's */
    /* (lcm_euler_panel, called with a NULL by_regime, gave F.panel the column euler_error) */
    int euler = lcm_panel_column_data(F.panel, "euler_error") != NULL;
    if (panel && lcm_panel_columns(panel) != lcm_panel_columns(F.panel) - euler) FAIL("the panel lost its model");
    lcm_panel_free(panel);
    checked += 3;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: api_null MODEL_DIR INITIAL.csv\n");
        return 2;
    }
    lcm_set_log_level(LCM_LOG_OFF);
    if (!setup(argv[1], argv[2])) {
        for (size_t i = 0; i < sizeof calls / sizeof *calls; ++i) {
            calls[i].call(&calls[i]);
            clear_slots();
        }
        cycles();
        model_freed_first();
    }
    teardown();
    printf("%d checks of %zu calls with a NULL argument, %d failed\n", checked, sizeof calls / sizeof *calls,
           failures);
    return failures ? 1 : 0;
}
