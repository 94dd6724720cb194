/* Every bundled model: the generated code (cpu backend) against the IR
 * interpreter (float64, to the bit; 1e-12 relative where the cases say
 * why), float32 against float64, the
 * same solve twice giving the same bits, and the same bits again with the
 * continuation computed inline instead of from tables (LCM_NO_TABLES); a
 * model whose solve reads the expected next V of its shock processes from a
 * table agrees with the inline sum to 1e-13.
 * A model whose solve is staged (ir/eliminate.h) agrees with the
 * interpreter (grid search) to 1e-12 and with its own solve generated for
 * grid search (LCM_NO_ELIMINATION) to 1e-13: the sums are associated
 * differently.
 * A model that solves by the endogenous grid method has no interpreter to
 * compare with (it refuses it, which is checked; test_egm.c holds EGM to
 * closed forms, the published tables and grid search), and keeps its
 * endogenous grid without tables. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "params_lua.h"
#include "precompute.h"
#include "testlib.h"

/* A case: the model, its -D options (separated by spaces), its params file
 * and a --set assignment on top of it (NULL: none). */
static const struct {
    const char *model, *define, *params, *set;
} cases[] = {
    {"tests/models/grid_edges.lua", NULL, "tests/models/discount_only.params.lua", NULL},
    {"tests/models/cake_eating.lua", NULL, "tests/models/discount_only.params.lua", NULL},
    {"tests/models/cake_on_grid.lua", NULL, "tests/models/discount_only.params.lua", NULL},
    {"tests/models/sharded.lua", "axes=2", "tests/models/sharded.params.lua", NULL},
    {"tests/models/sharded.lua", "splay=wealth", "tests/models/sharded.params.lua", NULL},
    {"tests/models/aggregator.lua", "aggregator=nonlinear", "tests/models/aggregator.params.lua", NULL},
    {"tests/models/epstein_zin.lua", NULL, "tests/models/epstein_zin.params.lua", NULL},
    {"tests/models/epstein_zin.lua", "alpha_by=wealth", "tests/models/epstein_zin.params.lua", NULL},
    {"tests/models/epstein_zin.lua", "alpha_by=saving", "tests/models/epstein_zin.params.lua", NULL},
    {"tests/models/epstein_zin.lua", "labor=true", "tests/models/epstein_zin.params.lua", NULL},
    {"tests/models/epstein_zin.lua", "income=ar1", "tests/models/epstein_zin_ar1.params.lua", NULL},
    {"tests/models/piecewise.lua", "kind=log", "tests/models/piecewise.params.lua", NULL},
    {"tests/models/long_labels.lua", NULL, "tests/models/discount_only.params.lua", NULL},
    {"tests/models/taste_logit.lua", NULL, "tests/models/taste_logit.params.lua", NULL},
    {"tests/models/age_grid.lua", NULL, "tests/models/age_grid.params.lua", NULL},
    {"tests/models/age_grid.lua", "splay=true", "tests/models/age_grid.params.lua", NULL},
    {"tests/models/age_grid_spans.lua", NULL, "tests/models/age_grid.params.lua", NULL},
    {"tests/models/exact_division.lua", NULL, "tests/models/exact_division.params.lua", NULL},
    {"tests/models/expected_v.lua", NULL, "tests/models/expected_v.params.lua", NULL},
    {"tests/models/expected_v.lua", "shard=true splay=true", "tests/models/expected_v.params.lua", NULL},
    {"tests/models/many_shocks.lua", NULL, "tests/models/many_shocks.params.lua", NULL},
    {"tests/models/staged_loop.lua", NULL, "tests/models/staged_loop.params.lua", NULL},
    {"tests/models/staged_loop.lua", NULL, "tests/models/staged_loop_general.params.lua", NULL},
    {"tests/models/action_terms.lua", NULL, "tests/models/action_terms.params.lua", NULL},
    {"tests/models/action_terms.lua", "indexed=true", "tests/models/action_terms_indexed.params.lua", NULL},
    {"tests/models/hoisted_terms.lua", NULL, "tests/models/hoisted_terms.params.lua", NULL},
    {"tests/models/hoisted_terms.lua", NULL, "tests/models/hoisted_terms.params.lua", "risk_aversion=2"},
    {"tests/models/hoisted_terms.lua", "health=true", "tests/models/hoisted_terms_health.params.lua", NULL},
    {"tests/models/hoisted_terms.lua", "extra=true", "tests/models/hoisted_terms.params.lua", NULL},
    {"tests/models/hoisted_terms.lua", "middle=true", "tests/models/hoisted_terms_middle.params.lua", NULL},
    {"tests/models/derivatives.lua", NULL, "tests/models/derivatives.params.lua", NULL},
    {"models/precautionary_savings.lua", "wealth_points=10 consumption_points=150",
     "models/precautionary_savings.params.lua", NULL}, /* log(consumption) an action term */
    {"models/precautionary_savings.lua", NULL, "models/precautionary_savings.params.lua", NULL},
    {"models/precautionary_savings.lua", "shock=tauchen", "models/precautionary_savings.params.lua", NULL},
    {"models/precautionary_savings.lua", "shock=normal_gh", "tests/models/precautionary_iid.params.lua", NULL},
    {"models/precautionary_savings_health.lua", NULL, "models/precautionary_savings_health.params.lua", NULL},
    /* a Markov state's loop around a process's (not staged: one loop at
     * most), weights of zero among them */
    {"models/precautionary_savings_health.lua", "consumption_points=12 wealth_points=9",
     "models/precautionary_savings_health.params.lua", NULL},
    {"models/precautionary_savings_health.lua", "consumption_points=12 wealth_points=9",
     "models/precautionary_savings_health.params.lua", /* absorbing health: half of the weights zero */
     "health_transition={bad={bad=1,good=0},good={bad=0,good=1}}"},
    {"models/tiny.lua", NULL, "models/tiny.params.lua", NULL},
    {"models/mortality.lua", NULL, "models/mortality.params.lua", NULL},
    {"models/mortality.lua", "n_periods=4", "models/mortality.params.lua", /* its survival for 4 periods */
     "survival={{0.95,0.98},{0.95,0.98},{0,0},{0,0}}"},
    {"models/iskhakov_2017.lua", NULL, "models/iskhakov_2017.params.lua", NULL},
    {"models/iskhakov_2017.lua", "n_periods=4", "models/iskhakov_2017_low_delta.params.lua", NULL},
    {"models/iskhakov_2017.lua", "taste_shocks=true", "models/iskhakov_2017_taste_shocks.params.lua", NULL},
    {"models/saving_choice.lua", NULL, "models/saving_choice.params.lua", NULL},
    {"models/fvv_2018.lua", "nx=40", "models/fvv_2018.params.lua", NULL},
    {"models/fvv_2018.lua", "nx=40 fixed=true", "tests/models/empty.params.lua", NULL},
    {"models/fvv_2018.lua", "nx=150", "models/fvv_2018.params.lua", NULL}, /* the staged loop (from 128 actions) */
    {"models/fvv_2018.lua", "nx=150 fixed=true", "tests/models/empty.params.lua", NULL},
    {"models/saving_choice.lua", "income_batch=3", "models/saving_choice.params.lua", NULL},
    {"models/mahler_yum_2024.lua", "wealth_points=5 effort_points=3 shock_points=3 cost_points=2",
     "models/mahler_yum_2024.params.lua", NULL},
    {"models/mahler_yum_2024.lua", "variant=paper wealth_points=4 effort_points=3 shock_points=2 cost_points=2",
     "models/mahler_yum_2024_paper.params.lua", NULL},
    /* Druedahl (2021) at small grids (the paper's take hours) */
    {"models/durables.lua", "n_periods=3 a_points=8 p_points=5 n_points=6 psi_points=3 xi_points=3 c_points=9",
     "models/durables.params.lua", NULL},
    /* the endogenous grid method */
    {"tests/models/egm_cake.lua", "wealth_points=50", "tests/models/egm_cake.params.lua", NULL},
    /* nested EGM: a durable enumerated beside consumption (and the durables' by levels, by grid search) */
    {"tests/models/negm_cake.lua", "wealth_points=30", "tests/models/negm_cake.params.lua", NULL},
    /* its adjusters' durable by integers, their entries still shared (durable_rule=decimal,
     * which float32 decides otherwise by design, is unit_precompute's) */
    {"tests/models/negm_cake.lua", "wealth_points=30 durable_rule=code", "tests/models/negm_cake.params.lua", NULL},
    {"models/durables.lua", "solver=negm n_periods=3 a_points=6 p_points=4 n_points=4 psi_points=3 xi_points=3 "
     "d_points=5 savings_points=40", "models/durables.params.lua", NULL},
    {"models/durables.lua", "solver=vfi_levels n_periods=3 a_points=6 p_points=4 n_points=4 psi_points=3 xi_points=3 "
     "d_points=5 c_points=30", "models/durables.params.lua", NULL},
    /* resources of a lagged asset: the marginal value times d resources / d x */
    {"tests/models/egm_lagged.lua", "a_points=40 n_periods=3", "tests/models/egm_lagged.params.lua", NULL},
    {"tests/models/egm_lagged.lua", "solver=grid a_points=30 consumption_points=300 n_periods=3",
     "tests/models/egm_lagged.params.lua", NULL},
    {"models/iskhakov_2017.lua", "solver=egm wealth_points=60 savings_points=80", "models/iskhakov_2017.params.lua",
     NULL},
    {"models/iskhakov_2017.lua", "solver=egm wealth_points=60 savings_points=80 taste_shocks=true",
     "models/iskhakov_2017_taste_shocks.params.lua", NULL},
    {"models/precautionary_savings.lua", "solver=egm wealth_points=30 savings_points=40",
     "models/precautionary_savings.params.lua", NULL},
    {"models/precautionary_savings_health.lua", "solver=egm wealth_points=30 savings_points=40",
     "models/precautionary_savings_health.params.lua", NULL}, /* a Markov state and a process: the grid's rows */
    {"tests/models/staged.lua", NULL, "tests/models/staged.params.lua", NULL},
    {"tests/models/staged.lua", "variant=continuous", "tests/models/staged.params.lua", NULL},
    {"tests/models/staged.lua", "variant=two types=2 shard=true wealth_batch=6", "tests/models/staged.params.lua",
     "strain=0.4"},
};

