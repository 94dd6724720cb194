/* comm.c - see comm.h.  MPI is used only when the build found it
 * (LCM_HAVE_MPI) and the process was started by mpirun. */
#include "comm.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LCM_HAVE_MPI
#include <mpi.h>

static int active, rank, size = 1, local_rank;
static int agreed; /* the last core_comm_agree found a failure: every rank knows */

/* mpirun (Open MPI, MPICH, PMIx launchers) leaves these behind. */
static int started_by_mpirun(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}

int core_comm_init(int *argc, char ***argv, lcm_err *err)
{
    if (active || !started_by_mpirun()) return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return base_fail(err, LCM_E_DEVICE, "MPI_Init failed");
    active = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_log_set_rank(rank);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    return 0;
}

void core_comm_finalize(void)
{
    if (active) MPI_Finalize();
    active = 0;
}

int core_comm_rank(void) { return rank; }
int core_comm_size(void) { return size; }
int core_comm_local_rank(void) { return local_rank; }

static int mpi_failed(const char *what, lcm_err *err) { return base_fail(err, LCM_E_DEVICE, "MPI: %s failed", what); }

int core_comm_min_i64(long long *v, size_t n, lcm_err *err)
{
    if (!active || size == 1) return 0;
    if (MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return mpi_failed("reducing the checks' flags", err);
    return 0;
}

int core_comm_gather(const void *mine, size_t bytes, void **all, size_t *sizes, lcm_err *err)
{
    *all = NULL;
    if (!active || size == 1) {
        *all = base_xmalloc(bytes + 1);
        memcpy(*all, mine, bytes);
        sizes[0] = bytes;
        return 0;
    }
    /* sizes first, then the bytes; counts go through int, so large
     * messages travel in units of 8 bytes */
    long long b = (long long)bytes, *counts = rank == 0 ? base_xcalloc((size_t)size, sizeof *counts) : NULL;
    if (MPI_Gather(&b, 1, MPI_LONG_LONG, counts, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(counts);
        return mpi_failed("gathering sizes", err);
    }
    int *ic = NULL, *displ = NULL;
    size_t total = 0;
    if (rank == 0) {
        ic = base_xcalloc((size_t)size, sizeof *ic), displ = base_xcalloc((size_t)size, sizeof *displ);
        for (int r = 0; r < size; ++r) {
            sizes[r] = (size_t)counts[r];
            ic[r] = (int)((counts[r] + 7) / 8);
            displ[r] = (int)(total / 8);
            total += (size_t)ic[r] * 8;
        }
        *all = base_xcalloc(total + 8, 1);
    }
    size_t words = (bytes + 7) / 8;
    char *send = base_xcalloc(words * 8 + 8, 1);
    memcpy(send, mine, bytes);
    int rc = MPI_Gatherv(send, (int)words, MPI_DOUBLE, *all, ic, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0 && rc == MPI_SUCCESS) { /* pack the parts back to back */
        size_t at = 0;
        for (int r = 0; r < size; ++r) {
            memmove((char *)*all + at, (char *)*all + (size_t)displ[r] * 8, sizes[r]);
            at += sizes[r];
        }
    }
    free(send), free(ic), free(displ), free(counts);
    if (rc != MPI_SUCCESS) {
        free(*all);
        *all = NULL;
        return mpi_failed("gathering results on rank 0", err);
    }
    return 0;
}

int core_comm_bcast(void *buf, size_t bytes, lcm_err *err)
{
    if (!active || size == 1) return 0;
    if (MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return mpi_failed("broadcasting", err);
    return 0;
}

const char *core_comm_library(void)
{
    static char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[strcspn(v, ",\n")] = 0; /* the first part: "Open MPI v4.1.4" */
    return v;
}

int core_comm_agree(int status, lcm_err *err)
{
    if (!active || size == 1) return status;
    int mine = status ? rank : size, first = mine;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size) return 0;
    agreed = 1;
    /* the first failing rank's status and message, for rank 0 to print */
    lcm_err said = {0};
    if (rank == first) {
        if (err) said = *err;
        said.code = status;
    }
    MPI_Bcast(&said, (int)sizeof said, MPI_BYTE, first, MPI_COMM_WORLD);
    if (rank != first && err) {
        err->code = said.code;
        snprintf(err->msg, sizeof err->msg, "rank %d of the MPI job: %.4000s", first,
                 said.msg[0] ? said.msg : "failed");
    }
    return said.code;
}

int core_comm_failure_agreed(void) { return !active || size == 1 || agreed; }

void core_comm_abort(int code)
{
    if (active && size > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

int core_comm_same(const void *bytes, size_t n, const char *what, lcm_err *err)
{
    if (!active || size == 1) return 0;
    unsigned char *first = base_xmalloc(n + 1);
    memcpy(first, bytes, n);
    int rc = MPI_Bcast(first, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS ? mpi_failed("broadcasting", err)
             : memcmp(first, bytes, n) ? base_fail(err, LCM_E_USAGE, "%s: not the same as on rank 0 (every rank of "
                                                  "the job must run the same command with the same files)", what)
                                       : 0;
    free(first);
    return rc;
}

#else /* built without MPI: one rank */

int core_comm_init(int *argc, char ***argv, lcm_err *err)
{
    (void)argc, (void)argv;
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK"))
        return base_fail(err, LCM_E_USAGE, "this lcm was built without MPI (install libopenmpi-dev and rebuild) "
                        "and cannot run under mpirun");
    return 0;
}
void core_comm_finalize(void) {}
int core_comm_rank(void) { return 0; }
int core_comm_size(void) { return 1; }
int core_comm_local_rank(void) { return 0; }
int core_comm_min_i64(long long *v, size_t n, lcm_err *err) { return (void)v, (void)n, (void)err, 0; }
int core_comm_gather(const void *mine, size_t bytes, void **all, size_t *sizes, lcm_err *err)
{
    (void)err;
    *all = base_xmalloc(bytes + 1);
    memcpy(*all, mine, bytes);
    sizes[0] = bytes;
    return 0;
}
int core_comm_bcast(void *buf, size_t bytes, lcm_err *err) { return (void)buf, (void)bytes, (void)err, 0; }
int core_comm_agree(int status, lcm_err *err) { return (void)err, status; }
int core_comm_failure_agreed(void) { return 1; }
void core_comm_abort(int code) { (void)code; }
int core_comm_same(const void *bytes, size_t n, const char *what, lcm_err *err)
{
    return (void)bytes, (void)n, (void)what, (void)err, 0;
}
const char *core_comm_library(void) { return NULL; }

#endif
