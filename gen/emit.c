/* emit.c - see emit.h. */
#include "emit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h" /* lcm_pow_kind: which exponents the staged loop computes without pow */
#include "embedded.h"
#include "emit_internal.h"
#include "grid.h"
#include "layout.h"
#include "process.h"
#include "template.h"
#include "vars.h"

/* ---- analysis of one kernel --------------------------------------------- */
static void compute_levels(emitter *e, int enext_level)
{
    const ir_regime *r = e->r;
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        int l = LVL_KERNEL, h = 0;
        switch (n->op) {
        case OP_STATE: l = LVL_STATE; break;
        case OP_ACTION: l = LVL_ACTION0 + n->ref; break;
        case OP_ENEXT: l = enext_level, h = 1; break;
        default:
            for (int a = 0; a < n->nargs; ++a) {
                if (e->lvl[n->args[a]] > l) l = e->lvl[n->args[a]];
                h |= e->has_enext[n->args[a]];
            }
        }
        e->lvl[i] = l;
        e->has_enext[i] = (char)h;
    }
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* Whether E_next_V is the certainty equivalent of an Epstein-Zin regime
 * (lcm_ce in templates/arith.h) rather than the expectation. */
static int ez(const emitter *e) { return e->r->risk_aversion >= 0; }

/* Level at which the continuation of target g can be computed (for an
 * Epstein-Zin regime no higher than the risk aversion, which transforms V). */
static int target_level(const emitter *e, const ir_target *tg)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    if (e->flat) return -1;
    int l = ez(e) ? e->lvl[e->r->risk_aversion] : LVL_KERNEL;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET) l = max_int(l, e->lvl[nx->node]);
        else if (nx->kind == NEXT_PROCESS) l = max_int(l, nx->src >= 0 ? LVL_STATE : LVL_KERNEL);
        else
            for (int j = 0; j < nx->nprobs; ++j) l = max_int(l, e->lvl[nx->probs[j]]);
    }
    return l;
}

/* Whether the kernel body reads its continuation from a table (when the
 * solve gives one) rather than computing it. */
static int reads_table(const emitter *e) { return e->pre.active && !e->pre.egm && !e->pre.ev && !e->flat; }

/* The state's row.  Simulation has no table (subjects sit between grid
 * points), so the body of a kernel with one computes E inline, and did so
 * again for each value of an action E does not read that loops outside E
 * (Mahler & Yum: E reads effort and saving, and was computed once per
 * labour supply as well).  The CPU's body keeps its state's row of the
 * table instead when the launch asks for it (lcm_kernel_args.cont_lazy):
 * lcm_row[at] for the read actions' combination at, and its off-grid byte,
 * stored where the inline code first computes E there and read from then
 * on; an entry the constraints rule out is never computed.  The inline
 * code gives the table's bits, so the panel keeps its bits.  Only where
 * such actions have 2 or more values in all and the row stays within
 * LAZY_MAX entries (its reals and two bytes each: 40 KiB of the stack in
 * float64), in the plain loop (the staged one runs with a table only).
 * The GPU computes E inline as before. */
enum { LAZY_MAX = 4096 };
static int lazy_row(const emitter *e)
{
    if (!reads_table(e) || e->staged > 0 || e->pre.acts > LAZY_MAX) return 0;
    long long reuse = 1;
    for (int j = 0; j < e->r->nactions; ++j)
        if (!(e->pre.actions >> j & 1) && LVL_ACTION0 + j < e->e_level) reuse *= e->r->actions[j].grid.n;
    return reuse >= 2;
}

/* Whether the solve gives the kernel body the expected V of some targets
 * (ir/precompute.h, "ev"), and whether target regime g is one of them. */
static int reads_ev(const emitter *e) { return e->pre.ev && !e->flat && !e->egm_table; }
static int kernel_target(const emitter *e, int g) /* its index among the kernel's targets, or -1 */
{
    for (int t = 0; t < e->k->ntargets; ++t)
        if (e->k->targets[t] == g) return t;
    return -1;
}

static int ev_target(const emitter *e, int g)
{
    int t = kernel_target(e, g);
    return t >= 0 && reads_ev(e) && ir_pre_ev_target(&e->pre, t);
}

/* When the expected V is read for target g (every target of the table
 * when g < 0), as C: the launch gives the table, and each AR(1) process's
 * current value is one of its nodes (pe<g>_<s>, process_weights): always
 * in the solve, whose states lie on their grids. */
static void ev_condition(const emitter *e, int g, lcm_sb *out)
{
    lcm_sb_puts(out, "pre");
    for (int t = 0; t < e->k->ntargets; ++t) {
        int tg_regime = e->k->targets[t];
        if ((g >= 0 && tg_regime != g) || !ev_target(e, tg_regime)) continue;
        const ir_target *tg = ir_target_of(e->r, tg_regime);
        for (int s = 0; s < e->m->regimes[tg_regime].nstates; ++s)
            if (tg->next[s].kind == NEXT_PROCESS && tg->next[s].src >= 0)
                lcm_sb_printf(out, " && pe%d_%d >= 0", tg_regime, s);
    }
}

/* Whether the kernel's regime solves by the endogenous grid method, and
 * whether loop level `level` is its candidates' (gen/emit_egm.c). */
static int egm(const emitter *e) { return ir_is_egm(e->r); }
static int egm_level(const emitter *e, int level) { return egm(e) && level == LVL_ACTION0 + e->r->egm.action; }

/* Marks a node the kernel uses directly (and what it reads). */
static void mark_root(emitter *e, int id)
{
    emit_mark(e, id);
    if (e->root && id >= 0) e->root[id] = 1;
}

/* What the continuation reads: the targets' regime probabilities, next
 * states and weights, and an Epstein-Zin regime's risk aversion
 * (ir/precompute.c counts the same). */
static void mark_continuation(emitter *e)
{
    if (ez(e)) mark_root(e, e->r->risk_aversion);
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        mark_root(e, e->r->rprob[tg->regime]);
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            if (tg->next[s].kind == NEXT_DET) mark_root(e, tg->next[s].node);
            else if (tg->next[s].kind == NEXT_MARKOV)
                for (int j = 0; j < tg->next[s].nprobs; ++j) mark_root(e, tg->next[s].probs[j]);
        }
    }
}

/* ---- action terms ---------------------------------------------------------
 * A term that only one action's value decides, log(consumption) say, is the
 * same at every state: a simulation of a million subjects computed it for
 * each subject and action.  The launch computes it once per action into
 * lcm_at and the body's loops read it (a load the staged loop can
 * vectorise), the same expression on the same operands: the same bits.  On
 * the CPU lcm_at is on the launch's stack (action_terms_build); on the GPU
 * it is a buffer of the backend that the kernel <symbol>_terms fills before
 * each launch (kernel_abi.h, lcm_kernel_args.terms; its length is the
 * kernel's `terms` in the manifest).  Only terms with a call or a division
 * in them are worth a load; none that reads a parameter at an index that
 * may be out of range (the table covers infeasible actions too), but one
 * at the action's own code (Mahler & Yum's effort_grid[effort] ^ power,
 * a call per state and effort before: pidx_in_range). */

/* Whether parameter read id (OP_PIDX) is in range at every value of its
 * actions, so that a table of action terms may compute it at actions the
 * constraints rule out: each index a discrete action, whose every code is
 * an index (the DSL sizes the dimension by its categories), the period, or
 * a constant in range.  A state's code is not taken (no action term reads
 * a state, and a simulated subject's code may have left its grid after a
 * failed check). */
static int pidx_in_range(const emitter *e, int id)
{
    const ir_node *n = &e->r->nodes[id];
    const ir_param *p = &e->m->params[n->ref];
    for (int d = 0; d < n->nargs; ++d) {
        const ir_node *x = &e->r->nodes[n->args[d]];
        int ok = x->op == OP_ACTION ? grid_is_discrete(&e->r->actions[x->ref].grid) &&
                                          e->r->actions[x->ref].grid.n <= p->dims[d]
                 : x->op == OP_PERIOD ? e->m->nperiods <= p->dims[d]
                 : x->op == OP_CONST && x->k >= 0 && x->k < p->dims[d] && x->k == (double)(int)x->k;
        if (!ok) return 0;
    }
    return 1;
}

/* A library call the C compiler does not vectorise (the staged loop has none). */
static int call_op(ir_op op)
{
    switch (op) {
    case OP_LOG: case OP_EXP: case OP_LOG1P: case OP_EXPM1: case OP_NCDF: case OP_TANH: return 1;
    default: return 0;
    }
}

static int costly_op(ir_op op)
{
    switch (op) {
    case OP_SQRT: case OP_DIV: case OP_POW: case OP_MOD: case OP_IDIV: return 1;
    default: return call_op(op);
    }
}

/* Marks node id the body computes or reads, not looking past a tabled or
 * hoisted term. */
static void mark_body(emitter *e, char *body, int id)
{
    if (id < 0 || body[id]) return;
    body[id] = 1;
    if (e->tabled[id] || (e->hoisted && e->hoisted[id])) return; /* read from lcm_at, or its lcm_h */
    for (int a = 0; a < e->r->nodes[id].nargs; ++a) mark_body(e, body, e->r->nodes[id].args[a]);
}

/* Whether the body computes node id itself. */
static int body_computes(const emitter *e, int id)
{
    return e->needed[id] && !(e->tabled && (e->tabled[id] || e->terms_only[id]));
}

static void plan_action_terms(emitter *e)
{
    const ir_regime *r = e->r;
    size_t n = r->nnodes;
    /* act[i]: the one action node i depends on (-1: none); -2: a state, a
     * second action, E_next_V or an index that may be out of range, so not
     * a term */
    int *act = lcm_xcalloc(n + 1, sizeof *act);
    char *costly = lcm_xcalloc(n + 1, 1), *outside = lcm_xcalloc(n + 1, 1), *body = lcm_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; ++i) {
        const ir_node *nd = &r->nodes[i];
        switch (nd->op) {
        case OP_STATE: case OP_ENEXT: act[i] = -2; break;
        case OP_ACTION: act[i] = egm(e) && nd->ref == r->egm.action ? -2 : nd->ref; break; /* EGM's: off its grid */
        default:
            act[i] = nd->op == OP_PIDX && !pidx_in_range(e, (int)i) ? -2 : -1;
            for (int a = 0; a < nd->nargs && act[i] != -2; ++a) {
                int x = act[nd->args[a]];
                if (x == -2 || (x >= 0 && act[i] >= 0 && x != act[i])) act[i] = -2;
                else if (x >= 0 && act[i] != -2) act[i] = x;
                costly[i] |= costly[nd->args[a]];
            }
        }
        if (act[i] >= 0 && costly_op(nd->op)) costly[i] = 1;
        if (act[i] < 0) costly[i] = 0; /* a state's term, or one of the launch, is computed where it is */
    }
    for (size_t i = 0; i < n; ++i) /* a term some other node reads (a condition is computed where it is used) */
        for (int a = 0; e->needed[i] && a < r->nodes[i].nargs; ++a)
            if (act[i] < 0 || r->nodes[i].type == IR_BOOL) outside[r->nodes[i].args[a]] = 1;
    for (size_t i = 0; i < n; ++i) {
        /* a condition is not tabled: it is a predicate where it is used (the staged loop's feas &=) */
        if (!e->needed[i] || act[i] < 0 || !costly[i] || !(outside[i] || e->root[i]) || r->nodes[i].type == IR_BOOL)
            continue;
        int len = r->actions[act[i]].grid.n;
        if (e->nat + len > IR_MAX_ACTION_TERMS) continue;
        e->tabled[i] = 1;
        e->at_off[i] = e->nat;
        e->nat += len;
    }
    for (size_t i = 0; i < n; ++i)
        if (e->root[i]) mark_body(e, body, (int)i);
    for (size_t i = 0; i < n; ++i) e->terms_only[i] = e->needed[i] && !body[i];
    free(act), free(costly), free(outside), free(body);
}

/* ---- hoisted terms ----------------------------------------------------------
 * A term of an action loop that the loops between it and its inputs leave
 * unchanged -- Mahler & Yum's consumption utility, which reads the state,
 * labor supply and saving but not the effort looped between them; their
 * health logit, which reads the state and effort but not the labor supply
 * looped outside effort -- was computed once per pass of those loops: the
 * utility's division once per effort level, the logit's exp once per labor
 * supply.  On the CPU it is computed into lcm_h<id>[], one value per point
 * of its own action (its home: the level the term is at), where its inputs
 * are known (hoist_level: the labor loop for the utility, the state for the
 * logit), and its loop reads it: the same expression on the same operands,
 * so the same bits.  The GPU, whose lanes split the innermost loop,
 * computes it in place as before.  A term qualifies when it is costly (a
 * division, power or call in what it computes), reads no indexed parameter
 * at its home that may be out of range (pidx_in_range: the building loop
 * computes actions the constraints rule out), nothing of E_next_V, and only
 * where at least two iterations of the loops between share it.  The loop
 * that builds it stops where a cap of its home action known there (saving
 * <= cash on hand) ends the home loop. */
