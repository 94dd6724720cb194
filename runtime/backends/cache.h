/* cache.h - compiled solvers kept on disk across runs.
 *
 * Location: $LCM_CACHE_DIR, else $XDG_CACHE_HOME/lcm, else ~/.cache/lcm.
 * An entry is <dir>/<kind>/<key>.lcmc: a header (magic, format version,
 * name length, payload length, SHA-256 of name and payload), the entry's
 * name "<kind>/<key>" and its label (two lines: the model's name and what
 * the entry is, as `lcm cache list` shows them), then the payload (a
 * shared object, a cubin...).
 *
 * lcm runs what it finds here, so an entry is trusted only when it proves
 * it is the one asked for: its stored name must be the key looked up (an
 * entry copied under another key is another model's solver), its checksum
 * must hold, and it must be a regular file of a plausible size, opened
 * without following links and its header read before anything else (a
 * FIFO, a link to /dev/zero or a huge sparse file is refused unread).  Any
 * of these failures is reported once as a warning, and the entry is
 * removed and rebuilt; an entry of another cache format is rebuilt with a
 * progress message.  A cache opened as `required` (lcm compile, whose only
 * result is the entry) reports what keeps an entry out as an error.  The directories must belong to the user (or root)
 * and be writable by nobody else, or the cache is not used: whoever can
 * write there chooses the code lcm runs.  Entries are written to a
 * temporary file of a random name created exclusively (never through a
 * planted link) and renamed, so concurrent processes never see half an
 * entry; a cache that cannot be written (read-only, full) is reported once
 * and the solver is used from memory.
 */
#ifndef LCM_CACHE_H
#define LCM_CACHE_H

#include <stddef.h>

#include "base.h"

/* 2: the entry stores its name (1 did not: an entry copied under another
 * key was run); 3: and its label.  Entries of other formats are rebuilt. */
#define LCM_CACHE_FORMAT 3

/* No solver comes near this (the bundled models' shared objects are tens
 * of KiB, cubins a few MiB): a larger file is refused without reading it. */
#define LCM_CACHE_MAX_ENTRY ((size_t)256 << 20)

typedef struct lcm_cache {
    char *dir;
    int required;      /* a solver the cache cannot take is an error, not a warning (lcm compile) */
    int warned_write;  /* a failed write was already reported */
    int warned_unsafe; /* an untrusted directory was already reported */
    char unsafe[512];  /* why the cache is not used, once an untrusted directory was found */
} lcm_cache;

/* dir: NULL for the default location. Never fails: a missing or unusable
 * directory only means nothing is found and writes warn. */
void be_cache_open(lcm_cache *c, const char *dir);
void be_cache_close(lcm_cache *c);
char *be_cache_default_dir(void);
/* Which variable gave the default location: "LCM_CACHE_DIR",
 * "XDG_CACHE_HOME" or "HOME" (NULL: none is set, /tmp/.cache/lcm). */
const char *be_cache_default_source(void);

/* Returns 1 and the payload (caller frees) if a valid entry exists, else 0. */
int be_cache_get(lcm_cache *c, const char *kind, const char *key, void **data, size_t *len);
/* In a required cache, whether entries of `kind` can be written there, before
 * the minutes a compile may take: 0, or the error be_cache_put would give.
 * 0 in any other cache (a solve compiles in memory when it cannot). */
int be_cache_check_required(lcm_cache *c, const char *kind, lcm_err *err);
/* Stores an entry labelled with the model's name and what it is (either
 * may be NULL; each is cut at 1024 bytes, control characters made '?');
 * returns 0, or non-zero when it could not: with err filled in a required
 * cache (when err is not NULL), else warned once (the solver then runs from
 * memory). */
int be_cache_put(lcm_cache *c, const char *kind, const char *key, const char *model, const char *what,
                  const void *data, size_t len, lcm_err *err);
char *be_cache_entry_path(const lcm_cache *c, const char *kind, const char *key);

/* One entry found by be_cache_scan. */
typedef struct lcm_cache_entry {
    const char *kind, *key, *path;
    size_t bytes;
    double mtime;
    const char *problem; /* NULL when the entry is valid */
    const char *model;   /* its label (valid entries): the model's name, or NULL */
    const char *what;    /* and what it is ("float64", "sm_90 float32"), or NULL */
    int folder;          /* a folder under an entry's name: not rebuilt while it is there */
} lcm_cache_entry;

/* Calls fn for every entry of the known kinds (cpu, cuda), keys in sorted
 * order; returns the count. */
int be_cache_scan(const lcm_cache *c, void (*fn)(const lcm_cache_entry *e, void *ctx), void *ctx);
/* Removes every entry and leftover temporary file of the known kinds (and
 * nothing else: a folder under an entry's name only when it is empty), or
 * with `model` only that model's valid entries (its name matched as it is
 * stored: cut at 1024 bytes, control characters made '?'); returns the number
 * removed, or -1 with err filled when some could not be removed (the
 * others are). */
int be_cache_clear(const lcm_cache *c, const char *model, lcm_err *err);

/* Encodes/decodes the entry format (exposed for tests): an entry of
 * kind/key.  decode returns 0 if `file` is a valid entry of that name, else
 * a reason (static string); with it the label's lines (caller frees; NULL
 * when absent), where model and what are not NULL. */
void be_cache_encode(const char *kind, const char *key, const char *model, const char *what, const void *data,
                      size_t len, lcm_sb *out);
const char *be_cache_decode(const char *kind, const char *key, const char *file, size_t flen, const char **payload,
                             size_t *plen, char **model, char **what);

#endif
