/* backend.h - what the solve and simulate drivers need from a backend.
 *
 * A backend owns compiled kernels and the memory they run on.  Host
 * backends (cpu, interp) compute in host memory; the cuda backend keeps
 * buffers on the device and copies finished periods back.
 */
#ifndef LCM_BACKEND_H
#define LCM_BACKEND_H

#include "cache.h"
#include "ir.h"
#include "kernel_abi.h"

typedef struct lcm_backend lcm_backend;

struct lcm_backend {
    const char *name;   /* "cpu", "interp", "cuda" */
    int precision;      /* 64 or 32: bytes per real = precision / 8 */
    int host_memory;    /* buffers are plain host memory */
    int compiled;       /* the kernels were compiled by this process */
    double compile_seconds;
    char *cache_entry;  /* where the compiled kernels live, or NULL */
    /* Runs kernel k over flat states [0, n). */
    int (*run)(lcm_backend *b, int kernel, lcm_kernel_args *args, lcm_index n, lcm_err *err);
    /* Memory the kernels can use (host backends: malloc). */
    void *(*alloc)(lcm_backend *b, size_t bytes, lcm_err *err);
    void (*release)(lcm_backend *b, void *p);
    int (*upload)(lcm_backend *b, void *dst, const void *src, size_t bytes, lcm_err *err);
    int (*download)(lcm_backend *b, void *dst, const void *src, size_t bytes, lcm_err *err);
    void (*destroy)(lcm_backend *b);
};

/* Compiles `source` with the host compiler (or finds it in the cache). */
int lcm_backend_cpu_new(const ir_model *m, const char *source, int precision, lcm_cache *cache,
                        int threads, lcm_backend **out, lcm_err *err);
/* The IR interpreter as a backend: slow, float64 only, independent of the
 * generated code; the oracle of the differential tests. */
int lcm_backend_interp_new(const ir_model *m, lcm_backend **out, lcm_err *err);

/* Host memory operations, shared by the host backends. */
void lcm_host_memory_ops(lcm_backend *b);

#endif
