/* Euler errors (lcm_euler_grid, lcm_euler_panel; runtime/sim/euler.c).
 *
 * - Closed form: cake eating under log utility, solved by EGM, eats the
 *   share 1 / B_t of its wealth, which is linear in wealth, as is 1 / M:
 *   the Euler equation holds to rounding (errors below 1e-12).
 * - Iskhakov et al. (2017) and precautionary savings, grid search against
 *   EGM on the same wealth grids: EGM's interior errors are at least 100
 *   times smaller (2 in log10) on the grid, and along the bundled panels
 *   for Iskhakov et al.; precautionary savings draws its AR(1) income
 *   between the process's nodes, where both solvers blend the nodes'
 *   decisions, and EGM's panel errors are that blend's: 10 times smaller.
 * - The panel's column euler_error: NaN exactly where no error counts,
 *   the same values on every batch size; the stats are its own.
 * - Refusals: a model without a margin names each regime and why, taste
 *   shocks are refused, a negative cutoff is a usage error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

typedef struct solved {
    lcm_model *model;
    lcm_solver *sv;
    lcm_solution *sol;
} solved;

static int solve(const char *lua, const char *const *defines, const char *params, solved *s, lcm_err *err)
{
    memset(s, 0, sizeof *s);
    int rc = test_generate(lua, defines, &s->model, err);
    lcm_pvalue *p = NULL;
    if (!rc) rc = params ? test_params(params, &p, err) : (p = lcm_pv_table(), 0);
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    if (!rc) rc = lcm_solver_new(s->model, &o, &s->sv, err);
    if (!rc) rc = lcm_solve(s->sv, p, &s->sol, err);
    lcm_pv_free(p);
    return rc;
}

static void done(solved *s)
{
    lcm_solution_free(s->sol);
    lcm_solver_free(s->sv);
    lcm_model_free(s->model);
}

static void print_stats(const char *what, const lcm_euler_stats *st)
{
    printf("  %-44s %7lld points (%lld constrained): mean %.3f, p5 %.3f, p50 %.3f, p95 %.3f\n", what,
           (long long)st->points, (long long)st->constrained, st->mean, st->p5, st->p50, st->p95);
}

/* The panel of the bundled initial conditions, with its Euler errors. */
static lcm_panel *panel_of(solved *s, const char *initial, lcm_index batch, double cutoff, lcm_euler_stats *st)
{
    lcm_err err = {0};
    lcm_initial *ic = NULL;
    lcm_panel *p = NULL;
    char *path = test_path(initial);
    lcm_sim_options o = {.seed = 7, .subject_batch_size = batch};
    CHECK_OK(lcm_initial_read(s->model, path, &ic, &err));
    if (ic) CHECK_OK(lcm_simulate(s->sv, s->sol, ic, &o, &p, &err));
    if (p) CHECK_OK(lcm_euler_panel(s->sv, s->sol, p, cutoff, st, NULL, &err));
    lcm_initial_free(ic);
    free(path);
    return p;
}

/* Cake eating under log utility by EGM: exact to rounding. */
static void closed_form(void)
{
    solved s;
    lcm_err err = {0};
    const char *defs[] = {"wealth_points=100", NULL};
    CHECK_OK(solve("tests/models/egm_cake.lua", defs, "tests/models/egm_cake.params.lua", &s, &err));
    lcm_euler_stats g = {0};
    if (s.sol) CHECK_OK(lcm_euler_grid(s.sv, s.sol, 0.02, &g, NULL, &err));
    print_stats("cake eating, log utility, EGM (grid)", &g);
    CHECK_MSG(g.points > 300, "cake eating: %lld interior points", (long long)g.points);
    CHECK_MSG(g.p95 < -12, "cake eating by EGM: the Euler equation holds to rounding, p95 %.3f", g.p95);
    done(&s);
}

/* Grid search and EGM on the same wealth grid: EGM at least 100 times
 * closer on the grid and along the panel. */
static void grid_against_egm(const char *name, const char *lua, const char *const *grid_defs,
                             const char *const *egm_defs, const char *params, const char *initial, double cutoff,
                             double panel_gap)
{
    solved gs, eg;
    lcm_err err = {0};
    lcm_euler_stats g_grid = {0}, g_egm = {0}, p_grid = {0}, p_egm = {0};
    CHECK_OK(solve(lua, grid_defs, params, &gs, &err));
    CHECK_OK(solve(lua, egm_defs, params, &eg, &err));
    if (!gs.sol || !eg.sol) return;
    CHECK_OK(lcm_euler_grid(gs.sv, gs.sol, cutoff, &g_grid, NULL, &err));
    CHECK_OK(lcm_euler_grid(eg.sv, eg.sol, cutoff, &g_egm, NULL, &err));
    lcm_panel *pg = panel_of(&gs, initial, 0, cutoff, &p_grid), *pe = panel_of(&eg, initial, 0, cutoff, &p_egm);
    printf("%s (cutoff %g):\n", name, cutoff);
    print_stats("grid search, on the grid", &g_grid);
    print_stats("EGM, on the grid", &g_egm);
    print_stats("grid search, along the panel", &p_grid);
    print_stats("EGM, along the panel", &p_egm);
    CHECK_MSG(g_grid.points > 50 && g_egm.points > 50 && p_grid.points > 50 && p_egm.points > 50,
              "%s: too few interior points", name);
    CHECK_MSG(g_egm.mean <= g_grid.mean - 2, "%s: on the grid EGM's mean %.3f is not 2 below grid search's %.3f", name,
              g_egm.mean, g_grid.mean);
    /* along a panel whose income process is drawn between its nodes, the
     * decisions there blend the nodes' (both solvers): an error of the
     * process's spacing that EGM's panel errors show (panel_gap: the least
     * gap asserted there) */
    CHECK_MSG(p_egm.mean <= p_grid.mean - panel_gap, "%s: along the panel EGM's mean %.3f is not %g below grid "
              "search's %.3f", name, p_egm.mean, panel_gap, p_grid.mean);
    lcm_panel_free(pg), lcm_panel_free(pe);
    done(&gs), done(&eg);
}

