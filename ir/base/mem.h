/* mem.h - memory: allocation that cannot fail (out of memory ends the process with a message). */
#ifndef LCM_MEM_H
#define LCM_MEM_H

#include <stddef.h>

void *base_xmalloc(size_t n);
/* Memory for a large array written through once (a panel's columns):
 * from LCM_LARGE_BYTES on, aligned to 2 MiB and advised as transparent
 * huge pages, so that first touching it faults once per 2 MiB, not once
 * per 4 KiB (a fresh 229 MiB panel: 58,600 faults, or 115).  free() gives
 * it back; smaller sizes are plain malloc.  Not for scratch freed and
 * taken again by every run: malloc hands that back from its heap, already
 * touched, and an aligned block is always new. */
#define LCM_LARGE_BYTES ((size_t)16 << 20)
void *base_xmalloc_large(size_t n);
void *base_xcalloc(size_t n, size_t size);
void *base_xrealloc(void *p, size_t n);
char *base_xstrdup(const char *s);
char *base_xstrndup(const char *s, size_t n);

/* Grows *arr (of element size elem) so that index `need - 1` is valid. */
void base_grow_array(void **arr, size_t *cap, size_t need, size_t elem);
#define LCM_GROW(arr, cap, need) base_grow_array((void **)&(arr), &(cap), (need), sizeof *(arr))

#endif
