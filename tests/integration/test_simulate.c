/* Simulation against independent evidence:
 * - the panel is byte-identical for subject batch sizes 0, 1, 7 and 1000,
 *   into the memory of an earlier panel (lcm_simulate_again, with and
 *   without target columns), and a
 *   saved-and-read solution gives the same panel; initial conditions read
 *   for the model before are refused;
 * - the generated simulation kernels give the interpreter's paths (states,
 *   actions, regimes), byte for byte, and its values to rounding (1e-13:
 *   the kernels read the expected next V, the interpreter sums over the
 *   nodes), also where they read terms hoisted out of an action loop, keep
 *   the state's row of the continuation, or fold an Epstein-Zin lottery;
 *   and so does the inline continuation (LCM_NO_TABLES=1);
 * - on a deterministic model whose paths stay on the grid, each simulated
 *   row is the solution's policy (argmax found by the interpreter) and V;
 * - with 100,000 subjects: death rates match the Markov regime
 *   probabilities, health transitions match their matrix, and an AR(1)
 *   income process has its law's mean, variance and autocorrelation (an
 *   IID one none), each within 4.5 standard errors.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "initial.h"
#include "interp_point.h"
#include "panel.h"
#include "solver_internal.h"
#include "testlib.h"

typedef struct sim_model {
    lcm_model *model;
    lcm_solution *sol;
} sim_model;

static sim_model solve(const char *lua, const char *define, const char *params)
{
    const char *defines[] = {define, NULL};
    sim_model s = {0};
    lcm_err err = {0};
    if (test_solve(lua, define ? defines : NULL, params, LCM_BACKEND_CPU, 64, &s.model, &s.sol, &err)) {
        fprintf(stderr, "%s: %s\n", lua, err.msg);
        exit(1);
    }
    return s;
}

static void release(sim_model *s)
{
    lcm_solution_free(s->sol);
    lcm_model_free(s->model);
}

static lcm_initial *initial_from(const lcm_model *model, const char *text)
{
    lcm_initial *ic = NULL;
    lcm_err err = {0};
    if (sim_initial_parse_csv(core_model_ir(model), "test.csv", text, &ic, &err)) {
        fprintf(stderr, "initial conditions: %s\n", err.msg);
        exit(1);
    }
    return ic;
}

static lcm_initial *initial_file(const lcm_model *model, const char *relative)
{
    char *path = test_path(relative);
    lcm_initial *ic = NULL;
    lcm_err err = {0};
    if (lcm_initial_read(model, path, &ic, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(1);
    }
    free(path);
    return ic;
}

static lcm_solver *new_solver(const sim_model *s, lcm_backend_kind backend)
{
    lcm_solver_options o = {.backend = backend, .precision = 64};
    lcm_solver *solver = NULL;
    lcm_err err = {0};
    if (lcm_solver_new(s->model, &o, &solver, &err)) fprintf(stderr, "solver: %s\n", err.msg), exit(1);
    return solver;
}

static lcm_panel *simulate_with(lcm_solver *solver, const lcm_solution *sol, const lcm_initial *ic,
                                unsigned long long seed, lcm_index batch, const char *targets)
{
    lcm_sim_options so = {.seed = seed, .subject_batch_size = batch, .targets = targets};
    lcm_panel *p = NULL;
    lcm_err err = {0};
    if (lcm_simulate(solver, sol, ic, &so, &p, &err)) fprintf(stderr, "simulate: %s\n", err.msg), exit(1);
    return p;
}

/* A simulation by a solver of its own. */
static lcm_panel *simulate(const sim_model *s, const lcm_solution *sol, lcm_backend_kind backend, const lcm_initial *ic,
                           unsigned long long seed, lcm_index batch, const char *targets)
{
    lcm_solver *solver = new_solver(s, backend);
    lcm_panel *p = simulate_with(solver, sol, ic, seed, batch, targets);
    lcm_solver_free(solver);
    return p;
}

