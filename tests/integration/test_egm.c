/* The endogenous grid method (solver = lcm.egm) against closed forms, grid
 * search and itself:
 *   - cake eating with log utility (consumption exact) and with CRRA risk
 *     aversion 2 (consumption converging), and a bequest of what is left
 *     (tests/models/egm_cake.lua): V against the closed form at every grid
 *     point whose optimal path stays on the grid, converging at the rate of
 *     linear interpolation (about 2) as the grid is refined; the simulated
 *     consumption at wealth between the grid points against the closed-form
 *     policy; float32 against float64;
 *   - precautionary savings (an AR(1) income process): EGM and grid search
 *     against a solution on a grid eight times finer: both at grid
 *     accuracy, EGM the closer on average;
 *   - Iskhakov et al. (2017) by DC-EGM: a subject who starts on a grid
 *     point has the value of the solution there; taste shocks of a tiny
 *     scale give the solution without them; a solution written to a file
 *     and read back simulates the same panel;
 *   - its choice probabilities with taste shocks (the ccp targets, from the
 *     simulation's own choice-specific values): they sum to 1, the
 *     simulated choices follow them, they agree with grid search's at the
 *     same states to grid accuracy, and neither the batches nor a
 *     simulation into an earlier panel change them;
 *   - nested EGM (tests/models/negm_cake.lua: a durable chosen on its grid
 *     beside consumption by EGM) against grid search as its consumption
 *     grid is refined, solved and simulated.
 * The published tables of Iskhakov et al. are test_iskhakov.c's. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "files.h"
#include "grid.h"
#include "testlib.h"

static lcm_solution *solve(const char *lua, const char *const *defines, const char *params, int precision,
                           lcm_model **model)
{
    lcm_err err = {0};
    lcm_solution *sol = NULL;
    *model = NULL;
    CHECK_OK(test_solve(lua, defines, params, LCM_BACKEND_CPU, precision, model, &sol, &err));
    return sol;
}

/* ---- cake eating ------------------------------------------------------------ */
enum { CAKE_T = 5 };
static const double BETA = 0.95, GROSS = 1.04; /* tests/models/egm_cake.params.lua */

/* Eating the share 1 / B_t of wealth w, V_t(w) = B_t^s u(w) with CRRA
 * utility u of risk aversion s (tests/models/egm_cake.lua); at s = 1,
 * V_t(w) = B_t log w + A_t.  With log utility counted a_t times at age t
 * (-D weights), the share is a_t / B_t with B_t = a_t + beta B_{t+1}. */
typedef struct {
    double s, a[CAKE_T], B[CAKE_T], A[CAKE_T];
} cake_form;

/* weights: a_t, or NULL for 1 at every age (any s; weights need s = 1) */
static cake_form cake_closed_form(double s, const double *weights)
{
    cake_form f = {.s = s};
    for (int t = 0; t < CAKE_T; ++t) f.a[t] = weights ? weights[t] : 1;
    f.B[CAKE_T - 1] = 1, f.A[CAKE_T - 1] = 0;
    for (int t = CAKE_T - 2; t >= 0; --t) {
        f.B[t] = f.a[t] + pow(BETA * pow(GROSS, 1 - s), 1 / s) * f.B[t + 1];
        f.A[t] = f.a[t] * log(f.a[t] / f.B[t]) +
                 BETA * (f.B[t + 1] * log(GROSS * (f.B[t] - f.a[t]) / f.B[t]) + f.A[t + 1]);
    }
    return f;
}

static double cake_value(const cake_form *f, int t, double w)
{
    if (f->s == 1) return f->B[t] * log(w) + f->A[t];
    return pow(f->B[t], f->s) * pow(w, 1 - f->s) / (1 - f->s);
}

/* Whether the optimal path from wealth w at t stays at 1 or more (on the
 * grid [1, 100]: no extrapolation of V). */
static int stays_on_grid(const cake_form *f, int t, double w)
{
    for (int s = t; s < CAKE_T - 1; ++s)
        if ((w = GROSS * w * (f->B[s] - f->a[s]) / f->B[s]) < 1) return 0;
    return 1;
}

/* The largest |V - closed form| over the eating periods' grid points. */
static double cake_error(const lcm_model *model, const lcm_solution *sol, const cake_form *f)
{
    double worst = 0;
    const ir_model *m = core_model_ir(model);
    int r = ir_find_regime(m, "eating");
    const ir_grid *g = &m->regimes[r].states[0].grid;
    double *w = calloc((size_t)g->n, sizeof *w);
    ir_grid_points(g, w);
    for (int t = 0; t < CAKE_T - 1; ++t)
        for (int i = 0; i < g->n; ++i)
            if (stays_on_grid(f, t, w[i]))
                worst = fmax(worst, fabs(lcm_solution_value(sol, t, r, i) - cake_value(f, t, w[i])));
    free(w);
    return worst;
}

