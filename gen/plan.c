/* plan.c - see plan.h.  The levels of the body's nodes, what it and its
 * tables' entries need, and the order in which gen_plan_kernel decides the
 * rest (the terms: plan_terms.c). */
#include "plan.h"

#include <stdio.h>
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
/* A nest of kind `kind` over the kernel's nodes, with the regime's view
 * (its objective and constraints set after): nothing needed yet, every
 * node at level -1 (flat), or with loops over loop[0..nloops). */
static void nest_init(const kernel_plan *p, plan_nest *n, plan_nest_kind kind, int flat, const int *loop, int nloops)
{
    const ir_regime *r = p->r;
    *n = (plan_nest){.kind = kind, .view = *r, .flat = flat, .q = r->q, .innermost = -1, .e_level = -1,
                     .rp_level = -1, .has_enext = p->has_enext};
    n->view.constraints = NULL, n->view.nconstraints = 0;
    n->lvl = base_xcalloc(r->nnodes + 1, sizeof *n->lvl);
    n->needed = base_xcalloc(r->nnodes + 1, 1);
    n->action_level = base_xcalloc((size_t)r->nactions + 1, sizeof *n->action_level);
    n->loop = base_xcalloc((size_t)r->nactions + 1, sizeof *n->loop);
    for (int j = 0; j < r->nactions; ++j) n->action_level[j] = -1;
    if (flat) {
        for (size_t i = 0; i < r->nnodes; ++i) n->lvl[i] = -1;
        return;
    }
    for (int l = 0; l < nloops; ++l) n->loop[n->nloops++] = loop[l], n->action_level[loop[l]] = LVL_ACTION0 + l;
    n->innermost = LVL_STATE + n->nloops;
    n->root = base_xcalloc(r->nnodes + 1, 1);
    n->tabled = base_xcalloc(r->nnodes + 1, 1);
    n->terms_only = base_xcalloc(r->nnodes + 1, 1);
    n->at_off = base_xcalloc(r->nnodes + 1, sizeof *n->at_off);
    n->next_only = base_xcalloc(r->nnodes + 1, 1);
    n->hoisted = base_xcalloc(r->nnodes + 1, 1);
    n->hoist_only = base_xcalloc(r->nnodes + 1, 1);
    n->hoist_level = base_xcalloc(r->nnodes + 1, sizeof *n->hoist_level);
    n->best_only = base_xcalloc(r->nnodes + 1, 1);
}

/* The nest's objective q and constraints: the regime's of mask `own` (bit
 * c), then the feasibility of the stages in `reads` (bit s). */
static void nest_objective(const kernel_plan *p, plan_nest *n, int q, uint64_t own, unsigned reads)
{
    const ir_regime *r = p->r;
    n->q = n->view.q = n->view.utility = q;
    n->view.constraints = base_xcalloc((size_t)r->nconstraints + LCM_MAX_STAGES + 1, sizeof *n->view.constraints);
    for (int c = 0; c < r->nconstraints; ++c)
        if (own >> c & 1) n->view.constraints[n->view.nconstraints++] = r->constraints[c];
    for (int s = 0; s < p->pre.elim.nstages; ++s)
        if (reads >> s & 1)
            n->view.constraints[n->view.nconstraints++] =
                (ir_named){.name = r->actions[p->pre.elim.stage[s].action].name, .node = p->dag.feasible[s]};
}

static void nest_free(plan_nest *n)
{
    free(n->lvl), free(n->needed), free(n->action_level), free(n->loop), free(n->view.constraints);
    free(n->root), free(n->tabled), free(n->terms_only), free(n->at_off), free(n->next_only), free(n->hoisted);
    free(n->hoist_only), free(n->hoist_level), free(n->best_only);
    memset(n, 0, sizeof *n);
}

/* ---- levels ------------------------------------------------------------------ */
/* Each node's level in nest n, E_next_V at enext_level; a stage's table
 * read where its row's actions are known. */
