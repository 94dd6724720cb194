/* solver_internal.h - the structures behind the opaque handles of lcm.h. */
#ifndef LCM_SOLVER_INTERNAL_H
#define LCM_SOLVER_INTERNAL_H

#include "backend.h"
#include "cache.h"
#include "grid.h"
#include "lcm.h"

struct lcm_model {
    ir_model ir;
    char *manifest, *source; /* the generated texts (snapshots write them out) */
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
    char *log_path;      /* snapshots of failed checks go here (NULL: none) */
    int log_keep;        /* how many snapshots to keep */
    int captured;        /* the solve is recorded as a graph */
    int captured_checks; /* ... with the checks on (1) or off (0) */
};

struct lcm_solution {
    const ir_model *m;
    int precision;
    void **V;            /* [period * nregimes + regime], NULL when inactive */
    lcm_index *n;        /* states per regime */
    double *grids;       /* the grid buffer the solve used (run-time grids, processes) */
    double *params;      /* the parameter buffer the solve used */
    ir_grid_layout layout;
    double seconds;
};

/* The solution's HDF5 file with only the V arrays of include[t * nregimes + r]. */
int lcm_solution_write_h5_subset(const lcm_solution *s, const char *path, const unsigned char *include, lcm_err *err);

/* A solution with V, grids and params allocated (V of active regimes only). */
lcm_solution *lcm_solution_alloc(const ir_model *m, int precision, lcm_err *err);

/* "wealth=12.5, health=bad" for a flat state index of a regime, with the
 * grid values of a grid buffer. */
void lcm_describe_state(const ir_model *m, const ir_regime *r, lcm_index s, const double *G, const ir_grid_layout *L,
                        lcm_sb *out);
/* The same for state values x[] (in the regime's state order; codes for
 * discrete states). */
void lcm_describe_values(const ir_regime *r, const double *x, lcm_sb *out);

/* The buffers of a solve (parameters, flags, device V), made once per
 * solver and reused; a failure leaves none. */
int lcm_solver_buffers(lcm_solver *s, lcm_err *err);
/* Converts n doubles to a precision (64 or 32) into dst. */
void lcm_to_precision(const double *x, size_t n, int precision, void *dst);

/* bytes of one real of a precision */
static inline size_t lcm_real_bytes(int precision) { return precision == 32 ? 4 : 8; }

#endif
