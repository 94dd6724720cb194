/* csv_number.c - see csv_number.h.
 *
 * Why not snprintf alone: the panel's CSV wants, for each number, the first
 * of printf's %.15g, %.16g, %.17g (%.6g to %.9g for float32) that reads back
 * to the number.  Trying them with snprintf and strtod costs about 1.3 us a
 * number (glibc prints exactly, with big numbers); a panel of a million
 * subjects has tens of millions of them.
 *
 * How: a double is m 2^q (m an integer below 2^53).  For 10^p with p at most
 * 31, x 10^p = m 5^p 2^(p+q) and m 5^p fits 125 bits, so the digits of x
 * rounded to d places are an integer shift of it with an exact remainder
 * (ties to even, as glibc's printf rounds), and whether those d digits read
 * back to x is a comparison with the halfway points to x's neighbours, also
 * exact.  Numbers outside that range (below 1e-15 or from 1e17 up, subnormals,
 * zero) take the snprintf path, which stays the definition: the unit test
 * compares the two on millions of numbers. */
#include "csv_number.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* The format of one precision: its significand bits (with the hidden one)
 * and the digit counts %g tries. */
typedef struct number_format {
    int bits, min_digits, max_digits;
} number_format;

static const number_format DOUBLE_FORMAT = {53, 15, 17}, FLOAT_FORMAT = {24, 6, 9};

/* The definition: the first %.*g that reads back (as a float for float32). */
static int shortest_by_printf(char *buf, double x, int precision)
{
    const number_format *f = precision == 32 ? &FLOAT_FORMAT : &DOUBLE_FORMAT;
    int len = 0;
    for (int digits = f->min_digits; digits <= f->max_digits; ++digits) {
        len = snprintf(buf, LCM_CSV_NUMBER_MAX, "%.*g", digits, x);
        if (precision == 32 ? strtof(buf, NULL) == (float)x : strtod(buf, NULL) == x) break;
    }
    return len;
}

enum { MAX_POW5 = 31 }; /* 5^31 < 2^72: m 5^p below 2^125, room for two more bits */

/* 5^0 to 5^31 (5^27 is the last below 2^64) */
#define P5_27 7450580596923828125ull
static const u128 POW5[MAX_POW5 + 1] = {1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull, 9765625ull, 48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull, 152587890625ull, 762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull, 476837158203125ull, 2384185791015625ull, 11920928955078125ull, 59604644775390625ull, 298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull,
    (u128)P5_27 * 5, (u128)P5_27 * 25, (u128)P5_27 * 125, (u128)P5_27 * 625};

static u128 pow5(int p) { return POW5[p]; }

/* x = m 2^q with the halfway points to its neighbours: the lower one is
 * closer (a quarter ulp, not a half) when m is the smallest significand. */
typedef struct binary {
    uint64_t m;
    int q, lower_closer;
} binary;

/* |x| as m 2^q; 0 for zero, subnormals, inf and NaN (the printf path). */
static int decompose(double x, int precision, binary *b)
{
    if (precision == 32) {
        float f = (float)fabs(x);
        if ((double)f != fabs(x)) return 0; /* not a float: printf decides */
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        int e = (int)(u >> 23 & 0xff);
        if (e == 0 || e == 0xff) return 0;
        b->m = (u & 0x7fffffu) | 0x800000u;
        b->q = e - 150;
        b->lower_closer = (u & 0x7fffffu) == 0 && e > 1;
        return 1;
    }
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    int e = (int)(u >> 52 & 0x7ff);
    if (e == 0 || e == 0x7ff) return 0;
    b->m = (u & 0xfffffffffffffull) | (1ull << 52);
    b->q = e - 1075;
    b->lower_closer = (u & 0xfffffffffffffull) == 0 && e > 1;
    return 1;
}

/* floor(|x| 10^p) and whether the rest is below, at or above one half
 * (-1, 0, 1; -2 when there is no rest); 0 when out of range. */
static int scaled(const binary *b, int p, u128 *n, int *rest)
{
    if (p < 0 || p > MAX_POW5) return 0;
    u128 a = (u128)b->m * pow5(p);
    int t = p + b->q;
    if (t >= 0) {
        if (t > 60) return 0;
        *n = a << t;
        *rest = -2;
        return 1;
    }
    int s = -t;
    if (s >= 126) return 0;
    u128 half = (u128)1 << (s - 1), frac = a & (((u128)1 << s) - 1);
    *n = a >> s;
    *rest = frac == 0 ? -2 : frac < half ? -1 : frac == half ? 0 : 1;
    return 1;
}

