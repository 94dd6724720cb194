/* emit_loops.c - the loop nest of a kernel body (emit_internal.h, "the
 * loop nest"): the action loops level by level, the constraints and the
 * best action's update, the hoisted terms' loops, and the CPU's staged
 * innermost loop ("staged" below). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h" /* lcm_pow_kind: which exponents the staged loop computes without pow */
#include "emit_internal.h"
#include "grid.h"
#include "layout.h"

/* The loop of level `level`, over action j, and its value act<j>; ai<j>
 * counts the nest's actions so far (the combination of its loops'). */
static void action_loop(emitter *e, int level)
{
    const int j = plan_loop_action(e->n, level), first = level == LVL_ACTION0;
    const int before = first ? -1 : plan_loop_action(e->n, level - 1);
    const ir_var *v = &e->r->actions[j];
    int n = v->grid.n;
    if (e->staged > 0) { /* the chunk's actions: every one computed, feasible or not */
        emit_open(e, "for (int i%d = c%d; i%d < c%d + n%d; ++i%d) { /* action %s */", j, j, j, j, j, j, v->name);
        emit_action_value(e, j, 'i'); /* the last action: no ai<j> (lcm_best_of counts) */
        emit_line(e, "lcm_feas feas = 1; /* the constraints of this level, all of them */");
        return;
    }
    if (emit_egm_level(e, level)) { /* the candidates of the endogenous grid (gen/emit_egm.c) */
        emit_egm_candidates(e, j);
    } else if (j == e->k->par && e->n->kind == NEST_BODY && e->p->pre.elim.nstages) {
        /* a staged body's lanes split it where it reads the stages' tables; a subject's own rows are the
         * same in every lane, which then search the same pairs (gen/emit_stage.c) */
        emit_open(e, "for (int i%d = lcm_lane; i%d < %d; i%d += lcm_lanes) { /* action %s */", j, j, n, j, v->name);
    } else if (j == e->k->par && e->n->kind == NEST_BODY) /* split across the lanes of a GPU state; one lane on the CPU */
        emit_open(e, "for (int i%d = LCM_LANE; i%d < %d; i%d += LCM_LANES) { /* action %s */", j, j, n, j, v->name);
    else
        emit_open(e, "for (int i%d = 0; i%d < %d; ++i%d) { /* action %s */", j, j, n, j, v->name);
    int on_grid = !emit_egm_level(e, level);
    if (on_grid) emit_action_value(e, j, 'i');
    /* EGM's action is off its grid: it counts as code 0 in the flat index; a
     * stage's entries and a table's are indexed by their own actions alone */
    if (e->n->kind != NEST_BODY) return;
    if (first && on_grid) emit_line(e, "const lcm_index ai%d = i%d;", j, j);
    else if (first) emit_line(e, "const lcm_index ai%d = 0;", j);
    else if (on_grid) emit_line(e, "const lcm_index ai%d = ai%d * %d + i%d;", j, before, n, j);
    else emit_line(e, "const lcm_index ai%d = ai%d * %d;", j, before, n);
}

/* Marks in `into` the nodes of `level` that a constraint of that level or
 * the taste-shock scale reads (the node and its ancestors at the level):
 * declared first, so that an infeasible pair is skipped before its utility
 * is computed, and the scale is known before a constraint can end the state. */
static void constraint_inputs(const emitter *e, int level, char *into)
{
    const ir_regime *r = e->r;
    memset(into, 0, r->nnodes);
    for (int c = 0; c < r->nconstraints; ++c)
        if (e->n->lvl[r->constraints[c].node] == level) into[r->constraints[c].node] = 1;
    if (r->taste_scale >= 0 && e->n->lvl[r->taste_scale] == level) into[r->taste_scale] = 1;
    for (size_t i = r->nnodes; i-- > 0;) /* arguments have lower ids than their nodes */
        if (into[i])
            for (int a = 0; a < r->nodes[i].nargs; ++a)
                if (e->n->lvl[r->nodes[i].args[a]] == level) into[r->nodes[i].args[a]] = 1;
}

/* Whether constraint `node` caps the action of loop `level` from above by
 * a bound known outside the loop (a <= x, a < x, x >= a, x > a): every grid
 * ascends, so once it fails it fails for the rest of the loop.  cap_bound
 * gives the bound x, or -1 where it is not such a cap. */
