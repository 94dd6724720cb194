/* snapshot.c - see snapshot.h. */
#define _GNU_SOURCE
#include "snapshot.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "params.h"
#include "solution_io.h"

#define PREFIX "lcm-snapshot-"

/* A directory name that sorts by time: lcm-snapshot-20261121-134501-4242-0 */
static char *new_name(const char *log_path)
{
    static int seq;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    return lcm_xasprintf("%s/" PREFIX "%s-%ld-%d", log_path, stamp, (long)getpid(), seq++);
}

static int write_text(const char *dir, const char *name, const char *text, lcm_err *err)
{
    char *path = lcm_path_join(dir, name);
    int rc = lcm_write_file_atomic(path, text, strlen(text), err);
    free(path);
    return rc;
}

/* Removes a snapshot: its files, its model/ directory, itself. */
static void remove_snapshot(const char *dir)
{
    static const char *files[] = {"report.txt", "params.lua", "V.h5", "model/manifest.lcm", "model/kernels.c", "model"};
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        char *p = lcm_path_join(dir, files[i]);
        if (remove(p) != 0 && lcm_file_exists(p)) lcm_debug("cannot remove %s", p);
        free(p);
    }
    rmdir(dir);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Keeps the newest `keep` snapshots of log_path (names sort by time). */
static void prune(const char *log_path, int keep)
{
    DIR *d = opendir(log_path);
    if (!d) return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, PREFIX, strlen(PREFIX))) {
            LCM_GROW(names, cap, n + 1);
            names[n++] = lcm_xstrdup(e->d_name);
        }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; ++i) {
        if (i + (size_t)keep < n) {
            char *dir = lcm_path_join(log_path, names[i]);
            remove_snapshot(dir);
            free(dir);
        }
        free(names[i]);
    }
    free(names);
}

static int write_all(const lcm_snapshot_place *at, const lcm_solution *sol, const double *params,
                     const unsigned char *include, const char *report, const char *dir, lcm_err *err)
{
    const ir_model *m = at->m;
    char *model_dir = lcm_path_join(dir, "model"), *v_path = lcm_path_join(dir, "V.h5");
    lcm_sb text, p;
    lcm_sb_init(&text), lcm_sb_init(&p);
    lcm_sb_printf(&text, "%s\n\nmodel '%s' (generated source sha256 %s), %s backend, float%d\n", report, m->name,
              m->source_hash ? m->source_hash : "?", at->backend, at->precision);
    lcm_sb_puts(&text, "\nAgain, from this directory:\n  lcm solve model --params params.lua --out V.h5\n");
    lcm_params_write_lua(m, params, &p);
    int rc = lcm_make_dirs(model_dir, err);
    if (!rc) rc = write_text(dir, "report.txt", text.s, err);
    if (!rc) rc = write_text(dir, "params.lua", p.s, err);
    if (!rc) rc = write_text(model_dir, "manifest.lcm", at->manifest, err);
    if (!rc) rc = write_text(model_dir, "kernels.c", at->source, err);
    if (!rc && sol) rc = lcm_solution_write_h5_subset(sol, v_path, include, err);
    lcm_sb_free(&text), lcm_sb_free(&p);
    free(model_dir), free(v_path);
    return rc;
}

void lcm_snapshot_write(const lcm_snapshot_place *at, const lcm_solution *sol, const double *params,
                        const unsigned char *include, const char *report)
{
    if (!at->log_path) return;
    lcm_err err = {0};
    char *dir = new_name(at->log_path);
    int rc = lcm_make_dirs(dir, &err);
    if (!rc) rc = write_all(at, sol, params, include, report, dir, &err);
    if (rc) {
        lcm_warn("cannot write a snapshot into '%s': %s", at->log_path, err.msg);
        remove_snapshot(dir);
    } else {
        lcm_warn("snapshot of the failure written to %s", dir);
        prune(at->log_path, at->log_keep);
    }
    free(dir);
}
