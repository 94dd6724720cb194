/* fvv_model.h - the model of Fernández-Villaverde & Zarruk Valencia (2018)
 * as their programs fix it (constants, the asset grid, the Tauchen (1986)
 * productivity process) and as their programs solve it (fvv_value).  Shared by the hand-written comparisons
 * bench/fvv_openmp.c (C) and bench/fvv_cuda.cu (CUDA C++); independent of
 * lcm (models/fvv_2018.lua is lcm's own writing of the model). */
#ifndef FVV_MODEL_H
#define FVV_MODEL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { NE = 15, T = 10 };
static const double ssigma = 2, bbeta = 0.97, r = 0.07, w = 5;
static const double xmin = 0.1, xmax = 4.0, ssigma_eps = 0.02058, llambda_eps = 0.99, m = 1.5;

static double norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Tauchen (1986): nodes of log productivity and the transition matrix;
 * then the nodes become productivity (exp), as in their code. */
static void tauchen(double *egrid, double *P)
{
    double ssigma_y = sqrt(ssigma_eps * ssigma_eps / (1 - llambda_eps * llambda_eps));
    double lo = -m * ssigma_y, step = 2 * m * ssigma_y / (NE - 1);
    for (int i = 0; i < NE; ++i) egrid[i] = lo + i * step;
    egrid[NE - 1] = m * ssigma_y;
    for (int i = 0; i < NE; ++i)
        for (int j = 0; j < NE; ++j) {
            double mean = llambda_eps * egrid[i];
            double up = j == NE - 1 ? 1 : norm_cdf(((egrid[j] + egrid[j + 1]) / 2 - mean) / ssigma_eps);
            double down = j == 0 ? 0 : norm_cdf(((egrid[j - 1] + egrid[j]) / 2 - mean) / ssigma_eps);
            P[i * NE + j] = up - down;
        }
    for (int i = 0; i < NE; ++i) egrid[i] = exp(egrid[i]);
}

/* The asset grid: nx points from xmin to xmax. */
static void asset_grid(int nx, double *xgrid)
{
    for (int i = 0; i < nx; ++i) xgrid[i] = xmin + i * ((xmax - xmin) / (nx - 1));
    xgrid[nx - 1] = xmax;
}

/* The value of state (ix, ie) in period `age`: their loop over next
 * assets, the expectation summed inside it (V: period, assets, then
 * productivity); the same code on the host and, in CUDA, on the device. */
#ifdef __CUDACC__
#define FVV_FN __host__ __device__
#else
#define FVV_FN
#endif
static FVV_FN double fvv_value(int nx, int age, int ix, int ie, const double *xgrid, const double *egrid,
                               const double *P, const double *V)
{
    double VV = -1e5;
    for (int ixp = 0; ixp < nx; ++ixp) {
        double expected = 0.0;
        if (age < T - 1)
            for (int iep = 0; iep < NE; ++iep)
                expected += P[ie * NE + iep] * V[((size_t)(age + 1) * nx + ixp) * NE + iep];
        double cons = (1 + r) * xgrid[ix] + egrid[ie] * w - xgrid[ixp];
        double utility = pow(cons, 1 - ssigma) / (1 - ssigma) + bbeta * expected;
        if (cons <= 0) utility = -1e5;
        if (utility >= VV) VV = utility;
    }
    return VV;
}

/* NX and REPEAT from the command line of `name` NX REPEAT [V.csv]; 0, or
 * 2 after a usage message. */
static int fvv_args(int argc, char **argv, const char *name, int *nx, int *repeat)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NX REPEAT [V.csv]\n", name);
        return 2;
    }
    *nx = atoi(argv[1]), *repeat = atoi(argv[2]);
    if (*nx < 2 || *repeat < 1) {
        fprintf(stderr, "%s: NX >= 2 and REPEAT >= 1\n", name);
        return 2;
    }
    return 0;
}

static int fvv_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the repeat solves' seconds and prints their median, min and max
 * after `what`. */
static void fvv_print_times(const char *what, double *secs, int repeat)
{
    qsort(secs, (size_t)repeat, sizeof *secs, fvv_cmp_double);
    printf("%s: solve median %.4f s (min %.4f, max %.4f, %d runs)\n", what, secs[repeat / 2], secs[0],
           secs[repeat - 1], repeat);
}

/* V as period,ix,ie,V (every period, assets then productivity); 0 or 1. */
static int fvv_write_v(const char *path, int nx, const double *V)
{
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "period,ix,ie,V\n");
    for (int t = 0; t < T; ++t)
        for (int ix = 0; ix < nx; ++ix)
            for (int ie = 0; ie < NE; ++ie) fprintf(f, "%d,%d,%d,%.17g\n", t, ix, ie, V[((size_t)t * nx + ix) * NE + ie]);
    return fclose(f) != 0;
}

#endif
