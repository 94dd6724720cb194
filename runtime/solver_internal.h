/* solver_internal.h - the structures behind the opaque handles of lcm.h. */
#ifndef LCM_SOLVER_INTERNAL_H
#define LCM_SOLVER_INTERNAL_H

#include "backend.h"
#include "cache.h"
#include "grid.h"
#include "lcm.h"

struct lcm_model {
    ir_model ir;
    char *source;
};

struct lcm_solver {
    const lcm_model *model;
    lcm_backend *backend;
    lcm_cache cache;
    ir_grid_layout layout;
    double *grids64;     /* the grid buffer of the current solve, float64 (from the parameters) */
    void *grids_host;    /* ... in the backend's precision, staged for upload */
    void *grids;         /* ... in the backend's memory */
    /* buffers of a solve, made by the first solve and reused */
    void *P, *P_host;    /* parameters: backend memory, host staging */
    void *F;             /* flags of every (period, regime) in backend memory */
    lcm_flags *F_host, *F_init;
    void *vbuf[2][IR_MAX_REGIMES]; /* device backends: V_t and V_{t+1} by regime */
    char *stage;         /* device backends: pinned copies of every finished V */
    size_t *stage_off, stage_bytes;
    int buffers_ready;   /* the buffers above are made */
    int captured;        /* the solve is recorded as a graph */
};

struct lcm_solution {
    const ir_model *m;
    int precision;
    void **V;            /* [period * nregimes + regime], NULL when inactive */
    lcm_index *n;        /* states per regime */
    double *grids;       /* the grid buffer the solve used (run-time grids, processes) */
    ir_grid_layout layout;
    double seconds;
};

/* "wealth=12.5, health=bad" for a flat state index of a regime, with the
 * grid values of a grid buffer. */
void lcm_describe_state(const ir_model *m, const ir_regime *r, lcm_index s, const double *G, const ir_grid_layout *L,
                        lcm_sb *out);

/* bytes of one real of a precision */
static inline size_t lcm_real_bytes(int precision) { return precision == 32 ? 4 : 8; }

#endif
