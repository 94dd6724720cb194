/* cuda_api.h - the CUDA driver API and NVRTC, loaded at run time.
 *
 * lcm links against neither: libcuda.so.1 comes with the NVIDIA driver and
 * libnvrtc with the toolkit, and both are opened with dlopen when first
 * needed.  So the same binary runs on machines without a GPU (cpu backend),
 * compiles GPU kernels where only the toolkit is installed (a login node
 * preparing the cache, CI), and solves on the GPU where a driver is present.
 * The toolkit's headers give the types; a build without them
 * (LCM_HAVE_CUDA unset) reports that it has no CUDA support.
 */
#ifndef LCM_CUDA_API_H
#define LCM_CUDA_API_H

#include "base.h"

#ifdef LCM_HAVE_CUDA
#include <cuda.h>
#include <nvrtc.h>
#ifdef LCM_HAVE_NCCL
#include <nccl.h>
#endif

/* X(return type, member, exported symbol, parameters) */
#define LCM_CU_FUNCS(X)                                                                                    \
    X(CUresult, cuInit, "cuInit", (unsigned int))                                                          \
    X(CUresult, cuGetErrorString, "cuGetErrorString", (CUresult, const char **))                           \
    X(CUresult, cuDeviceGetCount, "cuDeviceGetCount", (int *))                                             \
    X(CUresult, cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                                             \
    X(CUresult, cuDeviceGetName, "cuDeviceGetName", (char *, int, CUdevice))                               \
    X(CUresult, cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *, CUdevice_attribute, CUdevice))       \
    X(CUresult, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice))             \
    X(CUresult, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                     \
    X(CUresult, cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                           \
    X(CUresult, cuMemGetInfo, "cuMemGetInfo_v2", (size_t *, size_t *))                                     \
    X(CUresult, cuModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))                          \
    X(CUresult, cuModuleUnload, "cuModuleUnload", (CUmodule))                                              \
    X(CUresult, cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *))        \
    X(CUresult, cuFuncGetAttribute, "cuFuncGetAttribute", (int *, CUfunction_attribute, CUfunction))       \
    X(CUresult, cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                                      \
    X(CUresult, cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                  \
    X(CUresult, cuMemHostAlloc, "cuMemHostAlloc", (void **, size_t, unsigned int))                         \
    X(CUresult, cuMemFreeHost, "cuMemFreeHost", (void *))                                                  \
    X(CUresult, cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr, const void *, size_t, CUstream))  \
    X(CUresult, cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void *, CUdeviceptr, size_t, CUstream))        \
    X(CUresult, cuLaunchKernel, "cuLaunchKernel",                                                          \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, \
       void **))                                                                                           \
    X(CUresult, cuStreamCreate, "cuStreamCreate", (CUstream *, unsigned int))                              \
    X(CUresult, cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                         \
    X(CUresult, cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                    \
    X(CUresult, cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream, CUevent, unsigned int))                 \
    X(CUresult, cuEventCreate, "cuEventCreate", (CUevent *, unsigned int))                                 \
    X(CUresult, cuEventDestroy, "cuEventDestroy_v2", (CUevent))                                            \
    X(CUresult, cuEventRecord, "cuEventRecord", (CUevent, CUstream))                                       \
    X(CUresult, cuEventRecordWithFlags, "cuEventRecordWithFlags", (CUevent, CUstream, unsigned int))       \
    X(CUresult, cuEventElapsedTime, "cuEventElapsedTime", (float *, CUevent, CUevent))                     \
    X(CUresult, cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream, CUstreamCaptureMode))          \
    X(CUresult, cuStreamEndCapture, "cuStreamEndCapture", (CUstream, CUgraph *))                           \
    X(CUresult, cuGraphInstantiate, "cuGraphInstantiateWithFlags", (CUgraphExec *, CUgraph, unsigned long long)) \
    X(CUresult, cuGraphLaunch, "cuGraphLaunch", (CUgraphExec, CUstream))                                   \
    X(CUresult, cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec))                                   \
    X(CUresult, cuGraphDestroy, "cuGraphDestroy", (CUgraph))

