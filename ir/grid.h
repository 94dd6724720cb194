/* grid.h - grid points and where they live in the flat grid buffer.
 *
 * Every continuous grid of the model (states and actions of every regime)
 * has its points in one buffer `G` that the kernels read; lin and log grids
 * also have closed-form cell lookups baked into the code, but their point
 * values come from here, computed once in float64, so every backend and the
 * interpreter see exactly the same grid.
 */
#ifndef LCM_GRID_H
#define LCM_GRID_H

#include "ir.h"

/* Fills out[0..g->n-1]: points of a continuous grid, codes of a discrete one. */
void ir_grid_points(const ir_grid *g, double *out);

typedef struct ir_grid_layout {
    size_t total; /* doubles in the buffer */
    size_t *state_off[IR_MAX_REGIMES];
    size_t *action_off[IR_MAX_REGIMES];
} ir_grid_layout;

void ir_grid_layout_build(const ir_model *m, ir_grid_layout *L);
void ir_grid_layout_free(ir_grid_layout *L);
/* Fills G[0..L->total-1]. */
void ir_grid_buffer_fill(const ir_model *m, const ir_grid_layout *L, double *G);

#endif
