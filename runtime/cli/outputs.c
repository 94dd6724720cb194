/* outputs.c - a command's outputs checked before any work: an output must
 * not replace one of the run's inputs or another of its outputs, which is a
 * question about files, not names ("x", "./x", "d/../x" and a link to x are
 * one file), and it must be creatable where it is asked for. */
#define _DEFAULT_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "files.h"
#include "log.h"
#include "tempname.h"

/* What a path names: an existing file by device and inode, a file still to
 * be created by the resolved path of its folder plus its name. */
typedef struct file_id {
    const cli_file *file;
    const char *path; /* the file's, or one inside a directory input */
    int exists;
    dev_t dev;
    ino_t ino;
    char *where;
} file_id;

static void identify(const cli_file *file, const char *path, file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    id->file = file, id->path = path;
    if (stat(path, &st) == 0) {
        id->exists = 1, id->dev = st.st_dev, id->ino = st.st_ino;
        return;
    }
    char *dir = base_path_dirname(path), *real = realpath(dir, NULL);
    const char *base = strrchr(path, '/');
    id->where = real ? base_xasprintf("%s/%s", real, base ? base + 1 : path) : base_xstrdup(path);
    free(dir), free(real);
}

static int same_file(const file_id *a, const file_id *b)
{
    if (a->exists != b->exists) return 0;
    return a->exists ? a->dev == b->dev && a->ino == b->ino : !strcmp(a->where, b->where);
}

/* The identities of the files given: a directory input (a model made by
 * lcmgen) stands for the files in it. */
static file_id *identify_all(const cli_file *files, int n, int *count, char ***owned, int *nowned)
{
    file_id *ids = NULL;
    size_t cap = 0;
    *count = 0;
    for (int i = 0; i < n; ++i) {
        if (!files[i].path || !strcmp(files[i].path, "-")) continue;
        DIR *d = files[i].output ? NULL : opendir(files[i].path);
        if (!d) {
            LCM_GROW(ids, cap, (size_t)*count + 1);
            identify(&files[i], files[i].path, &ids[(*count)++]);
            continue;
        }
        for (struct dirent *e; (e = readdir(d));) {
            char *p = base_path_join(files[i].path, e->d_name);
            struct stat st;
            if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
                free(p);
                continue;
            }
            *owned = base_xrealloc(*owned, (size_t)(*nowned + 1) * sizeof **owned);
            (*owned)[(*nowned)++] = p;
            LCM_GROW(ids, cap, (size_t)*count + 1);
            identify(&files[i], p, &ids[(*count)++]);
        }
        closedir(d);
    }
    return ids;
}

static int clash(const file_id *out, const file_id *other, lcm_err *err)
{
    const char *what = other->file->output ? "" : ": an output must not replace an input";
    if (!strcmp(out->path, other->path))
        return base_fail(err, LCM_E_USAGE, "%s and %s name the same file ('%s')%s", out->file->option,
                        other->file->option, out->path, what);
    return base_fail(err, LCM_E_USAGE, "%s and %s name the same file ('%s' and '%s')%s", out->file->option,
                    other->file->option, out->path, other->path, what);
}

/* At most one output goes to standard output, and only a CSV one. */
static int check_stdout(const cli_file *files, int n, lcm_err *err)
{
    const cli_file *first = NULL;
    for (int i = 0; i < n; ++i) {
        if (!files[i].output || !files[i].path || strcmp(files[i].path, "-")) continue;
        if (!files[i].csv)
            return base_fail(err, LCM_E_USAGE, "%s -: an HDF5 file cannot go to standard output ('-' is for CSV)",
                            files[i].option);
        if (first)
            return base_fail(err, LCM_E_USAGE, "%s and %s both name standard output ('-'): at most one output can",
                            first->option, files[i].option);
        first = &files[i];
    }
    return 0;
}

/* An output named like the other format: written as asked, with a warning
 * (--out results.csv writes HDF5 under that name). */
