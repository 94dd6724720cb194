/* cmd_cache.c - `lcm cache list|info|clear`: the compiled solvers on disk. */
#define _POSIX_C_SOURCE 200809L /* POSIX: fileno, isatty, fsync, localtime_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cli.h"
#include "files.h"
#include "log.h"
#include "message.h"

static const char usage[] =
    "usage: lcm cache list|info|clear [MODEL]\n"
    "\n"
    "The solver cache: compiled kernels kept across runs, in $LCM_CACHE_DIR\n"
    "(default $XDG_CACHE_HOME/lcm, else ~/.cache/lcm; `lcm cache info` says which),\n"
    "one entry per model source, backend, precision,\n"
    "compiler and target.\n"
    "  list          every entry: backend, key, size, date, whether it is intact,\n"
    "                and the model and precision (target) it was compiled for\n"
    "  info          the location, the number of entries and their size\n"
    "  clear         remove every entry (they are rebuilt when needed)\n"
    "  clear MODEL   remove the entries of the model of that name\n";

typedef struct totals {
    int count, bad, folders;
    size_t bytes;
} totals;

static void print_entry(const lcm_cache_entry *e, void *ctx)
{
    (void)ctx;
    char when[32] = "?";
    time_t t = (time_t)e->mtime;
    struct tm tm;
    if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    lcm_sb key, label;
    base_sb_init(&key), base_sb_init(&label);
    base_escape_text(&key, e->key, 0); /* a file put there may be named anything, escapes included */
    if (e->model && *e->model) base_sb_puts(&label, "  "), base_escape_text(&label, e->model, 0);
    if (e->what && *e->what) base_sb_puts(&label, "  "), base_escape_text(&label, e->what, 0);
    printf("%-5s %.16s  %9.1f KiB  %s  %s%s\n", e->kind, key.s ? key.s : "", (double)e->bytes / 1024.0, when,
           e->problem ? e->problem : "ok", label.s ? label.s : "");
    base_sb_free(&key), base_sb_free(&label);
}

static void count_entry(const lcm_cache_entry *e, void *ctx)
{
    totals *s = ctx;
    s->count++;
    s->bytes += e->bytes;
    s->bad += e->problem != NULL && !e->folder;
    s->folders += e->folder;
}

/* The models of the valid entries, each once. */
typedef struct model_names {
    char **v;
    int n;
} model_names;

static void add_model(const lcm_cache_entry *e, void *ctx)
{
    model_names *names = ctx;
    if (!e->model || !*e->model) return;
    for (int i = 0; i < names->n; ++i)
        if (!strcmp(names->v[i], e->model)) return;
    names->v = base_xrealloc(names->v, (size_t)(names->n + 1) * sizeof *names->v);
    names->v[names->n++] = base_xstrdup(e->model);
}

/* After clearing model `model` removed nothing: which models there are. */
static void warn_no_model(const lcm_cache *c, const char *model)
{
    fflush(stdout); /* after the count it follows */
    model_names names = {0};
    be_cache_scan(c, add_model, &names);
    lcm_sb list;
    base_sb_init(&list);
    for (int i = 0; i < names.n; ++i) base_sb_printf(&list, "%s%s", i ? ", " : "its models: ", names.v[i]), free(names.v[i]);
    free(names.v);
    io_warn("no entry of the cache is of model '%s' (%s)", model, list.s ? list.s : "it holds none");
    base_sb_free(&list);
}

int cmd_cache(int argc, char **argv)
{
    lcm_err err = {0};
    if (argc < 2) {
        fputs(usage, stderr);
        return LCM_E_USAGE;
    }
    for (int i = 1; i < argc; ++i) /* lcm cache list --help as well as lcm cache --help */
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return cli_flush_stdout(&err) ? cli_die("cache", &err) : 0;
        }
    if (argc > 3 || (argc == 3 && strcmp(argv[1], "clear"))) {
        base_fail(&err, LCM_E_USAGE, "unexpected argument '%s' (see lcm cache --help)", argv[argc > 3 ? 3 : 2]);
        return cli_die("cache", &err);
    }
    if (argc == 3 && (!*argv[2] || argv[2][0] == '-')) {
        base_fail(&err, LCM_E_USAGE, "lcm cache clear takes the name of a model, not '%s' (see lcm cache --help)",
                 argv[2]);
        return cli_die("cache", &err);
    }
    lcm_cache c;
    be_cache_open(&c, NULL);
    int rc = 0;
    if (!strcmp(argv[1], "list")) {
        if (be_cache_scan(&c, print_entry, NULL) == 0) printf("(no entries in %s)\n", c.dir);
    } else if (!strcmp(argv[1], "info")) {
        totals s = {0};
        be_cache_scan(&c, count_entry, &s);
        lcm_sb dir;
        base_sb_init(&dir);
        base_escape_text(&dir, c.dir, 0);
        const char *source = be_cache_default_source();
        printf("location   %s%s%s%s\n", dir.s ? dir.s : "", source ? " (from $" : "", source ? source : "",
               source ? ")" : "");
        base_sb_free(&dir);
        printf("entries    %d (%.1f MiB)%s\n", s.count, (double)s.bytes / 1048576.0,
               s.bad || s.folders ? ", some not usable" : "");
        if (s.bad) printf("damaged    %d (rebuilt when next needed)\n", s.bad);
        if (s.folders)
            printf("folders    %d under entries' names (those entries cannot be written: remove them)\n", s.folders);
        printf("writable   %s\n", sys_is_directory(c.dir) ? (access(c.dir, W_OK) == 0 ? "yes" : "no")
                                   : sys_file_exists(c.dir) ? "no (not a folder)" : "not created yet");
    } else if (!strcmp(argv[1], "clear")) {
        const char *model = argc == 3 ? argv[2] : NULL;
        int n = be_cache_clear(&c, model, &err);
        if (n < 0) rc = err.code;
        else if (model) {
            printf("removed %d entr%s of model '%s' from %s\n", n, n == 1 ? "y" : "ies", model, c.dir);
            if (n == 0) warn_no_model(&c, model);
        }
        else printf("removed %d entr%s from %s\n", n, n == 1 ? "y" : "ies", c.dir);
    } else {
        rc = base_fail(&err, LCM_E_USAGE, "unknown cache command '%s' (list, info or clear)", argv[1]);
    }
    if (!rc) rc = cli_flush_stdout(&err);
    be_cache_close(&c);
    return rc ? cli_die("cache", &err) : 0;
}
