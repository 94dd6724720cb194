/* emit_step.c - the simulation step of a regime (templates/step.c.in).
 *
 * After a subject's best action is known (the kernel body, as in the
 * solve), the step records it and moves the subject on: the regime
 * probabilities at the chosen action, a draw of the next regime, then for
 * that regime's states the deterministic next values, a draw from the
 * Markov probabilities, or a draw from a shock process's continuous law.
 * Every DAG node is evaluated only where it is needed: the regime
 * probabilities once, each target's next states inside its own case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "emit_internal.h"
#include "process.h"
#include "template.h"

void lcm_step_symbol(const ir_model *m, int r, char *buf, size_t len)
{
    snprintf(buf, len, "lcm_s%d_%s", r, m->regimes[r].name);
}

/* Declares the nodes marked in e->needed but not in `done`, in order (node
 * ids are topological), and adds them to `done`. */
static int declare_new(emitter *e, char *done, int level, lcm_err *err)
{
    for (size_t i = 0; i < e->r->nnodes; ++i) {
        if (!e->needed[i] || done[i]) continue;
        if (e->r->nodes[i].op == OP_ENEXT)
            return lcm_fail(err, LCM_E_MODEL, "regime '%s': the regime transition or a next state depends on "
                            "E_next_V, which a simulated subject's next period cannot use", e->r->name);
        emit_node_decl(e, (int)i, level);
        done[i] = 1;
    }
    return 0;
}

/* The chosen action: its values act<j> from the flat index `best`, and its slots. */
static void decode_action(emitter *e, const ir_vars *V, lcm_sb *b)
{
    const ir_regime *r = e->r;
    if (!r->nactions) {
        sb_puts(b, "    /* no actions */");
        return;
    }
    sb_puts(b, "    lcm_index rem = best;\n");
    for (int j = r->nactions - 1; j >= 0; --j)
        sb_printf(b, "    const int c%d = (int)(rem %% %d);\n    rem /= %d;\n", j, r->actions[j].grid.n,
                  r->actions[j].grid.n);
    for (int j = 0; j < r->nactions; ++j) {
        if (grid_is_discrete(&r->actions[j].grid)) sb_printf(b, "    const real act%d = (real)c%d;", j, j);
        else sb_printf(b, "    const real act%d = G[%zu + c%d];", j, e->L->action_off[r->id][j], j);
        sb_printf(b, " /* %s */\n    an[%d] = act%d;\n", r->actions[j].name, V->action_slot[r->id][j], j);
    }
    sb_puts(b, "    (void)rem;");
}

/* The next value of state s of target regime g (slot `slot`). */
static void next_state(emitter *e, const ir_target *tg, int s, int slot, lcm_sb *b)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    const ir_next *nx = &tg->next[s];
    const ir_grid *gr = &tr->states[s].grid;
    const char *draw_args = "sim->seed, sim->subject[row], (lcm_u32)a->period";
    sb_printf(b, "        { /* %s */\n", tr->states[s].name);
    if (nx->kind == NEXT_DET && !grid_is_discrete(gr)) {
        sb_printf(b, "            xn[%d] = ", slot), emit_num(e, nx->node), sb_puts(b, ";\n");
    } else if (nx->kind == NEXT_DET) {
        sb_puts(b, "            const int c = lcm_code("), emit_num(e, nx->node), sb_printf(b, ", %d);\n", gr->n);
        sb_puts(b, "            if (c < 0) lcm_flag(a->flags, LCM_FLAG_CODE, row);\n");
        sb_printf(b, "            xn[%d] = c < 0 ? LCM_NAN : (real)c;\n", slot);
    } else if (nx->kind == NEXT_MARKOV) {
        sb_printf(b, "            const double pm[%d] = {", nx->nprobs);
        for (int j = 0; j < nx->nprobs; ++j) sb_puts(b, j ? ", (double)" : "(double)"), emit_num(e, nx->probs[j]);
        sb_puts(b, "};\n");
        sb_printf(b, "            const int c = lcm_pick(pm, %d, lcm_uniform(%s, LCM_DRAW_STATE + %du));\n", nx->nprobs,
                  draw_args, slot);
        sb_printf(b, "            if (c < 0 || (a->checks && !lcm_probs_valid(pm, %d, LCM_PROB_TOL))) "
                     "lcm_flag(a->flags, LCM_FLAG_STATE_PROB, row);\n", nx->nprobs);
        sb_printf(b, "            xn[%d] = c < 0 ? LCM_NAN : (real)c;\n", slot);
    } else { /* a shock process: its law's parameters, then a draw */
        sb_printf(b, "            const double pv[%d] = {", gr->nslots ? gr->nslots : 1);
        for (int i = 0; i < gr->nslots; ++i)
            sb_printf(b, "%s(double)P[%zu]", i ? ", " : "", e->m->params[gr->slots[i]].offset);
        if (!gr->nslots) sb_puts(b, "0");
        sb_puts(b, "};\n");
        sb_printf(b, "            xn[%d] = (real)lcm_process_next(%d /* %s */, pv, ", slot, gr->process,
                  ir_process_name((ir_process_kind)gr->process));
        if (nx->src >= 0) sb_printf(b, "(double)x[%d]", nx->src);
        else sb_puts(b, "0.0");
        sb_printf(b, ", %s, LCM_DRAW_STATE + %du);\n", draw_args, slot);
    }
    sb_puts(b, "        }\n");
}

