/* grid.c - see grid.h. */
#include "grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process.h"

static void linspace(double a, double b, int n, double *out)
{
    /* as numpy.linspace: a + i * step, the last point exactly b */
    double step = (b - a) / (n - 1);
    for (int i = 0; i < n; ++i) out[i] = a + i * step;
    out[n - 1] = b;
}

static void logspace(double a, double b, int n, double *out)
{
    double la = log(a), step = (log(b) - la) / (n - 1);
    for (int i = 0; i < n; ++i) out[i] = exp(la + i * step);
    out[0] = a;
    out[n - 1] = b;
}

void ir_piece_bounds(const ir_piece *p, double *start, double *stop)
{
    *start = p->lo_closed ? p->lo : nextafter(p->lo, INFINITY);
    *stop = p->hi_closed ? p->hi : nextafter(p->hi, -INFINITY);
}

int ir_grid_is_runtime(const ir_grid *g)
{
    return g->kind == GRID_PROCESS || (g->kind == GRID_IRREG && !g->points);
}

int ir_grid_points_p(const ir_model *m, const ir_grid *g, int period, const double *params, double *out,
                     double *matrix, char *why, size_t whylen)
{
    int n = g->n;
    switch (g->kind) {
    case GRID_AGE:
        return ir_grid_points_p(m, &g->periods[ir_grid_row(g, period)], period, params, out, matrix, why, whylen);
    case GRID_DISCRETE:
        for (int i = 0; i < n; ++i) out[i] = i;
        return 0;
    case GRID_LIN:
        linspace(g->start, g->stop, n, out);
        return 0;
    case GRID_LOG:
        logspace(g->start, g->stop, n, out);
        return 0;
    case GRID_PWLIN:
    case GRID_PWLOG:
        for (int k = 0, at = 0; k < g->npieces; at += g->pieces[k++].n) {
            double a, b;
            ir_piece_bounds(&g->pieces[k], &a, &b);
            (g->kind == GRID_PWLIN ? linspace : logspace)(a, b, g->pieces[k].n, out + at);
        }
        return 0;
    case GRID_IRREG: {
        const double *src = g->points ? g->points : params ? params + m->params[g->points_slot].offset : NULL;
        for (int i = 0; i < n; ++i) {
            out[i] = src ? src[i] : NAN;
            if (!src) continue;
            if (!isfinite(out[i])) {
                snprintf(why, whylen, "point %d is %g, not a finite number", i + 1, out[i]);
                return 1;
            }
            if (i > 0 && !(out[i] > out[i - 1])) {
                snprintf(why, whylen, "points must increase: point %d is %g after %g", i + 1, out[i], out[i - 1]);
                return 1;
            }
        }
        return 0;
    }
    case GRID_PROCESS: {
        double v[IR_PROCESS_MAX_PARAMS], *P = matrix ? matrix : malloc((size_t)n * n * sizeof *P);
        for (int i = 0; i < g->nslots; ++i) v[i] = params ? params[m->params[g->slots[i]].offset] : NAN;
        int rc = params ? ir_process_discretize((ir_process_kind)g->process, g->gauss_hermite, n, v, out, P, why, whylen)
                        : (memset(out, 0, (size_t)n * sizeof *out), 0);
        if (P != matrix) free(P);
        return rc;
    }
    }
    return 0;
}

void ir_grid_points(const ir_grid *g, double *out)
{
    char why[8];
    ir_grid_points_p(NULL, g, 0, NULL, out, NULL, why, sizeof why);
}

static size_t *layout_vars(const ir_var *v, int n, size_t *total, size_t **matrix_off)
{
    size_t *off = base_xcalloc((size_t)n + 1, sizeof *off);
    if (matrix_off) *matrix_off = base_xcalloc((size_t)n + 1, sizeof **matrix_off);
    for (int i = 0; i < n; ++i) {
        off[i] = *total;
        const ir_grid *g = &v[i].grid;
        if (!grid_is_discrete(g)) *total += (size_t)g->n * (size_t)(g->kind == GRID_AGE ? g->nperiods : 1);
        if (v[i].grid.kind == GRID_PROCESS && matrix_off) {
            (*matrix_off)[i] = *total;
            *total += (size_t)v[i].grid.n * (size_t)v[i].grid.n;
        }
    }
    return off;
}

void ir_grid_layout_build(const ir_model *m, ir_grid_layout *L)
{
    L->total = 0;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        L->state_off[r] = layout_vars(R->states, R->nstates, &L->total, &L->matrix_off[r]);
        L->action_off[r] = layout_vars(R->actions, R->nactions, &L->total, NULL);
        L->savings_off[r] = ir_is_egm(R) ? layout_vars(&R->egm.savings, 1, &L->total, NULL) : NULL;
    }
}

void ir_grid_layout_free(ir_grid_layout *L)
{
    for (int r = 0; r < IR_MAX_REGIMES; ++r) {
        free(L->state_off[r]);
        free(L->action_off[r]);
        free(L->matrix_off[r]);
        free(L->savings_off[r]);
        L->state_off[r] = L->action_off[r] = L->matrix_off[r] = L->savings_off[r] = NULL;
    }
}

/* Whether n points are finite and increasing in the solve's precision
 * (single: as the floats the kernels read).  A grid whose step is below the
 * precision's resolution (start 1, stop 1 + 1e-9 in float32) or whose span
 * overflows (start -1e308, stop 1e308) would otherwise solve to NaN far
 * from its cause.  Strictly increasing, but in float32 where the kernel
 * finds cells by search or by piece (piecewise, irregular grids): there an
 * open end of a piece, the double next to the boundary, becomes the
 * boundary's float, a cell of no width, which float32's lcm_frac
 * (templates/prelude.h) takes at t = 0; two such cells in a row (three
 * equal points) are refused.  0, or 1 with why. */
