/* The tables' plans (ir/precompute.h) for the expected next V of shock
 * processes ("ev"): taken where a target's processes have 2 or more nodes,
 * for each such target of a kernel with the sizes of their arrays, alone
 * where no continuation table applies and under one (its entries read the
 * expected V) where it is no larger than that table, and not beyond
 * LCM_EV_AXES processes or where it would outgrow the regime (16 entries
 * per state, or 2^16 in all).  And the endogenous grid of an EGM regime:
 * its rows the states its entries read (durables.lua: not the transitory
 * shock, which only this period's resources read), the constraint on the
 * enumerated actions alone tested in the entry, the choices it rules out
 * in every precision left out of the table, an adjuster's entries shared
 * across the durable it does not read, its kernel's Q reading the
 * expected V. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "precompute.h"
#include "testlib.h"

/* The plan of kernel `symbol` of a model (defines NULL-terminated). */
static int plan_of(const char *lua, const char *const *defines, const char *symbol, ir_pre *out, lcm_model **model)
{
    lcm_err err = {0};
    *model = NULL;
    CHECK_OK(test_generate(lua, defines, model, &err));
    if (!*model) return 0;
    const ir_model *m = core_model_ir(*model);
    ir_pre *plans = calloc((size_t)m->nkernels + 1, sizeof *plans);
    test_pre_plans(*model, plans);
    int k = 0;
    while (k < m->nkernels && strcmp(m->kernels[k].symbol, symbol)) ++k;
    CHECK_MSG(k < m->nkernels, "%s: no kernel %s", lua, symbol);
    if (k < m->nkernels) *out = plans[k];
    free(plans);
    return k < m->nkernels;
}

/* Kernel `symbol` reads the expected V of targets `targets` (a bit per
 * kernel target), `entries` in all, or (targets 0) no expected V. */
static void expect_ev(const char *lua, const char *const *defines, const char *symbol, uint64_t targets,
                      long long entries)
{
    ir_pre p = {0};
    lcm_model *model;
    if (!plan_of(lua, defines, symbol, &p, &model)) {
        lcm_model_free(model);
        return;
    }
    CHECK_MSG(p.ev == (targets != 0) && p.ev_targets == targets, "%s %s %s: ev %d, targets %#llx (expected %#llx)",
              lua, defines && defines[0] ? defines[0] : "", symbol, p.ev, (unsigned long long)p.ev_targets,
              (unsigned long long)targets);
    if (targets) CHECK_MSG(!p.active && p.ev_entries == entries, "%s %s: %lld entries (expected %lld), a continuation "
                           "table %d", lua, symbol, p.ev_entries, entries, p.active);
    lcm_model_free(model);
}

/* A target state's axis (ir_pre_ev_axes) as a test expects it. */
typedef struct want_axis {
    const char *state;
    int axis;
} want_axis;

/* ir_pre_ev_axes of the target `target` of regime `regime` of a model,
 * against want[] (by state name; each of the target's states). */
static void expect_axes(const char *lua, const char *const *defines, const char *regime, const char *target,
                        const want_axis *want, int nwant)
{
    lcm_err err = {0};
    lcm_model *model = NULL;
    CHECK_OK(test_generate(lua, defines, &model, &err));
    if (!model) return;
    const ir_model *m = core_model_ir(model);
    const ir_regime *r = NULL, *tr = NULL;
    for (int i = 0; i < m->nregimes; ++i) {
        if (!strcmp(m->regimes[i].name, regime)) r = &m->regimes[i];
        if (!strcmp(m->regimes[i].name, target)) tr = &m->regimes[i];
    }
    const ir_target *tg = r && tr ? ir_target_of(r, tr->id) : NULL;
    CHECK_MSG(tg && tr->nstates == nwant && nwant <= 16, "%s: no target %s of %s with %d states", lua, target, regime,
              nwant);
    if (tg && tr->nstates == nwant && nwant <= 16) {
        int axis[16];
        long long nodes;
        ir_pre_ev_axes(m, r, tg, axis, &nodes);
        for (int i = 0; i < nwant; ++i) {
            int s = 0;
            while (s < tr->nstates && strcmp(tr->states[s].name, want[i].state)) ++s;
            CHECK_MSG(s < tr->nstates && axis[s] == want[i].axis, "%s: %s -> %s, state %s: axis %d (expected %d)", lua,
                      regime, target, want[i].state, s < tr->nstates ? axis[s] : 99, want[i].axis);
        }
    }
    lcm_model_free(model);
}

