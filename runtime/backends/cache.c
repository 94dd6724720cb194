/* cache.c - see cache.h.
 *
 * Every file operation goes through descriptors: the top directory is
 * opened once (a link to it is followed: caches are moved to other disks
 * that way) and checked, the kind directory below it is opened without
 * following a link and checked, and entries are opened, created and renamed
 * relative to that descriptor.  A name swapped for a link after a check
 * cannot redirect what is read or written.
 */
#define _GNU_SOURCE
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "log.h"
#include "sha256.h"
#include "tempname.h"

static const char MAGIC[8] = {'L', 'C', 'M', 'C', 'A', 'C', 'H', 'E'};
/* magic, format, name length, payload length, SHA-256 */
#define HEADER_SIZE (8 + 4 + 4 + 8 + 32)
#define DIGEST_AT 24
/* "<kind>/<key>" (keys are 64 hex digits), then "\n<model>\n<what>" */
#define MAX_LABEL 1024 /* each of model and what */
#define MAX_NAME (128 + 2 * (MAX_LABEL + 1))

/* The kinds of entries: the only folders lcm reads, lists and clears
 * (cc: what a C compiler says of itself, backend_cpu.c). */
static const char *const KINDS[] = {"cpu", "cuda", "cc"};
#define NKINDS ((int)(sizeof KINDS / sizeof *KINDS))

/* Reasons an entry is not used (be_cache_decode, lcm cache list). */
static const char OTHER_FORMAT[] = "written by another version of lcm";
static const char OTHER_KEY[] = "it holds the solver of another key";

/* Where the default location comes from, first set first (an empty
 * variable is unset): the variable, what follows its value, and whether
 * only an absolute path counts (the XDG base directory rules: a relative
 * XDG_CACHE_HOME is ignored; a relative HOME likewise, rather than a cache
 * that moves with the current folder). */
static const struct {
    const char *var, *below;
    int absolute;
} LOCATIONS[] = {{"LCM_CACHE_DIR", "", 0}, {"XDG_CACHE_HOME", "/lcm", 1}, {"HOME", "/.cache/lcm", 1}};
#define NLOCATIONS ((int)(sizeof LOCATIONS / sizeof *LOCATIONS))

static int default_location(void)
{
    for (int i = 0; i < NLOCATIONS; ++i) {
        const char *v = getenv(LOCATIONS[i].var);
        if (v && *v && (!LOCATIONS[i].absolute || *v == '/')) return i;
    }
    return -1;
}

const char *be_cache_default_source(void)
{
    int i = default_location();
    return i < 0 ? NULL : LOCATIONS[i].var;
}

char *be_cache_default_dir(void)
{
    int i = default_location();
    return i < 0 ? base_xstrdup("/tmp/.cache/lcm") : base_xasprintf("%s%s", getenv(LOCATIONS[i].var), LOCATIONS[i].below);
}

void be_cache_open(lcm_cache *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->dir = dir ? base_xstrdup(dir) : be_cache_default_dir();
}

void be_cache_close(lcm_cache *c)
{
    free(c->dir);
    c->dir = NULL;
}

char *be_cache_entry_path(const lcm_cache *c, const char *kind, const char *key)
{
    return base_xasprintf("%s/%s/%s.lcmc", c->dir, kind, key);
}

/* ---- the entry format ------------------------------------------------------ */
static void put_le(lcm_sb *b, uint64_t x, int n)
{
    unsigned char v[8];
    for (int i = 0; i < n; ++i) v[i] = (unsigned char)(x >> (8 * i));
    base_sb_putn(b, (const char *)v, (size_t)n);
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t x = 0;
    for (int i = n - 1; i >= 0; --i) x = x << 8 | p[i];
    return x;
}

/* SHA-256 of everything but itself: the header before it, name, payload. */
static void entry_digest(const unsigned char *head, const char *name, size_t nlen, const void *data, size_t len,
                         unsigned char digest[32])
{
    lcm_sha256 h;
    base_sha256_init(&h);
    base_sha256_update(&h, head, DIGEST_AT);
    base_sha256_update(&h, name, nlen);
    base_sha256_update(&h, data, len);
    base_sha256_final(&h, digest);
}

/* A label's text as stored (and as a name is matched with it): at most
 * MAX_LABEL bytes, no control characters (a newline would end it). */
static void label_text(lcm_sb *b, const char *text)
{
    for (size_t i = 0; text && text[i] && i < MAX_LABEL; ++i)
        base_sb_putc(b, (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i]);
}