static void compute_levels(const kernel_plan *p, plan_nest *n, int enext_level)
{
    const ir_regime *r = p->r;
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *nd = &r->nodes[i];
        int l = LVL_KERNEL;
        switch (nd->op) {
        case OP_STATE: l = LVL_STATE; break;
        case OP_ACTION: l = n->action_level[nd->ref]; break;
        case OP_ENEXT: l = enext_level; break;
        case OP_STAGE: case OP_STAGE_OK:
            l = LVL_STATE;
            for (int j = 0; j < r->nactions; ++j)
                if (p->pre.elim.stage[nd->ref].shape.actions >> j & 1) l = max_int(l, n->action_level[j]);
            break;
        default:
            for (int a = 0; a < nd->nargs; ++a) l = max_int(l, n->lvl[nd->args[a]]);
        }
        n->lvl[i] = l;
    }
}

/* Which nodes read E_next_V. */
static char *enext_readers(const ir_regime *r)
{
    char *h = base_xcalloc(r->nnodes + 1, 1);
    for (size_t i = 0; i < r->nnodes; ++i) {
        h[i] = r->nodes[i].op == OP_ENEXT;
        for (int a = 0; a < r->nodes[i].nargs; ++a) h[i] |= h[r->nodes[i].args[a]];
    }
    return h;
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

/* Levels of a nest: E_next_V, where its continuation computes it, where
 * all its inputs are known; the regime probabilities' check where they all
 * are. */
static void plan_levels(const kernel_plan *p, plan_nest *n)
{
    const ir_regime *r = p->r;
    compute_levels(p, n, 0);
    n->e_level = LVL_KERNEL;
    for (int t = 0; n->cont && t < p->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        n->e_level = max_int(n->e_level, max_int(plan_target_level(p, n, tg), n->lvl[r->rprob[tg->regime]]));
    }
    compute_levels(p, n, n->e_level);
    n->rp_level = LVL_KERNEL;
    for (int g = 0; g < p->m->nregimes; ++g)
        if (r->rprob[g] >= 0) n->rp_level = max_int(n->rp_level, n->lvl[r->rprob[g]]);
}

/* A next state or its probabilities may not read E_next_V. */
static int check_next_states(const kernel_plan *p, lcm_err *err)
{
    const ir_regime *r = p->r;
    for (int t = 0; t < p->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        const ir_regime *tr = &p->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_PROCESS) continue;
            int bad = nx->kind == NEXT_DET ? p->has_enext[nx->node] : 0;
            for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j) bad |= p->has_enext[nx->probs[j]];
            if (bad)
                return base_fail(err, LCM_E_MODEL, "regime '%s': the next value of '%s' depends on E_next_V",
                                r->name, tr->states[s].name);
        }
    }
    return 0;
}

/* ---- what the nests need ------------------------------------------------------ */
/* Marks a node the nest uses directly (and what it reads). */
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

/* What a nest computes: its objective and constraints, the continuation
 * where it computes it (and the regime probabilities its checks read). */
static void mark_nest(const kernel_plan *p, plan_nest *n)
{
    const ir_regime *v = &n->view;
    mark_root(p, n, v->q);
    for (int c = 0; c < v->nconstraints; ++c) mark_root(p, n, v->constraints[c].node);
    if (!n->cont) return;
    mark_continuation(p, n);
    for (int i = 0; i < p->k->ninactive; ++i) mark_root(p, n, v->rprob[p->k->inactive[i]]);
}

/* With a table, the staged loop reads the continuation from it: what only
 * the next states need (next wealth = (1 + r) * saving) is left out there;
 * the plain loop beside it computes them for its inline block.  A Markov
 * state's probabilities stay: the kernel checks them (pmok, checks()). */
