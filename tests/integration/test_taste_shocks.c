/* EV1 taste shocks (docs/model-language.md, "Taste shocks"):
 * - closed forms on tests/models/taste_logit.lua (one period, two choices of
 *   known values u_1, u_2): V = s log(e^{u_1/s} + e^{u_2/s}) and the
 *   conditional choice probabilities (--targets ccp_*) are logistic, on the
 *   cpu backend and the interpreter, to 1e-12, also with a scale that
 *   depends on a state;
 * - scale 0 gives V bit for bit equal to the model without taste shocks,
 *   and scale 1e-8 within 1e-8 of it;
 * - Iskhakov et al. (2017) with taste shocks on the retirement choice
 *   (models/iskhakov_2017.lua -D taste_shocks=true): at scale 0 exactly the
 *   plain model; at lambda = 0.01 and 0.05, 0 <= V_lambda - V_0 <=
 *   lambda log 2 (1 + beta + ... ) over the remaining periods, retirement
 *   (no choice to smooth) unchanged to the bit, and V still within the
 *   reference test's tolerance of the paper's lambda = 0 tables as lambda
 *   shrinks (0.01); cpu against the interpreter to 1e-12;
 * - simulated choice frequencies (20,000 subjects, seeded) within 4.5
 *   binomial standard errors of the CCPs; the panel the same on the cpu
 *   backend and the interpreter, and for subject batch sizes 0, 1 and 7.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "initial.h"
#include "panel.h"
#include "testlib.h"

static const double u_work = 1.0, u_rest = 0.25, group_bonus = 0.5;

typedef struct solved {
    lcm_model *model;
    lcm_solution *sol;
    lcm_pvalue *params;
} solved;

/* Generates `lua` with `define` (or none) and solves it with the params
 * file, taste_shock_scale set to `scale` when scale >= 0. */
static solved solve(const char *lua, const char *define, const char *params, double scale, lcm_backend_kind backend)
{
    const char *defines[] = {define, NULL};
    solved s = {0};
    lcm_err err = {0};
    lcm_solver *sv = NULL;
    lcm_solver_options o = {.backend = backend, .precision = 64};
    if (test_generate(lua, define ? defines : NULL, &s.model, &err) || test_params(params, &s.params, &err) ||
        (scale >= 0 && lcm_pv_set_path(s.params, "taste_shock_scale", lcm_pv_num(scale), &err)) ||
        lcm_solver_new(s.model, &o, &sv, &err) || lcm_solve(sv, s.params, &s.sol, &err)) {
        fprintf(stderr, "%s: %s\n", lua, err.msg);
        exit(1);
    }
    lcm_solver_free(sv);
    return s;
}

static void release(solved *s)
{
    lcm_solution_free(s->sol);
    lcm_pv_free(s->params);
    lcm_model_free(s->model);
}

static lcm_panel *simulate(const solved *s, lcm_backend_kind backend, const lcm_initial *ic, lcm_index batch,
                           const char *targets)
{
    lcm_solver_options o = {.backend = backend, .precision = 64};
    lcm_sim_options so = {.seed = 2017, .subject_batch_size = batch, .targets = targets};
    lcm_solver *sv = NULL;
    lcm_panel *p = NULL;
    lcm_err err = {0};
    if (lcm_solver_new(s->model, &o, &sv, &err) || lcm_simulate(sv, s->sol, ic, &so, &p, &err)) {
        fprintf(stderr, "simulate: %s\n", err.msg);
        exit(1);
    }
    lcm_solver_free(sv);
    return p;
}

static double *column(const lcm_panel *p, const char *name)
{
    double *c = base_xcalloc((size_t)lcm_panel_rows(p) + 1, sizeof *c);
    lcm_err err = {0};
    if (lcm_panel_column(p, name, c, &err)) fprintf(stderr, "%s\n", err.msg), exit(1);
    return c;
}

/* The closed form of taste_logit at scale s in group g: V and P(work). */
static double logit_v(double s, int g)
{
    double a = u_work + group_bonus * g, b = u_rest, m = fmax(a, b);
    return m + s * log(exp((a - m) / s) + exp((b - m) / s));
}

static double logit_p_work(double s, int g) { return 1 / (1 + exp((u_rest - u_work - group_bonus * g) / s)); }

