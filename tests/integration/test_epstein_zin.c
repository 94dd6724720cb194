/* Epstein-Zin preferences (tests/models/epstein_zin.lua):
 * - with the risk aversion equal to the inverse EIS the model is expected
 *   utility: V(ez)^(1 - rho) / (1 - rho) = W(eu) to 1e-12;
 * - without risk (survival 1 then 0, income for sure) V does not depend on
 *   the risk aversion (exactly), while with risk it does;
 * - at risk aversion 20 (values near 1e20) and 50 (near 1e8, near 1e-7, and
 *   from 1e-12 (a bequest) to 3e-2 in each lottery), where v^(1 - alpha) leaves
 *   the range of double (checked), V is finite,
 *   the cpu backend equals the interpreter, and periods 2 and 1 equal the
 *   recursion computed here independently, naively in long double (whose
 *   exponent range holds v^(1 - alpha)) from the solution's next-period V;
 * - at risk aversion 1 +- 1e-10, V is within 1e-9 of the geometric limit;
 * - a simulation gives the same panel on both backends and batch sizes. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "initial.h"
#include "layout.h"
#include "testlib.h"

enum { NW = 21, NI = 2, ALIVE = 0, DEAD = 1 };
static const double STEP = 0.5; /* the wealth grid: 0, 0.5, ..., 10 */

typedef struct ez_params {
    double alpha, rho, beta, unit; /* unit scales income and the bequest (V is in its units) */
    double floor;                  /* the bequest's floor, in units: 1 unless set, and then no weight on wealth */
    double survival[3], stay[2];   /* stay[i]: P(next income = current income i) */
} ez_params;

static lcm_pvalue *list_of(const double *v, int n)
{
    lcm_pvalue *l = lcm_pv_list();
    for (int i = 0; i < n; ++i) lcm_pv_append(l, lcm_pv_num(v[i]));
    return l;
}

static lcm_pvalue *params_of(const ez_params *q, int ez)
{
    lcm_pvalue *p = lcm_pv_table();
    double income[2] = {0.5 * q->unit, 1.5 * q->unit}, survival[4] = {q->survival[0], q->survival[1], q->survival[2], 0};
    double row0[2] = {q->stay[0], 1 - q->stay[0]}, row1[2] = {1 - q->stay[1], q->stay[1]};
    lcm_pvalue *tr = lcm_pv_list();
    lcm_pv_append(tr, list_of(row0, 2)), lcm_pv_append(tr, list_of(row1, 2));
    lcm_pv_put(p, "income_level", list_of(income, 2));
    lcm_pv_put(p, "income_transition", tr);
    lcm_pv_put(p, "survival", list_of(survival, 4));
    lcm_pv_put(p, "discount_factor", lcm_pv_num(q->beta));
    lcm_pv_put(p, "rho", lcm_pv_num(q->rho));
    lcm_pv_put(p, "bequest_floor", lcm_pv_num((q->floor ? q->floor : 1) * q->unit));
    lcm_pv_put(p, "bequest_weight", lcm_pv_num(q->floor ? 0 : 1));
    if (ez) lcm_pv_put(p, "alpha", lcm_pv_num(q->alpha));
    return p;
}

static lcm_model *model_of(const char *variant)
{
    char def[32];
    snprintf(def, sizeof def, "variant=%s", variant);
    const char *defines[] = {def, NULL};
    lcm_model *m = NULL;
    lcm_err err = {0};
    CHECK_OK(test_generate("tests/models/epstein_zin.lua", defines, &m, &err));
    if (!m) exit(1);
    return m;
}

static lcm_solution *solve(const lcm_model *m, const ez_params *q, int ez, lcm_backend_kind backend)
{
    lcm_pvalue *p = params_of(q, ez);
    lcm_solver *s = NULL;
    lcm_solution *sol = NULL;
    lcm_solver_options o = {.backend = backend, .precision = 64};
    lcm_err err = {0};
    CHECK_OK(lcm_solver_new(m, &o, &s, &err));
    if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
    lcm_solver_free(s);
    lcm_pv_free(p);
    if (!sol) exit(1);
    return sol;
}

