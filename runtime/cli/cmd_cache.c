/* cmd_cache.c - `lcm cache list|info|clear`: the compiled solvers on disk. */
#define _POSIX_C_SOURCE 200809L /* POSIX: fileno, isatty, fsync, localtime_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cli.h"
#include "message.h"

static const char usage[] =
    "usage: lcm cache list|info|clear\n"
    "\n"
    "The solver cache: compiled kernels kept across runs, in $LCM_CACHE_DIR\n"
    "(default ~/.cache/lcm), one entry per model source, backend, precision,\n"
    "compiler and target.\n"
    "  list    every entry: backend, key, size, date, and whether it is intact\n"
    "  info    the location, the number of entries and their size\n"
    "  clear   remove every entry (they are rebuilt when needed)\n";

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
    lcm_sb key;
    lcm_sb_init(&key);
    lcm_escape_text(&key, e->key, 0); /* a file put there may be named anything, escapes included */
    printf("%-5s %.16s  %9.1f KiB  %s  %s\n", e->kind, key.s ? key.s : "", (double)e->bytes / 1024.0, when,
           e->problem ? e->problem : "ok");
    lcm_sb_free(&key);
}

static void count_entry(const lcm_cache_entry *e, void *ctx)
{
    totals *s = ctx;
    s->count++;
    s->bytes += e->bytes;
    s->bad += e->problem != NULL && !e->folder;
    s->folders += e->folder;
}

int cmd_cache(int argc, char **argv)
{
    lcm_err err = {0};
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? LCM_E_USAGE : 0;
    }
    if (argc > 2) {
        lcm_fail(&err, LCM_E_USAGE, "unexpected argument '%s' (see lcm cache --help)", argv[2]);
        return cli_die("cache", &err);
    }
    lcm_cache c;
    lcm_cache_open(&c, NULL);
    int rc = 0;
    if (!strcmp(argv[1], "list")) {
        if (lcm_cache_scan(&c, print_entry, NULL) == 0) printf("(no entries in %s)\n", c.dir);
    } else if (!strcmp(argv[1], "info")) {
        totals s = {0};
        lcm_cache_scan(&c, count_entry, &s);
        lcm_sb dir;
        lcm_sb_init(&dir);
        lcm_escape_text(&dir, c.dir, 0);
        printf("location   %s%s\n", dir.s ? dir.s : "", getenv("LCM_CACHE_DIR") ? " (from LCM_CACHE_DIR)" : "");
        lcm_sb_free(&dir);
        printf("entries    %d (%.1f MiB)%s\n", s.count, (double)s.bytes / 1048576.0,
               s.bad || s.folders ? ", some not usable" : "");
        if (s.bad) printf("damaged    %d (rebuilt when next needed)\n", s.bad);
        if (s.folders)
            printf("folders    %d under entries' names (those entries cannot be written: remove them)\n", s.folders);
        printf("writable   %s\n", lcm_is_directory(c.dir) ? (access(c.dir, W_OK) == 0 ? "yes" : "no")
                                   : lcm_file_exists(c.dir) ? "no (not a folder)" : "not created yet");
    } else if (!strcmp(argv[1], "clear")) {
        int n = lcm_cache_clear(&c, &err);
        if (n < 0) rc = err.code;
        else printf("removed %d entr%s from %s\n", n, n == 1 ? "y" : "ies", c.dir);
    } else {
        rc = lcm_fail(&err, LCM_E_USAGE, "unknown cache command '%s' (list, info or clear)", argv[1]);
    }
    if (!rc) rc = cli_flush_stdout(&err);
    lcm_cache_close(&c);
    return rc ? cli_die("cache", &err) : 0;
}
