/* The staged solve (ir/eliminate.h) on tests/models/staged.lua, against
 * grid search and the interpreter:
 * - the plans: care maximised first into a table over health and saving
 *   (a discrete action, and a continuous one apart from wealth), care then
 *   intensity (two stages in sequence); none where it must not apply
 *   (taste shocks over care, a constraint linking care to wealth,
 *   Epstein-Zin), each with its reason;
 * - V equals grid search's (generated with LCM_NO_ELIMINATION=1) to 1e-13
 *   relative, and the interpreter's (brute force), also with types sharded
 *   over 2 and 3 workers, wealth and health splayed, and the stages' rows
 *   made by each state itself (LCM_NO_TABLES=1);
 * - the simulated panel's paths equal grid search's but where two choices
 *   tie, each such row checked to be a tie (Q of both within 1e-12 by the
 *   interpreter), and the panel is the same for every subject batch size,
 *   worker count and splay.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eliminate.h"
#include "files.h"
#include "interp_point.h"
#include "lcm_internal.h"
#include "panel.h"
#include "params_lua.h"
#include "solver_internal.h"
#include "testlib.h"

#define MODEL "tests/models/staged.lua"
#define PARAMS "tests/models/staged.params.lua"

/* The parameters of a variant: the common ones and its own. */
static lcm_pvalue *params_of(const char *variant)
{
    lcm_pvalue *p = NULL;
    lcm_err err = {0};
    CHECK_OK(test_params(PARAMS, &p, &err));
    const char *own = !strcmp(variant, "two")      ? "strain=0.4"
                      : !strcmp(variant, "taste")  ? "taste_scale=0.3"
                      : !strcmp(variant, "linked") ? "care_price=20"
                      : !strcmp(variant, "ez")     ? "alpha=3"
                                                   : NULL;
    if (p && own) CHECK_OK(cli_params_apply_set(p, own, &err));
    return p;
}

/* The model with options (NULL-terminated "name=value"), staged or, with
 * brute, generated for grid search. */
static lcm_model *model_of(const char *const *defines, int brute)
{
    lcm_model *m = NULL;
    lcm_err err = {0};
    if (brute) setenv("LCM_NO_ELIMINATION", "1", 1);
    CHECK_OK(test_generate(MODEL, defines, &m, &err));
    unsetenv("LCM_NO_ELIMINATION");
    return m;
}

/* The staged solve of the model's first alive kernel. */
static ir_elim plan_of(const lcm_model *model)
{
    const ir_model *m = core_model_ir(model);
    ir_pre *plans = calloc((size_t)m->nkernels + 1, sizeof *plans);
    test_pre_plans(model, plans);
    ir_elim e = plans[0].elim;
    free(plans);
    return e;
}

static void expect_plan(const char *variant, int nstages, const char *first, const char *second, const char *why)
{
    char option[64];
    snprintf(option, sizeof option, "variant=%s", variant);
    const char *defines[] = {option, NULL};
    lcm_model *model = model_of(defines, 0);
    if (!model) return;
    const ir_model *m = core_model_ir(model);
    const ir_regime *r = &m->regimes[m->kernels[0].regime];
    ir_elim e = plan_of(model);
    CHECK_MSG(e.nstages == nstages, "%s: %d stages (expected %d; %s)", variant, e.nstages, nstages, e.why);
    if (e.nstages > 0 && first) CHECK(!strcmp(r->actions[e.stage[0].action].name, first));
    if (e.nstages > 1 && second) CHECK(!strcmp(r->actions[e.stage[1].action].name, second));
    if (nstages) CHECK_MSG(e.staged < e.pairs / 2, "%s: %g of %g evaluations", variant, e.staged, e.pairs);
    if (why) CHECK_MSG(strstr(e.why, why), "%s: why '%s' (expected '%s')", variant, e.why, why);
    /* care's table covers health and saving, not wealth (a stage of the
     * continuation: E reads care through health's probabilities) */
    if (nstages && !strcmp(variant, "discrete")) {
        const ir_stage *st = &e.stage[0];
        int health = -1, saving = -1;
        for (int i = 0; i < r->nstates; ++i) health = !strcmp(r->states[i].name, "health") ? i : health;
        for (int j = 0; j < r->nactions; ++j) saving = !strcmp(r->actions[j].name, "saving") ? j : saving;
        CHECK_MSG(st->cont && health >= 0 && saving >= 0 && st->shape.states == 1ull << health &&
                      st->shape.actions == 1ull << saving && st->shape.whole == 2 * 25,
                  "care's table: cont %d, states %#llx, actions %#llx, %lld entries", st->cont,
                  (unsigned long long)st->shape.states, (unsigned long long)st->shape.actions, st->shape.whole);
    }
    lcm_model_free(model);
}

static lcm_solution *solve(const lcm_model *model, const lcm_pvalue *p, lcm_backend_kind backend, int devices)
{
    lcm_solver_options o = {.backend = backend, .precision = 64, .devices = devices};
    lcm_solver *s = NULL;
    lcm_solution *sol = NULL;
    lcm_err err = {0};
    CHECK_OK(lcm_solver_new(model, &o, &s, &err));
    if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
    lcm_solver_free(s);
    return sol;
}