static void put_label(lcm_sb *b, const char *text)
{
    base_sb_putc(b, '\n');
    label_text(b, text);
}

void be_cache_encode(const char *kind, const char *key, const char *model, const char *what, const void *data,
                      size_t len, lcm_sb *out)
{
    lcm_sb names;
    base_sb_init(&names);
    base_sb_printf(&names, "%s/%s", kind, key);
    put_label(&names, model), put_label(&names, what);
    const char *name = names.s;
    size_t nlen = names.len, at = out->len;
    base_sb_putn(out, MAGIC, 8);
    put_le(out, LCM_CACHE_FORMAT, 4);
    put_le(out, nlen, 4);
    put_le(out, len, 8);
    unsigned char digest[32];
    entry_digest((const unsigned char *)out->s + at, name, nlen, data, len, digest);
    base_sb_putn(out, (const char *)digest, 32);
    base_sb_putn(out, name, nlen);
    base_sb_putn(out, data, len);
    base_sb_free(&names);
}

/* The header of a file of flen bytes: NULL, with the name's and payload's
 * lengths, or why it is no entry. */
static const char *check_header(const unsigned char *p, size_t flen, size_t *nlen, size_t *plen)
{
    if (flen < HEADER_SIZE) return "truncated header";
    if (memcmp(p, MAGIC, 8)) return "bad magic";
    if (get_le(p + 8, 4) != LCM_CACHE_FORMAT) return OTHER_FORMAT;
    uint64_t n = get_le(p + 12, 4), len = get_le(p + 16, 8);
    if (n == 0 || n > MAX_NAME || len > LCM_CACHE_MAX_ENTRY) return "bad header";
    if (flen - HEADER_SIZE < n + len) return "truncated payload";
    if (flen - HEADER_SIZE > n + len) return "bytes after the payload";
    *nlen = (size_t)n, *plen = (size_t)len;
    return NULL;
}

/* The label's line `line` (0: model, 1: what) of a name whose lines after
 * the first are the label, or NULL. */
static char *label_line(const char *name, size_t nlen, int line)
{
    const char *end = name + nlen, *at = memchr(name, '\n', nlen);
    for (int i = 0; at && i < line; ++i) at = memchr(at + 1, '\n', (size_t)(end - at - 1));
    if (!at) return NULL;
    const char *stop = memchr(at + 1, '\n', (size_t)(end - at - 1));
    size_t len = (size_t)((stop ? stop : end) - at - 1);
    return memchr(at + 1, 0, len) ? NULL : base_xstrndup(at + 1, len); /* no label of ours holds a NUL */
}

const char *be_cache_decode(const char *kind, const char *key, const char *file, size_t flen, const char **payload,
                             size_t *plen, char **model, char **what)
{
    const unsigned char *p = (const unsigned char *)file;
    size_t nlen, len;
    const char *why = check_header(p, flen, &nlen, &len);
    if (why) return why;
    const char *name = file + HEADER_SIZE;
    unsigned char digest[32];
    entry_digest(p, name, nlen, name + nlen, len, digest);
    if (memcmp(digest, p + DIGEST_AT, 32)) return "checksum mismatch";
    size_t klen = strlen(kind), own = klen + 1 + strlen(key); /* "<kind>/<key>", then the label */
    if (nlen < own || (nlen > own && name[own] != '\n') || memcmp(name, kind, klen) || name[klen] != '/' ||
        memcmp(name + klen + 1, key, own - klen - 1))
        return OTHER_KEY;
    *payload = name + nlen;
    *plen = len;
    if (model) *model = label_line(name, nlen, 0);
    if (what) *what = label_line(name, nlen, 1);
    return NULL;
}

/* ---- directories ------------------------------------------------------------ */
static int known_kind(const char *kind)
{
    for (int k = 0; k < NKINDS; ++k)
        if (!strcmp(kind, KINDS[k])) return 1;
    return 0;
}

/* A key names a file in its kind's folder: no path, no dot file. */
static int plain_name(const char *s) { return *s && *s != '.' && !strchr(s, '/'); }

/* Why the open directory `fd` cannot hold code lcm runs, or NULL: it must
 * belong to the user or root, and nobody else may write into it. */
