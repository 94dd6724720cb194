/* lcm_pow (templates/arith.h): against the C library's pow over a wide
 * range of bases for every exponent it computes without pow: within 3 ulp
 * (x * x, 1 / x and the identities exactly), the same NaNs, infinities and
 * signed zeros; any other exponent is pow itself. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "arith.h"
#include "check.h"

/* distance in units in the last place (0 for equal values, equal NaNs) */
static double ulps(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : INFINITY;
    if (a == b) return signbit(a) == signbit(b) ? 0 : INFINITY; /* -0 vs +0 */
    if (isinf(a) || isinf(b)) return INFINITY;
    double d = fabs(a - b), u = fabs(nextafter(b, INFINITY) - b);
    return u > 0 ? d / u : INFINITY;
}

int main(void)
{
    const double exponents[] = {2, -1, 1, 0, 0.5, 3, -2, -0.5, 1.5, 2.5, -0.25, 7};
    double bases[400];
    int nb = 0;
    for (int k = -300; k <= 300; k += 5) bases[nb++] = 1.37 * pow(10, k), bases[nb++] = -0.73 * pow(10, k);
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1, -1, DBL_MIN / 3, DBL_MAX, 0.1, 2.5, 1e-5};
    for (size_t i = 0; i < sizeof special / sizeof *special; ++i) bases[nb++] = special[i];
    for (size_t e = 0; e < sizeof exponents / sizeof *exponents; ++e) {
        double y = exponents[e], worst = 0;
        for (int i = 0; i < nb; ++i) {
            double x = bases[i], got = lcm_pow(x, y), want = pow(x, y), d = ulps(got, want);
            CHECK_MSG(d == 0, "lcm_pow(%.17g, %g) = %.17g, pow = %.17g (%.3g ulp)", x, y, got, want, d);
            if (d > worst) worst = d;
        }
        printf("exponent %5g: largest difference to pow %.2f ulp\n", y, worst);
    }
    /* lcm_div: the quotient, bit for bit, at every divisor it reduces and
     * the others, over the same bases (NaN for NaN) */
    const double divisors[] = {-1, 1, 2, -2, 0.5, -0.5, 3, 0.1, 0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN / 3};
    for (size_t k = 0; k < sizeof divisors / sizeof *divisors; ++k)
        for (int i = 0; i < nb; ++i) {
            double x = bases[i], y = divisors[k], got = lcm_div(x, y), want = x / y;
            CHECK_MSG(ulps(got, want) == 0, "lcm_div(%.17g, %g) = %.17g, x / y = %.17g", x, y, got, want);
        }
    /* the staged loop's forms, decided once per state: lcm_pow_by at the
     * exponents lcm_pow_kind names is lcm_pow to the bit, and the others
     * are named 0; x * lcm_div_by(y) is lcm_div (NaN for NaN), or the
     * factor is 0 */
    for (size_t e = 0; e < sizeof exponents / sizeof *exponents; ++e) {
        double y = exponents[e];
        int kind = lcm_pow_kind(y);
        CHECK_MSG((kind != 0) == (y == 2 || y == -1 || y == 1 || y == 0), "lcm_pow_kind(%g) = %d", y, kind);
        for (int i = 0; kind && i < nb; ++i) {
            double x = bases[i], got = lcm_pow_by(x, kind), want = lcm_pow(x, y);
            CHECK_MSG(ulps(got, want) == 0, "lcm_pow_by(%.17g, kind of %g) = %.17g, lcm_pow = %.17g", x, y, got, want);
        }
    }
    for (size_t k = 0; k < sizeof divisors / sizeof *divisors; ++k) {
        double y = divisors[k], f = lcm_div_by(y);
        int reduced = y == -1 || y == 1 || y == 2 || y == -2 || y == 0.5 || y == -0.5;
        CHECK_MSG((f != 0) == reduced, "lcm_div_by(%g) = %g", y, f);
        for (int i = 0; reduced && i < nb; ++i) {
            double x = bases[i], got = x * f, want = lcm_div(x, y);
            CHECK_MSG(ulps(got, want) == 0, "%.17g * lcm_div_by(%g) = %.17g, lcm_div = %.17g", x, y, got, want);
        }
    }
    /* any exponent: pow's value */
    for (double y = -4; y <= 4; y += 0.1) CHECK_MSG(lcm_pow(2.7, y) == pow(2.7, y), "y %g", y);
    CHECK_DONE();
}
