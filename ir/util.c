/* util.c - see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include "tempfile.h"
#include "message.h" /* lcm_escape_text: a switch's value shown as text */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A message longer than err->msg ends in a mark rather than mid-word in
 * silence; the cut keeps whole UTF-8 characters. */
static void mark_cut(char *msg, size_t size, int length)
{
    static const char MARK[] = " [message cut]";
    if (length < (int)size) return;
    _Static_assert(sizeof MARK < LCM_ERR_MSG_MAX, "the mark fits in a message");
    size_t at = size - sizeof MARK;
    /* back over continuation bytes, at most 3 (a character has at most 4
     * bytes): text that is not UTF-8 loses no more than that */
    for (int k = 0; k < 3 && at > 0 && ((unsigned char)msg[at] & 0xC0) == 0x80; ++k) --at;
    memcpy(msg + at, MARK, sizeof MARK);
}

int lcm_fail(lcm_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        mark_cut(err->msg, sizeof err->msg, n);
        err->code = code;
    }
    return code;
}

int lcm_fail_prefix(lcm_err *err, const char *fmt, ...)
{
    if (!err) return LCM_E_INTERNAL;
    char prefix[1024], old[LCM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    int n = snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    mark_cut(err->msg, sizeof err->msg, n);
    return err->code;
}

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

void *lcm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory((double)n);
    return p;
}

void lcm_hold_standard_fds(void)
{
    for (int fd = 0; fd <= 2; ++fd) /* in order: the lowest free number is the one closed */
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) (void)open("/dev/null", O_RDONLY);
}

void *lcm_xmalloc_large(size_t n)
{
    const size_t huge = (size_t)2 << 20, whole = (n + huge - 1) / huge * huge;
    if (n < LCM_LARGE_BYTES) return lcm_xmalloc(n);
    void *p = NULL;
    if (posix_memalign(&p, huge, whole)) out_of_memory((double)n);
    (void)madvise(p, whole, MADV_HUGEPAGE); /* advice: where the system has no huge pages, small ones */
    return p;
}

void *lcm_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory((double)n * (double)size);
    return p;
}

void *lcm_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory((double)n);
    return q;
}

char *lcm_xstrdup(const char *s) { return lcm_xstrndup(s, strlen(s)); }

char *lcm_xstrndup(const char *s, size_t n)
{
    char *d = lcm_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void lcm_grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    *arr = lcm_xrealloc(*arr, c * elem);
    memset((char *)*arr + *cap * elem, 0, (c - *cap) * elem);
    *cap = c;
}

char *lcm_xasprintf(const char *fmt, ...)
{
    lcm_sb b;
    lcm_sb_init(&b);
    va_list ap;
    va_start(ap, fmt);
    lcm_sb_vprintf(&b, fmt, ap);
    va_end(ap);
    return lcm_sb_take(&b);
}

/* ---- string builder ----------------------------------------------------- */
void lcm_sb_init(lcm_sb *b) { b->s = NULL, b->len = b->cap = 0; }
void lcm_sb_free(lcm_sb *b) { free(b->s), lcm_sb_init(b); }

static void sb_reserve(lcm_sb *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t c = b->cap ? b->cap : 64;
    while (c < b->len + extra + 1) c *= 2;
    b->s = lcm_xrealloc(b->s, c);
    b->cap = c;
}

