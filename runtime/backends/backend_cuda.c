/* backend_cuda.c - the generated kernels on an NVIDIA GPU: compiled by
 * NVRTC for the device's architecture (cuda_compile.c), loaded and run
 * through the driver API.
 *
 * Launch shape: the blockDim.x lanes of a state split the kernel's largest
 * action axis, blockDim.y states share a block of 128 threads (one state
 * per block when more than 32 lanes).  Lanes are doubled while the device
 * is not full (states x lanes below twice its resident threads) and the axis
 * has work for them: a model with few states and many actions still fills
 * the GPU, a large state space runs one thread per state.
 *
 * Queues are streams (one per regime plus a root for uploads); a barrier
 * records an event on each stream that worked since the last one and makes
 * every stream wait on them.  A solve can be recorded with stream capture
 * and replayed as one graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_api.h"
#include "cuda_compile.h"
#include "eliminate.h"
#include "log.h"
#include "precompute.h"
#include "shard.h"
#include "vars.h"

#ifdef LCM_HAVE_CUDA

typedef struct allocation {
    CUdeviceptr p;
    size_t bytes;
} allocation;

typedef struct cuda_backend {
    lcm_backend base;
    const lcm_cu_api *cu;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    int nkernels;
    CUfunction *fns, *sim_fns; /* each kernel's solve and simulation entries */
    CUfunction record_fn;      /* lcm_sim_record (templates/sim_record.h) */
    CUfunction *table_fns;     /* [k * LCM_TABLE_PASSES + pass]: its table's passes, or NULL (ir/precompute.h) */
    int *table_block;          /* ... their threads per block */
    CUfunction *terms_fns;     /* each kernel's <symbol>_terms, or NULL: it has no action terms */
    void **terms;              /* ... the buffer they fill */
    int *nterms;               /* ... of ir_kernel nterms reals */
    int *par_n;      /* points of each kernel's split action axis (1: none) */
    int *max_block;  /* threads per block each kernel (both entries) can launch with */
    int nqueues;
    CUstream *streams;
    CUevent *events;
    CUevent *stamps; /* timing events, made as stamps ask for them */
    int nstamps;
#ifdef LCM_HAVE_NCCL
    const lcm_nccl_api *nc;
    ncclComm_t nccl; /* the communicator of the job's GPU workers, or NULL */
#endif
    char *dirty;     /* the queue worked since the last barrier */
    int resident;    /* threads the device holds at once */
    CUgraph graph;
    CUgraphExec exec;
    int capturing;
    allocation *allocs;
    size_t nallocs, cap;
    char name[256];
} cuda_backend;

static int check(cuda_backend *b, CUresult r, const char *what, lcm_err *err)
{
    if (r == CUDA_SUCCESS) return 0;
    return base_fail(err, LCM_E_DEVICE, "CUDA on %s: %s failed: %s", b->name, what, be_cu_error(r));
}

#define CU(call, what)                                              \
    do {                                                            \
        int rc_ = check(b, b->cu->call, what, err);                 \
        if (rc_) return rc_;                                        \
    } while (0)

static void current(cuda_backend *b) { b->cu->cuCtxSetCurrent(b->ctx); }

/* ---- memory ------------------------------------------------------------------ */
static void *cuda_alloc(lcm_backend *base, size_t bytes, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    CUdeviceptr p = 0;
    CUresult r = b->cu->cuMemAlloc(&p, bytes ? bytes : 1);
    if (r != CUDA_SUCCESS) {
        size_t free_b = 0, total = 0;
        b->cu->cuMemGetInfo(&free_b, &total);
        base_fail(err, r == CUDA_ERROR_OUT_OF_MEMORY ? LCM_E_MEMORY : LCM_E_DEVICE,
                 "out of device memory on %s: %.1f MiB wanted, %.1f of %.1f MiB free (%s)", b->name,
                 (double)bytes / 1048576.0, (double)free_b / 1048576.0, (double)total / 1048576.0, be_cu_error(r));
        return NULL;
    }
    LCM_GROW(b->allocs, b->cap, b->nallocs + 1);
    b->allocs[b->nallocs++] = (allocation){p, bytes};
    base->bytes_now += bytes;
    if (base->bytes_now > base->bytes_peak) base->bytes_peak = base->bytes_now;
    return (void *)(uintptr_t)p;
}

