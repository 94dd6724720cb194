/* The manifest: exact round trip of generated models, and clear rejection
 * of damaged ones. */
#include <stdlib.h>

#include "check.h"
#include "lcmgen.h"
#include "manifest.h"
#include "testlib.h"

static void round_trip(const char *lua)
{
    lcm_err err = {0};
    char *path = test_path(lua);
    lcmgen_output gen;
    CHECK_OK(lcmgen_generate(path, NULL, &gen, &err));
    free(path);
    if (check_failures) return;
    ir_model m = {0};
    CHECK_OK(ir_manifest_read(gen.manifest, &m, &err));
    lcm_sb b;
    base_sb_init(&b);
    ir_manifest_write(&m, &b);
    CHECK_MSG(!strcmp(b.s, gen.manifest), "%s: manifest does not round-trip", lua);
    base_sb_free(&b);
    ir_model_free(&m);
    lcmgen_output_free(&gen);
}

static void rejects(const char *text, const char *expect)
{
    ir_model m = {0};
    lcm_err err = {0};
    int rc = ir_manifest_read(text, &m, &err);
    CHECK_MSG(rc != 0 && strstr(err.msg, expect), "expected '%s', got rc=%d '%s'", expect, rc, err.msg);
    ir_model_free(&m);
}

#define CHOICE "lcm-manifest 5\nmodel \"x\"\nages 2 0 1\nregime r terminal 1\nactive 2 1 1\n" \
               "action c discrete n 2 labels \"a\" \"b\"\nendregime\n"
#define HEAD_ALIVE(term, rest) "lcm-manifest 5\nmodel \"x\"\nages 2 0 1\nregime r terminal " term "\nactive 2 1 1\n" \
    "state w lin n 2 start 0 stop 1\naction c lin n 2 start 0 stop 1\n" rest "endregime\nend\n"
#define HEAD "lcm-manifest 5\nmodel \"x\"\nages 2 0 1\nregime r terminal 1\nactive 2 1 1\nendregime\n"