/* The panel's CSV text. */
static char *csv_of(const lcm_panel *p)
{
    char *dir = test_tmpdir("sim"), *path = base_path_join(dir, "panel.csv");
    lcm_err err = {0};
    char *text = lcm_panel_write_csv(p, path, &err) ? NULL : sys_read_file(path, NULL, &err);
    if (!text) fprintf(stderr, "%s\n", err.msg), exit(1);
    remove(path), remove(dir);
    free(path), free(dir);
    return text;
}

static double *column(const lcm_panel *p, const char *name)
{
    double *c = base_xcalloc((size_t)lcm_panel_rows(p) + 1, sizeof *c);
    lcm_err err = {0};
    if (lcm_panel_column(p, name, c, &err)) fprintf(stderr, "%s\n", err.msg), exit(1);
    return c;
}

/* ---- batch sizes, saved solutions, interpreter -------------------------------- */

/* lcm_simulate_again into *kept (seed 11) gives the panel `expected` (CSV). */
static void again_gives(lcm_solver *solver, const lcm_solution *sol, const lcm_initial *ic, lcm_index batch,
                        const char *targets, lcm_panel **kept, const char *expected, const char *model)
{
    lcm_sim_options so = {.seed = 11, .subject_batch_size = batch, .targets = targets};
    lcm_err err = {0};
    CHECK_MSG(!lcm_simulate_again(solver, sol, ic, &so, kept, &err), "%s", err.msg);
    char *got = *kept ? csv_of(*kept) : NULL;
    CHECK_MSG(got && !strcmp(got, expected), "%s: lcm_simulate_again (batch %lld, targets %s) gives another panel",
              model, (long long)batch, targets ? targets : "none");
    free(got);
}

static void check_bundled(void)
{
    lcm_panel *kept = NULL; /* lcm_simulate_again's, from model to model */
    lcm_initial *before = NULL; /* the model before's initial conditions */
    for (size_t c = 0; c < (size_t)test_nbundled; ++c) {
        sim_model s = solve(test_bundled[c].model, NULL, test_bundled[c].params);
        lcm_initial *ic = initial_file(s.model, test_bundled[c].initial);
        lcm_panel *one_pass = simulate(&s, s.sol, LCM_BACKEND_CPU, ic, 11, 0, NULL);
        char *expected = csv_of(one_pass);
        /* one solver for every batch size, one simulation after the other */
        const lcm_index batches[] = {1, 7, 1000, 3, 0};
        lcm_solver *solver = new_solver(&s, LCM_BACKEND_CPU);
        for (int b = 0; b < 5; ++b) {
            lcm_panel *p = simulate_with(solver, s.sol, ic, 11, batches[b], NULL);
            char *got = csv_of(p);
            CHECK_MSG(!strcmp(got, expected), "%s: batch size %lld gives another panel", test_bundled[c].model,
                      (long long)batches[b]);
            free(got);
            lcm_panel_free(p);
        }
        /* into the memory of the panel before, that of the model before
         * first (more or fewer rows, other columns, rows left over) */
        for (int b = 0; b < 2; ++b) again_gives(solver, s.sol, ic, b ? 0 : 7, NULL, &kept, expected, test_bundled[c].model);
        /* with target columns, whose block the next such simulation takes over */
        lcm_panel *with = simulate_with(solver, s.sol, ic, 11, 0, "all");
        char *expected_targets = csv_of(with);
        for (int b = 0; b < 2; ++b) again_gives(solver, s.sol, ic, 0, "all", &kept, expected_targets, test_bundled[c].model);
        free(expected_targets);
        lcm_panel_free(with);
        if (before) { /* the simulation reads its subjects by the model's regimes, periods and states */
            lcm_sim_options so = {.seed = 11};
            lcm_panel *p = NULL;
            lcm_err err = {0};
            int rc = lcm_simulate(solver, s.sol, before, &so, &p, &err);
            CHECK_MSG(rc == LCM_E_INPUT && !p && strstr(err.msg, "the initial conditions were read for another model"),
                      "%s: %d %s", test_bundled[c].model, rc, err.msg);
            lcm_initial_free(before);
        }
        lcm_solver_free(solver);
        /* every subject appears from its own start period on, in order */
        const lcm_initial *init = ic;
        lcm_index row = 0;
        for (lcm_index i = 0; i < init->n && row < one_pass->n; ++i) {
            CHECK(one_pass->subject[row] == (unsigned long long)i && one_pass->period[row] == init->period[i]);
            CHECK(one_pass->regime[row] == init->regime[i]);
            while (row < one_pass->n && one_pass->subject[row] == (unsigned long long)i) ++row;
        }
        CHECK(row == one_pass->n);
        /* a solution written to HDF5 and read back simulates the same panel */
        char *dir = test_tmpdir("sol"), *path = base_path_join(dir, "solution.h5");
        lcm_solution *back = NULL;
        lcm_err err = {0};
        CHECK(!lcm_solution_write_h5(s.sol, path, &err));
        CHECK_MSG(!lcm_solution_read_h5(s.model, path, &back, &err), "%s", err.msg);
        if (back) {
            lcm_panel *p = simulate(&s, back, LCM_BACKEND_CPU, ic, 11, 0, NULL);
            char *got = csv_of(p);
            CHECK_MSG(!strcmp(got, expected), "%s: the saved solution gives another panel", test_bundled[c].model);
            free(got);
            lcm_panel_free(p);
            lcm_solution_free(back);
        }
        remove(path), remove(dir);
        free(path), free(dir);
        /* the interpreter, which sums the continuation over the nodes (no
         * expected V, no staged solve): the same paths, and values equal to
         * rounding (docs/simulation.md, section 4) */
        lcm_panel *ip = simulate(&s, s.sol, LCM_BACKEND_INTERP, ic, 11, 0, NULL);
        double d = test_panel_diff(one_pass, ip), dp = test_panel_path_diff(one_pass, ip);
        printf("%s: %lld rows; cpu vs interpreter: max difference %.1e (paths %.1e)\n", test_bundled[c].model,
               (long long)lcm_panel_rows(one_pass), d, dp);
        CHECK_MSG(dp == 0 && d <= 1e-13, "%s: cpu and interpreter panels differ (at most %g, paths %g)",
                  test_bundled[c].model, d, dp);
        lcm_panel_free(ip);
        free(expected);
        lcm_panel_free(one_pass);
        before = ic;
        release(&s);
    }
    lcm_initial_free(before);
    lcm_panel_free(kept);
}

