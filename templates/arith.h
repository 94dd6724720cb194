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
 * 1 - risk_aversion, or a constant): the exponents utility functions use
 * most are computed by multiplication, division and square root instead of
 * the general pow (several times dearer, and without the branch the
 * comparisons below are uniform across the loop).  x * x and 1 / x are
 * correctly rounded, as pow nearly always is; the others round once to
 * three times more (within 3 ulp of pow).  Square roots only for x > 0, where they agree
 * with pow at the signed zeros and infinities too. */
LCM_DEVICE LCM_ARITH_T lcm_pow(LCM_ARITH_T x, LCM_ARITH_T y)
{
    const LCM_ARITH_T one = 1, half = (LCM_ARITH_T)0.5;
    if (y == 2) return x * x;
    if (y == -1) return one / x;
    if (y == 1) return x;
    if (y == 0) return one;
    if (y == 3) return x * x * x;
    /* negative powers from 1 / x, so that a large x gives the small (even
     * subnormal) result rather than 1 / overflow = 0 */
    if (y == -2) return (one / x) * (one / x);
    if (y == -3) return (one / x) * (one / x) * (one / x);
    if (x > 0) {
        const LCM_ARITH_T root = LCM_ARITH_F(sqrt)(x);
        if (y == half) return root;
        if (y == -half) return one / root;
        if (y == 3 * half) return x * root;
        if (y == -3 * half) return (one / x) / root;
    }
    return LCM_ARITH_F(pow)(x, y);
}

#endif
