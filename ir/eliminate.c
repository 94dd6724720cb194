/* eliminate.c - see eliminate.h.  The plan and the DAG come from one walk
 * (split), so what the runtime sizes is what the generator prints. */
#include "eliminate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The regime's nodes and the appended ones, with what each reads: states,
 * actions, and whether E_next_V (the continuation, whose reads it
 * inherits). */
typedef struct dag {
    ir_node *nodes;
    uint64_t *sm, *am;
    char *enext;
    size_t n, cap;
} dag;

static int append(dag *d, ir_op op, ir_type type, int nargs, const int *args, int ref, uint64_t sm, uint64_t am,
                  int enext)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->nodes = base_xrealloc(d->nodes, d->cap * sizeof *d->nodes);
        d->sm = base_xrealloc(d->sm, d->cap * sizeof *d->sm);
        d->am = base_xrealloc(d->am, d->cap * sizeof *d->am);
        d->enext = base_xrealloc(d->enext, d->cap);
    }
    ir_node *n = &d->nodes[d->n];
    *n = (ir_node){.op = op, .type = type, .nargs = nargs, .ref = ref, .src = -1};
    for (int a = 0; a < nargs; ++a) {
        n->args[a] = args[a];
        sm |= d->sm[args[a]], am |= d->am[args[a]], enext |= d->enext[args[a]];
    }
    d->sm[d->n] = sm, d->am[d->n] = am, d->enext[d->n] = (char)enext;
    return (int)d->n++;
}

/* x + y, x - y or -x of terms that may be absent (-1). */
static int combine(dag *d, ir_op op, int x, int y)
{
    if (op == OP_NEG) return x < 0 ? -1 : append(d, OP_NEG, IR_NUM, 1, &x, 0, 0, 0, 0);
    if (y < 0) return x;
    if (x < 0) return op == OP_ADD ? y : append(d, OP_NEG, IR_NUM, 1, &y, 0, 0, 0, 0);
    int args[2] = {x, y};
    return append(d, op, IR_NUM, 2, args, 0, 0, 0, 0);
}

/* x = *out + *in, *in the terms of x that read action j (-1: none). */
static void split(dag *d, int x, int j, int *out, int *in)
{
    if (!(d->am[x] >> j & 1)) {
        *out = x, *in = -1;
        return;
    }
    ir_op op = d->nodes[x].op;
    int a0 = d->nodes[x].args[0], a1 = d->nodes[x].args[1], o0, i0, o1 = -1, i1 = -1;
    if (op != OP_ADD && op != OP_SUB && op != OP_NEG) {
        *out = -1, *in = x;
        return;
    }
    split(d, a0, j, &o0, &i0);
    if (op != OP_NEG) split(d, a1, j, &o1, &i1);
    *out = combine(d, op, o0, o1);
    *in = combine(d, op, i0, i1);
}

/* The regime's DAG, E_next_V reading what the continuation reads. */
static void dag_of(const ir_model *m, const ir_regime *r, const ir_kernel *kn, dag *d)
{
    uint64_t *sm = base_xcalloc(r->nnodes + 1, sizeof *sm), *am = base_xcalloc(r->nnodes + 1, sizeof *am), cs = 0,
             ca = 0;
    ir_node_masks(r, sm, am);
    if (!kn->last) ir_continuation_reads(m, r, kn, sm, am, &cs, &ca);
    free(sm), free(am);
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < r->nnodes - (size_t)r->margin_nodes; ++i) { /* a margin's nodes: no kernel's (ir.h) */
        const ir_node *n = &r->nodes[i];
        uint64_t s = n->op == OP_STATE ? (uint64_t)1 << n->ref : n->op == OP_ENEXT ? cs : 0;
        uint64_t a = n->op == OP_ACTION ? (uint64_t)1 << n->ref : n->op == OP_ENEXT ? ca : 0;
        int at = append(d, n->op, n->type, n->nargs, n->args, n->ref, s, a, n->op == OP_ENEXT);
        d->nodes[at] = *n; /* as it is, its source and constant too */
    }
}

static void dag_free(dag *d) { free(d->nodes), free(d->sm), free(d->am), free(d->enext); }

/* Which constraints of the regime read action j, among `open` (bit c). */
static uint64_t constraints_reading(const ir_regime *r, const dag *d, uint64_t open, int j)
{
    uint64_t c = 0;
    for (int i = 0; i < r->nconstraints && i < IR_SET_BITS; ++i)
        if ((open >> i & 1) && (d->am[r->constraints[i].node] >> j & 1)) c |= (uint64_t)1 << i;
    return c;
}

