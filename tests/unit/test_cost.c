/* The roofline's parts: the cost model (gen/cost.h), per-pair counts of
 * two models small enough to count by hand, with and without the
 * parameters' values; and lcm_solver_profile, the
 * time of each kernel's bodies and tables, which leaves the solve as it
 * was. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cost.h"
#include "lcmgen.h"
#include "testlib.h"

/* The flat parameter buffer with every slot named `name` at v. */
static void set_param(const ir_model *m, double *buf, const char *name, double v)
{
    for (int i = 0; i < m->nparams; ++i)
        if (!strcmp(m->params[i].name, name))
            for (size_t j = 0; j < m->params[i].size; ++j) buf[m->params[i].offset + j] = v;
}

typedef struct expect {
    const char *symbol;
    int with_params;
    double arith, compare, divide, calls, bytes, footprint;
    int table, inline_continuation;
    int host; /* counted as the CPU's kernel, which reads hoisted terms (emit.c) */
} expect;

/* tables 0: counted as a solve under LCM_NO_TABLES=1 runs it */
static void check_cost(const ir_model *m, const double *params, const expect *x, int tables)
{
    int k = 0;
    while (k < m->nkernels && strcmp(m->kernels[k].symbol, x->symbol)) ++k;
    CHECK_MSG(k < m->nkernels, "no kernel %s", x->symbol);
    if (k == m->nkernels) return;
    lcm_kernel_cost c;
    lcm_err err = {0};
    CHECK_OK(gen_kernel_cost_of(m, k, 64, x->with_params ? params : NULL, tables, x->host, &c, &err));
    CHECK_MSG(close_rel(c.arith, x->arith, 1e-12) && close_rel(c.compare, x->compare, 1e-12) &&
                  close_rel(c.divide, x->divide, 1e-12) && close_rel(c.calls, x->calls, 1e-12) &&
                  close_rel(c.bytes, x->bytes, 1e-12) && c.footprint == x->footprint && c.table == x->table &&
                  c.inline_continuation == x->inline_continuation,
              "%s (parameters %d, host %d): arith %.17g compare %.17g divide %.17g calls %.17g bytes %.17g "
              "footprint %g table %d inline %d; expected %.17g %.17g %.17g %.17g %.17g %g %d %d", x->symbol,
              x->with_params, x->host, c.arith, c.compare, c.divide, c.calls, c.bytes, c.footprint, c.table,
              c.inline_continuation, x->arith, x->compare, x->divide, x->calls, x->bytes, x->footprint, x->table,
              x->inline_continuation);
}

static void check_model(const char *lua, const expect *cases, int n, int tables)
{
    lcmgen_output gen;
    lcm_err err = {0};
    char *path = test_path(lua);
    CHECK_OK(lcmgen_generate(path, NULL, &gen, &err));
    free(path);
    if (check_failures) return;
    double *params = calloc(gen.model.params_size + 1, sizeof *params);
    set_param(&gen.model, params, "risk_aversion", 2);
    set_param(&gen.model, params, "interest_rate", 0.04);
    for (int i = 0; i < n; ++i) check_cost(&gen.model, params, &cases[i], tables);
    free(params);
    lcmgen_output_free(&gen);
}

/* tests/models/hoisted_terms.lua -D middle=true, period 0: what the CPU's
 * kernel holds beside the GPU's is its hoisted terms' lcm_h, in float64:
 * calm (to the state) and the utility's sum (to the work loop) at each of
 * the 40 savings, as in the model without the option, and of the middle
 * loop, effort, hoisted to the state at each of its 3 levels: its strain
 * and the two probabilities of fitness (emit.c, "hoisted terms"). */
static void check_middle_hoisted(void)
{
    lcmgen_output gen;
    lcm_err err = {0};
    char *path = test_path("tests/models/hoisted_terms.lua");
    const ir_option middle = {.name = (char *)"middle", .value = (char *)"true"};
    const lcmgen_inputs in = {.defines = &middle, .ndefines = 1};
    CHECK_OK(lcmgen_generate(path, &in, &gen, &err));
    free(path);
    if (check_failures) return;
    int k = 0;
    while (k < gen.model.nkernels && strcmp(gen.model.kernels[k].symbol, "lcm_k0_working")) ++k;
    CHECK_MSG(k < gen.model.nkernels, "no kernel lcm_k0_working");
    lcm_kernel_cost gpu, cpu;
    if (k < gen.model.nkernels) {
        CHECK_OK(gen_kernel_cost_of(&gen.model, k, 64, NULL, 1, 0, &gpu, &err));
        CHECK_OK(gen_kernel_cost_of(&gen.model, k, 64, NULL, 1, 1, &cpu, &err));
        CHECK_MSG(cpu.footprint - gpu.footprint == (2 * 40 + 3 * 3) * 8, "lcm_h: %g bytes, expected %d",
                  cpu.footprint - gpu.footprint, (2 * 40 + 3 * 3) * 8);
        CHECK_MSG(cpu.calls < gpu.calls, "the CPU's kernel makes %g calls per pair, the GPU's %g", cpu.calls,
                  gpu.calls);
    }
    lcmgen_output_free(&gen);
}

