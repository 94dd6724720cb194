/* cache.c - see cache.h. */
#define _GNU_SOURCE
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sha256.h"

static const char MAGIC[8] = {'L', 'C', 'M', 'C', 'A', 'C', 'H', 'E'};
#define HEADER_SIZE (8 + 4 + 4 + 8 + 32)

char *lcm_cache_default_dir(void)
{
    const char *env = getenv("LCM_CACHE_DIR");
    if (env && *env) return xstrdup(env);
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg) return xasprintf("%s/lcm", xdg);
    const char *home = getenv("HOME");
    return xasprintf("%s/.cache/lcm", home && *home ? home : "/tmp");
}

void lcm_cache_open(lcm_cache *c, const char *dir)
{
    c->dir = dir ? xstrdup(dir) : lcm_cache_default_dir();
    c->warned_write = 0;
}

void lcm_cache_close(lcm_cache *c)
{
    free(c->dir);
    c->dir = NULL;
}

char *lcm_cache_entry_path(const lcm_cache *c, const char *kind, const char *key)
{
    return xasprintf("%s/%s/%s.lcmc", c->dir, kind, key);
}

static void put_u32(lcm_sb *b, uint32_t x)
{
    unsigned char v[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16), (unsigned char)(x >> 24)};
    sb_putn(b, (const char *)v, 4);
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t x = 0;
    for (int i = n - 1; i >= 0; --i) x = x << 8 | p[i];
    return x;
}

void lcm_cache_encode(const void *data, size_t len, lcm_sb *out)
{
    unsigned char digest[32];
    lcm_sha256 c;
    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final(&c, digest);
    sb_putn(out, MAGIC, 8);
    put_u32(out, LCM_CACHE_FORMAT);
    put_u32(out, 0);
    put_u32(out, (uint32_t)len);
    put_u32(out, (uint32_t)((uint64_t)len >> 32));
    sb_putn(out, (const char *)digest, 32);
    sb_putn(out, data, len);
}

const char *lcm_cache_decode(const char *file, size_t flen, const char **payload, size_t *plen)
{
    const unsigned char *p = (const unsigned char *)file;
    if (flen < HEADER_SIZE) return "truncated header";
    if (memcmp(p, MAGIC, 8)) return "bad magic";
    if (get_le(p + 8, 4) != LCM_CACHE_FORMAT) return "other format version";
    if (get_le(p + 12, 4) != 0) return "bad header";
    uint64_t len = get_le(p + 16, 8);
    if (len != flen - HEADER_SIZE) return "truncated payload";
    unsigned char digest[32];
    lcm_sha256 c;
    sha256_init(&c);
    sha256_update(&c, p + HEADER_SIZE, (size_t)len);
    sha256_final(&c, digest);
    if (memcmp(digest, p + 24, 32)) return "checksum mismatch";
    *payload = file + HEADER_SIZE;
    *plen = (size_t)len;
    return NULL;
}

int lcm_cache_get(lcm_cache *c, const char *kind, const char *key, void **data, size_t *len)
{
    char *path = lcm_cache_entry_path(c, kind, key);
    if (!file_exists(path)) {
        free(path);
        return 0;
    }
    size_t flen;
    char *file = read_file(path, &flen, NULL);
    if (!file) {
        lcm_warn("cannot read cache entry %s; rebuilding it", path);
        free(path);
        return 0;
    }
    const char *payload;
    size_t plen;
    const char *why = lcm_cache_decode(file, flen, &payload, &plen);
    if (why) {
        lcm_warn("cache entry %s is corrupt (%s); rebuilding it", path, why);
        unlink(path);
        free(file);
        free(path);
        return 0;
    }
    *data = xmalloc(plen);
    memcpy(*data, payload, plen);
    *len = plen;
    free(file);
    free(path);
    return 1;
}

int lcm_cache_put(lcm_cache *c, const char *kind, const char *key, const void *data, size_t len)
{
    char *sub = xasprintf("%s/%s", c->dir, kind);
    char *path = lcm_cache_entry_path(c, kind, key);
    lcm_err err = {0};
    lcm_sb b;
    sb_init(&b);
    lcm_cache_encode(data, len, &b);
    int rc = make_dirs(sub, &err);
    if (!rc) rc = write_file_atomic(path, b.s, b.len, &err);
    if (rc && !c->warned_write) {
        lcm_warn("cannot write the solver cache (%s); compiling in memory this time", err.msg);
        c->warned_write = 1;
    }
    sb_free(&b);
    free(sub);
    free(path);
    return rc;
}

/* ---- inspection ----------------------------------------------------------- */
static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names in a directory (NULL-terminated), skipping dot files. */
static char **list_dir(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **v = NULL;
    size_t cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        GROW(v, cap, (size_t)*n + 2);
        v[(*n)++] = xstrdup(e->d_name);
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

int lcm_cache_scan(const lcm_cache *c, void (*fn)(const lcm_cache_entry *e, void *ctx), void *ctx)
{
    int nkinds, count = 0;
    char **kinds = list_dir(c->dir, &nkinds);
    for (int k = 0; k < nkinds; ++k) {
        char *sub = path_join(c->dir, kinds[k]);
        int nfiles;
        char **files = list_dir(sub, &nfiles);
        for (int f = 0; f < nfiles; ++f) {
            size_t len = strlen(files[f]);
            if (len < 6 || strcmp(files[f] + len - 5, ".lcmc")) continue;
            char *path = path_join(sub, files[f]);
            char *key = xstrndup(files[f], len - 5);
            struct stat st;
            lcm_cache_entry e = {.kind = kinds[k], .key = key, .path = path};
            if (stat(path, &st) == 0) e.bytes = (size_t)st.st_size, e.mtime = (double)st.st_mtime;
            size_t flen;
            char *data = read_file(path, &flen, NULL);
            const char *payload;
            size_t plen;
            e.problem = data ? lcm_cache_decode(data, flen, &payload, &plen) : "unreadable";
            fn(&e, ctx);
            free(data), free(key), free(path);
            ++count;
        }
        free_list(files, nfiles);
        free(sub);
    }
    free_list(kinds, nkinds);
    return count;
}

int lcm_cache_clear(const lcm_cache *c, lcm_err *err)
{
    int nkinds, removed = 0;
    char **kinds = list_dir(c->dir, &nkinds);
    for (int k = 0; k < nkinds && removed >= 0; ++k) {
        char *sub = path_join(c->dir, kinds[k]);
        int nfiles;
        char **files = list_dir(sub, &nfiles);
        for (int f = 0; f < nfiles; ++f) {
            if (!strstr(files[f], ".lcmc")) continue; /* entries and their temporary files */
            char *path = path_join(sub, files[f]);
            if (unlink(path) == 0) ++removed;
            else if (errno != ENOENT) {
                lcm_fail(err, LCM_E_IO, "cannot remove %s: %s", path, strerror(errno));
                removed = -1;
            }
            free(path);
            if (removed < 0) break;
        }
        free_list(files, nfiles);
        rmdir(sub);
        free(sub);
    }
    free_list(kinds, nkinds);
    return removed;
}