/* The column: NaN where no error counts, the stats its own, and the same
 * on another batch size. */
static void panel_column(void)
{
    solved s;
    lcm_err err = {0};
    const char *defs[] = {"wealth_points=200", "solver=egm", NULL};
    CHECK_OK(solve("models/precautionary_savings.lua", defs, "models/precautionary_savings.params.lua", &s, &err));
    if (!s.sol) return;
    lcm_euler_stats a, b;
    lcm_panel *p = panel_of(&s, "models/precautionary_savings.initial.csv", 0, 0.02, &a);
    lcm_panel *q = panel_of(&s, "models/precautionary_savings.initial.csv", 37, 0.02, &b);
    if (p && q) {
        const double *e = lcm_panel_column_data(p, "euler_error"), *f = lcm_panel_column_data(q, "euler_error");
        CHECK(e && f);
        lcm_index n = lcm_panel_rows(p), counted = 0, same = 1;
        double sum = 0;
        for (lcm_index k = 0; e && f && k < n; ++k) {
            if (e[k] == e[k]) ++counted, sum += e[k];
            same &= (e[k] != e[k] && f[k] != f[k]) || e[k] == f[k];
        }
        CHECK_MSG(same, "the column euler_error differs between batch sizes");
        CHECK_MSG(counted == a.points && fabs(sum / (double)counted - a.mean) < 1e-12,
                  "the column's %lld values (mean %.6f) against the stats' %lld (%.6f)", (long long)counted,
                  sum / (double)counted, (long long)a.points, a.mean);
        CHECK_MSG(a.points == b.points && a.mean == b.mean, "the stats differ between batch sizes");
        /* a second time: the column is there already */
        lcm_euler_stats c;
        CHECK(lcm_euler_panel(s.sv, s.sol, p, 0.02, &c, NULL, &err) == LCM_E_USAGE);
        CHECK_MSG(strstr(err.msg, "euler_error"), "a second column: %s", err.msg);
    }
    lcm_panel_free(p), lcm_panel_free(q);
    lcm_euler_stats st;
    CHECK(lcm_euler_grid(s.sv, s.sol, -1, &st, NULL, &err) == LCM_E_USAGE);
    CHECK_MSG(strstr(err.msg, "cutoff"), "a negative cutoff: %s", err.msg);
    done(&s);
}

/* What has no Euler errors says why. */
static void refusals(void)
{
    solved s;
    lcm_err err = {0};
    lcm_euler_stats st;
    const char *small[] = {"n_periods=2", "a_points=4", "p_points=3", "n_points=3", "psi_points=1", "xi_points=1",
                           "c_points=3", "d_points=3", NULL};
    CHECK_OK(solve("models/durables.lua", small, "models/durables.params.lua", &s, &err));
    if (s.sol) {
        CHECK(lcm_euler_grid(s.sv, s.sol, 0.02, &st, NULL, &err) == LCM_E_USAGE);
        printf("  durables: %s\n", err.msg);
        CHECK_MSG(strstr(err.msg, "no regime with a consumption-saving margin") && strstr(err.msg, "regime 'alive'"),
                  "durables: %s", err.msg);
    }
    done(&s);
    const char *taste[] = {"solver=egm", "taste_shocks=true", NULL};
    CHECK_OK(solve("models/iskhakov_2017.lua", taste, "models/iskhakov_2017_taste_shocks.params.lua", &s, &err));
    if (s.sol) {
        CHECK(lcm_euler_grid(s.sv, s.sol, 0.02, &st, NULL, &err) == LCM_E_USAGE);
        printf("  taste shocks: %s\n", err.msg);
        CHECK_MSG(strstr(err.msg, "taste shocks"), "taste shocks: %s", err.msg);
    }
    done(&s);
}

int main(void)
{
    closed_form();
    const char *isk_grid[] = {"wealth_points=100", NULL}, *isk_egm[] = {"wealth_points=100", "solver=egm", NULL};
    grid_against_egm("Iskhakov et al. (2017)", "models/iskhakov_2017.lua", isk_grid, isk_egm,
                     "models/iskhakov_2017.params.lua", "models/iskhakov_2017.initial.csv", 1.0, 2);
    const char *ps_grid[] = {"wealth_points=200", "consumption_points=500", "consumption_stop=20", NULL},
               *ps_egm[] = {"wealth_points=200", "solver=egm", NULL};
    grid_against_egm("precautionary savings", "models/precautionary_savings.lua", ps_grid, ps_egm,
                     "models/precautionary_savings.params.lua", "models/precautionary_savings.initial.csv", 0.02,
                     1);
    panel_column();
    refusals();
    CHECK_DONE();
}