enum { HOIST_MAX = 4096 }; /* reals of lcm_h buffers in one body: 32 KiB of its stack in float64 */

/* Of a node of an action loop: whether it can be computed before the loops
 * between it and its inputs (ok), whether what it computes there is costly,
 * and the innermost level of those inputs outside its own. */
typedef struct hoist_info {
    char ok, costly;
    int level;
} hoist_info;

static hoist_info *hoist_infos(const emitter *e)
{
    const ir_regime *r = e->r;
    hoist_info *h = lcm_xcalloc(r->nnodes + 1, sizeof *h);
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *nd = &r->nodes[i];
        int home = e->lvl[i];
        if (home < LVL_ACTION0) continue;
        h[i].level = LVL_KERNEL;
        if (e->tabled[i] || nd->op == OP_ACTION) { /* lcm_at's, or the home's action (the only one of its level) */
            h[i].ok = 1;
            continue;
        }
        if ((nd->op == OP_PIDX && !pidx_in_range(e, (int)i)) || e->has_enext[i]) continue;
        h[i].ok = 1;
        h[i].costly = (char)costly_op(nd->op);
        for (int a = 0; a < nd->nargs; ++a) {
            int x = nd->args[a];
            if (e->lvl[x] != home) {
                h[i].level = max_int(h[i].level, e->lvl[x]);
                continue;
            }
            h[i].ok &= h[x].ok;
            h[i].level = max_int(h[i].level, h[x].level);
            h[i].costly |= h[x].costly && !e->tabled[x];
        }
    }
    return h;
}

/* How many times the loops between level `level` and action level `home`
 * run per iteration of `level`: how often a term hoisted to it is shared. */
static double hoist_gain(const emitter *e, int level, int home)
{
    double g = 1;
    for (int j = level < LVL_ACTION0 ? 0 : level - LVL_ACTION0 + 1; j < home - LVL_ACTION0; ++j)
        g *= e->r->actions[j].grid.n;
    return g;
}

static void plan_hoisted_terms(emitter *e)
{
    const ir_regime *r = e->r;
    if (e->flat || e->no_hoist || egm(e) || r->nactions < 2) return;
    size_t n = r->nnodes;
    int used = 0;
    hoist_info *h = hoist_infos(e);
    char *outside = lcm_xcalloc(n + 1, 1); /* read where the body computes its reader */
    for (size_t i = n; i-- > 0;) { /* readers first: arguments have lower ids */
        if (!e->needed[i] || e->terms_only[i]) continue;
        const ir_node *nd = &r->nodes[i];
        int home = e->lvl[i], read = e->root[i] || outside[i];
        if (home < LVL_ACTION0) {
            /* a state's or the launch's node: computed where it is */
        } else if (read && h[i].ok && h[i].costly && !e->tabled[i] && nd->type != IR_BOOL &&
                   hoist_gain(e, h[i].level, home) >= 2 && used + r->actions[home - LVL_ACTION0].grid.n <= HOIST_MAX) {
            e->hoisted[i] = 1;
            e->hoist_level[i] = h[i].level;
            used += r->actions[home - LVL_ACTION0].grid.n;
        } else if (!read) {
            e->hoist_only[i] = 1; /* only hoisted terms read it */
        }
        if (e->tabled[i]) continue; /* its arguments are read where lcm_at is filled */
        /* a hoisted term's arguments at its home are computed where it is
         * built; those outside it are read there, declared where they are */
        int built = e->hoisted[i] || e->hoist_only[i];
        for (int a = 0; a < nd->nargs; ++a)
            if (!built || e->lvl[nd->args[a]] != home) outside[nd->args[a]] = 1;
    }
    free(h), free(outside);
}

/* With a table, the staged loop reads the continuation from it: what only
 * the next states need (next wealth = (1 + r) * saving) is left out there;
 * the plain loop beside it computes them for its inline block.  A Markov
 * state's probabilities stay: the kernel checks them (pmok, checks()). */
static void plan_next_only(emitter *e)
{
    const ir_regime *r = e->r;
    char *rest = lcm_xcalloc(r->nnodes + 1, 1); /* what the loop reads but for the next states */
    mark_body(e, rest, r->q);
    mark_body(e, rest, r->utility);
    mark_body(e, rest, r->taste_scale);
    for (int c = 0; c < r->nconstraints; ++c) mark_body(e, rest, r->constraints[c].node);
    mark_body(e, rest, r->risk_aversion);
    for (int g = 0; g < e->m->nregimes; ++g) mark_body(e, rest, r->rprob[g]);
    for (int t = 0; t < e->k->ntargets; ++t) { /* a Markov state's probabilities: the kernel checks them */
        const ir_target *tg = ir_target_of(r, e->k->targets[t]);
        for (int s = 0; s < e->m->regimes[tg->regime].nstates; ++s)
            for (int j = 0; tg->next[s].kind == NEXT_MARKOV && j < tg->next[s].nprobs; ++j)
                mark_body(e, rest, tg->next[s].probs[j]);
    }
    for (size_t i = 0; i < r->nnodes; ++i) e->next_only[i] = e->needed[i] && !rest[i];
    free(rest);
}

static int analyze(emitter *e, lcm_err *err)
{
    const ir_regime *r = e->r;
    const ir_kernel *k = e->k;
    e->innermost = LVL_STATE + r->nactions;
    compute_levels(e, 0);
    e->e_level = LVL_KERNEL;
    for (int t = 0; t < k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, k->targets[t]);
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_PROCESS) continue;
            int bad = nx->kind == NEXT_DET ? e->has_enext[nx->node] : 0;
            for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j) bad |= e->has_enext[nx->probs[j]];
            if (bad)
                return lcm_fail(err, LCM_E_MODEL, "regime '%s': the next value of '%s' depends on E_next_V",
                                r->name, tr->states[s].name);
        }
        e->e_level = max_int(e->e_level, max_int(target_level(e, tg), e->lvl[r->rprob[tg->regime]]));
    }
    compute_levels(e, e->e_level);
    e->rp_level = LVL_KERNEL;
    for (int g = 0; g < e->m->nregimes; ++g)
        if (r->rprob[g] >= 0) e->rp_level = max_int(e->rp_level, e->lvl[r->rprob[g]]);
    mark_root(e, r->q);
    mark_root(e, r->utility);
    if (r->taste_scale >= 0) mark_root(e, r->taste_scale);
    for (int c = 0; c < r->nconstraints; ++c) mark_root(e, r->constraints[c].node);
    mark_continuation(e);
    for (int i = 0; i < k->ninactive; ++i) mark_root(e, r->rprob[k->inactive[i]]);
    if (egm(e)) mark_root(e, r->egm.resources), mark_root(e, r->egm.marginal);
    if (r->terminal_marginal) mark_root(e, r->marginal);
    ir_pre_plan(e->m, e->S, (int)(k - e->m->kernels), &e->pre);
    if (e->no_tables && !e->pre.egm) memset(&e->pre, 0, sizeof e->pre); /* LCM_NO_TABLES: no table but EGM's */
    plan_action_terms(e);
    plan_hoisted_terms(e);
    if (reads_table(e)) plan_next_only(e);
    return 0;
}

/* ---- continuation ------------------------------------------------------- */

/* The cell of a piecewise grid: which piece (comparisons with the pieces'
 * starts), then that piece's closed form. */
static void piece_cell(emitter *e, const ir_grid *gr, int node)
{
    lcm_sb *b = e->b;
    const char *x = emit_num(e, node);
    int offset = 0;
    for (int k = 0; k < gr->npieces; offset += gr->pieces[k++].n) {
        double start, stop, next_start, next_stop;
        ir_piece_bounds(&gr->pieces[k], &start, &stop);
        if (k + 1 < gr->npieces) {
            ir_piece_bounds(&gr->pieces[k + 1], &next_start, &next_stop);
            lcm_sb_printf(b, "(%s < %s ? ", x, emit_literal(next_start).s);
        }
        int np = gr->pieces[k].n;
        if (gr->kind == GRID_PWLIN)
            lcm_sb_printf(b, "lcm_cell_pwlin(%s, %s, %s", x, emit_literal(start).s, emit_literal((np - 1) / (stop - start)).s);
        else
            lcm_sb_printf(b, "lcm_cell_pwlog(%s, %s, %s, %s", x, emit_literal(start).s, emit_literal(log(start)).s,
                      emit_literal((np - 1) / (log(stop) - log(start))).s);
        lcm_sb_printf(b, ", %d, %d, %d)", offset, np, gr->n);
        if (k + 1 < gr->npieces) lcm_sb_puts(b, " : ");
    }
    for (int k = 0; k + 1 < gr->npieces; ++k) lcm_sb_putc(b, ')');
    lcm_sb_putc(b, ';');
}

/* Where the next-state weights of state s of a target are known: its
 * Markov probabilities' level, or the current state's (an AR(1) row). */
static int weights_level(const emitter *e, const ir_next *nx)
{
    if (e->flat) return -1;
    if (nx->kind == NEXT_PROCESS) return nx->src >= 0 ? LVL_STATE : LVL_KERNEL;
    int l = LVL_KERNEL;
    for (int j = 0; j < nx->nprobs; ++j) l = max_int(l, e->lvl[nx->probs[j]]);
    return l;
}

/* The weight of node k of process state s of target g at the current
 * value of its AR(1) source: the matrix's rows at the value's cell,
 * interpolated. */
typedef struct weight_text {
    char s[256];
} weight_text;

static weight_text process_weight(int g, int s, int n, const char *k)
{
    weight_text w;
    snprintf(w.s, sizeof w.s, "((1 - pt%d_%d) * pm%d_%d[pc%d_%d * %d + %s] + pt%d_%d * pm%d_%d[(pc%d_%d + 1) * %d + %s])", g, s,
             g, s, g, s, n, k, g, s, g, s, g, s, n, k);
    return w;
}

/* Whether the GPU also keeps an AR(1) row's n weights in pw (the CPU
 * always does): not where the body reads a table or the expected V, which
 * makes the inline continuation the rare path (the weights' registers,
 * live through the action loop for it, cost FVV 2018's kernel a third of
 * its speed on an H200), nor beyond the registers 16 of them take. */
static int gpu_keeps_weights(const emitter *e, int n) { return !reads_table(e) && !reads_ev(e) && n <= 16; }

/* A process's transition matrix and, for an AR(1) process, the cell of the
 * current value on its grid (its row of the matrix) and that row's
 * weights: once per state, not once per action (weight_loop). */
static void process_weights(emitter *e, int g, int s, const ir_next *nx)
{
    const ir_regime *tr = &e->m->regimes[g];
    emit_line(e, "const real *LCM_RESTRICT pm%d_%d = G + %zu; /* %s.%s: transitions */", g, s, e->L->matrix_off[g][s],
              tr->name, tr->states[s].name);
    if (nx->src < 0) return;
    size_t soff = e->L->state_off[e->r->id][nx->src];
    const char *from = e->r->states[nx->src].name;
    int n = tr->states[s].grid.n;
    emit_line(e, "const int pc%d_%d = lcm_cell_search(x[%d], G + %zu, %d); /* %s */", g, s, nx->src, soff, n, from);
    emit_line(e, "const real pt%d_%d = lcm_frac(x[%d], G + %zu, pc%d_%d); /* %s */", g, s, nx->src, soff, g, s, from);
    if (ev_target(e, g)) /* the solve's states are on the grid: a node, whose row of the expected V is read */
        emit_line(e, "const int pe%d_%d = pt%d_%d == 0 ? pc%d_%d : pt%d_%d == 1 ? pc%d_%d + 1 : -1; /* its node; -1: none */",
                  g, s, g, s, g, s, g, s, g, s);
    if (e->flat) return;
    int cpu_only = !gpu_keeps_weights(e, n);
    if (cpu_only) lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    emit_line(e, "real pw%d_%d[%d];", g, s, n);
    emit_line(e, "for (int k = 0; k < %d; ++k) pw%d_%d[k] = %s;", n, g, s, process_weight(g, s, n, "k").s);
    if (cpu_only) lcm_sb_puts(e->b, "#endif\n");
}

