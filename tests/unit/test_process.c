#define _GNU_SOURCE
/* Shock processes against independent values: Gauss-Hermite against the
 * published table (Abramowitz & Stegun 1972, Table 25.10) and polynomial
 * exactness; Rouwenhorst against its closed form for n = 2, 3 and rows
 * summing to 1 up to n = 51; Tauchen against the normal CDF by hand; the
 * stationary moments of every process against its law. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "process.h"

/* positive nodes and their weights, n = 1..10 (A&S Table 25.10) */
static const double gh_table[10][5][2] = {
    {{0.0, 1.772453850905516}},
    {{0.707106781186548, 0.886226925452758}},
    {{0.0, 1.181635900603677}, {1.224744871391589, 0.295408975150919}},
    {{0.524647623275290, 0.804914090005513}, {1.650680123885785, 0.081312835447245}},
    {{0.0, 0.945308720482942}, {0.958572464613819, 0.393619323152241}, {2.020182870456086, 0.019953242059046}},
    {{0.436077411927617, 0.724629595224392}, {1.335849074013697, 0.157067320322856},
     {2.350604973674492, 0.004530009905509}},
    {{0.0, 0.810264617556807}, {0.816287882858965, 0.425607252610128}, {1.673551628767471, 0.054515582819127},
     {2.651961356835233, 0.000971781245100}},
    {{0.381186990207322, 0.661147012558241}, {1.157193712446780, 0.207802325814892},
     {1.981656756695843, 0.017077983007413}, {2.930637420257244, 0.000199604072211}},
    {{0.0, 0.720235215606051}, {0.723551018752838, 0.432651559002556}, {1.468553289216668, 0.088474527394377},
     {2.266580584531843, 0.004943624275537}, {3.190993201781528, 0.000039606977263}},
    {{0.342901327223705, 0.610862633735326}, {1.036610829789514, 0.240138611082315},
     {1.756683649299882, 0.033874394455481}, {2.532731674232790, 0.001343645746781},
     {3.436159118837738, 0.000007640432855}},
};

static void check_gauss_hermite(void)
{
    for (int n = 1; n <= 10; ++n) {
        double x[10], w[10];
        ir_gauss_hermite(n, x, w);
        for (int i = 0; i + 1 < n; ++i) CHECK(x[i] < x[i + 1]);
        for (int k = 0; k < (n + 1) / 2; ++k) {
            int hi = n / 2 + k; /* the k-th non-negative node */
            CHECK_MSG(fabs(x[hi] - gh_table[n - 1][k][0]) < 1e-13, "n=%d node %d: %.16g", n, k, x[hi]);
            CHECK_MSG(fabs(w[hi] - gh_table[n - 1][k][1]) < 1e-13, "n=%d weight %d: %.16g", n, k, w[hi]);
            CHECK(x[n - 1 - hi] == -x[hi] && w[n - 1 - hi] == w[hi]);
        }
        /* exact for polynomials of degree <= 2n-1: sum w x^k = Gamma((k+1)/2), 0 for odd k */
        for (int d = 0; d <= 2 * n - 1; ++d) {
            double s = 0, scale = 0; /* odd moments cancel terms of size `scale` */
            for (int i = 0; i < n; ++i) s += w[i] * pow(x[i], d), scale += fabs(w[i] * pow(x[i], d));
            double exact = d % 2 ? 0 : tgamma((d + 1) / 2.0);
            CHECK_MSG(fabs(s - exact) <= 1e-13 * fmax(1, scale), "n=%d degree %d: %.16g vs %.16g", n, d, s, exact);
        }
    }
    /* larger rules stay exact too */
    double x[40], w[40];
    ir_gauss_hermite(40, x, w);
    double s0 = 0, s2 = 0;
    for (int i = 0; i < 40; ++i) s0 += w[i], s2 += w[i] * x[i] * x[i];
    CHECK_CLOSE(s0, sqrt(M_PI), 1e-13);
    CHECK_CLOSE(s2, sqrt(M_PI) / 2, 1e-13);
}

static double *matrix(ir_process_kind k, int gh, int n, const double *v, double *points)
{
    double *P = calloc((size_t)n * n, sizeof *P);
    char why[256];
    int rc = ir_process_discretize(k, gh, n, v, points, P, why, sizeof why);
    CHECK_MSG(rc == 0, "%s: %s", ir_process_name(k), why);
    return P;
}

static void check_rows(const double *P, int n, const char *what)
{
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) {
            CHECK(P[i * n + j] >= 0);
            s += P[i * n + j];
        }
        CHECK_MSG(fabs(s - 1) < 1e-12, "%s row %d sums to %.17g", what, i, s);
    }
}

