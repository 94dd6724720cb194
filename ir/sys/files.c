/* files.c - see files.h. */
#define _GNU_SOURCE
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mem.h"
#include "tempfile.h"
#include "tempname.h"

void sys_hold_standard_fds(void)
{
    for (int fd = 0; fd <= 2; ++fd) /* in order: the lowest free number is the one closed */
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) (void)open("/dev/null", O_RDONLY);
}

/* ---- files -------------------------------------------------------------- */
FILE *sys_open_input(const char *path, lcm_err *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        base_fail(err, LCM_E_IO, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        base_fail(err, LCM_E_IO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        int dir = S_ISDIR(st.st_mode);
        close(fd);
        base_fail(err, LCM_E_IO, "cannot read '%s': it is not a regular file (%s)", path,
                 dir ? "a directory" : "a device, pipe or socket");
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        base_fail(err, LCM_E_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    return f;
}

char *sys_read_file(const char *path, size_t *len, lcm_err *err)
{
    FILE *f = sys_open_input(path, err);
    if (!f) return NULL;
    lcm_sb b;
    base_sb_init(&b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) base_sb_putn(&b, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        base_sb_free(&b);
        base_fail(err, LCM_E_IO, "cannot read '%s'", path);
        return NULL;
    }
    if (len) *len = b.len;
    return base_sb_take(&b);
}

/* A finished (synced, closed) temporary for path holding data; 0 and *tmp,
 * or an error with nothing left behind. */
static int write_temp(const char *path, const void *data, size_t len, char **tmp, lcm_err *err)
{
    int fd, why = 0, bad = sys_temp_open(path, tmp, &fd, err);
    if (bad) return bad;
    for (const char *p = data; len > 0 && !why;) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno != EINTR) why = errno;
        if (w > 0) p += w, len -= (size_t)w;
    }
    if (!why && fsync(fd) != 0 && errno != EINVAL) why = errno;
    if (close(fd) != 0 && !why) why = errno;
    if (!why) return 0;
    sys_temp_discard(*tmp);
    *tmp = NULL;
    return base_fail(err, LCM_E_IO, "cannot write '%s': %s", path, strerror(why));
}

int sys_write_file_atomic(const char *path, const void *data, size_t len, lcm_err *err)
{
    int bad = sys_check_output_path(path, err);
    char *tmp;
    if (!bad) bad = write_temp(path, data, len, &tmp, err);
    return bad ? bad : sys_temp_commit(&tmp, &path, 1, err);
}

int sys_write_files_if_changed(int n, const char *const *path, const char *const *data, const size_t *len,
                               lcm_err *err)
{
    /* a quick look first, without the lock: all already as they should be
     * (each file equal when read, so the last set committed is this one, or
     * one committed after it) needs nothing written */
    int bad = 0, changed = 0;
    for (int i = 0; i < n && !bad; ++i) {
        bad = sys_check_output_path(path[i], err); /* before reading it: a FIFO would block */
        if (bad || changed) continue;
        size_t old_len;
        char *old = sys_file_exists(path[i]) ? sys_read_file(path[i], &old_len, NULL) : NULL;
        changed = !(old && old_len == len[i] && memcmp(old, data[i], len[i]) == 0);
        free(old);
    }
    if (bad || !changed) return bad;
    /* otherwise all are written, and which to move into place is decided
     * under the commit's lock: a file that matched here may have been
     * replaced by another writer since */
    char **tmp = base_xcalloc((size_t)n + 1, sizeof *tmp);
    int k = 0;
    while (k < n && !bad)
        if (!(bad = write_temp(path[k], data[k], len[k], &tmp[k], err))) ++k;
    if (bad)
        for (int i = 0; i < k; ++i) sys_temp_discard(tmp[i]);
    else bad = sys_temp_commit_changed(tmp, path, n, err);
    free(tmp);
    return bad;
}

/* Records a folder made, outermost first. */
static void add_made(lcm_made_dirs *made, char *path)
{
    made->paths = base_xrealloc(made->paths, (size_t)(made->n + 1) * sizeof *made->paths);
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

int sys_make_dirs_listed(const char *path, lcm_made_dirs *made, lcm_err *err)
{
    int from = made->n, rc = 0;
    char *p = base_xstrdup(path);
    for (char *s = p + (*p != 0);; ++s) { /* each prefix that ends before a slash, then the whole path */
        if (*s && *s != '/') continue;
        char c = *s;
        *s = 0;
        int got = make_one(p);
        if (got < 0) rc = base_fail(err, LCM_E_IO, "cannot create directory '%s': %s", p, strerror(errno));
        else if (!c && !sys_is_directory(p)) rc = base_fail(err, LCM_E_IO, "'%s' exists and is not a directory", p);
        if (got > 0) add_made(made, base_xstrdup(p));
        if (rc || !c) break;
        *s = c;
    }
    free(p);
    if (rc) unmake_from(made, from); /* all or nothing */
    return rc;
}

int sys_make_dirs(const char *path, lcm_err *err)
{
    lcm_made_dirs made = {0};
    int rc = sys_make_dirs_listed(path, &made, err);
    sys_made_dirs_free(&made);
    return rc;
}

void sys_unmake_dirs(lcm_made_dirs *made)
{
    unmake_from(made, 0);
    sys_made_dirs_free(made);
}

void sys_made_dirs_free(lcm_made_dirs *made)
{
    for (int i = 0; i < made->n; ++i) free(made->paths[i]);
    free(made->paths);
    *made = (lcm_made_dirs){0};
}

int sys_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int sys_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The length of path without its trailing slashes (a folder named "dir/"
 * is "dir"), the root's one kept. */

int sys_refuse_dash_folder(const char *opt, const char *value, lcm_err *err)
{
    return strcmp(value, "-") ? 0 : base_fail(err, LCM_E_USAGE, "%s -: a folder is needed here, not standard output "
                                              "(./- names a folder called '-')", opt);
}