void lcm_sb_putn(lcm_sb *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void lcm_sb_putc(lcm_sb *b, char c) { lcm_sb_putn(b, &c, 1); }
void lcm_sb_puts(lcm_sb *b, const char *s) { lcm_sb_putn(b, s, strlen(s)); }

void lcm_sb_vprintf(lcm_sb *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    sb_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void lcm_sb_printf(lcm_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lcm_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void lcm_sb_double(lcm_sb *b, double x)
{
    if (isnan(x)) lcm_sb_puts(b, "nan");
    else if (isinf(x)) lcm_sb_puts(b, x > 0 ? "inf" : "-inf");
    else {
        /* the shortest of %.15g, %.16g, %.17g that reads back exactly: 0.03, not 0.029999999999999999 */
        char buf[40];
        for (int digits = 15; digits <= 17; ++digits) {
            snprintf(buf, sizeof buf, "%.*g", digits, x);
            if (strtod(buf, NULL) == x) break;
        }
        lcm_sb_puts(b, buf);
    }
}

char *lcm_sb_take(lcm_sb *b)
{
    char *s = b->s ? b->s : lcm_xstrdup("");
    lcm_sb_init(b);
    return s;
}

/* ---- files -------------------------------------------------------------- */
FILE *lcm_open_input(const char *path, lcm_err *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        lcm_fail(err, LCM_E_IO, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        lcm_fail(err, LCM_E_IO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        int dir = S_ISDIR(st.st_mode);
        close(fd);
        lcm_fail(err, LCM_E_IO, "cannot read '%s': it is not a regular file (%s)", path,
                 dir ? "a directory" : "a device, pipe or socket");
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        lcm_fail(err, LCM_E_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    return f;
}

char *lcm_read_file(const char *path, size_t *len, lcm_err *err)
{
    FILE *f = lcm_open_input(path, err);
    if (!f) return NULL;
    lcm_sb b;
    lcm_sb_init(&b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) lcm_sb_putn(&b, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        lcm_sb_free(&b);
        lcm_fail(err, LCM_E_IO, "cannot read '%s'", path);
        return NULL;
    }
    if (len) *len = b.len;
    return lcm_sb_take(&b);
}

int lcm_check_output_path(const char *path, lcm_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    return lcm_fail(err, LCM_E_IO, "'%s' exists and is not a regular file (%s); outputs are written to a "
                    "temporary file and renamed onto their name, so give the path of a regular file",
                    path, S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symbolic link"
                                              : "a device, pipe or socket");
}

/* A finished (synced, closed) temporary for path holding data; 0 and *tmp,
 * or an error with nothing left behind. */
static int write_temp(const char *path, const void *data, size_t len, char **tmp, lcm_err *err)
{
    int fd, why = 0, bad = lcm_temp_open(path, tmp, &fd, err);
    if (bad) return bad;
    for (const char *p = data; len > 0 && !why;) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno != EINTR) why = errno;
        if (w > 0) p += w, len -= (size_t)w;
    }
    if (!why && fsync(fd) != 0 && errno != EINVAL) why = errno;
    if (close(fd) != 0 && !why) why = errno;
    if (!why) return 0;
    lcm_temp_discard(*tmp);
    *tmp = NULL;
    return lcm_fail(err, LCM_E_IO, "cannot write '%s': %s", path, strerror(why));
}

int lcm_write_file_atomic(const char *path, const void *data, size_t len, lcm_err *err)
{
    int bad = lcm_check_output_path(path, err);
    char *tmp;
    if (!bad) bad = write_temp(path, data, len, &tmp, err);
    return bad ? bad : lcm_temp_commit(&tmp, &path, 1, err);
}

int lcm_write_files_if_changed(int n, const char *const *path, const char *const *data, const size_t *len,
                               lcm_err *err)
{
    char **tmp = lcm_xcalloc((size_t)n + 1, sizeof *tmp);
    const char **changed = lcm_xcalloc((size_t)n + 1, sizeof *changed);
    int k = 0, bad = 0;
    for (int i = 0; i < n && !bad; ++i) {
        bad = lcm_check_output_path(path[i], err); /* before reading it: a FIFO would block */
        if (bad) break;
        size_t old_len;
        char *old = lcm_file_exists(path[i]) ? lcm_read_file(path[i], &old_len, NULL) : NULL;
        int same = old && old_len == len[i] && memcmp(old, data[i], len[i]) == 0;
        free(old);
        if (same) continue;
        bad = write_temp(path[i], data[i], len[i], &tmp[k], err);
        if (!bad) changed[k++] = path[i];
    }
    if (bad)
        for (int i = 0; i < k; ++i) lcm_temp_discard(tmp[i]);
    else if (k) bad = lcm_temp_commit(tmp, changed, k, err);
    free(tmp);
    free(changed);
    return bad;
}

/* Records a folder made, outermost first. */
static void add_made(lcm_made_dirs *made, char *path)
{
    made->paths = lcm_xrealloc(made->paths, (size_t)(made->n + 1) * sizeof *made->paths);
    made->paths[made->n++] = path;
}

/* Removes the folders made from index `from` on, deepest first. */
static void unmake_from(lcm_made_dirs *made, int from)
{
    for (; made->n > from; --made->n) {
        rmdir(made->paths[made->n - 1]); /* fails, and keeps it, when something else put a file there */
        free(made->paths[made->n - 1]);
    }
}

/* Makes folder p unless it exists; 1 when this call made it, 0 when it was
 * there, -1 (errno set) when it cannot be made. */
static int make_one(const char *p)
{
    if (mkdir(p, 0755) == 0) return 1;
    return errno == EEXIST ? 0 : -1;
}

int lcm_make_dirs_listed(const char *path, lcm_made_dirs *made, lcm_err *err)
{
    int from = made->n, rc = 0;
    char *p = lcm_xstrdup(path);
    for (char *s = p + (*p != 0);; ++s) { /* each prefix that ends before a slash, then the whole path */
        if (*s && *s != '/') continue;
        char c = *s;
        *s = 0;
        int got = make_one(p);
        if (got < 0) rc = lcm_fail(err, LCM_E_IO, "cannot create directory '%s': %s", p, strerror(errno));
        else if (!c && !lcm_is_directory(p)) rc = lcm_fail(err, LCM_E_IO, "'%s' exists and is not a directory", p);
        if (got > 0) add_made(made, lcm_xstrdup(p));
        if (rc || !c) break;
        *s = c;
    }
    free(p);
    if (rc) unmake_from(made, from); /* all or nothing */
    return rc;
}

int lcm_make_dirs(const char *path, lcm_err *err)
{
    lcm_made_dirs made = {0};
    int rc = lcm_make_dirs_listed(path, &made, err);
    lcm_made_dirs_free(&made);
    return rc;
}

void lcm_unmake_dirs(lcm_made_dirs *made)
{
    unmake_from(made, 0);
    lcm_made_dirs_free(made);
}

void lcm_made_dirs_free(lcm_made_dirs *made)
{
    for (int i = 0; i < made->n; ++i) free(made->paths[i]);
    free(made->paths);
    *made = (lcm_made_dirs){0};
}

int lcm_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int lcm_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The length of path without its trailing slashes (a folder named "dir/"
 * is "dir"), the root's one kept. */
static size_t trimmed_length(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') --n;
    return n;
}

/* The last slash among path's first n bytes, or NULL. */
static const char *last_slash(const char *path, size_t n)
{
    while (n > 0 && path[n - 1] != '/') --n;
    return n ? path + n - 1 : NULL;
}

char *lcm_path_dirname(const char *path)
{
    const char *slash = last_slash(path, trimmed_length(path));
    if (!slash) return lcm_xstrdup(".");
    while (slash > path && slash[-1] == '/') --slash; /* "a//b": "a" */
    if (slash == path) return lcm_xstrdup("/");
    return lcm_xstrndup(path, (size_t)(slash - path));
}

int lcm_refuse_dash_folder(const char *opt, const char *value, lcm_err *err)
{
    return strcmp(value, "-") ? 0 : lcm_fail(err, LCM_E_USAGE, "%s -: a folder is needed here, not standard output "
                                              "(./- names a folder called '-')", opt);
}

char *lcm_path_stem(const char *path)
{
    size_t n = trimmed_length(path);
    const char *base = last_slash(path, n);
    base = base ? base + 1 : path;
    size_t len = (size_t)(path + n - base);
    const char *dot = NULL;
    for (const char *c = base; c < base + len; ++c)
        if (*c == '.') dot = c;
    return dot && dot != base ? lcm_xstrndup(base, (size_t)(dot - base)) : lcm_xstrndup(base, len);
}

char *lcm_path_join(const char *a, const char *b)
{
    if (b[0] == '/' || !a[0]) return lcm_xstrdup(b);
    size_t n = strlen(a);
    return lcm_xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

int lcm_path_has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    return n > k && !strcasecmp(path + n - k, ext);
}

int lcm_path_is_h5(const char *path)
{
    return lcm_path_has_extension(path, ".h5") || lcm_path_has_extension(path, ".hdf5");
}

/* ---- misc --------------------------------------------------------------- */
double lcm_strtod_decimal(const char *s, char **end)
{
    *end = (char *)s;
    if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1]))) return 0;
    double x = strtod(s, end);
    for (const char *p = s; p < *end; ++p)
        if (*p == 'x' || *p == 'X') return *end = (char *)s, 0; /* hexadecimal: 0x10, 0x1p4 */
    return x;
}

