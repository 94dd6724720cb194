/* The random draws of simulation (templates/random.h): Philox4x32-10
 * against the Random123 known-answer vectors, uniforms inside (0, 1),
 * categorical picks, and every shock process's next-value and initial
 * laws against their means and variances (200,000 draws, 4.5 standard
 * errors). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "random.h"

static void check_known_answers(void)
{
    static const lcm_u32 cases[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1},
    };
    for (int c = 0; c < 3; ++c) {
        lcm_u32 out[4];
        lcm_philox4x32_10(cases[c], cases[c] + 4, out);
        for (int i = 0; i < 4; ++i) CHECK_MSG(out[i] == cases[c][6 + i], "vector %d word %d: %08x", c, i, out[i]);
    }
}

static void check_uniforms_and_picks(void)
{
    double lo = 1, hi = 0, sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        double u[2];
        lcm_uniform2(7, (lcm_u64)i, 3, LCM_DRAW_REGIME, 0, u);
        lo = fmin(lo, fmin(u[0], u[1])), hi = fmax(hi, fmax(u[0], u[1]));
        sum += u[0] + u[1];
    }
    CHECK(lo > 0 && hi < 1);
    CHECK(fabs(sum / (2.0 * n) - 0.5) < 4.5 * sqrt(1.0 / 12 / (2.0 * n)));
    /* streams differ by subject, period, purpose and seed */
    double a = lcm_uniform(1, 2, 3, 4);
    CHECK(a != lcm_uniform(1, 3, 3, 4) && a != lcm_uniform(1, 2, 4, 4) && a != lcm_uniform(1, 2, 3, 5) &&
          a != lcm_uniform(2, 2, 3, 4));
    CHECK(a == lcm_uniform(1, 2, 3, 4));
    /* picks: inverse CDF, zero-probability entries never, rounding to the last positive */
    const double p[] = {0.2, 0, 0.5, 0.3, 0};
    CHECK(lcm_pick(p, 5, 0.1) == 0 && lcm_pick(p, 5, 0.2) == 2 && lcm_pick(p, 5, 0.69) == 2);
    CHECK(lcm_pick(p, 5, 0.71) == 3 && lcm_pick(p, 5, 0.9999999999) == 3);
    const double short_sum[] = {0.3, 0.3};
    CHECK(lcm_pick(short_sum, 2, 0.9) == 1);
    const double none[] = {0, -1, NAN};
    CHECK(lcm_pick(none, 3, 0.5) == -1);
    CHECK(lcm_probs_valid(p, 5, 1e-9) && !lcm_probs_valid(short_sum, 2, 1e-9) && !lcm_probs_valid(none, 3, 1e-9));
    /* lcm_pick_drawn skips the draw only where no u changes the pick: over
     * many subjects it picks exactly what lcm_pick picks at the stream's u */
    const double one[] = {0, NAN, 0.7, 0}, certain[] = {0, 1};
    int same = 1;
    for (lcm_u64 i = 0; i < 20000; ++i) {
        const double u = lcm_uniform(7, i, 3, LCM_DRAW_REGIME);
        same &= lcm_pick_drawn(p, 5, 7, i, 3, LCM_DRAW_REGIME) == lcm_pick(p, 5, u);
        same &= lcm_pick_drawn(short_sum, 2, 7, i, 3, LCM_DRAW_REGIME) == lcm_pick(short_sum, 2, u);
        same &= lcm_pick_drawn(one, 4, 7, i, 3, LCM_DRAW_REGIME) == lcm_pick(one, 4, u);
        same &= lcm_pick_drawn(certain, 2, 7, i, 3, LCM_DRAW_REGIME) == lcm_pick(certain, 2, u);
        same &= lcm_pick_drawn(none, 3, 7, i, 3, LCM_DRAW_REGIME) == lcm_pick(none, 3, u);
    }
    CHECK(same && lcm_pick_drawn(one, 4, 1, 2, 3, 4) == 2 && lcm_pick_drawn(none, 3, 1, 2, 3, 4) == -1);
}