static double rel(double a, double b) { return a == b ? 0 : fabs(a - b) / fmax(fabs(a), fabs(b)); }

/* alpha = rho: V(ez) is W(eu) through W = V^(1 - rho) / (1 - rho), in every
 * period and regime, at every state. */
static void reduces_to_expected_utility(const lcm_model *ez, const lcm_model *eu, double rho)
{
    ez_params q = {.alpha = rho, .rho = rho, .beta = 0.95, .unit = 1, .survival = {0.9, 0.8, 0}, .stay = {0.8, 0.7}};
    lcm_solution *a = solve(ez, &q, 1, LCM_BACKEND_CPU), *b = solve(eu, &q, 0, LCM_BACKEND_CPU);
    double worst = 0;
    for (int t = 0; t < 4; ++t)
        for (int r = (t == 3 ? DEAD : ALIVE); r <= DEAD; ++r)
            for (lcm_index s = 0; s < lcm_model_states(ez, r); ++s) {
                double v = lcm_solution_value(a, t, r, s), w = lcm_solution_value(b, t, r, s);
                worst = fmax(worst, rel(v, pow((1 - rho) * w, 1 / (1 - rho))));
            }
    CHECK_MSG(worst <= 1e-12, "rho = alpha = %g: V(ez) and W(eu) differ by %.3g (relative)", rho, worst);
    lcm_solution_free(a), lcm_solution_free(b);
}

/* Without risk, V does not depend on the risk aversion; with risk it does. */
static void risk_aversion_needs_risk(const lcm_model *ez)
{
    ez_params q = {.alpha = 2, .rho = 0.5, .beta = 0.95, .unit = 1, .survival = {1, 1, 0}, .stay = {1, 1}};
    lcm_solution *a = solve(ez, &q, 1, LCM_BACKEND_CPU);
    q.alpha = 20;
    lcm_solution *b = solve(ez, &q, 1, LCM_BACKEND_CPU);
    CHECK_MSG(test_max_rel_diff(a, b) == 0, "deterministic: alpha 2 and 20 differ by %.3g", test_max_rel_diff(a, b));
    q.survival[0] = 0.9, q.stay[0] = 0.8;
    lcm_solution *c = solve(ez, &q, 1, LCM_BACKEND_CPU);
    q.alpha = 2;
    lcm_solution *d = solve(ez, &q, 1, LCM_BACKEND_CPU);
    CHECK_MSG(test_max_rel_diff(c, d) > 1e-3, "with risk, alpha 2 and 20 differ by only %.3g", test_max_rel_diff(c, d));
    lcm_solution_free(a), lcm_solution_free(b), lcm_solution_free(c), lcm_solution_free(d);
}

/* At risk aversion 1 the CE is the geometric mean exp(E[log V']), the limit
 * of the power mean: 1 +- 1e-10 are within 1e-9 of it (the log of a sum
 * 1e-10 away from 1, divided by 1e-10, would be off by 1e-6). */
static void geometric_limit(const lcm_model *ez)
{
    ez_params q = {.alpha = 1, .rho = 2, .beta = 0.95, .unit = 1, .survival = {0.9, 0.8, 0}, .stay = {0.8, 0.7}};
    lcm_solution *one = solve(ez, &q, 1, LCM_BACKEND_CPU);
    for (int k = -1; k <= 1; k += 2) {
        q.alpha = 1 + k * 1e-10;
        lcm_solution *near = solve(ez, &q, 1, LCM_BACKEND_CPU);
        CHECK_MSG(test_max_rel_diff(one, near) <= 1e-9, "alpha 1 and %.10f differ by %.3g", q.alpha,
                  test_max_rel_diff(one, near));
        lcm_solution_free(near);
    }
    lcm_solution_free(one);
}

/* ---- the recursion by hand, naively, in long double ------------------------ */
static long double H(const ez_params *q, long double c, long double ce)
{
    long double e = 1 - (long double)q->rho;
    return powl((1 - (long double)q->beta) * powl(c, e) + (long double)q->beta * powl(ce, e), 1 / e);
}