int lcm_parse_size(const char *s, double *bytes)
{
    char *end;
    double x = lcm_strtod_decimal(s, &end);
    if (end == s || !(x >= 0) || !isfinite(x)) return -1;
    const char *units = "KMGTP", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) x *= pow(1024, (double)(u - units + 1)), ++end;
    if (u && *end == 'i') ++end;
    if (*end == 'B') ++end;
    if (*end || !isfinite(x)) return -1;
    *bytes = x;
    return 0;
}

int lcm_is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (++s; *s; ++s)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

double lcm_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

unsigned lcm_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 99;
    unsigned d[65][65];
    for (size_t i = 0; i <= la; ++i) d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; ++j) d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; ++i)
        for (size_t j = 1; j <= lb; ++j) {
            unsigned s = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            unsigned x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
            d[i][j] = s < x ? (s < y ? s : y) : (x < y ? x : y);
        }
    return d[la][lb];
}

/* Every on/off switch read from the environment (docs/tuning.md,
 * docs/model-language.md, docs/debugging.md): one list, so that one check
 * covers them all. */
static const char *const env_switches[] = {"LCM_TRUST_MODEL", "LCM_LINE_DIRECTIVES", "LCM_NO_TABLES", "LCM_NO_ELIMINATION", "LCM_NO_GRAPHS",
                                           "LCM_NO_NCCL"};

