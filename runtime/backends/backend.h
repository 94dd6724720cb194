/* backend.h - what the solve driver needs from a backend.
 *
 * Work is queued: kernels on queues (one per regime, so the regimes of a
 * period can run concurrently; queue `nregimes` is the root for uploads),
 * barriers between periods, copies in order with the kernels.  Host
 * backends (cpu, interp) run everything at once in host memory; the cuda
 * backend queues it on streams and can record a whole solve as a CUDA graph
 * and replay it.
 */
#ifndef LCM_BACKEND_H
#define LCM_BACKEND_H

#include <stdio.h>

#include "cache.h"
#include "ir.h"
#include "kernel_abi.h"

typedef struct lcm_backend lcm_backend;

#include "lcm_internal.h" /* LCM_TABLE_PASSES */

/* The symbol of pass `pass` of kernel `symbol`'s table: <symbol>_table, <symbol>_table1. */
static inline void be_table_symbol(const char *symbol, int pass, char *buf, size_t len)
{
    if (pass) snprintf(buf, len, "%s_table%d", symbol, pass);
    else snprintf(buf, len, "%s_table", symbol);
}

struct lcm_backend {
    const char *name;    /* "cpu", "interp", "cuda" */
    int precision;       /* 64 or 32: bytes per real = precision / 8 */
    int host_memory;     /* kernels run in host memory, synchronously */
    int compiled;        /* the kernels were compiled by this process */
    double compile_seconds;
    char *cache_entry;   /* where the compiled kernels lie in the cache, or NULL (not there) */
    char *target;        /* what the kernels were built for (device, arch), or NULL */
    size_t bytes_now, bytes_peak; /* backend memory in use (device backends) */
    double *stamp_at;    /* host backends: the stamps' times */
    size_t stamp_cap;

    /* Queues kernel k over flat states [0, n) on a queue. */
    int (*launch)(lcm_backend *b, int kernel, const lcm_kernel_args *args, lcm_index n, int queue, lcm_err *err);
    /* Optional (NULL: kernels compute their continuation inline): queues
     * pass `pass` of kernel k's tables over [0, n) (ir/precompute.h,
     * ir_pre_passes; entry symbol <k>_table, <k>_table1, ...), which reads
     * what the passes before wrote. */
    int (*launch_table)(lcm_backend *b, int kernel, int pass, const lcm_kernel_args *args, lcm_index n, int queue,
                        lcm_err *err);
    /* Queues the simulation step of kernel k over batch rows [0, n): it steps
     * those in its regime that have started (LCM_SIM_STEPS). */
    int (*launch_sim)(lcm_backend *b, int kernel, const lcm_kernel_args *args, const lcm_sim_args *sim, lcm_index n,
                      int queue, lcm_err *err);
    /* Optional (NULL: host backends, which record on the host): queues
     * lcm_sim_record (templates/sim_record.h) over rows [0, r->n) on the
     * root queue. */
    int (*launch_record)(lcm_backend *b, const lcm_record_args *r, lcm_err *err);
    /* Everything queued before runs before everything queued after. */
    int (*barrier)(lcm_backend *b, lcm_err *err);
    void *(*alloc)(lcm_backend *b, size_t bytes, lcm_err *err);
    void (*release)(lcm_backend *b, void *p);
    /* Queued copies; their host memory must stay valid until finish and be
     * from alloc_host for the copies to overlap with the kernels. */
    int (*upload)(lcm_backend *b, void *dst, const void *src, size_t bytes, int queue, lcm_err *err);
    int (*download)(lcm_backend *b, void *dst, const void *src, size_t bytes, int queue, lcm_err *err);
    void *(*alloc_host)(lcm_backend *b, size_t bytes, lcm_err *err);
    void (*release_host)(lcm_backend *b, void *p);
    /* Optional (NULL: host backends): the device's free and total memory
     * in bytes; 0, or non-zero when it cannot tell (memory.c). */
    int (*memory_info)(lcm_backend *b, size_t *free_bytes, size_t *total_bytes);
    /* Waits for everything queued. */
    int (*finish)(lcm_backend *b, lcm_err *err);
    /* Timing: stamp i is when everything queued before it has run;
     * stamp_seconds(i, j) is the time from stamp i to stamp j, valid after
     * finish (also in a replayed graph). */
    int (*stamp)(lcm_backend *b, int i, lcm_err *err);
    double (*stamp_seconds)(lcm_backend *b, int i, int j);
    /* Optional (NULL): record what is queued between begin and end as a
     * graph; replay queues it again (same pointers, current host data). */
    int (*capture_begin)(lcm_backend *b, lcm_err *err);
    int (*capture_end)(lcm_backend *b, lcm_err *err);
    int (*replay)(lcm_backend *b, lcm_err *err);
    /* Optional (NULL): the collectives of GPU workers (NCCL): join a
     * communicator of nranks (unique_id: NCCL_UNIQUE_ID_BYTES from rank 0),
     * then element-wise minimum of n int64 in backend memory, queued. */
    int (*join)(lcm_backend *b, const void *unique_id, int nranks, int rank, lcm_err *err);
    int (*allreduce_min_i64)(lcm_backend *b, void *buf, size_t n, lcm_err *err);
    void (*destroy)(lcm_backend *b);
};

/* Compiles `source` with the host compiler (or finds it in the cache). */
int be_backend_cpu_new(const ir_model *m, const char *source, int precision, lcm_cache *cache,
                        int threads, lcm_backend **out, lcm_err *err);
/* The IR interpreter as a backend: slow, float64 only, independent of the
 * generated code; the oracle of the differential tests. */
int be_backend_interp_new(const ir_model *m, lcm_backend **out, lcm_err *err);
/* NVRTC + the CUDA driver on GPU `device`. */
int be_backend_cuda_new(const ir_model *m, const char *source, int precision, lcm_cache *cache, int device,
                         lcm_backend **out, lcm_err *err);

/* The host-memory operations shared by the host backends, and what they
 * hold that their destroy must release. */
void be_host_backend_ops(lcm_backend *b);
void be_host_backend_release(lcm_backend *b);

#endif