static void check_closed_form(void)
{
    const lcm_backend_kind backends[] = {LCM_BACKEND_CPU, LCM_BACKEND_INTERP};
    const double scales[] = {0.5, 2.0, 1e-8, 0};
    for (int b = 0; b < 2; ++b)
        for (int k = 0; k < 4; ++k) {
            double s = scales[k];
            solved m = solve("tests/models/taste_logit.lua", NULL, "tests/models/taste_logit.params.lua", s, backends[b]);
            for (int g = 0; g < 2; ++g) {
                double v = lcm_solution_value(m.sol, 0, 0, g);
                double plain = fmax(u_work + group_bonus * g, u_rest);
                double want = s > 0 ? logit_v(s, g) : plain;
                CHECK_MSG(fabs(v - want) <= 1e-12, "backend %d scale %g group %d: V %.17g, closed form %.17g", b, s, g, v,
                          want);
                if (s == 0) CHECK_MSG(v == plain, "scale 0: V %.17g is not the plain max %.17g", v, plain);
                if (s > 0 && s < 1e-6) CHECK_MSG(v >= plain && v - plain <= 1e-8, "scale %g: V - max = %g", s, v - plain);
            }
            release(&m);
        }
    /* a scale that depends on the state: s (1 + group) */
    for (int b = 0; b < 2; ++b) {
        solved m = solve("tests/models/taste_logit.lua", "scale_by_group=true", "tests/models/taste_logit.params.lua", 0.5,
                         backends[b]);
        for (int g = 0; g < 2; ++g) {
            double v = lcm_solution_value(m.sol, 0, 0, g), want = logit_v(0.5 * (1 + g), g);
            CHECK_MSG(fabs(v - want) <= 1e-12, "backend %d, scale by group %d: V %.17g, closed form %.17g", b, g, v, want);
        }
        release(&m);
    }
}

/* CCP targets against the logistic formula, and simulated frequencies
 * against the CCPs; the panel the same on both backends and batch sizes. */
