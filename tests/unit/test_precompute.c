/* The continuation tables' plans (ir/precompute.h) for the expected next V
 * of shock processes ("ev"): taken where a target's processes have 2 or
 * more nodes, for each such target of a kernel with the sizes of their
 * arrays, and not where a regular table applies, beyond LCM_EV_PROCESSES
 * processes, or where the table would outgrow the regime (16 entries per
 * state, or 2^16 in all). */
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
    const ir_model *m = lcm_model_ir(*model);
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
    if (targets) CHECK_MSG(p.active && ir_pre_entries(&p, 1) == entries && ir_pre_reals(&p, 1) == entries,
                           "%s %s: %lld entries (expected %lld)", lua, symbol, ir_pre_entries(&p, 1), entries);
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
    /* working reaches working (2 types x 5 income x 3 luck x 2 health x 23
     * wealth = 1380 states) and retired (2 x 5 x 2 x 23 = 460), not dead */
    expect_ev("tests/models/expected_v.lua", NULL, "lcm_k0_working", 3, 1380 + 460);
    /* a retired regime of 2 x 5 x 2 x 20000 states: its expected V would
     * outgrow working's bound (16 x 1380 entries, or 2^16), so working sums
     * over both targets inline; retired's own kernel reads it */
    const char *big[] = {"retired_wealth_points=20000", NULL};
    expect_ev("tests/models/expected_v.lua", big, "lcm_k0_working", 0, 0);
    expect_ev("tests/models/expected_v.lua", big, "lcm_k2_retired", 1, 400000);
    /* nine processes in one target: beyond LCM_EV_PROCESSES */
    expect_ev("tests/models/many_shocks.lua", NULL, "lcm_k0_alive", 0, 0);
    /* next wealth = saving: the regular table, whose entries sum the nodes */
    ir_pre p = {0};
    lcm_model *model;
    if (plan_of("models/saving_choice.lua", NULL, "lcm_k0_alive", &p, &model))
        CHECK(p.active && !p.ev && !p.egm);
    lcm_model_free(model);
    CHECK_DONE();
}
