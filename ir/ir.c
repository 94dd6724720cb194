/* ir.c - op table, lookups, type inference and sanity checks of the IR. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

const ir_op_info ir_ops[OP_COUNT] = {
#define X(id, name, arity) {name, arity},
    IR_OPS(X)
#undef X
};

int ir_op_by_name(const char *name)
{
    for (int i = 0; i < OP_COUNT; ++i)
        if (strcmp(ir_ops[i].name, name) == 0) return i;
    return -1;
}

static const char *grid_kind_names[] = {"discrete", "lin", "log", "irregular", "pwlin", "pwlog", "process", "by_age"};

const char *ir_grid_kind_name(grid_kind k) { return grid_kind_names[k]; }

int ir_grid_kind_by_name(const char *name)
{
    for (int i = 0; i < (int)(sizeof grid_kind_names / sizeof *grid_kind_names); ++i)
        if (strcmp(grid_kind_names[i], name) == 0) return i;
    return -1;
}

static void free_grid(ir_grid *g)
{
    for (int t = 0; g->periods && t < g->nperiods; ++t) free_grid(&g->periods[t]);
    free(g->periods);
    free(g->points);
    free(g->pieces);
    free(g->slots);
    if (g->labels)
        for (int i = 0; i < g->n; ++i) free(g->labels[i]);
    free(g->labels);
    free(g->category);
}

static void free_vars(ir_var *v, int n)
{
    for (int i = 0; i < n; ++i) free(v[i].name), free_grid(&v[i].grid);
    free(v);
}

static void free_named(ir_named *v, int n)
{
    for (int i = 0; i < n; ++i) free(v[i].name);
    free(v);
}

static void free_regime(ir_regime *r, const ir_model *m)
{
    free(r->name);
    free(r->active);
    free_vars(r->states, r->nstates);
    free_vars(r->actions, r->nactions);
    free(r->nodes);
    free_named(r->constraints, r->nconstraints);
    free_named(r->funcs, r->nfuncs);
    for (int t = 0; t < r->ntargets; ++t) {
        ir_target *tg = &r->targets[t];
        int ns = tg->regime >= 0 && tg->regime < m->nregimes ? m->regimes[tg->regime].nstates : 0;
        for (int s = 0; s < ns && tg->next; ++s) free(tg->next[s].probs);
        free(tg->next);
    }
    free(r->targets);
    free(r->egm.savings.name), free_grid(&r->egm.savings.grid);
    free(r->egm.next), free(r->egm.dnext);
    free(r->margin_why);
}

void ir_model_free(ir_model *m)
{
    if (!m) return;
    free(m->name);
    free(m->file);
    for (int i = 0; i < m->noptions; ++i) free(m->options[i].name), free(m->options[i].value);
    free(m->options);
    free(m->ages);
    for (int i = 0; i < m->nregimes; ++i) free_regime(&m->regimes[i], m);
    free(m->regimes);
    for (int i = 0; i < m->nparams; ++i) {
        ir_param *p = &m->params[i];
        free(p->regime), free(p->func), free(p->name), free(p->values);
        for (int d = 0; d < p->ndims; ++d) free(p->dimnames[d]);
    }
    free(m->params);
    for (int i = 0; i < m->nsrc; ++i) free(m->src[i]);
    free(m->src);
    for (int i = 0; i < m->nkernels; ++i) {
        free(m->kernels[i].symbol), free(m->kernels[i].targets), free(m->kernels[i].inactive);
    }
    free(m->kernels);
    free(m->period_kernel);
    free(m->source_hash);
    memset(m, 0, sizeof *m);
}

int ir_find_regime(const ir_model *m, const char *name)
{
    for (int i = 0; i < m->nregimes; ++i)
        if (strcmp(m->regimes[i].name, name) == 0) return i;
    return -1;
}

static int find_var(const ir_var *v, int n, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(v[i].name, name) == 0) return i;
    return -1;
}

int ir_find_state(const ir_regime *r, const char *name) { return find_var(r->states, r->nstates, name); }
int ir_find_action(const ir_regime *r, const char *name) { return find_var(r->actions, r->nactions, name); }

static long long space_size(const ir_var *v, int n)
{
    long long s = 1;
    for (int i = 0; i < n; ++i) s *= v[i].grid.n;
    return s;
}

long long ir_state_space_size(const ir_regime *r) { return space_size(r->states, r->nstates); }
long long ir_action_space_size(const ir_regime *r) { return space_size(r->actions, r->nactions); }

int ir_discrete_actions(const ir_regime *r)
{
    int n = 0;
    while (n < r->nactions && grid_is_discrete(&r->actions[n].grid)) ++n;
    return n;
}

int ir_taste_choices(const ir_regime *r) { return (int)space_size(r->actions, ir_discrete_actions(r)); }

int ir_egm_enumerated(const ir_regime *r) { return ir_has_margin(r) ? r->egm.action : 0; }

long long ir_egm_choices(const ir_regime *r) { return space_size(r->actions, ir_egm_enumerated(r)); }

long long ir_taste_inner(const ir_regime *r)
{
    int nd = ir_discrete_actions(r);
    /* a regime without actions has actions == NULL: no pointer arithmetic on it */
    return nd == r->nactions ? 1 : space_size(r->actions + nd, r->nactions - nd);
}

