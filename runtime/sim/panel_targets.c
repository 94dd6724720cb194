/* panel_targets.c - extra panel columns (`--targets`): DAG functions of the
 * model evaluated on the simulated rows, at each row's state and chosen
 * action, by the IR interpreter (interp_point.c) with the solution's
 * parameters, grids and V (for functions of E_next_V), and for regimes with
 * taste shocks the conditional choice probabilities `ccp_<labels>` of each
 * combination of discrete actions at the row's state.  NaN where the row's
 * regime lacks the function or choice, or no action was feasible.  The
 * choice probabilities of a regime solved by EGM come from the simulation
 * itself (the panel's hidden columns: each choice's best Q as EGM found it,
 * and the scale): the interpreter searches the action grid, which EGM does
 * not use, so its choice-specific values would not be those the simulation
 * drew from. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "interp_point.h"
#include "panel.h"
#include "solver_internal.h"

/* The column of choice d of a regime with taste shocks: "ccp_" and the
 * labels of its discrete actions, joined by '_' ("ccp_work", "ccp_work_sell"). */
static char *ccp_name(const ir_regime *r, int d)
{
    int nd = ir_discrete_actions(r), stride = ir_taste_choices(r);
    lcm_sb b;
    base_sb_init(&b);
    base_sb_puts(&b, "ccp");
    for (int j = 0; j < nd; ++j) { /* row-major: the last discrete action fastest */
        stride /= r->actions[j].grid.n;
        base_sb_printf(&b, "_%s", r->actions[j].grid.labels[d / stride % r->actions[j].grid.n]);
    }
    return b.s;
}

static void add_name(char ***names, int *n, const char *name)
{
    for (int i = 0; i < *n; ++i)
        if (!strcmp((*names)[i], name)) return;
    *names = base_xrealloc(*names, (size_t)(*n + 1) * sizeof **names);
    (*names)[(*n)++] = base_xstrdup(name);
}

/* Whether the targets can hold regime r's choice probabilities: it has
 * taste shocks. */
static int has_ccp(const ir_regime *r) { return r->taste_scale >= 0; }

/* The model's function names, then the choice-probability columns of the
 * regimes of has_ccp, each once, in order of appearance. */
static int function_names(const ir_model *m, char ***out)
{
    int n = 0;
    char **names = NULL;
    for (int r = 0; r < m->nregimes; ++r)
        for (int f = 0; f < m->regimes[r].nfuncs; ++f) add_name(&names, &n, m->regimes[r].funcs[f].name);
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        for (int d = 0; has_ccp(R) && d < ir_taste_choices(R); ++d) {
            char *name = ccp_name(R, d);
            add_name(&names, &n, name);
            free(name);
        }
    }
    *out = names;
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; ++i) free(names[i]);
    free(names);
}

/* "a,b" or "all" -> the names (*names, *n), checked against the model's
 * functions. */
static int parse_targets(const ir_model *m, const char *spec, char ***names, int *n, lcm_err *err)
{
    char **all;
    int nall = function_names(m, &all), rc = 0;
    if (!strcmp(spec, "all")) {
        for (int i = 0; i < nall; ++i) add_name(names, n, all[i]);
        free_names(all, nall);
        return 0;
    }
    for (const char *at = spec; !rc;) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        char *name = base_xstrndup(at, len);
        int known = 0, twice = 0;
        for (int i = 0; i < nall; ++i) known |= !strcmp(all[i], name);
        for (int i = 0; i < *n; ++i) twice |= !strcmp((*names)[i], name);
        if (!*name) {
            rc = base_fail(err, LCM_E_USAGE, "--targets '%s': an empty name (a comma too many?)", spec);
        } else if (!known && !strcmp(name, "all")) {
            rc = base_fail(err, LCM_E_USAGE, "--targets '%s': 'all' stands alone (it means every function)", spec);
        } else if (!known || twice) {
            lcm_sb list;
            base_sb_init(&list);
            for (int i = 0; i < nall; ++i) base_sb_printf(&list, "%s%s", i ? ", " : "", all[i]);
            if (twice) rc = base_fail(err, LCM_E_USAGE, "--targets: '%s' is given twice", name);
            else rc = base_fail(err, LCM_E_USAGE, "--targets: the model has no function '%s' (its functions: %s; or "
                               "'all')", name, nall ? list.s : "none");
            base_sb_free(&list);
        } else add_name(names, n, name);
        free(name);
        if (!comma) break;
        at = comma + 1;
    }
    free_names(all, nall);
    return rc;
}

