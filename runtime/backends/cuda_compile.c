/* cuda_compile.c - see cuda_compile.h. */
#define _GNU_SOURCE
#include "cuda_compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile_log.h"
#include "cuda_api.h"
#include "files.h"
#include "kernel_abi.h"
#include "log.h"
#include "sha256.h"

int be_cuda_parse_arch(const char *t)
{
    if (!strncmp(t, "sm_", 3)) t += 3;
    else if (!strncmp(t, "compute_", 8)) t += 8;
    size_t n = strspn(t, "0123456789"); /* digits only: no sign, space or overflow */
    if (n == 0 || n > 3) return 0;
    int v = 0;
    for (size_t i = 0; i < n; ++i) v = v * 10 + (t[i] - '0');
    if (t[n] == '.') { /* "9.0": major.minor, one digit each side of the point beyond the first */
        if (t[n + 1] < '0' || t[n + 1] > '9' || t[n + 2]) return 0;
        v = v * 10 + (t[n + 1] - '0');
    } else if (t[n]) return 0;
    return v >= 10 && v < 1000 ? v : 0;
}

void be_cuda_image_free(lcm_cuda_image *img)
{
    free(img->data);
    free(img->cache_entry);
    memset(img, 0, sizeof *img);
}

#ifdef LCM_HAVE_CUDA

/* Keeps the source of a failed compile for inspection; returns its path. */
static char *keep_source(const char *src)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = base_xasprintf("%s/lcm-nvrtc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        free(dir);
        return NULL;
    }
    char *path = base_path_join(dir, "kernels.c");
    free(dir);
    if (sys_write_file_atomic(path, src, strlen(src), NULL)) {
        free(path);
        return NULL;
    }
    return path;
}

static int pick_target(const lcm_nvrtc_api *nv, int arch, int *target, int *ptx, lcm_err *err)
{
    int n = 0;
    nv->nvrtcGetNumSupportedArchs(&n);
    int *archs = base_xcalloc((size_t)n + 1, sizeof *archs);
    nv->nvrtcGetSupportedArchs(archs);
    int lo = n ? archs[0] : 0, hi = n ? archs[n - 1] : 0, exact = 0, below = 0;
    for (int i = 0; i < n; ++i) {
        exact |= archs[i] == arch;
        if (archs[i] < arch) below = archs[i];
    }
    free(archs);
    if (exact) {
        *target = arch, *ptx = 0;
        return 0;
    }
    if (below) { /* an architecture NVRTC does not list: PTX for the newest below, the driver finishes it */
        *target = below, *ptx = 1;
        return 0;
    }
    return base_fail(err, LCM_E_DEVICE, "GPU architecture sm_%d is not supported by this NVRTC (it supports sm_%d to "
                    "sm_%d)", arch, lo, hi);
}

int be_cuda_compile(const ir_model *m, const char *source, int arch, int precision, lcm_cache *cache,
                     lcm_cuda_image *out, lcm_err *err)
{
    memset(out, 0, sizeof *out);
    const lcm_nvrtc_api *nv = be_nvrtc(err);
    if (!nv) return err->code;
    int target = 0, ptx = 0, rc = pick_target(nv, arch, &target, &ptx, err);
    if (rc) return rc;
    int major = 0, minor = 0;
    nv->nvrtcVersion(&major, &minor);
    char arch_opt[32], prec_opt[32];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s_%d", ptx ? "compute" : "sm", target);
    snprintf(prec_opt, sizeof prec_opt, "-DLCM_PRECISION=%d", precision);
    const char *opts[] = {arch_opt, prec_opt, "-std=c++17", "-lineinfo"};
    int nopts = (int)(sizeof opts / sizeof *opts);
    snprintf(out->target, sizeof out->target, ptx ? "compute_%d (PTX)" : "sm_%d", target);

    lcm_sha256 h;
    base_sha256_init(&h);
    char head[256];
    snprintf(head, sizeof head, "lcm-cuda abi=%d nvrtc=%d.%d", LCM_ABI_VERSION, major, minor);
    base_sha256_update(&h, head, strlen(head));
    for (int i = 0; i < nopts; ++i) base_sha256_update(&h, " ", 1), base_sha256_update(&h, opts[i], strlen(opts[i]));
    base_sha256_update(&h, "\n", 1);
    base_sha256_update(&h, source, strlen(source));
    char key[65];
    base_sha256_hex_final(&h, key);
    if (be_cache_get(cache, "cuda", key, &out->data, &out->len)) {
        out->cache_entry = be_cache_entry_path(cache, "cuda", key);
        return 0;
    }
    if ((rc = be_cache_check_required(cache, "cuda", err))) return rc;

    double t0 = base_now_seconds();
    nvrtcProgram prog;
    nvrtcResult r = nv->nvrtcCreateProgram(&prog, source, "kernels.c", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) return base_fail(err, LCM_E_COMPILE, "NVRTC: %s", nv->nvrtcGetErrorString(r));
    r = nv->nvrtcCompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        size_t ls = 0;
        nv->nvrtcGetProgramLogSize(prog, &ls);
        char *log = base_xcalloc(ls + 1, 1);
        nv->nvrtcGetProgramLog(prog, log);
        lcm_sb b;
        base_sb_init(&b);
        base_sb_printf(&b, "NVRTC could not compile the generated solver of model '%s' for %s (%s)", m->name, out->target,
                  nv->nvrtcGetErrorString(r));
        be_explain_compile_log(log, source, &b);
        char *kept = keep_source(source);
        if (kept) base_sb_printf(&b, "\n  the source is kept at %s", kept);
        base_sb_printf(&b, "\n  compiler log:\n%.2000s", log);
        rc = base_fail(err, LCM_E_COMPILE, "%s", b.s);
        base_sb_free(&b), free(log), free(kept);
        nv->nvrtcDestroyProgram(&prog);
        return rc;
    }
    size_t len = 0;
    if (ptx) nv->nvrtcGetPTXSize(prog, &len);
    else nv->nvrtcGetCUBINSize(prog, &len);
    out->data = base_xmalloc(len + 1);
    out->len = len;
    r = ptx ? nv->nvrtcGetPTX(prog, out->data) : nv->nvrtcGetCUBIN(prog, out->data);
    nv->nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS)
        return base_fail(err, LCM_E_COMPILE, "NVRTC: reading the compiled solver: %s", nv->nvrtcGetErrorString(r));
    out->compiled = 1;
    out->seconds = base_now_seconds() - t0;
    char what[64];
    snprintf(what, sizeof what, "%s %s", out->target, precision == 32 ? "float32" : "float64");
    if (be_cache_put(cache, "cuda", key, m->name, what, out->data, out->len, err))
        return cache->required ? err->code : 0;
    out->cache_entry = be_cache_entry_path(cache, "cuda", key);
    return 0;
}

#else

int be_cuda_compile(const ir_model *m, const char *source, int arch, int precision, lcm_cache *cache,
                     lcm_cuda_image *out, lcm_err *err)
{
    (void)m, (void)source, (void)arch, (void)precision, (void)cache;
    memset(out, 0, sizeof *out);
    return base_fail(err, LCM_E_DEVICE, "this lcm was built without the CUDA toolkit; rebuild with it installed "
                    "(/usr/local/cuda) to use --backend cuda");
}

#endif