const char *ir_src(const ir_model *m, int src)
{
    return src >= 0 && src < m->nsrc ? m->src[src] : "?";
}

/* ---- checks ------------------------------------------------------------- */
static int is_bool_result(ir_op op)
{
    switch (op) {
    case OP_NOT: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_EQ: case OP_NE: case OP_AND: case OP_OR:
        return 1;
    default:
        return 0;
    }
}

static int check_node_ref(const ir_regime *r, int id, int limit, const char *what, lcm_err *err)
{
    if (id < 0 || id >= limit)
        return base_fail(err, LCM_E_MODEL, "regime '%s': %s refers to node %d of %d",
                        r->name, what, id, limit);
    return 0;
}

/* Whether node id reads an action or E_next_V (something the kernel knows
 * only inside the action loops). */
static int reads_action(const ir_regime *r, int id, char *memo)
{
    if (memo[id]) return memo[id] - 1;
    const ir_node *n = &r->nodes[id];
    int found = n->op == OP_ACTION || n->op == OP_ENEXT;
    for (int a = 0; a < n->nargs && !found; ++a) found = reads_action(r, n->args[a], memo);
    memo[id] = (char)(found + 1);
    return found;
}

/* The taste-shock scale: a number known before the actions are chosen,
 * over at least one and at most IR_MAX_TASTE_CHOICES discrete choices,
 * with the discrete actions first (the flat action index is d * inner + c).
 * The DSL says the same with the model's lines; this guards the manifest. */
static int check_taste(const ir_regime *r, int nn, lcm_err *err)
{
    int rc = check_node_ref(r, r->taste_scale, nn, "the taste-shock scale", err);
    if (rc) return rc;
    for (int a = 1; a < r->nactions; ++a)
        if (!grid_is_discrete(&r->actions[a - 1].grid) && grid_is_discrete(&r->actions[a].grid))
            return base_fail(err, LCM_E_MODEL, "regime '%s': taste shocks need the discrete actions first", r->name);
    int nd = ir_taste_choices(r);
    if (!r->nactions || !grid_is_discrete(&r->actions[0].grid) || nd > IR_MAX_TASTE_CHOICES)
        return base_fail(err, LCM_E_MODEL, "regime '%s': taste shocks need between 1 and %d combinations of discrete "
                        "actions (it has %d)", r->name, IR_MAX_TASTE_CHOICES,
                        r->nactions && grid_is_discrete(&r->actions[0].grid) ? nd : 0);
    if (r->nodes[r->taste_scale].type != IR_NUM)
        return base_fail(err, LCM_E_MODEL, "regime '%s': the taste-shock scale is a condition, not a number", r->name);
    char *memo = base_xcalloc((size_t)nn + 1, 1);
    int bad = reads_action(r, r->taste_scale, memo);
    free(memo);
    if (bad)
        return base_fail(err, LCM_E_MODEL, "regime '%s': the taste-shock scale depends on an action or E_next_V",
                        r->name);
    return 0;
}

/* The endogenous grid method's nodes and grid, or a grid-search regime's
 * margin (no grid); the DSL checks what EGM assumes of the model, with its
 * lines (gen/dsl/egm_plan.lua). */
