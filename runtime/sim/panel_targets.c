/* panel_targets.c - extra panel columns (`--targets`): DAG functions of the
 * model evaluated on the simulated rows, at each row's state and chosen
 * action, by the IR interpreter (interp_point.c) with the solution's
 * parameters, grids and V (for functions of E_next_V).  NaN where the
 * row's regime lacks the function or no action was feasible. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "interp_point.h"
#include "panel.h"
#include "solver_internal.h"

/* The model's function names, each once, in order of appearance. */
static int function_names(const ir_model *m, const char ***out)
{
    int n = 0;
    const char **names = NULL;
    for (int r = 0; r < m->nregimes; ++r)
        for (int f = 0; f < m->regimes[r].nfuncs; ++f) {
            const char *name = m->regimes[r].funcs[f].name;
            int seen = 0;
            for (int i = 0; i < n; ++i) seen |= !strcmp(names[i], name);
            if (!seen) names = lcm_xrealloc(names, (size_t)(n + 1) * sizeof *names), names[n++] = name;
        }
    *out = names;
    return n;
}

/* "a,b" or "all" -> the names, checked against the model's functions. */
static int parse_targets(lcm_panel *p, const char *spec, lcm_err *err)
{
    const char **all;
    int nall = function_names(p->m, &all), rc = 0;
    if (!strcmp(spec, "all")) {
        for (int i = 0; i < nall; ++i) {
            p->target_names = lcm_xrealloc(p->target_names, (size_t)(p->ntargets + 1) * sizeof *p->target_names);
            p->target_names[p->ntargets++] = lcm_xstrdup(all[i]);
        }
        free(all);
        return 0;
    }
    for (const char *at = spec; !rc;) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        char *name = lcm_xstrndup(at, len);
        int known = 0, twice = 0;
        for (int i = 0; i < nall; ++i) known |= !strcmp(all[i], name);
        for (int i = 0; i < p->ntargets; ++i) twice |= !strcmp(p->target_names[i], name);
        if (!known || twice) {
            lcm_sb list;
            lcm_sb_init(&list);
            for (int i = 0; i < nall; ++i) lcm_sb_printf(&list, "%s%s", i ? ", " : "", all[i]);
            if (twice) rc = lcm_fail(err, LCM_E_USAGE, "--targets: '%s' is given twice", name);
            else rc = lcm_fail(err, LCM_E_USAGE, "--targets: the model has no function '%s' (its functions: %s; or "
                               "'all')", name, nall ? list.s : "none");
            lcm_sb_free(&list);
            free(name);
            break;
        }
        p->target_names = lcm_xrealloc(p->target_names, (size_t)(p->ntargets + 1) * sizeof *p->target_names);
        p->target_names[p->ntargets++] = name;
        if (!comma) break;
        at = comma + 1;
    }
    free(all);
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

/* Fills row k's targets. */
static void eval_row(lcm_panel *p, const lcm_solution *sol, lcm_index k, double *vals)
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
    lcm_point_eval(&pt);
    for (int i = 0; i < p->ntargets; ++i)
        for (int f = 0; f < r->nfuncs; ++f)
            if (!strcmp(r->funcs[f].name, p->target_names[i])) out[i * n] = vals[r->funcs[f].node];
}

int lcm_panel_add_targets(lcm_panel *p, const lcm_solution *sol, const char *spec, lcm_err *err)
{
    int rc = parse_targets(p, spec, err);
    if (rc) return rc;
    for (int r = 0; r < p->m->nregimes; ++r)
        if (p->m->regimes[r].nstates > 64 || p->m->regimes[r].nactions > 64)
            return lcm_fail(err, LCM_E_USAGE, "--targets: regime '%s' has more than 64 states or actions",
                            p->m->regimes[r].name);
    p->targets = lcm_xcalloc((size_t)p->n * (size_t)p->ntargets + 1, sizeof *p->targets);
    size_t most = 1;
    for (int r = 0; r < p->m->nregimes; ++r)
        if (p->m->regimes[r].nnodes > most) most = p->m->regimes[r].nnodes;
#pragma omp parallel num_threads(p->threads > 0 ? p->threads : omp_get_max_threads())
    {
        double *vals = lcm_xcalloc(most + 1, sizeof *vals);
#pragma omp for schedule(dynamic, 256)
        for (lcm_index k = 0; k < p->n; ++k) eval_row(p, sol, k, vals);
        free(vals);
    }
    return 0;
}
