/* arith.h - arithmetic whose exact result the generated kernels and the IR
 * interpreter must share (a solve is the same on every backend, bit for
 * bit in float64).  One text: pasted into the kernels after prelude.h (C11
 * and CUDA, in the kernel's precision) and included by ir/eval.c and the
 * interpreter's continuation (runtime/solve/interp_point.c) in double, as
 * random.h is.
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
#  define LCM_ARITH_INF LCM_INF
#  define LCM_ARITH_NAN LCM_NAN
#else
#  define LCM_ARITH_T double
#  define LCM_ARITH_F(name) name
#  define LCM_ARITH_INF ((double)INFINITY)
#  define LCM_ARITH_NAN ((double)NAN)
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

/* The staged CPU loop (gen/emit_loops.c) decides a run-time exponent or divisor
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

/* ---- Epstein-Zin: the certainty equivalent ---------------------------------
 * CE = g^-1(sum_i w_i g(v_i) / W) with g(v) = v^p, p = 1 - alpha (log v at
 * p = 0), over the nodes of positive weight of the whole continuation lottery
 * (every target regime at its probability, every Markov category and process
 * node; W = sum w).  v^p over- or underflows at high risk aversion (pylcm
 * #412/#416: the CE collapsed to 0 and the argmax turned), so the sum is kept
 * about an anchor: the node with the largest p log v, whose value v* and log a
 * are kept.  Every term e = exp(p (log v - a)) then lies in [0, 1], the
 * anchor's is 1, and CE = v* exp(log(S / W) / p) with S = sum w e.  Near p = 0
 * that loses the geometric-mean limit, so D = sum w expm1(...) = S - W is kept
 * too and log1p(D / W) taken unless D / W is near -1 (where S is exact); at p
 * = 0, D holds sum w (log v - a) and CE = v* exp(D / W).  The lottery is folded
 * in one node (or one target's partial sum) at a time, in the order the loops
 * meet them.  A node with p log v = +inf decides alone (v = 0 at alpha >= 1:
 * CE = 0; v = +inf at alpha <= 1: CE = +inf); one with p log v = -inf adds
 * only its weight.  A negative v (or -inf) and a risk aversion that is not
 * finite have no CE: `bad`, flagged (LCM_FLAG_CE), and the CE is NaN. */
typedef struct lcm_ce {
    LCM_ARITH_T a, v;    /* the anchor: log v* and v* (has = 0: none yet) */
    LCM_ARITH_T W, S, D; /* weight; sum of w e; sum of w expm1 (at p = 0: of w (log v - a)) */
    LCM_ARITH_T lim;     /* at_lim: the value a node with p log v = +inf decides */
    int has, at_lim, bad;
} lcm_ce;

#define LCM_CE_EMPTY {0, 0, 0, 0, 0, 0, 0, 0, 0} /* no node yet */

/* One node of value v (weight 1) as a lottery of its own. */
LCM_DEVICE lcm_ce lcm_ce_point(LCM_ARITH_T alpha, LCM_ARITH_T v)
{
    const LCM_ARITH_T p = (LCM_ARITH_T)1 - alpha;
    lcm_ce c = LCM_CE_EMPTY;
    c.W = 1;
    c.S = 1;
    if (v != v) c.at_lim = 1, c.lim = v;                                  /* NaN stays NaN */
    else if (v < 0 || !(alpha - alpha == 0)) c.bad = 1;                  /* negative or -inf; alpha not finite */
    else if (v == 0 ? p <= 0 : v == LCM_ARITH_INF && p >= 0) c.at_lim = 1, c.lim = v; /* p log v = +inf */
    else if (v == 0 || v == LCM_ARITH_INF) c.S = 0, c.D = -1;                  /* p log v = -inf: weight only */
    else c.has = 1, c.a = LCM_ARITH_F(log)(v), c.v = v;
    return c;
}

/* Folds lottery g, at weight w, into c. */
LCM_DEVICE void lcm_ce_merge(lcm_ce *c, LCM_ARITH_T alpha, LCM_ARITH_T w, const lcm_ce *g)
{
    const LCM_ARITH_T p = (LCM_ARITH_T)1 - alpha;
    c->bad |= g->bad;
    if (g->at_lim) c->lim = c->at_lim && c->lim != g->lim ? LCM_ARITH_NAN : g->lim, c->at_lim = 1;
    if (g->W == 0) return;
    if (g->has && (!c->has || p * (g->a - c->a) > 0)) {
        /* g's anchor is the new one: c about it (never at p = 0, where the
         * first anchor stays; without an anchor, c is weight only: D = -W, S = 0) */
        if (c->has) {
            const LCM_ARITH_T r = p * (c->a - g->a);
            c->D = c->W * LCM_ARITH_F(expm1)(r) + c->D * LCM_ARITH_F(exp)(r);
            c->S *= LCM_ARITH_F(exp)(r);
        }
        c->a = g->a, c->v = g->v, c->has = 1;
    }
    const LCM_ARITH_T d = g->has ? g->a - c->a : 0, r = p * d; /* g's anchor about c's: r <= 0 */
    c->W += w * g->W;
    if (p == 0) c->D += w * (g->D + g->W * d);
    else c->D += w * (g->W * LCM_ARITH_F(expm1)(r) + g->D * LCM_ARITH_F(exp)(r)), c->S += w * g->S * LCM_ARITH_F(exp)(r);
}

/* Node v at weight w (w != 0). */
LCM_DEVICE void lcm_ce_add(lcm_ce *c, LCM_ARITH_T alpha, LCM_ARITH_T w, LCM_ARITH_T v)
{
    const lcm_ce g = lcm_ce_point(alpha, v);
    lcm_ce_merge(c, alpha, w, &g);
}

LCM_DEVICE LCM_ARITH_T lcm_ce_value(const lcm_ce *c, LCM_ARITH_T alpha)
{
    const LCM_ARITH_T p = (LCM_ARITH_T)1 - alpha;
    if (c->bad) return LCM_ARITH_NAN;
    if (c->at_lim) return c->lim;
    if (c->W == 0) return 0; /* nothing reachable, as E = 0 (the probability checks say why) */
    if (!c->has) return p > 0 ? (LCM_ARITH_T)0 : LCM_ARITH_INF;
    const LCM_ARITH_T ratio = c->D / c->W;
    const LCM_ARITH_T dev = p == 0 ? ratio : (ratio > (LCM_ARITH_T)-0.5 ? LCM_ARITH_F(log1p)(ratio) : LCM_ARITH_F(log)(c->S / c->W)) / p;
    return dev == 0 ? c->v : c->v * LCM_ARITH_F(exp)(dev);
}

#endif