/* The targets of spec into *names (*n): parsed, and the model within the
 * bounds of the points the interpreter evaluates them at. */
static int read_targets(const ir_model *m, const char *spec, char ***names, int *n, lcm_err *err)
{
    for (int r = 0; r < m->nregimes; ++r) /* lcm_point's bounds */
        if (m->regimes[r].nstates > IR_POINT_VARS || m->regimes[r].nactions > IR_POINT_VARS)
            return base_fail(err, LCM_E_USAGE, "--targets: regime '%s' has more than %d states or actions",
                            m->regimes[r].name, IR_POINT_VARS);
    return parse_targets(m, spec, names, n, err);
}

int sim_targets_check(const ir_model *m, const char *spec, lcm_err *err)
{
    if (!spec || !*spec) return 0;
    char **names = NULL;
    int n = 0, rc = read_targets(m, spec, &names, &n, err);
    free_names(names, n);
    return rc;
}

typedef struct vnext_ctx {
    const lcm_solution *sol;
    int period; /* of V_{t+1} */
} vnext_ctx;

static double vnext_from_solution(const void *ctx, int regime, lcm_index i)
{
    const vnext_ctx *c = ctx;
    return lcm_solution_value(c->sol, c->period, regime, i);
}

/* The choice probability of choice d among vd[0, n) with scale `scale` and
 * smoothed value V: exp((vd[d] - V) / scale); at scale 0 the indicator of
 * the first choice of the largest vd (the plain argmax's). */
static double choice_prob(const double *vd, int n, double scale, double V, int d)
{
    if (scale != 0) return exp((vd[d] - V) / scale);
    int first = 0;
    for (int k = 1; k < n; ++k)
        if (vd[k] > vd[first]) first = k;
    return first == d;
}

/* The choice probabilities at the state in pt (a regime the interpreter
 * chooses in, by grid search): each choice's best Q v_d by the interpreter. */
static void choice_probs(lcm_point *pt, const int *col, double *out, size_t n)
{
    const ir_regime *r = pt->r;
    lcm_choices ch;
    ir_choices_reset(&ch, r);
    double vmax = -INFINITY;
    lcm_index best = -1;
    int nan_q = 0;
    for (lcm_index ai = 0; ai < ir_action_space_size(r); ++ai) {
        ir_point_action(pt, ai);
        ir_point_eval(pt);
        ch.scale = pt->vals[r->taste_scale];
        if (!pt->feasible) continue;
        if (pt->q != pt->q) nan_q = 1;
        else if (pt->q > vmax || best < 0) vmax = pt->q, best = ai;
        if (pt->q == pt->q) ir_choices_add(&ch, ai, pt->q);
    }
    double V = ir_choices_value(&ch, vmax);
    for (int d = 0; d < ch.n; ++d) {
        if (col[d] < 0) continue;
        double pr = ch.scale == 0 ? (double)(best >= 0 && best / ch.inner == d) : choice_prob(ch.v, ch.n, ch.scale, V, d);
        out[(size_t)col[d] * n] = nan_q || best < 0 ? NAN : pr;
    }
}

/* The choice probabilities of row k of a regime solved by EGM, from the
 * hidden columns the simulation wrote (each choice's best Q, then the
 * scale), V smoothed from them in double as the draw treats them (the
 * row's value, in the simulation's precision, says only whether there is
 * one: not where it is NaN or -inf). */