static int cap_bound(const emitter *e, int node, int level)
{
    const ir_node *n = &e->r->nodes[node];
    int a, x;
    if (n->op == OP_LE || n->op == OP_LT) a = n->args[0], x = n->args[1];
    else if (n->op == OP_GE || n->op == OP_GT) a = n->args[1], x = n->args[0];
    else return -1;
    const ir_node *an = &e->r->nodes[a];
    return an->op == OP_ACTION && plan_action_level(e->n, an->ref) == level && e->n->lvl[x] < level ? x : -1;
}

static int caps_loop_action(const emitter *e, int node, int level) { return cap_bound(e, node, level) >= 0; }

/* Whether constraint c caps the action of loop `level` by a bound known at
 * level `known` (below `level`). */
static int cap_known_at(const emitter *e, int c, int level, int known)
{
    int node = e->r->constraints[c].node, x = e->n->lvl[node] == level ? cap_bound(e, node, level) : -1;
    return x >= 0 && e->n->lvl[x] <= known;
}

/* Such a cap's test of action j's value act<j>, as C ("act2 <= v110"). */
static void cap_test(const emitter *e, int node, int j, lcm_sb *out)
{
    static const char *cmp[OP_COUNT] = {[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">="};
    const ir_node *n = &e->r->nodes[node];
    char act[32];
    snprintf(act, sizeof act, "act%d", j);
    int action_first = n->op == OP_LE || n->op == OP_LT;
    base_sb_printf(out, "%s %s %s", action_first ? act : emit_num(e, n->args[0]), cmp[n->op],
                  action_first ? emit_num(e, n->args[1]) : act);
}

/* A node's declaration where it is computed (the GPU's loops, and the CPU's
 * but for hoisted terms); a tabled action term is read from the launch's
 * lcm_at. */
static void declare_computed(emitter *e, int id)
{
    if (!(e->n->tabled && e->n->tabled[id])) {
        emit_node_decl(e, id);
        return;
    }
    int j = plan_loop_action(e->n, e->n->lvl[id]);
    emit_line(e, "const real %s = lcm_at[%d + i%d]; /* the launch's action term */", emit_name(e, id), e->n->at_off[id], j);
}

/* A hoisted term read from its lcm_h (emit.c, "hoisted terms"), at the
 * point of its home's action. */
static void hoisted_read(emitter *e, int id)
{
    emit_line(e, "const real %s = lcm_h%d[i%d]; /* hoisted (emit.c, \"hoisted terms\") */", emit_name(e, id), id,
              plan_loop_action(e->n, e->n->lvl[id]));
}

/* A node's declaration in the loops: on the CPU a hoisted term is read from
 * its lcm_h (the staged loop is the CPU's alone); what only hoisted terms
 * read, the GPU's alone, is for declare_level to fence. */
static void declare_node(emitter *e, int id)
{
    if (!(e->n->hoisted && e->n->hoisted[id])) {
        declare_computed(e, id);
    } else if (e->staged > 0) {
        hoisted_read(e, id);
    } else {
        base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        hoisted_read(e, id);
        base_sb_puts(e->b, "#else\n");
        declare_computed(e, id);
        base_sb_puts(e->b, "#endif\n");
    }
}

/* See emit_internal.h: the building loop's nodes, by the readers first. */
int emit_hoist_chain(const emitter *e, int level, int home, char *chain)
{
    const ir_regime *r = e->r;
    int any = 0;
    memset(chain, 0, r->nnodes + 1);
    for (size_t i = r->nnodes; e->n->hoisted && i-- > 0;) {
        if (e->n->lvl[i] == home && emit_hoisted_to(e, (int)i, level)) chain[i] = 1, any = 1;
        if (!chain[i] || emit_hoist_reads(e, (int)i, level)) continue;
        for (int a = 0; a < r->nodes[i].nargs; ++a)
            if (e->n->lvl[r->nodes[i].args[a]] == home) chain[r->nodes[i].args[a]] = 1;
    }
    return any;
}

/* See emit_internal.h.  A constraint reading a hoisted term reads it
 * before the home loop's cap ends the loop (the plain loop declares a
 * constraint's inputs first), so where one does the terms are built for
 * every point. */
int emit_hoist_caps(const emitter *e, int level, int home, int *caps)
{
    const ir_regime *r = e->r;
    char *first = base_xmalloc(r->nnodes + 1);
    constraint_inputs(e, home, first);
    int read = 0, n = 0;
    for (size_t i = 0; i < r->nnodes; ++i) read |= first[i] && emit_hoisted_to(e, (int)i, level);
    free(first);
    for (int c = 0; !read && c < r->nconstraints; ++c)
        if (cap_known_at(e, c, home, level)) {
            if (caps) caps[n] = c;
            ++n;
        }
    return n;
}

/* On the CPU, the lcm_h of the terms hoisted to this level, for each home
 * action inside it: a loop over that action computing each (and what it
 * reads of that level, a term hoisted further out read from its own lcm_h)
 * as the home loop would, up to where a cap of that loop known here ends
 * it. */
static void hoisted_build(emitter *e, int level)
{
    const ir_regime *r = e->r;
    size_t n = r->nnodes;
    char *chain = base_xmalloc(n + 1); /* what the loop computes, or reads */
    int *caps = base_xmalloc(((size_t)r->nconstraints + 1) * sizeof *caps);
    for (int home = emit_max(level + 1, LVL_ACTION0); home <= e->n->innermost; ++home) {
        if (!emit_hoist_chain(e, level, home, chain)) continue;
        int j = plan_loop_action(e->n, home), points = r->actions[j].grid.n;
        base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        for (size_t i = 0; i < n; ++i)
            if (chain[i] && emit_hoisted_to(e, (int)i, level))
                emit_line(e, "real lcm_h%zu[%d]; /* %s at each %s (emit.c, \"hoisted terms\") */", i, points,
                          emit_name(e, (int)i), r->actions[j].name);
        emit_open(e, "for (int i%d = 0; i%d < %d; ++i%d) { /* action %s */", j, j, points, j, r->actions[j].name);
        emit_action_value(e, j, 'i');
        int ncaps = emit_hoist_caps(e, level, home, caps);
        for (int c = 0; c < ncaps; ++c) {
            lcm_sb test;
            base_sb_init(&test);
            cap_test(e, r->constraints[caps[c]].node, j, &test);
            emit_line(e, "if (!(%s)) break; /* constraint %s */", test.s, r->constraints[caps[c]].name);
            base_sb_free(&test);
        }
        for (size_t i = 0; i < n; ++i) {
            if (!chain[i]) continue;
            if (emit_hoist_reads(e, (int)i, level) && !e->n->tabled[i]) hoisted_read(e, (int)i);
            else declare_computed(e, (int)i);
        }
        for (size_t i = 0; i < n; ++i)
            if (chain[i] && emit_hoisted_to(e, (int)i, level)) emit_line(e, "lcm_h%zu[i%d] = %s;", i, j, emit_name(e, (int)i));
        emit_close(e);
        base_sb_puts(e->b, "#endif\n");
    }
    free(caps), free(chain);
}

/* The nodes of a level: those before E (enext = 0) or after it, of them
 * those whose mark in `part` is `in_part` (all when part is NULL); not
 * those only tabled terms read, nor in the staged loop those only the next
 * states or hoisted terms need; in the plain loop what only hoisted terms
 * read is fenced for the GPU alone (#if defined(__CUDACC__)). */
static void declare_level(emitter *e, int level, int enext, const char *part, int in_part)
{
    int gpu_only = 0; /* inside #if defined(__CUDACC__): what only hoisted terms read */
    for (size_t i = 0; i < e->r->nnodes; ++i) {
        if (!e->n->needed[i] || e->n->lvl[i] != level || e->n->has_enext[i] != enext || (part && part[i] != in_part)) continue;
        if ((e->n->terms_only && e->n->terms_only[i]) || (e->n->next_only && e->n->next_only[i] && e->staged > 0)) continue;
        if (e->n->best_only && e->n->best_only[i]) continue; /* best_update's */
        int only = e->n->hoist_only && e->n->hoist_only[i];
        if (only && e->staged > 0) continue;
        if (only != gpu_only) base_sb_puts(e->b, only ? "#if defined(__CUDACC__)\n" : "#endif\n");
        gpu_only = only;
        declare_node(e, (int)i);
    }
    if (gpu_only) base_sb_puts(e->b, "#endif\n");
}

/* The constraints known at this level: a failing one skips the rest of the
 * state (the action nest), the rest of this action's loop when it caps the
 * action from above, or else this action. */
static void constraints(emitter *e, int level)
{
    for (int c = 0; c < e->r->nconstraints; ++c) {
        const ir_named *cn = &e->r->constraints[c];
        if (e->n->lvl[cn->node] != level) continue;
        int src = e->r->nodes[cn->node].src;
        char *what = base_xasprintf("constraint %s", cn->name);
        emit_line_directive(e, src);
        emit_start(e);
        /* the EGM candidates come in no order: a cap skips one, never the rest */
        int leave = level < LVL_ACTION0 || (caps_loop_action(e, cn->node, level) && !emit_egm_level(e, level));
        if (e->staged > 0 && level == e->n->innermost) base_sb_printf(e->b, "feas &= %s;", emit_cond(e, cn->node));
        else base_sb_printf(e->b, "if (!%s) %s;", emit_cond(e, cn->node), leave ? "break" : "continue");
        emit_comment(e, what, src);
        base_sb_putc(e->b, '\n');
        free(what);
    }
}

static int any_best_only(const emitter *e)
{
    for (size_t i = 0; e->n->best_only && i < e->r->nnodes; ++i)
        if (e->n->best_only[i]) return 1;
    return 0;
}

/* Q of a feasible pair: the running max and its first argmax; with taste
 * shocks also those of its discrete choice d = ai<nd-1> (the discrete
 * actions come first: their flat index is the choice). */
static void best_update(emitter *e)
{
    const ir_regime *r = e->r;
    if (e->n->kind == NEST_STAGE) { /* the entry's best over the stage's action (emit_stage.c) */
        emit_stage_update(e);
        return;
    }
    if (e->n->kind == NEST_TABLE) { /* the entry's continuation (emit.c) */
        emit_table_store(e);
        return;
    }
    emit_checks(e, "bad");
    if (e->staged > 0) {
        int j = plan_loop_action(e->n, e->n->innermost);
        emit_line(e, "lcm_q[i%d - c%d] = %s;", j, j, emit_num(e, e->n->q));
        emit_line(e, "lcm_ok[i%d - c%d] = feas;", j, j);
        return;
    }
    emit_open(e, "{");
    emit_line(e, "const real q = %s;", emit_num(e, e->n->q));
    emit_line(e, "if (q != q) nan_q = 1;");
    /* what the best keeps besides q and its index: an EGM regime's action
     * and its marginal utility (the marginal value of the liquid state), a
     * terminal regime's marginal value (emit_egm.c); with taste shocks the
     * same for the best of each discrete choice */
    char best[640] = "", choice[640] = "";
    if (emit_is_egm(e)) {
        int c = r->egm.action, d = ir_discrete_actions(r) - 1; /* with taste shocks nothing else is enumerated */
        /* the marginal value of x: marginal utility times d resources / d x
         * (the envelope theorem), the factor left out where it is 1 */
        char scaled[256];
        const char *mu = emit_num(e, r->egm.marginal);
        if (ir_margin_scaled(r)) {
            snprintf(scaled, sizeof scaled, "(%s * %s)", mu, emit_num(e, r->egm.dresources));
            mu = scaled;
        }
        snprintf(best, sizeof best, " egm_best[0] = act%d; egm_best[1] = %s;", c, mu);
        if (r->taste_scale >= 0)
            snprintf(choice, sizeof choice, " egm_best[2 + ai%d] = act%d; egm_best[%d + ai%d] = %s;", d, c,
                     2 + ir_taste_choices(r), d, mu);
    } else if (r->terminal_marginal) {
        snprintf(best, sizeof best, " egm_best[1] = %s;", emit_num(e, r->marginal));
    }
    char index[32] = "0";
    if (e->n->nloops) snprintf(index, sizeof index, "ai%d", plan_loop_action(e->n, e->n->innermost));
    if (r->taste_scale >= 0) {
        int d = ir_discrete_actions(r) - 1;
        emit_open(e, "else {");
        emit_line(e, "if (q > best || best_a < 0) { best = q; best_a = %s;%s }", index, best);
        emit_line(e, "if (q > vd[ai%d] || ad[ai%d] < 0) { vd[ai%d] = q; ad[ai%d] = %s;%s }", d, d, d, d, index, choice);
        emit_close(e);
    } else if (any_best_only(e)) { /* the nodes only the best keeps (the marginal value), computed for it */
        emit_open(e, "else if (q > best || best_a < 0) {");
        emit_line(e, "best = q;");
        emit_line(e, "best_a = %s;", index);
        for (size_t i = 0; i < r->nnodes; ++i)
            if (e->n->best_only[i]) emit_node_decl(e, (int)i);
        emit_line(e, "%s", best + 1);
        emit_close(e);
    } else {
        emit_line(e, "else if (q > best || best_a < 0) { best = q; best_a = %s;%s }", index, best);
    }
    emit_close(e);
}

/* The taste-shock scale, where it is known (before any constraint can end
 * the state): a negative or non-finite one is flagged. */
static void taste_scale(emitter *e, int level)
{
    int node = e->r->taste_scale;
    if (node < 0 || e->n->lvl[node] != level) return;
    emit_line(e, "*scale = %s; /* taste shocks */", emit_num(e, node));
    emit_line(e, "if (!(*scale >= 0 && *scale < LCM_INF)) bad |= 1u << LCM_FLAG_TASTE_SCALE;");
}


/* Staged: on the CPU the innermost action loop runs in chunks of at most
 * STAGE_CHUNK actions, Q and feasibility of each action into arrays
 * without a branch (a constraint there is a predicate, not a `continue`),
 * then lcm_best_of (prelude.h) folds the chunk into the running best, the
 * same as the per-action update to the bit.  A loop without branches is one
 * the C compiler vectorises.  Only where each action's work is plain
 * arithmetic: the continuation read from the table (or none, the last
 * period), no taste shocks or Epstein-Zin (their own bookkeeping), no
 * parameter indexed by the innermost action (the loop computes infeasible
 * actions too: such an index would be in range, pidx_in_range, but no
 * model here has one to test it). */
enum { STAGE_CHUNK = 512, STAGE_MIN = 128, STAGE_MIN_CHEAP = 32, STAGE_MIN_INLINE = 8 };

/* Whether the CPU's innermost loop computes node id itself: not an action
 * term, nor a hoisted term (a load there) or what only those read. */
static int loop_computes(const emitter *e, int id)
{
    return emit_body_computes(e, id) && !(e->n->hoisted && (e->n->hoisted[id] || e->n->hoist_only[id]));
}

/* Whether the continuation the innermost loop computes inline (no table)
 * can be staged: what decides whether a target counts (its probability)
 * and the stochastic weights are known outside the loop, so the loop's
 * only branches are invariant ones; one stochastic next state at most
 * (a point of a nested loop is skipped when an enclosing weight is zero,
 * a select GCC 12 does not vectorise); and each next state's cell has a
 * closed form without a call (a search loop or a log would keep the loop
 * scalar).  Each action's
 * continuation costs a few interpolations, so a loop of STAGE_MIN_INLINE
 * actions already gains (precautionary savings, 10 consumption points:
 * the simulation's step 1.3x; 500: the solve 2x). */
static int stages_inline(const emitter *e)
{
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        if (emit_target_level(e, tg) != e->n->innermost) continue;
        if (e->n->lvl[e->r->rprob[tg->regime]] >= e->n->innermost) return 0;
        const ir_regime *tr = &e->m->regimes[tg->regime];
        int loops = 0, ok = 1;
        int *axis = e->ev_path > 0 ? emit_ev_axes(e, tg) : NULL; /* the states read from the expected V: no loop */
        for (int s = 0; s < tr->nstates && ok; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind != NEXT_DET) {
                int looped = !axis || axis[s] == IR_EV_NONE;
                ok = emit_weights_level(e, nx) < e->n->innermost && !(looped && ++loops > 1);
                continue;
            }
            if (emit_on_own_grid(e, nx->node, &tr->states[s].grid) >= 0) continue; /* an action's point */
            switch (tr->states[s].grid.kind) {
            case GRID_DISCRETE: case GRID_LIN: case GRID_PWLIN: break;
            default: ok = 0; /* a search (lcm_cell_search) or a log (lcm_cell_log) */
            }
        }
        free(axis);
        if (!ok) return 0;
    }
    return 1;
}

