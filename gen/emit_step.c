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

void gen_step_symbol(const ir_model *m, int r, char *buf, size_t len)
{
    snprintf(buf, len, "lcm_s%d_%s", r, m->regimes[r].name);
}

/* Declares the nodes marked in `needed` but not in `done`, in order (node
 * ids are topological), and adds them to `done`. */
static int declare_new(emitter *e, const char *needed, char *done, lcm_err *err)
{
    for (size_t i = 0; i < e->r->nnodes; ++i) {
        if (!needed[i] || done[i]) continue;
        if (e->r->nodes[i].op == OP_ENEXT)
            return base_fail(err, LCM_E_MODEL, "regime '%s': the regime transition or a next state depends on "
                            "E_next_V, which a simulated subject's next period cannot use", e->r->name);
        emit_node_decl(e, (int)i);
        done[i] = 1;
    }
    return 0;
}

/* The chosen action: its values act<j> from the flat index `best`, and its slots. */
static void decode_action(emitter *e, const ir_vars *V)
{
    const ir_regime *r = e->r;
    if (!r->nactions) {
        emit_line(e, "/* no actions */");
        return;
    }
    /* EGM's action is off its grid: it has no code in best */
    int egm = ir_is_egm(r) ? r->egm.action : -1, coded = r->nactions - (egm >= 0);
    if (coded) emit_line(e, "lcm_index rem = best;");
    for (int j = r->nactions - 1; j >= 0 && coded; --j) {
        if (j != egm) emit_line(e, "const int c%d = (int)(rem %% %d);", j, r->actions[j].grid.n);
        if (j) emit_line(e, "rem /= %d;", r->actions[j].grid.n);
    }
    for (int j = 0; j < r->nactions; ++j) {
        if (j == egm) /* off its grid: the value the kernel chose */
            emit_line(e, "const real act%d = egm_action; /* %s */", j, r->actions[j].name);
        else emit_action_value(e, j, 'c');
        emit_line(e, "an[%d] = act%d;", V->action_slot[r->id][j], j);
    }
}

/* A discrete next state: a draw from its Markov probabilities. */
static void markov_draw(emitter *e, const ir_next *nx, int slot, const char *draw_args)
{
    emit_start(e);
    base_sb_printf(e->b, "const double pm[%d] = {", nx->nprobs);
    for (int j = 0; j < nx->nprobs; ++j) base_sb_printf(e->b, "%s(double)%s", j ? ", " : "", emit_num(e, nx->probs[j]));
    base_sb_puts(e->b, "};\n");
    emit_line(e, "const int c = lcm_pick_drawn(pm, %d, %s, LCM_DRAW_STATE + %du);", nx->nprobs, draw_args, slot);
    emit_line(e, "if (c < 0 || (a->checks && !lcm_probs_valid(pm, %d, LCM_PROB_TOL))) "
                 "lcm_flag(a->flags, LCM_FLAG_STATE_PROB, row);", nx->nprobs);
    emit_line(e, "xn[%d] = c < 0 ? LCM_NAN : (real)c;", slot);
}

/* A shock process: its law's parameters, then a draw from it. */
static void process_draw(emitter *e, const ir_next *nx, const ir_grid *gr, int slot, const char *draw_args)
{
    emit_start(e);
    base_sb_printf(e->b, "const double pv[%d] = {", gr->nslots ? gr->nslots : 1);
    for (int i = 0; i < gr->nslots; ++i) {
        const ir_param *p = &e->m->params[gr->slots[i]];
        base_sb_printf(e->b, "%s(double)P[%zu] /* %s */", i ? ", " : "", p->offset, p->name);
    }
    if (!gr->nslots) base_sb_puts(e->b, "0");
    base_sb_puts(e->b, "};\n");
    emit_start(e);
    base_sb_printf(e->b, "xn[%d] = (real)lcm_process_next(%d /* %s */, pv, ", slot, gr->process,
              ir_process_name((ir_process_kind)gr->process));
    if (nx->src >= 0) base_sb_printf(e->b, "(double)x[%d]", nx->src);
    else base_sb_puts(e->b, "0.0");
    base_sb_printf(e->b, ", %s, LCM_DRAW_STATE + %du);\n", draw_args, slot);
}

/* The next value of state s of target regime g (slot `slot`). */
static void next_state(emitter *e, const ir_target *tg, int s, int slot)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    const ir_next *nx = &tg->next[s];
    const ir_grid *gr = &tr->states[s].grid;
    const char *draw_args = "sim->seed, LCM_SUBJECT(sim, row), (lcm_u32)a->period";
    emit_open(e, "{ /* %s */", tr->states[s].name);
    if (nx->kind == NEXT_DET && !grid_is_discrete(gr)) {
        emit_line(e, "xn[%d] = %s;", slot, emit_num(e, nx->node));
    } else if (nx->kind == NEXT_DET) {
        emit_line(e, "const int c = lcm_code(%s, %d);", emit_num(e, nx->node), gr->n);
        emit_line(e, "if (c < 0) lcm_flag(a->flags, LCM_FLAG_CODE, row);");
        emit_line(e, "xn[%d] = c < 0 ? LCM_NAN : (real)c;", slot);
    } else if (nx->kind == NEXT_MARKOV) {
        markov_draw(e, nx, slot, draw_args);
    } else {
        process_draw(e, nx, gr, slot, draw_args);
    }
    emit_close(e);
}

