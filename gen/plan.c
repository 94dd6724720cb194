/* plan.c - see plan.h.  The levels of the body's nodes, what it and its
 * tables' entries need, and the order in which lcm_plan_kernel decides the
 * rest (the terms: plan_terms.c). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

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

void plan_mark(const ir_regime *r, char *needed, int id)
{
    if (id < 0 || needed[id]) return;
    needed[id] = 1;
    const ir_node *n = &r->nodes[id];
    for (int i = 0; i < n->nargs; ++i) plan_mark(r, needed, n->args[i]);
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* ---- nests ------------------------------------------------------------------ */
/* A nest of kind `kind` over the regime's nodes: nothing needed yet, every
 * node at level -1 (flat), or with the body's loops over every action in
 * the regime's order. */
static void nest_init(const kernel_plan *p, plan_nest *n, plan_nest_kind kind, int flat)
{
    const ir_regime *r = p->r;
    *n = (plan_nest){.kind = kind, .flat = flat, .q = -1, .innermost = -1, .e_level = -1, .rp_level = -1};
    n->lvl = lcm_xcalloc(r->nnodes + 1, sizeof *n->lvl);
    n->needed = lcm_xcalloc(r->nnodes + 1, 1);
    n->action_level = lcm_xcalloc((size_t)r->nactions + 1, sizeof *n->action_level);
    n->loop = lcm_xcalloc((size_t)r->nactions + 1, sizeof *n->loop);
    for (int j = 0; j < r->nactions; ++j) n->action_level[j] = -1;
    if (flat) {
        for (size_t i = 0; i < r->nnodes; ++i) n->lvl[i] = -1;
        return;
    }
    for (int j = 0; j < r->nactions; ++j) n->loop[n->nloops++] = j, n->action_level[j] = LVL_ACTION0 + j;
    n->innermost = LVL_STATE + n->nloops;
}

static void nest_free(plan_nest *n)
{
    free(n->lvl), free(n->needed), free(n->action_level), free(n->loop);
    free(n->root), free(n->tabled), free(n->terms_only), free(n->at_off), free(n->next_only), free(n->hoisted);
    free(n->hoist_only), free(n->hoist_level);
    memset(n, 0, sizeof *n);
}

/* ---- levels ------------------------------------------------------------------ */
/* Each node's level in nest n, E_next_V at enext_level; with has_enext,
 * which nodes read it. */
static void compute_levels(const ir_regime *r, plan_nest *n, int enext_level, char *has_enext)
{
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *nd = &r->nodes[i];
        int l = LVL_KERNEL, h = 0;
        switch (nd->op) {
        case OP_STATE: l = LVL_STATE; break;
        case OP_ACTION: l = n->action_level[nd->ref]; break;
        case OP_ENEXT: l = enext_level, h = 1; break;
        default:
            for (int a = 0; a < nd->nargs; ++a) {
                l = max_int(l, n->lvl[nd->args[a]]);
                h |= has_enext[nd->args[a]];
            }
        }
        n->lvl[i] = l;
        has_enext[i] = (char)h;
    }
}

int plan_target_level(const kernel_plan *p, const plan_nest *n, const ir_target *tg)
{
    const ir_regime *tr = &p->m->regimes[tg->regime];
    if (n->flat) return -1;
    int l = p->r->risk_aversion >= 0 ? n->lvl[p->r->risk_aversion] : LVL_KERNEL;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET) l = max_int(l, n->lvl[nx->node]);
        else if (nx->kind == NEXT_PROCESS) l = max_int(l, nx->src >= 0 ? LVL_STATE : LVL_KERNEL);
        else
            for (int j = 0; j < nx->nprobs; ++j) l = max_int(l, n->lvl[nx->probs[j]]);
    }
    return l;
}

int plan_weights_level(const plan_nest *n, const ir_next *nx)
{
    if (n->flat) return -1;
    if (nx->kind == NEXT_PROCESS) return nx->src >= 0 ? LVL_STATE : LVL_KERNEL;
    int l = LVL_KERNEL;
    for (int j = 0; j < nx->nprobs; ++j) l = max_int(l, n->lvl[nx->probs[j]]);
    return l;
}

/* ---- what the nests need ------------------------------------------------------ */
/* Marks a node the body uses directly (and what it reads). */
static void mark_root(const kernel_plan *p, plan_nest *n, int id)
{
    plan_mark(p->r, n->needed, id);
    if (n->root && id >= 0) n->root[id] = 1;
}

/* What the continuation reads: the targets' regime probabilities, next
 * states and weights, and an Epstein-Zin regime's risk aversion
 * (ir/precompute.c counts the same). */