static void plan_next_only(const kernel_plan *p, plan_nest *n)
{
    const ir_regime *r = &n->view;
    char *rest = base_xcalloc(r->nnodes + 1, 1); /* what the loop reads but for the next states */
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

/* The body: grid search over every action in the regime's order, or with
 * a staged solve over the actions the stages leave, reading their tables;
 * then its terms. */
static void plan_body(kernel_plan *p)
{
    const ir_regime *r = p->r;
    const ir_elim *el = &p->pre.elim;
    plan_nest *n = &p->body;
    int loop[IR_SET_BITS], nloops = 0;
    uint64_t out = 0;
    lcm_assert(r->nactions <= IR_SET_BITS); /* the loops of its actions (a regime of more could not be solved) */
    for (int s = 0; s < el->nstages; ++s) out |= (uint64_t)1 << el->stage[s].action;
    for (int j = 0; j < r->nactions; ++j)
        if (!(out >> j & 1)) loop[nloops++] = j;
    nest_init(p, n, NEST_BODY, 0, loop, nloops);
    uint64_t own = r->nconstraints >= IR_SET_BITS ? ~(uint64_t)0 : ((uint64_t)1 << r->nconstraints) - 1;
    for (int s = 0; s < el->nstages; ++s) own &= ~el->stage[s].constraints;
    n->cont = el->nstages ? el->cont : !p->k->last;
    if (el->nstages) nest_objective(p, n, p->dag.q, own, p->dag.outer_reads);
    else {
        n->view.constraints = r->constraints, n->view.nconstraints = r->nconstraints;
        mark_root(p, n, r->utility);
        if (r->taste_scale >= 0) mark_root(p, n, r->taste_scale);
    }
    plan_levels(p, n);
    mark_nest(p, n);
    if (ir_is_egm(r)) mark_root(p, n, r->egm.resources);
    char *before = ir_is_egm(r) && r->taste_scale < 0 ? base_xmalloc(r->nnodes + 1) : NULL;
    if (before) memcpy(before, n->needed, r->nnodes);
    if (ir_is_egm(r)) mark_root(p, n, r->egm.marginal);
    if (ir_is_egm(r) && ir_margin_scaled(r)) mark_root(p, n, r->egm.dresources);
    /* the marginal value is kept for the best candidate alone: what only it
     * reads in the candidates' loop (a pow of the action, say) waits for one */
    for (size_t i = 0; before && i < r->nnodes; ++i)
        n->best_only[i] = n->needed[i] && !before[i] && n->lvl[i] == n->innermost && n->innermost > LVL_STATE;
    free(before);
    if (r->terminal_marginal) mark_root(p, n, r->marginal);
    plan_action_terms(p);
    plan_hoisted_terms(p);
    if (p->pre.active && !p->pre.egm && n->cont) plan_next_only(p, n);
}

/* The continuation table's entries (ir/precompute.h): a nest per launch
 * item, a row and a value of the first action the continuation reads
 * (fixed from the item, as the row's states are), over the other actions
 * it reads; what a row (and that value) decides is computed once for all
 * its entries. */
static void plan_table(kernel_plan *p)
{
    const ir_regime *r = p->r;
    plan_nest *n = &p->table;
    int loop[IR_SET_BITS] = {0}, nloops = 0, first = ir_pre_first_action(&p->pre);
    for (int j = first + 1; first >= 0 && j < r->nactions; ++j)
        if (p->pre.actions >> j & 1) loop[nloops++] = j;
    nest_init(p, n, NEST_TABLE, 0, loop, nloops);
    if (first >= 0) n->action_level[first] = LVL_STATE;
    n->cont = 1;
    n->q = n->view.q = n->view.utility = n->view.taste_scale = -1;
    plan_levels(p, n);
    mark_continuation(p, n);
}

/* Stage s: its action's loop around its table row's actions (ir/eliminate.h). */
static void plan_stage(kernel_plan *p, int s)
{
    const ir_regime *r = p->r;
    const ir_stage *st = &p->pre.elim.stage[s];
    plan_nest *n = &p->stage[s];
    int loop[IR_SET_BITS], nloops = 0;
    loop[nloops++] = st->action;
    for (int j = 0; j < r->nactions; ++j)
        if (st->shape.actions >> j & 1) loop[nloops++] = j;
    nest_init(p, n, NEST_STAGE, 0, loop, nloops);
    n->view.taste_scale = -1;
    n->stage = s;
    n->cont = st->cont;
    nest_objective(p, n, p->dag.root[s], st->constraints, p->dag.reads[s]);
    plan_levels(p, n);
    mark_nest(p, n);
}

/* ---- the tables' entries ------------------------------------------------------ */
/* A flat nest of the body's E_next_V marks. */
static void flat_nest(const kernel_plan *p, plan_nest *n, plan_nest_kind kind)
{
    nest_init(p, n, kind, 1, NULL, 0);
    n->cont = kind == NEST_TABLE || kind == NEST_EGM;
}

/* The expected V's entry of each target read from it: the probabilities
 * of its Markov states that the table sums over. */
static void plan_ev_entries(kernel_plan *p)
{
    const ir_regime *r = p->r;
    p->ev = base_xcalloc((size_t)p->k->ntargets + 1, sizeof *p->ev);
    for (int t = 0; t < p->k->ntargets; ++t) {
        flat_nest(p, &p->ev[t], NEST_EV);
        if (!ir_pre_ev_target(&p->pre, t)) continue;
        const ir_target *tg = ir_target_of(r, p->k->targets[t]);
        const ir_regime *tr = &p->m->regimes[tg->regime];
        int *axis = base_xcalloc((size_t)tr->nstates + 1, sizeof *axis);
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

/* An EGM regime's endogenous grid: the roots its entry evaluates
 * (ir_egm_entry_roots, whose states are the rows') and the constraints it
 * tests (ir_pre.egm_tests). */
typedef struct egm_marks {
    const ir_regime *r;
    char *needed;
} egm_marks;

static void mark_egm_root(void *ctx, int id)
{
    egm_marks *mk = ctx;
    plan_mark(mk->r, mk->needed, id);
}

static void plan_egm_entry(kernel_plan *p)
{
    plan_nest *n = &p->egm;
    flat_nest(p, n, NEST_EGM);
    egm_marks mk = {p->r, n->needed};
    ir_egm_entry_roots(p->m, p->r, p->k, mark_egm_root, &mk);
    uint64_t tested = p->pre.egm_tests;
    for (int c = 0; c < p->r->nconstraints; ++c)
        if (tested >> c & 1) plan_mark(p->r, n->needed, p->r->constraints[c].node);
}

int gen_plan_kernel(kernel_plan *p, const ir_model *m, const emit_layouts *lo, const ir_kernel *k, int tables,
                    int host, lcm_err *err)
{
    const ir_regime *r = &m->regimes[k->regime];
    *p = (kernel_plan){.m = m, .r = r, .k = k, .L = &lo->L, .V = &lo->V, .S = &lo->S, .tables = tables, .host = host};
    ir_state_layout_build(m, &lo->V, &lo->S, r->id, &p->lay);
    ir_elim_plan_kernel(m, &lo->S, (int)(k - m->kernels), &p->pre);
    if (p->pre.elim.nstages) { /* the staged solve's DAG: the regime's nodes, then the stages' */
        ir_elim check;
        ir_elim_plan(m, &lo->S, k, &check, &p->dag);
        lcm_assert(check.nstages == p->pre.elim.nstages);
        p->staged = *r;
        p->staged.nodes = p->dag.nodes, p->staged.nnodes = p->dag.nnodes;
        p->staged.egm.margin = p->staged.margin_nodes = 0; /* a grid-search margin's nodes are left out (ir.h) */
        p->r = &p->staged;
    }
    emit_names_build(m, p->r, &p->names);
    if (!tables && !p->pre.egm) { /* LCM_NO_TABLES: no table but EGM's; the stages fill a state's rows themselves */
        ir_elim elim = p->pre.elim;
        memset(&p->pre, 0, sizeof p->pre);
        p->pre.elim = elim;
    }
    p->has_enext = enext_readers(p->r);
    int rc = check_next_states(p, err);
    if (rc) return rc;
    plan_body(p);
    for (int s = 0; s < p->pre.elim.nstages; ++s) plan_stage(p, s);
    if (p->pre.ev) plan_ev_entries(p);
    if (p->pre.active && p->pre.egm) plan_egm_entry(p);
    else if (p->pre.active) plan_table(p);
    return 0;
}

void gen_plan_free(kernel_plan *p)
{
    if (p->body.view.constraints == p->r->constraints) p->body.view.constraints = NULL; /* the regime's own */
    nest_free(&p->body);
    for (int s = 0; s < LCM_MAX_STAGES; ++s) nest_free(&p->stage[s]);
    nest_free(&p->terms);
    nest_free(&p->table);
    nest_free(&p->egm);
    for (int t = 0; p->ev && t < p->k->ntargets; ++t) nest_free(&p->ev[t]);
    free(p->ev);
    free(p->has_enext);
    ir_elim_dag_free(&p->dag);
    emit_names_free(&p->names);
    ir_state_layout_free(&p->lay);
    memset(p, 0, sizeof *p);
}

/* ---- what the plan says ------------------------------------------------------- */
/* "1,600,000" */
static void put_count(lcm_sb *b, double x)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", x);
    size_t n = strlen(digits);
    for (size_t i = 0; i < n; ++i) {
        base_sb_putc(b, digits[i]);
        if ((n - i - 1) % 3 == 0 && i + 1 < n) base_sb_putc(b, ',');
    }
}

/* The row states whose points one entry serves, for each distinct set of
 * them that groups of choices share (ir_pre.egm_shared): " and the points
 * of 'n' adjust=adjust shares" (a group is a combination of the discrete
 * actions, or all the choices where there are none; several are counted). */
static void describe_shared(const ir_regime *r, const ir_pre *pre, lcm_sb *out)
{
    int nd = ir_discrete_actions(r), code[IR_SET_BITS];
    for (int g = 0; g < pre->egm_groups && nd <= IR_SET_BITS; ++g) {
        uint64_t set = pre->egm_shared[g];
        int seen = 0, groups = 0;
        for (int h = 0; h < pre->egm_groups; ++h) seen |= h < g && pre->egm_shared[h] == set, groups += pre->egm_shared[h] == set;
        if (!set || seen) continue;
        base_sb_printf(out, "%sthe points of ", out->len ? " and " : "");
        for (int s = 0, first = 1; s < r->nstates; ++s)
            if (set >> s & 1) base_sb_printf(out, "%s'%s'", first ? "" : " and ", r->states[s].name), first = 0;
        if (!nd) {
            base_sb_puts(out, " its entries share");
        } else if (groups > 1) {
            base_sb_printf(out, " %d discrete choices share", groups);
        } else {
            ir_layout_decode(r->actions, nd, -1, g, code);
            for (int a = 0; a < nd; ++a)
                base_sb_printf(out, "%s%s=%s", a ? ", " : " ", r->actions[a].name, r->actions[a].grid.labels[code[a]]);
            base_sb_puts(out, " shares");
        }
    }
}

/* An EGM regime's line: which method, and the endogenous grid's size: the
 * rows, choices and savings points, less the choices a constraint rules
 * out and the points a group shares (ir/precompute.h): "(500 rows x 40
 * choices x 100 savings points, less the choices 'keep_once' rules out and
 * the points of 'n' adjust=adjust shares)". */
static void describe_egm(const ir_regime *r, const ir_pre *pre, lcm_sb *out)
{
    int ne = ir_egm_enumerated(r), continuous = 0;
    for (int a = 0; a < ne; ++a) continuous |= !grid_is_discrete(&r->actions[a].grid);
    base_sb_printf(out, "%s on '%s' for '%s'", continuous ? "nested EGM" : ne ? "DC-EGM" : "EGM",
                   r->states[r->egm.state].name, r->actions[r->egm.action].name);
    for (int a = 0; a < ne; ++a) base_sb_printf(out, "%s'%s'", a ? ", " : ", each choice of ", r->actions[a].name);
    if (!pre->egm) { /* emit_egm.c: the budget's corner alone */
        base_sb_printf(out, ": no next period carries '%s', so only the budget's corner\n", r->states[r->egm.state].name);
        return;
    }
    double rows = 1;
    for (int s = 0; s < r->nstates; ++s)
        if (ir_pre_egm_row_state(pre, s)) rows *= r->states[s].grid.n;
    base_sb_puts(out, ": an endogenous grid of ");
    put_count(out, (double)pre->rows * (double)pre->acts);
    base_sb_puts(out, " entries (");
    put_count(out, rows);
    base_sb_puts(out, rows == 1 ? " row x " : " rows x ");
    put_count(out, (double)ir_egm_choices(r));
    base_sb_puts(out, ne ? " choices x " : " choice x ");
    put_count(out, (double)r->egm.savings.grid.n);
    base_sb_puts(out, " savings points");
    lcm_sb less;
    base_sb_init(&less);
    int cutters = 0;
    for (int c = 0; c < r->nconstraints && c < IR_SET_BITS; ++c)
        if (pre->egm_cuts >> c & 1)
            base_sb_printf(&less, "%s'%s'", cutters++ ? " or " : "the choices ", r->constraints[c].name);
    if (cutters) base_sb_puts(&less, cutters > 1 ? " rule out" : " rules out");
    lcm_sb shared;
    base_sb_init(&shared);
    describe_shared(r, pre, &shared);
    if (less.len && shared.len) base_sb_puts(&less, " and ");
    base_sb_puts(&less, shared.len ? shared.s : "");
    if (less.len) base_sb_printf(out, ", less %s", less.s);
    base_sb_free(&less), base_sb_free(&shared);
    base_sb_putc(out, ')');
    for (int c = 0; c < r->nconstraints && c < IR_SET_BITS; ++c) /* what they rule out and the table keeps */
        if ((pre->egm_tests & ~pre->egm_cuts) >> c & 1)
            base_sb_printf(out, ", its entries ruled out by '%s' left empty", r->constraints[c].name);
    if (pre->ev) base_sb_puts(out, ", the expected next V precomputed");
    base_sb_putc(out, '\n');
}

void gen_plan_describe(const ir_model *m, lcm_sb *out)
{
    emit_layouts lo;
    emit_layouts_build(m, &lo);
    for (int k = 0; k < m->nkernels; ++k) {
        const ir_kernel *kn = &m->kernels[k];
        const ir_regime *r = &m->regimes[kn->regime];
        ir_pre pre;
        ir_elim_plan_kernel(m, &lo.S, k, &pre);
        const ir_elim *el = &pre.elim;
        base_sb_printf(out, "%s (regime '%s'): ", kn->symbol, r->name);
        if (ir_is_egm(r)) {
            describe_egm(r, &pre, out);
            continue;
        }
        if (!r->nactions) base_sb_puts(out, "no actions");
        else if (!el->nstages) base_sb_printf(out, "grid search%s%s", *el->why ? ", " : "", el->why);
        for (int s = 0; s < el->nstages; ++s) {
            const ir_stage *st = &el->stage[s];
            base_sb_printf(out, "%s'%s' maximised %s into a table of ", s ? ", then " : "staged solve: ",
                          r->actions[st->action].name, s ? "next" : "first");
            put_count(out, (double)st->shape.whole);
            base_sb_puts(out, st->shape.whole == 1 ? " entry" : " entries");
        }
        if (el->nstages) {
            base_sb_puts(out, "; ");
            put_count(out, el->pairs);
            base_sb_puts(out, " -> ");
            put_count(out, el->staged);
            base_sb_printf(out, " evaluations a period (%.1fx fewer)", el->pairs / el->staged);
        }
        base_sb_putc(out, '\n');
    }
    emit_layouts_free(&lo);
}