#define LCM_NVRTC_FUNCS(X)                                                                                 \
    X(nvrtcResult, nvrtcVersion, "nvrtcVersion", (int *, int *))                                           \
    X(const char *, nvrtcGetErrorString, "nvrtcGetErrorString", (nvrtcResult))                             \
    X(nvrtcResult, nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs", (int *))                        \
    X(nvrtcResult, nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs", (int *))                              \
    X(nvrtcResult, nvrtcCreateProgram, "nvrtcCreateProgram",                                               \
      (nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *))         \
    X(nvrtcResult, nvrtcCompileProgram, "nvrtcCompileProgram", (nvrtcProgram, int, const char *const *))   \
    X(nvrtcResult, nvrtcDestroyProgram, "nvrtcDestroyProgram", (nvrtcProgram *))                           \
    X(nvrtcResult, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", (nvrtcProgram, size_t *))             \
    X(nvrtcResult, nvrtcGetProgramLog, "nvrtcGetProgramLog", (nvrtcProgram, char *))                       \
    X(nvrtcResult, nvrtcGetCUBINSize, "nvrtcGetCUBINSize", (nvrtcProgram, size_t *))                       \
    X(nvrtcResult, nvrtcGetCUBIN, "nvrtcGetCUBIN", (nvrtcProgram, char *))                                 \
    X(nvrtcResult, nvrtcGetPTXSize, "nvrtcGetPTXSize", (nvrtcProgram, size_t *))                           \
    X(nvrtcResult, nvrtcGetPTX, "nvrtcGetPTX", (nvrtcProgram, char *))

#ifdef LCM_HAVE_NCCL
/* NCCL: the collectives of GPU workers (solver.c), loaded at run time too. */
#define LCM_NCCL_FUNCS(X)                                                                                  \
    X(ncclResult_t, ncclGetVersion, "ncclGetVersion", (int *))                                             \
    X(ncclResult_t, ncclGetUniqueId, "ncclGetUniqueId", (ncclUniqueId *))                                  \
    X(ncclResult_t, ncclCommInitRank, "ncclCommInitRank", (ncclComm_t *, int, ncclUniqueId, int))          \
    X(ncclResult_t, ncclCommDestroy, "ncclCommDestroy", (ncclComm_t))                                      \
    X(ncclResult_t, ncclAllReduce, "ncclAllReduce",                                                        \
      (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t))               \
    X(ncclResult_t, ncclGroupStart, "ncclGroupStart", (void))                                              \
    X(ncclResult_t, ncclGroupEnd, "ncclGroupEnd", (void))                                                  \
    X(const char *, ncclGetErrorString, "ncclGetErrorString", (ncclResult_t))

typedef struct lcm_nccl_api {
#define X(ret, name, sym, params) ret(*name) params;
    LCM_NCCL_FUNCS(X)
#undef X
} lcm_nccl_api;

/* NCCL (libnccl.so.2 from the toolkit or the system), or NULL with err filled. */
const lcm_nccl_api *be_nccl(lcm_err *err);
#endif

typedef struct lcm_cu_api {
#define X(ret, name, sym, params) ret(*name) params;
    LCM_CU_FUNCS(X)
#undef X
} lcm_cu_api;

typedef struct lcm_nvrtc_api {
#define X(ret, name, sym, params) ret(*name) params;
    LCM_NVRTC_FUNCS(X)
#undef X
} lcm_nvrtc_api;

/* The loaded APIs (process-wide, loaded once), or NULL with err filled. */
const lcm_cu_api *be_cu(lcm_err *err);
const lcm_nvrtc_api *be_nvrtc(lcm_err *err);
/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory" style text of a driver error. */
const char *be_cu_error(CUresult r);
#endif /* LCM_HAVE_CUDA */

/* Whether a CUDA device can be used here (driver loads, cuInit works, at
 * least one device); for --backend auto. */
int be_cuda_device_count(void);

/* The peaks of GPU `device` from its attributes, not measured: arithmetic
 * operations per second in float64 and float32 (a fused multiply-add is
 * two: SMs x clock x 2 x the FP lanes per SM of its compute capability, as
 * the CUDA programming guide tabulates them) and DRAM bytes per second
 * (2 x memory clock x bus width).  Non-zero when it cannot tell. */
int be_cuda_device_peaks(int device, double *fp64, double *fp32, double *bytes_per_s);

#endif