/* A Markov state's probabilities and their check. */
static void markov_weights(emitter *e, int g, int s, const ir_next *nx)
{
    emit_start(e);
    lcm_sb_printf(e->b, "const real pm%d_%d[%d] = {", g, s, nx->nprobs);
    for (int j = 0; j < nx->nprobs; ++j) lcm_sb_printf(e->b, "%s%s", j ? ", " : "", emit_num(e, nx->probs[j]));
    lcm_sb_printf(e->b, "}; /* next %s */\n", e->m->regimes[g].states[s].name);
    if (!e->flat) /* the kernel checks them (checks()); the table's entry does not */
        emit_line(e, "const int pmok%d_%d = !checks || lcm_probs_ok(pm%d_%d, %d);", g, s, g, s, nx->nprobs);
}

/* The weights of the kernel's targets' stochastic next states known at this
 * level (and their check), declared here once rather than in every
 * continuation block below: a Markov state's probabilities, a process's
 * transition matrix and, for an AR(1) process, the row of the current value. */
void emit_stochastic_weights(emitter *e, int level)
{
    for (int t = 0; t < e->k->ntargets && !e->k->last; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        if (e->egm_table && !ir_egm_target(e->r, (int)(tg - e->r->targets))) continue; /* not in its sum */
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_DET || weights_level(e, nx) != level) continue;
            if (nx->kind == NEXT_PROCESS) process_weights(e, tg->regime, s, nx);
            else markov_weights(e, tg->regime, s, nx);
        }
    }
}

/* The deterministic next value of state s of target regime g: a discrete
 * one moves the base of V; a continuous one gives its cell, fraction and
 * stride (number kc of the interpolated axes), on next period's grid (a
 * grid by age: its row a->period + 1). */
static void next_cell(emitter *e, int g, int s, int node, int kc, long long stride)
{
    const ir_regime *tr = &e->m->regimes[g];
    const ir_grid *gr = &tr->states[s].grid;
    const char *x = emit_num(e, node);
    lcm_sb *b = e->b;
    if (grid_is_discrete(gr)) {
        if (e->staged > 0) /* the same base and verdict, by selects (the staged loop has no branch) */
            emit_line(e, "{ const int c = lcm_code(%s, %d); code_ok%d &= c >= 0; base += (lcm_index)(c < 0 ? 0 : c) * %lld; } "
                         "/* %s.%s */", x, gr->n, g, stride, tr->name, tr->states[s].name);
        else
            emit_line(e, "{ const int c = lcm_code(%s, %d); if (c < 0) code_ok%d = 0; else base += (lcm_index)c * %lld; } "
                         "/* %s.%s */", x, gr->n, g, stride, tr->name, tr->states[s].name);
        return;
    }
    size_t off = e->L->state_off[g][s];
    char pts[96]; /* the points, as C */
    if (gr->kind == GRID_AGE)
        snprintf(pts, sizeof pts, "G + %zu + (lcm_index)(a->period + 1) * %d", off, gr->n);
    else snprintf(pts, sizeof pts, "G + %zu", off);
    emit_start(e);
    lcm_sb_printf(b, "cell[%d] = ", kc);
    switch (gr->kind) {
    case GRID_LIN:
        lcm_sb_printf(b, "lcm_cell_lin(%s, %s, %s, %d);", x, emit_literal(gr->start).s,
                  emit_literal((gr->n - 1) / (gr->stop - gr->start)).s, gr->n);
        break;
    case GRID_LOG:
        lcm_sb_printf(b, "lcm_cell_log(%s, %s, %s, %s, %d);", x, emit_literal(gr->start).s, emit_literal(log(gr->start)).s,
                  emit_literal((gr->n - 1) / (log(gr->stop) - log(gr->start))).s, gr->n);
        break;
    case GRID_PWLIN:
    case GRID_PWLOG: piece_cell(e, gr, node); break;
    default: lcm_sb_printf(b, "lcm_cell_search(%s, %s, %d);", x, pts, gr->n); break; /* irregular, by age */
    }
    lcm_sb_printf(b, " t[%d] = lcm_frac(%s, %s, cell[%d]); st[%d] = %lld; /* %s.%s */\n", kc, x, pts, kc, kc, stride,
              tr->name, tr->states[s].name);
}

/* The loop over the points of stochastic next state s (a Markov state's
 * categories or a process's nodes), its weight the product with the weight
 * of the enclosing loop (state `outer`, -1 for none); zero weights skipped:
 * by `continue`, or in the staged loop (one such loop) by on<s>, which
 * selects the sum target_block adds. */
static void weight_loop(emitter *e, int g, int s, const ir_next *nx, int outer)
{
    int n = nx->kind == NEXT_MARKOV ? nx->nprobs : e->m->regimes[g].states[s].grid.n;
    char w[64] = "";
    if (outer >= 0) snprintf(w, sizeof w, "w%d * ", outer);
    emit_open(e, "for (int k%d = 0; k%d < %d; ++k%d) {", s, s, n, s);
    if (nx->kind == NEXT_MARKOV || nx->src < 0) {
        emit_line(e, "const real w%d = %spm%d_%d[k%d];", s, w, g, s, s);
    } else { /* an AR(1) row: read from pw (process_weights) or, in the table's entry (one action), computed */
        char k[16];
        snprintf(k, sizeof k, "k%d", s);
        int read = !e->flat, computed = e->flat || !gpu_keeps_weights(e, n);
        if (read && computed) lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        if (read) emit_line(e, "const real w%d = %spw%d_%d[k%d];", s, w, g, s, s);
        if (read && computed) lcm_sb_puts(e->b, "#else\n");
        if (computed) emit_line(e, "const real w%d = %s%s;", s, w, process_weight(g, s, n, k).s);
        if (read && computed) lcm_sb_puts(e->b, "#endif\n");
    }
    lcm_assert(e->staged <= 0 || outer < 0); /* stages_inline: one loop */
    if (e->staged <= 0) emit_line(e, "if (w%d == 0) continue;", s);
    else emit_line(e, "const int on%d = w%d != 0;", s, s);
}

/* The sum of target g's continuation over its stochastic next states,
 * after the deterministic ones' cells (ncont of them interpolated): loops
 * over the Markov categories and process nodes, V_{t+1} interpolated at
 * each (ev_axis NULL); or, from the expected V (ir/precompute.h, "ev", at
 * offset ev_off of the table), loops over the states the table does not
 * sum only (ev_axis[s] IR_EV_NONE), at the others their current row: an
 * AR(1) process's node, a Markov state's source's category, row 0 for an
 * IID process or fixed probabilities. */
static void target_sum(emitter *e, const ir_target *tg, const long long *stride, int ncont, const int *ev_axis,
                       long long ev_off)
{
    int g = tg->regime;
    const ir_regime *tr = &e->m->regimes[g];
    if (ev_axis) emit_line(e, "const real *LCM_RESTRICT Vn = pre + %lld; /* its expected V */", ev_off);
    else emit_line(e, "const real *LCM_RESTRICT Vn = (const real *)a->%s[%d];", e->egm_table ? "m_next" : "v_next", g);
    int loops = 0, outer = -1;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET || (ev_axis && ev_axis[s] != IR_EV_NONE)) continue;
        weight_loop(e, g, s, nx, outer);
        outer = s;
        ++loops;
    }
    const char *interp = e->egm_table ? "lcm_interp_marginal" : "lcm_interp";
    char w[32] = "1";
    if (loops) snprintf(w, sizeof w, "w%d", outer);
    emit_start(e);
    if (ez(e)) lcm_sb_printf(e->b, "lcm_ce_add(&C%d, %s, %s, lcm_interp(Vn, base", g, emit_num(e, e->r->risk_aversion), w);
    else if (loops && e->staged > 0) lcm_sb_printf(e->b, "const real sum = E%d + w%d * %s(Vn, base", g, outer, interp);
    else if (loops) lcm_sb_printf(e->b, "E%d += w%d * %s(Vn, base", g, outer, interp);
    else lcm_sb_printf(e->b, "E%d = %s(Vn, base", g, interp);
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        int axis = ev_axis ? ev_axis[s] : IR_EV_NONE;
        if (axis == IR_EV_PROCESS && nx->src >= 0) /* the current node's row */
            lcm_sb_printf(e->b, " + (lcm_index)pe%d_%d * %lld", g, s, stride[s]);
        else if (axis >= 0) /* the source's current category (a code) */
            lcm_sb_printf(e->b, " + (lcm_index)x[%d] * %lld", axis, stride[s]);
        else if (axis == IR_EV_NONE && nx->kind != NEXT_DET) /* its loop's point */
            lcm_sb_printf(e->b, " + (lcm_index)k%d * %lld", s, stride[s]);
    }
    lcm_sb_printf(e->b, ", %d, st, cell, t)%s;\n", ncont, ez(e) ? ")" : "");
    if (loops && e->staged > 0) emit_line(e, "E%d = on%d ? sum : E%d;", g, outer, g);
    for (; loops > 0; --loops) emit_close(e);
}

int *emit_ev_axes(const emitter *e, const ir_target *tg)
{
    if (!ev_target(e, tg->regime)) return NULL;
    int *axis = lcm_xcalloc((size_t)e->m->regimes[tg->regime].nstates + 1, sizeof *axis);
    long long nodes;
    ir_pre_ev_axes(e->m, e->r, tg, axis, &nodes);
    return axis;
}

/* The continuation in target regime tg: its V_{t+1} interpolated at the
 * deterministic next states, summed over the stochastic ones; for a target
 * of the expected-V table, read from it where the launch gives it (the
 * solve) and summed where not (e->ev_path chooses or leaves it to run
 * time). */
void emit_target_block(emitter *e, const ir_target *tg, int level)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    int g = tg->regime, P = e->r->rprob[g];
    emit_line(e, "/* continuation in regime '%s' */", tr->name);
    if (e->staged > 0 && reads_table(e)) { /* the table's byte flags a code: the inline block is the other loop's */
        emit_line(e, "const int code_ok%d = 1;", g);
        return;
    }
    if (ez(e)) emit_line(e, "lcm_ce C%d = LCM_CE_EMPTY; /* its lottery (Epstein-Zin) */", g);
    else emit_line(e, "real E%d = 0;", g);
    emit_line(e, "%sint code_ok%d = 1;", e->egm_table ? "LCM_UNUSED " : "", g); /* EGM's table flags nothing */
    /* skipped where the target is not reached; the staged loop computes it
     * anyway (a branch would keep it scalar): a target's V_{t+1} is always
     * there, and E adds the block only where the target is reached */
    int guarded = e->lvl[P] <= level && e->staged <= 0;
    /* with a table (or the entry in the state's row), the block is skipped */
    const char *inline_only = lazy_row(e) && level == e->e_level ? "!pre && !lcm_known" : reads_table(e) ? "!pre" : "";
    if (guarded) emit_open(e, "if (%s%s%s != 0) {", inline_only, *inline_only ? " && " : "", emit_name(e, P));
    else if (*inline_only) emit_open(e, "if (%s) {", inline_only);
    else emit_open(e, "{");

    long long *stride = lcm_xcalloc((size_t)tr->nstates + 1, sizeof *stride); /* of the target's V */
    ir_strides(tr, stride);
    int ncont = 0; /* interpolated axes: continuous, not processes (read at their nodes) */
    for (int s = 0; s < tr->nstates; ++s) ncont += tg->next[s].kind == NEXT_DET && !grid_is_discrete(&tr->states[s].grid);
    int m1 = ncont ? ncont : 1;
    emit_line(e, "lcm_index base = 0;");
    emit_line(e, "int cell[%d]; real t[%d]; lcm_index st[%d];", m1, m1, m1);
    for (int s = 0, kc = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind != NEXT_DET) continue;
        /* the EGM table reads next period's marginal values, at the next
         * liquid state as a function of savings (gen/emit_egm.c) */
        int liquid = e->egm_table && s == ir_marginal_state(tr);
        next_cell(e, g, s, liquid ? e->r->egm.next[tg - e->r->targets] : nx->node, kc, stride[s]);
        kc += !grid_is_discrete(&tr->states[s].grid);
    }
    int *axis = emit_ev_axes(e, tg); /* NULL: the target's V is summed inline, always */
    long long ev_off = axis ? ir_pre_ev_offset(e->m, e->k, &e->pre, kernel_target(e, g)) : 0;
    if (axis && e->ev_path == 0) {
        lcm_sb cond;
        lcm_sb_init(&cond);
        ev_condition(e, g, &cond);
        emit_open(e, "if (%s) {", cond.s);
        lcm_sb_free(&cond);
        target_sum(e, tg, stride, ncont, axis, ev_off);
        emit_else(e);
        target_sum(e, tg, stride, ncont, NULL, 0);
        emit_close(e);
    } else {
        target_sum(e, tg, stride, ncont, e->ev_path > 0 ? axis : NULL, ev_off);
    }
    emit_close(e);
    free(stride), free(axis);
}

