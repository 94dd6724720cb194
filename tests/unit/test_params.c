/* Parameter resolution: levels, ambiguity, missing, unknown, fixed, shapes;
 * two threads resolving at once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "manifest.h"
#include "params.h"
#include "params_lua.h"

static const char *MANIFEST =
    "lcm-manifest 5\nmodel \"p\"\nages 3 0 1 2\n"
    "param r f a 0\n"
    "param r g a 0\n"
    "param r f arr 1 2 h\n"
    "param r f grid2 2 3 period 2 h\n"
    "param r f baked 0 fixed 3.5\n"
    "regime r terminal 1\nactive 3 1 1 1\nstate h discrete n 2 labels \"lo\" \"hi\"\nendregime\n"
    "dag r\nnode const 0\nutility 0\nq 0\nenddag\nend\n";

static ir_model model;
static double buf[64];

/* Parses a Lua table expression into a tree (through --set on a root). */
static lcm_pvalue *tree(const char *lua_fields)
{
    lcm_pvalue *root = lcm_pv_table();
    lcm_err err = {0};
    char *copy = strdup(lua_fields), *save = NULL;
    for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save))
        CHECK_OK(cli_params_apply_set(root, item, &err));
    free(copy);
    return root;
}

static int resolve(const char *fields, lcm_err *err)
{
    lcm_pvalue *t = tree(fields);
    memset(buf, 0, sizeof buf);
    int rc = core_params_resolve(&model, t, buf, err);
    lcm_pv_free(t);
    return rc;
}

/* Two models whose regimes come in opposite orders, a parameter by next
 * regime: resolved by two threads at once, each buffer as one thread alone
 * makes it (the regimes' names once lived in one static array). */
#define REGIMES(first, second)                                                                                  \
    "lcm-manifest 5\nmodel \"" first second "\"\nages 1 0\nparam a f tr 1 2 next_regime\n"                 \
    "regime " first " terminal 1\nactive 1 1\nendregime\nregime " second " terminal 1\nactive 1 1\nendregime\n" \
    "dag a\nnode const 0\nutility 0\nq 0\nenddag\ndag b\nnode const 0\nutility 0\nq 0\nenddag\nend\n"

typedef struct resolver {
    ir_model m;
    lcm_pvalue *p;
    double want[2];
    int wrong;
} resolver;

static void *resolve_often(void *arg)
{
    resolver *r = arg;
    lcm_err err = {0};
    for (int i = 0; i < 20000; ++i) {
        double got[2] = {0, 0};
        r->wrong += core_params_resolve(&r->m, r->p, got, &err) || got[0] != r->want[0] || got[1] != r->want[1];
    }
    return NULL;
}

static void check_threads(void)
{
    resolver r[2] = {{.want = {1, 2}}, {.want = {2, 1}}};
    const char *text[2] = {REGIMES("a", "b"), REGIMES("b", "a")};
    lcm_err err = {0};
    pthread_t th[2];
    for (int k = 0; k < 2; ++k) {
        CHECK_OK(ir_manifest_read(text[k], &r[k].m, &err));
        r[k].p = lcm_pv_table();
        lcm_pvalue *tr = lcm_pv_table();
        lcm_pv_put(tr, "a", lcm_pv_num(1));
        lcm_pv_put(tr, "b", lcm_pv_num(2));
        lcm_pv_put(r[k].p, "tr", tr);
    }
    for (int k = 0; k < 2; ++k) CHECK(!pthread_create(&th[k], NULL, resolve_often, &r[k]));
    for (int k = 0; k < 2; ++k) pthread_join(th[k], NULL);
    for (int k = 0; k < 2; ++k) {
        CHECK_MSG(!r[k].wrong, "model %d: %d of 20000 resolutions wrong with another thread resolving", k, r[k].wrong);
        lcm_pv_free(r[k].p);
        ir_model_free(&r[k].m);
    }
}

static void fails(const char *fields, const char *expect)
{
    lcm_err err = {0};
    int rc = resolve(fields, &err);
    CHECK_MSG(rc == LCM_E_PARAMS && strstr(err.msg, expect), "[%s] expected '%s', got rc=%d '%s'", fields, expect,
              rc, err.msg);
}

#define FULL "arr={1,2};grid2={{1,2},{3,4},{5,6}}"