/* Whether n 10^-p reads back to x: it lies strictly between the halfway
 * points to x's neighbours, or on one when m is even (ties to even). */
static int reads_back(const binary *b, int p, u128 n)
{
    u128 f5 = pow5(p), a4 = (u128)b->m * f5 * 4;
    u128 up = a4 + 2 * f5, down = a4 - (b->lower_closer ? f5 : 2 * f5); /* in units of 2^(p+q-2) */
    int t = p + b->q;
    u128 y;
    if (t < 0) {
        y = n << (2 - t);
    } else {
        y = n * 4;
        up <<= t, down <<= t;
    }
    int even = (b->m & 1) == 0;
    return even ? y >= down && y <= up : y > down && y < up;
}

/* %.{digits}g of the digit string `d` (digits long) times 10^(X - digits + 1). */
static int print_g(char *buf, int negative, const char *d, int digits, int X)
{
    int last = digits; /* without trailing zeros */
    while (last > 1 && d[last - 1] == '0') --last;
    char *o = buf;
    if (negative) *o++ = '-';
    if (X < -4 || X >= digits) {
        *o++ = d[0];
        if (last > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)(last - 1));
            o += last - 1;
        }
        int ax = X < 0 ? -X : X;
        *o++ = 'e';
        *o++ = X < 0 ? '-' : '+';
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    } else if (X >= 0) {
        memcpy(o, d, (size_t)(X + 1));
        o += X + 1;
        if (last > X + 1) {
            *o++ = '.';
            memcpy(o, d + X + 1, (size_t)(last - X - 1));
            o += last - X - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int k = 0; k < -X - 1; ++k) *o++ = '0';
        memcpy(o, d, (size_t)last);
        o += last;
    }
    *o = 0;
    return (int)(o - buf);
}

/* The fast path; 0 when x is outside its range. */
static int shortest_exact(char *buf, double x, int precision)
{
    const number_format *f = precision == 32 ? &FLOAT_FORMAT : &DOUBLE_FORMAT;
    binary b;
    if (!decompose(x, precision, &b)) return 0;
    /* e10 = floor(log10 |x|): an estimate, then checked exactly on the
     * most digits (their integer part has exactly max_digits digits) */
    int e10 = (int)floor(log10(fabs(x)));
    u128 lo = 1, n;
    for (int k = 1; k < f->max_digits; ++k) lo *= 10;
    for (int tries = 0;; ++tries) {
        int rest;
        if (tries == 3 || !scaled(&b, f->max_digits - 1 - e10, &n, &rest)) return 0;
        if (n < lo) --e10;
        else if (n >= lo * 10) ++e10;
        else break;
    }
    for (int digits = f->min_digits; digits <= f->max_digits; ++digits) {
        int p = digits - 1 - e10, rest;
        if (!scaled(&b, p, &n, &rest)) return 0;
        if (rest == 1 || (rest == 0 && (n & 1))) ++n; /* ties to even */
        if (!reads_back(&b, p, n)) continue;
        uint64_t top = 1, v = (uint64_t)n; /* below 10^17 */
        for (int k = 0; k < digits; ++k) top *= 10;
        int X = e10;
        if (v == top) v = top / 10, ++X; /* rounded up to the next power of ten */
        char d[24];
        for (int k = digits - 1; k >= 0; --k) d[k] = (char)('0' + (int)(v % 10)), v /= 10;
        return print_g(buf, x < 0, d, digits, X);
    }
    return 0; /* max_digits always reads back: not reached */
}

/* The precision x is written in: 32 only for a value that is a float (a
 * float32 panel also holds doubles: the initial states as given, draws
 * made in double), so that every text reads back to the value stored. */
static int precision_of(double x, int precision) { return precision == 32 && (double)(float)x != x ? 64 : precision; }

int io_csv_format(char *buf, double x, int precision)
{
    precision = precision_of(x, precision);
    if (x != x) return (int)(memcpy(buf, "nan", 4), 3);
    if (x == 1.0 / 0.0 || x == -1.0 / 0.0) {
        strcpy(buf, x > 0 ? "inf" : "-inf");
        return x > 0 ? 3 : 4;
    }
    int len = shortest_exact(buf, x, precision);
    return len ? len : shortest_by_printf(buf, x, precision);
}

int io_csv_format_printf(char *buf, double x, int precision)
{
    if (x != x || x == 1.0 / 0.0 || x == -1.0 / 0.0) return io_csv_format(buf, x, precision);
    return shortest_by_printf(buf, x, precision_of(x, precision));
}