/* The largest relative |c - a_t w / B_t| of subjects simulated from wealth
 * between the grid points (where their optimal paths stay on the grid). */
static double cake_policy_error(const lcm_model *model, const lcm_solution *sol, const char *initial,
                                const cake_form *f)
{
    lcm_err err = {0};
    lcm_initial *ic = NULL;
    lcm_solver *sv = NULL;
    lcm_panel *p = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = lcm_solution_precision(sol)};
    double worst = INFINITY;
    CHECK_OK(lcm_initial_read(model, initial, &ic, &err));
    if (ic) CHECK_OK(lcm_solver_new(model, &o, &sv, &err));
    if (sv) CHECK_OK(lcm_simulate(sv, sol, ic, NULL, &p, &err));
    if (p) {
        lcm_index n = lcm_panel_rows(p);
        double *t = calloc((size_t)n, sizeof *t), *w = calloc((size_t)n, sizeof *w), *c = calloc((size_t)n, sizeof *c);
        CHECK_OK(lcm_panel_column(p, "period", t, &err));
        CHECK_OK(lcm_panel_column(p, "wealth", w, &err));
        CHECK_OK(lcm_panel_column(p, "consumption", c, &err));
        worst = 0;
        for (lcm_index i = 0; i < n; ++i)
            if ((int)t[i] < CAKE_T - 1 && stays_on_grid(f, (int)t[i], w[i]))
                worst = fmax(worst, fabs(c[i] - f->a[(int)t[i]] * w[i] / f->B[(int)t[i]]) / c[i]);
        free(t), free(w), free(c);
    }
    lcm_panel_free(p);
    lcm_solver_free(sv);
    lcm_initial_free(ic);
    return worst;
}

static lcm_solution *solve_cake(int points, double s, int precision, lcm_model **model)
{
    char def[64], ra[64];
    snprintf(def, sizeof def, "wealth_points=%d", points);
    snprintf(ra, sizeof ra, "risk_aversion=%g", s);
    const char *defines[] = {def, ra, NULL};
    return solve("tests/models/egm_cake.lua", defines, "tests/models/egm_cake.params.lua", precision, model);
}

/* V converges at linear interpolation's rate as the grids are refined.
 * Marginal values are interpolated in 1 / M (prelude.h): under log utility
 * that is the policy itself, linear in wealth here, so consumption is exact
 * (`exact`); under CRRA it is c^s, and consumption converges as V does. */
static void cake_refined(double s, int exact, const char *initial)
{
    const int sizes[] = {100, 200, 400, 800, 1600};
    double v_err[5], c_err[5];
    cake_form f = cake_closed_form(s, NULL);
    printf("cake eating by EGM, risk aversion %g, as the grids are refined: largest |V - closed form| at the grid "
           "points, and the largest relative error of simulated consumption between them\n", s);
    for (int k = 0; k < 5; ++k) {
        lcm_model *model;
        lcm_solution *sol = solve_cake(sizes[k], s, 64, &model);
        v_err[k] = sol ? cake_error(model, sol, &f) : INFINITY;
        c_err[k] = sol ? cake_policy_error(model, sol, initial, &f) : INFINITY;
        printf("  %5d wealth points: V %.3e, consumption %.3e", sizes[k], v_err[k], c_err[k]);
        if (exact) CHECK_MSG(c_err[k] < 1e-13, "%d points: consumption off by %.3e", sizes[k], c_err[k]);
        if (k > 0) {
            double rv = log2(v_err[k - 1] / v_err[k]), rc = log2(c_err[k - 1] / c_err[k]);
            printf("  (rates %.2f, %.2f)", rv, rc);
            CHECK_MSG(rv > 1.6, "V's error falls like h^%.2f from %d to %d points; linear interpolation gives h^2", rv,
                      sizes[k - 1], sizes[k]);
            if (!exact)
                CHECK_MSG(rc > 1.6, "consumption's error falls like h^%.2f from %d to %d points", rc, sizes[k - 1],
                          sizes[k]);
        }
        printf("\n");
        lcm_solution_free(sol);
        lcm_model_free(model);
    }
    CHECK_MSG(v_err[4] < 2e-3 && c_err[4] < 1e-4, "1600 points: errors %.3e, %.3e", v_err[4], c_err[4]);
}