static void mark_continuation(const kernel_plan *p, plan_nest *n)
{
    const ir_regime *r = p->r;
    if (r->risk_aversion >= 0) mark_root(p, n, r->risk_aversion);
    for (int t = 0; t < p->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        mark_root(p, n, r->rprob[tg->regime]);
        const ir_regime *tr = &p->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            if (tg->next[s].kind == NEXT_DET) mark_root(p, n, tg->next[s].node);
            else if (tg->next[s].kind == NEXT_MARKOV)
                for (int j = 0; j < tg->next[s].nprobs; ++j) mark_root(p, n, tg->next[s].probs[j]);
        }
    }
}

/* With a table, the staged loop reads the continuation from it: what only
 * the next states need (next wealth = (1 + r) * saving) is left out there;
 * the plain loop beside it computes them for its inline block.  A Markov
 * state's probabilities stay: the kernel checks them (pmok, checks()). */
static void plan_next_only(const kernel_plan *p, plan_nest *n)
{
    const ir_regime *r = p->r;
    char *rest = lcm_xcalloc(r->nnodes + 1, 1); /* what the loop reads but for the next states */
    plan_mark_body(p, rest, r->q);
    plan_mark_body(p, rest, r->utility);
    plan_mark_body(p, rest, r->taste_scale);
    for (int c = 0; c < r->nconstraints; ++c) plan_mark_body(p, rest, r->constraints[c].node);
    plan_mark_body(p, rest, r->risk_aversion);
    for (int g = 0; g < p->m->nregimes; ++g) plan_mark_body(p, rest, r->rprob[g]);
    for (int t = 0; t < p->k->ntargets; ++t) { /* a Markov state's probabilities: the kernel checks them */
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        for (int s = 0; s < p->m->regimes[tg->regime].nstates; ++s)
            for (int j = 0; tg->next[s].kind == NEXT_MARKOV && j < tg->next[s].nprobs; ++j)
                plan_mark_body(p, rest, tg->next[s].probs[j]);
    }
    for (size_t i = 0; i < r->nnodes; ++i) n->next_only[i] = n->needed[i] && !rest[i];
    free(rest);
}

/* The body: levels (E_next_V where the continuation's inputs are all
 * known), what it computes, its table, then its terms. */
static int plan_body(kernel_plan *p, lcm_err *err)
{
    const ir_regime *r = p->r;
    const ir_kernel *k = p->k;
    plan_nest *n = &p->body;
    nest_init(p, n, NEST_BODY, 0);
    n->q = r->q;
    char *has_enext = lcm_xcalloc(r->nnodes + 1, 1);
    n->has_enext = has_enext;
    n->root = lcm_xcalloc(r->nnodes + 1, 1);
    n->tabled = lcm_xcalloc(r->nnodes + 1, 1);
    n->terms_only = lcm_xcalloc(r->nnodes + 1, 1);
    n->at_off = lcm_xcalloc(r->nnodes + 1, sizeof *n->at_off);
    n->next_only = lcm_xcalloc(r->nnodes + 1, 1);
    n->hoisted = lcm_xcalloc(r->nnodes + 1, 1);
    n->hoist_only = lcm_xcalloc(r->nnodes + 1, 1);
    n->hoist_level = lcm_xcalloc(r->nnodes + 1, sizeof *n->hoist_level);
    compute_levels(r, n, 0, has_enext);
    n->e_level = LVL_KERNEL;
    for (int t = 0; t < k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, k->targets[t]);
        const ir_regime *tr = &p->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_PROCESS) continue;
            int bad = nx->kind == NEXT_DET ? has_enext[nx->node] : 0;
            for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j) bad |= has_enext[nx->probs[j]];
            if (bad)
                return lcm_fail(err, LCM_E_MODEL, "regime '%s': the next value of '%s' depends on E_next_V",
                                r->name, tr->states[s].name);
        }
        n->e_level = max_int(n->e_level, max_int(plan_target_level(p, n, tg), n->lvl[r->rprob[tg->regime]]));
    }
    compute_levels(r, n, n->e_level, has_enext);
    n->rp_level = LVL_KERNEL;
    for (int g = 0; g < p->m->nregimes; ++g)
        if (r->rprob[g] >= 0) n->rp_level = max_int(n->rp_level, n->lvl[r->rprob[g]]);
    mark_root(p, n, r->q);
    mark_root(p, n, r->utility);
    if (r->taste_scale >= 0) mark_root(p, n, r->taste_scale);
    for (int c = 0; c < r->nconstraints; ++c) mark_root(p, n, r->constraints[c].node);
    mark_continuation(p, n);
    for (int i = 0; i < k->ninactive; ++i) mark_root(p, n, r->rprob[k->inactive[i]]);
    if (ir_is_egm(r)) mark_root(p, n, r->egm.resources), mark_root(p, n, r->egm.marginal);
    if (r->terminal_marginal) mark_root(p, n, r->marginal);
    plan_action_terms(p);
    plan_hoisted_terms(p);
    if (p->pre.active && !p->pre.egm && !p->pre.ev) plan_next_only(p, n);
    return 0;
}