/* Profiles a cpu solve of `lua`: every kernel that runs takes time, only
 * kernels with a table spend any in tables, and a solve after the profile
 * gives the V of one before it. */
static void check_profile(const char *lua, const char *params_lua, int tables)
{
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_pvalue *params = NULL;
    lcm_solver *solver = NULL;
    lcm_solution *before = NULL, *after = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    CHECK_OK(test_generate(lua, NULL, &model, &err));
    CHECK_OK(test_params(params_lua, &params, &err));
    CHECK_OK(lcm_solver_new(model, &o, &solver, &err));
    if (check_failures) return;
    const ir_model *m = core_model_ir(model);
    double *body = calloc((size_t)m->nkernels, sizeof *body), *table = calloc((size_t)m->nkernels, sizeof *table);
    CHECK_OK(lcm_solve(solver, params, &before, &err));
    CHECK_OK(lcm_solver_profile(solver, params, body, table, &err));
    CHECK_OK(lcm_solve(solver, params, &after, &err));
    int with_table = 0;
    for (int k = 0; k < m->nkernels; ++k) {
        CHECK_MSG(body[k] > 0, "%s: kernel %s took %g s", lua, m->kernels[k].symbol, body[k]);
        CHECK_MSG(table[k] >= 0, "%s: kernel %s's tables took %g s", lua, m->kernels[k].symbol, table[k]);
        with_table += table[k] > 0;
    }
    CHECK_MSG(tables ? with_table > 0 : with_table == 0, "%s: %d kernels with table time", lua, with_table);
    if (before && after) CHECK(test_max_rel_diff(before, after) == 0);
    lcm_solution_free(before), lcm_solution_free(after);
    lcm_solver_free(solver);
    /* one worker only: two are refused with a usage error */
    o.devices = 2;
    CHECK_OK(lcm_solver_new(model, &o, &solver, &err));
    CHECK(lcm_solver_profile(solver, params, body, table, &err) == LCM_E_USAGE);
    lcm_solver_free(solver);
    free(body), free(table);
    lcm_pv_free(params);
    lcm_model_free(model);
}