static void cake(void)
{
    lcm_err err = {0};
    char *dir = test_tmpdir("egm-cake"), *initial = base_path_join(dir, "initial.csv");
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,wealth\n"); /* wealth between the grid points */
    for (int i = 0; i < 40; ++i) base_sb_printf(&text, "eating,0,%.6f\n", 20.0 + 1.7371 * i);
    CHECK_OK(sys_write_file_atomic(initial, text.s, text.len, &err));
    base_sb_free(&text);
    cake_refined(1, 1, initial);
    cake_refined(2, 0, initial);

    /* float32: the same to float32's resolution of V, its policy as close */
    cake_form f = cake_closed_form(1, NULL);
    lcm_model *m64, *m32;
    lcm_solution *s64 = solve_cake(400, 1, 64, &m64), *s32 = solve_cake(400, 1, 32, &m32);
    if (s64 && s32) {
        double d = test_max_rel_diff(s32, s64), c = cake_policy_error(m32, s32, initial, &f);
        printf("cake eating by EGM, float32 against float64: V %.2e; float32's consumption %.3e\n", d, c);
        CHECK(d < 1e-4 && c < 1e-5);
    }
    lcm_solution_free(s64), lcm_solution_free(s32);
    lcm_model_free(m64), lcm_model_free(m32);

    /* A utility that changes with age (lcm.by_age: each age's function has
     * its own marginal utility, inverted per age), eating counted twice
     * from age 2: V and the simulated consumption against the closed form,
     * and the same V as the utility written as one lcm.where on age. */
    const double weights[CAKE_T] = {1, 1, 2, 2, 1};
    cake_form fw = cake_closed_form(1, weights);
    const char *by_age[] = {"wealth_points=400", "weights=by_age", NULL};
    const char *where[] = {"wealth_points=400", "weights=where", NULL};
    lcm_model *mb = NULL, *mw = NULL;
    lcm_solution *sb = solve("tests/models/egm_cake.lua", by_age, "tests/models/egm_cake.params.lua", 64, &mb);
    lcm_solution *sw = solve("tests/models/egm_cake.lua", where, "tests/models/egm_cake.params.lua", 64, &mw);
    if (sb && sw) {
        double v = cake_error(mb, sb, &fw), c = cake_policy_error(mb, sb, initial, &fw), d = test_max_rel_diff(sb, sw);
        printf("cake eating by EGM with a utility by age: V %.3e, consumption %.3e from the closed form; "
               "lcm.by_age against lcm.where: %.1e\n", v, c, d);
        CHECK_MSG(v < 2e-2 && c < 1e-13, "V off by %.3e, consumption by %.3e", v, c);
        CHECK_MSG(d == 0, "lcm.by_age and lcm.where differ by %.3e", d);
        /* the weights do change the solution: not the unweighted one */
        CHECK_MSG(cake_error(mb, sb, &f) > 1, "V is the unweighted cake's");
    }
    lcm_solution_free(sb), lcm_solution_free(sw);
    lcm_model_free(mb), lcm_model_free(mw);
    free(initial), free(dir);
}

/* ---- precautionary savings: EGM and grid search at grid accuracy ---------- */
/* V of `coarse` at its grid points against `fine` interpolated linearly in
 * wealth (income has the same nodes): the largest and the mean |difference|. */
static void against_fine(const lcm_model *mc, const lcm_solution *coarse, const lcm_model *mf, const lcm_solution *fine,
                         double *worst, double *mean)
{
    const ir_model *m = core_model_ir(mc), *M = core_model_ir(mf);
    int r = ir_find_regime(m, "alive");
    const ir_grid *gw = &m->regimes[r].states[1].grid, *Gw = &M->regimes[r].states[1].grid;
    int ny = m->regimes[r].states[0].grid.n, n = gw->n, N = Gw->n;
    double *w = calloc((size_t)n, sizeof *w), *W = calloc((size_t)N, sizeof *W);
    ir_grid_points(gw, w), ir_grid_points(Gw, W);
    double sum = 0;
    long count = 0;
    *worst = 0;
    for (int t = 0; t < m->nperiods; ++t) {
        if (!m->regimes[r].active[t]) continue;
        for (int y = 0; y < ny; ++y)
            for (int i = 0; i < n; ++i) {
                int k = 0;
                while (k + 2 < N && W[k + 1] <= w[i]) ++k;
                double f = (w[i] - W[k]) / (W[k + 1] - W[k]);
                double ref = (1 - f) * lcm_solution_value(fine, t, r, (lcm_index)y * N + k) +
                             f * lcm_solution_value(fine, t, r, (lcm_index)y * N + k + 1);
                double d = fabs(lcm_solution_value(coarse, t, r, (lcm_index)y * n + i) - ref);
                *worst = fmax(*worst, d), sum += d, ++count;
            }
    }
    *mean = sum / (double)count;
    free(w), free(W);
}