static const char *untrusted(int fd, char *buf, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return "it cannot be examined";
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        snprintf(buf, size, "it belongs to another user (uid %ld)", (long)st.st_uid);
        return buf;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(buf, size, "others may write into it (mode %03o)", (unsigned)(st.st_mode & 0777));
        return buf;
    }
    return NULL;
}

/* The cache's top folder, opened (made first when `create`), or -1 with err
 * filled when it does not exist or cannot be made. */
static int open_top(const lcm_cache *c, int create, lcm_err *err)
{
    int fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && create && !sys_make_dirs(c->dir, err)) fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && !err->code) base_fail(err, LCM_E_IO, "cannot open '%s': %s", c->dir, strerror(errno));
    return fd;
}

/* A kind's folder below the top, never through a link (made first when
 * `create`); -1 (errno set) when it is missing or something else. */
static int open_kind_at(int top, const char *kind, int create)
{
    if (create && mkdirat(top, kind, 0755) != 0 && errno != EEXIST) return -1;
    return openat(top, kind, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Says once, as a warning, that the cache is not used and why (a
 * required cache says it as the error of the put that follows). */
static void warn_unsafe(lcm_cache *c, const char *what, const char *why)
{
    if (c->warned_unsafe) return;
    c->warned_unsafe = 1;
    snprintf(c->unsafe, sizeof c->unsafe, "%s: %s, and lcm would run code placed there; fix it or set LCM_CACHE_DIR "
             "to a folder of your own", what, why);
    if (!c->required) io_warn("not using the solver cache: %s (compiling in memory this time)", c->unsafe);
}

/* The kind's folder of a cache that get and put may use, or -1: missing
 * (err filled when `create` could not make it) or untrusted (warned). */
static int open_kind(lcm_cache *c, const char *kind, int create, lcm_err *err)
{
    int top = open_top(c, create, err);
    if (top < 0) return -1;
    char buf[128], *sub = NULL;
    const char *why = untrusted(top, buf, sizeof buf);
    int fd = why ? -1 : open_kind_at(top, kind, create);
    int e = errno;
    close(top);
    if (why) {
        warn_unsafe(c, c->dir, why);
        return -1;
    }
    if (fd < 0 && (e == ELOOP || e == ENOTDIR)) { /* a link or a file where the folder should be */
        warn_unsafe(c, sub = base_xasprintf("%s/%s", c->dir, kind), "it is a symbolic link or not a folder");
        free(sub);
        return -1;
    }
    if (fd < 0) {
        if (create) base_fail(err, LCM_E_IO, "cannot create directory '%s/%s': %s", c->dir, kind, strerror(e));
        return -1;
    }
    if ((why = untrusted(fd, buf, sizeof buf))) {
        close(fd);
        warn_unsafe(c, sub = base_xasprintf("%s/%s", c->dir, kind), why);
        free(sub);
        return -1;
    }
    return fd;
}

/* ---- reading an entry --------------------------------------------------------- */
/* 0, or -1 on an error (errno set), or 1 when the file ends first. */
static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? -1 : 1;
        p += r, n -= (size_t)r;
    }
    return 0;
}

/* What reading an entry found. */
typedef enum { ENTRY_NONE, ENTRY_READ, ENTRY_UNREADABLE, ENTRY_BAD } entry_state;

/* Reads file `name` of a kind's folder if it can be an entry: a regular
 * file (a link, FIFO, device or folder is refused unopened or unread) no
 * larger than the largest entry, its header read and checked before the
 * rest.  ENTRY_READ: *file (caller frees) holds flen bytes.  ENTRY_BAD:
 * *why says what is wrong.  ENTRY_UNREADABLE: errno says why. */