/* ---- a deterministic path is the policy --------------------------------------- */
typedef struct policy_ctx {
    const lcm_solution *sol;
    int period;
} policy_ctx;

static double vnext_solution(const void *ctx, int regime, lcm_index i)
{
    const policy_ctx *c = ctx;
    return lcm_solution_value(c->sol, c->period + 1, regime, i);
}

static void check_policy(void)
{
    sim_model s = solve("tests/models/cake_on_grid.lua", NULL, "tests/models/discount_only.params.lua");
    const ir_model *m = core_model_ir(s.model);
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,wealth\n");
    for (int w = 0; w <= 30; ++w) base_sb_printf(&text, "eating,0,%d\n", w);
    lcm_initial *ic = initial_from(s.model, text.s);
    lcm_panel *p = simulate(&s, s.sol, LCM_BACKEND_CPU, ic, 0, 0, "utility");
    const ir_regime *eating = &m->regimes[ir_find_regime(m, "eating")];
    double *vals = base_xcalloc(eating->nnodes + 1, sizeof *vals);
    int rows_checked = 0;
    for (lcm_index i = 0; i < p->n; ++i) {
        if (p->regime[i] != eating->id) continue;
        int t = p->period[i];
        double w = p->x[0][i], c = p->act[0][i];
        lcm_index s_at = (lcm_index)w;
        CHECK(w == floor(w) && w >= 0 && w <= 30); /* on the grid */
        /* V of the solution at that grid point, exactly */
        CHECK_MSG(p->value[i] == lcm_solution_value(s.sol, t, eating->id, s_at), "period %d wealth %g: %.17g vs %.17g",
                  t, w, p->value[i], lcm_solution_value(s.sol, t, eating->id, s_at));
        /* the policy: the first best action, by the interpreter */
        policy_ctx ctx = {s.sol, t};
        lcm_point pt = {.m = m, .k = &m->kernels[m->period_kernel[eating->id * m->nperiods + t]], .r = eating,
                        .L = &s.sol->layout, .G = s.sol->grids, .params = s.sol->params, .vnext = vnext_solution,
                        .vnext_ctx = &ctx, .age = m->ages[t], .period = t, .vals = vals};
        pt.x[0] = w;
        double best = -INFINITY;
        lcm_index best_a = -1;
        for (lcm_index a = 0; a < ir_action_space_size(eating); ++a) {
            ir_point_action(&pt, a);
            ir_point_eval(&pt);
            if (pt.feasible && (pt.q > best || best_a < 0)) best = pt.q, best_a = a;
        }
        CHECK_MSG(c == (double)best_a, "period %d wealth %g: simulated consumption %g, policy %lld", t, w, c,
                  (long long)best_a);
        /* the next row holds the next state, exactly */
        if (i + 1 < p->n && p->subject[i + 1] == p->subject[i] && p->regime[i + 1] == eating->id)
            CHECK(p->x[0][i + 1] == w - c);
        CHECK(p->targets[i] == sqrt(c)); /* --targets utility */
        ++rows_checked;
    }
    CHECK(rows_checked == 31 * 5);
    free(vals);
    lcm_panel_free(p);
    lcm_initial_free(ic);
    base_sb_free(&text);
    release(&s);
}

