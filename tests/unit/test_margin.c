/* The consumption-saving margin of a regime (ir.h, ir_egm; gen/dsl/egm_plan.lua):
 *   - grid-search regimes get it where EGM's checks hold (precautionary
 *     savings, Iskhakov et al. 2017 by default), with d resources / d x the
 *     constant 1, and keep in margin_why why not (durables by shares: its
 *     utility reads the durable d = d_share x, so the liquid state); the
 *     liquid state among several continuous ones is the one the action's
 *     savings feed (durables by levels: a_lag); their kernels read none of it; a terminal regime
 *     without actions that only they move into has d utility / d x for
 *     the Euler errors alone (euler_marginal), which no kernel reads;
 *   - nested EGM: a continuous action before the EGM action is enumerated
 *     as discrete ones are (ir_egm_enumerated, ir_egm_choices);
 *   - the manifest carries it (round trip);
 *   - an EGM regime whose resources are not its liquid state
 *     (tests/models/egm_lagged.lua: resources = gross * a_lag) keeps the
 *     marginal value of a_lag, marginal utility times gross, so that its V
 *     follows the closed form. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "grid.h"
#include "lcmgen.h"
#include "manifest.h"
#include "testlib.h"

/* The model generated with option `define` (NAME=VALUE, or NULL), its
 * kernels' source in *source where given (else they must read no margin:
 * a grid-search model). */
static void generate_with(const char *lua, const char *define, ir_model *m, char **source)
{
    lcm_err err = {0};
    char *path = test_path(lua);
    lcmgen_output gen;
    memset(m, 0, sizeof *m);
    char name[64] = "", *eq = define ? strchr(define, '=') : NULL;
    if (eq) snprintf(name, sizeof name, "%.*s", (int)(eq - define), define);
    ir_option opt = {.name = name, .value = eq ? eq + 1 : NULL};
    const lcmgen_inputs in = {.defines = &opt, .ndefines = 1};
    CHECK_OK(lcmgen_generate(path, eq ? &in : NULL, &gen, &err));
    free(path);
    if (check_failures) return;
    CHECK_OK(ir_manifest_read(gen.manifest, m, &err));
    lcm_sb back; /* the manifest round-trips (euler_marginal included) */
    base_sb_init(&back);
    ir_manifest_write(m, &back);
    CHECK_MSG(back.s && !strcmp(back.s, gen.manifest), "%s: the manifest does not round-trip", lua);
    base_sb_free(&back);
    if (source) *source = base_xstrdup(gen.source);
    else
        CHECK_MSG(!strstr(gen.source, "egm_marginal") && !strstr(gen.source, "egm_savings"),
                  "%s: a grid-search kernel reads the margin", lua);
    lcmgen_output_free(&gen);
}

static void generate(const char *lua, ir_model *m) { generate_with(lua, NULL, m, NULL); }

static const ir_regime *regime(const ir_model *m, const char *name)
{
    int i = ir_find_regime(m, name);
    CHECK_MSG(i >= 0, "no regime '%s'", name);
    return i >= 0 ? &m->regimes[i] : NULL;
}

/* A grid-search regime with the margin of state x and action c, d resources / d x = 1. */
static void has_margin(const ir_model *m, const char *name, const char *x, const char *c)
{
    const ir_regime *r = regime(m, name);
    if (!r) return;
    CHECK_MSG(ir_has_margin(r) && !ir_is_egm(r) && !r->margin_why, "regime '%s': no margin (%s)", name,
              r->margin_why ? r->margin_why : "no reason");
    if (!ir_has_margin(r)) return;
    CHECK(!strcmp(r->states[r->egm.state].name, x));
    CHECK(!strcmp(r->actions[r->egm.action].name, c));
    int d = r->egm.dresources;
    CHECK(d >= 0 && (size_t)d < r->nnodes && r->nodes[d].op == OP_CONST && r->nodes[d].k == 1.0);
    CHECK(!ir_margin_scaled(r));
    CHECK(r->egm.resources >= 0 && r->egm.discount >= 0 && r->egm.marginal >= 0 && r->egm.policy >= 0);
    CHECK(r->margin_nodes > 0 && (size_t)r->margin_nodes <= r->nnodes);
    int any = 0;
    for (int t = 0; t < r->ntargets; ++t) any |= r->egm.next[t] >= 0 && r->egm.dnext[t] >= 0;
    CHECK_MSG(any, "regime '%s': no target carries '%s'", name, x);
}