static int check_egm(const ir_model *m, const ir_regime *r, int nn, lcm_err *err)
{
    const ir_egm *E = &r->egm;
    const ir_grid *g = &E->savings.grid;
    int rc, egm = ir_is_egm(r);
    if (r->terminal || E->state < 0 || E->state >= r->nstates || E->action < 0 || E->action >= r->nactions ||
        grid_is_discrete(&r->states[E->state].grid) || grid_is_discrete(&r->actions[E->action].grid))
        return base_fail(err, LCM_E_MODEL, "regime '%s': bad endogenous grid method (state, action or terminal)", r->name);
    /* the actions before c are enumerated (ir_egm_choices): c is the last */
    if (E->action != r->nactions - 1)
        return base_fail(err, LCM_E_MODEL, "regime '%s': the action '%s' of the endogenous grid method is not the last",
                        r->name, r->actions[E->action].name);
    if (r->taste_scale >= 0 && ir_egm_enumerated(r) != ir_discrete_actions(r))
        return base_fail(err, LCM_E_MODEL, "regime '%s': taste shocks with a continuous action enumerated beside '%s'",
                        r->name, r->actions[E->action].name);
    if (egm && (g->kind == GRID_DISCRETE || g->kind == GRID_PROCESS || g->kind == GRID_AGE || (g->kind == GRID_IRREG && !g->points) ||
        g->n < 2 || g->batch_size || g->distributed))
        return base_fail(err, LCM_E_MODEL, "regime '%s': the savings grid must be continuous and fixed in the model", r->name);
    if ((rc = check_node_ref(r, E->resources, nn, "EGM's resources", err)) ||
        (rc = check_node_ref(r, E->dresources, nn, "EGM's d resources / d x", err)) ||
        (rc = check_node_ref(r, E->discount, nn, "EGM's discount", err)) ||
        (rc = check_node_ref(r, E->marginal, nn, "EGM's marginal utility", err)) ||
        (rc = check_node_ref(r, E->policy, nn, "EGM's policy", err)))
        return rc;
    for (int t = 0; t < r->ntargets; ++t) {
        const ir_regime *tr = &m->regimes[r->targets[t].regime];
        if ((ir_find_state(tr, r->states[E->state].name) >= 0) != (E->next[t] >= 0))
            return base_fail(err, LCM_E_MODEL, "regime '%s': EGM's next '%s' in regime '%s' is %s", r->name,
                            r->states[E->state].name, tr->name, E->next[t] >= 0 ? "not a state there" : "missing");
        if (E->next[t] < 0) continue;
        if ((rc = check_node_ref(r, E->next[t], nn, "EGM's next state", err)) ||
            (rc = check_node_ref(r, E->dnext[t], nn, "EGM's next state's derivative", err)))
            return rc;
        int s = ir_find_state(tr, r->states[E->state].name);
        /* a grid-search margin's target: a margin for x, or a terminal regime with d utility / d x */
        if (!egm && (tr->terminal ? !ir_has_terminal_marginal(tr) || tr->marginal_state != s
                                  : !ir_has_margin(tr) || tr->egm.state != s))
            return base_fail(err, LCM_E_MODEL, "regime '%s': its target '%s' has no margin for '%s'", r->name, tr->name,
                            r->states[E->state].name);
        if (egm && (s < 0 || ir_marginal_state(tr) != s))
            return base_fail(err, LCM_E_MODEL, "regime '%s': its EGM target '%s' keeps no marginal value of '%s'", r->name,
                            tr->name, r->states[E->state].name);
    }
    return 0;
}