/* ---- statistics over 100,000 subjects ------------------------------------------- */
#define N_SUBJECTS 100000

static int within(double got, double want, double se, const char *what)
{
    int ok = fabs(got - want) <= 4.5 * se;
    if (!ok) fprintf(stderr, "%s: %.6f, expected %.6f (se %.2g)\n", what, got, want, se);
    return ok;
}

/* mortality.lua: death is a Markov regime transition, health a Markov state. */
static void check_mortality_statistics(void)
{
    sim_model s = solve("models/mortality.lua", NULL, "models/mortality.params.lua");
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,patience,health,wealth\n");
    for (int i = 0; i < N_SUBJECTS; ++i)
        base_sb_printf(&text, "working,50,%s,%s,%d\n", i % 2 ? "patient" : "impatient", i % 3 ? "good" : "bad", 5 + i % 50);
    lcm_initial *ic = initial_from(s.model, text.s);
    lcm_panel *p = simulate(&s, s.sol, LCM_BACKEND_CPU, ic, 2026, 0, NULL);
    const ir_model *m = core_model_ir(s.model);
    int dead = ir_find_regime(m, "dead"), health = ir_vars_state(&p->vars, "health");
    /* counts[t][h]: living rows; died[t][h]: of them, dead next period;
     * moved[h][h2]: health transitions of survivors */
    double counts[8][2] = {{0}}, died[8][2] = {{0}}, moved[2][2] = {{0}};
    for (lcm_index i = 0; i + 1 < p->n; ++i) {
        if (p->regime[i] == dead || p->subject[i + 1] != p->subject[i]) continue;
        int t = p->period[i], h = (int)p->x[health][i];
        counts[t][h] += 1;
        if (p->regime[i + 1] == dead) died[t][h] += 1;
        else moved[h][(int)p->x[health][i + 1]] += 1;
    }
    for (int t = 0; t < 5; ++t)
        for (int h = 0; h < 2; ++h) {
            double survive = 0.99 - 0.03 * t - (h == 0 ? 0.05 : 0), q = 1 - survive, n = counts[t][h];
            if (n < 1000) continue;
            char what[64];
            snprintf(what, sizeof what, "death rate, period %d, health %d", t, h);
            CHECK(within(died[t][h] / n, q, sqrt(q * (1 - q) / n), what));
        }
    const double matrix[2][2] = {{0.7, 0.3}, {0.1, 0.9}};
    for (int h = 0; h < 2; ++h) {
        double n = moved[h][0] + moved[h][1], q = matrix[h][1];
        CHECK(n > 10000);
        CHECK(within(moved[h][1] / n, q, sqrt(q * (1 - q) / n), h ? "P(good | good)" : "P(good | bad)"));
    }
    printf("mortality: %lld rows from %d subjects\n", (long long)p->n, N_SUBJECTS);
    lcm_panel_free(p);
    lcm_initial_free(ic);
    base_sb_free(&text);
    release(&s);
}

