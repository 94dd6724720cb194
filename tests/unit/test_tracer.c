/* The tracer and emitter on small inline models: sharing, folding,
 * hoisting, baked parameters, array dimensions, reachable targets. */
#include <stdlib.h>

#include "check.h"
#include "testlib.h"

#define HEADER                                                                        \
    "local lcm = require('lcm')\n"                                                    \
    "local R = lcm.categorical{'alive', 'dead'}\n"                                    \
    "local dead = lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }\n"

#define FOOTER                                                                        \
    "return lcm.model{ ages = lcm.ages{start = 0, stop = 2}, regime_ids = R,\n"       \
    "  regimes = { alive = alive, dead = dead }, fixed_params = FIXED }\n"

static int count_op(const ir_regime *r, ir_op op)
{
    int n = 0;
    for (size_t i = 0; i < r->nnodes; ++i) n += r->nodes[i].op == op;
    return n;
}

static int param_slot(const ir_model *m, const char *func, const char *name)
{
    for (int i = 0; i < m->nparams; ++i)
        if (!strcmp(m->params[i].func, func) && !strcmp(m->params[i].name, name)) return i;
    return -1;
}

static lcm_model *gen(const char *alive_and_fixed)
{
    lcm_sb b;
    base_sb_init(&b);
    base_sb_printf(&b, "%s%s%s", HEADER, alive_and_fixed, FOOTER);
    lcm_model *m = NULL;
    lcm_err err = {0};
    CHECK_OK(test_generate_text(b.s, &m, &err));
    base_sb_free(&b);
    return m;
}

