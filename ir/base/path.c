/* path.c - see path.h. */
#include "path.h"

#include <string.h>
#include <strings.h>

#include "mem.h"
#include "strbuf.h"

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

char *base_path_dirname(const char *path)
{
    const char *slash = last_slash(path, trimmed_length(path));
    if (!slash) return base_xstrdup(".");
    while (slash > path && slash[-1] == '/') --slash; /* "a//b": "a" */
    if (slash == path) return base_xstrdup("/");
    return base_xstrndup(path, (size_t)(slash - path));
}

char *base_path_stem(const char *path)
{
    size_t n = trimmed_length(path);
    const char *base = last_slash(path, n);
    base = base ? base + 1 : path;
    size_t len = (size_t)(path + n - base);
    const char *dot = NULL;
    for (const char *c = base; c < base + len; ++c)
        if (*c == '.') dot = c;
    return dot && dot != base ? base_xstrndup(base, (size_t)(dot - base)) : base_xstrndup(base, len);
}

char *base_path_join(const char *a, const char *b)
{
    if (b[0] == '/' || !a[0]) return base_xstrdup(b);
    size_t n = strlen(a);
    return base_xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

int base_path_has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    return n > k && !strcasecmp(path + n - k, ext);
}

int base_path_is_h5(const char *path)
{
    return base_path_has_extension(path, ".h5") || base_path_has_extension(path, ".hdf5");
}
