/* solution.c - see solution.h: making and freeing a solution, and the
 * accessors of lcm.h. */
#include "solution.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

void core_flags_clear(lcm_flags *f, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        memset(&f[i], 0, sizeof *f);
        for (int b = 0; b < LCM_NFLAGS; ++b) f[i].first[b] = INT64_MAX;
    }
}

/* ---- solutions ------------------------------------------------------------ */
lcm_solution *core_solution_alloc(const ir_model *m, int precision, lcm_err *err)
{
    int R = m->nregimes, T = m->nperiods;
    lcm_solution *sol = base_xcalloc(1, sizeof *sol);
    sol->m = m;
    sol->precision = precision;
    sol->V = base_xcalloc((size_t)(R * T), sizeof *sol->V);
    sol->M = base_xcalloc((size_t)(R * T), sizeof *sol->M);
    sol->n = base_xcalloc((size_t)R, sizeof *sol->n);
    ir_grid_layout_build(m, &sol->layout);
    sol->grids = base_xcalloc(sol->layout.total + 1, sizeof *sol->grids);
    sol->params = base_xcalloc(m->params_size + 1, sizeof *sol->params);
    sol->flags = base_xcalloc((size_t)(R * T) + 1, sizeof *sol->flags);
    core_flags_clear(sol->flags, (size_t)(R * T));
    sol->shards = 1;
    size_t rb = core_real_bytes(precision);
    for (int r = 0; r < R; ++r) sol->n[r] = ir_state_space_size(&m->regimes[r]);
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r) {
            if (!m->regimes[r].active[t]) continue;
            int marginal = ir_marginal_state(&m->regimes[r]) >= 0;
            if (!(sol->V[t * R + r] = malloc((size_t)sol->n[r] * rb)) ||
                (marginal && !(sol->M[t * R + r] = malloc((size_t)sol->n[r] * rb)))) {
                base_fail(err, LCM_E_MEMORY, "out of host memory: V of regime '%s' at period %d needs %.1f MiB "
                         "(%lld states); a coarser grid or --precision 32 needs less", m->regimes[r].name, t,
                         (double)sol->n[r] * (double)rb / 1048576.0, (long long)sol->n[r]);
                lcm_solution_free(sol);
                return NULL;
            }
        }
    return sol;
}

void lcm_solution_free(lcm_solution *s)
{
    if (!s) return;
    for (int i = 0; i < s->m->nperiods * s->m->nregimes; ++i) free(s->V[i]), free(s->M[i]);
    free(s->V), free(s->M);
    free(s->n);
    free(s->grids);
    free(s->params);
    free(s->flags);
    ir_grid_layout_free(&s->layout);
    core_model_release(s->owner);
    free(s);
}

/* ---- accessors ------------------------------------------------------------- */
const void *lcm_solution_V(const lcm_solution *s, int t, int r, lcm_index *n)
{
    if (!s || t < 0 || t >= s->m->nperiods || r < 0 || r >= s->m->nregimes) return NULL;
    if (n) *n = s->n[r];
    return s->V[t * s->m->nregimes + r];
}

const double *lcm_solution_state_points(const lcm_solution *s, int t, int r, int k)
{
    if (!s || t < 0 || t >= s->m->nperiods || r < 0 || r >= s->m->nregimes || k < 0 || k >= s->m->regimes[r].nstates)
        return NULL;
    const ir_grid *g = &s->m->regimes[r].states[k].grid;
    return grid_is_discrete(g) ? NULL : s->grids + ir_grid_at(g, s->layout.state_off[r][k], t);
}

double lcm_solution_value(const lcm_solution *s, int t, int r, lcm_index i)
{
    const void *v = lcm_solution_V(s, t, r, NULL);
    if (!v || i < 0 || i >= s->n[r]) return 0.0 / 0.0;
    return s->precision == 32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

int lcm_solution_precision(const lcm_solution *s) { return s ? s->precision : 0; }
double lcm_solution_seconds(const lcm_solution *s) { return s ? s->seconds : 0.0 / 0.0; }
const ir_model *core_solution_model(const lcm_solution *s) { return s->m; }