/* ---- the tables' entries ------------------------------------------------------ */
/* A flat nest of the body's E_next_V marks. */
static void flat_nest(const kernel_plan *p, plan_nest *n, plan_nest_kind kind)
{
    nest_init(p, n, kind, 1);
    n->has_enext = p->body.has_enext;
}

/* The expected V's entry of each target read from it: the probabilities
 * of its Markov states that the table sums over. */
static void plan_ev_entries(kernel_plan *p)
{
    const ir_regime *r = p->r;
    p->ev = lcm_xcalloc((size_t)p->k->ntargets + 1, sizeof *p->ev);
    for (int t = 0; t < p->k->ntargets; ++t) {
        flat_nest(p, &p->ev[t], NEST_EV);
        if (!ir_pre_ev_target(&p->pre, t)) continue;
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        const ir_regime *tr = &p->m->regimes[tg->regime];
        int *axis = lcm_xcalloc((size_t)tr->nstates + 1, sizeof *axis);
        long long nodes;
        ir_pre_ev_axes(p->m, r, tg, axis, &nodes);
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            for (int j = 0; axis[s] != IR_EV_NONE && nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j)
                plan_mark(r, p->ev[t].needed, nx->probs[j]);
        }
        free(axis);
    }
}

/* An EGM regime's endogenous grid: for each target of the kernel that
 * carries the liquid state its regime probability, its next states (the
 * liquid one as a function of savings, with its derivative) and their
 * weights; the discount and the policy. */
static void plan_egm_entry(kernel_plan *p)
{
    const ir_regime *r = p->r;
    plan_nest *n = &p->egm;
    flat_nest(p, n, NEST_EGM);
    for (int t = 0; t < p->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        int ti = (int)(tg - r->targets);
        if (!ir_egm_target(r, ti)) continue;
        const ir_regime *tr = &p->m->regimes[tg->regime];
        plan_mark(r, n->needed, r->rprob[tg->regime]);
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (s == ir_marginal_state(tr))
                plan_mark(r, n->needed, r->egm.next[ti]), plan_mark(r, n->needed, r->egm.dnext[ti]);
            else if (nx->kind == NEXT_DET) plan_mark(r, n->needed, nx->node);
            else if (nx->kind == NEXT_MARKOV)
                for (int j = 0; j < nx->nprobs; ++j) plan_mark(r, n->needed, nx->probs[j]);
        }
    }
    plan_mark(r, n->needed, r->egm.discount);
    plan_mark(r, n->needed, r->egm.policy);
}

int lcm_plan_kernel(kernel_plan *p, const ir_model *m, const emit_layouts *lo, const ir_kernel *k, int tables,
                    int host, lcm_err *err)
{
    const ir_regime *r = &m->regimes[k->regime];
    *p = (kernel_plan){.m = m, .r = r, .k = k, .L = &lo->L, .V = &lo->V, .S = &lo->S, .tables = tables, .host = host};
    ir_state_layout_build(m, &lo->V, &lo->S, r->id, &p->lay);
    emit_names_build(m, r, &p->names);
    ir_pre_plan(m, &lo->S, (int)(k - m->kernels), &p->pre);
    if (!tables && !p->pre.egm) memset(&p->pre, 0, sizeof p->pre); /* LCM_NO_TABLES: no table but EGM's */
    int rc = plan_body(p, err);
    if (rc) return rc;
    if (p->pre.active && p->pre.egm) plan_egm_entry(p);
    else if (p->pre.active && p->pre.ev) plan_ev_entries(p);
    else if (p->pre.active) {
        flat_nest(p, &p->table, NEST_TABLE);
        mark_continuation(p, &p->table);
    }
    return 0;
}

void lcm_plan_free(kernel_plan *p)
{
    free((char *)p->body.has_enext);
    nest_free(&p->body);
    nest_free(&p->terms);
    nest_free(&p->table);
    nest_free(&p->egm);
    for (int t = 0; p->ev && t < p->k->ntargets; ++t) nest_free(&p->ev[t]);
    free(p->ev);
    emit_names_free(&p->names);
    ir_state_layout_free(&p->lay);
    memset(p, 0, sizeof *p);
}