int main(void)
{
    lcm_model *m = gen(
        "local FIXED = { interest_rate = 0.0, alive = { bonus = { 1, 2, 3 } } }\n"
        "local alive = lcm.regime{\n"
        "  active = function(age) return age < 2 end,\n"
        "  states = { wealth = lcm.linspace{start = 1, stop = 10, n_points = 5} },\n"
        "  actions = { c = lcm.linspace{start = 0.5, stop = 5, n_points = 10} },\n"
        "  functions = {\n"
        "    twice = function(wealth) return wealth * 2 end,\n"
        "    again = function(wealth) return wealth * 2 + 1 end,\n"
        "    seven = function() return 1 + 2 * 3 end,\n"
        "    utility = function(c, wealth, twice, again, seven, survival, period, bonus)\n"
        "      return math.log(c) + math.log(wealth) + twice + again + seven + survival[period] + bonus[period] end,\n"
        "  },\n"
        "  state_transitions = { wealth = function(wealth, c, interest_rate) return (1 + interest_rate) * (wealth - c) end },\n"
        "  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,\n"
        "}\n");
    if (!m) CHECK_DONE();
    const ir_model *ir = core_model_ir(m);
    const ir_regime *alive = &ir->regimes[0];
    /* wealth * 2 appears once although two functions compute it (the other
     * product is discount_factor * E_next_V of the default H) */
    CHECK(count_op(alive, OP_MUL) == 2);
    /* 1 + 2 * 3 folded */
    for (int f = 0; f < alive->nfuncs; ++f)
        if (!strcmp(alive->funcs[f].name, "seven"))
            CHECK(alive->nodes[alive->funcs[f].node].op == OP_CONST && alive->nodes[alive->funcs[f].node].k == 7);
    /* fixed interest_rate = 0 baked: (1 + 0) * x simplified away, the slot only documents it */
    int ir_slot = param_slot(ir, "next_wealth", "interest_rate");
    CHECK(ir_slot >= 0 && ir->params[ir_slot].fixed);
    for (size_t i = 0; i < alive->nnodes; ++i) CHECK(!(alive->nodes[i].op == OP_PARAM && alive->nodes[i].ref == ir_slot));
    /* array parameters take their dimensions from the index variable */
    int s = param_slot(ir, "utility", "survival");
    CHECK(s >= 0 && ir->params[s].ndims == 1 && ir->params[s].dims[0] == 3 && !strcmp(ir->params[s].dimnames[0], "period"));
    int bonus = param_slot(ir, "utility", "bonus");
    CHECK(bonus >= 0 && ir->params[bonus].fixed && ir->params[bonus].values[2] == 3);
    /* both regimes reachable, dead only as a target with no states */
    CHECK(alive->rprob[0] >= 0 && alive->rprob[1] >= 0 && alive->ntargets == 2);
    /* hoisting: log(wealth) is computed before the action loop, log(c) inside */
    const char *src = lcm_model_source(m);
    const char *loop = strstr(src, "for (int i0");
    const char *logw = strstr(src, "= LCM_LOG(s_wealth);");
    CHECK(loop && logw && logw < loop);
    CHECK(strstr(loop, "= LCM_LOG(a_c);") != NULL);
    lcm_model_free(m);

    /* constant powers: x ^ 2 a product, x ^ (1 - sigma) with sigma fixed at 2 a
     * quotient, x ^ 1 the value itself; the budget constraint is tested before
     * the utility of its loop and, capping the action from above, leaves it */
    m = gen("local FIXED = { sigma = 2 }\n"
            "local alive = lcm.regime{\n"
            "  active = function(age) return age < 2 end,\n"
            "  states = { wealth = lcm.linspace{ start = 1, stop = 5, n_points = 3 } },\n"
            "  actions = { c = lcm.linspace{ start = 1, stop = 5, n_points = 4 } },\n"
            "  functions = { utility = function(c, wealth, sigma)\n"
            "    return c ^ (1 - sigma) + wealth ^ 2 + c ^ 1 end },\n"
            "  constraints = { budget = function(c, wealth) return c:le(wealth) end },\n"
            "  state_transitions = { wealth = function(wealth, c) return wealth - c end },\n"
            "  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,\n"
            "}\n");
    if (m) {
        ir = core_model_ir(m);
        CHECK(count_op(&ir->regimes[0], OP_POW) == 0);
        CHECK(count_op(&ir->regimes[0], OP_DIV) == 1);
        src = lcm_model_source(m);
        const char *cap = strstr(src, "break; /* constraint budget");
        const char *recip = strstr(src, " / a_c);");
        CHECK(cap && recip && cap < recip);
        lcm_model_free(m);
    }

    /* divisions stay divisions, also by a parameter or a constant: the
     * product with a reciprocal can miss the quotient by an ulp, and
     * 49 * (1/49) = 0.9999999999999999 would floor, compare and code
     * differently (tests/models/exact_division.lua solves it) */
    m = gen("local FIXED = nil\n"
            "local alive = lcm.regime{\n"
            "  active = function(age) return age < 2 end,\n"
            "  states = { wealth = lcm.linspace{ start = 1, stop = 5, n_points = 3 } },\n"
            "  actions = { c = lcm.linspace{ start = 1, stop = 5, n_points = 4 } },\n"
            "  functions = { utility = function(c, wealth, sigma)\n"
            "    return c / (1 - sigma) + wealth / 3 + sigma / c end },\n"
            "  state_transitions = { wealth = function(wealth, c) return wealth - c end },\n"
            "  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,\n"
            "}\n");
    if (m) {
        CHECK(count_op(&core_model_ir(m)->regimes[0], OP_DIV) == 3);
        lcm_model_free(m);
    }

    /* a transition that always returns one regime reaches only that one */
    m = gen("local FIXED = nil\n"
            "local alive = lcm.regime{\n"
            "  active = function(age) return age < 2 end,\n"
            "  functions = { utility = function(x) return x end },\n"
            "  transition = function() return R.dead end,\n"
            "}\n");
    if (m) {
        ir = core_model_ir(m);
        CHECK(ir->regimes[0].rprob[0] < 0 && ir->regimes[0].rprob[1] >= 0 && ir->regimes[0].ntargets == 1);
        CHECK(param_slot(ir, "utility", "x") >= 0);
        lcm_model_free(m);
    }

    /* per-target transitions are separate functions (and parameter levels) */
    m = gen("local FIXED = nil\n"
            "local alive = lcm.regime{\n"
            "  active = function(age) return age < 2 end,\n"
            "  states = { w = lcm.linspace{start = 0, stop = 1, n_points = 3} },\n"
            "  functions = { utility = function(w) return w end },\n"
            "  state_transitions = { w = { alive = function(w, r) return w * r end } },\n"
            "  transition = function(age) return lcm.where(age:ge(1), R.dead, R.alive) end,\n"
            "}\n");
    if (m) {
        CHECK(param_slot(core_model_ir(m), "next_w__alive", "r") >= 0);
        lcm_model_free(m);
    }

    /* fixed rows of Markov transitions keyed by label, as in a params file:
     * the next regime's names and the next state's categories */
    m = gen("local FIXED = { move = { { alive = 0.25, dead = 0.75 }, { dead = 1, alive = 0 }, { 0, 1 } },\n"
            "  shift = { lo = { lo = 0.5, hi = 0.5 }, hi = { hi = 0.875, lo = 0.125 } } }\n"
            "local H = lcm.categorical{'lo', 'hi'}\n"
            "local alive = lcm.regime{\n"
            "  active = function(age) return age < 2 end,\n"
            "  states = { h = lcm.discrete(H) },\n"
            "  functions = { utility = function(h) return h end },\n"
            "  state_transitions = { h = lcm.markov(function(h, shift) return shift[h] end) },\n"
            "  transition = lcm.markov(function(period, move) return move[period] end),\n"
            "}\n");
    if (m) {
        ir = core_model_ir(m);
        int move = param_slot(ir, "next_regime", "move"), shift = param_slot(ir, "next_h", "shift");
        CHECK(move >= 0 && ir->params[move].fixed && !strcmp(ir->params[move].dimnames[1], "next_regime"));
        CHECK(move >= 0 && ir->params[move].values[0] == 0.25 && ir->params[move].values[1] == 0.75 &&
              ir->params[move].values[2] == 0 && ir->params[move].values[3] == 1);
        CHECK(shift >= 0 && ir->params[shift].fixed && ir->params[shift].values[2] == 0.125 &&
              ir->params[shift].values[3] == 0.875);
        lcm_model_free(m);
    }
    CHECK_DONE();
}
