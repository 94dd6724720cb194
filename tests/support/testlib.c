/* testlib.c - see testlib.h. */
#define _GNU_SOURCE
#include "testlib.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eliminate.h"
#include "files.h"
#include "lcmgen.h"
#include "panel.h"
#include "params_lua.h"
#include "precompute.h"
#include "tempname.h"

const char *test_source_dir(void) { return LCM_SOURCE_DIR; }

char *test_path(const char *relative) { return base_path_join(LCM_SOURCE_DIR, relative); }

int test_generate(const char *lua, const char *const *defines, lcm_model **out, lcm_err *err)
{
    ir_option defs[16];
    int n = 0;
    for (; defines && defines[n] && n < 16; ++n) {
        int rc = lcmgen_parse_define(defines[n], &defs[n], err);
        if (rc) return rc;
    }
    char *path = test_path(lua);
    lcmgen_output gen;
    lcmgen_inputs in = {.defines = defs, .ndefines = n};
    int rc = lcmgen_generate(path, &in, &gen, err);
    free(path);
    for (int i = 0; i < n; ++i) free(defs[i].name), free(defs[i].value);
    if (rc) return rc;
    rc = lcm_model_from_text(gen.manifest, gen.source, out, err);
    lcmgen_output_free(&gen);
    return rc;
}

int test_params(const char *lua, lcm_pvalue **out, lcm_err *err)
{
    char *path = test_path(lua);
    int rc = cli_params_read_lua(path, out, NULL, NULL, err);
    free(path);
    return rc;
}

int test_solve(const char *lua, const char *const *defines, const char *params, lcm_backend_kind backend,
               int precision, lcm_model **model, lcm_solution **sol, lcm_err *err)
{
    *sol = NULL;
    int rc = test_generate(lua, defines, model, err);
    if (rc) return rc;
    lcm_pvalue *p = NULL;
    if (params) rc = test_params(params, &p, err);
    else p = lcm_pv_table();
    lcm_solver *s = NULL;
    lcm_solver_options o = {.backend = backend, .precision = precision};
    if (!rc) rc = lcm_solver_new(*model, &o, &s, err);
    if (!rc) rc = lcm_solve(s, p, sol, err);
    lcm_solver_free(s);
    lcm_pv_free(p);
    return rc;
}

double test_max_rel_diff(const lcm_solution *a, const lcm_solution *b)
{
    const ir_model *m = core_solution_model(a);
    double worst = 0;
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            lcm_index n;
            if (!lcm_solution_V(a, t, r, &n)) continue;
            for (lcm_index i = 0; i < n; ++i) {
                double x = lcm_solution_value(a, t, r, i), y = lcm_solution_value(b, t, r, i);
                if (x == y || (isnan(x) && isnan(y))) continue;
                double d = fabs(x - y) / fmax(1.0, fabs(y));
                if (!(d <= worst)) worst = d; /* NaN or inf against a number: inf */
                if (isnan(d)) worst = INFINITY;
            }
        }
    return worst;
}

/* test_panel_diff's largest difference, of the value column too or not. */
static double panel_diff(const lcm_panel *a, const lcm_panel *b, int values)
{
    if (a->n != b->n) return INFINITY;
    double worst = 0;
    int ns = a->vars.nstates, na = a->vars.nactions;
    for (lcm_index i = 0; i < a->n; ++i) {
        if (a->subject[i] != b->subject[i] || a->period[i] != b->period[i] || a->regime[i] != b->regime[i])
            return INFINITY;
        for (int k = values ? -1 : 0; k < ns + na; ++k) {
            double x = k < 0 ? a->value[i] : k < ns ? a->x[k][i] : a->act[k - ns][i];
            double y = k < 0 ? b->value[i] : k < ns ? b->x[k][i] : b->act[k - ns][i];
            if (x == y || (isnan(x) && isnan(y))) continue;
            double d = fabs(x - y) / fmax(1.0, fabs(y));
            worst = isnan(d) ? INFINITY : fmax(worst, d);
        }
    }
    return worst;
}

double test_panel_diff(const lcm_panel *a, const lcm_panel *b) { return panel_diff(a, b, 1); }

