/* model.h - a loaded model: its IR and the generated texts it came from,
 * counted (core_model_retain / core_model_release in lcm_internal.h). */
#ifndef LCM_MODEL_H
#define LCM_MODEL_H

#include <stdatomic.h>

#include "grid.h"
#include "lcm_internal.h"

struct lcm_model {
    ir_model ir;
    char *manifest, *source; /* the generated texts (snapshots write them out) */
    atomic_int refs;         /* the caller's hold, and one for each solver, solution and panel made from it */
};

/* "wealth=12.5, health=bad" for a flat state index of a regime at a
 * period, with the grid values of a (whole) grid buffer. */
void core_describe_state(const ir_regime *r, lcm_index s, int period, const double *G, const ir_grid_layout *L,
                        lcm_sb *out);
/* The same for state values x[] (in the regime's state order; codes for
 * discrete states). */
void core_describe_values(const ir_regime *r, const double *x, lcm_sb *out);

#endif