int main(void)
{
    round_trip("models/tiny.lua");
    round_trip("models/mortality.lua");
    round_trip("models/iskhakov_2017.lua");
    round_trip("models/precautionary_savings.lua");
    round_trip("models/precautionary_savings_health.lua");
    round_trip("tests/models/piecewise.lua");
    round_trip("tests/models/epstein_zin.lua");
    round_trip("tests/models/taste_logit.lua");
    round_trip("tests/models/age_grid.lua");
    /* margins: grid search's (margin, margin_why), EGM's with d resources / d x not 1 */
    round_trip("models/durables.lua");
    round_trip("tests/models/egm_lagged.lua");
    round_trip("tests/models/expected_v.lua");
    round_trip("tests/models/negm_cake.lua"); /* nested EGM: a continuous action enumerated */

    rejects("lcm-manifest 99\n", "manifest version 99");
    rejects("hello\n", "not an lcm manifest");
    rejects(HEAD "dag r\nnode frobnicate 0\nutility 0\nq 0\nenddag\nend\n", "unknown op");
    rejects(HEAD "dag r\nnode const 1\nnode add 0 1\nutility 1\nq 1\nenddag\nend\n", "out of order");
    rejects(HEAD "dag r\nnode const 1\nnode add 0\nutility 1\nq 1\nenddag\nend\n", "has 1 arguments, wants 2");
    rejects(HEAD "dag r\nnode state 3\nutility 0\nq 0\nenddag\nend\n", "no state 3");
    rejects(HEAD "dag r\nnode const 1\nutility 5\nq 0\nenddag\nend\n", "utility refers to node 5");
    rejects(HEAD "dag r\nnode const 1\nutility 0\nq 0\nrisk_aversion 0\nenddag\nend\n", "is terminal and has a risk aversion");
    rejects(HEAD "dag r\nnode const 1\nutility 0\nq 0\nenddag\n", "without 'end'");
    rejects("lcm-manifest 5\nmodel \"x\"\nages 2 0 1\nregime r terminal 1\nactive 3 1 1 1\nendregime\nend\n",
            "one flag per period");
    /* taste shocks: on discrete actions, a number known before the choice */
    rejects(HEAD "dag r\nnode const 1\nutility 0\nq 0\ntaste 0\nenddag\nend\n",
            "taste shocks need between 1 and 256 combinations of discrete actions (it has 0)");
    rejects(CHOICE "dag r\nnode const 1\nutility 0\nq 0\ntaste 3\nenddag\nend\n", "the taste-shock scale refers to node 3");
    rejects(CHOICE "dag r\nnode action 0\nnode const 1\nnode mul 0 1\nutility 1\nq 1\ntaste 2\nenddag\nend\n",
            "the taste-shock scale depends on an action");
    rejects(CHOICE "dag r\nnode const 1\nnode gt 0 0\nutility 0\nq 0\ntaste 1\nenddag\nend\n",
            "the taste-shock scale is a condition");
    /* grids by age: one fixed continuous grid of n points per period */
#define AGE_STATE(g) "lcm-manifest 5\nmodel \"x\"\nages 2 0 1\nregime r terminal 1\nactive 2 1 1\nstate w " g "\nendregime\n" \
                     "dag r\nnode const 1\nutility 0\nq 0\nenddag\nend\n"
    rejects(AGE_STATE("by_age n 2 periods 2 | lin n 2 start 0 stop 1"), "a grid by age needs '|' before each period's grid");
    rejects(AGE_STATE("by_age n 2 periods 2 | lin n 2 start 0 stop 1 | lin n 3 start 0 stop 1"),
            "has another number of points");
    rejects(AGE_STATE("by_age n 2 periods 2 | lin n 2 start 0 stop 1 | irregular n 2 runtime 0"),
            "must be a fixed continuous grid");
    rejects(AGE_STATE("by_age n 2 periods 1 | lin n 2 start 0 stop 1"), "1 grids by age for 2 periods");
    rejects(AGE_STATE("by_age n 2"), "grid by age without periods");
    /* a kernel's line: the GPU's action terms are told, never guessed */
#define KERNEL(rest) HEAD "dag r\nnode const 1\nutility 0\nq 0\nenddag\nkernel k r last 1 par -1 " rest "\nend\n"
    rejects(KERNEL("targets 0 inactive 0"), "kernel needs terms");
    rejects(KERNEL("terms -3 targets 0 inactive 0"), "bad action terms");
    rejects(KERNEL("terms 4097 targets 0 inactive 0"), "bad action terms"); /* IR_MAX_ACTION_TERMS */
    /* ... nor whether it was generated for the staged solve (ir/eliminate.h) */
    rejects(KERNEL("terms 0 targets 0 inactive 0"), "kernel needs staged");
    rejects(KERNEL("terms 0 staged 2 targets 0 inactive 0"), "bad staged");
    /* the staged solve's table reads are the generator's own, never a model's */
    rejects(HEAD "dag r\nnode stage\nutility 0\nq 0\nenddag\nend\n", "'stage' is not an operation of a model");
    /* a grid-search margin: in a non-terminal regime, its nodes among the regime's */
    rejects(HEAD_ALIVE("1", "margin w c nodes 0\n"), "a terminal regime has no margin");
    rejects(HEAD_ALIVE("0", "margin w c\n"), "bad margin line");
    rejects(HEAD_ALIVE("0", "margin_why 1 2\n"), "bad margin_why line");
    /* d utility / d x of a terminal regime: kept (marginal) or for the Euler errors alone, one of them */
#define TERMINAL_DAG(lines) "lcm-manifest 5\nmodel \"x\"\nages 2 0 1\nregime r terminal 1\nactive 2 1 1\n" \
    "state w lin n 2 start 0 stop 1\nendregime\ndag r\nnode state 0\nutility 0\nq 0\n" lines "enddag\nend\n"
    rejects(TERMINAL_DAG("marginal w 0\neuler_marginal w 0\n"), "bad euler_marginal line");
    rejects(TERMINAL_DAG("euler_marginal v 0\n"), "bad euler_marginal line");
    rejects(TERMINAL_DAG("euler_marginal w 7\n"), "the marginal value refers to node 7");
#undef TERMINAL_DAG
#undef KERNEL
    CHECK_DONE();
}
