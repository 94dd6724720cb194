/* random.h - the random draws of simulation: counter-based, so a draw is a
 * pure function of (seed, subject, period, purpose) and a panel does not
 * depend on how subjects are batched, on the number of devices or on the
 * backend.  One text for the generated kernels (C11 and CUDA, pasted after
 * the prelude) and the runtime (included, for the interpreter and the
 * initial draws of shock processes).  All draws are computed in double.
 *
 * Generator: Philox4x32-10 (Salmon, Moraes, Dror & Shaw 2011, "Parallel
 * random numbers: as easy as 1, 2, 3"), checked against the Random123
 * known-answer vectors in tests/unit/test_random.c.
 */
#ifndef LCM_RANDOM_H
#define LCM_RANDOM_H

#ifndef LCM_DEVICE
#  include <math.h>
#  define LCM_DEVICE static inline
#endif

typedef unsigned int lcm_u32;
typedef unsigned long long lcm_u64;

/* What a draw is for: each purpose has its own stream per (subject, period). */
#define LCM_DRAW_REGIME 0u            /* the next regime */
#define LCM_DRAW_STATE 1u             /* + state slot: the next value of a stochastic state */
#define LCM_DRAW_INITIAL (1u << 20)   /* + state slot: a process's value where the initial conditions omit it */
#define LCM_DRAW_TASTE (2u << 20)     /* block d: the taste shock of discrete choice d */

/* Shock processes (the order of ir_process_kind, checked in the runtime). */
#define LCM_PROC_NORMAL_IID 0
#define LCM_PROC_LOGNORMAL_IID 1
#define LCM_PROC_UNIFORM_IID 2
#define LCM_PROC_NORMAL_MIXTURE_IID 3
#define LCM_PROC_TAUCHEN_AR1 4
#define LCM_PROC_ROUWENHORST_AR1 5
#define LCM_PROC_TAUCHEN_MIXTURE_AR1 6

/* ---- Philox4x32-10 ------------------------------------------------------- */
LCM_DEVICE void lcm_philox4x32_10(const lcm_u32 ctr[4], const lcm_u32 key[2], lcm_u32 out[4])
{
    lcm_u32 c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
        if (round > 0) k0 += 0x9E3779B9u, k1 += 0xBB67AE85u; /* the Weyl key schedule */
        const lcm_u64 p0 = (lcm_u64)0xD2511F53u * c0, p1 = (lcm_u64)0xCD9E8D57u * c2;
        const lcm_u32 hi0 = (lcm_u32)(p0 >> 32), lo0 = (lcm_u32)p0, hi1 = (lcm_u32)(p1 >> 32), lo1 = (lcm_u32)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* Two uniforms on (0, 1) from block `block` of a stream: 53 random bits
 * each, centred in their interval, so never 0 or 1.  The counter is
 * (subject, step, purpose and block), the key the seed; `step` is the
 * period (or the burn-in step of an initial draw). */
LCM_DEVICE void lcm_uniform2(lcm_u64 seed, lcm_u64 subject, lcm_u32 step, lcm_u32 purpose, lcm_u32 block,
                             double u[2])
{
    const lcm_u32 ctr[4] = {(lcm_u32)subject, (lcm_u32)(subject >> 32), step, (purpose << 8) | (block & 0xffu)};
    const lcm_u32 key[2] = {(lcm_u32)seed, (lcm_u32)(seed >> 32)};
    lcm_u32 w[4];
    lcm_philox4x32_10(ctr, key, w);
    const double scale = 1.0 / 9007199254740992.0; /* 2^-53 */
    u[0] = ((double)((((lcm_u64)w[0] << 32) | w[1]) >> 11) + 0.5) * scale;
    u[1] = ((double)((((lcm_u64)w[2] << 32) | w[3]) >> 11) + 0.5) * scale;
}

LCM_DEVICE double lcm_uniform(lcm_u64 seed, lcm_u64 subject, lcm_u32 step, lcm_u32 purpose)
{
    double u[2];
    lcm_uniform2(seed, subject, step, purpose, 0, u);
    return u[0];
}

/* A standard normal (Box-Muller) from block `block`. */
LCM_DEVICE double lcm_normal(lcm_u64 seed, lcm_u64 subject, lcm_u32 step, lcm_u32 purpose, lcm_u32 block)
{
    double u[2];
    lcm_uniform2(seed, subject, step, purpose, block, u);
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586477 * u[1]);
}

/* The taste shock of discrete choice d: a standard Gumbel (EV1)
 * -log(-log u), from block d of the taste stream. */
LCM_DEVICE double lcm_gumbel(lcm_u64 seed, lcm_u64 subject, lcm_u32 step, lcm_u32 d)
{
    double u[2];
    lcm_uniform2(seed, subject, step, LCM_DRAW_TASTE, d, u);
    return -log(-log(u[0]));
}

/* ---- categorical draws ------------------------------------------------------ */
/* The first i whose cumulative probability exceeds u; when rounding leaves
 * u above the total, the last i with positive probability; -1 when none. */
LCM_DEVICE int lcm_pick(const double *p, int n, double u)
{
    double acc = 0;
    int last = -1;
    for (int i = 0; i < n; ++i) {
        if (!(p[i] > 0)) continue;
        acc += p[i];
        last = i;
        if (u < acc) return i;
    }
    return last;
}