int main(void)
{
    /* models/tiny.lua, period 0 (targets alive and dead), per consumption:
     * the action's point 2 arith; its utility c^(1-ra)/(1-ra) an action term
     * (8 bytes from lcm_at, with or without the parameters); budget 1
     * compare; next wealth 3; H 2; the state's point 2/20; the best 2
     * compares.  The continuation inline: alive's next wealth on its
     * linspace (cell 3 + 2 compares, fraction 2 + a division + 2 points),
     * 2 corners (2 x 4 arith, 2 compares, 2 values), its weight 3 + 1
     * compare, its probability 2; dead, no states: one corner (2, 1, one
     * value), weight 3 + 1, probability 2.  Footprint: next V 10 + 1
     * values, the 20 action terms. */
    static const expect tiny[] = {
        {"lcm_k0_alive", 1, 32.1, 10, 1, 0, 48, 248, 0, 1, 1},
        {"lcm_k0_alive", 0, 32.1, 10, 1, 0, 48, 248, 0, 1, 1},
        /* period 1: dead's continuation reads no action, so it and beta * E
         * run once per launch: per pair the point, the action term, H's add,
         * budget and the best */
        {"lcm_k1_alive", 1, 2 + 0.1 + 1, 3, 0, 0, 8, 160 + 8, 0, 1, 1},
        {"lcm_k2_dead", 1, 0, 2, 0, 0, 0, 0, 0, 0, 1},
    };
    check_model("models/tiny.lua", tiny, (int)(sizeof tiny / sizeof *tiny), 1);
    /* tests/models/staged_loop.lua: work (2) outside saving (160).  Per
     * saving: its point 2; consumption's - saving 1; c^-1 a division, /(-1)
     * 1 (without the parameters pow, a call, and a division); - disutility
     * * work 1; H 2 (next wealth is the table's); work * wage, + wealth and
     * disutility * work once per work: 3/160; the state's point 2/320; two
     * constraints and the best 4 compares; the continuation one table entry
     * and its flag (9 bytes) of 160 (one per saving). */
    static const expect staged[] = {
        {"lcm_k0_working", 1, 7 + 3.0 / 160 + 2.0 / 320, 4, 1, 0, 9, 160 * 9, 1, 0, 1},
        {"lcm_k0_working", 0, 6 + 3.0 / 160 + 2.0 / 320, 4, 1, 1, 9, 160 * 9, 1, 0, 1},
        {"lcm_k2_last", 1, 5 + 3.0 / 160 + 2.0 / 320, 4, 1, 0, 0, 0, 0, 0, 1},
    };
    check_model("tests/models/staged_loop.lua", staged, (int)(sizeof staged / sizeof *staged), 1);
    /* models/precautionary_savings.lua (7 wealth, 7 consumption, 5 income
     * nodes), period 0: its solve reads alive's expected V (ir/precompute.h,
     * "ev").  Per consumption: the action's point 2; log an action term (8
     * bytes); budget 1 compare; next wealth 3; H 2; the state's point 2/7
     * (and its load, 8 bytes / 7) and exp(income) a call per 7; the best 2
     * compares.  The continuation:
     * next wealth on its linspace (cell 3 + 2 compares, fraction 2 + a
     * division + 2 points), the income node's row 2, 2 corners (2 x 4, 2
     * compares, 2 values) of the expected V, not 5 x 2, its weight 3 + 1,
     * its probability 2.  Footprint: the expected V, 5 x 7 values, and the
     * 7 action terms. */
    static const expect savings[] = {
        {"lcm_k0_alive", 1, 2 + 3 + 2 + 2.0 / 7 + 3 + 2 + 2 + 8 + 3 + 2, 1 + 2 + 2 + 2 + 1, 1, 1.0 / 7, 8 + 8.0 / 7 + 16 + 16,
         (35 + 7) * 8, 0, 1, 1},
    };
    check_model("models/precautionary_savings.lua", savings, (int)(sizeof savings / sizeof *savings), 1);
    /* the same under LCM_NO_TABLES=1, the inline sum over the 5 nodes: 5 x
     * 2 corners (5 x 2 x 4 arith, 10 compares, 10 values), 5 weights (5 x
     * 3, 5 compares), no row */
    static const expect savings_inline[] = {
        {"lcm_k0_alive", 1, 2 + 3 + 2 + 2.0 / 7 + 3 + 2 + 40 + 15 + 2, 1 + 2 + 2 + 10 + 5, 1, 1.0 / 7,
         8 + 8.0 / 7 + 16 + 80, (35 + 7) * 8, 0, 1, 1},
    };
    check_model("models/precautionary_savings.lua", savings_inline, 1, 0);
    /* tests/models/hoisted_terms.lua, period 0: work (2), effort (3) and
     * saving (40) looped in that order.  Per saving: its point 2; rest 1,
     * consumption 1; its two constraints 2 compares; effort's cost times
     * calm 1, the two subtractions 2; H 2 (next wealth is the table's);
     * the best 2 compares; the table's entry and flag, 9 bytes.  Per effort
     * (1/40): its cost, a parameter at a computed index (8 bytes); per work
     * (1/120) consumption's work * wage and the disutility 2; the state's
     * point 2/240.  Computed per pair on the GPU (host 0): 1 + rest (1),
     * calm's sqrt (a division), the CRRA power (at risk aversion 2 a
     * reciprocal, a division; without the parameters a call), its quotient
     * by 1 - risk aversion (a product with the parameters, lcm_div_by; a
     * division without) and + calm (1).  On the CPU (host 1) the pair reads
     * calm and the utility's sum from lcm_h (16 bytes) and computes them 40
     * times per state (calm: the point 2, rest 1, 1 + rest 1, the sqrt,
     * the cap saving <= wealth 1 compare; weight 40/240) and per work (the
     * sum: the point 2, rest 1, consumption 1, the power, the quotient 1,
     * + calm 1, calm's load, 8 bytes, the cap 1 compare; weight 40/120).  Footprint: the table's 40 entries of 9 bytes,
     * on the CPU also the two lcm_h of 40 values. */
    const double outer = 2.0 / 120 + 2.0 / 240;
    static expect hoisted[4];
    hoisted[0] = (expect){"lcm_k0_working", 1, 9 + outer + 4.0 / 6 + 6.0 / 3, 4.5, 1.0 / 6 + 1.0 / 3, 0,
                          25 + 8.0 / 40 + 8.0 / 3, 360 + 640, 1, 0, 1};
    hoisted[1] = (expect){"lcm_k0_working", 0, 9 + outer + 4.0 / 6 + 5.0 / 3, 4.5, 1.0 / 6 + 1.0 / 3, 1.0 / 3,
                          25 + 8.0 / 40 + 8.0 / 3, 360 + 640, 1, 0, 1};
    hoisted[2] = (expect){"lcm_k0_working", 1, 12 + outer, 4, 2, 0, 9 + 8.0 / 40, 360, 1, 0, 0};
    hoisted[3] = (expect){"lcm_k0_working", 0, 11 + outer, 4, 2, 1, 9 + 8.0 / 40, 360, 1, 0, 0};
    check_model("tests/models/hoisted_terms.lua", hoisted, 4, 1);
    check_middle_hoisted();
    check_profile("models/tiny.lua", "models/tiny.params.lua", 0);
    check_profile("tests/models/staged_loop.lua", "tests/models/staged_loop.params.lua", 1);
    check_profile("models/precautionary_savings.lua", "models/precautionary_savings.params.lua", 1); /* the expected V */
    CHECK_DONE();
}