static void cuda_release(lcm_backend *base, void *ptr)
{
    cuda_backend *b = (cuda_backend *)base;
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
    for (size_t i = 0; i < b->nallocs; ++i)
        if (b->allocs[i].p == p) {
            base->bytes_now -= b->allocs[i].bytes;
            b->allocs[i] = b->allocs[--b->nallocs];
            break;
        }
    current(b);
    b->cu->cuMemFree(p);
}

static int cuda_memory_info(lcm_backend *base, size_t *free_bytes, size_t *total_bytes)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    return b->cu->cuMemGetInfo(free_bytes, total_bytes) != CUDA_SUCCESS;
}

static void *cuda_alloc_host(lcm_backend *base, size_t bytes, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    void *p = NULL;
    CUresult r = b->cu->cuMemHostAlloc(&p, bytes ? bytes : 1, 0);
    if (r != CUDA_SUCCESS) {
        base_fail(err, LCM_E_MEMORY, "cannot pin %.1f MiB of host memory for %s (%s)", (double)bytes / 1048576.0,
                 b->name, be_cu_error(r));
        return NULL;
    }
    return p;
}

static void cuda_release_host(lcm_backend *base, void *p)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    b->cu->cuMemFreeHost(p);
}

static int cuda_upload(lcm_backend *base, void *dst, const void *src, size_t bytes, int queue, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    b->dirty[queue] = 1;
    CU(cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, bytes, b->streams[queue]), "copying to the device");
    return 0;
}

static int cuda_download(lcm_backend *base, void *dst, const void *src, size_t bytes, int queue, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    b->dirty[queue] = 1;
    CU(cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, bytes, b->streams[queue]), "copying from the device");
    return 0;
}

/* ---- work ------------------------------------------------------------------- */
/* Launches fn over n states (or subjects) on a queue.  blockDim.x lanes
 * split the kernel's action axis: a power of two, at most the axis needs,
 * at most the kernel's threads per block (which its registers may hold
 * below 1024), and only as many as it takes to fill the device; blockDim.y
 * states per block. */
static int launch_on(cuda_backend *b, CUfunction fn, int kernel, lcm_index n, void **params, int queue, lcm_err *err)
{
    if (n <= 0) return 0;
    current(b);
    unsigned cap = 1, lanes = 1;
    while (cap < (unsigned)b->par_n[kernel] && cap * 2 <= (unsigned)b->max_block[kernel] && cap < 1024) cap *= 2;
    while (lanes < cap && (double)n * lanes < 2.0 * b->resident) lanes *= 2;
    unsigned per_block = lanes > 32 ? 1 : 128 / lanes, blocks = (unsigned)((n + per_block - 1) / per_block);
    b->dirty[queue] = 1;
    CU(cuLaunchKernel(fn, blocks, 1, 1, lanes, per_block, 1, 0, b->streams[queue], params, NULL), "launching a kernel");
    return 0;
}

/* Queues <symbol>_terms of a kernel that has action terms (emit.c,
 * "action terms") ahead of its launch on the same queue, and points the
 * launch's arguments at them. */
static int queue_terms(cuda_backend *b, int kernel, lcm_kernel_args *a, int queue, lcm_err *err)
{
    if (!b->terms_fns[kernel]) return 0;
    a->terms = b->terms[kernel];
    void *params[] = {a};
    unsigned threads = 128, blocks = (unsigned)((b->nterms[kernel] + threads - 1) / threads);
    current(b);
    b->dirty[queue] = 1;
    CU(cuLaunchKernel(b->terms_fns[kernel], blocks, 1, 1, threads, 1, 1, 0, b->streams[queue], params, NULL),
       "launching a kernel's action terms");
    return 0;
}