/* at, the pair's entry of the table: the state's row, then the read
 * actions' combination (ir/precompute.h). */
static void table_at(emitter *e)
{
    emit_start(e);
    lcm_sb_puts(e->b, "const lcm_index at = ");
    for (int j = 0; j < e->r->nactions; ++j)
        if (e->pre.actions >> j & 1) lcm_sb_putc(e->b, '(');
    lcm_sb_puts(e->b, "pre_row");
    for (int j = 0; j < e->r->nactions; ++j)
        if (e->pre.actions >> j & 1) lcm_sb_printf(e->b, " * %d + i%d)", e->r->actions[j].grid.n, j);
    lcm_sb_puts(e->b, ";\n");
}

/* E and its table's checks from entry `at` of a table (reals T, off-grid
 * bytes C). */
static void table_entry_read(emitter *e, const char *T, const char *C)
{
    emit_line(e, "E = %s[at];", T);
    emit_line(e, "pre_bad = %s[at] & 1;", C);
    if (ez(e)) emit_line(e, "ce_bad = %s[at] >> 1 & 1;", C);
}

/* A table entry's off-grid byte (ir/precompute.h) from the inline code's
 * checks: bit 0 a next discrete state off its grid in a target reached,
 * bit 1 an Epstein-Zin certainty equivalent without a value. */
static void off_grid_byte(const emitter *e, lcm_sb *out)
{
    lcm_sb_puts(out, "0");
    for (int t = 0; t < e->k->ntargets; ++t)
        lcm_sb_printf(out, " | (%s != 0 && !code_ok%d)", emit_name(e, e->r->rprob[e->k->targets[t]]), e->k->targets[t]);
    if (ez(e)) lcm_sb_puts(out, " | ce_bad << 1");
}

/* The state's row (lazy_row): its entries, their off-grid bytes and which
 * are filled, none yet; lcm_lazy when the launch asks for it. */
static void lazy_row_decl(emitter *e)
{
    long long n = e->pre.acts;
    lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    emit_line(e, "real lcm_row[%lld]; /* the state's row of the table (emit.c, \"the state's row\") */", n);
    emit_line(e, "unsigned char lcm_row_code[%lld], lcm_row_have[%lld];", n, n);
    emit_line(e, "const int lcm_lazy = !pre && a->cont_lazy;");
    emit_line(e, "if (lcm_lazy) for (int j = 0; j < %lld; ++j) lcm_row_have[j] = 0;", n);
    lcm_sb_puts(e->b, "#endif\n");
}

/* At the level of E, before the target blocks there: the pair's entry and
 * whether the state's row holds it already (lcm_known: the blocks and the
 * sum are skipped). */
static void lazy_row_entry(emitter *e)
{
    table_at(e);
    lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    emit_line(e, "const int lcm_known = lcm_lazy && lcm_row_have[at];");
    lcm_sb_puts(e->b, "#else\n");
    emit_line(e, "const int lcm_known = 0;");
    lcm_sb_puts(e->b, "#endif\n");
}

/* E: the targets' continuations weighted by their probabilities, or the
 * table's entry (and its off-grid byte) when the solve gives a table. */
static void e_accumulate(emitter *e)
{
    int table = reads_table(e);
    emit_line(e, "real E = 0;");
    if (ez(e)) emit_line(e, "int ce_bad = 0;");
    int lazy = lazy_row(e);
    if (table) {
        emit_line(e, "int pre_bad = 0;");
        emit_open(e, e->staged > 0 ? "{" : "if (pre) {");
        if (!lazy) table_at(e); /* else before the target blocks */
        table_entry_read(e, "pre", "pre_code");
        if (e->staged > 0) {
            emit_close(e);
            return;
        }
        if (lazy) {
            emit_close(e);
            lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
            emit_open(e, "else if (lcm_known) {");
            table_entry_read(e, "lcm_row", "lcm_row_code");
            emit_close(e);
            lcm_sb_puts(e->b, "#endif\n");
            emit_open(e, "else {");
        } else {
            emit_else(e);
        }
    }
    if (ez(e)) {
        const char *alpha = emit_num(e, e->r->risk_aversion);
        emit_line(e, "lcm_ce C = LCM_CE_EMPTY; /* the whole lottery: CE = E_next_V */");
        for (int t = 0; t < e->k->ntargets; ++t) {
            int g = e->k->targets[t], P = e->r->rprob[g];
            emit_line(e, "if (%s != 0) lcm_ce_merge(&C, %s, %s, &C%d);", emit_name(e, P), alpha, emit_num(e, P), g);
        }
        emit_line(e, "E = lcm_ce_value(&C, %s);", alpha);
        emit_line(e, "ce_bad = C.bad;");
    } else {
        for (int t = 0; t < e->k->ntargets; ++t) {
            int g = e->k->targets[t], P = e->r->rprob[g];
            emit_line(e, "if (%s != 0) E += %s * E%d;", emit_name(e, P), emit_num(e, P), g);
        }
    }
    if (lazy) {
        lcm_sb code;
        lcm_sb_init(&code);
        off_grid_byte(e, &code);
        lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        emit_open(e, "if (lcm_lazy) { /* the state's row keeps it */");
        emit_line(e, "lcm_row[at] = E;");
        emit_line(e, "lcm_row_code[at] = (unsigned char)(%s);", code.s);
        emit_line(e, "lcm_row_have[at] = 1;");
        emit_close(e);
        lcm_sb_puts(e->b, "#endif\n");
        lcm_sb_free(&code);
    }
    if (table) emit_close(e);
}

/* The table's row of the state with flat index `point` (ir/precompute.h):
 * the combined index of its sharded states within the launch's block, then
 * its read non-sharded states, a splayed one within its chunk. */
static void table_row(emitter *e)
{
    const ir_state_layout *lay = e->lay;
    lcm_sb *b = e->b;
    int nstates = e->r->nstates;
    /* a left-nested ((0 * n + code) * n + code)...: the parentheses first;
     * the sharded states slowest first, then the others slowest first */
    int open = e->pre.sharded ? nstates - lay->nfree + 1 : 0;
    for (int d = 0; d < lay->nfree; ++d) open += (int)(e->pre.states >> lay->order[d] & 1);
    emit_start(e);
    lcm_sb_puts(b, "const lcm_index pre_row = pre ? ");
    for (int j = 0; j < open; ++j) lcm_sb_putc(b, '(');
    lcm_sb_puts(b, "0");
    for (int d = nstates - 1; e->pre.sharded && d >= lay->nfree; --d) {
        lcm_sb_printf(b, " * %d + ", lay->axis[lay->order[d]].n);
        ir_layout_print_code(lay, lay->order[d], "point", b);
        lcm_sb_putc(b, ')');
    }
    if (e->pre.sharded) lcm_sb_puts(b, " - a->shard_lo)");
    for (int d = lay->nfree - 1; d >= 0; --d) {
        int i = lay->order[d];
        if (!(e->pre.states >> i & 1)) continue;
        lcm_sb_printf(b, " * %d + ", lay->axis[i].width);
        ir_layout_print_code(lay, i, "point", b);
        lcm_sb_putc(b, ')');
    }
    lcm_sb_puts(b, " : 0; /* the state's row of the table */\n");
}

/* The number of regimes the regime may move to. */
static int nreachable(const emitter *e)
{
    int n = 0;
    for (int g = 0; g < e->m->nregimes; ++g) n += e->r->rprob[g] >= 0;
    return n;
}

/* The regime probabilities' check, hoisted to where they are all known. */
static void regime_prob_check(emitter *e, int level)
{
    const ir_regime *r = e->r;
    int nprob = nreachable(e);
    if (nprob == 0 || e->k->last || level != e->rp_level) return;
    emit_start(e);
    lcm_sb_printf(e->b, "const real rp[%d] = {", nprob);
    for (int g = 0, first = 1; g < e->m->nregimes; ++g) {
        if (r->rprob[g] < 0) continue;
        lcm_sb_printf(e->b, "%s%s", first ? "" : ", ", emit_num(e, r->rprob[g]));
        first = 0;
    }
    lcm_sb_puts(e->b, "};\n");
    emit_line(e, "const int rp_ok = !checks || lcm_probs_ok(rp, %d);", nprob);
}