/* Whether the kernel's innermost action loop is staged.  Reading its
 * continuation from the table (or with none, in the last period), a loop
 * that computes a division, root, power or modulo (emit_costly_op) is staged
 * from STAGE_MIN actions: in shorter ones the chunk's two passes and the
 * arrays cost about what the vector loop saves (FVV at 64 next-asset
 * points: 1.3 ms staged, 1.0 ms plain; at 128: 3.1 and 4.1 ms; Mahler &
 * Yum's 50 saving points, its utility's division in the loop, about 10%
 * slower staged).  A loop of additions, products, comparisons and loads
 * alone is staged from STAGE_MIN_CHEAP (Mahler & Yum with its utility
 * hoisted: 20 saving points about 2% slower staged, 50 faster,
 * docs/performance.md). */
static int stages(const emitter *e)
{
    const ir_regime *r = e->r;
    int stage = e->n->kind == NEST_STAGE; /* a stage's row, into its entries (emit_stage.c): no chunks */
    if ((e->n->kind != NEST_BODY && !stage) || !e->n->nloops || r->taste_scale >= 0 || emit_ez(e) || emit_is_egm(e))
        return 0;
    int n = r->actions[plan_loop_action(e->n, e->n->innermost)].grid.n, cheap = 1; /* what the staged loop computes: no costly op */
    for (size_t i = 0; i < r->nnodes; ++i)
        cheap &= !(loop_computes(e, (int)i) && !e->n->next_only[i] && e->n->lvl[i] == e->n->innermost &&
                   emit_costly_op(r->nodes[i].op));
    int least = stage ? STAGE_MIN_INLINE
                : !e->n->cont || emit_reads_table(e) ? (cheap ? STAGE_MIN_CHEAP : STAGE_MIN) : STAGE_MIN_INLINE;
    if (n < least || (e->n->cont && !emit_table_now(e) && !stages_inline(e))) return 0;
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        if (!loop_computes(e, (int)i) || e->n->lvl[i] != e->n->innermost) continue;
        if (emit_call_op(n->op)) return 0;
        switch (n->op) {
        case OP_PIDX: /* no indexed parameter (above) */
            return 0;
        case OP_POW: { /* lcm_pow without its call: a reduced constant exponent, or one of the state */
            const ir_node *y = &r->nodes[n->args[1]];
            if (y->op == OP_CONST ? !lcm_pow_kind(y->k) : e->n->lvl[n->args[1]] == e->n->innermost)
                return 0;
            break;
        }
        default: break;
        }
    }
    return 1;
}