static int cuda_launch(lcm_backend *base, int kernel, const lcm_kernel_args *args, lcm_index n, int queue,
                       lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    lcm_kernel_args a = *args;
    lcm_index s_begin = 0, s_end = n;
    void *params[] = {&a, &s_begin, &s_end};
    int rc = n > 0 ? queue_terms(b, kernel, &a, queue, err) : 0;
    return rc ? rc : launch_on(b, b->fns[kernel], kernel, n, params, queue, err);
}

/* One thread per table entry (or EGM block), in blocks of up to 128. */
static int cuda_launch_table(lcm_backend *base, int kernel, int pass, const lcm_kernel_args *args, lcm_index n,
                             int queue, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    int at = kernel * LCM_TABLE_PASSES + pass;
    if (pass < 0 || pass >= LCM_TABLE_PASSES || !b->table_fns[at])
        return base_fail(err, LCM_E_COMPILE, "the compiled solver has no table entry for kernel %d; regenerate the model",
                        kernel);
    if (n <= 0) return 0;
    current(b);
    lcm_kernel_args a = *args;
    lcm_index count = n;
    void *params[] = {&a, &count};
    unsigned threads = (unsigned)b->table_block[at], blocks = (unsigned)((n + threads - 1) / threads);
    b->dirty[queue] = 1;
    CU(cuLaunchKernel(b->table_fns[at], blocks, 1, 1, threads, 1, 1, 0, b->streams[queue], params, NULL),
       "launching a continuation table");
    return 0;
}

static int cuda_launch_sim(lcm_backend *base, int kernel, const lcm_kernel_args *args, const lcm_sim_args *sim,
                           lcm_index n, int queue, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    lcm_kernel_args a = *args;
    lcm_sim_args s = *sim;
    lcm_index count = n;
    void *params[] = {&a, &s, &count};
    int rc = n > 0 ? queue_terms(b, kernel, &a, queue, err) : 0;
    return rc ? rc : launch_on(b, b->sim_fns[kernel], kernel, n, params, queue, err);
}

static int cuda_launch_record(lcm_backend *base, const lcm_record_args *r, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    if (r->n <= 0) return 0;
    current(b);
    lcm_record_args a = *r;
    void *params[] = {&a};
    unsigned threads = 256, blocks = (unsigned)((r->n + threads - 1) / threads);
    int root = b->nqueues - 1;
    b->dirty[root] = 1;
    CU(cuLaunchKernel(b->record_fn, blocks, 1, 1, threads, 1, 1, 0, b->streams[root], params, NULL),
       "launching the simulation's record");
    return 0;
}

static int cuda_barrier(lcm_backend *base, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    for (int q = 0; q < b->nqueues; ++q) {
        if (!b->dirty[q]) continue;
        CU(cuEventRecord(b->events[q], b->streams[q]), "recording an event");
        for (int w = 0; w < b->nqueues; ++w)
            if (w != q) CU(cuStreamWaitEvent(b->streams[w], b->events[q], 0), "ordering streams");
        b->dirty[q] = 0;
    }
    return 0;
}

static int cuda_finish(lcm_backend *base, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    int rc = cuda_barrier(base, err);
    for (int q = 0; q < b->nqueues && !rc; ++q) rc = check(b, b->cu->cuStreamSynchronize(b->streams[q]), "running the solve", err);
    return rc;
}