static int check_regime(ir_model *m, ir_regime *r, lcm_err *err)
{
    int nn = (int)r->nnodes;
    for (int i = 0; i < nn; ++i) {
        ir_node *n = &r->nodes[i];
        int ar = ir_ops[n->op].arity;
        if (ar >= 0 && n->nargs != ar)
            return base_fail(err, LCM_E_MODEL, "regime '%s': node %d (%s) has %d arguments, wants %d",
                            r->name, i, ir_ops[n->op].name, n->nargs, ar);
        for (int a = 0; a < n->nargs; ++a)
            if (n->args[a] < 0 || n->args[a] >= i)
                return base_fail(err, LCM_E_MODEL, "regime '%s': node %d argument %d out of order",
                                r->name, i, a);
        switch (n->op) {
        case OP_STATE:
            if (n->ref < 0 || n->ref >= r->nstates)
                return base_fail(err, LCM_E_MODEL, "regime '%s': node %d: no state %d", r->name, i, n->ref);
            break;
        case OP_ACTION:
            if (n->ref < 0 || n->ref >= r->nactions)
                return base_fail(err, LCM_E_MODEL, "regime '%s': node %d: no action %d", r->name, i, n->ref);
            break;
        case OP_PARAM:
        case OP_PIDX:
            if (n->ref < 0 || n->ref >= m->nparams)
                return base_fail(err, LCM_E_MODEL, "regime '%s': node %d: no parameter slot %d",
                                r->name, i, n->ref);
            if ((n->op == OP_PIDX) != (m->params[n->ref].ndims > 0) ||
                (n->op == OP_PIDX && n->nargs != m->params[n->ref].ndims))
                return base_fail(err, LCM_E_MODEL, "regime '%s': node %d: parameter '%s' indexed with %d indices, has %d dimensions",
                                r->name, i, m->params[n->ref].name, n->nargs, m->params[n->ref].ndims);
            break;
        case OP_STAGE:
        case OP_STAGE_OK: /* the generator's own (ir/eliminate.h), never traced */
            return base_fail(err, LCM_E_MODEL, "regime '%s': node %d: '%s' is not an operation of a model", r->name, i,
                            ir_ops[n->op].name);
        default:
            break;
        }
        if (is_bool_result(n->op))
            n->type = IR_BOOL;
        else if (n->op == OP_WHERE)
            n->type = r->nodes[n->args[1]].type == IR_BOOL && r->nodes[n->args[2]].type == IR_BOOL
                          ? IR_BOOL : IR_NUM;
        else
            n->type = IR_NUM;
    }
    int rc;
    if ((rc = check_node_ref(r, r->utility, nn, "utility", err))) return rc;
    if ((rc = check_node_ref(r, r->q, nn, "Q", err))) return rc;
    if (r->risk_aversion >= 0 && r->terminal)
        return base_fail(err, LCM_E_MODEL, "regime '%s' is terminal and has a risk aversion", r->name);
    if (r->risk_aversion >= 0 && (rc = check_node_ref(r, r->risk_aversion, nn, "the risk aversion", err))) return rc;
    for (int c = 0; c < r->nconstraints; ++c)
        if ((rc = check_node_ref(r, r->constraints[c].node, nn, "a constraint", err))) return rc;
    for (int f = 0; f < r->nfuncs; ++f)
        if ((rc = check_node_ref(r, r->funcs[f].node, nn, "a function", err))) return rc;
    if (r->taste_scale >= 0 && (rc = check_taste(r, nn, err))) return rc;
    if (ir_has_margin(r) && (rc = check_egm(m, r, nn, err))) return rc;
    if (r->margin_nodes < 0 || r->margin_nodes > nn || (r->margin_nodes && (ir_is_egm(r) || !ir_has_margin(r))))
        return base_fail(err, LCM_E_MODEL, "regime '%s': %d margin nodes of %d, %s", r->name, r->margin_nodes, nn,
                        ir_has_margin(r) ? "with EGM" : "without a margin");
    if (r->terminal_marginal && r->euler_marginal)
        return base_fail(err, LCM_E_MODEL, "regime '%s': a marginal value both kept and for the Euler errors alone",
                        r->name);
    if (ir_has_terminal_marginal(r) && (!r->terminal || r->nactions || r->marginal_state >= r->nstates ||
                                   grid_is_discrete(&r->states[r->marginal_state].grid) ||
                                   (rc = check_node_ref(r, r->marginal, nn, "the marginal value", err))))
        return rc ? rc : base_fail(err, LCM_E_MODEL, "regime '%s': a marginal value needs a terminal regime without "
                                  "actions and a continuous state", r->name);
    for (int g = 0; g < m->nregimes; ++g)
        if (r->rprob[g] >= 0 && (rc = check_node_ref(r, r->rprob[g], nn, "a regime probability", err)))
            return rc;
    for (int t = 0; t < r->ntargets; ++t) {
        ir_target *tg = &r->targets[t];
        if (tg->regime < 0 || tg->regime >= m->nregimes)
            return base_fail(err, LCM_E_MODEL, "regime '%s': target %d is not a regime", r->name, tg->regime);
        const ir_regime *tr = &m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_PROCESS) {
                if (tr->states[s].grid.kind != GRID_PROCESS ||
                    (nx->src >= 0 && (nx->src >= r->nstates || r->states[nx->src].grid.kind != GRID_PROCESS)))
                    return base_fail(err, LCM_E_MODEL, "regime '%s': bad process transition of '%s'", r->name,
                                    tr->states[s].name);
            } else if (nx->kind == NEXT_DET) {
                if ((rc = check_node_ref(r, nx->node, nn, "a next state", err))) return rc;
            } else {
                if (nx->nprobs != tr->states[s].grid.n)
                    return base_fail(err, LCM_E_MODEL,
                                    "regime '%s': Markov transition of '%s' has %d probabilities, the state has %d categories",
                                    r->name, tr->states[s].name, nx->nprobs, tr->states[s].grid.n);
                for (int j = 0; j < nx->nprobs; ++j)
                    if ((rc = check_node_ref(r, nx->probs[j], nn, "a transition probability", err))) return rc;
            }
        }
    }
    return 0;
}