static void precautionary_savings(void)
{
    const char *params = "models/precautionary_savings.params.lua";
    const char *egm[] = {"solver=egm", "wealth_points=200", "savings_points=200", NULL};
    const char *grid[] = {"wealth_points=200", "consumption_points=2000", "consumption_stop=20", NULL};
    const char *fine[] = {"solver=egm", "wealth_points=1593", "savings_points=1600", NULL};
    lcm_model *me, *mg, *mf;
    lcm_solution *se = solve("models/precautionary_savings.lua", egm, params, 64, &me);
    lcm_solution *sg = solve("models/precautionary_savings.lua", grid, params, 64, &mg);
    lcm_solution *sf = solve("models/precautionary_savings.lua", fine, params, 64, &mf);
    if (se && sg && sf) {
        double we, ae, wg, ag;
        against_fine(me, se, mf, sf, &we, &ae);
        against_fine(mg, sg, mf, sf, &wg, &ag);
        printf("precautionary savings, 200 wealth points, against EGM on 1593: EGM (200 savings points) largest "
               "%.2e, mean %.2e; grid search (2000 consumption points) largest %.2e, mean %.2e\n", we, ae, wg, ag);
        CHECK_MSG(we < 0.05 && wg < 0.05, "both at grid accuracy");
        CHECK_MSG(ae < ag, "EGM closer on average (%.2e) than grid search (%.2e)", ae, ag);
        double d = test_max_rel_diff(se, sg);
        printf("precautionary savings: EGM against grid search, largest relative difference %.2e\n", d);
    }
    lcm_solution_free(se), lcm_solution_free(sg), lcm_solution_free(sf);
    lcm_model_free(me), lcm_model_free(mg), lcm_model_free(mf);
}

/* ---- DC-EGM: simulation, taste shocks, files ----------------------------------- */
static void iskhakov(void)
{
    lcm_err err = {0};
    const char *defines[] = {"solver=egm", "wealth_points=400", "savings_points=800", NULL};
    lcm_model *model;
    lcm_solution *sol = solve("models/iskhakov_2017.lua", defines, "models/iskhakov_2017.params.lua", 64, &model);
    if (!sol) return;
    const ir_model *m = core_model_ir(model);
    int work = ir_find_regime(m, "working_life"), ret = ir_find_regime(m, "retirement");
    /* subjects on grid points of both regimes at age 40 */
    char *dir = test_tmpdir("egm-iskhakov"), *csv = base_path_join(dir, "initial.csv");
    double *x = calloc(400, sizeof *x);
    ir_grid_points(&m->regimes[work].states[0].grid, x);
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,wealth\n");
    int starts = 0; /* from wealth 21 on: below, the optimal paths leave the grid (V extrapolated) */
    for (int i = 20; i < 400; i += 12, starts += 2)
        base_sb_printf(&text, "working_life,40,%.17g\nretirement,40,%.17g\n", x[i], x[i]);
    CHECK_OK(sys_write_file_atomic(csv, text.s, text.len, &err));
    lcm_initial *ic = NULL;
    lcm_solver *sv = NULL;
    lcm_panel *p = NULL, *again = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    CHECK_OK(lcm_initial_read(model, csv, &ic, &err));
    if (ic) CHECK_OK(lcm_solver_new(model, &o, &sv, &err));
    if (sv) CHECK_OK(lcm_simulate(sv, sol, ic, NULL, &p, &err));
    if (p) {
        lcm_index n = lcm_panel_rows(p);
        double *t = calloc((size_t)n, sizeof *t), *g = calloc((size_t)n, sizeof *g), *v = calloc((size_t)n, sizeof *v),
               *w = calloc((size_t)n, sizeof *w);
        CHECK_OK(lcm_panel_column(p, "period", t, &err));
        CHECK_OK(lcm_panel_column(p, "regime", g, &err));
        CHECK_OK(lcm_panel_column(p, "value", v, &err));
        CHECK_OK(lcm_panel_column(p, "wealth", w, &err));
        int checked = 0;
        for (lcm_index i = 0; i < n; ++i) {
            if (t[i] != 0) continue;
            int k = 0;
            while (k < 400 && x[k] != w[i]) ++k;
            CHECK_MSG(k < 400, "row %lld starts on a grid point", (long long)i);
            if (k == 400) continue;
            double sv_v = lcm_solution_value(sol, 0, (int)g[i], k);
            CHECK_MSG(v[i] == sv_v, "a subject at wealth %.6g in regime %d: value %.17g, the solution %.17g", w[i],
                      (int)g[i], v[i], sv_v);
            ++checked;
        }
        printf("DC-EGM: %d subjects starting on grid points have the solution's value there, to the bit\n", checked);
        CHECK(checked == starts);
        free(t), free(g), free(v), free(w);
    }
    /* a solution written to HDF5 (with its marginal values) and read back simulates the same panel */
    char *h5 = base_path_join(dir, "solution.h5");
    lcm_solution *back = NULL;
    CHECK_OK(lcm_solution_write_h5(sol, h5, &err));
    CHECK_OK(lcm_solution_read_h5(model, h5, &back, &err));
    if (back && sv && ic) CHECK_OK(lcm_simulate(sv, back, ic, NULL, &again, &err));
    if (p && again) {
        double d = test_panel_diff(p, again);
        printf("DC-EGM: the panel from the solution read back differs by %.1e\n", d);
        CHECK(d == 0);
    }
    /* taste shocks of scale 1e-9 give the solution without them */
    const char *taste[] = {"solver=egm", "wealth_points=400", "savings_points=800", "taste_shocks=true", NULL};
    lcm_pvalue *params = NULL;
    CHECK_OK(test_params("models/iskhakov_2017.params.lua", &params, &err));
    if (params) CHECK_OK(lcm_pv_set_path(params, "taste_shock_scale", lcm_pv_num(1e-9), &err));
    lcm_model *mt = NULL;
    lcm_solver *st = NULL;
    lcm_solution *tsol = NULL;
    CHECK_OK(test_generate("models/iskhakov_2017.lua", taste, &mt, &err));
    if (mt) CHECK_OK(lcm_solver_new(mt, &o, &st, &err));
    if (st && params) CHECK_OK(lcm_solve(st, params, &tsol, &err));
    if (tsol) {
        double worst = 0;
        for (int tt = 0; tt < m->nperiods; ++tt)
            for (int r = 0; r < m->nregimes; ++r)
                for (lcm_index i = 0; m->regimes[r].active[tt] && i < (r == ret || r == work ? 400 : 1); ++i) {
                    double a = lcm_solution_value(tsol, tt, r, i), b = lcm_solution_value(sol, tt, r, i);
                    if (isfinite(a) || isfinite(b)) worst = fmax(worst, fabs(a - b));
                }
        printf("DC-EGM with taste shocks of scale 1e-9 against none: largest |difference| %.2e\n", worst);
        CHECK(worst < 1e-6);
    }
    lcm_solution_free(tsol);
    lcm_solver_free(st);
    lcm_model_free(mt);
    lcm_pv_free(params);
    lcm_panel_free(p), lcm_panel_free(again);
    lcm_solution_free(back);
    lcm_solver_free(sv);
    lcm_initial_free(ic);
    base_sb_free(&text);
    free(csv), free(h5), free(dir), free(x);
    lcm_solution_free(sol);
    lcm_model_free(model);
}