static int cuda_stamp(lcm_backend *base, int i, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    if (i >= b->nstamps) {
        b->stamps = base_xrealloc(b->stamps, (size_t)(i + 1) * sizeof *b->stamps);
        for (; b->nstamps <= i; ++b->nstamps) {
            b->stamps[b->nstamps] = NULL;
            CU(cuEventCreate(&b->stamps[b->nstamps], 0), "creating a timing event");
        }
    }
    /* In a capture a plain record only marks a point for other streams to
     * wait on: it puts no record into the graph, so a replay never records
     * the event and cuEventElapsedTime fails (CUDA_ERROR_INVALID_VALUE).
     * An external record becomes a node of the graph: each replay records
     * it on the root stream, after the period's barrier. */
    if (b->capturing)
        CU(cuEventRecordWithFlags(b->stamps[i], b->streams[b->nqueues - 1], CU_EVENT_RECORD_EXTERNAL),
           "recording a timing event");
    else
        CU(cuEventRecord(b->stamps[i], b->streams[b->nqueues - 1]), "recording a timing event");
    return 0;
}

static double cuda_stamp_seconds(lcm_backend *base, int i, int j)
{
    cuda_backend *b = (cuda_backend *)base;
    float ms = 0;
    current(b);
    if (i >= b->nstamps || j >= b->nstamps || b->cu->cuEventElapsedTime(&ms, b->stamps[i], b->stamps[j]) != CUDA_SUCCESS)
        return 0.0 / 0.0;
    return ms / 1000.0;
}

#ifdef LCM_HAVE_NCCL
static int nccl_check(cuda_backend *b, ncclResult_t r, const char *what, lcm_err *err)
{
    if (r == ncclSuccess) return 0;
    return base_fail(err, LCM_E_DEVICE, "NCCL on %s: %s failed: %s", b->name, what, b->nc->ncclGetErrorString(r));
}

static int cuda_join(lcm_backend *base, const void *unique_id, int nranks, int rank, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    if (!(b->nc = be_nccl(err))) return err->code;
    current(b);
    ncclUniqueId id;
    memcpy(&id, unique_id, sizeof id);
    return nccl_check(b, b->nc->ncclCommInitRank(&b->nccl, nranks, id, rank), "joining the workers", err);
}

static int cuda_allreduce_min_i64(lcm_backend *base, void *buf, size_t n, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    int root = b->nqueues - 1;
    b->dirty[root] = 1;
    return nccl_check(b, b->nc->ncclAllReduce(buf, buf, n, ncclInt64, ncclMin, b->nccl, (cudaStream_t)b->streams[root]),
                      "reducing the checks' flags", err);
}
#endif

static void drop_graph(cuda_backend *b)
{
    if (b->exec) b->cu->cuGraphExecDestroy(b->exec);
    if (b->graph) b->cu->cuGraphDestroy(b->graph);
    b->exec = NULL, b->graph = NULL;
}

