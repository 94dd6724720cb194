/* prelude.h - everything generated kernels share.  One text, two languages:
 * C11 for the CPU backend (host compiler, OpenMP) and CUDA C++ through NVRTC
 * (which defines __CUDACC__).  LCM_PRECISION (64 or 32) selects `real`. */

/* A declaration some kernels leave unused (an argument, a local that only
 * some models read, a helper of the prelude): no warning either way.  GCC,
 * Clang and NVRTC all take the GNU attribute. */
#define LCM_UNUSED __attribute__((unused))

#if defined(__CUDACC__)
#  define LCM_DEVICE static __device__ __forceinline__ LCM_UNUSED
#  define LCM_RESTRICT __restrict__
#  define LCM_EXTERN extern "C"
#  ifndef INFINITY
#    define INFINITY __int_as_float(0x7f800000)
#  endif
#  ifndef NAN
#    define NAN __int_as_float(0x7fffffff)
#  endif
#else
#  include <math.h>
#  define LCM_DEVICE static inline LCM_UNUSED
#  define LCM_RESTRICT restrict
#  define LCM_EXTERN
#endif

/* A simulation step, inline in its entry: a C compiler judges it too large
 * and calls it once per subject (CUDA inlines every LCM_DEVICE function).
 * The body stays a call there: inlined as well, it is compiled twice (for
 * the solve and for the simulation), 40-60% more compile time for a few
 * percent of simulation time. */
#if defined(__CUDACC__)
#  define LCM_DEVICE_INLINE LCM_DEVICE
#else
#  define LCM_DEVICE_INLINE static inline __attribute__((always_inline)) LCM_UNUSED
#endif

#ifndef LCM_PRECISION
#  define LCM_PRECISION 64
#endif

/* lcm_feas: a feasibility flag as wide as a real, so that the CPU's staged
 * action loop (lcm_best_of) keeps its flags in vectors of the lanes of its
 * Q (a byte per flag cost a packing and an unpacking per chunk). */
#if LCM_PRECISION == 32
typedef float real;
typedef int lcm_feas;
#  define LCM_F(name) name##f
#  define LCM_PROB_TOL 1e-4f
#else
typedef double real;
typedef long long lcm_feas;
#  define LCM_F(name) name
#  define LCM_PROB_TOL 1e-9
#endif

#define LCM_INF ((real)INFINITY)
#define LCM_NAN ((real)NAN)
#define LCM_LOG(x) LCM_F(log)(x)
#define LCM_EXP(x) LCM_F(exp)(x)
#define LCM_SQRT(x) LCM_F(sqrt)(x)
#define LCM_ABS(x) LCM_F(fabs)(x)
#define LCM_FLOOR(x) LCM_F(floor)(x)
#define LCM_CEIL(x) LCM_F(ceil)(x)
#define LCM_LOG1P(x) LCM_F(log1p)(x)
#define LCM_EXPM1(x) LCM_F(expm1)(x)
#define LCM_TANH(x) LCM_F(tanh)(x)
#define LCM_ERFC(x) LCM_F(erfc)(x)
#define LCM_FMIN(x, y) LCM_F(fmin)(x, y)
#define LCM_FMAX(x, y) LCM_F(fmax)(x, y)

/* min/max that propagate NaN (fmin/fmax would drop it). */
LCM_DEVICE real lcm_min(real a, real b) { return (a < b || a != a) ? a : b; }
LCM_DEVICE real lcm_max(real a, real b) { return (a > b || a != a) ? a : b; }
/* Lua's % on numbers: a - floor(a / b) * b. */
LCM_DEVICE real lcm_mod(real a, real b) { return a - LCM_FLOOR(a / b) * b; }
LCM_DEVICE real lcm_normal_cdf(real x) { return (real)0.5 * LCM_ERFC(-x * (real)0.70710678118654752440); }