/* V of the alive regime at period t (income i, wealth index w) from the
 * solution's V at t + 1; *naive_fails when the same CE in double is 0 or not
 * finite for some choice (the case the anchored form exists for). */
static long double by_hand(const lcm_solution *sol, const ez_params *q, int t, int i, int w, int *naive_fails)
{
    long double best = -INFINITY, e = 1 - (long double)q->alpha;
    double income = (i ? 1.5 : 0.5) * q->unit;
    for (int s = 0; s < NW; ++s) {
        double c = w * STEP + income - s * STEP;
        if (!(c > 0)) continue;
        double pr[3] = {q->survival[t] * (i ? 1 - q->stay[1] : q->stay[0]),
                        q->survival[t] * (i ? q->stay[1] : 1 - q->stay[0]), 1 - q->survival[t]};
        double v[3] = {lcm_solution_value(sol, t + 1, ALIVE, 0 * NW + s), lcm_solution_value(sol, t + 1, ALIVE, 1 * NW + s),
                       lcm_solution_value(sol, t + 1, DEAD, s)};
        long double sum = 0;
        double naive = 0;
        for (int k = 0; k < 3; ++k)
            if (pr[k] != 0) sum += pr[k] * powl(v[k], e), naive += pr[k] * pow(v[k], (double)e);
        double naive_ce = pow(naive, 1 / (double)e);
        if (!isfinite(naive_ce) || naive_ce == 0) *naive_fails = 1;
        long double q_s = H(q, c, powl(sum, 1 / e));
        if (q_s > best) best = q_s;
    }
    return best;
}

static void high_risk_aversion(const lcm_model *ez, double alpha, double rho, double unit, double floor)
{
    ez_params q = {.alpha = alpha, .rho = rho, .beta = 0.95, .unit = unit, .floor = floor, .survival = {0.9, 0.8, 0},
                   .stay = {0.8, 0.7}};
    lcm_solution *a = solve(ez, &q, 1, LCM_BACKEND_CPU), *b = solve(ez, &q, 1, LCM_BACKEND_INTERP);
    double worst = 0;
    int finite = 1, naive_fails = 0;
    for (int t = 0; t < 3; ++t)
        for (lcm_index s = 0; s < NI * NW; ++s) finite &= isfinite(lcm_solution_value(a, t, ALIVE, s));
    for (int t = 1; t <= 2; ++t)
        for (int i = 0; i < NI; ++i)
            for (int w = 0; w < NW; ++w) {
                long double v = by_hand(a, &q, t, i, w, &naive_fails);
                worst = fmax(worst, rel(lcm_solution_value(a, t, ALIVE, i * NW + w), (double)v));
            }
    CHECK_MSG(finite, "alpha %g, unit %g, floor %g: V is not finite", alpha, unit, floor);
    CHECK_MSG(worst <= 1e-12, "alpha %g, unit %g, floor %g: V and the recursion by hand differ by %.3g", alpha, unit, floor, worst);
    CHECK_MSG(naive_fails, "alpha %g, unit %g, floor %g: the naive CE in double never fails here (the test is too easy)",
              alpha, unit, floor);
    CHECK_MSG(test_max_rel_diff(a, b) <= 1e-12, "alpha %g, unit %g, floor %g: cpu and interp differ by %.3g", alpha, unit,
              floor, test_max_rel_diff(a, b));
    lcm_solution_free(a), lcm_solution_free(b);
}

/* The simulation steps through the same CE: cpu and interp panels agree, for
 * one batch and for batches of 7 subjects. */
