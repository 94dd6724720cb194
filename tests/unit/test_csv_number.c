/* io_csv_format (runtime/io/csv_number.c): its exact integer path gives
 * the text of the snprintf definition, byte for byte, on numbers drawn to
 * reach every branch: random bit patterns over the whole range and in the
 * path's range, values a hair from powers of ten (where the exponent
 * estimate and the rounding to a new power of ten are decided), integers,
 * short decimals, dyadic values with exact ties at 15 and 16 digits, the
 * smallest significand (whose lower neighbour is closer), float32 values;
 * both precisions.  Then the speed of both, printed, not asserted. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "csv_number.h"

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) /* splitmix64 */
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static long compared, failed;

static void same(double x, int precision)
{
    char fast[LCM_CSV_NUMBER_MAX], slow[LCM_CSV_NUMBER_MAX];
    int nf = io_csv_format(fast, x, precision), ns = io_csv_format_printf(slow, x, precision);
    ++compared;
    if (nf == ns && !strcmp(fast, slow) && (int)strlen(fast) == nf) return;
    if (++failed <= 20)
        CHECK_MSG(0, "%a (precision %d): '%s' (%d), the definition '%s' (%d)", x, precision, fast, nf, slow, ns);
    else ++check_failures;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    for (int i = 0; i < 300000; ++i) { /* any bits; then the path's range, 1e-16 to 1e18 */
        same(from_bits(next()), 64);
        double e = -16 + 34.0 * (double)(next() >> 11) / 9007199254740992.0;
        double x = pow(10, e) * ((next() & 1) ? -1 : 1);
        same(x, 64);
        same(nextafter(x, 0), 64);
        same((double)(float)x, 32);
    }
    for (int k = -17; k <= 19; ++k) { /* around powers of ten and the digits' edges */
        double p = pow(10, k);
        double y = p;
        for (int s = 0; s < 40; ++s) same(y, 64), same((double)(float)y, 32), y = nextafter(y, 0);
        y = p;
        for (int s = 0; s < 40; ++s) same(y, 64), same((double)(float)y, 32), y = nextafter(y, INFINITY);
        for (int d = 1; d <= 9; ++d) same(d * p, 64), same(-d * p * 0.999999999999999, 64), same(p * (1 - 1e-17 * d), 64);
    }
    for (int i = 0; i < 200000; ++i) { /* integers, short decimals, grid-like values */
        same((double)(int64_t)(next() % 2000000000000000000ull), 64);
        same((double)(next() % 100000) / 100, 64);
        same(0.1 + 0.5444444444444444 * (double)(i % 10), 64);
        same(log(1 + (double)(i % 997)) * 3.7, 64);
    }
    for (int i = 0; i < 200000; ++i) { /* dyadic values: m 2^-k has exact ties at some digit count */
        uint64_t m = next() >> (11 + next() % 40);
        double x = ldexp((double)m, -(int)(next() % 70));
        same(x, 64), same((double)(float)x, 32);
    }
    for (int e = 1; e < 2046; ++e) same(from_bits((uint64_t)e << 52), 64); /* smallest significands */
    for (int e = 1; e < 254; ++e) {
        uint32_t u = (uint32_t)e << 23;
        float f;
        memcpy(&f, &u, sizeof f);
        same(f, 32);
    }
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, DBL_MAX, DBL_TRUE_MIN, 5e-324, 1e-15,
                              1e17, 123456789012345678.0, 0.1, 50.63, 1e21, 9.5, 0.5, 2.5e-5};
    for (size_t i = 0; i < sizeof special / sizeof *special; ++i) same(special[i], 64), same(special[i], 32);
    printf("%ld numbers compared, %ld differ\n", compared, failed);

    /* precision 32 writes a double that is no float as a double: the text
     * reads back to the value (a float32 panel holds its initial states as
     * given); a float still gets the float's fewest digits */
    const double not_floats[] = {-0.13745409961269137, 0.1, 4.166666666666666, 1e300, 1e-300};
    for (size_t i = 0; i < sizeof not_floats / sizeof *not_floats; ++i) {
        char a[LCM_CSV_NUMBER_MAX], b[LCM_CSV_NUMBER_MAX];
        io_csv_format(a, not_floats[i], 32), io_csv_format(b, not_floats[i], 64);
        CHECK_MSG(!strcmp(a, b) && strtod(a, NULL) == not_floats[i], "%.17g: '%s' at 32, '%s' at 64", not_floats[i], a,
                  b);
        same(not_floats[i], 32);
    }
    char f[LCM_CSV_NUMBER_MAX];
    io_csv_format(f, (double)0.1f, 32);
    CHECK_MSG(!strcmp(f, "0.1"), "float 0.1 at 32: '%s'", f);

    enum { N = 200000 };
    static double xs[N];
    for (int i = 0; i < N; ++i) xs[i] = (1 + 19.0 * (double)(next() >> 11) / 9007199254740992.0) * 3.3;
    char buf[LCM_CSV_NUMBER_MAX];
    size_t sink = 0;
    double t0 = now();
    for (int i = 0; i < N; ++i) sink += (size_t)io_csv_format(buf, xs[i], 64);
    double t1 = now();
    for (int i = 0; i < N; ++i) sink += (size_t)io_csv_format_printf(buf, xs[i], 64);
    double t2 = now();
    printf("random doubles: %.0f ns a number, snprintf definition %.0f ns (%zu bytes)\n", (t1 - t0) / N * 1e9,
           (t2 - t1) / N * 1e9, sink);
    return check_failures != 0;
}