static void warn_format_names(const cli_file *files, int n)
{
    for (int i = 0; i < n; ++i) {
        const cli_file *f = &files[i];
        if (!f->output || !f->path || sys_is_directory(f->path)) continue;
        if (!f->csv && base_path_has_extension(f->path, ".csv"))
            io_warn("%s %s: writes HDF5, not CSV (--csv writes CSV)", f->option, f->path);
        else if (f->csv && base_path_is_h5(f->path))
            io_warn("%s %s: writes CSV, not HDF5 (--out writes HDF5)", f->option, f->path);
    }
}

/* cli_check_outputs, without the warnings (said once, before the inputs are read). */
static int check_outputs(const cli_file *files, int n, lcm_err *err)
{
    int rc = check_stdout(files, n, err), count = 0, nowned = 0;
    char **owned = NULL;
    file_id *ids = rc ? NULL : identify_all(files, n, &count, &owned, &nowned);
    for (int i = 0; i < count && !rc; ++i) {
        if (!ids[i].file->output) continue;
        for (int j = 0; j < count && !rc; ++j)
            if (j != i && (j > i || !ids[j].file->output) && same_file(&ids[i], &ids[j])) rc = clash(&ids[i], &ids[j], err);
    }
    for (int i = 0; i < count; ++i) free(ids[i].where);
    for (int i = 0; i < nowned; ++i) free(owned[i]);
    free(ids), free(owned);
    return rc;
}

int cli_check_outputs(const cli_file *files, int n, lcm_err *err)
{
    warn_format_names(files, n);
    return check_outputs(files, n, err);
}

int cli_check_loaded(const cli_model_opts *mo, const cli_file *files, int n, lcm_err *err)
{
    cli_file *all = base_xcalloc((size_t)(n + mo->nread), sizeof *all);
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (files[i].output) all[count++] = files[i];
    for (int i = 0; i < mo->nread; ++i) all[count++] = (cli_file){mo->read[i].what, mo->read[i].path, 0, 0};
    int rc = check_outputs(all, count, err);
    free(all);
    return rc;
}

int cli_check_dir_creatable(const char *dir, lcm_err *err)
{
    char *at = base_xstrdup(dir);
    while (!sys_file_exists(at) && strcmp(at, ".") && strcmp(at, "/")) { /* the nearest folder that exists */
        char *up = base_path_dirname(at);
        free(at);
        at = up;
    }
    int rc = 0;
    if (!sys_is_directory(at))
        rc = base_fail(err, LCM_E_IO, "cannot create directory '%s': '%s' is a file, not a directory", dir, at);
    else if (access(at, W_OK | X_OK) != 0 && strcmp(at, dir))
        rc = base_fail(err, LCM_E_IO, "cannot create directory '%s': directory '%s' is not writable", dir, at);
    free(at);
    return rc;
}

int cli_flush_stdout(lcm_err *err)
{
    int why = fflush(stdout) != 0 ? errno : 0; /* an earlier failed write leaves only the stream's flag */
    if (!why && !ferror(stdout)) return 0;
    return base_fail(err, LCM_E_IO, "cannot write to standard output%s%s", why ? ": " : "", why ? strerror(why) : "");
}

int cli_check_writable(const char *path, lcm_err *err)
{
    if (!strcmp(path, "-")) return 0; /* standard output */
    if (sys_is_directory(path)) return base_fail(err, LCM_E_IO, "output '%s' is a directory", path);
    int rc = sys_check_output_path(path, err);
    if (rc) return rc;
    char *dir = base_path_dirname(path);
    if (!sys_is_directory(dir) && sys_file_exists(dir))
        rc = base_fail(err, LCM_E_IO, "cannot write '%s': '%s' is a file, not a directory", path, dir);
    else if (!sys_is_directory(dir)) rc = base_fail(err, LCM_E_IO, "cannot write '%s': directory '%s' does not exist", path, dir);
    else if (access(dir, W_OK) != 0) rc = base_fail(err, LCM_E_IO, "cannot write '%s': directory '%s' is not writable", path, dir);
    free(dir);
    return rc;
}