double test_panel_path_diff(const lcm_panel *a, const lcm_panel *b) { return panel_diff(a, b, 0); }

const test_bundled_model test_bundled[] = {
    {"models/tiny.lua", "models/tiny.params.lua", "models/tiny.initial.csv"},
    {"models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua", "models/iskhakov_2017.initial.csv"},
    {"models/mortality.lua", "models/mortality.params.lua", "models/mortality.initial.csv"},
    {"models/precautionary_savings.lua", "models/precautionary_savings.params.lua",
     "models/precautionary_savings.initial.csv"},
    {"models/precautionary_savings_health.lua", "models/precautionary_savings_health.params.lua",
     "models/precautionary_savings_health.initial.csv"},
};
const int test_nbundled = (int)(sizeof test_bundled / sizeof *test_bundled);

/* The folders test_tmpdir made, removed with all they hold when the test
 * program ends (by the process that made them: not by a forked child that
 * calls exit), unless LCM_TEST_KEEP_TMP is set, to look at them. */
static char **tmpdirs;
static int ntmpdirs;
static pid_t tmpdirs_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if ((flag == FTW_DP || flag == FTW_DNR ? rmdir(path) : unlink(path)) != 0)
        fprintf(stderr, "test: could not remove %s\n", path);
    return 0;
}

static void remove_tmpdirs(void)
{
    if (getpid() != tmpdirs_owner) return;
    const char *keep = getenv("LCM_TEST_KEEP_TMP");
    for (int i = 0; i < ntmpdirs; ++i) {
        if (keep && *keep) printf("test: kept %s\n", tmpdirs[i]);
        else if (access(tmpdirs[i], F_OK) == 0) nftw(tmpdirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(tmpdirs[i]);
    }
    free(tmpdirs);
    tmpdirs = NULL, ntmpdirs = 0;
}

char *test_tmpdir(const char *tag)
{
    char *dir = base_xasprintf("%s/tmp-%s-XXXXXX", LCM_BINARY_DIR, tag);
    if (!mkdtemp(dir)) {
        free(dir);
        return NULL;
    }
    if (!tmpdirs_owner) {
        tmpdirs_owner = getpid();
        atexit(remove_tmpdirs);
    }
    tmpdirs = base_xrealloc(tmpdirs, (size_t)(ntmpdirs + 1) * sizeof *tmpdirs);
    tmpdirs[ntmpdirs++] = base_xstrdup(dir);
    return dir;
}

int test_generate_text(const char *lua_text, lcm_model **out, lcm_err *err)
{
    char *dir = test_tmpdir("model");
    char *path = base_path_join(dir, "model.lua");
    int rc = sys_write_file_atomic(path, lua_text, strlen(lua_text), err);
    if (!rc) {
        lcmgen_output gen;
        rc = lcmgen_generate(path, NULL, &gen, err);
        if (!rc) {
            rc = lcm_model_from_text(gen.manifest, gen.source, out, err);
            lcmgen_output_free(&gen);
        }
    }
    unlink(path);
    rmdir(dir);
    free(path), free(dir);
    return rc;
}

void test_pre_plans(const lcm_model *model, ir_pre *plans)
{
    const ir_model *m = core_model_ir(model);
    ir_vars V;
    ir_shard S;
    ir_vars_build(m, &V);
    ir_shard_build(m, &V, &S);
    for (int k = 0; k < m->nkernels; ++k) ir_elim_plan_kernel(m, &S, k, &plans[k]);
    ir_vars_free(&V);
}

char *test_dead_temp_name(const char *path)
{
    int fds[2];
    char name[8192] = {0};
    if (pipe(fds)) return NULL;
    pid_t pid = fork();
    if (pid == 0) { /* a child names it and ends */
        char *n = sys_temp_name(path);
        ssize_t w = write(fds[1], n, strlen(n));
        _exit(w < 0);
    }
    close(fds[1]);
    size_t got = 0;
    for (ssize_t r; got + 1 < sizeof name && (r = read(fds[0], name + got, sizeof name - 1 - got)) > 0;)
        got += (size_t)r;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0); /* reaped: no process has its pid now (until one is given it again) */
    return got ? base_xstrdup(name) : NULL;
}
