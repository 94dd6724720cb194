/* emit.c - see emit.h.  A kernel's emission: its analysis (loop levels,
 * the nodes it needs, the action terms and hoisted terms), the pieces
 * around its loops (state decoding, the tables' entries) and the kernel
 * assembled from its template.  The continuation is emit_continuation.c's,
 * the loop nest emit_loops.c's. */
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

/* Level at which the continuation of target g can be computed (for an
 * Epstein-Zin regime no higher than the risk aversion, which transforms V). */
int emit_target_level(const emitter *e, const ir_target *tg)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    if (e->flat) return -1;
    int l = emit_ez(e) ? e->lvl[e->r->risk_aversion] : LVL_KERNEL;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET) l = emit_max(l, e->lvl[nx->node]);
        else if (nx->kind == NEXT_PROCESS) l = emit_max(l, nx->src >= 0 ? LVL_STATE : LVL_KERNEL);
        else
            for (int j = 0; j < nx->nprobs; ++j) l = emit_max(l, e->lvl[nx->probs[j]]);
    }
    return l;
}


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
int emit_lazy_row(const emitter *e)
{
    if (!emit_reads_table(e) || e->staged > 0 || e->pre.acts > LAZY_MAX) return 0;
    long long reuse = 1;
    for (int j = 0; j < e->r->nactions; ++j)
        if (!(e->pre.actions >> j & 1) && LVL_ACTION0 + j < e->e_level) reuse *= e->r->actions[j].grid.n;
    return reuse >= 2;
}

int emit_kernel_target(const emitter *e, int g)
{
    for (int t = 0; t < e->k->ntargets; ++t)
        if (e->k->targets[t] == g) return t;
    return -1;
}

int emit_ev_target(const emitter *e, int g)
{
    int t = emit_kernel_target(e, g);
    return t >= 0 && emit_reads_ev(e) && ir_pre_ev_target(&e->pre, t);
}

/* When the expected V is read for target g (every target of the table
 * when g < 0), as C: the launch gives the table, and each AR(1) process's
 * current value is one of its nodes (pe<g>_<s>, process_weights): always
 * in the solve, whose states lie on their grids. */
void emit_ev_condition(const emitter *e, int g, lcm_sb *out)
{
    lcm_sb_puts(out, "pre");
    for (int t = 0; t < e->k->ntargets; ++t) {
        int tg_regime = e->k->targets[t];
        if ((g >= 0 && tg_regime != g) || !emit_ev_target(e, tg_regime)) continue;
        const ir_target *tg = ir_target_of(e->r, tg_regime);
        for (int s = 0; s < e->m->regimes[tg_regime].nstates; ++s)
            if (tg->next[s].kind == NEXT_PROCESS && tg->next[s].src >= 0)
                lcm_sb_printf(out, " && pe%d_%d >= 0", tg_regime, s);
    }
}


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
    if (emit_ez(e)) mark_root(e, e->r->risk_aversion);
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


/* Marks node id the body computes or reads, not looking past a tabled or
 * hoisted term. */
static void mark_body(emitter *e, char *body, int id)
{
    if (id < 0 || body[id]) return;
    body[id] = 1;
    if (e->tabled[id] || (e->hoisted && e->hoisted[id])) return; /* read from lcm_at, or its lcm_h */
    for (int a = 0; a < e->r->nodes[id].nargs; ++a) mark_body(e, body, e->r->nodes[id].args[a]);
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
        case OP_ACTION: act[i] = emit_is_egm(e) && nd->ref == r->egm.action ? -2 : nd->ref; break; /* EGM's: off its grid */
        default:
            act[i] = nd->op == OP_PIDX && !pidx_in_range(e, (int)i) ? -2 : -1;
            for (int a = 0; a < nd->nargs && act[i] != -2; ++a) {
                int x = act[nd->args[a]];
                if (x == -2 || (x >= 0 && act[i] >= 0 && x != act[i])) act[i] = -2;
                else if (x >= 0 && act[i] != -2) act[i] = x;
                costly[i] |= costly[nd->args[a]];
            }
        }
        if (act[i] >= 0 && emit_costly_op(nd->op)) costly[i] = 1;
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
        h[i].costly = (char)emit_costly_op(nd->op);
        for (int a = 0; a < nd->nargs; ++a) {
            int x = nd->args[a];
            if (e->lvl[x] != home) {
                h[i].level = emit_max(h[i].level, e->lvl[x]);
                continue;
            }
            h[i].ok &= h[x].ok;
            h[i].level = emit_max(h[i].level, h[x].level);
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
    if (e->flat || e->no_hoist || emit_is_egm(e) || r->nactions < 2) return;
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
        e->e_level = emit_max(e->e_level, emit_max(emit_target_level(e, tg), e->lvl[r->rprob[tg->regime]]));
    }
    compute_levels(e, e->e_level);
    e->rp_level = LVL_KERNEL;
    for (int g = 0; g < e->m->nregimes; ++g)
        if (r->rprob[g] >= 0) e->rp_level = emit_max(e->rp_level, e->lvl[r->rprob[g]]);
    mark_root(e, r->q);
    mark_root(e, r->utility);
    if (r->taste_scale >= 0) mark_root(e, r->taste_scale);
    for (int c = 0; c < r->nconstraints; ++c) mark_root(e, r->constraints[c].node);
    mark_continuation(e);
    for (int i = 0; i < k->ninactive; ++i) mark_root(e, r->rprob[k->inactive[i]]);
    if (emit_is_egm(e)) mark_root(e, r->egm.resources), mark_root(e, r->egm.marginal);
    if (r->terminal_marginal) mark_root(e, r->marginal);
    ir_pre_plan(e->m, e->S, (int)(k - e->m->kernels), &e->pre);
    if (e->no_tables && !e->pre.egm) memset(&e->pre, 0, sizeof e->pre); /* LCM_NO_TABLES: no table but EGM's */
    plan_action_terms(e);
    plan_hoisted_terms(e);
    if (emit_reads_table(e)) plan_next_only(e);
    return 0;
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
    emit_accumulate(&f);
    emit_off_grid_byte(&f, &off_grid);
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