/* 41 subjects at age 0: wealth between the grid's points, either health
 * (and with types, each type). */
static lcm_initial *subjects(const lcm_model *model, int types)
{
    lcm_sb text;
    base_sb_init(&text);
    base_sb_printf(&text, "regime,age,health,wealth%s\n", types > 1 ? ",kind" : "");
    for (int i = 0; i <= 40; ++i) {
        base_sb_printf(&text, "alive,0,%s,%.17g", i % 2 ? "well" : "sick", 0.3 + i * 0.2371);
        if (types > 1) base_sb_printf(&text, ",%d", i % types);
        base_sb_putc(&text, '\n');
    }
    char *dir = test_tmpdir("staged"), *path = base_path_join(dir, "initial.csv");
    lcm_err err = {0};
    lcm_initial *ic = NULL;
    CHECK_OK(sys_write_file_atomic(path, text.s, text.len, &err));
    CHECK_OK(lcm_initial_read(model, path, &ic, &err));
    remove(path), remove(dir);
    free(path), free(dir);
    base_sb_free(&text);
    return ic;
}

static lcm_panel *simulate(const lcm_model *model, const lcm_solution *sol, const lcm_initial *ic, lcm_index batch,
                           int devices)
{
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64, .devices = devices};
    lcm_solver *s = NULL;
    lcm_panel *p = NULL;
    lcm_err err = {0};
    lcm_sim_options so = {.seed = 7, .subject_batch_size = batch};
    CHECK_OK(lcm_solver_new(model, &o, &s, &err));
    if (s) CHECK_OK(lcm_simulate(s, sol, ic, &so, &p, &err));
    lcm_solver_free(s);
    return p;
}

typedef struct next_ctx {
    const lcm_solution *sol;
    int period;
} next_ctx;

/* V of the solution at period t + 1 for the interpreter's point. */
static double vnext_at(const void *ctx, int regime, lcm_index i)
{
    const next_ctx *c = ctx;
    return lcm_solution_value(c->sol, c->period + 1, regime, i);
}

/* Q by the interpreter at row i of a panel (its state) and the action of
 * row i of panel `choice` (its actions' codes). */
static double q_at(const lcm_model *model, const lcm_solution *sol, const lcm_pvalue *p, const lcm_panel *panel,
                   const lcm_panel *choice, lcm_index i)
{
    const ir_model *m = core_model_ir(model);
    int t = panel->period[i], rid = panel->regime[i];
    const ir_regime *r = &m->regimes[rid];
    double *params = calloc(m->params_size + 1, sizeof *params);
    lcm_err err = {0};
    CHECK_OK(core_params_resolve(m, p, params, &err));
    next_ctx ctx = {sol, t};
    lcm_point pt = {.m = m, .k = &m->kernels[m->period_kernel[rid * m->nperiods + t]], .r = r, .L = &sol->layout,
                    .G = sol->grids, .params = params, .vnext = vnext_at, .vnext_ctx = &ctx, .age = m->ages[t],
                    .period = t};
    pt.vals = calloc(r->nnodes + 1, sizeof *pt.vals);
    ir_vars V;
    ir_vars_build(m, &V);
    for (int s = 0; s < r->nstates; ++s) pt.x[s] = panel->x[V.state_slot[rid][s]][i];
    for (int j = 0; j < r->nactions; ++j) pt.act[j] = choice->act[V.action_slot[rid][j]][i];
    ir_point_eval(&pt);
    double q = pt.feasible ? pt.q : -INFINITY;
    ir_vars_free(&V);
    free(pt.vals), free(params);
    return q;
}

/* The staged panel against grid search's: the same paths but at ties. */
static void same_paths_but_ties(const char *what, const lcm_model *model, const lcm_solution *sol,
                                const lcm_pvalue *p, const lcm_panel *staged, const lcm_panel *brute)
{
    CHECK_MSG(staged->n == brute->n, "%s: %lld rows, grid search %lld", what, (long long)staged->n, (long long)brute->n);
    if (staged->n != brute->n) return;
    int na = staged->vars.nactions, ties = 0, other = 0;
    unsigned long long differed = ~0ull; /* the subject whose choice differed: a tie changes its path from there on */
    for (lcm_index i = 0; i < staged->n; ++i) {
        if (i > 0 && staged->subject[i] == staged->subject[i - 1] && differed == staged->subject[i]) continue;
        int differs = 0;
        for (int j = 0; j < na; ++j) {
            double a = staged->act[j][i], b = brute->act[j][i];
            differs |= !(a == b || (isnan(a) && isnan(b)));
        }
        if (!differs) continue;
        double qa = q_at(model, sol, p, staged, staged, i), qb = q_at(model, sol, p, staged, brute, i);
        if (fabs(qa - qb) <= 1e-12 * fmax(1, fabs(qb))) ++ties;
        else ++other;
        differed = staged->subject[i];
    }
    printf("%s: %lld rows, %d choices differ from grid search's, each a tie: %s\n", what, (long long)staged->n, ties,
           other ? "no" : "yes");
    CHECK_MSG(!other, "%s: %d choices differ from grid search's without a tie", what, other);
    if (!ties) CHECK_MSG(test_panel_path_diff(staged, brute) == 0, "%s: the paths differ", what);
}

