/* grid.c - see grid.h. */
#include "grid.h"

#include <math.h>
#include <stdlib.h>

void ir_grid_points(const ir_grid *g, double *out)
{
    int n = g->n;
    switch (g->kind) {
    case GRID_DISCRETE:
        for (int i = 0; i < n; ++i) out[i] = i;
        break;
    case GRID_LIN: {
        /* as numpy.linspace: start + i * step, the last point exactly stop */
        double step = (g->stop - g->start) / (n - 1);
        for (int i = 0; i < n; ++i) out[i] = g->start + i * step;
        out[n - 1] = g->stop;
        break;
    }
    case GRID_LOG: {
        double a = log(g->start), step = (log(g->stop) - a) / (n - 1);
        for (int i = 0; i < n; ++i) out[i] = exp(a + i * step);
        out[0] = g->start;
        out[n - 1] = g->stop;
        break;
    }
    case GRID_IRREG:
        for (int i = 0; i < n; ++i) out[i] = g->points[i];
        break;
    }
}

static size_t *layout_vars(const ir_var *v, int n, size_t *total)
{
    size_t *off = xcalloc((size_t)n + 1, sizeof *off);
    for (int i = 0; i < n; ++i) {
        off[i] = *total;
        if (!grid_is_discrete(&v[i].grid)) *total += (size_t)v[i].grid.n;
    }
    return off;
}

void ir_grid_layout_build(const ir_model *m, ir_grid_layout *L)
{
    L->total = 0;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        L->state_off[r] = layout_vars(R->states, R->nstates, &L->total);
        L->action_off[r] = layout_vars(R->actions, R->nactions, &L->total);
    }
}

void ir_grid_layout_free(ir_grid_layout *L)
{
    for (int r = 0; r < IR_MAX_REGIMES; ++r) {
        free(L->state_off[r]);
        free(L->action_off[r]);
        L->state_off[r] = L->action_off[r] = NULL;
    }
}

static void fill_vars(const ir_var *v, int n, const size_t *off, double *G)
{
    for (int i = 0; i < n; ++i)
        if (!grid_is_discrete(&v[i].grid)) ir_grid_points(&v[i].grid, G + off[i]);
}

void ir_grid_buffer_fill(const ir_model *m, const ir_grid_layout *L, double *G)
{
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        fill_vars(R->states, R->nstates, L->state_off[r], G);
        fill_vars(R->actions, R->nactions, L->action_off[r], G);
    }
}