/* precautionary_savings.lua: income drawn from its continuous law. */
static void check_income_statistics(const char *shock, double rho)
{
    char define[64];
    snprintf(define, sizeof define, "shock=%s", shock);
    const char *defines[] = {define, "n_periods=8", NULL};
    sim_model s = {0};
    lcm_err err = {0};
    lcm_pvalue *params = lcm_pv_table();
    lcm_pv_set_path(params, "discount_factor", lcm_pv_num(0.95), &err);
    lcm_pv_set_path(params, "alive.income.mu", lcm_pv_num(0.1), &err);
    lcm_pv_set_path(params, "alive.income.sigma", lcm_pv_num(0.2), &err);
    if (rho >= 0) lcm_pv_set_path(params, "alive.income.rho", lcm_pv_num(rho), &err);
    lcm_pv_set_path(params, "alive.next_wealth.interest_rate", lcm_pv_num(0.04), &err);
    lcm_solver *solver = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    if (test_generate("models/precautionary_savings.lua", defines, &s.model, &err) ||
        lcm_solver_new(s.model, &o, &solver, &err) || lcm_solve(solver, params, &s.sol, &err)) {
        fprintf(stderr, "precautionary_savings %s: %s\n", shock, err.msg);
        exit(1);
    }
    lcm_solver_free(solver);
    lcm_pv_free(params);
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,wealth\n");
    for (int i = 0; i < N_SUBJECTS; ++i) base_sb_printf(&text, "alive,20,%d\n", 1 + i % 19);
    lcm_initial *ic = initial_from(s.model, text.s);
    lcm_panel *p = simulate(&s, s.sol, LCM_BACKEND_CPU, ic, 99, 0, NULL);
    double *income = column(p, "income"), *period = column(p, "period");
    /* the columns' names, in the order of the CSV header */
    lcm_sb names;
    base_sb_init(&names);
    for (int k = 0; k < lcm_panel_columns(p); ++k) base_sb_printf(&names, "%s%s", k ? "," : "", lcm_panel_column_name(p, k));
    base_sb_putc(&names, '\n');
    char *csv = csv_of(p);
    CHECK(!strncmp(csv, names.s, names.len) && lcm_panel_column_name(p, -1) == NULL &&
          lcm_panel_column_name(p, lcm_panel_columns(p)) == NULL);
    free(csv), base_sb_free(&names);
    /* the law: y' = mu + rho y + sigma e, started from its stationary law */
    double r = rho >= 0 ? rho : 0, mean = 0.1 / (1 - r), var = 0.04 / (1 - r * r);
    for (int t = 0; t + 1 < 7; ++t) {
        double sx = 0, sxx = 0, sxy = 0, sy = 0, syy = 0;
        int n = 0;
        for (lcm_index i = 0; i + 1 < p->n; ++i) {
            if ((int)period[i] != t || p->subject[i + 1] != p->subject[i]) continue;
            double x = income[i], y = income[i + 1];
            sx += x, sxx += x * x, sy += y, syy += y * y, sxy += x * y, ++n;
        }
        double mx = sx / n, vx = sxx / n - mx * mx, my = sy / n, vy = syy / n - my * my;
        double corr = (sxy / n - mx * my) / sqrt(vx * vy);
        char what[96];
        snprintf(what, sizeof what, "%s: mean of income, period %d", shock, t);
        CHECK(within(mx, mean, sqrt(var / n), what));
        snprintf(what, sizeof what, "%s: variance of income, period %d", shock, t);
        CHECK(within(vx, var, var * sqrt(2.0 / n), what));
        snprintf(what, sizeof what, "%s: autocorrelation of income, periods %d-%d", shock, t, t + 1);
        CHECK(within(corr, r, (1 - r * r) / sqrt((double)n) + 1e-12, what));
        CHECK(n == N_SUBJECTS);
    }
    printf("%s: income mean %.4f, variance %.4f expected\n", shock, mean, var);
    free(income), free(period);
    lcm_panel_free(p);
    lcm_initial_free(ic);
    base_sb_free(&text);
    release(&s);
}

