/* process.h - discretised shock processes: grid points and transition
 * matrices, computed once per solve in float64.
 *
 * Definitions follow QuantEcon (Tauchen), Kopecky & Suen (2010)
 * (Rouwenhorst) and Fella, Gallipoli & Pan (2019) (normal mixtures), as in
 * pylcm; docs/grids-and-processes.md gives the formulas.  A process of n
 * points has P[i*n + j] = probability of point j next given point i now;
 * IID processes have identical rows.
 */
#ifndef LCM_PROCESS_H
#define LCM_PROCESS_H

#include <stddef.h>

typedef enum ir_process_kind {
    PROC_NORMAL_IID = 0,
    PROC_LOGNORMAL_IID,
    PROC_UNIFORM_IID,
    PROC_NORMAL_MIXTURE_IID,
    PROC_TAUCHEN_AR1,
    PROC_ROUWENHORST_AR1,
    PROC_TAUCHEN_MIXTURE_AR1,
    PROC_COUNT
} ir_process_kind;

#define IR_PROCESS_MAX_PARAMS 8

const char *ir_process_name(ir_process_kind k);  /* "rouwenhorst_ar1", ... */
int ir_process_by_name(const char *name);        /* -1 if unknown */
int ir_process_is_ar1(ir_process_kind k);
/* Whether the kind offers Gauss-Hermite nodes (normal, lognormal, tauchen). */
int ir_process_has_gh(ir_process_kind k);
/* Parameter names of a kind, in the order ir_process_discretize reads
 * them (n_std is dropped with Gauss-Hermite nodes); returns the count. */
int ir_process_params(ir_process_kind k, int gauss_hermite, const char **names);

/* Fills points[n] and P[n*n].  Returns 0, or 1 with `why` saying which
 * parameter is out of its domain. */
int ir_process_discretize(ir_process_kind k, int gauss_hermite, int n, const double *values, double *points,
                          double *P, char *why, size_t whylen);

/* Gauss-Hermite rule for weight exp(-x^2): n nodes, increasing, and their
 * weights (summing to sqrt(pi)). */
void ir_gauss_hermite(int n, double *x, double *w);
double ir_normal_cdf(double x);

#endif
