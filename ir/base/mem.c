/* mem.c - see mem.h. */
#define _GNU_SOURCE
#include "mem.h"

#include <errno.h> /* program_invocation_short_name */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fail.h"

/* ---- memory ------------------------------------------------------------- */
/* An allocation failed (the machine, ulimit -v or the cgroup allows no
 * more): the memory class of failure, not a bug, and no partial output is
 * in place (outputs are renamed into place only when complete). */
static void out_of_memory(double bytes)
{
    int gib = bytes >= 1073741824.0;
    fprintf(stderr, "%s: error: out of host memory allocating %.1f %s; a coarser grid, fewer subjects or "
            "--precision 32 needs less\n", program_invocation_short_name, bytes / (gib ? 1073741824.0 : 1048576.0),
            gib ? "GiB" : "MiB");
    exit(LCM_E_MEMORY);
}

void *base_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory((double)n);
    return p;
}


void *base_xmalloc_large(size_t n)
{
    const size_t huge = (size_t)2 << 20, whole = (n + huge - 1) / huge * huge;
    if (n < LCM_LARGE_BYTES) return base_xmalloc(n);
    void *p = NULL;
    if (posix_memalign(&p, huge, whole)) out_of_memory((double)n);
    (void)madvise(p, whole, MADV_HUGEPAGE); /* advice: where the system has no huge pages, small ones */
    return p;
}

void *base_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory((double)n * (double)size);
    return p;
}

void *base_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory((double)n);
    return q;
}

char *base_xstrdup(const char *s) { return base_xstrndup(s, strlen(s)); }

char *base_xstrndup(const char *s, size_t n)
{
    char *d = base_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void base_grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    *arr = base_xrealloc(*arr, c * elem);
    memset((char *)*arr + *cap * elem, 0, (c - *cap) * elem);
    *cap = c;
}