/* What the staged loop's guard asks besides the table: each run-time
 * exponent and divisor reducible (emit_reduced), decided here, once for
 * every staged variant (" && pk7 && df9 != 0" into cond). */
static void staged_reductions(emitter *e, lcm_sb *cond)
{
    const ir_regime *r = e->r;
    e->staged = 1;
    for (size_t i = 0; i < r->nnodes; ++i) {
        int id = (int)i;
        if (!loop_computes(e, id) || !emit_reduced(e, id)) continue;
        const char *y = emit_num(e, r->nodes[i].args[1]);
        if (r->nodes[i].op == OP_POW) {
            emit_line(e, "const int pk%d = lcm_pow_kind(%s);", id, y);
            base_sb_printf(cond, " && pk%d", id);
        } else {
            emit_line(e, "const real df%d = lcm_div_by(%s);", id, y);
            base_sb_printf(cond, " && df%d != 0", id);
        }
    }
    e->staged = 0;
}

/* A cap's scan: lim<j> (or, for a scan hoisted out, lcm_cap<c>) lowered to
 * the first action of loop j, from 0 up to it, that constraint c rules out. */
static void cap_scan(emitter *e, int c, int j, const char *lim)
{
    lcm_sb test;
    base_sb_init(&test);
    cap_test(e, e->r->constraints[c].node, j, &test);
    emit_open(e, "for (int i%d = 0; i%d < %s; ++i%d) { /* constraint %s */", j, j, lim, j, e->r->constraints[c].name);
    emit_action_value(e, j, 'i');
    emit_open(e, "if (!(%s)) {", test.s);
    emit_line(e, "%s = i%d;", lim, j);
    emit_line(e, "break;");
    emit_close(e);
    emit_close(e);
    base_sb_free(&test);
}

