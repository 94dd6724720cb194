/* bench_common.c - see bench_common.h. */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

char *bench_cpu_name(void)
{
    char *info = lcm_read_file("/proc/cpuinfo", NULL, NULL);
    char *name = NULL;
    char *p = info ? strstr(info, "model name") : NULL;
    if (p && (p = strchr(p, ':'))) name = lcm_xstrndup(p + 2, strcspn(p + 2, "\n"));
    free(info);
    return name ? name : lcm_xstrdup("unknown CPU");
}

void bench_die(const char *prog, const lcm_err *err)
{
    fprintf(stderr, "%s: %s\n", prog, err->msg);
    exit(err->code ? err->code : 1);
}

double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}
