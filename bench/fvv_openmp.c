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
#include <omp.h>

#include "fvv_model.h"

static void solve(int nx, const double *xgrid, const double *egrid, const double *P, double *V)
{
    for (int age = T - 1; age >= 0; --age) {
#pragma omp parallel for collapse(2) schedule(static)
        for (int ix = 0; ix < nx; ++ix)
            for (int ie = 0; ie < NE; ++ie) V[((size_t)age * nx + ix) * NE + ie] = fvv_value(nx, age, ix, ie, xgrid, egrid, P, V);
    }
}

int main(int argc, char **argv)
{
    int nx, repeat;
    if (fvv_args(argc, argv, "fvv_openmp", &nx, &repeat)) return 2;
    double *xgrid = malloc((size_t)nx * sizeof *xgrid), egrid[NE], P[NE * NE];
    double *V = malloc((size_t)T * nx * NE * sizeof *V), *secs = malloc((size_t)repeat * sizeof *secs);
    if (!xgrid || !V || !secs) return 1;
    asset_grid(nx, xgrid);
    tauchen(egrid, P);
    for (int k = 0; k < repeat; ++k) {
        double t0 = omp_get_wtime();
        solve(nx, xgrid, egrid, P, V);
        secs[k] = omp_get_wtime() - t0;
    }
    char what[64];
    snprintf(what, sizeof what, "fvv_openmp nx %d, %d threads", nx, omp_get_max_threads());
    fvv_print_times(what, secs, repeat);
    if (argc > 3 && fvv_write_v(argv[3], nx, V)) return 1;
    free(xgrid), free(V), free(secs);
    return 0;
}