static int check_points(const double *x, int n, int single, int strict, char *why, size_t whylen)
{
    const char *in = single ? "float32" : "float64";
    for (int i = 0; i < n; ++i) {
        double v = single ? (double)(float)x[i] : x[i];
        if (!isfinite(v)) {
            snprintf(why, whylen, "point %d is %s in %s, not a finite number", i + 1, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf",
                     in);
            return 1;
        }
        double before = i < 1 ? -INFINITY : single ? (double)(float)x[i - 1] : x[i - 1];
        double twice = i < 2 ? -INFINITY : single ? (double)(float)x[i - 2] : x[i - 2];
        if (v < before) {
            snprintf(why, whylen, "point %d is %.9g in %s, below point %d (%.9g)", i + 1, v, in, i, before);
            return 1;
        }
        if (v == before && (strict || v == twice)) {
            snprintf(why, whylen, "points %d and %d are both %.9g in %s: its points are closer than the precision "
                     "resolves (a wider grid, fewer points%s)", i, i + 1, v, in, single ? " or --precision 64" : "");
            return 1;
        }
    }
    return 0;
}

static int fill_vars(const ir_model *m, const ir_regime *R, const ir_var *v, int n, const size_t *off,
                     const size_t *moff, const double *params, int single, double *G, char *why, size_t whylen)
{
    for (int i = 0; i < n; ++i) {
        if (grid_is_discrete(&v[i].grid)) continue;
        char inner[256] = "";
        double *matrix = v[i].grid.kind == GRID_PROCESS && moff ? G + moff[i] : NULL;
        int rows = v[i].grid.kind == GRID_AGE ? v[i].grid.nperiods : 1, bad = 0;
        for (int t = 0; t < rows && !bad; ++t) {
            const ir_grid *g = v[i].grid.kind == GRID_AGE ? &v[i].grid.periods[ir_grid_row(&v[i].grid, t)] : &v[i].grid;
            double *x = G + ir_grid_at(&v[i].grid, off[i], t);
            bad = ir_grid_points_p(m, &v[i].grid, t, params, x, matrix, inner, sizeof inner);
            /* a run-time grid without parameters has no points yet; a
             * process's nodes can overflow (mu = 1e308) */
            int located = g->kind == GRID_LIN || g->kind == GRID_LOG; /* cells by arithmetic alone */
            if (!bad && !(ir_grid_is_runtime(g) && !params) &&
                (check_points(x, g->n, 0, 1, inner, sizeof inner) ||
                 (single && check_points(x, g->n, 1, located, inner, sizeof inner))))
                bad = ir_grid_is_runtime(g) ? 1 : 2;
        }
        if (bad) {
            snprintf(why, whylen, "regime '%s', grid of '%s': %s", R->name, v[i].name, inner);
            return bad;
        }
    }
    return 0;
}

int ir_grid_buffer_fill(const ir_model *m, const ir_grid_layout *L, const double *params, int single, double *G,
                        char *why, size_t whylen)
{
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        int bad = fill_vars(m, R, R->states, R->nstates, L->state_off[r], L->matrix_off[r], params, single, G, why, whylen);
        if (!bad) bad = fill_vars(m, R, R->actions, R->nactions, L->action_off[r], NULL, params, single, G, why, whylen);
        if (!bad && ir_is_egm(R))
            bad = fill_vars(m, R, &R->egm.savings, 1, L->savings_off[r], NULL, params, single, G, why, whylen);
        if (bad) return bad;
    }
    /* an AR(1) process keeps its law across regimes: the source's points and
     * the target's matrix must describe the same process */
    for (int r = 0; r < m->nregimes && params; ++r) {
        const ir_regime *R = &m->regimes[r];
        for (int t = 0; t < R->ntargets; ++t) {
            const ir_target *tg = &R->targets[t];
            const ir_regime *T = &m->regimes[tg->regime];
            for (int s = 0; s < T->nstates; ++s) {
                const ir_next *nx = &tg->next[s];
                if (nx->kind != NEXT_PROCESS || nx->src < 0 || T == R) continue;
                size_t n = (size_t)T->states[s].grid.n;
                if (memcmp(G + L->state_off[r][nx->src], G + L->state_off[tg->regime][s], n * sizeof *G) ||
                    memcmp(G + L->matrix_off[r][nx->src], G + L->matrix_off[tg->regime][s], n * n * sizeof *G)) {
                    snprintf(why, whylen, "the AR(1) process '%s' differs between regimes '%s' and '%s' (its "
                             "parameters differ); a process keeps its law across regimes", T->states[s].name,
                             R->name, T->name);
                    return 1;
                }
            }
        }
    }
    return 0;
}

int ir_grid_same(const ir_grid *a, const ir_grid *b)
{
    if (a->kind != b->kind || a->n != b->n) return 0;
    switch (a->kind) {
    case GRID_LIN: case GRID_LOG: return a->start == b->start && a->stop == b->stop;
    case GRID_IRREG:
        if (a->points_slot >= 0 || b->points_slot >= 0) return a->points_slot == b->points_slot;
        return a->points && b->points && !memcmp(a->points, b->points, (size_t)a->n * sizeof *a->points);
    case GRID_PWLIN: case GRID_PWLOG:
        if (a->npieces != b->npieces) return 0;
        for (int k = 0; k < a->npieces; ++k) {
            const ir_piece *p = &a->pieces[k], *q = &b->pieces[k];
            if (p->lo != q->lo || p->hi != q->hi || p->lo_closed != q->lo_closed || p->hi_closed != q->hi_closed ||
                p->n != q->n)
                return 0;
        }
        return 1;
    default: return 0;
    }
}