/* The draw of the next regime from the probabilities rp of the regimes ids. */
static void regime_draw(emitter *e, const int *ids, int n)
{
    const ir_model *m = e->m;
    emit_start(e);
    base_sb_printf(e->b, "const double rp[%d] = {", n);
    for (int i = 0; i < n; ++i) base_sb_printf(e->b, "%s(double)%s", i ? ", " : "", emit_num(e, e->r->rprob[ids[i]]));
    base_sb_puts(e->b, "};\n");
    emit_start(e);
    base_sb_printf(e->b, "const int ids[%d] = {", n);
    for (int i = 0; i < n; ++i) base_sb_printf(e->b, "%s%d", i ? ", " : "", ids[i]);
    base_sb_puts(e->b, "}; /*");
    for (int i = 0; i < n; ++i) base_sb_printf(e->b, " %s", m->regimes[ids[i]].name);
    base_sb_puts(e->b, " */\n");
    emit_line(e, "const int pick = lcm_pick_drawn(rp, %d, sim->seed, LCM_SUBJECT(sim, row), (lcm_u32)a->period, "
                 "LCM_DRAW_REGIME);", n);
    emit_line(e, "if (pick < 0 || (a->checks && !lcm_probs_valid(rp, %d, LCM_PROB_TOL))) "
                 "lcm_flag(a->flags, LCM_FLAG_REGIME_PROB, row);", n);
    emit_line(e, "if (pick < 0) return;");
    emit_line(e, "sim->regime_next[row] = ids[pick];");
}

/* The next regime, then a case per target regime with its next states. */
static int next_period(emitter *e, const ir_vars *V, char *needed, lcm_err *err)
{
    const ir_model *m = e->m;
    const ir_regime *r = e->r;
    if (r->terminal) {
        emit_line(e, "/* a terminal regime: the path ends here */");
        return 0;
    }
    emit_line(e, "if (sim->ends) return;");
    char *done = base_xcalloc(r->nnodes + 1, 1), *outer = base_xcalloc(r->nnodes + 1, 1);
    int ids[IR_MAX_REGIMES], n = 0, rc;
    for (int g = 0; g < m->nregimes; ++g)
        if (r->rprob[g] >= 0) ids[n++] = g, plan_mark(r, needed, r->rprob[g]);
    LCM_CHECK_GOTO(declare_new(e, needed, done, err), rc, out);
    regime_draw(e, ids, n);
    emit_open(e, "switch (ids[pick]) {");
    memcpy(outer, done, r->nnodes);
    for (int i = 0; i < n; ++i) {
        const ir_target *tg = ir_target_of(r, ids[i]);
        if (!tg) continue; /* a regime without states needs no next states */
        const ir_regime *tr = &m->regimes[tg->regime];
        memcpy(needed, outer, r->nnodes), memcpy(done, outer, r->nnodes);
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_DET) plan_mark(r, needed, nx->node);
            for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j) plan_mark(r, needed, nx->probs[j]);
        }
        emit_open(e, "case %d: { /* regime '%s' */", tg->regime, tr->name);
        LCM_CHECK_GOTO(declare_new(e, needed, done, err), rc, out);
        for (int s = 0; s < tr->nstates; ++s) next_state(e, tg, s, V->state_slot[tg->regime][s]);
        emit_line(e, "break;");
        emit_close(e);
    }
    emit_line(e, "default: break;");
    emit_close(e);
out:
    free(done), free(outer);
    return rc;
}

int gen_emit_step(const ir_model *m, const ir_grid_layout *L, const ir_vars *V, int r, int lines, lcm_sb *out,
                  lcm_err *err)
{
    const ir_regime *R = &m->regimes[r];
    lcm_sb actions, next, state_names, defines;
    base_sb_init(&actions), base_sb_init(&next), base_sb_init(&state_names), base_sb_init(&defines);
    emit_names names;
    emit_names_build(m, R, &names);
    char *needed = base_xcalloc(R->nnodes + 1, 1); /* what the step computes, marked as it goes */
    plan_nest plain = {.flat = 1};                 /* no levels: each node where it is declared */
    emitter e = {.m = m, .r = R, .L = L, .n = &plain, .leaves = LEAVES_KERNEL, .names = &names, .lines = lines,
                 .depth = 1};
    e.b = &actions;
    decode_action(&e, V);
    e.b = &next;
    int rc;
    LCM_CHECK_GOTO(next_period(&e, V, needed, err), rc, done);
    char symbol[128];
    gen_step_symbol(m, r, symbol, sizeof symbol);
    emit_state_names(R, &state_names);
    emit_egm_defines(R, &defines);
    const char *kv[] = {"symbol", symbol, "regime", R->name, "state_names", state_names.s,
                        "defines", emit_fragment(&defines), "actions", emit_fragment(&actions),
                        "next", emit_fragment(&next), NULL};
    rc = gen_fill_template(lcm_embed_step_c_in, kv, out, err);
done:
    base_sb_free(&actions), base_sb_free(&next), base_sb_free(&state_names), base_sb_free(&defines);
    free(needed);
    emit_names_free(&names);
    return rc;
}
