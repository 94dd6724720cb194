/* peak.c - see peak.h.  Compiled with the cpu backend's flags
 * (bench/CMakeLists.txt), so that its loops vectorise as the kernels' do. */
#include "peak.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "base.h"

static volatile double sink; /* the results go here, so no loop is dropped */

/* One thread's share of each measurement, for real = double and float:
 * `iters` rounds; returns the operations done.  The values live in
 * 32-byte vectors (the width GCC gives the kernels' loops), and an empty
 * asm statement per round says they may have changed, so that the compiler
 * can neither interchange the loops (one latency-bound chain at a time)
 * nor see through a round. */
#define PEAK_LOOPS(real, suffix, LOG)                                                        \
    typedef real vec_##suffix __attribute__((vector_size(32)));                              \
    enum { LANES_##suffix = 32 / sizeof(real) };                                             \
    static double arith_##suffix(long iters)                                                 \
    {                                                                                        \
        const vec_##suffix a = (vec_##suffix){0} + (real)0.9999, b = (vec_##suffix){0} + (real)1e-4;                     \
        vec_##suffix v0 = (vec_##suffix){0} + (real)1, v1 = v0 + (real)0.01, v2 = v0 + (real)0.02,         \
                     v3 = v0 + (real)0.03, v4 = v0 + (real)0.04, v5 = v0 + (real)0.05,       \
                     v6 = v0 + (real)0.06, v7 = v0 + (real)0.07, v8 = v0 + (real)0.08,       \
                     v9 = v0 + (real)0.09, v10 = v0 + (real)0.1, v11 = v0 + (real)0.11;      \
        for (long i = 0; i < iters; ++i) {                                                   \
            v0 = v0 * a + b, v1 = v1 * a + b, v2 = v2 * a + b, v3 = v3 * a + b;              \
            v4 = v4 * a + b, v5 = v5 * a + b, v6 = v6 * a + b, v7 = v7 * a + b;              \
            v8 = v8 * a + b, v9 = v9 * a + b, v10 = v10 * a + b, v11 = v11 * a + b;          \
            __asm__ volatile("" : "+x"(v0), "+x"(v1), "+x"(v2), "+x"(v3), "+x"(v4), "+x"(v5), \
                             "+x"(v6), "+x"(v7), "+x"(v8), "+x"(v9), "+x"(v10), "+x"(v11));  \
        }                                                                                    \
        vec_##suffix t = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11;        \
        for (int j = 0; j < LANES_##suffix; ++j) sink += t[j];                               \
        return 2.0 * 12 * LANES_##suffix * (double)iters;                                    \
    }                                                                                        \
    static double divide_##suffix(long iters)                                                \
    {                                                                                        \
        const vec_##suffix c = (vec_##suffix){0} + (real)1.2345678901234567;                               \
        vec_##suffix q0 = (vec_##suffix){0} + (real)1.01, q1 = q0 + (real)0.013, q2 = q0 + (real)0.027,    \
                     q3 = q0 + (real)0.039, q4 = q0 + (real)0.051, q5 = q0 + (real)0.063,    \
                     q6 = q0 + (real)0.077, q7 = q0 + (real)0.089;                           \
        for (long i = 0; i < iters; ++i) {                                                   \
            q0 = c / q0, q1 = c / q1, q2 = c / q2, q3 = c / q3;                              \
            q4 = c / q4, q5 = c / q5, q6 = c / q6, q7 = c / q7;                              \
            __asm__ volatile("" : "+x"(q0), "+x"(q1), "+x"(q2), "+x"(q3), "+x"(q4), "+x"(q5), \
                             "+x"(q6), "+x"(q7));                                            \
        }                                                                                    \
        vec_##suffix t = q0 + q1 + q2 + q3 + q4 + q5 + q6 + q7;                              \
        for (int j = 0; j < LANES_##suffix; ++j) sink += t[j];                               \
        return 8.0 * LANES_##suffix * (double)iters;                                         \
    }                                                                                        \
    static double calls_##suffix(long iters)                                                 \
    {                                                                                        \
        real x[64], s = 0;                                                                   \
        for (int j = 0; j < 64; ++j) x[j] = (real)1 + (real)j;                               \
        for (long i = 0; i < iters; ++i) {                                                   \
            for (int j = 0; j < 64; ++j) s += LOG(x[j]);                                     \
            __asm__ volatile("" : : "r"(x) : "memory");                                      \
        }                                                                                    \
        sink += s;                                                                           \
        return 64.0 * (double)iters;                                                         \
    }

PEAK_LOOPS(double, d, log)
PEAK_LOOPS(float, f, logf)

enum { WHAT_ARITH, WHAT_DIVIDE, WHAT_CALLS };

/* Every thread runs the loop at once; operations per second of them all. */
static double rate(int what, int precision, long iters, double *seconds)
{
    double ops = 0, t0 = base_now_seconds();
#pragma omp parallel reduction(+ : ops)
    {
        if (what == WHAT_ARITH) ops += precision == 32 ? arith_f(iters) : arith_d(iters);
        else if (what == WHAT_DIVIDE) ops += precision == 32 ? divide_f(iters) : divide_d(iters);
        else ops += precision == 32 ? calls_f(iters) : calls_d(iters);
    }
    *seconds = base_now_seconds() - t0;
    return ops / *seconds;
}

/* The best of three runs long enough to time (0.1 s at least). */
static double best_rate(int what, int precision)
{
    long iters = 1000;
    double seconds, best = 0;
    while (rate(what, precision, iters, &seconds), seconds < 0.1 && iters < (1L << 40)) iters *= 4;
    for (int k = 0; k < 3; ++k) {
        double r = rate(what, precision, iters, &seconds);
        if (r > best) best = r;
    }
    return best;
}

/* Every thread sums its part of `bytes` (split evenly), `passes` times
 * over: bytes read per second, the best of three. */
static double read_rate(size_t bytes, int passes)
{
    size_t n = bytes / sizeof(double);
    double *v = malloc(bytes), best = 0;
    if (!v) return 0;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) v[i] = (double)(i & 1023); /* each thread touches its own part's pages */
    for (int k = 0; k < 3; ++k) {
        double s = 0, t0 = base_now_seconds();
#pragma omp parallel reduction(+ : s)
        {
            size_t team = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
            const double *mine = v + n * me / team;
            size_t len = n * (me + 1) / team - n * me / team;
            for (int p = 0; p < passes; ++p) {
                double acc = 0;
#pragma omp simd reduction(+ : acc)
                for (size_t i = 0; i < len; ++i) acc += mine[i];
                s += acc;
            }
        }
        double r = (double)bytes * passes / (base_now_seconds() - t0);
        sink += s;
        if (r > best) best = r;
    }
    free(v);
    return best;
}

void bench_cpu_peaks(int threads, int precision, bench_peaks *out)
{
    int before = omp_get_max_threads();
    if (threads > 0) omp_set_num_threads(threads);
    out->arith = best_rate(WHAT_ARITH, precision);
    out->divide = best_rate(WHAT_DIVIDE, precision);
    out->calls = best_rate(WHAT_CALLS, precision);
    out->bytes = read_rate((size_t)256 << 20, 1);
    int team = threads > 0 ? threads : omp_get_max_threads();
    out->cache = read_rate((size_t)team * BENCH_CACHE_BYTES, 2000);
    omp_set_num_threads(before);
}
