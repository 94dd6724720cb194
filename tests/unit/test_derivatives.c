/* lcm.diff (gen/dsl/diff.lua) against the calculus and lcm.inverse
 * (gen/dsl/inverse.lua) against the value it inverts: in
 * tests/models/derivatives.lua, marginal utility against the closed form
 * c^-risk_aversion, the derivatives of `mixture` (every function with a
 * rule) in consumption and in wealth against central differences of
 * `mixture`, and consumption recovered from marginal utility, from a
 * separable form and from squares (quadratic utility, CRRA of risk
 * aversion 2, which the tracer writes as products) against itself, all evaluated by the interpreter
 * (ir/eval.h) at points away from the kinks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eval.h"
#include "lcmgen.h"
#include "testlib.h"

static int node_of(const ir_regime *r, const char *name)
{
    for (int i = 0; i < r->nfuncs; ++i)
        if (!strcmp(r->funcs[i].name, name)) return r->funcs[i].node;
    CHECK_MSG(0, "no function '%s'", name);
    return -1;
}

/* The value of node `id` at wealth w and consumption c. */
static double at(const ir_model *m, const ir_regime *r, const double *params, int id, double w, double c)
{
    double *vals = calloc(r->nnodes + 1, sizeof *vals);
    ir_env env = {.states = &w, .actions = &c, .age = 0, .period = 0, .params = params};
    ir_eval(m, r, &env, vals, r->nnodes);
    double v = vals[id];
    free(vals);
    return v;
}

int main(void)
{
    lcmgen_output gen;
    lcm_err err = {0};
    char *path = test_path("tests/models/derivatives.lua");
    CHECK_OK(lcmgen_generate(path, NULL, &gen, &err));
    free(path);
    if (check_failures) CHECK_DONE();
    const ir_model *m = &gen.model;
    const ir_regime *r = &m->regimes[ir_find_regime(m, "alive")];
    double *params = calloc(m->params_size + 1, sizeof *params);
    const double risk_aversion = 2.5;
    for (int i = 0; i < m->nparams; ++i)
        if (!strcmp(m->params[i].name, "risk_aversion")) params[m->params[i].offset] = risk_aversion;
    int mu = node_of(r, "marginal_utility"), f = node_of(r, "mixture"), fc = node_of(r, "d_mixture");
    int fw = node_of(r, "d_mixture_wealth"), flat = node_of(r, "flat");
    int cb = node_of(r, "consumption_back"), cbs = node_of(r, "consumption_back_separable");
    int mq = node_of(r, "marginal_quadratic"), m2 = node_of(r, "marginal_crra2");
    int cb2 = node_of(r, "consumption_back_squares");
    const double cs[] = {0.7, 1.3, 2.6, 3.7, 4.6, 6.2, 8.3}, ws[] = {1.5, 4.0, 9.5}, h = 1e-5;
    int points = 0;
    for (size_t i = 0; i < sizeof cs / sizeof *cs; ++i)
        for (size_t j = 0; j < sizeof ws / sizeof *ws; ++j) {
            double c = cs[i], w = ws[j];
            double exact = pow(c, -risk_aversion), got = at(m, r, params, mu, w, c);
            CHECK_MSG(fabs(got - exact) <= 1e-14 * exact, "marginal utility at c = %g: %.17g, c^-%g = %.17g", c,
                      got, risk_aversion, exact);
            double dc = (at(m, r, params, f, w, c + h) - at(m, r, params, f, w, c - h)) / (2 * h);
            double dw = (at(m, r, params, f, w + h, c) - at(m, r, params, f, w - h, c)) / (2 * h);
            double gc = at(m, r, params, fc, w, c), gw = at(m, r, params, fw, w, c);
            CHECK_MSG(fabs(gc - dc) <= 1e-6 * fmax(1, fabs(dc)), "d mixture / d consumption at (%g, %g): %.10g, "
                      "central difference %.10g", w, c, gc, dc);
            CHECK_MSG(fabs(gw - dw) <= 1e-6 * fmax(1, fabs(dw)), "d mixture / d wealth at (%g, %g): %.10g, "
                      "central difference %.10g", w, c, gw, dw);
            CHECK(at(m, r, params, flat, w, c) == 0);
            double back = at(m, r, params, cb, w, c), back_sep = at(m, r, params, cbs, w, c);
            CHECK_MSG(fabs(back - c) <= 1e-14 * c && fabs(back_sep - c) <= 1e-14 * c,
                      "lcm.inverse at c = %g: %.17g from marginal utility, %.17g from the separable form", c, back,
                      back_sep);
            double q = at(m, r, params, mq, w, c), c2 = at(m, r, params, m2, w, c), b2 = at(m, r, params, cb2, w, c);
            CHECK_MSG(fabs(q - 2 * (30 - c)) <= 1e-14 * q && fabs(c2 - 1 / (c * c)) <= 1e-14 * c2 &&
                          fabs(b2 - 2 * c) <= 1e-14 * c,
                      "squares at c = %g: marginal utilities %.17g, %.17g, consumption back (twice) %.17g", c, q, c2,
                      b2);
            ++points;
        }
    printf("lcm.diff, lcm.inverse: %d points, marginal utility to 1e-14 of its closed form, mixture's derivatives "
           "to 1e-6 of central differences, consumption back to 1e-14\n", points);
    free(params);
    lcmgen_output_free(&gen);
    CHECK_DONE();
}