/* mean and variance of the stationary distribution (power iteration) */
static void stationary(const double *P, const double *y, int n, double *mean, double *var)
{
    double *pi = malloc((size_t)n * sizeof *pi), *nx = malloc((size_t)n * sizeof *nx);
    for (int i = 0; i < n; ++i) pi[i] = 1.0 / n;
    for (int it = 0; it < 20000; ++it) {
        for (int j = 0; j < n; ++j) {
            nx[j] = 0;
            for (int i = 0; i < n; ++i) nx[j] += pi[i] * P[i * n + j];
        }
        double d = 0;
        for (int j = 0; j < n; ++j) d += fabs(nx[j] - pi[j]), pi[j] = nx[j];
        if (d < 1e-15) break;
    }
    *mean = *var = 0;
    for (int i = 0; i < n; ++i) *mean += pi[i] * y[i];
    for (int i = 0; i < n; ++i) *var += pi[i] * (y[i] - *mean) * (y[i] - *mean);
    free(pi), free(nx);
}

static void check_rouwenhorst(void)
{
    double rho = 0.9, sigma = 0.2, p = (1 + rho) / 2, y[64];
    double v[3] = {rho, sigma, 0.0};
    double *P = matrix(PROC_ROUWENHORST_AR1, 0, 2, v, y);
    CHECK_CLOSE(P[0], p, 1e-15);
    CHECK_CLOSE(P[1], 1 - p, 1e-15);
    CHECK_CLOSE(P[2], 1 - p, 1e-15);
    CHECK_CLOSE(P[3], p, 1e-15);
    double psi = sqrt(1 / (1 - rho * rho)) * sigma;
    CHECK_CLOSE(y[0], -psi, 1e-15);
    CHECK_CLOSE(y[1], psi, 1e-15);
    free(P);
    P = matrix(PROC_ROUWENHORST_AR1, 0, 3, v, y);
    const double want[9] = {p * p, 2 * p * (1 - p), (1 - p) * (1 - p),
                            p * (1 - p), p * p + (1 - p) * (1 - p), p * (1 - p),
                            (1 - p) * (1 - p), 2 * p * (1 - p), p * p};
    for (int i = 0; i < 9; ++i) CHECK_CLOSE(P[i], want[i], 1e-15);
    free(P);
    for (int n = 2; n <= 51; ++n) {
        double mu = 0.3;
        double w[3] = {rho, sigma, mu};
        P = matrix(PROC_ROUWENHORST_AR1, 0, n, w, y);
        check_rows(P, n, "rouwenhorst");
        double mean, var;
        stationary(P, y, n, &mean, &var);
        /* Rouwenhorst matches the unconditional mean and variance exactly */
        CHECK_MSG(fabs(mean - mu / (1 - rho)) < 1e-9 && fabs(var - sigma * sigma / (1 - rho * rho)) < 1e-9,
                  "n=%d: mean %.12g var %.12g", n, mean, var);
        free(P);
    }
}

static void check_tauchen(void)
{
    double rho = 0.8, sigma = 0.3, n_std = 3, y[64];
    double v[4] = {rho, sigma, 0.0, n_std};
    double *P = matrix(PROC_TAUCHEN_AR1, 0, 3, v, y);
    /* by hand: grid -3 sd, 0, 3 sd; cells split at -1.5 sd and 1.5 sd */
    double sd = sigma / sqrt(1 - rho * rho), Phi[2];
    CHECK_CLOSE(y[0], -3 * sd, 1e-15);
    CHECK(y[1] == 0);
    for (int i = 0; i < 3; ++i) {
        double yi = (i - 1) * 3 * sd;
        Phi[0] = 0.5 * erfc(-((-1.5 * sd - rho * yi) / sigma) / sqrt(2));
        Phi[1] = 0.5 * erfc(-((1.5 * sd - rho * yi) / sigma) / sqrt(2));
        CHECK_CLOSE(P[i * 3 + 0], Phi[0], 1e-15);
        CHECK_CLOSE(P[i * 3 + 1], Phi[1] - Phi[0], 1e-15);
        CHECK_CLOSE(P[i * 3 + 2], 1 - Phi[1], 1e-15);
    }
    free(P);
    /* fine grid: stationary moments close to the law (Tauchen's known error) */
    double w[4] = {0.9, 0.1, 0.05, 3.0};
    P = matrix(PROC_TAUCHEN_AR1, 0, 41, w, y);
    check_rows(P, 41, "tauchen");
    double mean, var, law_var = 0.01 / (1 - 0.81);
    stationary(P, y, 41, &mean, &var);
    CHECK_CLOSE(mean, 0.05 / 0.1, 1e-9);
    CHECK_MSG(fabs(var / law_var - 1) < 0.05, "tauchen variance %.6g vs %.6g", var, law_var);
    free(P);
    /* Gauss-Hermite nodes */
    double g[3] = {0.5, 0.2, 0.0};
    P = matrix(PROC_TAUCHEN_AR1, 1, 7, g, y);
    check_rows(P, 7, "tauchen gh");
    double x[7], wt[7];
    ir_gauss_hermite(7, x, wt);
    CHECK_CLOSE(y[6], 0.2 / sqrt(0.75) * sqrt(2) * x[6], 1e-14);
    free(P);
}