static int cuda_capture_begin(lcm_backend *base, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    int root = b->nqueues - 1;
    /* order earlier work first: a capturing stream may not wait on events
     * recorded outside the capture */
    int rc = cuda_barrier(base, err);
    if (rc) return rc;
    drop_graph(b);
    CU(cuStreamBeginCapture(b->streams[root], CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "recording a graph");
    b->capturing = 1;
    /* every stream joins the capture by waiting on the root */
    b->dirty[root] = 1;
    return cuda_barrier(base, err);
}

static int cuda_capture_end(lcm_backend *base, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    lcm_err ignored;
    if (!err) err = &ignored; /* ending a failed capture: only clean up */
    current(b);
    int root = b->nqueues - 1, rc = 0;
    /* every stream joins back into the root */
    for (int q = 0; q < root && !rc; ++q) {
        rc = check(b, b->cu->cuEventRecord(b->events[q], b->streams[q]), "recording an event", err);
        if (!rc) rc = check(b, b->cu->cuStreamWaitEvent(b->streams[root], b->events[q], 0), "ordering streams", err);
    }
    CUgraph g = NULL;
    CUresult r = b->cu->cuStreamEndCapture(b->streams[root], &g);
    b->capturing = 0;
    memset(b->dirty, 0, (size_t)b->nqueues);
    if (err == &ignored) rc = 1; /* the queued work failed: keep nothing */
    if (!rc) rc = check(b, r, "recording a graph", err);
    if (!rc) rc = check(b, b->cu->cuGraphInstantiate(&b->exec, g, 0), "instantiating a graph", err);
    if (rc) {
        if (g) b->cu->cuGraphDestroy(g);
        b->exec = NULL;
    } else {
        b->graph = g;
    }
    return rc;
}

static int cuda_replay(lcm_backend *base, lcm_err *err)
{
    cuda_backend *b = (cuda_backend *)base;
    current(b);
    int root = b->nqueues - 1;
    CU(cuGraphLaunch(b->exec, b->streams[root]), "replaying the solve graph");
    b->dirty[root] = 1;
    return 0;
}

static void cuda_destroy(lcm_backend *base)
{
    cuda_backend *b = (cuda_backend *)base;
    if (b->ctx) {
        current(b);
#ifdef LCM_HAVE_NCCL
        if (b->nccl) b->nc->ncclCommDestroy(b->nccl);
#endif
        drop_graph(b);
        for (int q = 0; q < b->nqueues; ++q) {
            if (b->streams && b->streams[q]) b->cu->cuStreamDestroy(b->streams[q]);
            if (b->events && b->events[q]) b->cu->cuEventDestroy(b->events[q]);
        }
        for (int i = 0; i < b->nstamps; ++i)
            if (b->stamps[i]) b->cu->cuEventDestroy(b->stamps[i]);
        for (size_t i = 0; i < b->nallocs; ++i) b->cu->cuMemFree(b->allocs[i].p);
        if (b->mod) b->cu->cuModuleUnload(b->mod);
        b->cu->cuDevicePrimaryCtxRelease(b->dev);
    }
    free(b->streams), free(b->events), free(b->stamps), free(b->dirty), free(b->fns), free(b->sim_fns);
    free(b->par_n), free(b->max_block), free(b->table_fns), free(b->table_block), free(b->terms_fns), free(b->terms);
    free(b->nterms);
    free(b->allocs), free(base->cache_entry), free(base->target);
    free(b);
}

static int open_device(cuda_backend *b, int device, lcm_err *err)
{
    const lcm_cu_api *cu = b->cu;
    int count = 0;
    snprintf(b->name, sizeof b->name, "GPU %d", device);
    CU(cuDeviceGetCount(&count), "counting GPUs");
    if (count == 0) return base_fail(err, LCM_E_DEVICE, "no CUDA GPU is visible (CUDA_VISIBLE_DEVICES?)");
    if (device < 0 || device >= count)
        return base_fail(err, LCM_E_USAGE, "--device %d: there %s %d GPU%s (0..%d)", device, count == 1 ? "is" : "are",
                        count, count == 1 ? "" : "s", count - 1);
    CU(cuDeviceGet(&b->dev, device), "opening the GPU");
    char name[200] = "";
    cu->cuDeviceGetName(name, (int)sizeof name, b->dev);
    snprintf(b->name, sizeof b->name, "GPU %d (%s)", device, name);
    CU(cuDevicePrimaryCtxRetain(&b->ctx, b->dev), "creating a context");
    current(b);
    int sms = 0, per_sm = 0;
    cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, b->dev);
    cu->cuDeviceGetAttribute(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, b->dev);
    b->resident = sms * per_sm > 0 ? sms * per_sm : 65536;
    return 0;
}

/* Compiles the kernels for the device's architecture (or takes them from
 * the cache) and loads them. */
static int load_module(cuda_backend *b, const ir_model *m, const char *source, int precision, lcm_cache *cache,
                       lcm_err *err)
{
    const lcm_cu_api *cu = b->cu;
    int major = 0, minor = 0;
    cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, b->dev);
    cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, b->dev);
    lcm_cuda_image img = {0};
    int rc = be_cuda_compile(m, source, major * 10 + minor, precision, cache, &img, err);
    if (!rc) {
        b->base.compiled = img.compiled;
        b->base.compile_seconds = img.seconds;
        b->base.cache_entry = img.cache_entry, img.cache_entry = NULL;
        b->base.target = base_xasprintf("%s, %s", b->name, img.target);
        rc = check(b, cu->cuModuleLoadData(&b->mod, img.data), "loading the compiled solver", err);
    }
    be_cuda_image_free(&img);
    return rc;
}