int main(void)
{
    lcm_err err = {0};
    CHECK_OK(ir_manifest_read(MANIFEST, &model, &err));
    const ir_param *P = model.params;

    /* model level broadcasts to every function */
    CHECK_OK(resolve("a=1;" FULL, &err));
    CHECK(buf[P[0].offset] == 1 && buf[P[1].offset] == 1);
    CHECK(buf[P[2].offset] == 1 && buf[P[2].offset + 1] == 2);
    CHECK(buf[P[3].offset] == 1 && buf[P[3].offset + 5] == 6);
    CHECK(buf[P[4].offset] == 3.5); /* fixed: from the model */
    /* regime level */
    CHECK_OK(resolve("r.a=2;" FULL, &err));
    CHECK(buf[P[0].offset] == 2 && buf[P[1].offset] == 2);
    /* function level, different values per function */
    CHECK_OK(resolve("r.f.a=3;r.g.a=4;" FULL, &err));
    CHECK(buf[P[0].offset] == 3 && buf[P[1].offset] == 4);
    /* labels along a categorical dimension; flat row-major lists */
    CHECK_OK(resolve("a=1;arr={hi=9,lo=8};grid2={1,2,3,4,5,6}", &err));
    CHECK(buf[P[2].offset] == 8 && buf[P[2].offset + 1] == 9);
    CHECK(buf[P[3].offset + 3] == 4);
    CHECK_OK(resolve("a=1;arr={1,2};grid2={{lo=1,hi=2},{lo=3,hi=4},{lo=5,hi=6}}", &err));
    CHECK(buf[P[3].offset + 1] == 2);

    fails("a=1;r.a=2;" FULL, "given at two levels");
    fails("r.a=1;r.f.a=2;" FULL, "given at two levels");
    fails("", "missing parameters: a (r.f, a number), a (r.g, a number), arr (r.f, 2 values by h)");
    fails("a=1;" FULL ";wage=3", "unknown parameter 'wage'");
    fails("a=1;" FULL ";ar=3", "did you mean 'a");
    fails("a=1;" FULL ";r.f.zzz=3", "function 'f' of regime 'r' has no parameter 'zzz'");
    fails("a=1;" FULL ";baked=1", "is fixed in the model");
    fails("a=1;arr={1,2,3};grid2={1,2,3,4,5,6}", "dimension 1 (h) has 3 entries, the model needs 2");
    fails("a=1;arr={lo=1,mid=2};grid2={1,2,3,4,5,6}", "'mid' is not a category of h");
    fails("a=1;arr={lo=1};grid2={1,2,3,4,5,6}", "no entry for 'hi'");
    fails("a={1,2};" FULL, "expected a number, found a list");
    fails("a=1;arr=5;grid2={1,2,3,4,5,6}", "expected an array (2 values by h), found a number");
    fails("a=1;arr={1,2};grid2={{1,2},{3,4}}", "dimension 1 (period) has 2 entries, the model needs 3");
    fails("a=1;arr={1,2};grid2={p=1}", "dimension 1 (period) is not categorical");

    /* set paths */
    lcm_pvalue *t = lcm_pv_table();
    CHECK_OK(lcm_pv_set_path(t, "r.f.a", lcm_pv_num(1), &err));
    CHECK(lcm_pv_get(lcm_pv_get(lcm_pv_get(t, "r"), "f"), "a")->num == 1);
    CHECK(lcm_pv_set_path(t, "r.f.a.b", lcm_pv_num(1), &err) == LCM_E_PARAMS);
    CHECK(lcm_pv_set_path(t, "r.9x", lcm_pv_num(1), &err) == LCM_E_PARAMS);
    lcm_pv_free(t);

    /* the template names every free parameter once */
    lcm_sb b;
    base_sb_init(&b);
    core_params_template(&model, &b);
    CHECK(strstr(b.s, "  a = nil, -- a number; used by r.f r.g\n") != NULL);
    CHECK(strstr(b.s, "arr = nil, -- 2 values by h") != NULL);
    CHECK(strstr(b.s, "baked") == NULL);
    base_sb_free(&b);
    ir_model_free(&model);

    /* a name that a state's grid (a shock process's sigma) and a function
     * (a CRRA sigma) both take is listed per function, not once at the
     * top, where one value would set both */
    CHECK_OK(ir_manifest_read("lcm-manifest 5\nmodel \"c\"\nages 1 0\nparam r h sigma 0\nparam r f sigma 0\n"
                              "param r f a 0\nparam r g a 0\nregime r terminal 1\nactive 1 1\n"
                              "state h discrete n 2 labels \"lo\" \"hi\"\nendregime\n"
                              "dag r\nnode const 0\nutility 0\nq 0\nenddag\nend\n", &model, &err));
    base_sb_init(&b);
    core_params_template(&model, &b);
    CHECK_MSG(strstr(b.s, "  a = nil, -- a number; used by r.f r.g\n") && !strstr(b.s, "  sigma = nil, -- a number; used") &&
              strstr(b.s, "  r = {\n    h = {\n      sigma = nil, -- a number\n    },\n    f = {\n      sigma = nil,"),
              "%s", b.s);
    base_sb_free(&b);
    ir_model_free(&model);
    check_threads();
    CHECK_DONE();
}