/* A float32 panel holds doubles too (the initial states as given, draws
 * made in double): every CSV cell reads back to the panel's value, bit for
 * bit (a double was once written with a float's digits). */
static void check_float32_csv(void)
{
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_solution *sol = NULL;
    const char *defines[] = {"wealth_points=20", "consumption_points=20", NULL};
    if (test_solve("models/precautionary_savings.lua", defines, "models/precautionary_savings.params.lua",
                   LCM_BACKEND_CPU, 32, &model, &sol, &err))
        fprintf(stderr, "float32: %s\n", err.msg), exit(1);
    lcm_initial *ic = initial_file(model, "models/precautionary_savings.initial.csv");
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 32};
    lcm_solver *solver = NULL;
    if (lcm_solver_new(model, &o, &solver, &err)) fprintf(stderr, "solver: %s\n", err.msg), exit(1);
    lcm_panel *p = simulate_with(solver, sol, ic, 3, 0, NULL);
    char *csv = csv_of(p), *line = strchr(csv, '\n') + 1;
    int ncol = lcm_panel_columns(p);
    double **cols = base_xcalloc((size_t)ncol, sizeof *cols);
    for (int k = 0; k < ncol; ++k) cols[k] = column(p, lcm_panel_column_name(p, k));
    long differ = 0, doubles = 0;
    for (lcm_index i = 0; i < lcm_panel_rows(p); ++i) {
        for (int k = 0; k < ncol; ++k) {
            char *end = line + strcspn(line, ",\n");
            if (strcmp(lcm_panel_column_name(p, k), "regime") && end > line) { /* not a label, not empty */
                double want = cols[k][i]; /* a float's text reads back as a float, a double's as a double */
                double x = (double)(float)want == want ? (double)strtof(line, NULL) : strtod(line, NULL);
                if (memcmp(&x, &want, sizeof x) && differ++ < 3)
                    fprintf(stderr, "row %lld column %s: '%.*s' against %.17g\n", (long long)i,
                            lcm_panel_column_name(p, k), (int)(end - line), line, want);
                doubles += (double)(float)want != want;
            }
            line = end + 1;
        }
    }
    CHECK_MSG(differ == 0, "float32 panel: %ld CSV cells read back to another value than the panel's", differ);
    CHECK_MSG(doubles > 0, "float32 panel: no double among the cells, so the check checked nothing");
    for (int k = 0; k < ncol; ++k) free(cols[k]);
    free(cols), free(csv);
    lcm_panel_free(p);
    lcm_solver_free(solver);
    lcm_initial_free(ic);
    lcm_solution_free(sol);
    lcm_model_free(model);
}

/* The cpu backend's panel from initial conditions `text` (41 subjects) has
 * the interpreter's paths and values to rounding, and so has that of the
 * cpu with LCM_NO_TABLES=1 (no state's row: the continuation inline at
 * every pair); it has `rows` rows (0: more than 41). */
