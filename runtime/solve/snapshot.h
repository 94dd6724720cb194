/* snapshot.h - what a failed check leaves behind for later (`--log-path`).
 *
 * A snapshot is a directory <log_path>/lcm-snapshot-<date>-<time>-<pid>-<n>
 * holding everything needed to look at the failure again without the
 * original files:
 *   report.txt    the report (regime, period, age, state, the evaluation
 *                 of the failing point), the model, backend and precision
 *   model/        the generated model (manifest.lcm, kernels.c): a
 *                 directory `lcm solve` and `lcm simulate` open directly
 *   params.lua    the parameters of the run, as a params file
 *   V.h5          V of the failing period (and of the next, which it read)
 * Only the newest log_keep snapshots of log_path are kept.
 */
#ifndef LCM_SNAPSHOT_H
#define LCM_SNAPSHOT_H

#include "lcm_internal.h"

/* Where snapshots go and what they describe (the solver fills it in:
 * solve_solver_snapshot; the snapshot knows nothing of the solver). */
typedef struct lcm_snapshot_place {
    const char *log_path;   /* NULL: no snapshots */
    int log_keep;           /* the newest this many are kept */
    const ir_model *m;
    const char *manifest, *source; /* the generated model, written out whole */
    const char *backend;
    int precision;
} lcm_snapshot_place;

/* Writes a snapshot of a failure at period t; include[t' * nregimes + r]
 * marks the V arrays of sol to save.  A snapshot that cannot be written
 * is a warning, never an error of its own: the failure is what matters. */
void solve_snapshot_write(const lcm_snapshot_place *at, const lcm_solution *sol, const double *params,
                        const unsigned char *include, const char *report);

#endif