/* Whether the scan of cap c of the staged loop at `level` runs further
 * out, where its bound is known: at the bound's level, when a loop lies
 * between that and the staged one (Mahler & Yum's saving <= cash on hand,
 * known per labor supply, scanned once there, not once per effort). */
static int cap_scanned_outside(const emitter *e, int c, int level)
{
    int x = cap_bound(e, e->r->constraints[c].node, level);
    return x >= 0 && e->n->lvl[x] < level - 1 && level - 1 >= LVL_ACTION0; /* the state's levels run once per state */
}

static int staged_variants(emitter *e, int *variants);

/* On the CPU, at `level`, the scans of the staged loop's caps whose bounds
 * are known here (cap_scanned_outside), each into its lcm_cap<c>. */
static void staged_caps_at(emitter *e, int level)
{
    const ir_regime *r = e->r;
    int variants[3], in = e->n->innermost, any = 0;
    if (level >= in - 1 || in < LVL_ACTION0 || !staged_variants(e, variants)) return;
    int j = plan_loop_action(e->n, in);
    for (int c = 0; c < r->nconstraints; ++c) {
        /* a cap's bound has a level, and its scan runs there */
        if (!cap_scanned_outside(e, c, in) || e->n->lvl[cap_bound(e, r->constraints[c].node, in)] != level) continue;
        if (!any++) base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        char lim[32];
        snprintf(lim, sizeof lim, "lcm_cap%d", c);
        emit_line(e, "int %s = %d; /* the first %s constraint %s rules out (emit_loops.c, \"staged\") */", lim,
                  r->actions[j].grid.n, r->actions[j].name, r->constraints[c].name);
        cap_scan(e, c, j, lim);
    }
    if (any) base_sb_puts(e->b, "#endif\n");
}

