/* grid.h - grid points and where they live in the flat grid buffer.
 *
 * Every continuous grid of the model (states and actions of every regime,
 * and the savings grid of a regime that solves by EGM) has its points in
 * one buffer `G` that the kernels read, followed for shock
 * processes by their transition matrix.  The buffer is computed in float64
 * at every solve from the parameters, because irregular grids may take
 * their points and processes their law from run-time parameters (changing
 * them recompiles nothing).  Lin, log and piecewise grids also have
 * closed-form cell lookups baked into the code, but their point values come
 * from here, so every backend and the interpreter see the same grid.
 *
 * A grid by age (lcm.by_age) has one row of points per period, one after
 * the other: its states at period t read row t, their next values are
 * placed on row t + 1 (ir_grid_at).
 */
#ifndef LCM_GRID_H
#define LCM_GRID_H

#include "ir.h"

/* Points of a grid at a period (codes for a discrete one); params is the
 * flat parameter buffer, needed by run-time grids and processes (with
 * `matrix` filled for processes when not NULL).  Returns 0, or 1 with `why`
 * filled when a run-time value is invalid. */
int ir_grid_points_p(const ir_model *m, const ir_grid *g, int period, const double *params, double *points,
                     double *matrix, char *why, size_t whylen);
/* Points of a grid fixed in the model (not run-time, not a process); a
 * grid by age at its first period. */
void ir_grid_points(const ir_grid *g, double *out);
/* Whether a grid's points depend on run-time parameters. */
int ir_grid_is_runtime(const ir_grid *g);
/* Whether two continuous grids have the same points whatever the
 * parameters (the same definition, or the same run-time points): a next
 * state that is an action on its own grid is then read at the action's
 * point, not sought (gen/emit_continuation.c).  Grids by age, processes
 * and discrete grids are never the same here. */
int ir_grid_same(const ir_grid *a, const ir_grid *b);
/* The effective bounds of a piece: an open end is the neighbouring double. */
void ir_piece_bounds(const ir_piece *p, double *start, double *stop);

typedef struct ir_grid_layout {
    size_t total; /* doubles in the buffer */
    size_t *state_off[IR_MAX_REGIMES];
    size_t *action_off[IR_MAX_REGIMES];
    size_t *matrix_off[IR_MAX_REGIMES]; /* process states: their n x n matrix */
    size_t *savings_off[IR_MAX_REGIMES]; /* EGM regimes: their savings grid (one entry), else NULL */
} ir_grid_layout;

void ir_grid_layout_build(const ir_model *m, ir_grid_layout *L);
/* The row of a grid by age that holds period t: t itself, the last row
 * for t past it (the next period of the last one is never read). */
static inline int ir_grid_row(const ir_grid *g, int t) { return t <= 0 ? 0 : t < g->nperiods ? t : g->nperiods - 1; }
/* Where the points of grid g (at offset off of the buffer) are at period t:
 * off itself but for a grid by age, whose row of t it is. */
static inline size_t ir_grid_at(const ir_grid *g, size_t off, int t)
{
    return g->kind == GRID_AGE ? off + (size_t)ir_grid_row(g, t) * (size_t)g->n : off;
}
void ir_grid_layout_free(ir_grid_layout *L);
/* Fills G[0..L->total-1] from the parameters; returns 0, or with `why`
 * naming the regime and grid: 1 when its run-time values are invalid, 2
 * when a grid of the model has points that are not finite and strictly
 * increasing in the solve's precision (single: float32). */
int ir_grid_buffer_fill(const ir_model *m, const ir_grid_layout *L, const double *params, int single, double *G,
                        char *why, size_t whylen);

#endif
