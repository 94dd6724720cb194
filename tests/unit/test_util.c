/* Small helpers of ir/base/text.c: sizes as the environment's limits are written
 * (base_parse_size), which names are likely misspellings of which
 * (base_near_miss), and folders made all or nothing (sys_make_dirs: a
 * failure leaves none of those the call made; sys_make_dirs_listed and
 * sys_unmake_dirs, which remove them again when what was to go in them
 * fails later). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "testlib.h"

static void test_parse_size(void)
{
    const struct { const char *text; double bytes; } good[] = {
        {"64G", 64.0 * (1 << 30)}, {"512M", 512.0 * (1 << 20)}, {"1.5K", 1536}, {"1e6", 1e6}, {"4096", 4096},
        {"512MiB", 512.0 * (1 << 20)}, {"2k", 2048}, {"100B", 100}, {"1.5T", 1.5 * 1099511627776.0}, {"0", 0},
        {"64e6", 64e6},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; ++i) {
        double b = -1;
        int rc = base_parse_size(good[i].text, &b);
        CHECK_MSG(rc == 0 && b == good[i].bytes, "'%s' gave %d, %g", good[i].text, rc, b);
    }
    const char *bad[] = {"", "abc", "-1G", "12X", "1GG", "64 G", "G", "inf", "nan", "1e400", "1e305P", "2G ",
                         " 1e6", "\t64G", "+64G", "0x10G", "0x1p40"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        double b = -1;
        CHECK_MSG(base_parse_size(bad[i], &b) == -1 && b == -1, "'%s' accepted as %g", bad[i], b);
    }
}

/* The entries of folder dir, . and .. left out. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static char *long_name(void)
{
    char *s = base_xcalloc(301, 1);
    memset(s, 'x', 300); /* over NAME_MAX: ENAMETOOLONG after the folders above it are made */
    return s;
}

static void test_make_dirs(const char *base)
{
    lcm_err err = {0};
    char *x = long_name();
    /* a name too long below two new folders */
    char *path = base_xasprintf("%s/a/b/%s/c", base, x);
    CHECK(sys_make_dirs(path, &err) == LCM_E_IO && strstr(err.msg, "cannot create directory"));
    CHECK_MSG(entries(base) == 0, "%d entries left in %s", entries(base), base);
    free(path);
    /* a file in the way, reached through folders this call made */
    char *file = base_xasprintf("%s/f", base);
    CHECK_OK(sys_write_file_atomic(file, "x", 1, &err));
    path = base_xasprintf("%s/n1/n2/../../f/z", base);
    err = (lcm_err){0};
    CHECK(sys_make_dirs(path, &err) == LCM_E_IO && strstr(err.msg, "Not a directory"));
    CHECK_MSG(entries(base) == 1, "%d entries left in %s", entries(base), base);
    free(path);
    /* the last one a file */
    err = (lcm_err){0};
    CHECK(sys_make_dirs(file, &err) == LCM_E_IO && strstr(err.msg, "exists and is not a directory"));
    unlink(file);
    free(file);
    /* success, a trailing slash too; made again, it is there */
    path = base_xasprintf("%s/s1/s2/", base);
    CHECK_OK(sys_make_dirs(path, &err));
    CHECK_OK(sys_make_dirs(path, &err));
    CHECK(sys_is_directory(path));
    char *s1 = base_xasprintf("%s/s1", base), *s2 = base_xasprintf("%s/s1/s2", base);
    rmdir(s2), rmdir(s1);
    free(s1), free(s2), free(path);
    CHECK(entries(base) == 0);
    free(x);
}

static void test_made_dirs(const char *base)
{
    lcm_err err = {0};
    lcm_made_dirs made = {0};
    char *l2 = base_xasprintf("%s/l1/l2", base), *l3 = base_xasprintf("%s/l1/l2/l3", base);
    CHECK_OK(sys_make_dirs_listed(l2, &made, &err));
    CHECK(made.n == 2 && !strcmp(made.paths[1], l2)); /* outermost first */
    CHECK_OK(sys_make_dirs_listed(l3, &made, &err));
    CHECK(made.n == 3 && !strcmp(made.paths[2], l3));
    /* a failing call removes what it made, and leaves the earlier ones listed */
    char *x = long_name(), *bad = base_xasprintf("%s/l1/m/%s", base, x);
    CHECK(sys_make_dirs_listed(bad, &made, &err) == LCM_E_IO);
    char *m = base_xasprintf("%s/l1/m", base);
    CHECK(made.n == 3 && !sys_file_exists(m) && sys_is_directory(l3));
    sys_unmake_dirs(&made);
    CHECK(made.n == 0 && !made.paths && entries(base) == 0);
    /* a folder something else put a file in stays, and those above it */
    CHECK_OK(sys_make_dirs_listed(l2, &made, &err));
    char *file = base_xasprintf("%s/file", l2);
    CHECK_OK(sys_write_file_atomic(file, "x", 1, &err));
    sys_unmake_dirs(&made);
    CHECK(sys_file_exists(file));
    unlink(file);
    /* kept: the list freed, the folders there */
    CHECK_OK(sys_make_dirs_listed(l3, &made, &err));
    CHECK(made.n == 1);
    sys_made_dirs_free(&made);
    CHECK(made.n == 0 && sys_is_directory(l3));
    char *l1 = base_xasprintf("%s/l1", base);
    rmdir(l3), rmdir(l2), rmdir(l1);
    CHECK(entries(base) == 0);
    free(l1), free(l2), free(l3), free(x), free(bad), free(m), free(file);
}

/* One edit, or two between names of 6 or more characters; never a name
 * shorter than 4, nor the name itself. */
static void test_near_miss(void)
{
    const struct { const char *typed, *name; int near; } cases[] = {
        {"welth", "wealth", 1}, {"consumptoin", "consumption", 1}, {"wealht", "wealth", 1}, {"dbar", "dur", 0},
        {"beta", "bet", 1}, {"alpha", "aleph", 0}, {"age", "ages", 0}, {"wealth", "wealth", 0},
        {"incme", "income", 1}, {"incm", "income", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
        CHECK_MSG(base_near_miss(cases[i].typed, cases[i].name) == cases[i].near, "'%s' near '%s': %d", cases[i].typed,
                  cases[i].name, base_near_miss(cases[i].typed, cases[i].name));
}

int main(void)
{
    test_parse_size();
    test_near_miss();
    char *base = test_tmpdir("util");
    CHECK(base != NULL);
    if (base) {
        test_make_dirs(base);
        test_made_dirs(base);
        rmdir(base);
        free(base);
    }
    CHECK_DONE();
}
