/* The memory check: what the host may use (LCM_MEMORY_LIMIT, ulimit -v),
 * a solver too large refused before its buffers are made, a panel too
 * large refused before a simulation, and the same runs accepted when they
 * fit. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "initial.h"
#include "log.h"
#include "memory.h"
#include "testlib.h"

static double room(const char *limit, char *what, size_t size, int *rc)
{
    if (limit) setenv("LCM_MEMORY_LIMIT", limit, 1);
    else unsetenv("LCM_MEMORY_LIMIT");
    lcm_err err = {0};
    double bytes = -1;
    int whole = -1;
    *rc = solve_host_memory_room(&bytes, &whole, what, size, &err);
    CHECK(*rc || whole == (limit && *limit));
    return bytes;
}

/* A cgroup's usage less its inactive file pages (the page cache the kernel
 * drops first), read from a memory.stat. */
static void test_cgroup_used(void)
{
    char path[] = "/tmp/lcm-memory-stat-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = "cache 9453568\nactive_file 100\ninactive_file_x 7\ninactive_file 4096\n"
                       "total_inactive_file 1000000\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    CHECK(solve_cgroup_used(path, "inactive_file", 10000) == 10000 - 4096); /* not inactive_file_x */
    CHECK(solve_cgroup_used(path, "total_inactive_file", 2e6) == 1e6);     /* cgroup v1's key */
    CHECK(solve_cgroup_used(path, "total_inactive_file", 5e5) == 5e5);     /* never more than the usage */
    CHECK(solve_cgroup_used(path, "active", 10000) == 10000);             /* no such key */
    unlink(path);
    CHECK(solve_cgroup_used(path, "inactive_file", 10000) == 10000);      /* no file */
}

static void test_room(void)
{
    char what[160];
    int rc;
    const struct { const char *text; double bytes; } sizes[] = {
        {"4096", 4096}, {"64G", 64.0 * (1 << 30)}, {"1.5T", 1.5 * 1099511627776.0}, {"512MiB", 512.0 * (1 << 20)},
        {"2k", 2048}, {"100B", 100}, {"1P", 1125899906842624.0},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
        double b = room(sizes[i].text, what, sizeof what, &rc);
        CHECK_MSG(rc == 0 && b == sizes[i].bytes && !strcmp(what, "LCM_MEMORY_LIMIT"), "%s gave %g", sizes[i].text, b);
    }
    const char *bad[] = {"lots", "-1G", "12X", "1GG", "inf", ""};
    for (size_t i = 0; i + 1 < sizeof bad / sizeof *bad; ++i) {
        room(bad[i], what, sizeof what, &rc);
        CHECK_MSG(rc == LCM_E_USAGE, "LCM_MEMORY_LIMIT=%s accepted", bad[i]);
    }
    /* what the machine has: positive, and bounded by a lowered ulimit -v */
    double machine = room(NULL, what, sizeof what, &rc);
    CHECK(rc == 0 && machine > 0);
    struct rlimit old, low;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    double pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%lf", &pages) == 1);
    if (f) fclose(f);
    low = old;
    low.rlim_cur = (rlim_t)(pages * (double)sysconf(_SC_PAGESIZE)) + ((rlim_t)256 << 20); /* 256 MiB of room */
    if (machine > (256 << 20) && (old.rlim_cur == RLIM_INFINITY || old.rlim_cur > low.rlim_cur)) {
        CHECK(setrlimit(RLIMIT_AS, &low) == 0);
        double b = room(NULL, what, sizeof what, &rc);
        CHECK_MSG(rc == 0 && b <= 256 << 20 && b > 200 << 20 && strstr(what, "ulimit -v"), "%g bytes (%s)", b, what);
        CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    }
}

static const char *model_text =
    "local lcm = require('lcm')\n"
    "local only = lcm.regime{\n"
    "  terminal = true,\n"
    "  states = { wealth = lcm.linspace{ start = 1, stop = 10, n_points = 1000000 } },\n"
    "  functions = { utility = function(wealth) return wealth end },\n"
    "}\n"
    "return lcm.model{ name = 'big', ages = lcm.ages{ start = 0, stop = 2 }, regimes = { only = only } }\n";