/* ---- DC-EGM: choice probabilities ------------------------------------------- */
/* A panel's column by name (caller frees), or NULL. */
static double *column(const lcm_panel *p, const char *name)
{
    lcm_err err = {0};
    double *c = calloc((size_t)lcm_panel_rows(p) + 1, sizeof *c);
    if (lcm_panel_column(p, name, c, &err)) {
        CHECK_MSG(0, "column %s: %s", name, err.msg);
        free(c);
        return NULL;
    }
    return c;
}

/* The panel of `defines` solved and simulated from `initial` with the ccp
 * targets, on the cpu backend (*model: its model, freed after the panel);
 * with `first` (not NULL) a simulation without targets first, into whose
 * panel this one goes (lcm_simulate_again), and *first another like it. */
static lcm_panel *ccp_panel(const char *const *defines, const char *initial, lcm_index batch, lcm_panel **first,
                            lcm_model **model)
{
    lcm_err err = {0};
    lcm_solution *sol = NULL;
    lcm_initial *ic = NULL;
    lcm_solver *sv = NULL;
    lcm_panel *p = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    lcm_sim_options so = {.seed = 7, .targets = "ccp_work,ccp_retire", .subject_batch_size = batch};
    CHECK_OK(test_solve("models/iskhakov_2017.lua", defines, "models/iskhakov_2017_taste_shocks.params.lua",
                        LCM_BACKEND_CPU, 64, model, &sol, &err));
    if (sol) CHECK_OK(lcm_initial_read(*model, initial, &ic, &err));
    if (ic) CHECK_OK(lcm_solver_new(*model, &o, &sv, &err));
    if (sv && first) {
        lcm_sim_options plain = so;
        plain.targets = NULL;
        CHECK_OK(lcm_simulate(sv, sol, ic, &plain, &p, &err));
        *first = NULL;
        if (p) { /* what the simulation with targets must repeat: the plain panel's columns, kept */
            lcm_panel *copy = NULL;
            CHECK_OK(lcm_simulate(sv, sol, ic, &plain, &copy, &err));
            *first = copy;
        }
        if (p) CHECK_OK(lcm_simulate_again(sv, sol, ic, &so, &p, &err));
    } else if (sv) CHECK_OK(lcm_simulate(sv, sol, ic, &so, &p, &err));
    lcm_solver_free(sv);
    lcm_initial_free(ic);
    lcm_solution_free(sol);
    return p;
}