static entry_state read_entry(int dfd, const char *name, char **file, size_t *flen, const char **why)
{
    *file = NULL;
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? ENTRY_NONE : ENTRY_UNREADABLE;
    if (S_ISLNK(st.st_mode)) return *why = "a symbolic link, not a file", ENTRY_BAD;
    if (S_ISDIR(st.st_mode)) return *why = "a folder, not a file", ENTRY_BAD;
    if (!S_ISREG(st.st_mode)) return *why = "a FIFO, socket or device, not a file", ENTRY_BAD;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? ENTRY_NONE : errno == ELOOP ? (*why = "a symbolic link, not a file", ENTRY_BAD)
                                                                      : ENTRY_UNREADABLE;
    entry_state s = ENTRY_BAD;
    unsigned char head[HEADER_SIZE];
    size_t nlen, plen, size = 0;
    int got = 0;
    if (fstat(fd, &st) != 0) s = ENTRY_UNREADABLE; /* the same file as opened, whatever the name became */
    else if (!S_ISREG(st.st_mode)) *why = "a FIFO, socket or device, not a file";
    else if ((unsigned long long)st.st_size > HEADER_SIZE + MAX_NAME + LCM_CACHE_MAX_ENTRY)
        *why = "larger than any solver can be";
    else if ((got = read_all(fd, head, (size = (size_t)st.st_size) < HEADER_SIZE ? size : HEADER_SIZE)))
        got < 0 ? (void)(s = ENTRY_UNREADABLE) : (void)(*why = "truncated header"); /* it shrank under us */
    else if (!(*why = check_header(head, size, &nlen, &plen))) {
        *file = base_xmalloc(size);
        memcpy(*file, head, HEADER_SIZE);
        if ((got = read_all(fd, *file + HEADER_SIZE, size - HEADER_SIZE))) {
            free(*file), *file = NULL;
            if (got < 0) s = ENTRY_UNREADABLE;
            else *why = "truncated payload";
        } else {
            *flen = size;
            s = ENTRY_READ;
        }
    }
    int e = errno;
    close(fd);
    errno = e;
    return s;
}

/* Reads and checks the entry of kind/key in its folder: ENTRY_READ with
 * *file (caller frees) and the payload inside it, or why not. */
static entry_state load_entry(int dfd, const char *kind, const char *key, char **file, const char **payload,
                              size_t *plen, char **model, char **what, const char **why)
{
    char *name = base_xasprintf("%s.lcmc", key);
    size_t flen = 0;
    entry_state s = read_entry(dfd, name, file, &flen, why);
    int e = errno;
    if (s == ENTRY_READ && (*why = be_cache_decode(kind, key, *file, flen, payload, plen, model, what))) {
        free(*file), *file = NULL;
        s = ENTRY_BAD;
    }
    free(name);
    errno = e;
    return s;
}

int be_cache_get(lcm_cache *c, const char *kind, const char *key, void **data, size_t *len)
{
    lcm_err err = {0};
    if (!known_kind(kind) || !plain_name(key)) return 0;
    int dfd = open_kind(c, kind, 0, &err);
    if (dfd < 0) return 0;
    char *file = NULL, *path = be_cache_entry_path(c, kind, key);
    const char *payload = NULL, *why = NULL;
    size_t plen = 0;
    entry_state s = load_entry(dfd, kind, key, &file, &payload, &plen, NULL, NULL, &why);
    if (s == ENTRY_UNREADABLE) io_warn("cannot read cache entry %s (%s); rebuilding it", path, strerror(errno));
    if (s == ENTRY_BAD) {
        if (why == OTHER_FORMAT) io_progress("cache entry %s was %s; rebuilding it", path, why);
        else io_warn("cache entry %s is corrupt (%s); rebuilding it", path, why);
        char *name = base_xasprintf("%s.lcmc", key);
        unlinkat(dfd, name, 0); /* a link goes, not what it names */
        free(name);
    }
    if (s == ENTRY_READ) {
        *data = base_xmalloc(plen);
        memcpy(*data, payload, plen);
        *len = plen;
    }
    close(dfd);
    free(file);
    free(path);
    return s == ENTRY_READ;
}

/* ---- writing an entry ---------------------------------------------------------- */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Writes `name` in the folder dfd (at `path`, for messages) through a
 * temporary of an unguessable name that says who made it (tempname.h),
 * created exclusively and never through a link (a planted name is skipped,
 * not followed), then renamed onto it.  The temporaries of the name that
 * killed runs left go first. */
