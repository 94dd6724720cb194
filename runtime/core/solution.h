/* solution.h - a solution: V (and the marginal values M of EGM regimes) of
 * every active period and regime, with the grids, parameters and check
 * flags of the solve that made it.  The solver's workers fill it
 * (solve/worker.c), its files read and write it (solution_io.c), the
 * simulation reads it. */
#ifndef LCM_SOLUTION_H
#define LCM_SOLUTION_H

#include "kernel_abi.h"
#include "grid.h"
#include "lcm_internal.h"

struct lcm_solution {
    const ir_model *m;
    int precision;
    void **V;            /* [period * nregimes + regime], NULL when inactive */
    void **M;            /* the same for regimes that keep a marginal value (ir_marginal_state): d V / d x
                          * of the liquid state x of the endogenous grid method; NULL for others */
    lcm_index *n;        /* states per regime */
    double *grids;       /* the grid buffer the solve used (run-time grids, processes) */
    double *params;      /* the parameter buffer the solve used */
    ir_grid_layout layout;
    lcm_flags *flags;    /* [period * nregimes + regime]: what the checks found */
    int shards;          /* workers that solved it (1: unsharded) */
    double seconds;
    const lcm_model *owner; /* held (core_model_retain) by the entry point that made it, or NULL */
};


/* A solution with V, grids and params allocated (V of active regimes only). */
lcm_solution *core_solution_alloc(const ir_model *m, int precision, lcm_err *err);

/* Clears n check-flag slots: nothing found, no first offender. */
void core_flags_clear(lcm_flags *f, size_t n);

/* bytes of one real of a precision */
static inline size_t core_real_bytes(int precision) { return precision == 32 ? 4 : 8; }

#endif