static void test_solver(void)
{
    lcm_model *m = NULL;
    lcm_err err = {0};
    CHECK_OK(test_generate_text(model_text, &m, &err));
    if (!m) return;
    lcm_solver_options o = {.backend = LCM_BACKEND_INTERP, .precision = 64};
    lcm_solver *sv = NULL;
    /* 3 periods of 1e6 states (24 MB) and four copies of the grid (32 MB) */
    setenv("LCM_MEMORY_LIMIT", "40M", 1);
    CHECK(lcm_solver_new(m, &o, &sv, &err) == LCM_E_MEMORY && !sv);
    CHECK_MSG(strstr(err.msg, "solving model 'big' needs about 53.4 MiB of host memory, more than the 40.0 MiB") &&
                  strstr(err.msg, "V of regime 'only' over 3 periods (1000000 states: wealth 1000000 points), 22.9 MiB"),
              "%s", err.msg);
    setenv("LCM_MEMORY_LIMIT", "1G", 1);
    memset(&err, 0, sizeof err);
    CHECK_OK(lcm_solver_new(m, &o, &sv, &err));
    /* a panel of 200000 subjects x 3 periods: about 40 MB */
    lcm_sb csv;
    base_sb_init(&csv);
    base_sb_puts(&csv, "regime,age,wealth\n");
    for (int i = 0; i < 200000; ++i) base_sb_puts(&csv, "only,0,5\n");
    lcm_initial *ic = NULL;
    CHECK_OK(sim_initial_parse_csv(core_model_ir(m), "many.csv", csv.s, &ic, &err));
    lcm_sim_options so = {0};
    if (sv && ic) {
        CHECK_OK(lcm_simulate_fits(sv, ic, &so, &err));
        setenv("LCM_MEMORY_LIMIT", "20M", 1);
        CHECK(lcm_simulate_fits(sv, ic, &so, &err) == LCM_E_MEMORY);
        CHECK_MSG(strstr(err.msg, "simulating 200000 subjects of model 'big' needs about") &&
                      strstr(err.msg, "the panel (200000 subjects x 3 periods, up to 600000 rows of 1 state and 0 actions)"),
                  "%s", err.msg);
        /* into an earlier panel: LCM_MEMORY_LIMIT is all lcm may use, the
         * panel it holds included, so the same limit refuses it too (and
         * the earlier panel is given back) */
        setenv("LCM_MEMORY_LIMIT", "1G", 1);
        lcm_solution *sol = NULL;
        lcm_panel *kept = NULL;
        lcm_pvalue *none = lcm_pv_table();
        CHECK_OK(lcm_solve(sv, none, &sol, &err));
        lcm_pv_free(none);
        if (sol) CHECK_OK(lcm_simulate_again(sv, sol, ic, &so, &kept, &err));
        CHECK(kept != NULL);
        setenv("LCM_MEMORY_LIMIT", "20M", 1);
        if (sol) CHECK(lcm_simulate_again(sv, sol, ic, &so, &kept, &err) == LCM_E_MEMORY && !kept);
        lcm_panel_free(kept);
        lcm_solution_free(sol);
    }
    unsetenv("LCM_MEMORY_LIMIT");
    base_sb_free(&csv);
    lcm_initial_free(ic);
    lcm_solver_free(sv);
    lcm_model_free(m);
}

/* --devices 6 on a host backend: a sharded regime's V counts as the
 * workers' blocks and then whole, (2 - 1/6) times V (each worker's whole V
 * before, most of whose pages were never touched). */
static void test_sharded_workers(void)
{
    const char *defines[] = {"wealth_points=20000", NULL};
    lcm_model *m = NULL;
    lcm_err err = {0};
    CHECK_OK(test_generate("tests/models/sharded.lua", defines, &m, &err));
    if (!m) return;
    lcm_solver_options o = {.backend = LCM_BACKEND_INTERP, .precision = 64, .devices = 6};
    lcm_solver *sv = NULL;
    setenv("LCM_MEMORY_LIMIT", "1M", 1);
    CHECK(lcm_solver_new(m, &o, &sv, &err) == LCM_E_MEMORY && !sv);
    /* 240000 states x 8 bytes x 6 periods x (2 - 1/6) = 20.1 MiB */
    CHECK_MSG(strstr(err.msg, "V of regime 'working' over 6 periods (240000 states: group 2 x health 2 x kind 3 x "
                              "wealth 20000 points), its blocks (--devices) and then whole, 20.1 MiB"),
              "%s", err.msg);
    unsetenv("LCM_MEMORY_LIMIT");
    lcm_solver_free(sv);
    lcm_model_free(m);
}

int main(void)
{
    lcm_set_log_level(LCM_LOG_OFF);
    test_cgroup_used();
    test_room();
    test_solver();
    test_sharded_workers();
    CHECK_DONE();
}
