/* The two knobs of a state axis leave V and panels unchanged, exactly:
 * - shard: tests/models/sharded.lua with one sharded state (3 values) and
 *   two (3 x 2), over 2, 3 and 7 workers of one process (--devices; 3 and 7
 *   do not divide the values: padding), solved and simulated, equals the
 *   unsharded model on one worker, on the cpu backend and the interpreter
 *   (each against itself);
 * - splay: batch_size on the continuous wealth, the Markov health and the
 *   fixed discrete type gives the V of batch_size = 0;
 * - both on a continuation table that reads a sharded state and a splayed
 *   one (models/saving_choice.lua with types): each worker's table covers
 *   its block, each launch's its chunk;
 * - the expected next V of shock processes and a Markov state
 *   (tests/models/expected_v.lua), which each worker makes whole, on 1 to
 *   3 workers, sharded and splayed;
 * - a regime solved by the endogenous grid method (tests/models/egm_cake.lua
 *   with 3 types): its V and its panel (whose EGM step reads the marginal
 *   values the workers' blocks put together), sharded over 2 and 3 workers
 *   and splayed; and the types' V, their scale times the V of the cake
 *   without types.
 * (Several MPI ranks: tests/integration/test_mpi.sh.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "layout.h"
#include "testlib.h"

static lcm_model *generate(const char *axes, const char *splay)
{
    char a[32], s[32];
    snprintf(a, sizeof a, "axes=%s", axes);
    snprintf(s, sizeof s, "splay=%s", splay);
    const char *defines[] = {a, s, NULL};
    lcm_model *m = NULL;
    lcm_err err = {0};
    if (test_generate("tests/models/sharded.lua", defines, &m, &err)) {
        fprintf(stderr, "sharded.lua %s %s: %s\n", a, s, err.msg);
        exit(1);
    }
    return m;
}

typedef struct run {
    lcm_solution *sol;
    lcm_panel *panel;
} run;

/* Solves model m with the parameters of `params` (a path from the source
 * tree) on `devices` workers and simulates the subjects of `initial` (a
 * full path); any failure ends the test. */
static run solve_and_simulate_from(lcm_model *m, const char *params, const char *initial, lcm_backend_kind backend,
                                   int devices, int precision)
{
    run r = {0};
    lcm_err err = {0};
    lcm_pvalue *p = NULL;
    lcm_initial *ic = NULL;
    lcm_solver *s = NULL;
    lcm_solver_options o = {.backend = backend, .devices = devices, .precision = precision};
    lcm_sim_options so = {.seed = 4, .subject_batch_size = 13};
    if (test_params(params, &p, &err) || lcm_initial_read(m, initial, &ic, &err) ||
        lcm_solver_new(m, &o, &s, &err) || lcm_solve(s, p, &r.sol, &err) ||
        lcm_simulate(s, r.sol, ic, &so, &r.panel, &err)) {
        fprintf(stderr, "%d devices: %s\n", devices, err.msg);
        exit(1);
    }
    lcm_solver_free(s);
    lcm_initial_free(ic);
    lcm_pv_free(p);
    return r;
}

/* Solves and simulates sharded.lua's bundled subjects on `devices` workers. */
static run solve_and_simulate(lcm_model *m, lcm_backend_kind backend, int devices, int precision)
{
    char *init = test_path("tests/models/sharded.initial.csv");
    run r = solve_and_simulate_from(m, "tests/models/sharded.params.lua", init, backend, devices, precision);
    free(init);
    return r;
}

static void release(run *r)
{
    lcm_solution_free(r->sol);
    lcm_panel_free(r->panel);
}

/* Model `lua` (NULL-terminated defines) solved on the cpu backend or the
 * interpreter by `devices` workers, with parameter `extra` (NULL: none) set
 * to extra_value: V, and its model (*model, which V refers to); any
 * failure ends the test. */