static int write_entry(int dfd, const char *name, const char *path, const char *data, size_t len, lcm_err *err)
{
    char *tmp = NULL;
    int fd = -1;
    sys_temp_sweep(dfd, name);
    for (int tries = 0; tries < 8 && fd < 0; ++tries) {
        free(tmp);
        tmp = sys_temp_name(name);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    int rc = 0;
    if (fd < 0) rc = base_fail(err, LCM_E_IO, "cannot create a temporary file for '%s': %s", path, strerror(errno));
    else if (write_all(fd, data, len) || (fsync(fd) != 0 && errno != EINVAL)) {
        rc = base_fail(err, LCM_E_IO, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
    } else if (close(fd) != 0 || renameat(dfd, tmp, dfd, name) != 0)
        rc = base_fail(err, LCM_E_IO, "cannot write '%s': %s", path, strerror(errno));
    if (rc && fd >= 0) unlinkat(dfd, tmp, 0);
    free(tmp);
    return rc;
}

/* The kind's folder, made if missing, for writing: or -1 with *why filled. */
static int open_for_writing(lcm_cache *c, const char *kind, lcm_err *why)
{
    int dfd = open_kind(c, kind, 1, why);
    if (dfd < 0 && !why->code) base_fail(why, LCM_E_IO, "%s", c->unsafe);
    return dfd;
}

/* The error of a required cache that cannot take a solver of `kind`. */
static int cannot_take(lcm_err *err, const lcm_err *why, const char *kind)
{
    *err = *why;
    return base_fail_prefix(err, "the solver cache cannot take the compiled %s solver", kind);
}

int be_cache_check_required(lcm_cache *c, const char *kind, lcm_err *err)
{
    if (!c->required) return 0;
    lcm_err why = {0};
    int dfd = open_for_writing(c, kind, &why);
    if (dfd < 0) return cannot_take(err, &why, kind);
    close(dfd);
    return 0;
}

int be_cache_put(lcm_cache *c, const char *kind, const char *key, const char *model, const char *what,
                  const void *data, size_t len, lcm_err *err)
{
    lcm_err why = {0};
    if (!known_kind(kind) || !plain_name(key))
        return base_fail(&why, LCM_E_INTERNAL, "no cache entry kind '%s' key '%s'", kind, key);
    int dfd = -1, rc = 0;
    if (len > LCM_CACHE_MAX_ENTRY)
        rc = base_fail(&why, LCM_E_IO, "the %s solver is %.1f MiB, more than a cache entry may hold (%zu MiB)", kind,
                      (double)len / 1048576.0, LCM_CACHE_MAX_ENTRY >> 20);
    else if ((dfd = open_for_writing(c, kind, &why)) < 0)
        rc = why.code;
    if (dfd >= 0) {
        lcm_sb b;
        base_sb_init(&b);
        be_cache_encode(kind, key, model, what, data, len, &b);
        char *name = base_xasprintf("%s.lcmc", key), *path = be_cache_entry_path(c, kind, key);
        rc = write_entry(dfd, name, path, b.s, b.len, &why);
        free(name), free(path);
        base_sb_free(&b);
        close(dfd);
    }
    if (!rc) return 0;
    if (c->required) { /* silent without err: the entry that matters reports it */
        if (err) cannot_take(err, &why, kind);
        return rc;
    }
    if (!c->warned_write && !c->warned_unsafe) { /* an untrusted folder was warned of already */
        io_warn("cannot write the solver cache (%s); compiling in memory this time", why.msg);
        c->warned_write = 1;
    }
    return rc;
}

/* ---- inspection ----------------------------------------------------------- */
static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names in an open folder (kept open), skipping dot files. */
static char **list_dir(int dfd, int *n)
{
    *n = 0;
    int fd = dup(dfd);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    char **v = NULL;
    size_t cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        LCM_GROW(v, cap, (size_t)*n + 2);
        v[(*n)++] = base_xstrdup(e->d_name);
    }
    closedir(d);
    if (v) qsort(v, (size_t)*n, sizeof *v, cmp_names);
    return v;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; ++i) free(v[i]);
    free(v);
}

/* The key of an entry's file name ("<key>.lcmc"), or NULL. */
static char *entry_key(const char *file)
{
    size_t len = strlen(file);
    return len > 5 && !strcmp(file + len - 5, ".lcmc") ? base_xstrndup(file, len - 5) : NULL;
}

static void scan_entry(const lcm_cache *c, int dfd, const char *kind, const char *file,
                       void (*fn)(const lcm_cache_entry *e, void *ctx), void *ctx)
{
    char *key = entry_key(file), *path = base_xasprintf("%s/%s/%s", c->dir, kind, file), *data = NULL;
    lcm_cache_entry e = {.kind = kind, .key = key, .path = path};
    struct stat st;
    if (fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0)
        e.bytes = (size_t)st.st_size, e.mtime = (double)st.st_mtime, e.folder = S_ISDIR(st.st_mode);
    const char *payload, *why = NULL;
    size_t plen;
    char *model = NULL, *what = NULL;
    entry_state s = load_entry(dfd, kind, key, &data, &payload, &plen, &model, &what, &why);
    e.problem = s == ENTRY_READ ? NULL : s == ENTRY_BAD ? why : "unreadable";
    e.model = model, e.what = what;
    fn(&e, ctx);
    free(data), free(key), free(path), free(model), free(what);
}

