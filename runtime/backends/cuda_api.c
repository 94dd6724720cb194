/* cuda_api.c - see cuda_api.h. */
#define _GNU_SOURCE
#include "cuda_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LCM_HAVE_CUDA

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether environment variable `env` names a library. */
static int given(const char *env)
{
    const char *v = getenv(env);
    return v && *v;
}

/* Opens the library that environment variable `env` names (env NULL: none;
 * set, it alone is tried: a path the user gave that does not load is an
 * error, not a reason to take another library), else the first of `names`
 * that loads; resolves `syms` into `table` (an array of function pointers
 * in the same order). */
static void *open_and_bind(const char *env, const char *const *names, const char *const *syms, void **table, int n,
                           char *why, size_t whylen)
{
    const char *path = env && given(env) ? getenv(env) : NULL;
    const char *only[] = {path, NULL};
    if (path) names = only;
    void *h = NULL;
    const char *tried = NULL;
    for (const char *const *p = names; *p && !h; ++p) {
        h = dlopen(*p, RTLD_NOW | RTLD_LOCAL);
        tried = *p;
    }
    char whose[600] = "";
    if (path) snprintf(whose, sizeof whose, "%s='%s': ", env, path);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whylen, "%s%s", whose, e ? e : tried ? tried : "not found");
        return NULL;
    }
    for (int i = 0; i < n; ++i) {
        table[i] = dlsym(h, syms[i]);
        if (!table[i]) {
            snprintf(why, whylen, "%s%s has no %s (%s)", whose, tried, syms[i],
                     path ? "not the library, or too old" : "too old?");
            dlclose(h);
            return NULL;
        }
    }
    return h;
}

static lcm_cu_api cu;
static int cu_state; /* 0 untried, 1 loaded, -1 failed */
static char cu_why[512];

const lcm_cu_api *be_cu(lcm_err *err)
{
    pthread_mutex_lock(&lock);
    if (!cu_state) {
        static const char *names[] = {"libcuda.so.1", "libcuda.so", NULL};
        static const char *syms[] = {
#define X(ret, name, sym, params) sym,
            LCM_CU_FUNCS(X)
#undef X
        };
        int n = (int)(sizeof syms / sizeof *syms);
        void *h = open_and_bind(NULL, names, syms, (void **)&cu, n, cu_why, sizeof cu_why);
        cu_state = h ? 1 : -1;
        if (h && cu.cuInit(0) != CUDA_SUCCESS) {
            snprintf(cu_why, sizeof cu_why, "the NVIDIA driver is installed but cuInit fails (no usable GPU?)");
            cu_state = -1;
        }
    }
    pthread_mutex_unlock(&lock);
    if (cu_state < 0) {
        base_fail(err, LCM_E_DEVICE, "the cuda backend needs an NVIDIA GPU and its driver, and none is usable here "
                 "(%s); --backend cpu (or auto) solves on the CPU", cu_why);
        return NULL;
    }
    return &cu;
}

/* A library loaded on first use, and what to tell when it does not load:
 * what it is, the variable that names it, its file, how to install it. */
typedef struct library {
    const char *what, *env, *file, *install;
    int state; /* 0 untried, 1 loaded, -1 failed */
    char why[512];
} library;

/* Loads lib once (names: where to look; syms into table, n of them):
 * 0, or LCM_E_DEVICE saying why. */
static int load_library(library *lib, const char *const *names, const char *const *syms, void **table, int n,
                        lcm_err *err)
{
    pthread_mutex_lock(&lock);
    if (!lib->state) lib->state = open_and_bind(lib->env, names, syms, table, n, lib->why, sizeof lib->why) ? 1 : -1;
    pthread_mutex_unlock(&lock);
    if (lib->state > 0) return 0;
    if (given(lib->env))
        return base_fail(err, LCM_E_DEVICE, "%s is not available: %s; give the path of %s there, or unset it to "
                        "search the usual places", lib->what, lib->why, lib->file);
    return base_fail(err, LCM_E_DEVICE, "%s is not available: %s; %s or set %s", lib->what, lib->why, lib->install,
                    lib->env);
}