static void kept_choice_probs(const lcm_panel *p, const ir_regime *r, const int *col, lcm_index k, double *out,
                              size_t n)
{
    lcm_choices ch;
    ir_choices_reset(&ch, r);
    int first = p->vars.nactions;
    lcm_assert(ch.n + 1 <= p->nchoice);
    double vmax = -INFINITY;
    for (int d = 0; d < ch.n; ++d) ch.v[d] = p->act[first + d][k], vmax = fmax(vmax, ch.v[d]);
    ch.scale = p->act[first + ch.n][k];
    double V = ir_choices_value(&ch, vmax), have = p->value[k];
    for (int d = 0; d < ch.n; ++d)
        if (col[d] >= 0)
            out[(size_t)col[d] * n] = have == have && have > -INFINITY ? choice_prob(ch.v, ch.n, ch.scale, V, d) : NAN;
}

/* What the rows of a regime compute: each target's node (-1: the regime
 * lacks it), the target columns of its choices (ccp[d]: choice d's, or -1;
 * NULL: none asked for), and whether any of that reads the continuation
 * (else the row's functions are evaluated without it). */
typedef struct row_plan {
    int *node;
    int *ccp;
    int continuation;
} row_plan;

/* Whether node i of r reads E_next_V, for every node (nodes come after their arguments). */
static char *reads_continuation(const ir_regime *r)
{
    char *reads = base_xcalloc(r->nnodes + 1, 1);
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        reads[i] = n->op == OP_ENEXT;
        for (int a = 0; a < n->nargs; ++a) reads[i] |= reads[n->args[a]];
    }
    return reads;
}

static row_plan *row_plans(const lcm_panel *p, int **ccp)
{
    const ir_model *m = p->m;
    row_plan *plans = base_xcalloc((size_t)m->nregimes + 1, sizeof *plans);
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        row_plan *rp = &plans[r];
        char *reads = reads_continuation(R);
        rp->node = base_xcalloc((size_t)p->ntargets + 1, sizeof *rp->node);
        rp->ccp = ccp[r];
        rp->continuation = ccp[r] != NULL; /* the choices' probabilities: each choice's Q */
        for (int i = 0; i < p->ntargets; ++i) {
            rp->node[i] = -1;
            for (int f = 0; f < R->nfuncs; ++f)
                if (!strcmp(R->funcs[f].name, p->target_names[i])) rp->node[i] = R->funcs[f].node;
            if (rp->node[i] >= 0) rp->continuation |= reads[rp->node[i]];
        }
        free(reads);
    }
    return plans;
}

/* Fills row k's targets as plans[its regime] says. */
static void eval_row(lcm_panel *p, const lcm_solution *sol, const row_plan *plans, lcm_index k, double *vals)
{
    const ir_model *m = p->m;
    const ir_regime *r = &m->regimes[p->regime[k]];
    int t = p->period[k];
    double *out = p->targets + (size_t)k;
    size_t n = (size_t)p->n;
    for (int i = 0; i < p->ntargets; ++i) out[i * n] = NAN;
    vnext_ctx ctx = {sol, t + 1};
    lcm_point pt = {.m = m, .k = &m->kernels[m->period_kernel[r->id * m->nperiods + t]], .r = r, .L = &sol->layout,
                    .G = sol->grids, .params = sol->params, .vnext = vnext_from_solution, .vnext_ctx = &ctx,
                    .age = m->ages[t], .period = t, .vals = vals};
    for (int s = 0; s < r->nstates; ++s) pt.x[s] = p->x[p->vars.state_slot[r->id][s]][k];
    for (int a = 0; a < r->nactions; ++a) {
        pt.act[a] = p->act[p->vars.action_slot[r->id][a]][k];
        if (pt.act[a] != pt.act[a]) return; /* no feasible action: nothing was chosen */
    }
    const row_plan *rp = &plans[r->id];
    if (rp->continuation) ir_point_eval(&pt);
    else ir_point_eval_values(&pt);
    for (int i = 0; i < p->ntargets; ++i)
        if (rp->node[i] >= 0) out[i * n] = vals[rp->node[i]];
    if (rp->ccp && ir_is_egm(r)) kept_choice_probs(p, r, rp->ccp, k, out, n);
    else if (rp->ccp) choice_probs(&pt, rp->ccp, out, n); /* after the functions: it moves pt's action */
}