static void egm_choice_probabilities(void)
{
    lcm_err err = {0};
    char *dir = test_tmpdir("egm-ccp"), *initial = base_path_join(dir, "initial.csv");
    char *given = test_path("models/iskhakov_2017.initial.csv");
    size_t len = 0;
    char *rows = sys_read_file(given, &len, &err);
    lcm_sb text;
    base_sb_init(&text);
    if (rows) { /* its 1,000 subjects, ten times over */
        const char *body = strchr(rows, '\n') + 1;
        base_sb_putn(&text, rows, (size_t)(body - rows));
        for (int k = 0; k < 10; ++k) base_sb_puts(&text, body);
    }
    CHECK_OK(sys_write_file_atomic(initial, text.s, text.len, &err));
    const char *egm[] = {"solver=egm", "taste_shocks=true", NULL};
    lcm_model *models[4] = {NULL, NULL, NULL, NULL};
    lcm_panel *plain = NULL, *p = ccp_panel(egm, initial, 0, &plain, &models[0]);
    lcm_panel *batched = ccp_panel(egm, initial, 777, NULL, &models[1]);
    double *work = p ? column(p, "ccp_work") : NULL, *retire = p ? column(p, "ccp_retire") : NULL;
    double *regime = p ? column(p, "regime") : NULL, *labor = p ? column(p, "labor_supply") : NULL;
    if (work && retire && regime && labor) {
        /* a working-life row (regime 0) has both, summing to 1; a retired one neither */
        double worst = 0, sum = 0, var = 0;
        long rows_working = 0, nan_retired = 0, retired = 0;
        for (lcm_index i = 0; i < lcm_panel_rows(p); ++i) {
            if (regime[i] != 0) {
                retired++, nan_retired += isnan(work[i]) && isnan(retire[i]);
                continue;
            }
            ++rows_working;
            worst = fmax(worst, fabs(work[i] + retire[i] - 1));
            CHECK_MSG(work[i] >= 0 && work[i] <= 1, "row %lld: ccp_work %g", (long long)i, work[i]);
            sum += (labor[i] == 1) - retire[i]; /* labor_supply 1: retire */
            var += retire[i] * (1 - retire[i]);
        }
        double z = sum / sqrt(var);
        printf("DC-EGM choice probabilities: %ld working rows, |ccp_work + ccp_retire - 1| <= %.1e; the simulated "
               "retirements against them: z = %.2f\n", rows_working, worst, z);
        CHECK(rows_working > 10000 && worst < 1e-12 && nan_retired == retired);
        CHECK_MSG(fabs(z) < 4, "the choices drawn follow the probabilities (z = %.2f)", z);
    }
    if (p && batched) {
        double *b = column(batched, "ccp_retire");
        int same = b && retire && lcm_panel_rows(p) == lcm_panel_rows(batched);
        for (lcm_index i = 0; same && i < lcm_panel_rows(p); ++i)
            same = b[i] == retire[i] || (isnan(b[i]) && isnan(retire[i]));
        CHECK_MSG(same, "batches of 777 subjects give the same choice probabilities");
        CHECK(test_panel_diff(p, batched) == 0);
        free(b);
    }
    if (p && plain) CHECK_MSG(test_panel_diff(p, plain) == 0, "the targets change no other column");
    /* at the subjects' first period (the same states) against grid search on a fine grid */
    const char *grid[] = {"taste_shocks=true", "consumption_points=2000", NULL};
    char *small = base_path_join(dir, "small.csv");
    CHECK_OK(sys_write_file_atomic(small, rows ? rows : "", rows ? len : 0, &err));
    lcm_panel *pe = ccp_panel(egm, small, 0, NULL, &models[2]), *pg = ccp_panel(grid, small, 0, NULL, &models[3]);
    double *ce = pe ? column(pe, "ccp_retire") : NULL, *cg = pg ? column(pg, "ccp_retire") : NULL;
    double *te = pe ? column(pe, "period") : NULL, *tg = pg ? column(pg, "period") : NULL;
    double *se = pe ? column(pe, "subject_id") : NULL, *sg = pg ? column(pg, "subject_id") : NULL;
    if (ce && cg && te && tg && se && sg) {
        double worst = 0;
        int compared = 0;
        for (lcm_index i = 0, j = 0; i < lcm_panel_rows(pe); ++i) {
            if (te[i] != 0 || isnan(ce[i])) continue;
            while (j < lcm_panel_rows(pg) && (sg[j] < se[i] || tg[j] != 0)) ++j;
            if (j == lcm_panel_rows(pg) || sg[j] != se[i]) continue;
            worst = fmax(worst, fabs(ce[i] - cg[j])), ++compared;
        }
        printf("DC-EGM choice probabilities at the first period against grid search (2000 consumption points): "
               "%d subjects, largest |difference| %.2e\n", compared, worst);
        CHECK(compared > 500 && worst < 0.02);
    }
    free(ce), free(cg), free(te), free(tg), free(se), free(sg);
    lcm_panel_free(pe), lcm_panel_free(pg);
    free(work), free(retire), free(regime), free(labor);
    lcm_panel_free(p), lcm_panel_free(batched), lcm_panel_free(plain);
    for (int k = 0; k < 4; ++k) lcm_model_free(models[k]);
    base_sb_free(&text);
    free(rows), free(given), free(initial), free(small), free(dir);
}