static lcm_nvrtc_api nv;
static library nvrtc = {"NVRTC (the CUDA runtime compiler)", "LCM_NVRTC_LIBRARY", "libnvrtc.so",
                        "install the CUDA toolkit", 0, ""};

const lcm_nvrtc_api *be_nvrtc(lcm_err *err)
{
    char dirlib[512];
    snprintf(dirlib, sizeof dirlib, "%s/libnvrtc.so", LCM_CUDA_LIBDIR);
    const char *names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", dirlib, NULL};
    static const char *syms[] = {
#define X(ret, name, sym, params) sym,
        LCM_NVRTC_FUNCS(X)
#undef X
    };
    return load_library(&nvrtc, names, syms, (void **)&nv, (int)(sizeof syms / sizeof *syms), err) ? NULL : &nv;
}

#ifdef LCM_HAVE_NCCL
static lcm_nccl_api nc;
static library nccl = {"NCCL", "LCM_NCCL_LIBRARY", "libnccl.so.2", "install it (libnccl2)", 0, ""};

const lcm_nccl_api *be_nccl(lcm_err *err)
{
    /* the toolkit keeps it in lib/ beside lib64/ (or targets/.../lib) */
    char beside[512], in[512];
    snprintf(beside, sizeof beside, "%s/../lib/libnccl.so.2", LCM_CUDA_LIBDIR);
    snprintf(in, sizeof in, "%s/libnccl.so.2", LCM_CUDA_LIBDIR);
    const char *names[] = {"libnccl.so.2", "libnccl.so", in, beside, NULL};
    static const char *syms[] = {
#define X(ret, name, sym, params) sym,
        LCM_NCCL_FUNCS(X)
#undef X
    };
    return load_library(&nccl, names, syms, (void **)&nc, (int)(sizeof syms / sizeof *syms), err) ? NULL : &nc;
}
#endif

const char *be_cu_error(CUresult r)
{
    const char *s = NULL;
    if (cu_state > 0 && cu.cuGetErrorString(r, &s) == CUDA_SUCCESS && s) return s;
    return "unknown CUDA error";
}

int be_cuda_device_count(void)
{
    lcm_err err;
    const lcm_cu_api *api = be_cu(&err);
    int n = 0;
    if (!api || api->cuDeviceGetCount(&n) != CUDA_SUCCESS) return 0;
    return n;
}

/* FP64 and FP32 lanes per SM by compute capability: the full-rate FP64
 * parts (6.0, 7.0, 8.0, 9.0) and the rest, whose FP64 runs at 2 lanes. */
static void sm_lanes(int major, int minor, int *fp64, int *fp32)
{
    int cc = major * 10 + minor;
    *fp64 = cc == 60 || cc == 70 || cc == 80 ? 32 : cc == 90 ? 64 : 2;
    *fp32 = cc == 60 || cc == 70 || cc == 72 || cc == 75 || cc == 80 ? 64 : 128;
}

int be_cuda_device_peaks(int device, double *fp64, double *fp32, double *bytes_per_s)
{
    lcm_err err;
    const lcm_cu_api *api = be_cu(&err);
    CUdevice dev;
    int sms, clock_khz, mem_khz, bus_bits, major, minor;
    if (!api || api->cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
        api->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS ||
        api->cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) != CUDA_SUCCESS ||
        api->cuDeviceGetAttribute(&mem_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev) != CUDA_SUCCESS ||
        api->cuDeviceGetAttribute(&bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev) != CUDA_SUCCESS ||
        api->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        api->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
        return 1;
    int l64, l32;
    sm_lanes(major, minor, &l64, &l32);
    double per_lane = 2.0 * sms * clock_khz * 1e3;
    *fp64 = per_lane * l64, *fp32 = per_lane * l32;
    *bytes_per_s = 2.0 * mem_khz * 1e3 * bus_bits / 8;
    return 0;
}

#else /* no CUDA toolkit at build time */

int be_cuda_device_count(void) { return 0; }
int be_cuda_device_peaks(int device, double *fp64, double *fp32, double *bytes_per_s)
{
    (void)device, (void)fp64, (void)fp32, (void)bytes_per_s;
    return 1;
}

#endif