/* A variant with options: V against grid search and the interpreter, the
 * panel's paths, and the knobs. */
static void check_variant(const char *variant, const char *const *extra, int types)
{
    const char *defines[8] = {NULL};
    char option[64];
    snprintf(option, sizeof option, "variant=%s", variant);
    int n = 0;
    defines[n++] = option;
    for (int i = 0; extra && extra[i] && n < 7; ++i) defines[n++] = extra[i];
    lcm_pvalue *p = params_of(variant);
    lcm_model *staged = model_of(defines, 0), *brute = model_of(defines, 1);
    if (!staged || !brute || !p) return;
    CHECK(plan_of(staged).nstages > 0 && plan_of(brute).nstages == 0);
    lcm_solution *s = solve(staged, p, LCM_BACKEND_CPU, 1), *b = solve(brute, p, LCM_BACKEND_CPU, 1);
    lcm_solution *ip = solve(staged, p, LCM_BACKEND_INTERP, 1);
    setenv("LCM_NO_TABLES", "1", 1); /* each state makes its stages' rows */
    lcm_solution *own = solve(staged, p, LCM_BACKEND_CPU, 1);
    unsetenv("LCM_NO_TABLES");
    lcm_solution *shared = types > 1 ? solve(staged, p, LCM_BACKEND_CPU, types) : NULL;
    char what[160];
    snprintf(what, sizeof what, "%s%s%s%s%s", variant, extra && extra[0] ? " " : "", extra && extra[0] ? extra[0] : "",
             extra && extra[0] && extra[1] ? " " : "", extra && extra[0] && extra[1] ? extra[1] : "");
    if (s && b && ip && own) {
        double db = test_max_rel_diff(s, b), di = test_max_rel_diff(s, ip), dn = test_max_rel_diff(s, own);
        printf("%s: V against grid search %.2e, the interpreter %.2e, rows made by the states %.2e\n", what, db, di,
               dn);
        CHECK_MSG(db <= 1e-13 && di <= 1e-12 && dn <= 1e-13, "%s: V differs: %g %g %g", what, db, di, dn);
    }
    if (s && shared) CHECK_MSG(test_max_rel_diff(s, shared) == 0, "%s: %d workers give another V", what, types);
    lcm_initial *ic = s && b ? subjects(staged, types) : NULL, *ib = ic ? subjects(brute, types) : NULL;
    if (ic && ib) {
        lcm_panel *ps = simulate(staged, s, ic, 0, 1), *pb = simulate(brute, b, ib, 0, 1);
        same_paths_but_ties(what, staged, s, p, ps, pb);
        for (lcm_index batch = 1; batch <= 7; batch += 6) {
            lcm_panel *again = simulate(staged, s, ic, batch, 1);
            CHECK_MSG(test_panel_diff(ps, again) == 0, "%s: batches of %lld give another panel", what, (long long)batch);
            lcm_panel_free(again);
        }
        if (types > 1) {
            lcm_panel *workers = simulate(staged, s, ic, 0, types);
            CHECK_MSG(test_panel_diff(ps, workers) == 0, "%s: %d workers give another panel", what, types);
            lcm_panel_free(workers);
        }
        lcm_panel_free(ps), lcm_panel_free(pb);
    }
    lcm_initial_free(ic), lcm_initial_free(ib);
    lcm_solution_free(s), lcm_solution_free(b), lcm_solution_free(ip), lcm_solution_free(own);
    lcm_solution_free(shared);
    lcm_model_free(staged), lcm_model_free(brute);
    lcm_pv_free(p);
}

int main(void)
{
    expect_plan("discrete", 1, "care", NULL, NULL);
    expect_plan("continuous", 1, "care", NULL, NULL);
    expect_plan("two", 2, "care", "intensity", NULL);
    expect_plan("taste", 0, NULL, NULL, "taste shocks smooth the best over the discrete choices");
    expect_plan("linked", 0, NULL, NULL, "'care' not maximised first: its constraints read wealth too");
    expect_plan("ez", 0, NULL, NULL, "Epstein-Zin");
    check_variant("discrete", NULL, 1);
    check_variant("continuous", NULL, 1);
    check_variant("two", NULL, 1);
    const char *splay[] = {"wealth_batch=7", "health_batch=1", NULL};
    check_variant("discrete", splay, 1);
    const char *sharded[] = {"types=3", "shard=true", NULL};
    check_variant("discrete", sharded, 3);
    const char *sharded_two[] = {"types=2", "shard=true", NULL};
    check_variant("two", sharded_two, 2);
    CHECK_DONE();
}