static int check_grid_slots(const ir_model *m, const ir_var *v, int n, lcm_err *err)
{
    for (int i = 0; i < n; ++i) {
        const ir_grid *g = &v[i].grid;
        if (g->kind == GRID_IRREG && !g->points &&
            (g->points_slot < 0 || g->points_slot >= m->nparams || m->params[g->points_slot].size != (size_t)g->n))
            return base_fail(err, LCM_E_MODEL, "grid '%s': its run-time points need a parameter of %d values", v[i].name, g->n);
        for (int k = 0; k < g->nslots; ++k)
            if (g->slots[k] < 0 || g->slots[k] >= m->nparams || m->params[g->slots[k]].size != 1)
                return base_fail(err, LCM_E_MODEL, "process '%s': bad parameter slot", v[i].name);
        if (g->kind == GRID_AGE && g->nperiods != m->nperiods)
            return base_fail(err, LCM_E_MODEL, "grid '%s': %d grids by age for %d periods", v[i].name, g->nperiods,
                            m->nperiods);
    }
    return 0;
}

int ir_model_check(ir_model *m, lcm_err *err)
{
    if (m->nperiods <= 0) return base_fail(err, LCM_E_MODEL, "model has no ages");
    if (m->nregimes <= 0 || m->nregimes > IR_MAX_REGIMES)
        return base_fail(err, LCM_E_MODEL, "model has %d regimes (1..%d supported)", m->nregimes, IR_MAX_REGIMES);
    size_t off = 0;
    for (int i = 0; i < m->nparams; ++i) {
        ir_param *p = &m->params[i];
        p->size = 1;
        for (int d = 0; d < p->ndims; ++d) p->size *= (size_t)p->dims[d];
        p->offset = off;
        off += p->size;
    }
    m->params_size = off;
    for (int i = 0; i < m->nregimes; ++i) {
        const ir_regime *r = &m->regimes[i];
        int rc = check_regime(m, &m->regimes[i], err);
        if (!rc) rc = check_grid_slots(m, r->states, r->nstates, err);
        if (!rc) rc = check_grid_slots(m, r->actions, r->nactions, err);
        if (rc) return rc;
        for (int a = 0; a < r->nactions; ++a)
            if (r->actions[a].grid.kind == GRID_AGE)
                return base_fail(err, LCM_E_MODEL, "regime '%s': action '%s' has a grid by age; only states can",
                                r->name, r->actions[a].name);
    }
    return 0;
}

const ir_target *ir_target_of(const ir_regime *r, int g)
{
    for (int i = 0; i < r->ntargets; ++i)
        if (r->targets[i].regime == g) return &r->targets[i];
    return NULL;
}

size_t ir_most_nodes(const ir_model *m)
{
    size_t most = 1;
    for (int r = 0; r < m->nregimes; ++r)
        if (m->regimes[r].nnodes > most) most = m->regimes[r].nnodes;
    return most;
}