/* Whether the generated code agrees with the interpreter to rounding (1e-12
 * relative), not to the bit, as a model that reads the expected next V does:
 * far outside a grid, extrapolation weights of hundreds amplify the last bit
 * of a cell's fraction, which the interpreter finds by search and the
 * kernels by arithmetic on lin and log grids. */
static int rounds(const char *model) { return strstr(model, "grid_edges") != NULL; }

static int solves_by_egm(const lcm_model *model)
{
    const ir_model *m = core_model_ir(model);
    for (int r = 0; r < m->nregimes; ++r)
        if (ir_is_egm(&m->regimes[r])) return 1;
    return 0;
}

/* Whether a kernel of the model reads the expected next V (ir/precompute.h,
 * "ev"): its V then agrees with the inline continuation's to rounding, the
 * sum over the process nodes being associated differently. */
static int reads_expected_v(const lcm_model *model)
{
    int n = core_model_ir(model)->nkernels, any = 0;
    ir_pre *plans = calloc((size_t)n + 1, sizeof *plans);
    test_pre_plans(model, plans);
    for (int k = 0; k < n; ++k) any |= plans[k].ev;
    free(plans);
    return any;
}

/* Whether a kernel of the model solves in stages (ir/eliminate.h). */
static int staged(const lcm_model *model)
{
    int n = core_model_ir(model)->nkernels, any = 0;
    ir_pre *plans = calloc((size_t)n + 1, sizeof *plans);
    test_pre_plans(model, plans);
    for (int k = 0; k < n; ++k) any |= plans[k].elim.nstages > 0;
    free(plans);
    return any;
}

