/* bench_common.h - what the benchmarks share: medians, the CPU's name,
 * peak host memory, errors. */
#ifndef LCM_BENCH_COMMON_H
#define LCM_BENCH_COMMON_H

#include "lcm_internal.h"
#include "lcmgen.h"

double bench_median(double *v, int n);
/* The CPU's model name (caller frees). */
char *bench_cpu_name(void);
/* Prints "<prog>: <message>" and exits with the error's code. */
void bench_die(const char *prog, const lcm_err *err);
/* Peak resident host memory of this process, MiB. */
double bench_peak_rss_mib(void);

#endif
