/* process.c - see process.h. */
#include "process.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int ar1, gh;
    const char *params[IR_PROCESS_MAX_PARAMS + 1]; /* "n_std" is dropped with GH */
} kinds[PROC_COUNT] = {
    [PROC_NORMAL_IID] = {"normal_iid", 0, 1, {"mu", "sigma", "n_std"}},
    [PROC_LOGNORMAL_IID] = {"lognormal_iid", 0, 1, {"mu", "sigma", "n_std"}},
    [PROC_UNIFORM_IID] = {"uniform_iid", 0, 0, {"start", "stop"}},
    [PROC_NORMAL_MIXTURE_IID] = {"normal_mixture_iid", 0, 0, {"n_std", "p1", "mu1", "sigma1", "mu2", "sigma2"}},
    [PROC_TAUCHEN_AR1] = {"tauchen_ar1", 1, 1, {"rho", "sigma", "mu", "n_std"}},
    [PROC_ROUWENHORST_AR1] = {"rouwenhorst_ar1", 1, 0, {"rho", "sigma", "mu"}},
    [PROC_TAUCHEN_MIXTURE_AR1] = {"tauchen_normal_mixture_ar1", 1, 0,
                                  {"rho", "mu", "n_std", "p1", "mu1", "sigma1", "mu2", "sigma2"}},
};

const char *ir_process_name(ir_process_kind k) { return kinds[k].name; }
int ir_process_is_ar1(ir_process_kind k) { return kinds[k].ar1; }
int ir_process_has_gh(ir_process_kind k) { return kinds[k].gh; }

int ir_process_by_name(const char *name)
{
    for (int k = 0; k < PROC_COUNT; ++k)
        if (!strcmp(kinds[k].name, name)) return k;
    return -1;
}

int ir_process_params(ir_process_kind k, int gh, const char **names)
{
    int n = 0;
    for (const char *const *p = kinds[k].params; *p; ++p)
        if (!(gh && !strcmp(*p, "n_std"))) names[n++] = *p;
    return n;
}

double ir_normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* ---- Gauss-Hermite ---------------------------------------------------------
 * Newton's method on the orthonormal Hermite polynomials, from the standard
 * asymptotic starting values for the largest roots; roots come in +/- pairs. */
void ir_gauss_hermite(int n, double *x, double *w)
{
    const double pim4 = 0.7511255444649425; /* pi^(-1/4) */
    int m = (n + 1) / 2;
    double z = 0;
    for (int i = 0; i < m; ++i) {
        if (i == 0) z = sqrt(2.0 * n + 1) - 1.85575 * pow(2.0 * n + 1, -1.0 / 6);
        else if (i == 1) z -= 1.14 * pow((double)n, 0.426) / z;
        else if (i == 2) z = 1.86 * z - 0.86 * x[n - 1];
        else if (i == 3) z = 1.91 * z - 0.91 * x[n - 2];
        else z = 2 * z - x[n - i + 1];
        double pp = 0;
        for (int it = 0; it < 100; ++it) {
            double p1 = pim4, p2 = 0;
            for (int j = 1; j <= n; ++j) {
                double p3 = p2;
                p2 = p1;
                p1 = z * sqrt(2.0 / j) * p2 - sqrt((double)(j - 1) / j) * p3;
            }
            pp = sqrt(2.0 * n) * p2;
            double dz = p1 / pp;
            z -= dz;
            if (fabs(dz) <= 1e-15 * fmax(1.0, fabs(z))) break;
        }
        x[n - 1 - i] = z, x[i] = -z;
        w[n - 1 - i] = w[i] = 2.0 / (pp * pp);
    }
    if (n % 2) x[n / 2] = 0; /* exactly */
}

/* ---- helpers ----------------------------------------------------------------- */
static void linspace(double a, double b, int n, double *out)
{
    double step = (b - a) / (n - 1);
    for (int i = 0; i < n; ++i) out[i] = a + i * step;
    out[n - 1] = b;
}

static void gh_normal(int n, double mu, double sigma, double *nodes, double *weights)
{
    ir_gauss_hermite(n, nodes, weights);
    for (int i = 0; i < n; ++i) {
        nodes[i] = mu + sigma * sqrt(2.0) * nodes[i];
        weights[i] /= 1.7724538509055160273; /* sqrt(pi) */
    }
}

static double mixture_cdf(double x, const double *m) /* m = p1, mu1, sigma1, mu2, sigma2 */
{
    return m[0] * ir_normal_cdf((x - m[1]) / m[2]) + (1 - m[0]) * ir_normal_cdf((x - m[3]) / m[4]);
}

