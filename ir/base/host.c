/* host.c - see host.h. */
#define _GNU_SOURCE
#include "host.h"

#include <omp.h>
#include <time.h>

#include "lcm.h" /* LCM_MAX_THREADS */

int base_host_threads(int asked)
{
    if (asked > 0) return asked;
    int n = omp_get_max_threads();
    return n < LCM_MAX_THREADS ? n : LCM_MAX_THREADS;
}

double base_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}