static void grid_search_margins(void)
{
    ir_model m;
    generate("models/precautionary_savings.lua", &m);
    has_margin(&m, "alive", "wealth", "consumption");
    ir_model_free(&m);
    generate("models/iskhakov_2017.lua", &m);
    has_margin(&m, "working_life", "wealth", "consumption");
    has_margin(&m, "retirement", "wealth", "consumption");
    const ir_regime *dead = regime(&m, "dead");
    CHECK(dead && !ir_has_margin(dead) && !dead->margin_why); /* terminal: neither */
    ir_model_free(&m);
    generate("models/durables.lua", &m);
    const ir_regime *r = regime(&m, "alive");
    CHECK(r && !ir_has_margin(r));
    /* its two continuous actions are fine (d_share enumerated beside c_share, the last), and the
     * liquid state among three is a_lag, which c_share's savings feed; but the durable d = d_share x
     * puts it into utility */
    CHECK_MSG(r && r->margin_why && strstr(r->margin_why, "utility depends on the liquid state 'a_lag'"),
              "durables: margin_why '%s'", r && r->margin_why ? r->margin_why : "(null)");
    ir_model_free(&m);
    /* by levels (grid search over negm's actions): a margin with a_lag among three continuous states */
    generate_with("models/durables.lua", "solver=vfi_levels", &m, NULL);
    r = regime(&m, "alive");
    CHECK_MSG(r && ir_has_margin(r) && !strcmp(r->states[r->egm.state].name, "a_lag") &&
                  !strcmp(r->actions[r->egm.action].name, "c") && ir_margin_scaled(r),
              "durables by levels: no margin on a_lag and c (%s)", r && r->margin_why ? r->margin_why : "");
    ir_model_free(&m);
    /* a terminal regime without actions carrying x that only grid search
     * moves into: d utility / d x for the Euler errors alone, which no
     * kernel reads (no marginal value kept: LCM_MARGINAL 0 everywhere) */
    char *source = NULL;
    generate_with("tests/models/egm_cake.lua", "solver=grid", &m, &source);
    has_margin(&m, "eating", "wealth", "consumption");
    const ir_regime *last = regime(&m, "last_bite");
    CHECK(last && last->euler_marginal && !last->terminal_marginal && ir_has_terminal_marginal(last) &&
          ir_marginal_state(last) < 0 && !strcmp(last->states[last->marginal_state].name, "wealth") &&
          last->marginal >= 0 && (size_t)last->marginal < last->nnodes);
    CHECK_MSG(source && !strstr(source, "egm_marginal") && !strstr(source, "#define LCM_MARGINAL 2"),
              "egm_cake by grid search: a kernel reads or keeps a marginal value");
    free(source);
    ir_model_free(&m);
    /* the same solved by EGM: the kernel keeps it */
    generate_with("tests/models/egm_cake.lua", NULL, &m, &source);
    last = regime(&m, "last_bite");
    CHECK(last && last->terminal_marginal && !last->euler_marginal && ir_marginal_state(last) == 0);
    CHECK(source && strstr(source, "#define LCM_MARGINAL 2"));
    free(source);
    ir_model_free(&m);
}

/* Nested EGM (tests/models/negm_cake.lua): the durable d, continuous,
 * enumerated beside the discrete adjust, consumption c the EGM action and
 * the last; the endogenous grid's choices are their combinations. */
static void nested(void)
{
    ir_model m;
    char *source = NULL;
    generate_with("tests/models/negm_cake.lua", NULL, &m, &source);
    const ir_regime *r = regime(&m, "alive");
    if (r) {
        CHECK(ir_is_egm(r) && r->egm.action == r->nactions - 1 && !strcmp(r->actions[r->egm.action].name, "c"));
        CHECK_MSG(ir_egm_enumerated(r) == 2 && ir_discrete_actions(r) == 1, "enumerated %d, discrete %d",
                  ir_egm_enumerated(r), ir_discrete_actions(r));
        CHECK_MSG(ir_egm_choices(r) == 2 * 8 && ir_taste_choices(r) == 2, "choices %lld", ir_egm_choices(r));
    }
    const ir_regime *last = regime(&m, "last");
    CHECK(last && last->terminal_marginal && !last->euler_marginal);
    /* the table's curves of 120 savings points, a choice's index in its
     * group of 8 (ir/precompute.h): 16 curves, a keeper's first durable at
     * each of the 8 points of n and an adjuster's 8 durables once for all */
    CHECK_MSG(source && strstr(source, "j = curve * 120 + savings point") &&
                  strstr(source, "rest = egm_g * 8 + rest / egm_per; /* the choice */") && strstr(source, "T[1920 + j]"),
              "negm_cake: the table's layout");
    free(source);
    ir_model_free(&m);
}

/* EGM against grid search on a fine consumption grid (4000 points): V at
 * the points of [4, 15], whose optimal paths stay on the grid (next a_lag
 * = gross (1 - 1 / B_t) a, at least 0.73 a, B_t = 1 + beta B_{t+1}).
 * Log utility makes a wrong consumption share cost the same at every a,
 * so it is V's level, not its slope, that tells. */
static void lagged_resources(void)
{
    enum { T = 5 };
    const char *grid[] = {"solver=grid", NULL};
    lcm_err err = {0};
    lcm_model *me = NULL, *mg = NULL;
    lcm_solution *se = NULL, *sg = NULL;
    CHECK_OK(test_solve("tests/models/egm_lagged.lua", NULL, "tests/models/egm_lagged.params.lua", LCM_BACKEND_CPU, 64,
                        &me, &se, &err));
    CHECK_OK(test_solve("tests/models/egm_lagged.lua", grid, "tests/models/egm_lagged.params.lua", LCM_BACKEND_CPU, 64,
                        &mg, &sg, &err));
    if (check_failures) return;
    const ir_model *m = core_model_ir(me);
    const ir_regime *r = regime(m, "eating");
    CHECK(r && ir_is_egm(r) && ir_margin_scaled(r));
    if (!r) return;
    const ir_grid *g = &r->states[0].grid;
    double *pts = malloc((size_t)g->n * sizeof *pts), worst = 0;
    ir_grid_points(g, pts);
    for (int t = 0; t < T - 1; ++t)
        for (int i = 0; i < g->n && pts[i] <= 15; ++i) {
            if (pts[i] < 4) continue;
            double ve = lcm_solution_value(se, t, r->id, i), vg = lcm_solution_value(sg, t, r->id, i);
            worst = fmax(worst, fabs(ve - vg) / fmax(1, fabs(vg)));
        }
    free(pts);
    fprintf(stderr, "egm_lagged: V of EGM and of grid search differ by %.3g at most (relative)\n", worst);
    CHECK_MSG(worst < 2e-3, "egm_lagged: EGM's V off grid search's by %g (relative)", worst);
    lcm_solution_free(se), lcm_solution_free(sg);
    lcm_model_free(me), lcm_model_free(mg);
}

int main(void)
{
    grid_search_margins();
    nested();
    lagged_resources();
    CHECK_DONE();
}