/* The kernels' entry points in the module and their block sizes. */
static int find_kernels(cuda_backend *b, const ir_model *m, lcm_err *err)
{
    const lcm_cu_api *cu = b->cu;
    b->nkernels = m->nkernels;
    b->fns = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->fns);
    b->sim_fns = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->sim_fns);
    b->par_n = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->par_n);
    b->max_block = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->max_block);
    b->table_fns = base_xcalloc((size_t)m->nkernels * LCM_TABLE_PASSES + 1, sizeof *b->table_fns);
    b->table_block = base_xcalloc((size_t)m->nkernels * LCM_TABLE_PASSES + 1, sizeof *b->table_block);
    b->terms_fns = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->terms_fns);
    b->terms = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->terms);
    b->nterms = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->nterms);
    /* which kernels have a table entry: the generator's plan (gen/emit.c
     * plans with the same shard), so no lookup of an entry that is not
     * there (a NOT_FOUND that compute-sanitizer reports as an error) */
    ir_vars V;
    ir_shard S;
    ir_vars_build(m, &V);
    ir_shard_build(m, &V, &S);
    int rc = check(b, cu->cuModuleGetFunction(&b->record_fn, b->mod, "lcm_sim_record"), "lcm_sim_record", err);
    for (int k = 0; k < m->nkernels && !rc; ++k) {
        const ir_kernel *kn = &m->kernels[k];
        ir_pre pre;
        ir_elim_plan_kernel(m, &S, k, &pre);
        char sim_symbol[256], table_symbol[256];
        snprintf(sim_symbol, sizeof sim_symbol, "%s_sim", kn->symbol);
        int sim_block = 0;
        b->par_n[k] = kn->par >= 0 ? m->regimes[kn->regime].actions[kn->par].grid.n : 1;
        LCM_CHECK_GOTO(check(b, cu->cuModuleGetFunction(&b->fns[k], b->mod, kn->symbol), kn->symbol, err), rc, done);
        LCM_CHECK_GOTO(check(b, cu->cuModuleGetFunction(&b->sim_fns[k], b->mod, sim_symbol), sim_symbol, err), rc,
                       done);
        LCM_CHECK_GOTO(check(b, cu->cuFuncGetAttribute(&b->max_block[k], CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                                       b->fns[k]), "asking a kernel's block size", err), rc, done);
        LCM_CHECK_GOTO(check(b, cu->cuFuncGetAttribute(&sim_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                                       b->sim_fns[k]), "asking a kernel's block size", err), rc, done);
        if (sim_block < b->max_block[k]) b->max_block[k] = sim_block;
        if ((b->nterms[k] = kn->nterms) > 0) { /* the manifest says it has them: no lookup of one that is not there */
            char terms_symbol[256];
            snprintf(terms_symbol, sizeof terms_symbol, "%s_terms", kn->symbol);
            LCM_CHECK_GOTO(check(b, cu->cuModuleGetFunction(&b->terms_fns[k], b->mod, terms_symbol), terms_symbol,
                                 err), rc, done);
            size_t bytes = (size_t)kn->nterms * (size_t)(b->base.precision / 8);
            if (!(b->terms[k] = cuda_alloc(&b->base, bytes, err))) LCM_CHECK_GOTO(err->code, rc, done);
        }
        for (int pass = 0; pass < ir_pre_passes(&pre) && pass < LCM_TABLE_PASSES; ++pass) {
            int at = k * LCM_TABLE_PASSES + pass;
            be_table_symbol(kn->symbol, pass, table_symbol, sizeof table_symbol);
            LCM_CHECK_GOTO(check(b, cu->cuModuleGetFunction(&b->table_fns[at], b->mod, table_symbol), table_symbol,
                                 err), rc, done);
            LCM_CHECK_GOTO(check(b, cu->cuFuncGetAttribute(&b->table_block[at], CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                                           b->table_fns[at]), "asking a kernel's block size", err),
                           rc, done);
            if (b->table_block[at] > 128) b->table_block[at] = 128;
        }
        if (b->max_block[k] < 128) {
            rc = base_fail(err, LCM_E_DEVICE, "kernel %s can only run %d threads per block on %s", kn->symbol,
                          b->max_block[k], b->name);
            goto done;
        }
    }