/* lim<j>: the actions of loop j that the constraints capping it from above
 * (caps_loop_action) allow, a prefix of the ascending grid: where the plain
 * loop's `break` would end it, so that the staged loop computes no more
 * actions than the plain one.  A cap scanned further out gives its
 * lcm_cap<c>: the first action it rules out in the whole grid, so the
 * smaller of that and lim<j> is what the scan from here would find. */
static void staged_limit(emitter *e, int level)
{
    const ir_regime *r = e->r;
    int j = plan_loop_action(e->n, level);
    emit_line(e, "int lim%d = %d;", j, r->actions[j].grid.n);
    char lim[32];
    snprintf(lim, sizeof lim, "lim%d", j);
    for (int c = 0; c < r->nconstraints; ++c) {
        if (!cap_known_at(e, c, level, level - 1)) continue;
        if (cap_scanned_outside(e, c, level)) emit_line(e, "if (lcm_cap%d < %s) %s = lcm_cap%d;", c, lim, lim, c);
        else cap_scan(e, c, j, lim);
    }
}

/* The variants of the innermost loop that are staged, by their ev_path
 * into variants[] (at most 3), and how many: without a continuation table
 * but with an expected V, the ones that read it (at the nodes, where it
 * blends AR(1) rows: the solve's states are nodes, and a vectorised loop
 * computes a corner whose weight is 0 before it drops it; and blended)
 * and the one that sums the nodes, each where it stages; else the one loop
 * (with a table, the one that reads it), where it stages. */