/* The target columns of each regime's choices (NULL for a regime without
 * taste shocks or whose choices are not asked for). */
static int **ccp_columns(const lcm_panel *p)
{
    int **ccp = base_xcalloc((size_t)p->m->nregimes + 1, sizeof *ccp);
    for (int r = 0; r < p->m->nregimes; ++r) {
        const ir_regime *R = &p->m->regimes[r];
        int nd = has_ccp(R) ? ir_taste_choices(R) : 0, any = 0;
        int *col = base_xcalloc((size_t)nd + 1, sizeof *col);
        for (int d = 0; d < nd; ++d) {
            char *name = ccp_name(R, d);
            col[d] = -1;
            for (int i = 0; i < p->ntargets; ++i)
                if (!strcmp(p->target_names[i], name)) col[d] = i, any = 1;
            free(name);
        }
        if (any) ccp[r] = col;
        else free(col);
    }
    return ccp;
}

int sim_targets_shape(const ir_model *m, const char *spec, int *choice_slots)
{
    *choice_slots = 0;
    if (!spec || !*spec) return 0;
    char **names = NULL;
    int n = 0;
    lcm_err err = {0};
    parse_targets(m, spec, &names, &n, &err); /* checked before (sim_targets_check): what parses counts */
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        int nd = has_ccp(R) && ir_is_egm(R) ? ir_taste_choices(R) : 0;
        for (int d = 0; d < nd; ++d) {
            char *own = ccp_name(R, d);
            for (int i = 0; i < n; ++i)
                if (!strcmp(names[i], own) && nd + 1 > *choice_slots) *choice_slots = nd + 1;
            free(own);
        }
    }
    free_names(names, n);
    return n;
}

int sim_panel_add_targets(lcm_panel *p, const lcm_solution *sol, const char *spec, lcm_err *err)
{
    int rc = read_targets(p->m, spec, &p->target_names, &p->ntargets, err);
    if (rc) return rc;
    /* every entry is written (eval_row); a panel of lcm_simulate_again
     * holds its block for as many rows as its columns hold, so that the
     * next simulation writes the same pages (sim_panel_renew) */
    size_t rows = p->keep ? p->rows_held : (size_t)p->n + 1, need = rows * (size_t)p->ntargets + 1;
    if (!p->targets || p->targets_held < need) {
        free(p->targets);
        p->targets = base_xmalloc_large(need * sizeof *p->targets);
        p->targets_held = need;
    }
    size_t most = ir_most_nodes(p->m);
    int **ccp = ccp_columns(p);
    row_plan *plans = row_plans(p, ccp);
#pragma omp parallel num_threads(base_host_threads(p->threads))
    {
        double *vals = base_xcalloc(most + 1, sizeof *vals);
#pragma omp for schedule(dynamic, 256)
        for (lcm_index k = 0; k < p->n; ++k) eval_row(p, sol, plans, k, vals);
        free(vals);
    }
    for (int r = 0; r < p->m->nregimes; ++r) free(ccp[r]), free(plans[r].node);
    free(ccp), free(plans);
    return 0;
}

double *sim_panel_add_column(lcm_panel *p, const char *name)
{
    size_t n = (size_t)p->n, need = (size_t)(p->ntargets + 1) * n + 1;
    if (p->targets_held < need) { /* the columns keep their places: n apart */
        p->targets = base_xrealloc(p->targets, need * sizeof *p->targets);
        p->targets_held = need;
    }
    p->target_names = base_xrealloc(p->target_names, (size_t)(p->ntargets + 1) * sizeof *p->target_names);
    p->target_names[p->ntargets] = base_xstrdup(name);
    return p->targets + (size_t)p->ntargets++ * n;
}
