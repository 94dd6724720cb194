/* peak.h - the ceilings of a roofline on this CPU, measured: what the
 * generated kernels could do at most here, compiled as the cpu backend
 * compiles them (-O3 -march=native -std=c11 -fopenmp, so without fused
 * multiply-adds), on `threads` OpenMP threads (0: OpenMP's default).
 *
 *   arith   independent multiply-adds on vectors that stay in registers:
 *           arithmetic operations per second (a multiply and an add are two)
 *   divide  independent divisions on vectors in L1: divisions per second
 *   calls   log of L1-resident values, one call each: calls per second
 *   bytes   a sum over 256 MiB: bytes read from memory per second
 *   cache   sums over BENCH_CACHE_BYTES per thread, again and again: bytes
 *           read per second from the caches (L2 on most machines)
 *
 * Each figure is the best of three runs of at least 0.1 s, in the given
 * precision (64 or 32); the machine's other load lowers them. */
#ifndef LCM_BENCH_PEAK_H
#define LCM_BENCH_PEAK_H

#define BENCH_CACHE_BYTES (256 << 10)

typedef struct bench_peaks {
    double arith, divide, calls, bytes, cache;
} bench_peaks;

void bench_cpu_peaks(int threads, int precision, bench_peaks *out);

#endif