static int staged_variants(emitter *e, int *variants)
{
    int nv = 0;
    if (e->n->kind == NEST_STAGE) { /* the table's, when the solve gives it; the expected V's (a subject) */
        if (stages(e)) variants[nv++] = 0;
        e->ev_path = 1;
        if (emit_reads_table(e) && emit_reads_ev(e) && stages(e)) variants[nv++] = 1;
        e->ev_path = 0;
        return nv;
    }
    if (!emit_reads_ev(e) || emit_reads_table(e)) {
        if (stages(e)) variants[nv++] = 0;
        return nv;
    }
    lcm_sb at_nodes;
    base_sb_init(&at_nodes);
    int paths[] = {2, 1, -1};
    for (int i = emit_at_nodes(e, &at_nodes) ? 0 : 1; i < 3; ++i) {
        e->ev_path = paths[i];
        if (stages(e)) variants[nv++] = paths[i];
    }
    base_sb_free(&at_nodes);
    e->ev_path = 0;
    return nv;
}

/* The innermost action loop staged for the CPU, when the solve gives the
 * table (always in the last period), or else summing inline -- with an
 * expected-V table, one staged loop for each of its paths that stages --
 * and as on the GPU otherwise. */
static void staged_level(emitter *e, int level)
{
    int j = plan_loop_action(e->n, level), n = e->r->actions[j].grid.n, chunk = n < STAGE_CHUNK ? n : STAGE_CHUNK;
    base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    lcm_sb reduced;
    base_sb_init(&reduced);
    staged_reductions(e, &reduced);
    int variants[3], nv = staged_variants(e, variants);
    lcm_sb at_nodes;
    base_sb_init(&at_nodes);
    emit_at_nodes(e, &at_nodes);
    for (int v = 0; v < nv; ++v) {
        e->ev_path = variants[v];
        /* which continuation the variant computes: the table's, the expected V's (at the nodes, or blended) or the
         * sum over the nodes */
        const char *with = e->ev_path > 0 ? "ev" : e->ev_path < 0 ? "!ev" : emit_reads_table(e) ? "pre" : "1";
        emit_open(e, "%sif (%s%s%s%s) {", v ? "else " : "", with, e->ev_path == 2 ? " && " : "",
                  e->ev_path == 2 ? at_nodes.s : "", reduced.s ? reduced.s : "");
        staged_limit(e, level);
        if (e->n->kind == NEST_STAGE) { /* the row's entries at once, each its own best (emit_stage.c) */
            emit_line(e, "const int c%d = 0, n%d = lim%d;", j, j, j);
            e->staged = 1;
            emit_level(e, level);
            e->staged = 0;
            emit_close(e);
            continue;
        }
        emit_open(e, "for (int c%d = 0; c%d < lim%d; c%d += %d) { /* action %s, %d at a time: Q, then the best */", j, j,
                  j, j, chunk, e->r->actions[j].name, chunk);
        emit_line(e, "const int n%d = lim%d - c%d < %d ? lim%d - c%d : %d;", j, j, j, chunk, j, j, chunk);
        emit_line(e, "real lcm_q[%d];", chunk);
        emit_line(e, "lcm_feas lcm_ok[%d];", chunk);
        e->staged = 1;
        emit_level(e, level);
        e->staged = 0;
        if (level == LVL_ACTION0) emit_line(e, "lcm_best_of(lcm_q, lcm_ok, n%d, c%d, &best, &best_a, &nan_q);", j, j);
        else
            emit_line(e, "lcm_best_of(lcm_q, lcm_ok, n%d, ai%d * %d + c%d, &best, &best_a, &nan_q);", j,
                      plan_loop_action(e->n, level - 1), n, j);
        emit_close(e);
        emit_close(e);
    }
    e->ev_path = 0;
    base_sb_free(&reduced), base_sb_free(&at_nodes);
    emit_line(e, "else");
    base_sb_puts(e->b, "#endif\n");
    emit_open(e, "{");
    e->staged = -1; /* the plain loop */
    emit_level(e, level);
    e->staged = 0;
    emit_close(e);
}