/* The model's solve generated for grid search (LCM_NO_ELIMINATION=1), and
 * in *model its model, which the solution reads. */
static lcm_solution *grid_search(const char *lua, const char *const *defines, const lcm_pvalue *p, lcm_model **out)
{
    lcm_model *model = NULL;
    lcm_solver *s = NULL;
    lcm_solution *sol = NULL;
    lcm_err err = {0};
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    setenv("LCM_NO_ELIMINATION", "1", 1);
    CHECK_OK(test_generate(lua, defines, &model, &err));
    unsetenv("LCM_NO_ELIMINATION");
    if (model) {
        CHECK(!staged(model));
        CHECK_OK(lcm_solver_new(model, &o, &s, &err));
    }
    if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
    lcm_solver_free(s);
    *out = model;
    return sol;
}

/* A model of models/ or tests/models/ missing from the list above fails the test. */
static void every_model_listed(const char *folder)
{
    char *dir = test_path(folder);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".lua") || strstr(e->d_name, ".params.lua") ||
            strstr(e->d_name, ".initial.lua"))
            continue;
        int listed = 0;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
            const char *slash = strrchr(cases[i].model, '/');
            listed |= !strncmp(cases[i].model, folder, strlen(folder)) && !strcmp(slash + 1, e->d_name);
        }
        CHECK_MSG(listed, "%s/%s is not covered by the differential test", folder, e->d_name);
    }
    if (d) closedir(d);
    free(dir);
}

