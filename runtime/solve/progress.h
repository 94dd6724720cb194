/* progress.h - the progress callback of lcm.h (lcm_solver_options.progress)
 * as a solve or a simulation calls it: one run of it per solve or
 * simulation, told of each step done, and what a cancel returns.
 *
 * Only rank 0 of an MPI job tells its callback (the ranks solve blocks of
 * one problem, and the caller waits on rank 0, which writes the results);
 * a cancel there reaches the other ranks by the collectives that follow a
 * solve or simulation (core_comm_agree), so no rank waits for ever.
 */
#ifndef LCM_PROGRESS_H
#define LCM_PROGRESS_H

#include "ir.h"

typedef struct lcm_progress_run {
    lcm_progress_fn fn; /* NULL: nobody to tell (no callback, or not rank 0) */
    void *user;
    lcm_progress_info info; /* what the next call says: done counts up */
    const double *ages;     /* the model's, by period */
    double t0;
} lcm_progress_run;

/* A run of `what` (total steps) for model m with the solver's callback:
 * returns whether there is one to tell on this rank. */
int solve_progress_begin(lcm_progress_run *run, lcm_progress_fn fn, void *user, lcm_progress_kind what,
                       const ir_model *m, long long total);
/* The step of `period` is done: tells the callback (nothing without one);
 * 0, or LCM_E_CANCELLED in err when it asks to stop. */
int solve_progress_tell(lcm_progress_run *run, int period, lcm_err *err);

#endif