static void check_choices(void)
{
    const double s = 0.5;
    solved m = solve("tests/models/taste_logit.lua", NULL, "tests/models/taste_logit.params.lua", s, LCM_BACKEND_CPU);
    const int n = 20000;
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,group\n");
    for (int i = 0; i < n; ++i) base_sb_printf(&text, "choose,20,%s\n", i % 2 ? "b" : "a");
    lcm_initial *ic = NULL;
    lcm_err err = {0};
    if (sim_initial_parse_csv(core_model_ir(m.model), "test.csv", text.s, &ic, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    lcm_panel *p = simulate(&m, LCM_BACKEND_CPU, ic, 0, "ccp_work,ccp_rest");
    double *group = column(p, "group"), *choice = column(p, "choice"), *work = column(p, "ccp_work"),
           *rest = column(p, "ccp_rest"), *value = column(p, "value"), *effort = column(p, "effort");
    int worked[2] = {0, 0}, count[2] = {0, 0};
    for (lcm_index i = 0; i < lcm_panel_rows(p); ++i) {
        int g = (int)group[i];
        CHECK_MSG(fabs(work[i] - logit_p_work(s, g)) <= 1e-12 && fabs(work[i] + rest[i] - 1) <= 1e-12,
                  "row %lld: ccp_work %.17g, ccp_rest %.17g, logistic %.17g", (long long)i, work[i], rest[i],
                  logit_p_work(s, g));
        CHECK_MSG(fabs(value[i] - logit_v(s, g)) <= 1e-12, "row %lld: value %.17g is not the smoothed V", (long long)i,
                  value[i]);
        CHECK(effort[i] == 0.5); /* the best effort within the drawn choice */
        worked[g] += choice[i] == 0, ++count[g];
    }
    for (int g = 0; g < 2; ++g) {
        double f = (double)worked[g] / count[g], pr = logit_p_work(s, g), se = sqrt(pr * (1 - pr) / count[g]);
        printf("group %d: P(work) simulated %.4f, logit %.4f (%.2f standard errors)\n", g, f, pr, (f - pr) / se);
        CHECK_MSG(fabs(f - pr) <= 4.5 * se, "group %d: frequency %.4f against P %.4f (se %.4f)", g, f, pr, se);
    }
    lcm_panel *ip = simulate(&m, LCM_BACKEND_INTERP, ic, 0, "ccp_work,ccp_rest");
    CHECK_MSG(test_panel_diff(p, ip) == 0, "cpu and interpreter panels differ (%g)", test_panel_diff(p, ip));
    const lcm_index batches[] = {1, 7};
    for (int b = 0; b < 2; ++b) {
        lcm_panel *q = simulate(&m, LCM_BACKEND_CPU, ic, batches[b], NULL);
        CHECK_MSG(test_panel_diff(p, q) == 0, "batch size %lld gives another panel", (long long)batches[b]);
        lcm_panel_free(q);
    }
    free(group), free(choice), free(work), free(rest), free(value), free(effort);
    lcm_panel_free(ip);
    lcm_panel_free(p);
    lcm_initial_free(ic);
    base_sb_free(&text);
    release(&m);
}

/* Largest |a - b| over one regime's V in all periods. */
static double regime_diff(const solved *a, const solved *b, int r, double *lo)
{
    const ir_model *m = core_model_ir(a->model);
    double hi = 0;
    *lo = 0;
    for (int t = 0; t < m->nperiods; ++t) {
        lcm_index n;
        if (!lcm_solution_V(a->sol, t, r, &n)) continue;
        for (lcm_index i = 0; i < n; ++i) {
            double x = lcm_solution_value(a->sol, t, r, i), y = lcm_solution_value(b->sol, t, r, i);
            if (x == y) continue;
            hi = fmax(hi, x - y), *lo = fmin(*lo, x - y);
        }
    }
    return hi;
}

static int bitwise_equal(const solved *a, const solved *b)
{
    const ir_model *m = core_model_ir(a->model);
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            lcm_index n, n2;
            const double *x = lcm_solution_V(a->sol, t, r, &n), *y = lcm_solution_V(b->sol, t, r, &n2);
            if (!x != !y || n != n2 || (x && memcmp(x, y, (size_t)n * sizeof *x))) return 0;
        }
    return 1;
}

/* The mean over periods of the squared difference to the paper's table,
 * worst over wealth points 2.. (as reference_iskhakov measures). */
static double worst_mse(const solved *s, int r, const char *table)
{
    char *path = test_path(table);
    lcm_err err = {0};
    char *text = sys_read_file(path, NULL, &err);
    free(path);
    if (!text) return INFINITY;
    const ir_model *m = core_model_ir(s->model);
    int rows = m->nperiods - 1;
    double *mse = base_xcalloc(100, sizeof *mse), worst = 0;
    char *at = text;
    for (int t = 0; t < rows; ++t)
        for (int i = 0; i < 100; ++i) {
            double ref = strtod(at, &at);
            at += *at == ',' || *at == '\n';
            double d = lcm_solution_value(s->sol, t, r, i) - ref;
            mse[i] += d * d / rows;
        }
    for (int i = 2; i < 100; ++i) worst = fmax(worst, mse[i]);
    free(mse), free(text);
    return worst;
}

static void check_iskhakov(void)
{
    const char *lua = "models/iskhakov_2017.lua", *params = "models/iskhakov_2017.params.lua";
    solved plain = solve(lua, NULL, params, -1, LCM_BACKEND_CPU);
    const ir_model *m = core_model_ir(plain.model);
    int work = ir_find_regime(m, "working_life"), retired = ir_find_regime(m, "retirement");
    for (int b = 0; b < 2; ++b) {
        solved zero = solve(lua, "taste_shocks=true", params, 0, b ? LCM_BACKEND_INTERP : LCM_BACKEND_CPU);
        CHECK_MSG(bitwise_equal(&zero, &plain), "backend %d: scale 0 differs from the model without taste shocks", b);
        release(&zero);
    }
    const double lambdas[] = {0.01, 0.05};
    for (int k = 0; k < 2; ++k) {
        double lambda = lambdas[k], lo;
        solved cpu = solve(lua, "taste_shocks=true", params, lambda, LCM_BACKEND_CPU);
        solved interp = solve(lua, "taste_shocks=true", params, lambda, LCM_BACKEND_INTERP);
        double d = test_max_rel_diff(cpu.sol, interp.sol);
        CHECK_MSG(d <= 1e-12, "lambda %g: cpu and interpreter differ by %g", lambda, d);
        /* the excess of smoothed over plain V: at most lambda log 2 per
         * remaining choice, discounted (beta = 0.98 < 1: bounded by the count) */
        double hi = regime_diff(&cpu, &plain, work, &lo), bound = lambda * log(2) * (m->nperiods - 1);
        printf("lambda %g: working life V - plain V in [%g, %g] (bound %g)\n", lambda, lo, hi, bound);
        CHECK_MSG(lo >= 0 && hi <= bound && hi > 0, "lambda %g: V - plain V in [%g, %g]", lambda, lo, hi);
        CHECK_MSG(regime_diff(&cpu, &plain, retired, &lo) == 0 && lo == 0, "lambda %g: retirement changed", lambda);
        if (lambda == 0.01) {
            double w = worst_mse(&cpu, work, "tests/reference/iskhakov_2017/iskhakov_2017_five_periods__values_worker.csv");
            printf("lambda 0.01: worst per-point MSE against the lambda = 0 table %.5f\n", w);
            CHECK_MSG(w < 0.15, "lambda 0.01: MSE %.4f against the paper's table", w);
        }
        /* the simulated panel: the same on both backends */
        lcm_initial *ic = NULL;
        lcm_err err = {0};
        char *path = test_path("models/iskhakov_2017.initial.csv");
        if (lcm_initial_read(cpu.model, path, &ic, &err)) fprintf(stderr, "%s\n", err.msg), exit(1);
        free(path);
        lcm_panel *pc = simulate(&cpu, LCM_BACKEND_CPU, ic, 0, "all"), *pi = simulate(&cpu, LCM_BACKEND_INTERP, ic, 0, "all");
        CHECK_MSG(test_panel_diff(pc, pi) == 0, "lambda %g: cpu and interpreter panels differ", lambda);
        lcm_panel_free(pc), lcm_panel_free(pi);
        lcm_initial_free(ic);
        release(&cpu), release(&interp);
    }
    release(&plain);
}

int main(void)
{
    check_closed_form();
    check_choices();
    check_iskhakov();
    CHECK_DONE();
}
