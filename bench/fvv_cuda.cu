/* fvv_cuda.cu - the life-cycle model of Fernández-Villaverde & Zarruk
 * Valencia (2018) solved the way their CUDA program solves it: one thread
 * per state (assets x productivity), a loop over next assets with the
 * expectation summed inside it, the constants fixed at compile time,
 * double: the loops of bench/fvv_openmp.c on a GPU (the model's constants
 * and grids from bench/fvv_model.h; not linked with anything of lcm).
 * bench/fvv.sh compiles it with nvcc when a GPU is present and times it
 * against lcm's cuda backend.
 *
 *   fvv_cuda NX REPEAT [V.csv]
 *
 * Prints the median, min and max time of REPEAT solves (CUDA events around
 * the periods' launches; V stays on the device); writes V as period,ix,ie,V
 * when asked. */
#include "fvv_model.h"

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "fvv_cuda: %s: %s\n", #call, cudaGetErrorString(e_));         \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* One period: thread (ix, ie) takes the best next assets. */
__global__ void period(int nx, int age, const double *xgrid, const double *egrid, const double *P, double *V)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nx * NE) return;
    int ix = id / NE, ie = id % NE;
    V[((size_t)age * nx + ix) * NE + ie] = fvv_value(nx, age, ix, ie, xgrid, egrid, P, V);
}

int main(int argc, char **argv)
{
    int nx, repeat;
    if (fvv_args(argc, argv, "fvv_cuda", &nx, &repeat)) return 2;
    size_t nv = (size_t)T * nx * NE;
    double *xgrid = (double *)malloc((size_t)nx * sizeof *xgrid), egrid[NE], P[NE * NE];
    double *V = (double *)malloc(nv * sizeof *V), *secs = (double *)malloc((size_t)repeat * sizeof *secs);
    if (!xgrid || !V || !secs) return 1;
    asset_grid(nx, xgrid);
    tauchen(egrid, P);
    double *d_x, *d_e, *d_P, *d_V;
    CHECK(cudaMalloc(&d_x, (size_t)nx * sizeof(double)));
    CHECK(cudaMalloc(&d_e, NE * sizeof(double)));
    CHECK(cudaMalloc(&d_P, NE * NE * sizeof(double)));
    CHECK(cudaMalloc(&d_V, nv * sizeof(double)));
    CHECK(cudaMemcpy(d_x, xgrid, (size_t)nx * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_e, egrid, NE * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_P, P, NE * NE * sizeof(double), cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    int threads = 128, blocks = (nx * NE + threads - 1) / threads;
    for (int k = 0; k < repeat; ++k) {
        CHECK(cudaEventRecord(start));
        for (int age = T - 1; age >= 0; --age) period<<<blocks, threads>>>(nx, age, d_x, d_e, d_P, d_V);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        secs[k] = ms / 1000.0;
    }
    CHECK(cudaMemcpy(V, d_V, nv * sizeof(double), cudaMemcpyDeviceToHost));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    char what[320];
    snprintf(what, sizeof what, "fvv_cuda nx %d, %s", nx, prop.name);
    fvv_print_times(what, secs, repeat);
    if (argc > 3 && fvv_write_v(argv[3], nx, V)) return 1;
    cudaFree(d_x), cudaFree(d_e), cudaFree(d_P), cudaFree(d_V);
    free(xgrid), free(V), free(secs);
    return 0;
}