static void simulation(const lcm_model *ez)
{
    ez_params q = {.alpha = 20, .rho = 2, .beta = 0.95, .unit = 1, .survival = {0.9, 0.8, 0}, .stay = {0.8, 0.7}};
    lcm_solution *sol = solve(ez, &q, 1, LCM_BACKEND_CPU);
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,income,wealth\n");
    for (int k = 0; k < 40; ++k) base_sb_printf(&text, "alive,0,%s,%g\n", k % 2 ? "high" : "low", 0.37 * k);
    lcm_initial *ic = NULL;
    lcm_err err = {0};
    CHECK_OK(sim_initial_parse_csv(core_model_ir(ez), "ez.csv", text.s, &ic, &err));
    lcm_panel *p[3] = {NULL, NULL, NULL};
    lcm_backend_kind kinds[3] = {LCM_BACKEND_CPU, LCM_BACKEND_INTERP, LCM_BACKEND_CPU};
    for (int k = 0; k < 3 && ic; ++k) {
        lcm_solver_options o = {.backend = kinds[k], .precision = 64};
        lcm_sim_options so = {.seed = 7, .subject_batch_size = k == 2 ? 7 : 0};
        lcm_solver *s = NULL;
        CHECK_OK(lcm_solver_new(ez, &o, &s, &err));
        if (s) CHECK_OK(lcm_simulate(s, sol, ic, &so, &p[k], &err));
        lcm_solver_free(s);
    }
    if (p[0] && p[1] && p[2]) {
        CHECK(lcm_panel_rows(p[0]) > 40);
        CHECK_MSG(test_panel_diff(p[0], p[1]) <= 1e-12, "cpu and interp panels differ by %.3g", test_panel_diff(p[0], p[1]));
        CHECK_MSG(test_panel_diff(p[0], p[2]) == 0, "batches of 7 change the panel by %.3g", test_panel_diff(p[0], p[2]));
    }
    for (int k = 0; k < 3; ++k) lcm_panel_free(p[k]);
    lcm_initial_free(ic);
    base_sb_free(&text);
    lcm_solution_free(sol);
}

/* A subject whose AR(1) income lies beyond the process's outer node: the
 * blended row would have negative weights, no lottery, so an Epstein-Zin
 * regime takes the outer node's row (prelude.h, lcm_lottery_t).  Each
 * alive row's certainty equivalent, recovered from V and consumption
 * (V^(1-rho) = (1-beta) c^(1-rho) + beta CE^(1-rho)), lies between the
 * least and the largest outcome of its lottery (V of next period at each
 * income node and the chosen saving, and the bequest), as the CE of a
 * lottery must; with the extrapolated row it lay far outside (values of
 * 42,108 where V is 3 to 6: issue 41).  cpu and interp agree. */