/* Names of the states and actions of a scope, for a reason ("wealth, labor_supply"). */
static void scope_names(const ir_regime *r, uint64_t states, uint64_t actions, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < r->nstates + r->nactions && at + 1 < len; ++i) {
        int state = i < r->nstates, k = state ? i : i - r->nstates;
        if (!((state ? states : actions) >> k & 1)) continue;
        int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", state ? r->states[k].name : r->actions[k].name);
        at = w < 0 ? len : at + (size_t)w;
    }
}

/* What a stage's evaluations cost, in pairs of a vectorised action loop: a
 * stage fills its row's entries in a loop over them, vectorised across
 * the entries; a row of fewer entries than a vector's lanes is a scalar
 * reduction over the action, about 8 times the cost of a pair of the
 * vectorised loop it would replace (precautionary savings' last period,
 * 500 wealth x 500 consumption: its table of 500 one-entry rows filled at
 * 1.1e8 evaluations a second, grid search's loop 1.0e9 to 1.25e9 pairs). */
#define STAGE_LANES 8
#define STAGE_SCALAR_COST 8
static double stage_cost(const ir_shape *sh, double evals)
{
    return sh->acts < STAGE_LANES ? STAGE_SCALAR_COST * evals : evals;
}

/* A candidate stage: action j maximised out of objective q with the open
 * constraints that read it; its cost and whether it is allowed. */
typedef struct candidate {
    int j, out, in; /* q = out + in */
    ir_stage st;
    double evals;   /* its table's entries x j's points */
    double cost;    /* ... weighed as pairs of a vectorised loop (stage_cost) */
    const char *refused; /* why it cannot be taken, or NULL */
} candidate;

static void candidate_of(const ir_model *m, const ir_shard *S, const ir_regime *r, dag *d, int q, uint64_t open, int j,
                         int with_constraints, candidate *c)
{
    *c = (candidate){.j = j};
    split(d, q, j, &c->out, &c->in);
    if (c->in < 0) {
        c->refused = "no term reads it";
        return;
    }
    uint64_t states = d->sm[c->in], actions = d->am[c->in];
    c->st.constraints = with_constraints ? constraints_reading(r, d, open, j) : 0;
    for (int i = 0; i < r->nconstraints && i < IR_SET_BITS; ++i)
        if (c->st.constraints >> i & 1) states |= d->sm[r->constraints[i].node], actions |= d->am[r->constraints[i].node];
    c->st.action = j;
    c->st.cont = d->enext[c->in];
    ir_table_shape(m, S, r, states, actions & ~((uint64_t)1 << j), &c->st.shape);
    c->evals = (double)c->st.shape.whole * r->actions[j].grid.n;
    c->cost = stage_cost(&c->st.shape, c->evals);
    if (c->st.shape.whole > ir_table_cap(r)) c->refused = "its table would be larger than a continuation table may be";
    else if (c->st.shape.acts > LCM_STAGE_ROW_MAX) c->refused = "a row of its table is more than a subject keeps";
}

/* Evaluations a period of grid search over the remaining actions. */
static double outer_pairs(const ir_regime *r, uint64_t remaining)
{
    double n = (double)ir_state_space_size(r);
    for (int j = 0; j < r->nactions; ++j)
        if (remaining >> j & 1) n *= r->actions[j].grid.n;
    return n;
}

/* Why no stage was taken, where some action would have saved work
 * without a refusal: the regime's kind, or an action's constraints that
 * widen its table to all the rest. */
static void explain(const ir_model *m, const ir_shard *S, const ir_regime *r, dag *d, int q, const char *kind,
                    ir_elim *out)
{
    uint64_t all = r->nactions >= IR_SET_BITS ? ~(uint64_t)0 : ((uint64_t)1 << r->nactions) - 1,
             open = r->nconstraints >= IR_SET_BITS ? ~(uint64_t)0 : ((uint64_t)1 << r->nconstraints) - 1;
    for (int j = 0; j < r->nactions; ++j) {
        candidate terms, full;
        candidate_of(m, S, r, d, q, open, j, 0, &terms);
        double bare = terms.cost + outer_pairs(r, all & ~((uint64_t)1 << j));
        if (terms.refused || bare > out->pairs / 2) continue; /* no saving even from its terms alone */
        if (kind) {
            snprintf(out->why, sizeof out->why, "not staged: %s", kind);
            return;
        }
        candidate_of(m, S, r, d, q, open, j, 1, &full);
        char names[160];
        uint64_t extra_s = full.st.shape.states & ~terms.st.shape.states,
                 extra_a = full.st.shape.actions & ~terms.st.shape.actions;
        scope_names(r, extra_s, extra_a, names, sizeof names);
        snprintf(out->why, sizeof out->why, "'%s' not maximised first: its constraints read %s too, %s", r->actions[j].name,
                 *names ? names : "what its terms do not",
                 full.refused ? full.refused : "and its table would save no work");
        return;
    }
}