static void mixture_moments(const double *m, double *mean, double *sd)
{
    *mean = m[0] * m[1] + (1 - m[0]) * m[3];
    double var = m[0] * (m[2] * m[2] + m[1] * m[1]) + (1 - m[0]) * (m[4] * m[4] + m[3] * m[3]) - *mean * *mean;
    *sd = sqrt(var);
}

/* CDF binning on equally spaced points x: cell j collects (x_j - h, x_j + h],
 * the ends take the tails; `cdf` maps a point to a probability. */
static void bin_row(const double *x, int n, double shift, double (*cdf)(double, const void *), const void *ctx,
                    double *row)
{
    double h = 0.5 * (x[1] - x[0]);
    for (int j = 0; j < n; ++j) {
        double up = j == n - 1 ? 1.0 : cdf(x[j] + h - shift, ctx);
        double lo = j == 0 ? 0.0 : cdf(x[j] - h - shift, ctx);
        row[j] = up - lo;
    }
}

typedef struct normal_ctx {
    double mu, sigma;
} normal_ctx;

static double normal_cdf_ctx(double x, const void *c)
{
    const normal_ctx *n = c;
    return ir_normal_cdf((x - n->mu) / n->sigma);
}

static double mixture_cdf_ctx(double x, const void *c) { return mixture_cdf(x, c); }

static void same_rows(double *P, int n)
{
    for (int i = 1; i < n; ++i) memcpy(P + (size_t)i * n, P, (size_t)n * sizeof *P);
}

static int bad(char *why, size_t len, const char *fmt, double v)
{
    snprintf(why, len, fmt, v);
    return 1;
}