static void lottery_beyond_the_nodes(void)
{
    const char *defines[] = {"variant=ez", "income=ar1", NULL};
    lcm_model *ez = NULL;
    lcm_err err = {0};
    CHECK_OK(test_generate("tests/models/epstein_zin.lua", defines, &ez, &err));
    if (!ez) return;
    const double beta = 0.95, rho = 2, alpha = 20, survival[4] = {0.9, 0.8, 0, 0};
    lcm_pvalue *p = lcm_pv_table();
    lcm_pv_put(p, "survival", list_of(survival, 4));
    lcm_pv_put(p, "discount_factor", lcm_pv_num(beta));
    lcm_pvalue *alive_p = lcm_pv_table(), *h = lcm_pv_table(); /* rho is also the process's (fixed): H's alone */
    lcm_pv_put(h, "rho", lcm_pv_num(rho));
    lcm_pv_put(alive_p, "H", h);
    lcm_pv_put(p, "alive", alive_p);
    lcm_pv_put(p, "alpha", lcm_pv_num(alpha));
    lcm_pv_put(p, "bequest_floor", lcm_pv_num(1));
    lcm_pv_put(p, "bequest_weight", lcm_pv_num(1));
    lcm_solution *sol = NULL;
    lcm_panel *pan[2] = {NULL, NULL};
    lcm_initial *ic = NULL;
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,income,wealth\n"); /* outer nodes at +-0.69 */
    const double income[] = {-3, -1.2, 0.1, 1.2, 3};
    for (int k = 0; k < 20; ++k) base_sb_printf(&text, "alive,0,%g,%g\n", income[k % 5], 0.45 * k);
    CHECK_OK(sim_initial_parse_csv(core_model_ir(ez), "ar1.csv", text.s, &ic, &err));
    for (int k = 0; k < 2 && ic; ++k) {
        lcm_solver_options o = {.backend = k ? LCM_BACKEND_INTERP : LCM_BACKEND_CPU, .precision = 64};
        lcm_sim_options so = {.seed = 3, .targets = "consumption"};
        lcm_solver *sv = NULL;
        CHECK_OK(lcm_solver_new(ez, &o, &sv, &err));
        if (sv && !k) CHECK_OK(lcm_solve(sv, p, &sol, &err));
        if (sv && sol) CHECK_OK(lcm_simulate(sv, sol, ic, &so, &pan[k], &err));
        lcm_solver_free(sv);
    }
    if (pan[0] && pan[1]) {
        CHECK_MSG(test_panel_diff(pan[0], pan[1]) <= 1e-12, "cpu and interp differ by %.3g", test_panel_diff(pan[0], pan[1]));
        const ir_model *m = core_model_ir(ez);
        int alive = 0, is = m->regimes[0].states[0].grid.n == 3 ? 0 : 1; /* the income axis */
        lcm_index n = lcm_panel_rows(pan[0]);
        long long stride[2];
        ir_strides(&m->regimes[alive], stride);
        double *col[5];
        const char *names[] = {"period", "regime", "value", "consumption", "saving"};
        for (int c = 0; c < 5; ++c) {
            col[c] = calloc((size_t)n + 1, sizeof **col);
            CHECK_OK(lcm_panel_column(pan[0], names[c], col[c], &err));
        }
        int checked = 0, outside = 0;
        for (lcm_index i = 0; i < n; ++i) {
            int t = (int)col[0][i];
            if ((int)col[1][i] != alive || t + 1 >= 3 || !(col[2][i] > 0)) continue;
            double V = col[2][i], c = col[3][i], saving = col[4][i];
            double ce = pow((pow(V, 1 - rho) - (1 - beta) * pow(c, 1 - rho)) / beta, 1 / (1 - rho));
            int w = (int)lround(saving / STEP);
            double lo = 1 + saving, hi = 1 + saving; /* the bequest */
            for (int k = 0; k < 3 && survival[t] > 0; ++k) {
                double v = lcm_solution_value(sol, t + 1, alive, k * stride[is] + w * stride[1 - is]);
                lo = fmin(lo, v), hi = fmax(hi, v);
            }
            ++checked;
            outside += !(ce >= lo * (1 - 1e-9) && ce <= hi * (1 + 1e-9));
        }
        printf("lottery beyond the nodes: %d rows, %d with a certainty equivalent outside its lottery's outcomes\n",
               checked, outside);
        CHECK(checked >= 20 && outside == 0);
        for (int c = 0; c < 5; ++c) free(col[c]);
    }
    lcm_panel_free(pan[0]), lcm_panel_free(pan[1]);
    lcm_initial_free(ic);
    base_sb_free(&text);
    lcm_solution_free(sol);
    lcm_pv_free(p);
    lcm_model_free(ez);
}

int main(void)
{
    lcm_model *ez = model_of("ez"), *eu = model_of("eu");
    reduces_to_expected_utility(ez, eu, 2);
    reduces_to_expected_utility(ez, eu, 0.5);
    risk_aversion_needs_risk(ez);
    geometric_limit(ez);
    high_risk_aversion(ez, 20, 2, 1e20, 0);
    high_risk_aversion(ez, 50, 2, 1e8, 0);
    high_risk_aversion(ez, 50, 2, 1e-7, 0);
    /* a bequest of 1e-12 beside values of 1e-3 to 3e-2 in each lottery:
     * anchored anywhere but at the least value, a term exp(49 log(1e9)) overflows */
    high_risk_aversion(ez, 50, 0.5, 1, 1e-12);
    simulation(ez);
    lottery_beyond_the_nodes();
    lcm_model_free(ez), lcm_model_free(eu);
    CHECK_DONE();
}
