/* fvv_openmp.c - the life-cycle model of Fernández-Villaverde & Zarruk
 * Valencia (2018) solved the way their C++/OpenMP program solves it: the
 * loops of their code (parallel over assets x productivity, a loop over
 * next assets, the expectation summed inside it), the constants fixed at
 * compile time, double.  bench/fvv.sh times it against lcm on
 * models/fvv_2018.lua and compares the two V.  Not linked with anything
 * of lcm: the point is an independent program.
 *
 *   fvv_openmp NX REPEAT [V.csv]   (threads: OMP_NUM_THREADS)
 *
 * Prints the median, min and max time of REPEAT solves; writes V as
 * period,ix,ie,V (every period, assets then productivity) when asked. */
#include <math.h>
#include <omp.h>
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

static void solve(int nx, const double *xgrid, const double *egrid, const double *P, double *V)
{
    for (int age = T - 1; age >= 0; --age) {
#pragma omp parallel for collapse(2) schedule(static)
        for (int ix = 0; ix < nx; ++ix)
            for (int ie = 0; ie < NE; ++ie) {
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
                V[((size_t)age * nx + ix) * NE + ie] = VV;
            }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fvv_openmp NX REPEAT [V.csv]\n");
        return 2;
    }
    int nx = atoi(argv[1]), repeat = atoi(argv[2]);
    if (nx < 2 || repeat < 1) {
        fprintf(stderr, "fvv_openmp: NX >= 2 and REPEAT >= 1\n");
        return 2;
    }
    double *xgrid = malloc((size_t)nx * sizeof *xgrid), egrid[NE], P[NE * NE];
    double *V = malloc((size_t)T * nx * NE * sizeof *V), *secs = malloc((size_t)repeat * sizeof *secs);
    if (!xgrid || !V || !secs) return 1;
    for (int i = 0; i < nx; ++i) xgrid[i] = xmin + i * ((xmax - xmin) / (nx - 1));
    xgrid[nx - 1] = xmax;
    tauchen(egrid, P);
    for (int k = 0; k < repeat; ++k) {
        double t0 = omp_get_wtime();
        solve(nx, xgrid, egrid, P, V);
        secs[k] = omp_get_wtime() - t0;
    }
    qsort(secs, (size_t)repeat, sizeof *secs, cmp_double);
    printf("fvv_openmp nx %d, %d threads: solve median %.4f s (min %.4f, max %.4f, %d runs)\n", nx,
           omp_get_max_threads(), secs[repeat / 2], secs[0], secs[repeat - 1], repeat);
    if (argc > 3) {
        FILE *f = fopen(argv[3], "w");
        if (!f) return 1;
        fprintf(f, "period,ix,ie,V\n");
        for (int t = 0; t < T; ++t)
            for (int ix = 0; ix < nx; ++ix)
                for (int ie = 0; ie < NE; ++ie) fprintf(f, "%d,%d,%d,%.17g\n", t, ix, ie, V[((size_t)t * nx + ix) * NE + ie]);
        if (fclose(f)) return 1;
    }
    free(xgrid), free(V), free(secs);
    return 0;
}
