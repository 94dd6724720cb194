/* comm.h - the ranks of an MPI job (`mpirun -np N lcm ...`), seen by the
 * solver: which block of the sharded states is this process's, and the few
 * collectives sharding needs (flags reduced across ranks, V and panels
 * gathered on rank 0, which writes the outputs).  Outside mpirun (or in a
 * build without MPI) there is one rank and every collective is a copy.
 */
#ifndef LCM_COMM_H
#define LCM_COMM_H

#include <stddef.h>

#include "util.h"

/* Joins the MPI job when the process was started by mpirun (its
 * environment says so); otherwise does nothing.  Returns 0 or fills err. */
int lcm_comm_init(int *argc, char ***argv, lcm_err *err);
void lcm_comm_finalize(void);
int lcm_comm_rank(void);
int lcm_comm_size(void);
int lcm_comm_local_rank(void); /* among the ranks of this machine (GPU choice) */

/* Element-wise minimum over the ranks, in place. */
int lcm_comm_min_i64(long long *v, size_t n, lcm_err *err);
/* Rank 0 receives every rank's bytes one after the other (*all, freed by
 * the caller; sizes[rank] bytes each); other ranks get *all = NULL. */
int lcm_comm_gather(const void *mine, size_t bytes, void **all, size_t *sizes, lcm_err *err);
/* Everyone gets rank 0's bytes. */
int lcm_comm_bcast(void *buf, size_t bytes, lcm_err *err);
/* "Open MPI v4.1.4", or NULL in a build without MPI. */
const char *lcm_comm_library(void);
/* Whether any rank failed, so that all ranks stop together: 0 when none
 * did, else the status of the lowest-numbered rank that failed, whose
 * message (err, when not NULL) every other rank receives ("rank k of the
 * MPI job: ..."), so that rank 0, which prints, says what went wrong. */
int lcm_comm_agree(int status, lcm_err *err);

#endif
