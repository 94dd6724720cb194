/* snapshot.c - see snapshot.h. */
#define _GNU_SOURCE
#include "snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "log.h"
#include "params.h"
#include "solution_io.h"

#define PREFIX "lcm-snapshot-"

/* A directory name that sorts by time to the nanosecond, then process and
 * sequence (the numbers padded so that names compare as the numbers do):
 * lcm-snapshot-20261121-134501-123456789-0000004242-0000.  The nanoseconds
 * come before the process id: ids wrap around, and a later run of the same
 * second must not sort first. */
static char *new_name(const char *log_path)
{
    static int seq;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    localtime_r(&now.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    return base_xasprintf("%s/" PREFIX "%s-%09ld-%010ld-%04d", log_path, stamp, (long)now.tv_nsec, (long)getpid(),
                         seq++ % 10000);
}

static int write_text(const char *dir, const char *name, const char *text, lcm_err *err)
{
    char *path = base_path_join(dir, name);
    int rc = sys_write_file_atomic(path, text, strlen(text), err);
    free(path);
    return rc;
}

/* Whether path is a directory itself, not a link to one. */
static int real_directory(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Removes a snapshot: its files, its model/ directory, itself -- never
 * through a link (one planted in the log folder would point anywhere): a
 * link is removed as a link. */
static void remove_snapshot(const char *dir)
{
    static const char *files[] = {"report.txt", "params.lua", "V.h5", "model/manifest.lcm", "model/kernels.c"};
    if (!real_directory(dir)) return;
    char *model = base_path_join(dir, "model");
    int model_real = real_directory(model);
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        if (!model_real && !strncmp(files[i], "model/", 6)) continue;
        char *p = base_path_join(dir, files[i]);
        if (unlink(p) != 0 && errno != ENOENT) io_debug("cannot remove %s", p);
        free(p);
    }
    if (model_real) rmdir(model);
    else unlink(model);
    free(model);
    rmdir(dir);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Keeps the newest `keep` snapshots of log_path (names sort by time), and
 * `mine` (the one just written) in any case; only directories of lcm's
 * names, never links, are removed. */
static void prune(const char *log_path, int keep, const char *mine)
{
    DIR *d = opendir(log_path);
    if (!d) return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, PREFIX, strlen(PREFIX))) {
            LCM_GROW(names, cap, n + 1);
            names[n++] = base_xstrdup(e->d_name);
        }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; ++i) {
        char *dir = base_path_join(log_path, names[i]);
        if (i + (size_t)keep < n && strcmp(dir, mine)) remove_snapshot(dir);
        free(dir), free(names[i]);
    }
    free(names);
}

/* A new snapshot directory in log_path (made with its parents), created
 * here and now: a name taken already (a folder or link someone put there)
 * is passed over, never written into. */
static char *make_snapshot_dir(const char *log_path, lcm_err *err)
{
    if (sys_make_dirs(log_path, err)) return NULL;
    for (int tries = 0; tries < 100; ++tries) {
        char *dir = new_name(log_path);
        if (mkdir(dir, 0777) == 0) return dir;
        int why = errno;
        free(dir);
        if (why != EEXIST) {
            base_fail(err, LCM_E_IO, "cannot create a directory in '%s': %s", log_path, strerror(why));
            return NULL;
        }
    }
    base_fail(err, LCM_E_IO, "cannot create a directory in '%s': every name tried exists", log_path);
    return NULL;
}

static int write_all(const lcm_snapshot_place *at, const lcm_solution *sol, const double *params,
                     const unsigned char *include, const char *report, const char *dir, lcm_err *err)
{
    const ir_model *m = at->m;
    char *model_dir = base_path_join(dir, "model"), *v_path = base_path_join(dir, "V.h5");
    lcm_sb text, p;
    base_sb_init(&text), base_sb_init(&p);
    base_sb_printf(&text, "%s\n\nmodel '%s' (generated source sha256 %s), %s backend, float%d\n", report, m->name,
              m->source_hash ? m->source_hash : "?", at->backend, at->precision);
    base_sb_puts(&text, "\nAgain, from this directory:\n  lcm solve model --params params.lua --out V.h5\n");
    core_params_write_lua(m, params, &p);
    int rc = mkdir(model_dir, 0777) ? base_fail(err, LCM_E_IO, "cannot create '%s': %s", model_dir, strerror(errno)) : 0;
    if (!rc) rc = write_text(dir, "report.txt", text.s, err);
    if (!rc) rc = write_text(dir, "params.lua", p.s, err);
    if (!rc) rc = write_text(model_dir, "manifest.lcm", at->manifest, err);
    if (!rc) rc = write_text(model_dir, "kernels.c", at->source, err);
    if (!rc && sol) rc = core_solution_write_h5_subset(sol, v_path, include, err);
    base_sb_free(&text), base_sb_free(&p);
    free(model_dir), free(v_path);
    return rc;
}

void solve_snapshot_write(const lcm_snapshot_place *at, const lcm_solution *sol, const double *params,
                        const unsigned char *include, const char *report)
{
    if (!at->log_path) return;
    lcm_err err = {0};
    char *dir = make_snapshot_dir(at->log_path, &err);
    int rc = dir ? write_all(at, sol, params, include, report, dir, &err) : err.code;
    if (rc) {
        io_warn("cannot write a snapshot into '%s': %s", at->log_path, err.msg);
        if (dir) remove_snapshot(dir);
    } else {
        io_warn("snapshot of the failure written to %s", dir);
        prune(at->log_path, at->log_keep, dir);
    }
    free(dir);
}