int main(void)
{
    every_model_listed("models");
    every_model_listed("tests/models");
    lcm_err err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        /* the case's -D options, separated by spaces */
        char *options = cases[i].define ? strdup(cases[i].define) : NULL, *save = NULL;
        const char *defines[8] = {NULL};
        for (int d = 0; options && d < 7 && (defines[d] = strtok_r(d ? NULL : options, " ", &save)); ++d) {}
        lcm_pvalue *p = NULL;
        lcm_model *model = NULL;
        CHECK_OK(test_generate(cases[i].model, defines, &model, &err));
        if (!model) continue;
        CHECK_OK(test_params(cases[i].params, &p, &err));
        if (p && cases[i].set) CHECK_OK(cli_params_apply_set(p, cases[i].set, &err));
        enum { NRUNS = 5 };
        lcm_solution *sol[NRUNS] = {0};
        int egm = solves_by_egm(model);
        const struct {
            lcm_backend_kind b;
            int prec, no_tables;
        } runs[NRUNS] = {{LCM_BACKEND_CPU, 64, 0}, {LCM_BACKEND_INTERP, 64, 0}, {LCM_BACKEND_CPU, 32, 0},
                         {LCM_BACKEND_CPU, 64, 0}, {LCM_BACKEND_CPU, 64, 1}};
        for (int k = 0; k < NRUNS; ++k) {
            lcm_solver *s = NULL;
            lcm_solver_options o = {.backend = runs[k].b, .precision = runs[k].prec};
            if (runs[k].no_tables) setenv("LCM_NO_TABLES", "1", 1);
            if (egm && runs[k].b == LCM_BACKEND_INTERP) { /* refused with the reason */
                CHECK(lcm_solver_new(model, &o, &s, &err) == LCM_E_USAGE && strstr(err.msg, "endogenous grid method"));
                err = (lcm_err){0};
                continue;
            }
            CHECK_OK(lcm_solver_new(model, &o, &s, &err));
            if (s) CHECK_OK(lcm_solve(s, p, &sol[k], &err));
            lcm_solver_free(s);
            unsetenv("LCM_NO_TABLES");
        }
        if (sol[0] && (sol[1] || egm) && sol[2] && sol[3] && sol[4]) {
            double d_interp = egm ? 0 : test_max_rel_diff(sol[0], sol[1]);
            double d_f32 = test_max_rel_diff(sol[2], sol[0]);
            double d_again = test_max_rel_diff(sol[3], sol[0]);
            double d_inline = test_max_rel_diff(sol[4], sol[0]);
            printf("%s %s: cpu vs interp %s%.2e, float32 vs float64 %.2e, rerun %.0e, inline continuation %.0e\n",
                   cases[i].model, cases[i].define ? cases[i].define : "", egm ? "(refused: EGM) " : "", d_interp, d_f32,
                   d_again, d_inline);
            int stages = staged(model);
            CHECK(rounds(cases[i].model) || reads_expected_v(model) || stages ? d_interp <= 1e-12 : d_interp == 0);
            CHECK(d_f32 <= 1e-4);
            CHECK(d_again == 0);
            CHECK(reads_expected_v(model) ? d_inline <= 1e-13 : d_inline == 0);
            lcm_model *grid_model = NULL;
            lcm_solution *grid = stages ? grid_search(cases[i].model, defines, p, &grid_model) : NULL;
            if (grid) {
                double d_grid = test_max_rel_diff(sol[0], grid);
                printf("%s %s: staged vs grid search %.2e\n", cases[i].model, cases[i].define ? cases[i].define : "",
                       d_grid);
                CHECK(d_grid <= 1e-13);
            }
            lcm_solution_free(grid);
            lcm_model_free(grid_model);
        }
        for (int k = 0; k < NRUNS; ++k) lcm_solution_free(sol[k]);
        lcm_pv_free(p);
        lcm_model_free(model);
        free(options);
    }
    CHECK_DONE();
}