/* ---- flags -------------------------------------------------------------- */
#if defined(__CUDACC__)
LCM_DEVICE void lcm_flag(lcm_flags *f, int bit, lcm_index at)
{
    atomicOr(&f->bits, 1u << bit);
    atomicMin((long long *)&f->first[bit], (long long)at);
}
#else
LCM_DEVICE void lcm_flag(lcm_flags *f, int bit, lcm_index at)
{
    __atomic_fetch_or(&f->bits, 1u << bit, __ATOMIC_RELAXED);
    lcm_index cur = __atomic_load_n(&f->first[bit], __ATOMIC_RELAXED);
    while (at < cur &&
           !__atomic_compare_exchange_n(&f->first[bit], &cur, at, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}
#endif

/* Every bit set in `bits`, flagged at `at`. */
LCM_DEVICE void lcm_flag_bits(lcm_flags *f, unsigned bits, lcm_index at)
{
    for (int bit = 0; bit < LCM_NFLAGS; ++bit)
        if (bits & (1u << bit)) lcm_flag(f, bit, at);
}

/* ---- next-state cells ----------------------------------------------------
 * A continuous next state x falls in cell i (clipped to [0, n-2], so values
 * off the grid extrapolate linearly from the nearest cell) at fraction
 * t = (x - p[i]) / (p[i+1] - p[i]).  fmin/fmax keep a NaN x from making an
 * invalid index: it gives a NaN t instead, and so a NaN value.            */
/* fmax(0, fmin(f, hi)) written as comparisons, which the compiler keeps
 * inline (a NaN f gives hi, as fmin does). */
LCM_DEVICE real lcm_clamp_low0(real f, real hi)
{
    const real m = f < hi ? f : hi;
    return m > 0 ? m : (real)0;
}

/* The row weight of an AR(1) value in an Epstein-Zin regime: a lottery
 * needs probabilities, so a value beyond the outer node takes that node's
 * row (t clamped to [0, 1]; a NaN stays NaN).  The expectation extrapolates
 * the row linearly instead (docs/model-language.md, section 16). */
LCM_DEVICE real lcm_lottery_t(real t) { return t < 0 ? (real)0 : t > 1 ? (real)1 : t; }

LCM_DEVICE int lcm_clip_cell(real f, int n)
{
    return (int)lcm_clamp_low0(f, (real)(n - 2));
}

#if LCM_PRECISION == 32
/* In float32 a piecewise or irregular grid may hold an isolated cell of no
 * width (ir/grid.c, check_points: an open end of a piece rounds to the
 * boundary): t = 0 there, V at its point, and a NaN x still gives NaN.
 * float64 grids are strictly increasing, so their division stays bare. */
LCM_DEVICE real lcm_frac(real x, const real *p, int i)
{
    const real width = p[i + 1] - p[i];
    return width != 0 ? (x - p[i]) / width : (x - p[i]) * 0;
}
#else
LCM_DEVICE real lcm_frac(real x, const real *p, int i) { return (x - p[i]) / (p[i + 1] - p[i]); }
#endif

/* Closed form for linspace grids. */
LCM_DEVICE int lcm_cell_lin(real x, real start, real inv_step, int n)
{
    return lcm_clip_cell(LCM_FLOOR((x - start) * inv_step), n);
}

/* Closed form for logspace grids (uniform in logs).  Values at or below the
 * first point (zero and negatives included, whose log is not a number)
 * belong to the first cell. */
LCM_DEVICE int lcm_cell_log(real x, real start, real log_start, real inv_log_step, int n)
{
    return x > start ? lcm_clip_cell(LCM_FLOOR((LCM_LOG(x) - log_start) * inv_log_step), n) : 0;
}

/* Piecewise grids: the piece's closed form, then the cell in the whole grid
 * (offset of the piece plus the cell in it; the piece's last point starts
 * the cell that bridges to the next piece). */
LCM_DEVICE int lcm_cell_piece(real local, int offset, int n_piece, int n)
{
    real f = lcm_clamp_low0(LCM_FLOOR(local), (real)(n_piece - 1));
    return lcm_clip_cell((real)offset + f, n);
}

LCM_DEVICE int lcm_cell_pwlin(real x, real start, real inv_step, int offset, int n_piece, int n)
{
    return lcm_cell_piece((x - start) * inv_step, offset, n_piece, n);
}

LCM_DEVICE int lcm_cell_pwlog(real x, real start, real log_start, real inv_log_step, int offset, int n_piece, int n)
{
    return lcm_cell_piece(x > start ? (LCM_LOG(x) - log_start) * inv_log_step : (real)0, offset, n_piece, n);
}

/* Binary search for irregular grids: the last i with p[i] <= x. */
LCM_DEVICE int lcm_cell_search(real x, const real *p, int n)
{
    int lo = 0, hi = n - 2;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (p[mid] <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* A discrete next state: the code, or -1 (flagged) when x is not a code.
 * The tests are joined by & rather than &&: without a branch the
 * compiler moves the code of a state out of the action loops. */
LCM_DEVICE int lcm_code(real x, int n)
{
    return ((x >= 0) & (x <= (real)(n - 1)) & (x == LCM_FLOOR(x))) ? (int)x : -1;
}

/* Corner c (bit k: the upper point on axis k) of the cell of a multilinear
 * interpolation over m axes: its offset from base in *at, its weight, the
 * product of t or (1 - t), returned. */
LCM_DEVICE real lcm_corner(lcm_index base, int m, const lcm_index *stride, const int *cell, const real *t, int c,
                           lcm_index *at)
{
    real w = 1;
    *at = base;
    for (int k = 0; k < m; ++k) {
        int up = (c >> k) & 1;
        w *= up ? t[k] : (real)1 - t[k];
        *at += (lcm_index)(cell[k] + up) * stride[k];
    }
    return w;
}

/* Multilinear interpolation over m continuous axes at V[base + ...]: sum of
 * the 2^m corner values, each weighted by the product of t or (1 - t);
 * corners of zero weight are skipped, so a -inf there does not give NaN.
 * The skip is a select, not a branch (every corner is inside V: cells are
 * clipped to n - 2), so the staged loop vectorises around it. */
LCM_DEVICE real lcm_interp(const real *V, lcm_index base, int m, const lcm_index *stride,
                           const int *cell, const real *t)
{
    real acc = 0;
    for (int c = 0; c < (1 << m); ++c) {
        lcm_index at;
        const real w = lcm_corner(base, m, stride, cell, t, c, &at);
        const real sum = acc + w * V[at];
        acc = w != 0 ? sum : acc;
    }
    return acc;
}

/* ---- the expected next V (ir/precompute.h, "ev") ---------------------------
 * Entry e of a target's expected V lies, on each of the np axes the table
 * sums over (axis i: n[i] points, stride st[i] in the target's V), at
 * index c[i]: the current node or category whose row weights the next
 * ones.  lcm_ev_cells gives c[] and the entry's base (e at index 0 on
 * every such axis); lcm_expected_v then sums V over the axes' next points
 * from the base, with row[i] the weights of axis i (its matrix's row c[i],
 * or the one row of an IID process).  The first axis is the outermost sum
 * and the last the innermost, as the kernel's own loops nest; a zero
 * weight skips its point. */
LCM_DEVICE lcm_index lcm_ev_cells(lcm_index e, int np, const lcm_index *st, const int *n, int *c)
{
    lcm_index base = e;
    for (int i = 0; i < np; ++i) {
        c[i] = (int)(e / st[i] % n[i]);
        base -= (lcm_index)c[i] * st[i];
    }
    return base;
}

LCM_DEVICE real lcm_expected_v(const real *V, lcm_index base, int np, const lcm_index *st, const int *n,
                               const real *const *row)
{
    int k[LCM_EV_AXES] = {0};
    real sum = 0;
    for (;;) {
        real w = 1;
        lcm_index at = base;
        for (int i = 0; i < np; ++i) {
            w *= row[i][k[i]];
            at += (lcm_index)k[i] * st[i];
        }
        if (w != 0) sum += w * V[at];
        int i = np - 1; /* the next point: the last axis fastest */
        while (i >= 0 && ++k[i] == n[i]) k[i--] = 0;
        if (i < 0) return sum;
    }
}

/* A marginal value M_{t+1} at the same point (the EGM table, gen/emit_egm.c):
 * interpolated in 1 / M, which is the action itself under log utility and
 * c^sigma under CRRA -- nearly linear in wealth where M = c^-sigma bends
 * hard (low wealth, and below the grid where it extrapolates).  A corner's
 * M <= 0 (no interior optimum beyond it) falls back to M itself. */
LCM_DEVICE real lcm_interp_marginal(const real *M, lcm_index base, int m, const lcm_index *stride,
                                    const int *cell, const real *t)
{
    real acc = 0;
    int positive = 1;
    for (int c = 0; c < (1 << m); ++c) {
        lcm_index at;
        const real w = lcm_corner(base, m, stride, cell, t, c, &at);
        if (w == 0) continue;
        positive &= M[at] > 0;
        acc += w / M[at];
    }
    return positive ? (real)1 / acc : lcm_interp(M, base, m, stride, cell, t);
}

/* ---- Epstein-Zin: the certainty equivalent: arith.h (the interpreter's too) */

/* ---- lanes -----------------------------------------------------------------
 * On the GPU, the blockDim.x threads ("lanes") of a state split the loop of
 * one action axis (the kernel's `par` in the manifest) and then reduce their
 * bests; on the CPU there is one lane. */
#if defined(__CUDACC__)
#  define LCM_LANE ((int)threadIdx.x)
#  define LCM_LANES ((int)blockDim.x)

/* Keeps (v, a) or takes (ov, oa): an action over none; then the larger Q;
 * on equal Q the smaller action index (the first in row-major order, as on
 * the CPU).  NaN Q never get here: they travel as a separate flag. */
LCM_DEVICE void lcm_combine(real *v, lcm_index *a, real ov, lcm_index oa)
{
    if (oa < 0) return;
    if (*a < 0 || ov > *v || (ov == *v && oa < *a)) *v = ov, *a = oa;
}

/* Reduces over the lanes of each state: shuffles within a warp (segments of
 * blockDim.x lanes when it is below 32), then shared memory across the
 * warps of a state when blockDim.x is above 32 (one state per block). */
LCM_DEVICE void lcm_reduce_best(real *v, lcm_index *a, int *nan_seen)
{
    const unsigned full = 0xffffffffu;
    const int lanes = (int)blockDim.x, width = lanes < 32 ? lanes : 32;
    for (int off = width / 2; off > 0; off /= 2) {
        real ov = __shfl_down_sync(full, *v, off, width);
        lcm_index oa = __shfl_down_sync(full, *a, off, width);
        *nan_seen |= __shfl_down_sync(full, *nan_seen, off, width);
        lcm_combine(v, a, ov, oa);
    }
    if (lanes > 32) {
        __shared__ real sv[32];
        __shared__ lcm_index sa[32];
        __shared__ int sn[32];
        const int warp = (int)threadIdx.x / 32;
        if (threadIdx.x % 32 == 0) sv[warp] = *v, sa[warp] = *a, sn[warp] = *nan_seen;
        __syncthreads();
        if (threadIdx.x == 0)
            for (int w = 1; w < lanes / 32; ++w) lcm_combine(v, a, sv[w], sa[w]), *nan_seen |= sn[w];
    }
}

/* Taste shocks: each choice's best (vd[d], ad[d]) over the lanes of a state,
 * as lcm_reduce_best does for the overall best.  Lanes above a warp share
 * lcm_reduce_best's shared memory: a barrier before each reuse. */
LCM_DEVICE void lcm_reduce_choices(real *vd, lcm_index *ad, int n)
{
    for (int d = 0; d < n; ++d) {
        int nan_seen = 0; /* NaN Q travel in the body's flag, already reduced */
        if (blockDim.x > 32) __syncthreads();
        lcm_reduce_best(&vd[d], &ad[d], &nan_seen);
    }
}
#else
#  define LCM_LANE 0
#  define LCM_LANES 1

/* The CPU's innermost action loop runs in chunks (gen/emit_loops.c, "staged"):
 * first Q and feasibility of every action of a chunk into q[] and ok[]
 * (a loop without branches, which the compiler vectorises), then this
 * folds the chunk into the running best.  Contract: the result is the one
 * the per-action update `if (q > best || best_a < 0)` over the feasible
 * actions in order would give, to the bit: NaN Q of feasible actions set
 * *nan_q and are skipped; the chunk's largest Q wins only when it beats
 * *best (or nothing is chosen yet), and then its first action of that Q
 * (base + i) with that action's own Q (max may return either zero).
 * The vector passes run over the chunk's first multiple of LCM_BEST_STEP
 * actions and the rest (at most LCM_BEST_STEP - 1) is folded by that very
 * update, written with selects: a vector loop's scalar remainder kept its
 * reductions' lanes in memory, one store and reload per action, and a
 * short chunk costs more in the two passes than it saves (Mahler & Yum's
 * 50 savings: this fold went from 36% to 26% of its kernel's time). */
#define LCM_BEST_STEP 8
LCM_DEVICE void lcm_best_of(const real *LCM_RESTRICT q, const lcm_feas *LCM_RESTRICT ok, int n, lcm_index base,
                            real *best, lcm_index *best_a, int *nan_q)
{
    real b = *best;
    lcm_index ba = *best_a;
    int nan_few = 0;
    const int m = n & ~(LCM_BEST_STEP - 1); /* the vector passes' share */
    if (m > 0) {
        real top = -LCM_INF;
        lcm_feas any = 0, nan_seen = 0; /* as wide as q's lanes, as f and num are */
#pragma omp simd reduction(max : top) reduction(| : any, nan_seen)
        for (int i = 0; i < m; ++i) {
            const lcm_feas f = ok[i], num = q[i] == q[i];
            nan_seen |= f & !num;
            any |= f & num;
            const real v = (f & num) ? q[i] : -LCM_INF;
            top = top > v ? top : v;
        }
        nan_few = nan_seen != 0;
        if (any && (top > b || ba < 0)) {
            int first = m;
#pragma omp simd reduction(min : first)
            for (int i = 0; i < m; ++i) {
                const int at = (ok[i] && q[i] == top) ? i : m;
                first = first < at ? first : at;
            }
            b = q[first];
            ba = base + first;
        }
    }
    /* the constant bound: without one gcc 13.3 at -O2 warned of an
     * "iteration 17" (saving_choice, the GPU machine's cc) */
    for (int i = m; i < m + LCM_BEST_STEP && i < n; ++i) {
        const real qi = q[i];
        const int f = ok[i] != 0, num = qi == qi;
        const int take = f & num & (qi > b || ba < 0);
        nan_few |= f & !num;
        b = take ? qi : b;
        ba = take ? base + i : ba;
    }
    if (nan_few) *nan_q = 1;
    *best = b, *best_a = ba;
}
#endif

/* ---- taste shocks (EV1) ----------------------------------------------------
 * A regime with taste shocks keeps, beside the best Q, the best Q vd[d] and
 * its action ad[d] of each choice d (a combination of its discrete actions;
 * -inf and -1 where no action of d is feasible). */

/* V = scale * log(sum_d exp(vd[d] / scale)), computed around the plain
 * max vmax (the largest vd[d]) so that no exp overflows: vmax + scale *
 * log(sum_d exp((vd[d] - vmax) / scale)).  Scale 0 gives vmax itself (the
 * model without taste shocks, to the bit), as do a NaN or infinite vmax; a
 * negative or non-finite scale gives NaN (the body flagged it). */
LCM_DEVICE real lcm_taste_smooth(const real *vd, int n, real scale, real vmax)
{
    if (scale == 0 || !(vmax > -LCM_INF && vmax < LCM_INF)) return vmax;
    if (!(scale > 0 && scale < LCM_INF)) return LCM_NAN;
    real sum = 0;
    for (int d = 0; d < n; ++d) sum += LCM_EXP((vd[d] - vmax) / scale);
    return vmax + scale * LCM_LOG(sum);
}

/* The marginal value of a regime with taste shocks that solves by EGM: each
 * choice's marginal utility mud[d] weighted by its logit probability
 * exp((vd[d] - v) / scale) at the smoothed V v; scale 0 (or a V that is not
 * finite) gives the best choice's, mu_best. */
LCM_DEVICE real lcm_taste_marginal(const real *vd, const real *mud, int n, real scale, real v, real mu_best)
{
    if (!(scale > 0 && scale < LCM_INF) || !(v > -LCM_INF && v < LCM_INF)) return mu_best;
    real sum = 0;
    for (int d = 0; d < n; ++d)
        if (vd[d] > -LCM_INF) sum += LCM_EXP((vd[d] - v) / scale) * mud[d];
    return sum;
}

/* random.h, pasted after this file */
LCM_DEVICE double lcm_gumbel(unsigned long long seed, unsigned long long subject, unsigned int step, unsigned int d);

/* Simulation: the choice d with the largest vd[d] + scale * g_d (g_d the
 * subject's Gumbel draw, random.h; the first on ties), and there its best
 * action ad[d].  Scale 0 (or an invalid one, flagged) keeps `best`, the
 * plain argmax.  In double, as the interpreter computes it. */
LCM_DEVICE lcm_index lcm_taste_draw(const real *vd, const lcm_index *ad, int n, real scale, lcm_index best,
                                    unsigned long long seed, unsigned long long subject, unsigned int period)
{
    if (!(scale > 0 && scale < LCM_INF)) return best;
    lcm_index pick = best;
    double top = -INFINITY;
    for (int d = 0; d < n; ++d) {
        if (ad[d] < 0) continue;
        const double w = (double)vd[d] + (double)scale * lcm_gumbel(seed, subject, period, (unsigned int)d);
        if (w > top) top = w, pick = ad[d];
    }
    return pick;
}

/* Simulation of a regime with taste shocks that solves by EGM, when its
 * choice probabilities are asked for: each choice's best Q vd[d] and the
 * scale into the row's last sim->choice_slots action slots, after the
 * step (which fills every slot of the row), whence the panel computes
 * exp((vd[d] - V) / scale).  The interpreter, which evaluates the other
 * targets, searches the action grid, which EGM does not use. */
LCM_DEVICE void lcm_keep_choices(const lcm_sim_args *sim, int row, const real *vd, int n, real scale)
{
    if (sim->choice_slots < n + 1) return;
    real *at = (real *)sim->action + (lcm_index)row * sim->nactions + (sim->nactions - sim->choice_slots);
    for (int d = 0; d < n; ++d) at[d] = vd[d];
    at[n] = scale;
}

/* ---- the endogenous grid method (gen/emit_egm.c) ----------------------------
 * An EGM regime's table (ir/precompute.h) holds at T[at + j] the resources
 * R_j and at T[n + at + j] the action C_j at which savings point j is
 * optimal, NaN where the Euler equation has no solution; a state reads the
 * rows `corners` of its continuous states (besides the liquid one) at
 * offsets off[], blended by weights w[] (the kernel passes the corners of
 * non-zero weight only, egm_n; a zero weight is skipped all the same, so
 * that a NaN there stays out). */
LCM_DEVICE void lcm_egm_point(const real *T, lcm_index n, const lcm_index *off, const real *w, int corners, int j,
                              real *R, real *C)
{
    real r = 0, c = 0;
    for (int k = 0; k < corners; ++k)
        if (w[k] != 0) r += w[k] * T[off[k] + j], c += w[k] * T[n + off[k] + j];
    *R = r, *C = c;
}

/* The candidate of segment i (between endogenous points i and i + 1) of
 * the action at resources r, with savings at least a0 (the borrowing
 * limit): when the segment covers r (either way round: where the grid
 * bends back, DC-EGM's upper envelope is the best candidate by Q), c
 * interpolated, the last segment also beyond its end.  A candidate is a
 * positive action leaving savings of more than a0 (the corner, savings a0,
 * is a candidate of its own); returns 0 where segment i offers none. */
LCM_DEVICE int lcm_egm_candidate(const real *T, lcm_index n, const lcm_index *off, const real *w, int corners,
                                 int points, real r, real a0, int i, real *c)
{
    const real most = r - a0;
    real R0, C0, R1, C1;
    lcm_egm_point(T, n, off, w, corners, i, &R0, &C0);
    lcm_egm_point(T, n, off, w, corners, i + 1, &R1, &C1);
    if (!(R0 - R0 == 0 && R1 - R1 == 0 && C0 - C0 == 0 && C1 - C1 == 0)) return 0; /* NaN or infinite */
    const real lo = R0 < R1 ? R0 : R1, hi = R0 < R1 ? R1 : R0;
    if (!(r >= lo && (r <= hi || i == points - 2))) return 0;
    *c = R1 != R0 ? C0 + (C1 - C0) * ((r - R0) / (R1 - R0)) : C0;
    return *c > 0 && *c < most;
}

/* The table's second pass: the least and the greatest resources of the
 * points of block q (LCM_EGM_BLOCK segments, per_row blocks a row and
 * choice), NaN points left out; the last block of a row reaches to +inf,
 * where its last segment extrapolates (ir/precompute.h). */
LCM_DEVICE void lcm_egm_bound(real *T, lcm_index n, int points, int per_row, lcm_index q)
{
    const lcm_index row = q / per_row;
    const int b = (int)(q % per_row), j0 = b * LCM_EGM_BLOCK;
    const int j1 = j0 + LCM_EGM_BLOCK < points - 1 ? j0 + LCM_EGM_BLOCK : points - 1;
    real lo = LCM_INF, hi = -LCM_INF;
    for (int j = j0; j <= j1; ++j) {
        const real R = T[row * points + j];
        if (R < lo) lo = R;
        if (R > hi) hi = R;
    }
    T[2 * n + 2 * q] = lo;
    T[2 * n + 2 * q + 1] = b == per_row - 1 ? LCM_INF : hi;
}

/* The next candidate of the action at resources r after candidate i (-2:
 * none yet): -1 the corner c = r - a0, then the segments that offer one
 * (lcm_egm_candidate), seeking them only in blocks whose bounds (the hull
 * of the corners' rows: a blend with weights in [0, 1] stays inside) hold
 * r; `points - 1` when there is none left.  T NULL: the corner alone. */
LCM_DEVICE int lcm_egm_next(const real *T, lcm_index n, const lcm_index *off, const real *w, int corners, int points,
                            real r, real a0, int i, real *c)
{
    if (i < -1) {
        *c = r - a0;
        if (*c > 0) return -1;
    }
    if (!T) return points - 1;
    const int per_row = LCM_EGM_BLOCKS(points);
    int prune = 1;
    for (int k = 0; k < corners; ++k) prune &= w[k] >= 0 && w[k] <= 1;
    for (int j = i < 0 ? 0 : i + 1; j < points - 1; ++j) {
        if (prune && j % LCM_EGM_BLOCK == 0) {
            real lo = LCM_INF, hi = -LCM_INF;
            for (int k = 0; k < corners; ++k) {
                if (w[k] == 0) continue;
                const lcm_index q = off[k] / points * per_row + j / LCM_EGM_BLOCK;
                lo = T[2 * n + 2 * q] < lo ? T[2 * n + 2 * q] : lo;
                hi = T[2 * n + 2 * q + 1] > hi ? T[2 * n + 2 * q + 1] : hi;
            }
            if (!(r >= lo && r <= hi)) {
                j += LCM_EGM_BLOCK - 1;
                continue;
            }
        }
        if (lcm_egm_candidate(T, n, off, w, corners, points, r, a0, j, c)) return j;
    }
    return points - 1;
}

/* Stores V of state s, flagging NaN, +inf and no feasible action (best < 0). */
LCM_DEVICE void lcm_store(const lcm_kernel_args *a, lcm_index s, real v, lcm_index best)
{
    ((real *)a->v_out)[s] = v;
    if (v != v) lcm_flag(a->flags, LCM_FLAG_NAN, s);
    else if (v == LCM_INF) lcm_flag(a->flags, LCM_FLAG_INF, s);
    else if (best < 0) lcm_flag(a->flags, LCM_FLAG_INFEASIBLE, s);
}

/* Checks a probability vector: no negative entry, sum 1 within tolerance. */
LCM_DEVICE int lcm_probs_ok(const real *p, int n)
{
    real sum = 0;
    for (int i = 0; i < n; ++i) {
        if (!(p[i] >= 0)) return 0;
        sum += p[i];
    }
    return LCM_ABS(sum - (real)1) <= LCM_PROB_TOL;
}
