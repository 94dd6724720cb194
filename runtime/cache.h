/* cache.h - compiled solvers kept on disk across runs.
 *
 * Location: $LCM_CACHE_DIR, else ~/.cache/lcm.  An entry is
 * <dir>/<kind>/<key>.lcmc: a header (magic, format version, payload length,
 * SHA-256 of the payload) followed by the payload (a shared object, a
 * cubin...).  Entries are written to a temporary file and renamed, so
 * concurrent processes never see half an entry; a truncated or corrupted
 * entry is detected, reported once as a warning and rebuilt; a cache that
 * cannot be written (read-only, full) is reported once and the solver is
 * used from memory.
 */
#ifndef LCM_CACHE_H
#define LCM_CACHE_H

#include <stddef.h>

#include "util.h"

#define LCM_CACHE_FORMAT 1

typedef struct lcm_cache {
    char *dir;
    int warned_write; /* a failed write was already reported */
} lcm_cache;

/* dir: NULL for the default location. Never fails: a missing or unusable
 * directory only means nothing is found and writes warn. */
void lcm_cache_open(lcm_cache *c, const char *dir);
void lcm_cache_close(lcm_cache *c);
char *lcm_cache_default_dir(void);

/* Returns 1 and the payload (caller frees) if a valid entry exists, else 0. */
int lcm_cache_get(lcm_cache *c, const char *kind, const char *key, void **data, size_t *len);
/* Stores an entry; returns 0, or non-zero (already warned) when it could not. */
int lcm_cache_put(lcm_cache *c, const char *kind, const char *key, const void *data, size_t len);
char *lcm_cache_entry_path(const lcm_cache *c, const char *kind, const char *key);

/* One entry found by lcm_cache_scan. */
typedef struct lcm_cache_entry {
    const char *kind, *key, *path;
    size_t bytes;
    double mtime;
    const char *problem; /* NULL when the entry is valid */
} lcm_cache_entry;

/* Calls fn for every entry (kinds and keys in sorted order); returns the count. */
int lcm_cache_scan(const lcm_cache *c, void (*fn)(const lcm_cache_entry *e, void *ctx), void *ctx);
/* Removes every entry and leftover temporary file; returns the number removed,
 * or -1 with err filled. */
int lcm_cache_clear(const lcm_cache *c, lcm_err *err);

/* Encodes/decodes the entry format (exposed for tests). */
void lcm_cache_encode(const void *data, size_t len, lcm_sb *out);
/* Returns 0 if `file` is a valid entry, else a reason (static string). */
const char *lcm_cache_decode(const char *file, size_t flen, const char **payload, size_t *plen);

#endif