/* One more term of a check statement: a continuation line `| term`. */
static void check_term(emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check_term(emitter *e, const char *fmt, ...)
{
    va_list ap;
    lcm_sb_putc(e->b, '\n');
    e->depth++;
    emit_start(e);
    e->depth--;
    lcm_sb_puts(e->b, "| ");
    va_start(ap, fmt);
    lcm_sb_vprintf(e->b, fmt, ap);
    va_end(ap);
}

/* Probability and code checks, for feasible state-action pairs only: the
 * verdicts are computed at their own levels; here, without a branch, the
 * failed ones join `bad`, which the body flags once when it ends. */
static void checks(emitter *e)
{
    const ir_regime *r = e->r;
    const ir_kernel *k = e->k;
    if (nreachable(e) == 0) return;
    emit_start(e);
    lcm_sb_puts(e->b, "if (checks) bad |= ");
    if (e->staged > 0) lcm_sb_puts(e->b, "(0u - (unsigned)feas) & ((unsigned)!rp_ok << LCM_FLAG_REGIME_PROB");
    else lcm_sb_puts(e->b, "(unsigned)!rp_ok << LCM_FLAG_REGIME_PROB");
    for (int i = 0; i < k->ninactive; ++i)
        check_term(e, "(unsigned)(%s != 0) << LCM_FLAG_INACTIVE", emit_name(e, r->rprob[k->inactive[i]]));
    for (int t = 0; t < k->ntargets; ++t) {
        int g = k->targets[t];
        const ir_target *tg = ir_target_of(r, g);
        const char *P = emit_name(e, r->rprob[g]);
        check_term(e, "(unsigned)(%s != 0 && !code_ok%d) << LCM_FLAG_CODE", P, g);
        for (int s = 0; s < e->m->regimes[g].nstates; ++s)
            if (tg->next[s].kind == NEXT_MARKOV)
                check_term(e, "(unsigned)(%s != 0 && !pmok%d_%d) << LCM_FLAG_STATE_PROB", P, g, s);
    }
    if (reads_table(e)) check_term(e, "(unsigned)pre_bad << LCM_FLAG_CODE");
    if (ez(e)) check_term(e, "(unsigned)ce_bad << LCM_FLAG_CE");
    lcm_sb_puts(e->b, e->staged > 0 ? ");\n" : ";\n");
}

/* ---- the loop nest -------------------------------------------------------- */

/* The loop of action j and its value act<j>; ai<j> counts the actions so far. */
static void action_loop(emitter *e, int j)
{
    const ir_var *v = &e->r->actions[j];
    int n = v->grid.n;
    if (e->staged > 0) { /* the chunk's actions: every one computed, feasible or not */
        emit_open(e, "for (int i%d = c%d; i%d < c%d + n%d; ++i%d) { /* action %s */", j, j, j, j, j, j, v->name);
        emit_action_value(e, j, 'i'); /* the last action: no ai<j> (lcm_best_of counts) */
        emit_line(e, "lcm_feas feas = 1; /* the constraints of this level, all of them */");
        return;
    }
    if (egm_level(e, LVL_ACTION0 + j)) { /* the candidates of the endogenous grid (gen/emit_egm.c) */
        emit_egm_candidates(e, j);
    } else if (j == e->k->par) /* split across the lanes of a GPU state; one lane on the CPU */
        emit_open(e, "for (int i%d = LCM_LANE; i%d < %d; i%d += LCM_LANES) { /* action %s */", j, j, n, j, v->name);
    else
        emit_open(e, "for (int i%d = 0; i%d < %d; ++i%d) { /* action %s */", j, j, n, j, v->name);
    int on_grid = !egm_level(e, LVL_ACTION0 + j);
    if (on_grid) emit_action_value(e, j, 'i');
    /* EGM's action is off its grid: it counts as code 0 in the flat index */
    if (j == 0) emit_line(e, on_grid ? "const lcm_index ai0 = i0;" : "const lcm_index ai0 = 0;");
    else if (on_grid) emit_line(e, "const lcm_index ai%d = ai%d * %d + i%d;", j, j - 1, n, j);
    else emit_line(e, "const lcm_index ai%d = ai%d * %d;", j, j - 1, n);
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
        if (e->lvl[r->constraints[c].node] == level) into[r->constraints[c].node] = 1;
    if (r->taste_scale >= 0 && e->lvl[r->taste_scale] == level) into[r->taste_scale] = 1;
    for (size_t i = r->nnodes; i-- > 0;) /* arguments have lower ids than their nodes */
        if (into[i])
            for (int a = 0; a < r->nodes[i].nargs; ++a)
                if (e->lvl[r->nodes[i].args[a]] == level) into[r->nodes[i].args[a]] = 1;
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
    return an->op == OP_ACTION && an->ref == level - LVL_ACTION0 && e->lvl[x] < level ? x : -1;
}

static int caps_loop_action(const emitter *e, int node, int level) { return cap_bound(e, node, level) >= 0; }

/* Whether constraint c caps the action of loop `level` by a bound known at
 * level `known` (below `level`). */
static int cap_known_at(const emitter *e, int c, int level, int known)
{
    int node = e->r->constraints[c].node, x = e->lvl[node] == level ? cap_bound(e, node, level) : -1;
    return x >= 0 && e->lvl[x] <= known;
}

/* Such a cap's test of action j's value act<j>, as C ("act2 <= v110"). */
static void cap_test(const emitter *e, int node, int j, lcm_sb *out)
{
    static const char *cmp[OP_COUNT] = {[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">="};
    const ir_node *n = &e->r->nodes[node];
    char act[32];
    snprintf(act, sizeof act, "act%d", j);
    int action_first = n->op == OP_LE || n->op == OP_LT;
    lcm_sb_printf(out, "%s %s %s", action_first ? act : emit_num(e, n->args[0]), cmp[n->op],
                  action_first ? emit_num(e, n->args[1]) : act);
}

/* A node's declaration where it is computed (the GPU's loops, and the CPU's
 * but for hoisted terms); a tabled action term is read from the launch's
 * lcm_at. */
static void declare_computed(emitter *e, int id)
{
    if (!(e->tabled && e->tabled[id])) {
        emit_node_decl(e, id);
        return;
    }
    int j = e->lvl[id] - LVL_ACTION0;
    emit_line(e, "const real %s = lcm_at[%d + i%d]; /* the launch's action term */", emit_name(e, id), e->at_off[id], j);
}

/* A hoisted term read from its lcm_h (emit.c, "hoisted terms"), at the
 * point of its home's action. */
static void hoisted_read(emitter *e, int id)
{
    emit_line(e, "const real %s = lcm_h%d[i%d]; /* hoisted (emit.c, \"hoisted terms\") */", emit_name(e, id), id,
              e->lvl[id] - LVL_ACTION0);
}

/* A node's declaration in the loops: on the CPU a hoisted term is read from
 * its lcm_h (the staged loop is the CPU's alone); what only hoisted terms
 * read, the GPU's alone, is for declare_level to fence. */
static void declare_node(emitter *e, int id)
{
    if (!(e->hoisted && e->hoisted[id])) {
        declare_computed(e, id);
    } else if (e->staged > 0) {
        hoisted_read(e, id);
    } else {
        lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        hoisted_read(e, id);
        lcm_sb_puts(e->b, "#else\n");
        declare_computed(e, id);
        lcm_sb_puts(e->b, "#endif\n");
    }
}

/* See emit_internal.h: the building loop's nodes, by the readers first. */
int emit_hoist_chain(const emitter *e, int level, int home, char *chain)
{
    const ir_regime *r = e->r;
    int any = 0;
    memset(chain, 0, r->nnodes + 1);
    for (size_t i = r->nnodes; e->hoisted && i-- > 0;) {
        if (e->lvl[i] == home && emit_hoisted_to(e, (int)i, level)) chain[i] = 1, any = 1;
        if (!chain[i] || emit_hoist_reads(e, (int)i, level)) continue;
        for (int a = 0; a < r->nodes[i].nargs; ++a)
            if (e->lvl[r->nodes[i].args[a]] == home) chain[r->nodes[i].args[a]] = 1;
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
    char *first = lcm_xmalloc(r->nnodes + 1);
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
    char *chain = lcm_xmalloc(n + 1); /* what the loop computes, or reads */
    int *caps = lcm_xmalloc(((size_t)r->nconstraints + 1) * sizeof *caps);
    for (int home = max_int(level + 1, LVL_ACTION0); home <= e->innermost; ++home) {
        if (!emit_hoist_chain(e, level, home, chain)) continue;
        int j = home - LVL_ACTION0, points = r->actions[j].grid.n;
        lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        for (size_t i = 0; i < n; ++i)
            if (chain[i] && emit_hoisted_to(e, (int)i, level))
                emit_line(e, "real lcm_h%zu[%d]; /* %s at each %s (emit.c, \"hoisted terms\") */", i, points,
                          emit_name(e, (int)i), r->actions[j].name);
        emit_open(e, "for (int i%d = 0; i%d < %d; ++i%d) { /* action %s */", j, j, points, j, r->actions[j].name);
        emit_action_value(e, j, 'i');
        int ncaps = emit_hoist_caps(e, level, home, caps);
        for (int c = 0; c < ncaps; ++c) {
            lcm_sb test;
            lcm_sb_init(&test);
            cap_test(e, r->constraints[caps[c]].node, j, &test);
            emit_line(e, "if (!(%s)) break; /* constraint %s */", test.s, r->constraints[caps[c]].name);
            lcm_sb_free(&test);
        }
        for (size_t i = 0; i < n; ++i) {
            if (!chain[i]) continue;
            if (emit_hoist_reads(e, (int)i, level) && !e->tabled[i]) hoisted_read(e, (int)i);
            else declare_computed(e, (int)i);
        }
        for (size_t i = 0; i < n; ++i)
            if (chain[i] && emit_hoisted_to(e, (int)i, level)) emit_line(e, "lcm_h%zu[i%d] = %s;", i, j, emit_name(e, (int)i));
        emit_close(e);
        lcm_sb_puts(e->b, "#endif\n");
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
        if (!e->needed[i] || e->lvl[i] != level || e->has_enext[i] != enext || (part && part[i] != in_part)) continue;
        if ((e->terms_only && e->terms_only[i]) || (e->next_only && e->next_only[i] && e->staged > 0)) continue;
        int only = e->hoist_only && e->hoist_only[i];
        if (only && e->staged > 0) continue;
        if (only != gpu_only) lcm_sb_puts(e->b, only ? "#if defined(__CUDACC__)\n" : "#endif\n");
        gpu_only = only;
        declare_node(e, (int)i);
    }
    if (gpu_only) lcm_sb_puts(e->b, "#endif\n");
}

/* The constraints known at this level: a failing one skips the rest of the
 * state (the action nest), the rest of this action's loop when it caps the
 * action from above, or else this action. */
static void constraints(emitter *e, int level)
{
    for (int c = 0; c < e->r->nconstraints; ++c) {
        const ir_named *cn = &e->r->constraints[c];
        if (e->lvl[cn->node] != level) continue;
        int src = e->r->nodes[cn->node].src;
        char *what = lcm_xasprintf("constraint %s", cn->name);
        emit_line_directive(e, src);
        emit_start(e);
        /* the EGM candidates come in no order: a cap skips one, never the rest */
        int leave = level < LVL_ACTION0 || (caps_loop_action(e, cn->node, level) && !egm_level(e, level));
        if (e->staged > 0 && level == e->innermost) lcm_sb_printf(e->b, "feas &= %s;", emit_cond(e, cn->node));
        else lcm_sb_printf(e->b, "if (!%s) %s;", emit_cond(e, cn->node), leave ? "break" : "continue");
        emit_comment(e, what, src);
        lcm_sb_putc(e->b, '\n');
        free(what);
    }
}

/* Q of a feasible pair: the running max and its first argmax; with taste
 * shocks also those of its discrete choice d = ai<nd-1> (the discrete
 * actions come first: their flat index is the choice). */
static void best_update(emitter *e)
{
    const ir_regime *r = e->r;
    if (!e->k->last) checks(e);
    if (e->staged > 0) {
        int j = r->nactions - 1;
        emit_line(e, "lcm_q[i%d - c%d] = %s;", j, j, emit_num(e, r->q));
        emit_line(e, "lcm_ok[i%d - c%d] = feas;", j, j);
        return;
    }
    emit_open(e, "{");
    emit_line(e, "const real q = %s;", emit_num(e, r->q));
    emit_line(e, "if (q != q) nan_q = 1;");
    /* what the best keeps besides q and its index: an EGM regime's action
     * and its marginal utility (the marginal value of the liquid state), a
     * terminal regime's marginal value (emit_egm.c); with taste shocks the
     * same for the best of each discrete choice */
    char best[160] = "", choice[160] = "";
    if (egm(e)) {
        int c = r->egm.action, d = ir_discrete_actions(r) - 1;
        const char *mu = emit_num(e, r->egm.marginal);
        snprintf(best, sizeof best, " egm_best[0] = act%d; egm_best[1] = %s;", c, mu);
        if (r->taste_scale >= 0)
            snprintf(choice, sizeof choice, " egm_best[2 + ai%d] = act%d; egm_best[%d + ai%d] = %s;", d, c,
                     2 + ir_taste_choices(r), d, mu);
    } else if (r->terminal_marginal) {
        snprintf(best, sizeof best, " egm_best[1] = %s;", emit_num(e, r->marginal));
    }
    char index[32] = "0";
    if (r->nactions) snprintf(index, sizeof index, "ai%d", r->nactions - 1);
    if (r->taste_scale >= 0) {
        int d = ir_discrete_actions(r) - 1;
        emit_open(e, "else {");
        emit_line(e, "if (q > best || best_a < 0) { best = q; best_a = %s;%s }", index, best);
        emit_line(e, "if (q > vd[ai%d] || ad[ai%d] < 0) { vd[ai%d] = q; ad[ai%d] = %s;%s }", d, d, d, d, index, choice);
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
    if (node < 0 || e->lvl[node] != level) return;
    emit_line(e, "*scale = %s; /* taste shocks */", emit_num(e, node));
    emit_line(e, "if (!(*scale >= 0 && *scale < LCM_INF)) bad |= 1u << LCM_FLAG_TASTE_SCALE;");
}

static void emit_level(emitter *e, int level);

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
    return body_computes(e, id) && !(e->hoisted && (e->hoisted[id] || e->hoist_only[id]));
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
        if (target_level(e, tg) != e->innermost) continue;
        if (e->lvl[e->r->rprob[tg->regime]] >= e->innermost) return 0;
        const ir_regime *tr = &e->m->regimes[tg->regime];
        int loops = 0, ok = 1;
        int *axis = e->ev_path > 0 ? emit_ev_axes(e, tg) : NULL; /* the states read from the expected V: no loop */
        for (int s = 0; s < tr->nstates && ok; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind != NEXT_DET) {
                int looped = !axis || axis[s] == IR_EV_NONE;
                ok = weights_level(e, nx) < e->innermost && !(looped && ++loops > 1);
                continue;
            }
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
 * that computes a division, root, power or modulo (costly_op) is staged
 * from STAGE_MIN actions: in shorter ones the chunk's two passes and the
 * arrays cost about what the vector loop saves (FVV at 64 next-asset
 * points: 1.3 ms staged, 1.0 ms plain; at 128: 3.1 and 4.1 ms; Mahler &
 * Yum's 50 saving points, its utility's division in the loop, about 10%
 * slower staged).  A loop of additions, products, comparisons and loads
 * alone is staged from STAGE_MIN_CHEAP (Mahler & Yum with its utility
 * hoisted: 20 saving points about 2% slower staged, 50 faster,
 * docs/internals.md). */
static int stages(const emitter *e)
{
    const ir_regime *r = e->r;
    if (e->flat || !r->nactions || r->taste_scale >= 0 || ez(e) || egm(e)) return 0;
    int n = r->actions[r->nactions - 1].grid.n, cheap = 1; /* what the staged loop computes: no costly op */
    for (size_t i = 0; i < r->nnodes; ++i)
        cheap &= !(loop_computes(e, (int)i) && !e->next_only[i] && e->lvl[i] == e->innermost &&
                   costly_op(r->nodes[i].op));
    int least = e->k->last || reads_table(e) ? (cheap ? STAGE_MIN_CHEAP : STAGE_MIN) : STAGE_MIN_INLINE;
    if (n < least || (!e->k->last && !reads_table(e) && !stages_inline(e))) return 0;
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        if (!loop_computes(e, (int)i) || e->lvl[i] != e->innermost) continue;
        if (call_op(n->op)) return 0;
        switch (n->op) {
        case OP_PIDX: /* no indexed parameter (above) */
            return 0;
        case OP_POW: { /* lcm_pow without its call: a reduced constant exponent, or one of the state */
            const ir_node *y = &r->nodes[n->args[1]];
            if (y->op == OP_CONST ? !lcm_pow_kind(y->k) : e->lvl[n->args[1]] == e->innermost)
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
            lcm_sb_printf(cond, " && pk%d", id);
        } else {
            emit_line(e, "const real df%d = lcm_div_by(%s);", id, y);
            lcm_sb_printf(cond, " && df%d != 0", id);
        }
    }
    e->staged = 0;
}

/* A cap's scan: lim<j> (or, for a scan hoisted out, lcm_cap<c>) lowered to
 * the first action of loop j, from 0 up to it, that constraint c rules out. */
static void cap_scan(emitter *e, int c, int j, const char *lim)
{
    lcm_sb test;
    lcm_sb_init(&test);
    cap_test(e, e->r->constraints[c].node, j, &test);
    emit_open(e, "for (int i%d = 0; i%d < %s; ++i%d) { /* constraint %s */", j, j, lim, j, e->r->constraints[c].name);
    emit_action_value(e, j, 'i');
    emit_open(e, "if (!(%s)) {", test.s);
    emit_line(e, "%s = i%d;", lim, j);
    emit_line(e, "break;");
    emit_close(e);
    emit_close(e);
    lcm_sb_free(&test);
}

/* Whether the scan of cap c of the staged loop at `level` runs further
 * out, where its bound is known: at the bound's level, when a loop lies
 * between that and the staged one (Mahler & Yum's saving <= cash on hand,
 * known per labor supply, scanned once there, not once per effort). */
static int cap_scanned_outside(const emitter *e, int c, int level)
{
    int x = cap_bound(e, e->r->constraints[c].node, level);
    return x >= 0 && e->lvl[x] < level - 1 && level - 1 >= LVL_ACTION0; /* the state's levels run once per state */
}

static int staged_variants(emitter *e, int *variants);

/* On the CPU, at `level`, the scans of the staged loop's caps whose bounds
 * are known here (cap_scanned_outside), each into its lcm_cap<c>. */
static void staged_caps_at(emitter *e, int level)
{
    const ir_regime *r = e->r;
    int variants[2], in = e->innermost, j = in - LVL_ACTION0, any = 0;
    if (level >= in - 1 || in < LVL_ACTION0 || !staged_variants(e, variants)) return;
    for (int c = 0; c < r->nconstraints; ++c) {
        /* a cap's bound has a level, and its scan runs there */
        if (!cap_scanned_outside(e, c, in) || e->lvl[cap_bound(e, r->constraints[c].node, in)] != level) continue;
        if (!any++) lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        char lim[32];
        snprintf(lim, sizeof lim, "lcm_cap%d", c);
        emit_line(e, "int %s = %d; /* the first %s constraint %s rules out (emit.c, \"staged\") */", lim,
                  r->actions[j].grid.n, r->actions[j].name, r->constraints[c].name);
        cap_scan(e, c, j, lim);
    }
    if (any) lcm_sb_puts(e->b, "#endif\n");
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
    int j = level - LVL_ACTION0;
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
 * into variants[] (at most 2), and how many: with an expected-V table, the
 * one that reads it and the one that sums the nodes, each where it stages;
 * else the one loop, where it stages. */
static int staged_variants(emitter *e, int *variants)
{
    int nv = 0;
    if (!reads_ev(e)) {
        if (stages(e)) variants[nv++] = 0;
        return nv;
    }
    for (int path = 1; path >= -1; path -= 2) {
        e->ev_path = path;
        if (stages(e)) variants[nv++] = path;
    }
    e->ev_path = 0;
    return nv;
}

/* The innermost action loop staged for the CPU, when the solve gives the
 * table (always in the last period), or else summing inline -- with an
 * expected-V table, one staged loop for each of its paths that stages --
 * and as on the GPU otherwise. */
static void staged_level(emitter *e, int level)
{
    int j = level - LVL_ACTION0, n = e->r->actions[j].grid.n, chunk = n < STAGE_CHUNK ? n : STAGE_CHUNK;
    lcm_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    lcm_sb reduced;
    lcm_sb_init(&reduced);
    staged_reductions(e, &reduced);
    int variants[2], nv = staged_variants(e, variants);
    lcm_sb ev;
    lcm_sb_init(&ev);
    if (reads_ev(e)) ev_condition(e, -1, &ev);
    for (int v = 0; v < nv; ++v) {
        e->ev_path = variants[v];
        lcm_sb table; /* which continuation the variant computes */
        lcm_sb_init(&table);
        if (e->ev_path > 0) lcm_sb_printf(&table, "(%s)", ev.s);
        else if (e->ev_path < 0) lcm_sb_printf(&table, "!(%s)", ev.s);
        else lcm_sb_puts(&table, reads_table(e) ? "pre" : "1");
        emit_open(e, "%sif (%s%s) {", v ? "else " : "", table.s, reduced.s ? reduced.s : "");
        lcm_sb_free(&table);
        staged_limit(e, level);
        emit_open(e, "for (int c%d = 0; c%d < lim%d; c%d += %d) { /* action %s, %d at a time: Q, then the best */", j, j,
                  j, j, chunk, e->r->actions[j].name, chunk);
        emit_line(e, "const int n%d = lim%d - c%d < %d ? lim%d - c%d : %d;", j, j, j, chunk, j, j, chunk);
        emit_line(e, "real lcm_q[%d];", chunk);
        emit_line(e, "lcm_feas lcm_ok[%d];", chunk);
        e->staged = 1;
        emit_level(e, level);
        e->staged = 0;
        if (j == 0) emit_line(e, "lcm_best_of(lcm_q, lcm_ok, n0, c0, &best, &best_a, &nan_q);");
        else emit_line(e, "lcm_best_of(lcm_q, lcm_ok, n%d, ai%d * %d + c%d, &best, &best_a, &nan_q);", j, j - 1, n, j);
        emit_close(e);
        emit_close(e);
    }
    e->ev_path = 0;
    lcm_sb_free(&reduced), lcm_sb_free(&ev);
    emit_line(e, "else");
    lcm_sb_puts(e->b, "#endif\n");
    emit_open(e, "{");
    e->staged = -1; /* the plain loop */
    emit_level(e, level);
    e->staged = 0;
    emit_close(e);
}

static void emit_level(emitter *e, int level)
{
    int variants[2];
    if (level == e->innermost && level >= LVL_ACTION0 && !e->staged && staged_variants(e, variants)) {
        staged_level(e, level);
        return;
    }
    if (level >= LVL_ACTION0) action_loop(e, level - LVL_ACTION0);
    if (reads_table(e) && level == LVL_KERNEL) {
        emit_line(e, "const real *LCM_RESTRICT pre = (const real *)a->cont; /* 0: inline */");
        emit_line(e, "const unsigned char *LCM_RESTRICT pre_code = a->cont_code;");
        if (lazy_row(e)) lazy_row_decl(e);
    }
    if (reads_ev(e) && level == LVL_KERNEL)
        emit_line(e, "const real *LCM_RESTRICT pre = (const real *)a->cont; /* the expected V; 0: sum over the nodes */");
    if (reads_table(e) && level == LVL_STATE) table_row(e);
    char *first = lcm_xmalloc(e->r->nnodes + 1);
    constraint_inputs(e, level, first);
    declare_level(e, level, 0, first, 1);
    taste_scale(e, level);
    constraints(e, level);
    declare_level(e, level, 0, first, 0);
    free(first);
    if (level < e->innermost) hoisted_build(e, level);
    staged_caps_at(e, level);
    regime_prob_check(e, level);
    emit_stochastic_weights(e, level);
    if (level == e->e_level && lazy_row(e)) lazy_row_entry(e);
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        if (target_level(e, tg) == level) emit_target_block(e, tg, level);
    }
    if (!e->k->last && level == e->e_level) e_accumulate(e);
    declare_level(e, level, 1, NULL, 0);
    if (egm(e) && level == LVL_STATE) emit_egm_rows(e);
    if (egm(e) && egm_level(e, level + 1)) emit_egm_choice(e);
    if (level == e->innermost) best_update(e);
    else emit_level(e, level + 1);
    if (level >= LVL_ACTION0) emit_close(e);
}

/* ---- the kernel's pieces --------------------------------------------------- */

/* The values x[] of a state in a grid: the code c, or the point c of the
 * grid buffer (offset off; a grid by age: its row of the period). */
static void state_value(emitter *e, int s, const ir_grid *g, size_t off)
{
    if (grid_is_discrete(g)) lcm_sb_printf(e->b, "x[%d] = (real)c; }", s);
    else if (g->kind == GRID_AGE) lcm_sb_printf(e->b, "x[%d] = G[%zu + (lcm_index)a->period * %d + c]; }", s, off, g->n);
    else lcm_sb_printf(e->b, "x[%d] = G[%zu + c]; }", s, off);
}

/* Whether a regime has a continuous state (the decode reads G). */
static int reads_grid(const ir_regime *r)
{
    for (int s = 0; s < r->nstates; ++s)
        if (!grid_is_discrete(&r->states[s].grid)) return 1;
    return 0;
}

/* The `_at` function's decode: flat index s -> codes -> values x[]. */
static void state_decode(emitter *e)
{
    const ir_regime *r = e->r;
    if (!r->nstates) {
        emit_line(e, "/* no states */");
        return;
    }
    if (reads_grid(r)) emit_line(e, "const real *LCM_RESTRICT G = (const real *)a->grids;");
    emit_line(e, "lcm_index rem = s;");
    for (int s = r->nstates - 1; s >= 0; --s) {
        const ir_grid *g = &r->states[s].grid;
        emit_start(e);
        lcm_sb_printf(e->b, "{ const int c = (int)(rem %% %d); rem /= %d; ", g->n, g->n);
        state_value(e, s, g, e->L->state_off[r->id][s]);
        lcm_sb_printf(e->b, " /* %s */\n", r->states[s].name);
    }
}

/* Simulation: a subject's state values from its slots. */
static void sim_load(emitter *e, const ir_vars *V)
{
    const ir_regime *r = e->r;
    if (!r->nstates) {
        emit_line(e, "/* no states */");
        return;
    }
    emit_line(e, "const real *LCM_RESTRICT X = (const real *)sim->x + (lcm_index)row * sim->nstates;");
    for (int s = 0; s < r->nstates; ++s)
        emit_line(e, "x[%d] = X[%d]; /* %s */", s, V->state_slot[r->id][s], r->states[s].name);
}

/* The periods a kernel serves: "periods 0 1 2". */
static void kernel_periods(const ir_model *m, const ir_kernel *k, lcm_sb *b)
{
    lcm_sb_puts(b, "periods");
    for (int t = 0; t < m->nperiods; ++t)
        if (m->period_kernel[k->regime * m->nperiods + t] == (int)(k - m->kernels)) lcm_sb_printf(b, " %d", t);
}

/* The table's decode: entry index `rest` -> the read actions act<j> and
 * states x[] (a splayed one within its chunk, the sharded ones from the
 * launch's block). */
static void table_decode(emitter *e)
{
    const ir_regime *r = e->r;
    const ir_state_layout *lay = e->lay;
    for (int j = r->nactions - 1; j >= 0; --j) {
        const ir_grid *g = &r->actions[j].grid;
        if (!(e->pre.actions >> j & 1)) continue;
        emit_line(e, "const int i%d = (int)(rest %% %d);", j, g->n);
        emit_line(e, "rest /= %d;", g->n);
        emit_action_value(e, j, 'i');
    }
    for (int d = 0; d < lay->nfree; ++d) { /* the read states, fastest first, a splayed one within its chunk */
        int i = lay->order[d], w = lay->axis[i].width;
        const ir_grid *g = &r->states[i].grid;
        if (!(e->pre.states >> i & 1)) continue;
        emit_start(e);
        lcm_sb_puts(e->b, "{ const int c = ");
        if (lay->axis[i].chunk >= 0) {
            ir_layout_print_chunk_start(lay, i, e->b);
            lcm_sb_puts(e->b, " + ");
        }
        lcm_sb_printf(e->b, "(int)(rest %% %d); rest /= %d; if (c >= %d) return; ", w, w, g->n);
        state_value(e, i, g, e->L->state_off[r->id][i]);
        lcm_sb_printf(e->b, " /* %s */\n", r->states[i].name);
    }
    if (!e->pre.sharded) return;
    emit_line(e, "lcm_index combo = a->shard_lo + rest; /* the sharded states, last fastest */");
    for (int d = lay->nfree; d < r->nstates; ++d) {
        int i = lay->order[d];
        emit_line(e, "x[%d] = (real)(combo %% %d); /* %s */", i, lay->axis[i].n, r->states[i].name);
        emit_line(e, "combo /= %d;", lay->axis[i].n);
    }
}

/* The loops that fill lcm_at: for each action with tabled terms, a loop
 * over its values, from `first` in steps of `step` (all of them on the
 * CPU, a thread's share on the GPU), computing them (and what they read,
 * of the launch's nodes first) as the body would. */
static void action_term_loops(const emitter *e, lcm_sb *out, int depth, const char *first, const char *step)
{
    const ir_regime *r = e->r;
    emitter t = *e;
    t.b = out;
    t.depth = depth;
    t.tabled = t.terms_only = t.hoisted = t.hoist_only = NULL;
    t.needed = lcm_xcalloc(r->nnodes + 1, 1);
    for (size_t i = 0; i < r->nnodes; ++i)
        if (e->tabled[i]) emit_mark(&t, (int)i);
    emit_line(&t, "LCM_UNUSED const real *LCM_RESTRICT P = (const real *)a->params;");
    emit_line(&t, "LCM_UNUSED const real *LCM_RESTRICT G = (const real *)a->grids;");
    for (size_t i = 0; i < r->nnodes; ++i)
        if (t.needed[i] && e->lvl[i] == LVL_KERNEL) emit_node_decl(&t, (int)i);
    for (int j = 0; j < r->nactions; ++j) {
        int any = 0;
        for (size_t i = 0; i < r->nnodes; ++i) any |= e->tabled[i] && e->lvl[i] == LVL_ACTION0 + j;
        if (!any) continue;
        int n = r->actions[j].grid.n;
        emit_open(&t, "for (int i%d = %s; i%d < %d; i%d += %s) { /* action %s */", j, first, j, n, j, step,
                  r->actions[j].name);
        emit_action_value(&t, j, 'i');
        for (size_t i = 0; i < r->nnodes; ++i)
            if (t.needed[i] && e->lvl[i] == LVL_ACTION0 + j) emit_node_decl(&t, (int)i);
        for (size_t i = 0; i < r->nnodes; ++i)
            if (e->tabled[i] && e->lvl[i] == LVL_ACTION0 + j)
                emit_line(&t, "lcm_at[%d + i%d] = %s;", e->at_off[i], j, emit_name(&t, (int)i));
        emit_close(&t);
    }
    free(t.needed);
}

/* The CPU launch's lcm_at, on its stack (cpu), and the GPU's kernel
 * <symbol>_terms that fills lcm_kernel_args.terms before each launch
 * (gpu).  Both empty when nothing is tabled. */
static void action_terms_build(const emitter *e, lcm_sb *cpu, lcm_sb *gpu)
{
    if (!e->nat) return;
    lcm_sb_printf(cpu, "    real lcm_at[%d]; /* the action terms, once per launch (emit.c, \"action terms\") */\n", e->nat);
    lcm_sb_puts(cpu, "    {\n");
    action_term_loops(e, cpu, 2, "0", "1");
    lcm_sb_puts(cpu, "    }\n");
    lcm_sb_printf(gpu, "/* The launch's action terms (emit.c, \"action terms\"): %d reals, by the threads of the grid. */\n"
                       "LCM_EXTERN __global__ void %s_terms(const lcm_kernel_args args)\n{\n", e->nat, e->k->symbol);
    lcm_sb_puts(gpu, "    const lcm_kernel_args *LCM_RESTRICT a = &args;\n"
                     "    real *LCM_RESTRICT lcm_at = (real *)a->terms;\n"
                     "    const int first = (int)(blockIdx.x * blockDim.x + threadIdx.x), step = (int)(gridDim.x * blockDim.x);\n");
    action_term_loops(e, gpu, 1, "first", "step");
    lcm_sb_puts(gpu, "}\n\n");
}

/* See emit_internal.h. */
void emit_flat_open(const emitter *e, emitter *f)
{
    const ir_regime *r = e->r;
    *f = *e;
    f->flat = 1;
    f->root = f->tabled = f->terms_only = f->next_only = f->hoisted = f->hoist_only = NULL;
    f->depth = 1;
    f->lvl = lcm_xcalloc(r->nnodes + 1, sizeof *f->lvl);
    f->needed = lcm_xcalloc(r->nnodes + 1, 1);
    for (size_t i = 0; i < r->nnodes; ++i) f->lvl[i] = -1;
}

void emit_flat_close(emitter *f) { free(f->lvl), free(f->needed); }

/* The nodes the flat emitter f needs, declared in order (none that reads
 * E_next_V: a table holds what comes before it). */
static void flat_nodes(emitter *f)
{
    for (size_t i = 0; i < f->r->nnodes; ++i)
        if (f->needed[i] && !f->has_enext[i]) emit_node_decl(f, (int)i);
}

/* The table entry of a kernel (templates/table.c.in): entry j's read
 * actions and states (ir/precompute.h), then the continuation as the kernel
 * body computes it inline, every node at one level. */
static int emit_table(const emitter *e, const char *nx, lcm_sb *out, lcm_err *err)
{
    const ir_regime *r = e->r;
    emitter f;
    emit_flat_open(e, &f);
    mark_continuation(&f);
    lcm_sb decode, body, off_grid;
    lcm_sb_init(&decode), lcm_sb_init(&body), lcm_sb_init(&off_grid);
    f.b = &decode;
    table_decode(&f);
    f.b = &body;
    flat_nodes(&f);
    emit_stochastic_weights(&f, -1);
    for (int t = 0; t < f.k->ntargets; ++t) emit_target_block(&f, ir_target_of(r, f.k->targets[t]), -1);
    e_accumulate(&f);
    off_grid_byte(&f, &off_grid);
    lcm_sb store, what;
    lcm_sb_init(&store), lcm_sb_init(&what);
    lcm_sb_printf(&store, "    ((real *)a->cont)[j] = E;\n    a->cont_code[j] = (unsigned char)(%s);", off_grid.s);
    lcm_sb_printf(&what, "The continuation table of %s (ir/precompute.h): entry j of this\n"
                         " * launch's table, computed by the code the kernel runs inline.", f.k->symbol);
    const char *kv[] = {"what", what.s, "symbol", f.k->symbol, "nx", nx, "decode", emit_fragment(&decode),
                        "body", emit_fragment(&body), "store", store.s, NULL};
    int rc = lcm_fill_template(lcm_embed_table_c_in, kv, out, err);
    lcm_sb_free(&decode), lcm_sb_free(&body), lcm_sb_free(&off_grid), lcm_sb_free(&store), lcm_sb_free(&what);
    emit_flat_close(&f);
    return rc;
}

/* One target's part of an expected-V table's entry: for entry j in
 * [off, off + its V's size), the cells of the axes it sums over
 * (ir_pre_ev_axes), then, where the entry is one the kernel reads (index 0
 * on the axes of one row), each axis's row of weights -- an AR(1)
 * process's matrix row, an IID process's weights, a Markov state's
 * probabilities computed at its source's category -- and the sum. */
static void ev_target_entry(const emitter *e, int g, long long off, int first, lcm_sb *out)
{
    const ir_regime *r = e->r, *tr = &e->m->regimes[g];
    const ir_target *tg = ir_target_of(r, g);
    emitter f; /* the probabilities' nodes */
    emit_flat_open(e, &f);
    f.b = out;
    long long *stride = lcm_xcalloc((size_t)tr->nstates + 1, sizeof *stride), nodes;
    int *axis = lcm_xcalloc((size_t)tr->nstates + 1, sizeof *axis);
    ir_strides(tr, stride);
    int np = ir_pre_ev_axes(e->m, r, tg, axis, &nodes);
    lcm_sb st, n, one_row, row;
    lcm_sb_init(&st), lcm_sb_init(&n), lcm_sb_init(&one_row), lcm_sb_init(&row);
    for (int s = 0, i = 0; s < tr->nstates; ++s) {
        if (axis[s] == IR_EV_NONE) continue;
        const ir_next *nx = &tg->next[s];
        const char *sep = i ? ", " : "";
        lcm_sb_printf(&st, "%s%lld", sep, stride[s]);
        lcm_sb_printf(&n, "%s%d", sep, tr->states[s].grid.n);
        if (axis[s] == IR_EV_FIXED || (axis[s] == IR_EV_PROCESS && nx->src < 0))
            lcm_sb_printf(&one_row, "%sc[%d] == 0", one_row.s ? " && " : "", i);
        if (axis[s] == IR_EV_PROCESS && nx->src >= 0)
            lcm_sb_printf(&row, "%sG + %zu + (lcm_index)c[%d] * %d", sep, e->L->matrix_off[g][s], i, tr->states[s].grid.n);
        else if (axis[s] == IR_EV_PROCESS) lcm_sb_printf(&row, "%sG + %zu", sep, e->L->matrix_off[g][s]);
        else lcm_sb_printf(&row, "%swm%d", sep, s);
        for (int k = 0; nx->kind == NEXT_MARKOV && k < nx->nprobs; ++k) emit_mark(&f, nx->probs[k]);
        ++i;
    }
    emit_open(&f, "%sif (j < %lld) { /* regime '%s' */", first ? "" : "else ", off + ir_state_space_size(tr), tr->name);
    emit_line(&f, "const lcm_index st[%d] = {%s};", np, st.s);
    emit_line(&f, "const int n[%d] = {%s};", np, n.s);
    emit_line(&f, "int c[%d];", np);
    emit_line(&f, "const lcm_index base = lcm_ev_cells(j - %lld, %d, st, n, c);", off, np);
    if (one_row.s) emit_open(&f, "if (%s) { /* one row: the rest is never read */", one_row.s);
    else emit_open(&f, "{");
    for (int s = 0, i = 0; s < tr->nstates; ++s) {
        if (axis[s] == IR_EV_NONE) continue;
        if (axis[s] >= 0) emit_line(&f, "x[%d] = (real)c[%d]; /* %s: the category whose row weights next %s */", axis[s],
                                    i, r->states[axis[s]].name, tr->states[s].name);
        ++i;
    }
    flat_nodes(&f);
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (axis[s] == IR_EV_NONE || nx->kind != NEXT_MARKOV) continue;
        emit_start(&f);
        lcm_sb_printf(f.b, "const real wm%d[%d] = {", s, nx->nprobs);
        for (int k = 0; k < nx->nprobs; ++k) lcm_sb_printf(f.b, "%s%s", k ? ", " : "", emit_num(&f, nx->probs[k]));
        lcm_sb_printf(f.b, "}; /* next %s */\n", tr->states[s].name);
    }
    emit_line(&f, "const real *const row[%d] = {%s};", np, row.s);
    emit_line(&f, "E = lcm_expected_v((const real *)a->v_next[%d], base, %d, st, n, row);", g, np);
    emit_close(&f);
    emit_close(&f);
    lcm_sb_free(&st), lcm_sb_free(&n), lcm_sb_free(&one_row), lcm_sb_free(&row);
    free(stride), free(axis);
    emit_flat_close(&f);
}

/* The table entry of a kernel with an expected-V table (ir/precompute.h,
 * "ev"; templates/table.c.in): entry j lies in the expected V of one
 * target (ev_target_entry). */
static int emit_ev_table(const emitter *e, const char *nx, lcm_sb *out, lcm_err *err)
{
    lcm_sb body, what;
    lcm_sb_init(&body), lcm_sb_init(&what);
    lcm_sb_puts(&body, "    real E = 0;\n");
    for (int t = 0, first = 1; t < e->k->ntargets; ++t) {
        if (!ir_pre_ev_target(&e->pre, t)) continue;
        ev_target_entry(e, e->k->targets[t], ir_pre_ev_offset(e->m, e->k, &e->pre, t), first, &body);
        first = 0;
    }
    lcm_sb_printf(&what, "The expected next V of %s (ir/precompute.h, \"ev\"): entry j\n"
                         " * of the table, the targets' expected V one after another.", e->k->symbol);
    const char *kv[] = {"what", what.s, "symbol", e->k->symbol, "nx", nx, "decode", "", "body", emit_fragment(&body),
                        "store", "    ((real *)a->cont)[j] = E;\n    a->cont_code[j] = 0;", NULL};
    int rc = lcm_fill_template(lcm_embed_table_c_in, kv, out, err);
    lcm_sb_free(&body), lcm_sb_free(&what);
    return rc;
}

/* The holes of kernel.c.in for taste shocks (prelude.h, "taste shocks"):
 * each choice's best (vd, ad) and the scale, passed to the body, reduced
 * over a GPU state's lanes, smoothed into V and, when simulating, the
 * Gumbel-max choice and, in a regime solved by EGM, kept for the choice
 * probabilities (lcm_keep_choices).  Empty for a regime without taste
 * shocks. */
typedef struct taste_holes {
    char param[96], pass[32], args[32], decl4[192], decl8[192], reduce_smooth4[128], smooth8[96], draw_cpu[192],
        draw_gpu[192], keep_cpu[96], keep_gpu[96];
} taste_holes;

static void taste_holes_build(const ir_regime *r, taste_holes *h)
{
    memset(h, 0, sizeof *h);
    if (r->taste_scale < 0) return;
    int n = ir_taste_choices(r);
    snprintf(h->param, sizeof h->param, ", real *LCM_RESTRICT vd, lcm_index *LCM_RESTRICT ad, real *LCM_RESTRICT scale");
    snprintf(h->pass, sizeof h->pass, ", vd, ad, scale");
    snprintf(h->args, sizeof h->args, ", vd, ad, &scale");
    const char *decl = "real vd[%d], scale = 0; /* taste shocks: each discrete choice's best Q; the scale */\n"
                       "%slcm_index ad[%d]; /* and its action */\n";
    snprintf(h->decl4, sizeof h->decl4, "    ");
    snprintf(h->decl4 + 4, sizeof h->decl4 - 4, decl, n, "    ", n);
    snprintf(h->decl8, sizeof h->decl8, "        ");
    snprintf(h->decl8 + 8, sizeof h->decl8 - 8, decl, n, "        ", n);
    snprintf(h->reduce_smooth4, sizeof h->reduce_smooth4,
             "    lcm_reduce_choices(vd, ad, %d);\n    v = lcm_taste_smooth(vd, %d, scale, v);\n", n, n);
    snprintf(h->smooth8, sizeof h->smooth8, "        v = lcm_taste_smooth(vd, %d, scale, v);\n", n);
    snprintf(h->draw_cpu, sizeof h->draw_cpu, "        best = lcm_taste_draw(vd, ad, %d, scale, best, sim->seed, "
             "LCM_SUBJECT(sim, row), (unsigned int)a->period);\n", n);
    snprintf(h->draw_gpu, sizeof h->draw_gpu, "        best = lcm_taste_draw(vd, ad, %d, scale, best, sim.seed, "
             "LCM_SUBJECT(&sim, row), (unsigned int)args.period);\n", n);
    if (!ir_is_egm(r)) return; /* the interpreter gives the others' choice probabilities */
    snprintf(h->keep_cpu, sizeof h->keep_cpu, "        lcm_keep_choices(sim, row, vd, %d, scale);\n", n);
    snprintf(h->keep_gpu, sizeof h->keep_gpu, "        lcm_keep_choices(&sim, row, vd, %d, scale);\n", n);
}

int emitter_kernel_open(emitter *e, const ir_model *m, const ir_grid_layout *L, const ir_vars *V, const ir_shard *S,
                        const ir_kernel *k, int tables, int host, ir_state_layout *lay, emit_names *names,
                        lcm_err *err)
{
    const ir_regime *r = &m->regimes[k->regime];
    ir_state_layout_build(m, V, S, r->id, lay);
    emit_names_build(m, r, names);
    *e = (emitter){.m = m, .r = r, .k = k, .L = L, .S = S, .lay = lay, .leaves = LEAVES_KERNEL, .names = names,
                   .no_tables = !tables, .no_hoist = !host};
    e->lvl = lcm_xcalloc(r->nnodes + 1, sizeof *e->lvl);
    e->needed = lcm_xcalloc(r->nnodes + 1, 1);
    e->has_enext = lcm_xcalloc(r->nnodes + 1, 1);
    e->root = lcm_xcalloc(r->nnodes + 1, 1);
    e->tabled = lcm_xcalloc(r->nnodes + 1, 1);
    e->terms_only = lcm_xcalloc(r->nnodes + 1, 1);
    e->at_off = lcm_xcalloc(r->nnodes + 1, sizeof *e->at_off);
    e->next_only = lcm_xcalloc(r->nnodes + 1, 1);
    e->hoisted = lcm_xcalloc(r->nnodes + 1, 1);
    e->hoist_only = lcm_xcalloc(r->nnodes + 1, 1);
    e->hoist_level = lcm_xcalloc(r->nnodes + 1, sizeof *e->hoist_level);
    return analyze(e, err);
}

void emitter_kernel_close(emitter *e, ir_state_layout *lay, emit_names *names)
{
    free(e->lvl), free(e->needed), free(e->has_enext), free(e->root), free(e->tabled), free(e->terms_only), free(e->at_off);
    free(e->next_only), free(e->hoisted), free(e->hoist_only), free(e->hoist_level);
    emit_names_free(names);
    ir_state_layout_free(lay);
}

/* Kernel k's text; *nterms: its action terms' length (emit.c, "action terms"). */
static int emit_kernel(const ir_model *m, const ir_grid_layout *L, const ir_vars *V, const ir_shard *S,
                       const ir_kernel *k, int lines, lcm_sb *out, int *nterms, lcm_err *err)
{
    const ir_regime *r = &m->regimes[k->regime];
    ir_state_layout lay;
    emit_names names;
    emitter e;
    lcm_sb body, decode, what, state_names, load, state, order, table, at_build, at_kernel;
    lcm_sb_init(&body), lcm_sb_init(&decode), lcm_sb_init(&what), lcm_sb_init(&state_names), lcm_sb_init(&load), lcm_sb_init(&state);
    lcm_sb_init(&order), lcm_sb_init(&table), lcm_sb_init(&at_build), lcm_sb_init(&at_kernel);
    char nx[32], step[128];
    snprintf(nx, sizeof nx, "%d", r->nstates ? r->nstates : 1);
    lcm_step_symbol(m, r->id, step, sizeof step);

    int rc;
    LCM_CHECK_GOTO(emitter_kernel_open(&e, m, L, V, S, k, 1, 1, &lay, &names, err), rc, done);
    e.lines = lines;
    e.b = &body;
    e.depth = 2; /* inside the body's do { } while (0) */
    if (r->taste_scale >= 0)
        emit_line(&e, "for (int d = 0; d < %d; ++d) vd[d] = -LCM_INF, ad[d] = -1;", ir_taste_choices(r));
    emit_level(&e, LVL_KERNEL);
    e.b = &decode;
    e.depth = 1;
    state_decode(&e);
    e.b = &load;
    sim_load(&e, V);
    kernel_periods(m, k, &what);
    emit_state_names(r, &state_names);
    ir_layout_print_state(&lay, &state, &order);
    if (e.pre.active && e.pre.egm) LCM_CHECK_GOTO(emit_egm_table(&e, nx, &table, err), rc, done);
    else if (e.pre.active && e.pre.ev) LCM_CHECK_GOTO(emit_ev_table(&e, nx, &table, err), rc, done);
    else if (e.pre.active) LCM_CHECK_GOTO(emit_table(&e, nx, &table, err), rc, done);
    taste_holes th;
    taste_holes_build(r, &th);
    egm_holes eh;
    emit_egm_holes(r, &eh);
    action_terms_build(&e, &at_build, &at_kernel);
    *nterms = e.nat;
    const char *at_param = e.nat ? ", LCM_UNUSED const real *LCM_RESTRICT lcm_at" : "";
    const char *at_pass = e.nat ? ", lcm_at" : "", *at_gpu = e.nat ? ", (const real *)args.terms" : "";
    const char *kv[] = {"symbol", k->symbol, "regime", r->name, "what", what.s, "state_names", state_names.s,
                        "body", emit_fragment(&body), "nx", nx, "decode", emit_fragment(&decode),
                        "load", emit_fragment(&load), "step", step, "state_of", state.s,
                        "launch_order", order.s, "table", table.s ? table.s : "",
                        "choices_param", th.param, "choices_pass", th.pass, "choices_args", th.args,
                        "choices_decl4", th.decl4, "choices_decl8", th.decl8, "reduce_smooth4", th.reduce_smooth4,
                        "smooth8", th.smooth8, "draw_cpu", th.draw_cpu, "draw_gpu", th.draw_gpu,
                        "keep_cpu", th.keep_cpu, "keep_gpu", th.keep_gpu,
                        "at_param", at_param, "at_pass", at_pass, "at_gpu", at_gpu,
                        "at_build", at_build.s ? at_build.s : "", "at_kernel", at_kernel.s ? at_kernel.s : "", "egm_param", eh.param, "egm_pass", eh.pass,
                        "egm_decl4", eh.decl4, "egm_decl8", eh.decl8, "egm_store4", eh.store4, "egm_store8", eh.store8,
                        "egm_step", eh.step, NULL};
    rc = lcm_fill_template(lcm_embed_kernel_c_in, kv, out, err);
done:
    lcm_sb_free(&body), lcm_sb_free(&decode), lcm_sb_free(&what), lcm_sb_free(&state_names), lcm_sb_free(&load), lcm_sb_free(&state);
    lcm_sb_free(&order), lcm_sb_free(&table), lcm_sb_free(&at_build), lcm_sb_free(&at_kernel);
    emitter_kernel_close(&e, &lay, &names);
    return rc;
}

void lcm_emit_prelude(lcm_sb *out)
{
    lcm_sb_puts(out, lcm_embed_kernel_abi_h);
    lcm_sb_puts(out, "\n");
    lcm_sb_puts(out, lcm_embed_prelude_h);
    lcm_sb_puts(out, "\n");
    lcm_sb_puts(out, lcm_embed_arith_h);
    lcm_sb_puts(out, "\n");
    lcm_sb_puts(out, lcm_embed_random_h);
    lcm_sb_puts(out, "\n#define LCM_RECORD_REAL real\n#define LCM_RECORD_FN lcm_record_row\n#define LCM_RECORD_KERNEL\n");
    lcm_sb_puts(out, lcm_embed_sim_record_h);
}

void emit_layouts_build(const ir_model *m, emit_layouts *out)
{
    *out = (emit_layouts){0};
    ir_grid_layout_build(m, &out->L);
    ir_vars_build(m, &out->V);
    ir_shard_build(m, &out->V, &out->S);
}

void emit_layouts_free(emit_layouts *l)
{
    ir_vars_free(&l->V);
    ir_grid_layout_free(&l->L);
}

/* The simulation steps of the regimes that have kernels, then the kernels. */
static int emit_regimes(ir_model *m, const lcm_emit_options *opt, lcm_sb *out, lcm_err *err)
{
    emit_layouts lo;
    emit_layouts_build(m, &lo);
    int rc = 0, lines = opt && opt->line_directives;
    for (int r = 0; r < m->nregimes; ++r) {
        int used = 0;
        for (int k = 0; k < m->nkernels; ++k) used |= m->kernels[k].regime == r;
        if (used) LCM_CHECK_GOTO(lcm_emit_step(m, &lo.L, &lo.V, r, lines, out, err), rc, done);
    }
    for (int k = 0; k < m->nkernels; ++k)
        LCM_CHECK_GOTO(emit_kernel(m, &lo.L, &lo.V, &lo.S, &m->kernels[k], lines, out, &m->kernels[k].nterms, err), rc,
                       done);
done:
    emit_layouts_free(&lo);
    return rc;
}

int lcm_emit_source(ir_model *m, const lcm_emit_options *opt, lcm_sb *out, lcm_err *err)
{
    lcm_sb src;
    lcm_sb_init(&src);
    lcm_sb_printf(&src, "/* Generated by lcmgen from %s (model '%s'). Do not edit. */\n\n",
              emit_base_name(m->file ? m->file : "?"), m->name);
    lcm_emit_prelude(&src);
    int rc = emit_regimes(m, opt, &src, err);
    if (!rc && opt && opt->line_directives) emit_line_returns(src.s, out);
    else if (!rc) lcm_sb_puts(out, src.s);
    lcm_sb_free(&src);
    return rc;
}

int lcm_emit_node_function(const ir_model *m, const ir_regime *r, int node, const char *name,
                           lcm_sb *out, lcm_err *err)
{
    if (node < 0 || node >= (int)r->nnodes) return lcm_fail(err, LCM_E_INTERNAL, "no node %d", node);
    emit_names names;
    emit_names_build(m, r, &names);
    emitter e = {.m = m, .r = r, .leaves = LEAVES_VECTOR, .names = &names, .b = out, .depth = 1};
    e.needed = lcm_xcalloc(r->nnodes + 1, 1);
    emit_mark(&e, node);
    lcm_sb_printf(out, "LCM_EXTERN real %s(LCM_UNUSED const real *x, LCM_UNUSED const real *P)\n{\n", name);
    for (int i = 0; i <= node; ++i)
        if (e.needed[i]) emit_node_decl(&e, i);
    emit_line(&e, "return %s;", emit_num(&e, node));
    lcm_sb_puts(out, "}\n");
    free(e.needed);
    emit_names_free(&names);
    return 0;
}
