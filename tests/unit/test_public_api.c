/* test_public_api.c - lcm.h alone, linked with liblcm.so: the accessors
 * that replace reaching into the IR, the flat parameter buffer against the
 * tree, initial conditions and versions.  Includes nothing internal.
 *
 *   public_api DIR INITIAL.csv     (DIR: lcmgen models/tiny.lua -o DIR)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcm.h"

static int failures;
#define CHECK(c)                                                                   \
    do {                                                                           \
        if (!(c)) fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c), ++failures; \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    lcm_err err = {0};
    lcm_model *m = NULL;
    lcm_solver *s = NULL;
    lcm_initial *ic = NULL;
    lcm_set_log_level(LCM_LOG_WARNING);
    CHECK(lcm_get_log_level() == LCM_LOG_WARNING);
    CHECK(lcm_log_level_by_name("debug") == LCM_LOG_DEBUG && lcm_log_level_by_name("loud") == -1);
    CHECK(lcm_log_level_by_name(NULL) == -1 && lcm_backend_by_name(NULL) == -1);
    lcm_set_log_level((lcm_log_level)lcm_log_level_by_name("loud")); /* -1: no change */
    CHECK(lcm_get_log_level() == LCM_LOG_WARNING);
    CHECK(!strcmp(lcm_version(), LCM_VERSION_STRING));
    if (lcm_model_open_dir(argv[1], &m, &err) || lcm_solver_new(m, NULL, &s, &err) ||
        lcm_initial_read(m, argv[2], &ic, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    CHECK(!strcmp(lcm_model_name(m), "tiny"));
    lcm_initial *from_lua = NULL; /* the library reads no Lua: said, not parsed as CSV */
    CHECK(lcm_initial_read(m, "subjects.LUA", &from_lua, &err) == LCM_E_USAGE && !from_lua &&
          strstr(err.msg, "initial conditions written in Lua are read by the lcm command"));
    CHECK(lcm_model_periods(m) == 3 && lcm_model_age(m, 2) == 2 && lcm_model_age(m, 3) != lcm_model_age(m, 3));
    CHECK(lcm_model_regimes(m) == 2);
    int alive = lcm_model_regime_by_name(m, "alive");
    CHECK(alive >= 0 && !strcmp(lcm_model_regime_name(m, alive), "alive"));
    CHECK(lcm_model_regime_by_name(m, "zombie") == -1 && !lcm_model_regime_name(m, 7));
    CHECK(lcm_model_states(m, alive) == 10);
    CHECK(lcm_initial_subjects(ic) > 0);
    CHECK(lcm_model_kernels(m) >= lcm_model_regimes(m));

    /* options outside their ranges are usage errors, not a crash or a silent default */
    lcm_solver *bad = NULL;
    lcm_solver_options huge = {.threads = 100000}, neg = {.threads = -1}, wild = {.backend = (lcm_backend_kind)99};
    CHECK(lcm_solver_new(m, &huge, &bad, &err) == LCM_E_USAGE && !bad);
    CHECK(lcm_solver_new(m, &neg, &bad, &err) == LCM_E_USAGE && !bad);
    CHECK(lcm_solver_new(m, &wild, &bad, &err) == LCM_E_USAGE && !bad && strstr(err.msg, "backend 99"));
    int compiled = 0;
    double secs = 0;
    char *target = NULL;
    CHECK(lcm_precompile_cuda(m, 90, 16, NULL, &compiled, &secs, &target, &err) == LCM_E_USAGE && !target);

    /* the tree and the flat buffer give the same solution */
    lcm_pvalue *p = lcm_pv_table();
    lcm_pv_put(p, "discount_factor", lcm_pv_num(0.95));
    lcm_pv_put(p, "risk_aversion", lcm_pv_num(2.0));
    lcm_pv_put(p, "interest_rate", lcm_pv_num(0.04));
    lcm_pvalue *again = lcm_pv_num(0.04);
    lcm_pv_put(p, "interest_rate", again);
    lcm_pv_put(p, "interest_rate", again); /* the same item again: it stays, not freed */
    CHECK(lcm_pv_get(p, "interest_rate") == again); /* and resolving it below reads no freed memory (sanitizers) */
    size_t n = lcm_model_params_size(m);
    double *buf = calloc(n + 1, sizeof *buf);
    CHECK(!lcm_model_resolve_params(m, p, buf, &err));
    int found = 0;
    for (int i = 0; i < lcm_model_params(m); ++i) {
        const char *name;
        size_t off, size;
        int fixed;
        lcm_model_param(m, i, NULL, NULL, &name, &off, &size, &fixed);
        CHECK(off + size <= n);
        if (!strcmp(name, "discount_factor")) {
            CHECK(buf[off] == 0.95);
            ++found;
        }
    }
    CHECK(found > 0);
    lcm_solution *a = NULL, *b = NULL;
    CHECK(!lcm_solve(s, p, &a, &err));
    CHECK(!lcm_solve_resolved(s, buf, &b, &err));
    if (a && b)
        for (int t = 0; t < lcm_model_periods(m); ++t)
            for (lcm_index i = 0; i < lcm_model_states(m, alive); ++i)
            {
                double x = lcm_solution_value(a, t, alive, i), y = lcm_solution_value(b, t, alive, i);
                CHECK(x == y || (x != x && y != y)); /* NaN where the regime is inactive */
            }
    /* a NaN in the buffer is refused as in the tree, naming the parameter
     * (it gave "V is NaN" periods later) */
    for (int i = 0; i < lcm_model_params(m); ++i) {
        const char *name;
        size_t off, size;
        int fixed;
        lcm_model_param(m, i, NULL, NULL, &name, &off, &size, &fixed);
        if (strcmp(name, "discount_factor")) continue;
        double keep = buf[off];
        buf[off] = NAN;
        lcm_solution *c = NULL;
        memset(&err, 0, sizeof err);
        CHECK(lcm_solve_resolved(s, buf, &c, &err) == LCM_E_PARAMS && !c);
        CHECK(strstr(err.msg, "parameter 'discount_factor' (alive.H) is NaN (buffer slot ") != NULL);
        buf[off] = keep;
        CHECK(!lcm_solve_resolved(s, buf, &c, &err) && c); /* and the solver goes on */
        lcm_solution_free(c);
    }
    /* an unknown parameter is an error, not a crash */
    lcm_pv_put(p, "no_such_parameter", lcm_pv_num(1));
    CHECK(lcm_model_resolve_params(m, p, buf, &err) == LCM_E_PARAMS && err.msg[0]);
    /* a tree built with the wrong calls: an error where one can be returned,
     * not a crash or values taken by position */
    lcm_pvalue *r = lcm_pv_table();
    lcm_pv_append(r, lcm_pv_num(1)); /* to a table */
    CHECK(lcm_model_resolve_params(m, r, buf, &err) == LCM_E_PARAMS &&
          strstr(err.msg, "lcm_pv_append was given a table or a number, not a list"));
    lcm_pv_free(r);
    lcm_pvalue *list = lcm_pv_list(), *number = lcm_pv_num(1);
    lcm_pv_append(list, lcm_pv_num(1));
    CHECK(lcm_pv_set_path(list, "x", lcm_pv_num(2), &err) == LCM_E_PARAMS && strstr(err.msg, "is a list, not a table"));
    CHECK(lcm_pv_set_path(number, "a.b", lcm_pv_num(2), &err) == LCM_E_PARAMS &&
          strstr(err.msg, "is a number, not a table"));
    lcm_pv_put(list, "named", lcm_pv_num(3)); /* to a list */
    lcm_pvalue *q = lcm_pv_table();
    lcm_pv_put(q, "discount_factor", list);
    CHECK(lcm_model_resolve_params(m, q, buf, &err) == LCM_E_PARAMS &&
          strstr(err.msg, "lcm_pv_put was given a list or a number, not a table"));
    lcm_pv_free(q), lcm_pv_free(number);
    lcm_solution_free(a), lcm_solution_free(b);
    lcm_pv_free(p), free(buf);
    lcm_initial_free(ic);
    lcm_solver_free(s);
    lcm_model_free(m);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