int lcm_env_switch(const char *name)
{
    int known = 0;
    for (size_t i = 0; i < sizeof env_switches / sizeof *env_switches; ++i) known |= !strcmp(name, env_switches[i]);
    lcm_assert(known);
    const char *v = getenv(name);
    return v && !strcmp(v, "1");
}

int lcm_env_switches_check(lcm_err *err)
{
    for (size_t i = 0; i < sizeof env_switches / sizeof *env_switches; ++i) {
        const char *v = getenv(env_switches[i]);
        if (v && *v && strcmp(v, "0") && strcmp(v, "1")) {
            char *shown = lcm_escaped(v);
            int rc = lcm_fail(err, LCM_E_USAGE, "%s must be 1 (on) or 0 (off), not '%s'", env_switches[i], shown);
            free(shown);
            return rc;
        }
    }
    return 0;
}

/* Defined in every build, so that code built with LCM_ASSERTS links with
 * libraries built without it. */
void lcm_assert_fail(const char *file, int line, const char *cond) __attribute__((noreturn));
void lcm_assert_fail(const char *file, int line, const char *cond)
{
    fflush(stdout);
    fprintf(stderr, "%s:%d: lcm_assert failed: %s (a bug in lcmgen; please report it)\n", file, line, cond);
    abort();
}