/* ---- nested EGM: a durable beside consumption (tests/models/negm_cake.lua) ---- */
/* The largest |difference| of V in regime 'alive' (NaN: infinite). */
static double negm_diff(const lcm_model *model, const lcm_solution *a, const lcm_solution *b)
{
    const ir_model *m = core_model_ir(model);
    int r = ir_find_regime(m, "alive");
    lcm_index n = ir_state_space_size(&m->regimes[r]);
    double worst = 0;
    for (int t = 0; t < m->nperiods; ++t)
        for (lcm_index i = 0; m->regimes[r].active[t] && i < n; ++i) {
            double d = fabs(lcm_solution_value(a, t, r, i) - lcm_solution_value(b, t, r, i));
            worst = d == d ? fmax(worst, d) : INFINITY;
        }
    return worst;
}

static lcm_panel *negm_panel(const lcm_model *model, const lcm_solution *sol, const char *initial)
{
    lcm_err err = {0};
    lcm_initial *ic = NULL;
    lcm_solver *sv = NULL;
    lcm_panel *p = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    CHECK_OK(lcm_initial_read(model, initial, &ic, &err));
    if (ic) CHECK_OK(lcm_solver_new(model, &o, &sv, &err));
    if (sv) CHECK_OK(lcm_simulate(sv, sol, ic, NULL, &p, &err));
    lcm_solver_free(sv);
    lcm_initial_free(ic);
    return p;
}

/* Two continuous choices, the durable d enumerated on its grid beside the
 * discrete keep/adjust and consumption c solved by EGM at each of their
 * combinations (nested EGM): V against grid search, whose difference falls
 * as grid search's consumption grid is refined (500 and 4000 points; its
 * error falls like h^2, EGM's own is interpolation's on the wealth grid),
 * and subjects simulated from between the grid points against grid
 * search's (the same value to grid accuracy; keepers on d's first point). */