/* Mean and variance of n draws of a process (next values from y, or initial). */
static void moments(int kind, const double *v, double y, int initial, double *mean, double *var)
{
    const int n = 200000;
    double s = 0, ss = 0;
    for (int i = 0; i < n; ++i) {
        double x = initial ? lcm_process_initial(kind, v, 5, (lcm_u64)i, LCM_DRAW_INITIAL)
                           : lcm_process_next(kind, v, y, 5, (lcm_u64)i, 2, LCM_DRAW_STATE);
        s += x, ss += x * x;
    }
    *mean = s / n;
    *var = ss / n - *mean * *mean;
}

static void expect(const char *what, int kind, const double *v, double y, int initial, double mean, double var,
                   double kurtosis_factor)
{
    double m, s2;
    moments(kind, v, y, initial, &m, &s2);
    const double n = 200000;
    CHECK_MSG(fabs(m - mean) <= 4.5 * sqrt(var / n), "%s: mean %.6f, expected %.6f", what, m, mean);
    CHECK_MSG(fabs(s2 - var) <= 4.5 * var * sqrt(kurtosis_factor / n), "%s: variance %.6f, expected %.6f", what, s2,
              var);
}

static void check_laws(void)
{
    const double normal[] = {0.5, 2.0};
    expect("normal", LCM_PROC_NORMAL_IID, normal, 0, 0, 0.5, 4.0, 2);
    const double lognormal[] = {0.1, 0.3};
    double lm = exp(0.1 + 0.045), lv = (exp(0.09) - 1) * exp(0.2 + 0.09);
    expect("lognormal", LCM_PROC_LOGNORMAL_IID, lognormal, 0, 0, lm, lv, 20);
    const double uniform[] = {-1, 3};
    expect("uniform", LCM_PROC_UNIFORM_IID, uniform, 0, 0, 1, 16.0 / 12, 1);
    /* mixture: n_std, p1, mu1, sigma1, mu2, sigma2 */
    const double mix[] = {3, 0.3, -1, 0.5, 2, 1};
    double mm = 0.3 * -1 + 0.7 * 2, mv = 0.3 * (0.25 + 1) + 0.7 * (1 + 4) - mm * mm;
    expect("normal mixture", LCM_PROC_NORMAL_MIXTURE_IID, mix, 0, 0, mm, mv, 4);
    /* AR(1): rho, sigma, mu: from y = 2 the next value is N(mu + rho y, sigma^2) */
    const double ar[] = {0.8, 0.3, 0.1};
    expect("tauchen next", LCM_PROC_TAUCHEN_AR1, ar, 2, 0, 0.1 + 1.6, 0.09, 2);
    expect("rouwenhorst next", LCM_PROC_ROUWENHORST_AR1, ar, 2, 0, 0.1 + 1.6, 0.09, 2);
    expect("rouwenhorst initial", LCM_PROC_ROUWENHORST_AR1, ar, 0, 1, 0.1 / 0.2, 0.09 / 0.36, 2);
    /* mixture AR(1): rho, mu, n_std, p1, mu1, sigma1, mu2, sigma2 */
    const double mar[] = {0.7, 0.2, 3, 0.3, -1, 0.5, 2, 1};
    expect("mixture AR(1) next", LCM_PROC_TAUCHEN_MIXTURE_AR1, mar, 1, 0, 0.2 + 0.7 + mm, mv, 4);
    expect("mixture AR(1) initial", LCM_PROC_TAUCHEN_MIXTURE_AR1, mar, 0, 1, (0.2 + mm) / 0.3, mv / (1 - 0.49), 4);
    /* IID laws draw their initial values from the law itself */
    expect("normal initial", LCM_PROC_NORMAL_IID, normal, 0, 1, 0.5, 4.0, 2);
}

int main(void)
{
    check_known_answers();
    check_uniforms_and_picks();
    check_laws();
    CHECK_DONE();
}