static lcm_solution *solve_on(const char *lua, const char *const *defines, const char *params, const char *extra,
                              double extra_value, lcm_backend_kind backend, int devices, lcm_model **model)
{
    lcm_model *m = NULL;
    lcm_pvalue *p = NULL;
    lcm_solver *s = NULL;
    lcm_solution *sol = NULL;
    lcm_solver_options o = {.backend = backend, .devices = devices};
    lcm_err err = {0};
    if (test_generate(lua, defines, &m, &err) || test_params(params, &p, &err)) {
        fprintf(stderr, "%s: %s\n", lua, err.msg);
        exit(1);
    }
    if (extra) lcm_pv_put(p, extra, lcm_pv_num(extra_value));
    if (lcm_solver_new(m, &o, &s, &err) || lcm_solve(s, p, &sol, &err)) {
        fprintf(stderr, "%s on %d devices: %s\n", lua, devices, err.msg);
        exit(1);
    }
    lcm_solver_free(s);
    lcm_pv_free(p);
    *model = m;
    return sol;
}

/* saving_choice.lua with 3 sharded types on `devices` workers, income
 * splayed by `batch` (0: not). */
static lcm_solution *solve_types(lcm_backend_kind backend, int devices, int batch, lcm_model **model)
{
    char b[32];
    snprintf(b, sizeof b, "income_batch=%d", batch);
    const char *defines[] = {"types=3", "wealth_points=25", b, NULL};
    return solve_on("models/saving_choice.lua", defines, "models/saving_choice.params.lua", "patience_gap", 0.25,
                    backend, devices, model);
}

static void sharded_tables(void)
{
    lcm_model *base_model, *m;
    lcm_solution *base = solve_types(LCM_BACKEND_INTERP, 1, 0, &base_model);
    const int devices[] = {1, 2, 3, 7}, batches[] = {0, 3};
    for (int d = 0; d < 4; ++d)
        for (int k = 0; k < 2; ++k) {
            lcm_solution *sol = solve_types(LCM_BACKEND_CPU, devices[d], batches[k], &m);
            double dv = test_max_rel_diff(sol, base);
            printf("continuation table of 3 sharded types on %d workers, income batch_size %d: V differs from the "
                   "interpreter by %g\n", devices[d], batches[k], dv);
            CHECK(dv == 0);
            lcm_solution_free(sol);
            lcm_model_free(m);
        }
    lcm_solution_free(base);
    lcm_model_free(base_model);
}

/* tests/models/expected_v.lua (its solve reads the expected next V of its
 * shock processes, ir/precompute.h "ev") on `devices` workers, its type
 * sharded and its wealth splayed when `knobs`. */
static lcm_solution *solve_expected_v(int knobs, int devices, lcm_model **model)
{
    const char *defines[] = {knobs ? "shard=true" : "shard=false", knobs ? "splay=true" : "splay=false", NULL};
    return solve_on("tests/models/expected_v.lua", defines, "tests/models/expected_v.params.lua", NULL, 0,
                    LCM_BACKEND_CPU, devices, model);
}

/* Every worker makes the whole expected V from the whole V_{t+1}: the same
 * bits on any number of workers, sharded and splayed or not. */
static void sharded_expected_v(void)
{
    lcm_model *base_model, *m;
    lcm_solution *base = solve_expected_v(0, 1, &base_model);
    const int devices[] = {1, 2, 3};
    for (int d = 0; d < 3; ++d) {
        lcm_solution *sol = solve_expected_v(1, devices[d], &m);
        double dv = test_max_rel_diff(sol, base);
        printf("expected V, sharded type and splayed wealth on %d workers: V differs by %g\n", devices[d], dv);
        CHECK(dv == 0);
        lcm_solution_free(sol);
        lcm_model_free(m);
    }
    lcm_solution_free(base);
    lcm_model_free(base_model);
}

/* ---- the endogenous grid method ------------------------------------------------ */

/* tests/models/egm_cake.lua with the defines (NULL-terminated). */
static lcm_model *egm_cake(const char *const *defines)
{
    lcm_model *m = NULL;
    lcm_err err = {0};
    if (test_generate("tests/models/egm_cake.lua", defines, &m, &err)) {
        fprintf(stderr, "egm_cake.lua: %s\n", err.msg);
        exit(1);
    }
    return m;
}

/* The largest relative difference between V of the cake with types at
 * (wealth i, type k) and 1 + k / 10 times V of the cake without them at
 * wealth i, over every period and regime (both are eaten the same way). */
