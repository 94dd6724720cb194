/* comm.h - the ranks of an MPI job (`mpirun -np N lcm ...`), seen by the
 * solver: which block of the sharded states is this process's, and the few
 * collectives sharding needs (flags reduced across ranks, V and panels
 * gathered on rank 0, which writes the outputs).  Outside mpirun (or in a
 * build without MPI) there is one rank and every collective is a copy.
 */
#ifndef LCM_COMM_H
#define LCM_COMM_H

#include <stddef.h>

#include "base.h"

/* Joins the MPI job when the process was started by mpirun (its
 * environment says so); otherwise does nothing.  Returns 0 or fills err. */
int core_comm_init(int *argc, char ***argv, lcm_err *err);
void core_comm_finalize(void);
int core_comm_rank(void);
int core_comm_size(void);
int core_comm_local_rank(void); /* among the ranks of this machine (GPU choice) */

/* Element-wise minimum over the ranks, in place. */
int core_comm_min_i64(long long *v, size_t n, lcm_err *err);
/* Rank 0 receives every rank's bytes one after the other (*all, freed by
 * the caller; sizes[rank] bytes each); other ranks get *all = NULL. */
int core_comm_gather(const void *mine, size_t bytes, void **all, size_t *sizes, lcm_err *err);
/* Everyone gets rank 0's bytes. */
int core_comm_bcast(void *buf, size_t bytes, lcm_err *err);
/* "Open MPI v4.1.4", or NULL in a build without MPI. */
const char *core_comm_library(void);
/* Whether any rank failed, so that all ranks stop together: 0 when none
 * did, else the status of the lowest-numbered rank that failed, whose
 * message (err, when not NULL) every other rank receives ("rank k of the
 * MPI job: ..."), so that rank 0, which prints, says what went wrong. */
int core_comm_agree(int status, lcm_err *err);
/* Whether this process's failure went through core_comm_agree, so that
 * every rank knows and stops with it.  A failure that did not (one rank's
 * own, before the others' next collective) would leave them waiting in
 * that collective for ever: core_comm_abort ends the job instead. */
int core_comm_failure_agreed(void);
/* Ends every rank of the job with exit status `code` (MPI_Abort); returns
 * only outside an MPI job of several ranks. */
void core_comm_abort(int code);
/* Whether every rank holds the same `n` bytes as rank 0 (a digest of what
 * must be the same across the job: the model, the parameters): 0, or an
 * error naming `what` on the ranks that differ (LCM_E_USAGE), which
 * core_comm_agree then tells all.  A collective: every rank calls it. */
int core_comm_same(const void *bytes, size_t n, const char *what, lcm_err *err);

#endif