void emit_level(emitter *e, int level)
{
    int variants[3];
    if (level == e->n->innermost && level >= LVL_ACTION0 && !e->staged && staged_variants(e, variants)) {
        staged_level(e, level);
        return;
    }
    if (level >= LVL_ACTION0) action_loop(e, level);
    if (emit_reads_table(e) && level == LVL_KERNEL) {
        emit_line(e, "const real *LCM_RESTRICT pre = (const real *)a->cont; /* 0: inline */");
        emit_line(e, "const unsigned char *LCM_RESTRICT pre_code = a->cont_code;");
        if (emit_lazy_row(e)) emit_lazy_row_decl(e);
    }
    if (emit_reads_ev(e) && level == LVL_KERNEL)
        emit_line(e, "const real *LCM_RESTRICT ev = (const real *)a->ev; /* the expected V; 0: sum over the nodes */");
    if (emit_reads_table(e) && level == LVL_STATE) emit_table_row(e);
    if (e->n->kind == NEST_BODY && e->p->pre.elim.nstages && level == LVL_KERNEL)
        emit_line(e, "LCM_UNUSED const int lcm_lane = a->stage[0] ? LCM_LANE : 0, lcm_lanes = a->stage[0] ? LCM_LANES : 1;");
    if (e->n->kind == NEST_BODY && e->p->pre.elim.nstages && level == LVL_STATE) emit_stage_rows(e);
    char *first = base_xmalloc(e->r->nnodes + 1);
    constraint_inputs(e, level, first);
    declare_level(e, level, 0, first, 1);
    taste_scale(e, level);
    constraints(e, level);
    declare_level(e, level, 0, first, 0);
    free(first);
    if (level < e->n->innermost) hoisted_build(e, level);
    staged_caps_at(e, level);
    emit_regime_prob_check(e, level);
    emit_stochastic_weights(e, level);
    if (level == e->n->e_level && emit_lazy_row(e)) emit_lazy_row_entry(e);
    for (int t = 0; t < e->k->ntargets && e->n->cont; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        if (emit_target_level(e, tg) == level) emit_target_block(e, tg, level);
    }
    if (e->n->cont && level == e->n->e_level) emit_accumulate(e);
    declare_level(e, level, 1, NULL, 0);
    if (emit_is_egm(e) && level == LVL_STATE) emit_egm_rows(e);
    if (emit_is_egm(e) && emit_egm_level(e, level + 1)) emit_egm_choice(e);
    if (level < e->n->innermost) emit_next_cells(e, level);
    if (level == e->n->innermost) best_update(e);
    else emit_level(e, level + 1);
    if (level >= LVL_ACTION0) emit_close(e);
}