int be_cache_scan(const lcm_cache *c, void (*fn)(const lcm_cache_entry *e, void *ctx), void *ctx)
{
    lcm_err err = {0};
    int top = open_top(c, 0, &err), count = 0;
    for (int k = 0; k < NKINDS && top >= 0; ++k) {
        int dfd = open_kind_at(top, KINDS[k], 0), nfiles;
        char **files = dfd < 0 ? NULL : list_dir(dfd, &nfiles);
        for (int f = 0; files && f < nfiles; ++f) {
            char *key = entry_key(files[f]);
            if (key && plain_name(key)) scan_entry(c, dfd, KINDS[k], files[f], fn, ctx), ++count;
            free(key);
        }
        if (files) free_list(files, nfiles);
        if (dfd >= 0) close(dfd);
    }
    if (top >= 0) close(top);
    return count;
}

/* What be_cache_clear could not remove: the first (named) and how many. */
typedef struct left_over {
    int count;
    lcm_err first;
} left_over;

/* Removes file `name` of a kind's folder: an entry or a temporary file,
 * or a link or FIFO in its place.  A folder under such a name lcm never
 * made: it goes only when empty, never with what is inside.  1 when
 * removed, 0 when gone already, -1 when left (noted in *left). */
static int remove_entry(const lcm_cache *c, int dfd, const char *kind, const char *name, left_over *left)
{
    struct stat st;
    int folder = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    if (unlinkat(dfd, name, folder ? AT_REMOVEDIR : 0) == 0) return 1;
    if (errno == ENOENT) return 0;
    if (!left->count++) {
        if (folder && (errno == ENOTEMPTY || errno == EEXIST))
            base_fail(&left->first, LCM_E_IO, "%s/%s/%s is a folder with files in it, not an entry: lcm does not "
                     "remove it (nor can it write that entry while it is there)", c->dir, kind, name);
        else base_fail(&left->first, LCM_E_IO, "cannot remove %s/%s/%s: %s", c->dir, kind, name, strerror(errno));
    }
    return -1;
}

/* Whether file `name` of a kind's folder is what a clear of `model`
 * removes: with a model, that model's intact entries; without, every
 * entry; and either way the temporaries that killed runs left (never one of
 * a run that is writing: tempname.h). */
static int to_clear(int dfd, const char *kind, const char *name, const char *model)
{
    if (sys_temp_stale(dfd, name, NULL)) return 1;
    char *key = entry_key(name);
    int ours = key != NULL;
    if (model && key) {
        char *file = NULL, *own = NULL;
        const char *payload, *why;
        size_t plen;
        ours = load_entry(dfd, kind, key, &file, &payload, &plen, &own, NULL, &why) == ENTRY_READ && own &&
               !strcmp(own, model);
        free(file), free(own);
    } else if (model) ours = 0;
    free(key);
    return ours;
}

int be_cache_clear(const lcm_cache *c, const char *model, lcm_err *err)
{
    lcm_sb stored; /* the model's name as a label holds it */
    base_sb_init(&stored);
    if (model) label_text(&stored, model), model = stored.s ? stored.s : "";
    lcm_err none = {0};
    int top = open_top(c, 0, &none), removed = 0;
    left_over left = {0};
    for (int k = 0; k < NKINDS && top >= 0; ++k) {
        int dfd = open_kind_at(top, KINDS[k], 0), nfiles;
        char **files = dfd < 0 ? NULL : list_dir(dfd, &nfiles);
        for (int f = 0; files && f < nfiles; ++f)
            if (to_clear(dfd, KINDS[k], files[f], model) && remove_entry(c, dfd, KINDS[k], files[f], &left) > 0)
                ++removed;
        if (files) free_list(files, nfiles);
        if (dfd >= 0) close(dfd), unlinkat(top, KINDS[k], AT_REMOVEDIR); /* when empty */
    }
    if (top >= 0) close(top);
    base_sb_free(&stored);
    if (!left.count) return removed;
    char others[48] = "this one";
    if (left.count > 1) snprintf(others, sizeof others, "%d, the first", left.count);
    base_fail(err, left.first.code, "removed %d entr%s, but not %s: %s", removed, removed == 1 ? "y" : "ies", others,
             left.first.msg);
    return -1;
}