void ir_elim_plan(const ir_model *m, const ir_shard *S, const ir_kernel *kn, ir_elim *out, ir_elim_dag *result)
{
    const ir_regime *r = &m->regimes[kn->regime];
    memset(out, 0, sizeof *out);
    if (result) memset(result, 0, sizeof *result);
    out->pairs = out->staged = outer_pairs(r, ~(uint64_t)0);
    out->subject = out->pairs / (double)ir_state_space_size(r);
    if (ir_is_egm(r) || !r->nactions || r->nstates > IR_SET_BITS || r->nactions > IR_SET_BITS || r->nconstraints > IR_SET_BITS) return;
    dag d;
    dag_of(m, r, kn, &d);
    int q = r->q;
    const char *kind = r->taste_scale >= 0 ? "taste shocks smooth the best over the discrete choices"
                       : r->risk_aversion >= 0 ? "Epstein-Zin's certainty equivalent is no expectation"
                       : !kn->staged ? "switched off (LCM_NO_ELIMINATION=1 when it was generated)"
                                     : NULL;
    uint64_t remaining = ((uint64_t)1 << r->nactions) - 1, open = ~(uint64_t)0;
    if (r->nconstraints < IR_SET_BITS) open = ((uint64_t)1 << r->nconstraints) - 1;
    int value[LCM_MAX_STAGES], feasible[LCM_MAX_STAGES], root[LCM_MAX_STAGES];
    unsigned reads[LCM_MAX_STAGES] = {0}, live = 0; /* live: the stages whose G the objective holds */
    double tables = 0, tables_cost = 0, now = out->pairs; /* the stages' evaluations so far, their cost, the plan's */
    while (!kind && out->nstages < LCM_MAX_STAGES) {
        size_t before = d.n; /* the candidates' splits are dropped; the one taken is split again */
        int take = -1;
        double least = 0;
        for (int j = 0; j < r->nactions; ++j) {
            if (!(remaining >> j & 1)) continue;
            candidate c;
            candidate_of(m, S, r, &d, q, open, j, 1, &c);
            double total = tables_cost + c.cost + outer_pairs(r, remaining & ~((uint64_t)1 << j));
            if (!c.refused && total <= now / 2 && (take < 0 || total < least)) take = j, least = total;
        }
        d.n = before;
        if (take < 0) break;
        candidate c;
        candidate_of(m, S, r, &d, q, open, take, 1, &c);
        int s = out->nstages++;
        ir_stage *st = &out->stage[s];
        *st = c.st;
        tables += c.evals, tables_cost += c.cost, now = least;
        out->staged = tables + outer_pairs(r, remaining & ~((uint64_t)1 << take));
        /* the earlier stages whose G are terms of its objective (they read its action) are its now */
        for (int k = 0; k < s; ++k)
            if ((live >> k & 1) && (d.am[value[k]] >> take & 1)) reads[s] |= 1u << k, live &= ~(1u << k);
        root[s] = c.in;
        value[s] = append(&d, OP_STAGE, IR_NUM, 0, NULL, s, st->shape.states, st->shape.actions, 0);
        feasible[s] = append(&d, OP_STAGE_OK, IR_BOOL, 0, NULL, s, st->shape.states, st->shape.actions, 0);
        d.nodes[value[s]].k = d.nodes[feasible[s]].k = take; /* the action, which names them */
        live |= 1u << s;
        q = combine(&d, OP_ADD, c.out, value[s]);
        remaining &= ~((uint64_t)1 << take);
        open &= ~st->constraints;
    }
    int any_cont = 0;
    for (int s = 0; s < out->nstages; ++s) any_cont |= out->stage[s].cont;
    if (out->nstages) {
        out->subject = outer_pairs(r, remaining) / (double)ir_state_space_size(r);
        for (int s = 0; s < out->nstages; ++s)
            out->subject += (double)out->stage[s].shape.acts * r->actions[out->stage[s].action].grid.n;
    }
    out->cont = !kn->last && !any_cont;
    if (!out->nstages) explain(m, S, r, &d, r->q, kind, out);
    if (result && out->nstages) {
        result->nodes = d.nodes, result->nnodes = d.n, result->q = q, result->outer_reads = live;
        for (int s = 0; s < out->nstages; ++s)
            result->root[s] = root[s], result->value[s] = value[s], result->feasible[s] = feasible[s],
            result->reads[s] = reads[s];
        d.nodes = NULL;
    }
    dag_free(&d);
}

void ir_elim_dag_free(ir_elim_dag *d)
{
    free(d->nodes);
    memset(d, 0, sizeof *d);
}

void ir_elim_plan_kernel(const ir_model *m, const ir_shard *S, int k, ir_pre *p)
{
    if (ir_pre_plan(m, S, k, p)) ir_elim_plan(m, S, &m->kernels[k], &p->elim, NULL);
}