static double type_scale_error(const lcm_model *typed, const lcm_solution *sol, const lcm_solution *plain)
{
    const ir_model *m = core_model_ir(typed);
    double worst = 0;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *reg = &m->regimes[r];
        int w = ir_find_state(reg, "wealth"), k = ir_find_state(reg, "kind");
        long long *stride = calloc((size_t)reg->nstates, sizeof *stride);
        ir_strides(reg, stride);
        for (int t = 0; t < m->nperiods; ++t) {
            if (!reg->active[t]) continue;
            for (int i = 0; i < reg->states[w].grid.n; ++i)
                for (int c = 0; c < reg->states[k].grid.n; ++c) {
                    double v = lcm_solution_value(sol, t, r, i * stride[w] + c * stride[k]);
                    double want = (1 + c / 10.0) * lcm_solution_value(plain, t, r, i);
                    double d = fabs(v - want) / fmax(1, fabs(want));
                    worst = d > worst || d != d ? d : worst;
                }
        }
        free(stride);
    }
    return worst;
}

/* An EGM regime's marginal values are part of what a worker solves: with
 * 2 and 3 workers (its type sharded) and with wealth or the type splayed,
 * V and the simulated panel (whose EGM step reads the marginal values of
 * the solution put together) are those of one worker. */
static void egm_knobs(void)
{
    char *initial = test_path("tests/models/egm_cake_types.initial.csv");
    const char *params = "tests/models/egm_cake.params.lua";
    lcm_model *plain_model, *typed = egm_cake((const char *[]){"types=3", NULL});
    lcm_solution *plain =
        solve_on("tests/models/egm_cake.lua", NULL, params, NULL, 0, LCM_BACKEND_CPU, 1, &plain_model);
    run base = solve_and_simulate_from(typed, params, initial, LCM_BACKEND_CPU, 1, 64);
    double scale = type_scale_error(typed, base.sol, plain);
    printf("EGM, 3 types: V against the scale times V without types: %.2e\n", scale);
    CHECK(scale < 1e-12);
    const struct {
        const char *define[2];
        int devices;
    } knobs[] = {
        {{"shard=true"}, 2}, {{"shard=true"}, 3}, {{"wealth_batch=64"}, 1},
        {{"kind_batch=1", "wealth_batch=7"}, 1}, {{"shard=true", "wealth_batch=30"}, 2},
    };
    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; ++i) {
        const char *defines[] = {"types=3", knobs[i].define[0], knobs[i].define[1], NULL};
        lcm_model *m = egm_cake(defines);
        run r = solve_and_simulate_from(m, params, initial, LCM_BACKEND_CPU, knobs[i].devices, 64);
        double dv = test_max_rel_diff(r.sol, base.sol), dp = test_panel_diff(r.panel, base.panel);
        printf("EGM, 3 types, %s%s%s on %d workers: V differs by %g, panel by %g\n", knobs[i].define[0],
               knobs[i].define[1] ? " " : "", knobs[i].define[1] ? knobs[i].define[1] : "", knobs[i].devices, dv, dp);
        CHECK(dv == 0);
        CHECK(dp == 0 && lcm_panel_rows(r.panel) == lcm_panel_rows(base.panel));
        release(&r);
        lcm_model_free(m);
    }
    release(&base);
    lcm_solution_free(plain);
    lcm_model_free(plain_model), lcm_model_free(typed);
    free(initial);
}

/* Nested EGM (tests/models/negm_cake.lua: a durable enumerated beside
 * consumption) with wealth or the durable stock splayed: V and the panel
 * are those of one chunk. */