int main(void)
{
    /* precautionary savings: alive (target 0) with 5 Rouwenhorst income
     * nodes x 7 wealth points; the last alive kernel reaches dead only */
    expect_ev("models/precautionary_savings.lua", NULL, "lcm_k0_alive", 1, 35);
    expect_ev("models/precautionary_savings.lua", NULL, "lcm_k1_alive", 0, 0);
    /* an AR(1) process of 2 nodes: one row read instead of two summed */
    const char *two[] = {"income_points=2", NULL};
    expect_ev("models/precautionary_savings.lua", two, "lcm_k0_alive", 1, 14);
    /* an IID one of 3 nodes: one row instead of 3 */
    const char *iid[] = {"shock=normal_gh", "income_points=3", NULL};
    expect_ev("models/precautionary_savings.lua", iid, "lcm_k0_alive", 1, 21);
    /* working reaches working (2 types x 5 income x 3 luck x 2 health x 2
     * moods x 23 wealth = 2760 states) and retired (2 x 5 x 2 x 23 = 460),
     * not dead; working's states: health, kind, mood, income, luck, wealth */
    expect_ev("tests/models/expected_v.lua", NULL, "lcm_k0_working", 3, 2760 + 460);
    const want_axis working[] = {{"health", 0},       {"kind", IR_EV_NONE},     {"mood", IR_EV_FIXED},
                                 {"income", IR_EV_PROCESS}, {"luck", IR_EV_PROCESS}, {"wealth", IR_EV_NONE}};
    expect_axes("tests/models/expected_v.lua", NULL, "working", "working", working, 6);
    /* E does not read mood (its probabilities are fixed), so a continuation
     * table could leave it out; splaying wealth by 5 would make that table
     * small enough, but splay must not change V: still the expected V */
    const char *splay[] = {"splay=true", NULL};
    expect_ev("tests/models/expected_v.lua", splay, "lcm_k0_working", 3, 2760 + 460);
    /* a retired regime of 2 x 5 x 2 x 20000 states: its expected V would
     * outgrow working's bound (16 x 2760 entries, or 2^16), so working sums
     * over both targets inline; retired's own kernel reads it */
    const char *big[] = {"retired_wealth_points=20000", NULL};
    expect_ev("tests/models/expected_v.lua", big, "lcm_k0_working", 0, 0);
    expect_ev("tests/models/expected_v.lua", big, "lcm_k2_retired", 1, 400000);
    /* a Markov state whose probabilities are a row of health_transition at
     * the current health: summed in the table (alive: health 2 x income 5
     * x wealth 7) */
    expect_ev("models/precautionary_savings_health.lua", NULL, "lcm_k0_alive", 1, 70);
    const want_axis health[] = {{"health", 0}, {"income", IR_EV_PROCESS}, {"wealth", IR_EV_NONE}};
    expect_axes("models/precautionary_savings_health.lua", NULL, "alive", "alive", health, 3);
    /* Mahler & Yum: next health reads the effort (an action), so it stays a
     * loop; the productivity shock and the adjustment cost are processes;
     * lagged effort is deterministic, the types fixed, wealth saving */
    const char *small[] = {"wealth_points=5", "effort_points=3", "shock_points=3", "cost_points=2", NULL};
    const want_axis my[] = {{"health", IR_EV_NONE},          {"productivity_shock", IR_EV_PROCESS},
                            {"lagged_effort", IR_EV_NONE},   {"adjustment_cost", IR_EV_PROCESS},
                            {"education", IR_EV_NONE},       {"productivity", IR_EV_NONE},
                            {"health_type", IR_EV_NONE},     {"discount_type", IR_EV_NONE},
                            {"wealth", IR_EV_NONE}};
    expect_axes("models/mahler_yum_2024.lua", small, "alive", "alive", my, 9);
    /* nine processes in one target: beyond LCM_EV_AXES */
    expect_ev("tests/models/many_shocks.lua", NULL, "lcm_k0_alive", 0, 0);
    /* next wealth = saving: the regular table (income 7 x saving 60), its
     * entries reading the expected V (income 7 x wealth 60: no larger) */
    ir_pre p = {0};
    lcm_model *model;
    if (plan_of("models/saving_choice.lua", NULL, "lcm_k0_alive", &p, &model))
        CHECK(p.active && !p.egm && ir_pre_entries(&p, 1) == 420 && p.ev && p.ev_entries == 420 &&
              ir_pre_passes(&p) == 2 && ir_pre_pass(&p, 0) == IR_PASS_EV && ir_pre_pass(&p, 1) == IR_PASS_TABLE);
    lcm_model_free(model);
    /* Mahler & Yum: the table (rows 2 x 5 x 3 x 16 but wealth and the
     * adjustment cost; effort 3 x saving 5) reads the expected V over the
     * shock and the adjustment cost (alive's V: 2 x 3 x 3 x 2 x 16 x 5) */
    if (plan_of("models/mahler_yum_2024.lua", small, "lcm_k0_alive", &p, &model))
        CHECK_MSG(p.active && ir_pre_entries(&p, 1) == 2 * 3 * 3 * 16 * 15 && p.ev &&
                  p.ev_entries == 2 * 3 * 3 * 2 * 16 * 5, "mahler_yum small: table %lld entries, ev %d of %lld",
                  ir_pre_entries(&p, 1), p.ev, p.ev_entries);
    lcm_model_free(model);
    /* durables by NEGM (states a_lag 4, p_lag 3, n 5, psi 3, xi 3; actions
     * adjust 2, d_new 4, c by EGM on 6 savings points): rows p_lag x n x psi,
     * xi left out (3 times fewer), the constraint keep_once (adjust and
     * d_new only) tested in the entry, budget (reads c) not; Q reads the
     * expected V of alive over psi and xi (V's size) */
    const char *negm[] = {"solver=negm", "a_points=4", "p_points=3", "n_points=5", "psi_points=3", "xi_points=3",
                          "d_points=4", "savings_points=6", NULL};
    if (plan_of("models/durables.lua", negm, "lcm_k0_alive", &p, &model)) {
        const ir_model *m = core_model_ir(model);
        const ir_regime *r = &m->regimes[m->kernels[0].regime];
        uint64_t tested = p.egm_tests;
        int keep_once = -1, budget = -1;
        for (int c = 0; c < r->nconstraints; ++c) {
            if (!strcmp(r->constraints[c].name, "keep_once")) keep_once = c;
            if (!strcmp(r->constraints[c].name, "budget")) budget = c;
        }
        /* curves: a keeper's first durable alone (keep_once rules out the
         * others in every precision) over its rows, an adjuster's 4 over
         * p_lag x psi (below) */
        CHECK_MSG(p.egm && p.rows == 3 * 5 * 3 + 4 * 3 * 3 && ir_pre_entries(&p, 1) == (3 * 5 * 3 + 4 * 3 * 3) * 6,
                  "durables negm: %lld curves, %lld entries", p.rows, ir_pre_entries(&p, 1));
        CHECK_MSG(p.egm_groups == 2 && p.egm_inner == 4 && p.egm_kept[0] == 1 && p.egm_kept[1] == 4 &&
                      p.egm_rows[0] == 45 && p.egm_rows[1] == 9 && p.egm_first[0] == 0 && p.egm_first[1] == 45,
                  "durables negm: groups %d of %lld choices, kept %lld %lld, rows %lld %lld", p.egm_groups, p.egm_inner,
                  p.egm_kept[0], p.egm_kept[1], p.egm_rows[0], p.egm_rows[1]);
        CHECK(keep_once >= 0 && budget >= 0 && (tested >> keep_once & 1) && !(tested >> budget & 1));
        CHECK_MSG(p.egm_cuts == (uint64_t)1 << keep_once, "durables negm: cuts %#llx", (unsigned long long)p.egm_cuts);
        /* an adjuster's entries read d_new, not the durable n it holds: they
         * are made at n's point 0 and shared; a keeper's read n */
        int n = ir_find_state(r, "n");
        CHECK_MSG(n >= 0 && p.egm_shared[0] == 0 && p.egm_shared[1] == (uint64_t)1 << n,
                  "durables negm: %d groups, shared %#llx (keep) %#llx (adjust)", p.egm_groups,
                  (unsigned long long)p.egm_shared[0], (unsigned long long)p.egm_shared[1]);
        CHECK_MSG(p.ev && p.ev_entries == 4 * 3 * 5 * 3 * 3, "durables negm: ev %d of %lld entries", p.ev,
                  p.ev_entries);
    }
    lcm_model_free(model);
    /* the plan decides a where() from the discrete actions only where every
     * precision does (tests/models/negm_cake.lua, durable_rule): integer arithmetic on the
     * action's code, yes; adjust * 0.1 + 0.2 != 0.3 (false in float32 alone), no */
    const char *code[] = {"durable_rule=code", NULL}, *decimal[] = {"durable_rule=decimal", NULL};
    if (plan_of("tests/models/negm_cake.lua", code, "lcm_k0_alive", &p, &model)) {
        const ir_model *m = core_model_ir(model);
        int n = ir_find_state(&m->regimes[m->kernels[0].regime], "n");
        CHECK_MSG(p.egm_groups == 2 && !p.egm_shared[0] && p.egm_shared[1] == (uint64_t)1 << n,
                  "negm_cake, durable_rule=code: %d groups", p.egm_groups);
    }
    lcm_model_free(model);
    if (plan_of("tests/models/negm_cake.lua", decimal, "lcm_k0_alive", &p, &model))
        CHECK_MSG(p.egm && p.egm_groups == 2 && !p.egm_shared[0] && !p.egm_shared[1],
                  "negm_cake, durable_rule=decimal: %d groups, shared %#llx", p.egm_groups,
                  (unsigned long long)p.egm_shared[1]);
    lcm_model_free(model);
    /* the choices keep_once rules out in every precision take no room: a
     * keeper's durables past the first (d <= 0); with keep_rule=near (d <=
     * 3/7 less one ulp) its second point 3/7 is ruled out in float64 but
     * not in float32, so its entries are kept */
    const char *plain[] = {NULL}, *near[] = {"keep_rule=near", NULL};
    if (plan_of("tests/models/negm_cake.lua", plain, "lcm_k0_alive", &p, &model))
        CHECK_MSG(p.egm_groups == 2 && p.egm_inner == 8 && p.egm_kept[0] == 1 && p.egm_kept[1] == 8 && p.rows == 8 + 8,
                  "negm_cake: kept %lld (keep) %lld (adjust), %lld curves", p.egm_kept[0], p.egm_kept[1], p.rows);
    lcm_model_free(model);
    if (plan_of("tests/models/negm_cake.lua", near, "lcm_k0_alive", &p, &model))
        CHECK_MSG(p.egm_kept[0] == 2 && p.egm_kept[1] == 8 && p.rows == 2 * 8 + 8,
                  "negm_cake, keep_rule=near: kept %lld (keep) %lld (adjust), %lld curves", p.egm_kept[0],
                  p.egm_kept[1], p.rows);
    lcm_model_free(model);
    CHECK_DONE();
}
