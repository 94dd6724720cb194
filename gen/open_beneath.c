/* open_beneath.c - see open_beneath.h. */
#define _GNU_SOURCE /* O_PATH */
#include "open_beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"

#define MAX_LINKS 40  /* as the kernel (ELOOP) */
#define MAX_DEPTH 256 /* folders open at once on the way (ENAMETOOLONG beyond) */

typedef struct walk {
    int base;            /* the starting folder (not ours to close) */
    int stack[MAX_DEPTH]; /* the folders walked into, each opened from the one before */
    int depth;
} walk;

static int here(const walk *w) { return w->depth ? w->stack[w->depth - 1] : w->base; }

/* The component at rest + *pos into comp (skipping slashes), *pos past it;
 * 0 when none is left, -1 when it is longer than a name can be. */
static int next_component(const char *rest, size_t *pos, char comp[NAME_MAX + 1])
{
    while (rest[*pos] == '/') ++*pos;
    size_t len = strcspn(rest + *pos, "/");
    if (!len) return 0;
    if (len > NAME_MAX) return errno = ENAMETOOLONG, -1;
    memcpy(comp, rest + *pos, len);
    comp[len] = 0;
    *pos += len;
    return 1;
}

static int is_last(const char *rest, size_t pos)
{
    while (rest[pos] == '/') ++pos;
    return !rest[pos];
}

/* comp, which did not open, is a symbolic link: its target replaces it in
 * *rest (from *pos); the status when it cannot be followed, or -1 when comp
 * is not a link. */
static int splice_link(const walk *w, const char *comp, char **rest, size_t *pos, int *links)
{
    char target[PATH_MAX];
    ssize_t n = readlinkat(here(w), comp, target, sizeof target - 1);
    if (n < 0) return -1;
    target[n] = 0;
    if (++*links > MAX_LINKS) return errno = ELOOP, BENEATH_ERROR;
    if (!n || target[0] == '/') return BENEATH_OUTSIDE;
    char *joined = base_xasprintf("%s/%s", target, *rest + *pos);
    free(*rest);
    *rest = joined, *pos = 0;
    return BENEATH_OK;
}

/* One step of the walk: comp opened from the current folder (pushed when
 * more follows, into *fd when last), "." or "..", or a link spliced in. */
static int step(walk *w, const char *comp, int last, char **rest, size_t *pos, int *links, int *fd)
{
    if (!strcmp(comp, ".")) return BENEATH_OK;
    if (!strcmp(comp, "..")) {
        if (!w->depth) return BENEATH_OUTSIDE;
        close(w->stack[--w->depth]);
        return BENEATH_OK;
    }
    if (!last && w->depth == MAX_DEPTH) return errno = ENAMETOOLONG, BENEATH_ERROR;
    int f = openat(here(w), comp, last ? O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC
                                       : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (f >= 0) {
        if (last) *fd = f;
        else w->stack[w->depth++] = f;
        return BENEATH_OK;
    }
    int e = errno;
    if (e == ELOOP || e == ENOTDIR) { /* O_NOFOLLOW met a link (ELOOP, or ENOTDIR with O_DIRECTORY)? */
        int rc = splice_link(w, comp, rest, pos, links);
        if (rc >= 0) return rc;
    }
    errno = e;
    return e == ENOENT || e == ENOTDIR ? BENEATH_MISSING : BENEATH_ERROR;
}

int gen_open_folder(const char *dir) { return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC); }

int gen_open_beneath(int dirfd, const char *name, int *fd)
{
    walk w = {.base = dirfd};
    char *rest = base_xstrdup(name), comp[NAME_MAX + 1];
    size_t pos = 0;
    int links = 0, rc = BENEATH_OK, more;
    *fd = -1;
    while (rc == BENEATH_OK && *fd < 0 && (more = next_component(rest, &pos, comp)) != 0)
        rc = more < 0 ? BENEATH_ERROR : step(&w, comp, is_last(rest, pos), &rest, &pos, &links, fd);
    if (rc == BENEATH_OK && *fd < 0) { /* the name ends at a folder ("sub/.", "a/..") */
        if (!w.depth) rc = BENEATH_FOLDER;
        else if ((*fd = openat(here(&w), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) rc = BENEATH_ERROR;
    }
    int e = errno;
    while (w.depth) close(w.stack[--w.depth]);
    free(rest);
    errno = e;
    return rc;
}