/* The next regime, then a case per target regime with its next states. */
static int next_period(emitter *e, const ir_vars *V, lcm_sb *b, lcm_err *err)
{
    const ir_model *m = e->m;
    const ir_regime *r = e->r;
    if (r->terminal) {
        sb_puts(b, "    /* a terminal regime: the path ends here */");
        return 0;
    }
    sb_puts(b, "    if (sim->ends) return;\n");
    char *done = xcalloc(r->nnodes + 1, 1);
    int ids[IR_MAX_REGIMES], n = 0;
    for (int g = 0; g < m->nregimes; ++g)
        if (r->rprob[g] >= 0) ids[n++] = g, emit_mark(e, r->rprob[g]);
    int rc = declare_new(e, done, -1, err);
    if (!rc) {
        sb_printf(b, "    const double rp[%d] = {", n);
        for (int i = 0; i < n; ++i) sb_puts(b, i ? ", (double)" : "(double)"), emit_num(e, r->rprob[ids[i]]);
        sb_printf(b, "};\n    const int ids[%d] = {", n);
        for (int i = 0; i < n; ++i) sb_printf(b, "%s%d", i ? ", " : "", ids[i]);
        sb_puts(b, "}; /*");
        for (int i = 0; i < n; ++i) sb_printf(b, " %s", m->regimes[ids[i]].name);
        sb_puts(b, " */\n");
        sb_printf(b, "    const int pick = lcm_pick(rp, %d, lcm_uniform(sim->seed, sim->subject[row], (lcm_u32)a->period, "
                     "LCM_DRAW_REGIME));\n", n);
        sb_printf(b, "    if (pick < 0 || (a->checks && !lcm_probs_valid(rp, %d, LCM_PROB_TOL))) "
                     "lcm_flag(a->flags, LCM_FLAG_REGIME_PROB, row);\n", n);
        sb_puts(b, "    if (pick < 0) return;\n");
        sb_puts(b, "    sim->regime_next[row] = ids[pick];\n    switch (ids[pick]) {\n");
    }
    char *outer = xcalloc(r->nnodes + 1, 1);
    memcpy(outer, done, r->nnodes);
    for (int i = 0; i < n && !rc; ++i) {
        const ir_target *tg = ir_target_of(r, ids[i]);
        if (!tg) continue; /* a regime without states needs no next states */
        const ir_regime *tr = &m->regimes[tg->regime];
        memcpy(e->needed, outer, r->nnodes), memcpy(done, outer, r->nnodes);
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_DET) emit_mark(e, nx->node);
            for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j) emit_mark(e, nx->probs[j]);
        }
        sb_printf(b, "    case %d: { /* regime '%s' */\n", tg->regime, tr->name);
        rc = declare_new(e, done, 0, err);
        for (int s = 0; s < tr->nstates && !rc; ++s) next_state(e, tg, s, V->state_slot[tg->regime][s], b);
        sb_puts(b, "        break;\n    }\n");
    }
    if (!rc) sb_puts(b, "    default: break;\n    }");
    free(done), free(outer);
    return rc;
}

int lcm_emit_step(const ir_model *m, const ir_grid_layout *L, const ir_vars *V, int r, lcm_sb *out, lcm_err *err)
{
    const ir_regime *R = &m->regimes[r];
    lcm_sb actions, next, names;
    sb_init(&actions), sb_init(&next), sb_init(&names);
    emitter e = {.m = m, .r = R, .L = L, .leaves = LEAVES_KERNEL};
    e.needed = xcalloc(R->nnodes + 1, 1);
    e.b = &next;
    decode_action(&e, V, &actions);
    int rc = next_period(&e, V, &next, err);
    if (!rc) {
        char symbol[128];
        lcm_step_symbol(m, r, symbol, sizeof symbol);
        for (int s = 0; s < R->nstates; ++s) sb_printf(&names, "%s%s", s ? ", " : "", R->states[s].name);
        if (!R->nstates) sb_puts(&names, "no states");
        const char *kv[] = {"symbol", symbol, "regime", R->name, "state_names", names.s, "actions", actions.s,
                            "next", next.s, NULL};
        rc = lcm_fill_template(lcm_embed_step_c_in, kv, out, err);
    }
    sb_free(&actions), sb_free(&next), sb_free(&names);
    free(e.needed);
    return rc;
}