done:
    ir_vars_free(&V);
    return rc;
}

/* A stream and an event per regime, and one for the root. */
static int create_queues(cuda_backend *b, const ir_model *m, lcm_err *err)
{
    const lcm_cu_api *cu = b->cu;
    b->nqueues = m->nregimes + 1;
    b->streams = base_xcalloc((size_t)b->nqueues, sizeof *b->streams);
    b->events = base_xcalloc((size_t)b->nqueues, sizeof *b->events);
    b->dirty = base_xcalloc((size_t)b->nqueues, 1);
    int rc = 0;
    for (int q = 0; q < b->nqueues && !rc; ++q) {
        rc = check(b, cu->cuStreamCreate(&b->streams[q], CU_STREAM_NON_BLOCKING), "creating a stream", err);
        if (!rc) rc = check(b, cu->cuEventCreate(&b->events[q], CU_EVENT_DISABLE_TIMING), "creating an event", err);
    }
    return rc;
}

int be_backend_cuda_new(const ir_model *m, const char *source, int precision, lcm_cache *cache, int device,
                         lcm_backend **out, lcm_err *err)
{
    const lcm_cu_api *cu = be_cu(err);
    if (!cu) return err->code;
    cuda_backend *b = base_xcalloc(1, sizeof *b);
    b->cu = cu;
    b->base.name = "cuda";
    b->base.precision = precision;
    b->base.launch = cuda_launch;
    b->base.launch_sim = cuda_launch_sim;
    b->base.launch_table = cuda_launch_table;
    b->base.launch_record = cuda_launch_record;
    b->base.barrier = cuda_barrier;
    b->base.alloc = cuda_alloc;
    b->base.release = cuda_release;
    b->base.alloc_host = cuda_alloc_host;
    b->base.release_host = cuda_release_host;
    b->base.memory_info = cuda_memory_info;
    b->base.upload = cuda_upload;
    b->base.download = cuda_download;
    b->base.finish = cuda_finish;
#ifdef LCM_HAVE_NCCL
    b->base.join = cuda_join;
    b->base.allreduce_min_i64 = cuda_allreduce_min_i64;
#endif
    b->base.stamp = cuda_stamp;
    b->base.stamp_seconds = cuda_stamp_seconds;
    b->base.capture_begin = cuda_capture_begin;
    b->base.capture_end = cuda_capture_end;
    b->base.replay = cuda_replay;
    b->base.destroy = cuda_destroy;
    int rc;
    LCM_CHECK_GOTO(open_device(b, device, err), rc, done);
    LCM_CHECK_GOTO(load_module(b, m, source, precision, cache, err), rc, done);
    LCM_CHECK_GOTO(find_kernels(b, m, err), rc, done);
    LCM_CHECK_GOTO(create_queues(b, m, err), rc, done);
    *out = &b->base;
done:
    if (rc) cuda_destroy(&b->base);
    return rc;
}

#else /* built without the CUDA toolkit */

int be_backend_cuda_new(const ir_model *m, const char *source, int precision, lcm_cache *cache, int device,
                         lcm_backend **out, lcm_err *err)
{
    (void)m, (void)source, (void)precision, (void)cache, (void)device, (void)out;
    return base_fail(err, LCM_E_DEVICE, "this lcm was built without the CUDA toolkit; rebuild with it installed "
                    "(/usr/local/cuda) to use --backend cuda");
}

#endif