static void same_as_interpreter(sim_model *s, const char *text, const char *what, lcm_index rows)
{
    lcm_initial *ic = initial_from(s->model, text);
    lcm_panel *cpu = simulate(s, s->sol, LCM_BACKEND_CPU, ic, 5, 0, NULL);
    lcm_panel *ip = simulate(s, s->sol, LCM_BACKEND_INTERP, ic, 5, 0, NULL);
    setenv("LCM_NO_TABLES", "1", 1);
    lcm_panel *inl = simulate(s, s->sol, LCM_BACKEND_CPU, ic, 5, 0, NULL);
    unsetenv("LCM_NO_TABLES");
    lcm_index got = lcm_panel_rows(cpu);
    CHECK_MSG(rows ? got == rows : got > 41, "%s: %lld rows", what, (long long)got);
    CHECK_MSG(test_panel_path_diff(cpu, ip) == 0 && test_panel_diff(cpu, ip) <= 1e-13,
              "%s: cpu and interpreter panels differ (at most %g, paths %g)", what, test_panel_diff(cpu, ip),
              test_panel_path_diff(cpu, ip));
    CHECK_MSG(test_panel_path_diff(cpu, inl) == 0 && test_panel_diff(cpu, inl) <= 1e-13,
              "%s: the panel differs with LCM_NO_TABLES=1 (at most %g, paths %g)", what, test_panel_diff(cpu, inl),
              test_panel_path_diff(cpu, inl));
    lcm_panel_free(cpu), lcm_panel_free(ip), lcm_panel_free(inl);
    lcm_initial_free(ic);
    release(s);
}

/* tests/models/hoisted_terms.lua, whose CPU kernels read terms hoisted out
 * of an action loop (gen/emit.c, "hoisted terms") and, simulating, their
 * state's row of the continuation table, each entry computed where first
 * read ("the state's row": the table reads saving, and work loops outside
 * it): the interpreter's panel, from wealth on and between the grid's
 * points; with -D health=true also from either health, with -D
 * middle=true from either fitness (its probability hoisted out of the
 * work loop). */
static void check_hoisted_terms(const char *define, const char *params, const char *discrete)
{
    sim_model s = solve("tests/models/hoisted_terms.lua", define, params);
    lcm_sb text;
    base_sb_init(&text);
    base_sb_printf(&text, "regime,age,wealth%s%s\n", discrete ? "," : "", discrete ? discrete : "");
    static const char *const codes[][2] = {{"bad", "good"}, {"unfit", "fit"}};
    int which = discrete && !strcmp(discrete, "fit");
    for (int i = 0; i <= 40; ++i)
        base_sb_printf(&text, "working,0,%.17g%s%s\n", 0.5 + i * 0.2375, discrete ? "," : "",
                      discrete ? codes[which][i % 2] : "");
    same_as_interpreter(&s, text.s, define ? define : "hoisted_terms", 41 * 4);
    base_sb_free(&text);
}

/* tests/models/epstein_zin.lua (risk aversion 20; also by wealth, and with
 * a choice to work, which the CE does not read: the state's row): the
 * interpreter folds the certainty equivalent's lottery as the kernels do
 * (templates/arith.h), so the panel is the interpreter's, from wealth
 * between the grid's points and either income. */
static void check_epstein_zin(const char *define)
{
    sim_model s = solve("tests/models/epstein_zin.lua", define, "tests/models/epstein_zin.params.lua");
    lcm_sb text;
    base_sb_init(&text);
    base_sb_puts(&text, "regime,age,income,wealth\n");
    for (int i = 0; i <= 40; ++i) base_sb_printf(&text, "alive,0,%s,%.17g\n", i % 2 ? "high" : "low", 0.1 + i * 0.2468);
    same_as_interpreter(&s, text.s, define ? define : "epstein_zin", 0);
    base_sb_free(&text);
}

int main(void)
{
    check_float32_csv();
    check_hoisted_terms(NULL, "tests/models/hoisted_terms.params.lua", NULL);
    check_hoisted_terms("health=true", "tests/models/hoisted_terms_health.params.lua", "health");
    check_hoisted_terms("middle=true", "tests/models/hoisted_terms_middle.params.lua", "fit");
    check_epstein_zin(NULL);
    check_epstein_zin("alpha_by=wealth");
    check_epstein_zin("labor=true");
    check_bundled();
    check_policy();
    check_mortality_statistics();
    check_income_statistics("rouwenhorst", 0.9);
    check_income_statistics("tauchen", 0.5);
    check_income_statistics("normal_gh", -1);
    CHECK_DONE();
}