static void negm_splay(void)
{
    char *initial = test_path("tests/models/negm_cake.initial.csv");
    const char *params = "tests/models/negm_cake.params.lua";
    lcm_model *plain = NULL;
    lcm_err err = {0};
    CHECK_OK(test_generate("tests/models/negm_cake.lua", (const char *[]){"wealth_points=40", NULL}, &plain, &err));
    if (!plain) return;
    run base = solve_and_simulate_from(plain, params, initial, LCM_BACKEND_CPU, 1, 64);
    const char *knobs[][2] = {{"wealth_batch=7", NULL}, {"n_batch=3", NULL}, {"wealth_batch=16", "n_batch=1"}};
    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; ++i) {
        const char *defines[] = {"wealth_points=40", knobs[i][0], knobs[i][1], NULL};
        lcm_model *m = NULL;
        CHECK_OK(test_generate("tests/models/negm_cake.lua", defines, &m, &err));
        if (!m) continue;
        run r = solve_and_simulate_from(m, params, initial, LCM_BACKEND_CPU, 1, 64);
        double dv = test_max_rel_diff(r.sol, base.sol), dp = test_panel_diff(r.panel, base.panel);
        printf("nested EGM, %s%s%s: V differs by %g, panel by %g\n", knobs[i][0], knobs[i][1] ? " " : "",
               knobs[i][1] ? knobs[i][1] : "", dv, dp);
        CHECK(dv == 0);
        CHECK(dp == 0 && lcm_panel_rows(r.panel) == lcm_panel_rows(base.panel));
        release(&r);
        lcm_model_free(m);
    }
    release(&base);
    lcm_model_free(plain);
    free(initial);
}

int main(void)
{
    egm_knobs();
    negm_splay();
    sharded_tables();
    sharded_expected_v();
    /* each backend against itself: the cpu's solve reads the expected next
     * V of the health state, whose V agrees with the interpreter's to
     * rounding only (docs/internals.md) */
    lcm_model *plain = generate("0", "none");
    run base = solve_and_simulate(plain, LCM_BACKEND_CPU, 1, 64);
    run base_interp = solve_and_simulate(plain, LCM_BACKEND_INTERP, 1, 64);
    const char *axes[] = {"1", "2"};
    const int devices[] = {2, 3, 7};
    for (int a = 0; a < 2; ++a) {
        lcm_model *m = generate(axes[a], "none");
        for (int d = 0; d < 3; ++d)
            for (int b = LCM_BACKEND_CPU; b <= LCM_BACKEND_INTERP; b += LCM_BACKEND_INTERP - LCM_BACKEND_CPU) {
                if (b == LCM_BACKEND_INTERP && d != 1) continue; /* the interpreter once: it is slow */
                run r = solve_and_simulate(m, (lcm_backend_kind)b, devices[d], 64);
                const run *same = b == LCM_BACKEND_CPU ? &base : &base_interp;
                double dv = test_max_rel_diff(r.sol, same->sol), dp = test_panel_diff(r.panel, same->panel);
                printf("%s sharded state(s) on %d workers (%s): V differs by %g, panel by %g\n", axes[a], devices[d],
                       b == LCM_BACKEND_CPU ? "cpu" : "interp", dv, dp);
                CHECK(dv == 0);
                CHECK(dp == 0);
                release(&r);
            }
        if (a == 1) { /* float32: each worker's cells come home (simulate.c), its own subjects only */
            run one = solve_and_simulate(m, LCM_BACKEND_CPU, 1, 32), three = solve_and_simulate(m, LCM_BACKEND_CPU, 3, 32);
            double dp = test_panel_diff(three.panel, one.panel);
            printf("2 sharded states, float32: 3 workers against 1, panel by %g\n", dp);
            CHECK(dp == 0 && lcm_panel_rows(three.panel) == lcm_panel_rows(one.panel));
            release(&one), release(&three);
        }
        lcm_model_free(m);
    }
    const char *splays[] = {"wealth", "health", "kind"};
    for (int k = 0; k < 3; ++k) {
        lcm_model *m = generate("0", splays[k]);
        run r = solve_and_simulate(m, LCM_BACKEND_CPU, 1, 64);
        double dv = test_max_rel_diff(r.sol, base.sol);
        printf("batch_size on %s: V differs by %g\n", splays[k], dv);
        CHECK(dv == 0);
        CHECK(test_panel_diff(r.panel, base.panel) == 0);
        release(&r);
        lcm_model_free(m);
    }
    /* splay and shard together, on the interpreter too */
    lcm_model *both = generate("2", "wealth");
    run r = solve_and_simulate(both, LCM_BACKEND_INTERP, 3, 64);
    CHECK(test_max_rel_diff(r.sol, base_interp.sol) == 0);
    release(&r);
    lcm_model_free(both);
    release(&base), release(&base_interp);
    lcm_model_free(plain);
    CHECK_DONE();
}
