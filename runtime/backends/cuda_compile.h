/* cuda_compile.h - generated source to a GPU image with NVRTC, cached.
 *
 * The target is the device's architecture: a cubin when NVRTC knows it, or
 * PTX for the newest architecture NVRTC knows (the driver finishes it) when
 * the GPU is newer than the toolkit.  Needs no GPU: `lcm compile --arch`
 * prepares the cache on a machine without one. */
#ifndef LCM_CUDA_COMPILE_H
#define LCM_CUDA_COMPILE_H

#include "cache.h"
#include "ir.h"

typedef struct lcm_cuda_image {
    void *data;
    size_t len;
    int compiled;       /* compiled now (not from the cache) */
    double seconds;
    char target[32];    /* "sm_90" or "compute_90 (PTX)" */
    char *cache_entry;  /* where it lies in the cache, or NULL: the cache could not take it */
} lcm_cuda_image;

/* "sm_90", "compute_90", "90", "9.0" -> 90; returns 0 if not an
 * architecture (anything else around the digits, "sm_9.0junk", "+90"). */
int be_cuda_parse_arch(const char *text);
int be_cuda_compile(const ir_model *m, const char *source, int arch, int precision, lcm_cache *cache,
                     lcm_cuda_image *out, lcm_err *err);
void be_cuda_image_free(lcm_cuda_image *img);

#endif
