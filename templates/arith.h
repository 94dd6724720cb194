/* arith.h - arithmetic whose exact result the generated kernels and the IR
 * interpreter must share (a solve is the same on every backend, bit for
 * bit in float64).  One text: pasted into the kernels after prelude.h (C11
 * and CUDA, in the kernel's precision) and included by ir/eval.c (double),
 * as random.h is.
 */
#ifndef LCM_ARITH_H
#define LCM_ARITH_H

#ifndef LCM_DEVICE
#  include <math.h>
#  define LCM_DEVICE static inline
#endif
#ifdef LCM_PRECISION /* after prelude.h: the kernel's real */
#  define LCM_ARITH_T real
#  define LCM_ARITH_F(name) LCM_F(name)
#else
#  define LCM_ARITH_T double
#  define LCM_ARITH_F(name) name
#endif

/* x^y where y is the same for every pair a loop visits (a parameter such as
 * 1 - risk_aversion, or a constant): at the exponents utility functions use
 * most, multiplication, division or square root instead of the general pow
 * (several times dearer; the comparisons below go the same way across the
 * loop).  Only reductions that are correctly rounded, as pow is: the value
 * is pow's, bit for bit, so a floor or a comparison of a power is decided
 * as before (a half-integer exponent would round twice).  The square root
 * only for x > 0, where it agrees with pow at the signed zeros and
 * infinities too. */
LCM_DEVICE LCM_ARITH_T lcm_pow(LCM_ARITH_T x, LCM_ARITH_T y)
{
    const LCM_ARITH_T one = 1;
    if (y == 2) return x * x;
    if (y == -1) return one / x;
    if (y == 1) return x;
    if (y == 0) return one;
    if (y == (LCM_ARITH_T)0.5 && x > 0) return LCM_ARITH_F(sqrt)(x);
    return LCM_ARITH_F(pow)(x, y);
}

/* x / y where y is the same for every pair a loop visits (the kernels use
 * it for such divisors; the interpreter divides plainly): the quotient itself, bit
 * for bit, by the negation or product it equals at y = +-1, +-2 and +-0.5
 * (the divisor 1 - risk_aversion of CRRA utility is -1 at risk aversion 2),
 * which spares the loop a division there.  A product with any other
 * reciprocal can miss the quotient by an ulp, and is not taken. */
LCM_DEVICE LCM_ARITH_T lcm_div(LCM_ARITH_T x, LCM_ARITH_T y)
{
    const LCM_ARITH_T half = (LCM_ARITH_T)0.5, two = 2;
    if (y == -1) return -x;
    if (y == 1) return x;
    if (y == two) return x * half;
    if (y == -two) return x * -half;
    if (y == half) return x * two;
    if (y == -half) return x * -two;
    return x / y;
}

/* The staged CPU loop (gen/emit.c) decides a run-time exponent or divisor
 * once per state, outside its actions: lcm_pow_kind(y) names the
 * reductions above that need no call (2, -1, 1, 0; 0 for any other y), and
 * lcm_pow_by(x, kind) is lcm_pow(x, y) at such a y, bit for bit, without a
 * branch the compiler cannot turn into a select.  lcm_div_by(y) is the
 * factor f with x * f equal to lcm_div(x, y) for every x but NaN (whose sign
 * no result keeps), 0 where no such factor is exact. */
LCM_DEVICE int lcm_pow_kind(LCM_ARITH_T y) { return y == 2 ? 1 : y == -1 ? 2 : y == 1 ? 3 : y == 0 ? 4 : 0; }

LCM_DEVICE LCM_ARITH_T lcm_pow_by(LCM_ARITH_T x, int kind)
{
    const LCM_ARITH_T one = 1;
    return kind == 1 ? x * x : kind == 2 ? one / x : kind == 3 ? x : one;
}

LCM_DEVICE LCM_ARITH_T lcm_div_by(LCM_ARITH_T y)
{
    const LCM_ARITH_T half = (LCM_ARITH_T)0.5, two = 2;
    return y == -1 ? -1 : y == 1 ? 1 : y == two ? half : y == -two ? -half : y == half ? two : y == -half ? -two : 0;
}

#endif