static void negm(void)
{
    const char *params = "tests/models/negm_cake.params.lua", *lua = "tests/models/negm_cake.lua";
    const char *egm[] = {"wealth_points=200", NULL};
    const char *coarse[] = {"wealth_points=200", "solver=grid", "c_points=500", NULL};
    const char *fine[] = {"wealth_points=200", "solver=grid", "c_points=4000", NULL};
    lcm_model *me = NULL, *mc = NULL, *mf = NULL;
    lcm_solution *se = solve(lua, egm, params, 64, &me), *sc = solve(lua, coarse, params, 64, &mc),
                 *sf = solve(lua, fine, params, 64, &mf);
    if (se && sc && sf) {
        double dc = negm_diff(me, se, sc), df = negm_diff(me, se, sf);
        printf("nested EGM (a durable beside consumption) against grid search: largest |V difference| %.3e at 500 "
               "consumption points, %.3e at 4000 (%.1fx)\n", dc, df, dc / df);
        CHECK_MSG(dc >= 4 * df, "the difference falls %.2fx from 500 to 4000 consumption points, not 4x", dc / df);
        CHECK_MSG(df < 3e-3, "EGM and grid search at 4000 points differ by %.3e", df);
    }
    lcm_err err = {0};
    char *dir = test_tmpdir("egm-negm"), *initial = base_path_join(dir, "initial.csv");
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,wealth,n\n");
    for (int i = 0; i < 60; ++i) base_sb_printf(&text, "alive,0,%.6f,%.6f\n", 0.61 + 0.1737 * i, 0.037 + 0.0491 * i);
    CHECK_OK(sys_write_file_atomic(initial, text.s, text.len, &err));
    base_sb_free(&text);
    lcm_panel *pe = se ? negm_panel(me, se, initial) : NULL, *pf = sf ? negm_panel(mf, sf, initial) : NULL;
    double *t = pe ? column(pe, "period") : NULL, *adj = pe ? column(pe, "adjust") : NULL, *d = pe ? column(pe, "d") : NULL;
    double *c = pe ? column(pe, "c") : NULL, *ve = pe ? column(pe, "value") : NULL, *vf = pf ? column(pf, "value") : NULL;
    double *tf = pf ? column(pf, "period") : NULL;
    if (t && adj && d && c && ve && vf && tf && lcm_panel_rows(pe) == lcm_panel_rows(pf)) {
        int keep = 0, adjust = 0, odd = 0;
        double worst = 0;
        for (lcm_index i = 0; i < lcm_panel_rows(pe); ++i) {
            if (t[i] != tf[i] || t[i] >= 3) continue; /* the last period has no actions */
            keep += adj[i] == 0, adjust += adj[i] == 1;
            odd += !(c[i] > 0) || (adj[i] == 0 && d[i] != 0);
            if (t[i] == 0) worst = fmax(worst, fabs(ve[i] - vf[i])); /* the same states (later: their own paths) */
        }
        printf("nested EGM, 60 subjects simulated from between the grid points: %d keep, %d adjust; largest |value "
               "difference| from grid search at their first period %.3e\n", keep, adjust, worst);
        CHECK_MSG(keep > 0 && adjust > 0, "both choices taken (keep %d, adjust %d)", keep, adjust);
        CHECK_MSG(odd == 0, "%d rows with c <= 0 or a keeper off d's first point", odd);
        CHECK_MSG(worst < 5e-3, "simulated values differ from grid search's by %.3e", worst);
    } else {
        CHECK_MSG(0, "the simulated panels of nested EGM and grid search");
    }
    free(t), free(adj), free(d), free(c), free(ve), free(vf), free(tf);
    lcm_panel_free(pe), lcm_panel_free(pf);
    lcm_solution_free(se), lcm_solution_free(sc), lcm_solution_free(sf);
    lcm_model_free(me), lcm_model_free(mc), lcm_model_free(mf);
    free(initial), free(dir);
}

/* The Euler errors of nested EGM (tests/models/negm_cake.lua), and of
 * grid search on the cake whose last period is a terminal regime without
 * actions (its d utility / d wealth there for the Euler errors alone: no
 * kernel keeps it): grid search's at grid accuracy, EGM's far below. */
static double euler_mean(const char *lua, const char *const *defines, const char *params, lcm_index *points)
{
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_solution *sol = solve(lua, defines, params, 64, &model);
    lcm_solver *sv = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    lcm_euler_stats all = {.mean = NAN};
    if (sol) CHECK_OK(lcm_solver_new(model, &o, &sv, &err));
    if (sv) CHECK_OK(lcm_euler_grid(sv, sol, 0.02, &all, NULL, &err));
    *points = all.points;
    lcm_solver_free(sv);
    lcm_solution_free(sol);
    lcm_model_free(model);
    return all.mean;
}

static void negm_euler(void)
{
    const char *grid[] = {"solver=grid", "consumption_points=4000", NULL};
    lcm_index ng = 0, ne = 0, nn = 0;
    double g = euler_mean("tests/models/egm_cake.lua", grid, "tests/models/egm_cake.params.lua", &ng);
    double e = euler_mean("tests/models/egm_cake.lua", NULL, "tests/models/egm_cake.params.lua", &ne);
    double n = euler_mean("tests/models/negm_cake.lua", NULL, "tests/models/negm_cake.params.lua", &nn);
    printf("Euler errors (mean log10): cake by grid search into a terminal regime %.2f (%lld points), by EGM %.2f "
           "(%lld); nested EGM %.2f (%lld)\n", g, (long long)ng, e, (long long)ne, n, (long long)nn);
    CHECK_MSG(ng > 700 && g < -2 && g > -4, "grid search's Euler errors: %.2f over %lld points", g, (long long)ng);
    CHECK_MSG(ne > 700 && e < -12, "EGM's Euler errors: %.2f over %lld points", e, (long long)ne);
    CHECK_MSG(nn > 1000 && n < -3.5, "nested EGM's Euler errors: %.2f over %lld points", n, (long long)nn);
}

int main(void)
{
    negm();
    negm_euler();
    cake();
    precautionary_savings();
    iskhakov();
    egm_choice_probabilities();
    CHECK_DONE();
}