/* ---- the processes ---------------------------------------------------------- */
int ir_process_discretize(ir_process_kind k, int gh, int n, const double *v, double *points, double *P, char *why,
                          size_t whylen)
{
    const char *names[IR_PROCESS_MAX_PARAMS];
    int np = ir_process_params(k, gh, names);
    for (int i = 0; i < np; ++i)
        if (!isfinite(v[i])) {
            snprintf(why, whylen, "%s is %g, not a finite number", names[i], v[i]);
            return 1;
        }
    if (n < 1) return bad(why, whylen, "n_points is %g", n);
    switch (k) {
    case PROC_NORMAL_IID:
    case PROC_LOGNORMAL_IID: {
        double mu = v[0], sigma = v[1];
        if (sigma <= 0) return bad(why, whylen, "sigma must be positive (got %g)", sigma);
        if (gh) {
            gh_normal(n, mu, sigma, points, P);
        } else {
            double n_std = v[2];
            if (n_std <= 0) return bad(why, whylen, "n_std must be positive (got %g)", n_std);
            if (n < 2) return bad(why, whylen, "n_points must be at least 2 without Gauss-Hermite (got %g)", n);
            linspace(mu - n_std * sigma, mu + n_std * sigma, n, points);
            normal_ctx c = {mu, sigma};
            bin_row(points, n, 0, normal_cdf_ctx, &c, P);
        }
        if (k == PROC_LOGNORMAL_IID)
            for (int i = 0; i < n; ++i) points[i] = exp(points[i]);
        same_rows(P, n);
        return 0;
    }
    case PROC_UNIFORM_IID:
        if (!(v[0] < v[1])) return bad(why, whylen, "start must be below stop (start = %g)", v[0]);
        if (n < 2) return bad(why, whylen, "n_points must be at least 2 (got %g)", n);
        linspace(v[0], v[1], n, points);
        for (int j = 0; j < n; ++j) P[j] = 1.0 / n;
        same_rows(P, n);
        return 0;
    case PROC_NORMAL_MIXTURE_IID: {
        double n_std = v[0], mean, sd;
        const double *mix = v + 1;
        if (n_std <= 0) return bad(why, whylen, "n_std must be positive (got %g)", n_std);
        if (!(mix[0] >= 0 && mix[0] <= 1)) return bad(why, whylen, "p1 must be a probability (got %g)", mix[0]);
        if (mix[2] <= 0 || mix[4] <= 0) return bad(why, whylen, "sigma1 and sigma2 must be positive (sigma1 = %g)", mix[2]);
        if (n < 2) return bad(why, whylen, "n_points must be at least 2 (got %g)", n);
        mixture_moments(mix, &mean, &sd);
        linspace(mean - n_std * sd, mean + n_std * sd, n, points);
        bin_row(points, n, 0, mixture_cdf_ctx, mix, P);
        same_rows(P, n);
        return 0;
    }
    case PROC_TAUCHEN_AR1: {
        double rho = v[0], sigma = v[1], mu = v[2];
        if (!(fabs(rho) < 1)) return bad(why, whylen, "rho must be inside (-1, 1) (got %g)", rho);
        if (sigma <= 0) return bad(why, whylen, "sigma must be positive (got %g)", sigma);
        if (n < 2) return bad(why, whylen, "n_points must be at least 2 (got %g)", n);
        double sd_y = sigma / sqrt(1 - rho * rho), mean = mu / (1 - rho);
        double *nodes = malloc((size_t)n * sizeof *nodes), *wts = malloc((size_t)n * sizeof *wts);
        if (gh) gh_normal(n, 0, sd_y, nodes, wts);
        else {
            if (v[3] <= 0) {
                free(nodes), free(wts);
                return bad(why, whylen, "n_std must be positive (got %g)", v[3]);
            }
            linspace(-v[3] * sd_y, v[3] * sd_y, n, nodes);
        }
        /* probabilities from the midpoints between centred nodes */
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double up = j == n - 1 ? 1.0 : ir_normal_cdf((0.5 * (nodes[j] + nodes[j + 1]) - rho * nodes[i]) / sigma);
                double lo = j == 0 ? 0.0 : ir_normal_cdf((0.5 * (nodes[j - 1] + nodes[j]) - rho * nodes[i]) / sigma);
                P[(size_t)i * n + j] = up - lo;
            }
        for (int i = 0; i < n; ++i) points[i] = nodes[i] + mean;
        free(nodes), free(wts);
        return 0;
    }
    case PROC_ROUWENHORST_AR1: {
        double rho = v[0], sigma = v[1], mu = v[2];
        if (!(fabs(rho) < 1)) return bad(why, whylen, "rho must be inside (-1, 1) (got %g)", rho);
        if (sigma <= 0) return bad(why, whylen, "sigma must be positive (got %g)", sigma);
        if (n < 2) return bad(why, whylen, "n_points must be at least 2 (got %g)", n);
        double psi = sqrt((n - 1) / (1 - rho * rho)) * sigma, mean = mu / (1 - rho);
        linspace(mean - psi, mean + psi, n, points);
        /* Kopecky & Suen (2010): build P_n from P_{n-1}, halve the inner rows */
        double p = (1 + rho) / 2, q = p;
        double *prev = calloc((size_t)n * n, sizeof *prev);
        prev[0] = p, prev[1] = 1 - p, prev[2] = 1 - q, prev[3] = q;
        for (int m = 3; m <= n; ++m) {
            memset(P, 0, (size_t)m * m * sizeof *P);
            for (int i = 0; i < m - 1; ++i)
                for (int j = 0; j < m - 1; ++j) {
                    double e = prev[(size_t)i * (m - 1) + j];
                    P[(size_t)i * m + j] += p * e;
                    P[(size_t)i * m + j + 1] += (1 - p) * e;
                    P[(size_t)(i + 1) * m + j] += (1 - q) * e;
                    P[(size_t)(i + 1) * m + j + 1] += q * e;
                }
            for (int i = 1; i < m - 1; ++i)
                for (int j = 0; j < m; ++j) P[(size_t)i * m + j] /= 2;
            memcpy(prev, P, (size_t)m * m * sizeof *P);
        }
        if (n == 2) memcpy(P, prev, 4 * sizeof *P);
        free(prev);
        return 0;
    }
    case PROC_TAUCHEN_MIXTURE_AR1: {
        double rho = v[0], mu = v[1], n_std = v[2], mean_eps, sd_eps;
        const double *mix = v + 3;
        if (!(fabs(rho) < 1)) return bad(why, whylen, "rho must be inside (-1, 1) (got %g)", rho);
        if (n_std <= 0) return bad(why, whylen, "n_std must be positive (got %g)", n_std);
        if (!(mix[0] >= 0 && mix[0] <= 1)) return bad(why, whylen, "p1 must be a probability (got %g)", mix[0]);
        if (mix[2] <= 0 || mix[4] <= 0) return bad(why, whylen, "sigma1 and sigma2 must be positive (sigma1 = %g)", mix[2]);
        if (n < 2) return bad(why, whylen, "n_points must be at least 2 (got %g)", n);
        mixture_moments(mix, &mean_eps, &sd_eps);
        double sd_y = sd_eps / sqrt(1 - rho * rho), mean = (mu + mean_eps) / (1 - rho);
        linspace(mean - n_std * sd_y, mean + n_std * sd_y, n, points);
        for (int i = 0; i < n; ++i) /* innovation needed to reach x_j from x_i: x_j - mu - rho x_i */
            bin_row(points, n, mu + rho * points[i], mixture_cdf_ctx, mix, P + (size_t)i * n);
        return 0;
    }
    default:
        snprintf(why, whylen, "unknown process");
        return 1;
    }
}