/* lcm_pick at the uniform of stream (seed, subject, step, purpose), drawn
 * only where it can matter: with at most one positive probability the pick
 * is that one (or -1) whatever u is, so a deterministic regime or state
 * transition costs no draw and picks what lcm_pick would. */
LCM_DEVICE int lcm_pick_drawn(const double *p, int n, lcm_u64 seed, lcm_u64 subject, lcm_u32 step, lcm_u32 purpose)
{
    int positive = 0, only = -1;
    for (int i = 0; i < n; ++i)
        if (p[i] > 0) ++positive, only = i;
    return positive <= 1 ? only : lcm_pick(p, n, lcm_uniform(seed, subject, step, purpose));
}

/* No negative or NaN entry, and a sum within tol of 1. */
LCM_DEVICE int lcm_probs_valid(const double *p, int n, double tol)
{
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        if (!(p[i] >= 0)) return 0;
        sum += p[i];
    }
    return fabs(sum - 1.0) <= tol;
}

/* ---- shock processes ---------------------------------------------------------
 * Parameters v[] in the order of ir_process_params (docs/grids-and-processes.md):
 *   normal_iid, lognormal_iid    mu, sigma [, n_std]
 *   uniform_iid                  start, stop
 *   normal_mixture_iid           n_std, p1, mu1, sigma1, mu2, sigma2
 *   tauchen_ar1, rouwenhorst_ar1 rho, sigma, mu [, n_std]
 *   tauchen_normal_mixture_ar1   rho, mu, n_std, p1, mu1, sigma1, mu2, sigma2
 * Draws come from the continuous law, not from the discretisation (the
 * next period reads V by interpolation between the nodes, as pylcm does). */

/* p1 N(mu1, sigma1^2) + (1 - p1) N(mu2, sigma2^2), m = {p1, mu1, sigma1, mu2, sigma2} */
LCM_DEVICE double lcm_mixture_draw(const double *m, lcm_u64 seed, lcm_u64 subject, lcm_u32 step, lcm_u32 purpose)
{
    const double z = lcm_normal(seed, subject, step, purpose, 0);
    double u[2];
    lcm_uniform2(seed, subject, step, purpose, 1, u);
    return u[0] < m[0] ? m[1] + m[2] * z : m[3] + m[4] * z;
}

/* The next value of a process whose current value is y (AR(1); unused by IID laws). */
LCM_DEVICE double lcm_process_next(int kind, const double *v, double y, lcm_u64 seed, lcm_u64 subject,
                                   lcm_u32 step, lcm_u32 purpose)
{
    switch (kind) {
    case LCM_PROC_NORMAL_IID: return v[0] + v[1] * lcm_normal(seed, subject, step, purpose, 0);
    case LCM_PROC_LOGNORMAL_IID: return exp(v[0] + v[1] * lcm_normal(seed, subject, step, purpose, 0));
    case LCM_PROC_UNIFORM_IID: return v[0] + (v[1] - v[0]) * lcm_uniform(seed, subject, step, purpose);
    case LCM_PROC_NORMAL_MIXTURE_IID: return lcm_mixture_draw(v + 1, seed, subject, step, purpose);
    case LCM_PROC_TAUCHEN_AR1:
    case LCM_PROC_ROUWENHORST_AR1: return v[2] + v[0] * y + v[1] * lcm_normal(seed, subject, step, purpose, 0);
    case LCM_PROC_TAUCHEN_MIXTURE_AR1: return v[1] + v[0] * y + lcm_mixture_draw(v + 3, seed, subject, step, purpose);
    default: return NAN;
    }
}

/* A value from the process's stationary law, for a subject whose initial
 * conditions omit it.  IID: the law itself; normal AR(1): the normal with
 * the unconditional mean and variance; mixture AR(1): its MA(infinity) sum
 * rho^k eps_k drawn term by term until rho^k < 0.01 (at most 1000 terms),
 * the rest (at most 1e-4 of the variance) drawn as a normal with the
 * tail's mean and variance. */
LCM_DEVICE double lcm_process_initial(int kind, const double *v, lcm_u64 seed, lcm_u64 subject, lcm_u32 purpose)
{
    if (kind == LCM_PROC_TAUCHEN_AR1 || kind == LCM_PROC_ROUWENHORST_AR1) {
        const double rho = v[0], sigma = v[1], mu = v[2];
        return mu / (1 - rho) + sigma / sqrt(1 - rho * rho) * lcm_normal(seed, subject, 0, purpose, 0);
    }
    if (kind != LCM_PROC_TAUCHEN_MIXTURE_AR1) return lcm_process_next(kind, v, 0.0, seed, subject, 0, purpose);
    const double rho = v[0], mu = v[1], *m = v + 3;
    const double mean_eps = m[0] * m[1] + (1 - m[0]) * m[3];
    const double var_eps = m[0] * (m[2] * m[2] + m[1] * m[1]) + (1 - m[0]) * (m[4] * m[4] + m[3] * m[3]) -
                           mean_eps * mean_eps;
    double y = 0, w = 1;
    lcm_u32 k = 0;
    for (; k < 1000 && fabs(w) >= 0.01; ++k, w *= rho) y += w * (mu + lcm_mixture_draw(m, seed, subject, k, purpose));
    const double tail_mean = w * (mu + mean_eps) / (1 - rho), tail_sd = fabs(w) * sqrt(var_eps / (1 - rho * rho));
    return y + tail_mean + tail_sd * lcm_normal(seed, subject, k, purpose, 2);
}

#endif