static void check_iid(void)
{
    double y[64];
    /* normal, Gauss-Hermite: mean and variance exact */
    double v[2] = {1.5, 0.4};
    double *P = matrix(PROC_NORMAL_IID, 1, 5, v, y);
    check_rows(P, 5, "normal gh");
    double mean, var;
    stationary(P, y, 5, &mean, &var);
    CHECK_CLOSE(mean, 1.5, 1e-13);
    CHECK_CLOSE(var, 0.16, 1e-13);
    for (int i = 1; i < 5; ++i) CHECK(!memcmp(P, P + i * 5, 5 * sizeof *P)); /* IID: equal rows */
    free(P);
    /* normal, equally spaced: CDF weights, variance close */
    double e[3] = {0.0, 1.0, 3.0};
    P = matrix(PROC_NORMAL_IID, 0, 31, e, y);
    check_rows(P, 31, "normal spaced");
    stationary(P, y, 31, &mean, &var);
    CHECK(fabs(mean) < 1e-12);
    CHECK_MSG(fabs(var - 1) < 0.02, "normal spaced variance %.6g", var);
    CHECK_CLOSE(P[0], 0.5 * erfc(-(-3 + 0.1) / sqrt(2)), 1e-15);
    free(P);
    /* lognormal, Gauss-Hermite: E[X] = exp(mu + sigma^2 / 2) */
    double l[2] = {0.2, 0.3};
    P = matrix(PROC_LOGNORMAL_IID, 1, 9, l, y);
    stationary(P, y, 9, &mean, &var);
    CHECK_CLOSE(mean, exp(0.2 + 0.045), 1e-9);
    CHECK_CLOSE(var, (exp(0.09) - 1) * exp(0.4 + 0.09), 1e-6);
    free(P);
    /* uniform: mean exact, variance of the discrete uniform */
    double u[2] = {-1.0, 3.0};
    P = matrix(PROC_UNIFORM_IID, 0, 9, u, y);
    stationary(P, y, 9, &mean, &var);
    CHECK_CLOSE(mean, 1.0, 1e-13);
    CHECK_CLOSE(var, 16.0 / 12 * 10 / 8, 1e-12);
    free(P);
    /* normal mixture: mean and variance of the mixture */
    double mx[6] = {3.0, 0.3, -0.5, 0.2, 0.2, 0.4};
    P = matrix(PROC_NORMAL_MIXTURE_IID, 0, 41, mx, y);
    check_rows(P, 41, "mixture");
    stationary(P, y, 41, &mean, &var);
    double m = 0.3 * -0.5 + 0.7 * 0.2, v2 = 0.3 * (0.04 + 0.25) + 0.7 * (0.16 + 0.04) - m * m;
    CHECK_CLOSE(mean, m, 2e-3);
    CHECK_MSG(fabs(var / v2 - 1) < 0.03, "mixture variance %.6g vs %.6g", var, v2);
    free(P);
    /* AR(1) with mixture innovations */
    double tm[8] = {0.7, 0.1, 3.0, 0.3, -0.5, 0.2, 0.2, 0.4};
    P = matrix(PROC_TAUCHEN_MIXTURE_AR1, 0, 41, tm, y);
    check_rows(P, 41, "tauchen mixture");
    stationary(P, y, 41, &mean, &var);
    double law_mean = (0.1 + m) / 0.3, law_var = v2 / (1 - 0.49);
    CHECK_MSG(fabs(mean - law_mean) < 0.01, "mixture ar1 mean %.6g vs %.6g", mean, law_mean);
    CHECK_MSG(fabs(var / law_var - 1) < 0.05, "mixture ar1 variance %.6g vs %.6g", var, law_var);
    free(P);
}

static void check_domains(void)
{
    double y[8], P[64];
    char why[256];
    double rw[3] = {1.0, 0.1, 0};
    CHECK(ir_process_discretize(PROC_ROUWENHORST_AR1, 0, 5, rw, y, P, why, sizeof why) && strstr(why, "rho"));
    double nn[2] = {0, -1};
    CHECK(ir_process_discretize(PROC_NORMAL_IID, 1, 5, nn, y, P, why, sizeof why) && strstr(why, "sigma"));
    double nan_[2] = {0.0 / 0.0, 1};
    CHECK(ir_process_discretize(PROC_NORMAL_IID, 1, 5, nan_, y, P, why, sizeof why) && strstr(why, "mu"));
    const char *names[8];
    CHECK(ir_process_params(PROC_TAUCHEN_AR1, 1, names) == 3 && ir_process_params(PROC_TAUCHEN_AR1, 0, names) == 4);
    CHECK(ir_process_by_name("rouwenhorst_ar1") == PROC_ROUWENHORST_AR1 && ir_process_by_name("x") < 0);
}

int main(void)
{
    check_gauss_hermite();
    check_rouwenhorst();
    check_tauchen();
    check_iid();
    check_domains();
    CHECK_DONE();
}
