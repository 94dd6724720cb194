/* fuzz_support.c - see fuzz_support.h. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp, getcwd, chdir */
#include "fuzz_support.h"
#include "files.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TEMP_FILES 4
static char *temp_dir, *temp_files[MAX_TEMP_FILES];
static int ntemp_files;

void fuzz_setup(const char *max_instructions, const char *max_memory)
{
    lcm_set_log_level(LCM_LOG_OFF);
    setenv("LCM_LUA_MAX_INSTRUCTIONS", max_instructions, 0);
    setenv("LCM_LUA_MAX_MEMORY", max_memory, 0);
}

static void remove_temp(void)
{
    for (int i = 0; i < ntemp_files; ++i) unlink(temp_files[i]), free(temp_files[i]);
    rmdir(temp_dir);
    free(temp_dir);
}

char *fuzz_temp_path(const char *name)
{
    if (!temp_dir) {
        const char *tmp = getenv("TMPDIR");
        char *dir = base_xasprintf("%s/lcm-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror(dir);
            abort();
        }
        temp_dir = dir;
        atexit(remove_temp);
    }
    if (ntemp_files == MAX_TEMP_FILES) fuzz_fail("too many temporary files", name);
    return temp_files[ntemp_files++] = base_path_join(temp_dir, name);
}

void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
        perror(path);
        abort();
    }
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = base_xmalloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

static void generate(const char *path, lcmgen_output *out)
{
    lcm_err err = {0};
    if (lcmgen_generate(path, NULL, out, &err)) fuzz_fail("cannot generate a fixed model", err.msg);
}

char *fuzz_source_path(const char *relative) { return base_path_join(LCM_SOURCE_DIR, relative); }

void fuzz_generate(const char *relative, lcmgen_output *out)
{
    char *path = fuzz_source_path(relative);
    generate(path, out);
    free(path);
}

void fuzz_generate_as_typed(const char *relative, lcmgen_output *out)
{
    char *here = getcwd(NULL, 0);
    if (!here || chdir(LCM_SOURCE_DIR) != 0) {
        perror(LCM_SOURCE_DIR);
        abort();
    }
    generate(relative, out);
    if (chdir(here) != 0) {
        perror(here);
        abort();
    }
    free(here);
}

void fuzz_check_error(int rc, const lcm_err *err)
{
    if (rc != err->code) fuzz_fail("the status returned is not the one in lcm_err", err->msg);
    if (!err->msg[0]) fuzz_fail("an error without a message", "");
    if (rc == LCM_E_INTERNAL) fuzz_fail("an internal error (a bug, by its own account)", err->msg);
    if (rc < LCM_E_USAGE || rc > LCM_E_MEMORY) fuzz_fail("an unknown status", err->msg);
}

static void check_solution(const ir_model *m, const lcm_solution *sol)
{
    int precision = lcm_solution_precision(sol);
    if (core_solution_model(sol) != m) fuzz_fail("a solution of another model", m->name);
    if (precision != 64 && precision != 32) fuzz_fail("a precision neither 64 nor 32", m->name);
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            if (!m->regimes[r].active[t]) continue;
            lcm_index n = 0;
            if (!lcm_solution_V(sol, t, r, &n) || n != ir_state_space_size(&m->regimes[r]))
                fuzz_fail("V of an active regime missing or of another size", m->regimes[r].name);
            for (lcm_index i = 0; i < n; ++i)
                if (isnan(lcm_solution_value(sol, t, r, i))) fuzz_fail("NaN in V read", m->regimes[r].name);
        }
}

lcm_solution *fuzz_read_solution(const char *path, const ir_model *const *models, int n, int *which)
{
    static int verbose = -1; /* LCM_FUZZ_VERBOSE=1: say what each read gave (to replay an input) */
    if (verbose < 0) verbose = getenv("LCM_FUZZ_VERBOSE") && *getenv("LCM_FUZZ_VERBOSE") == '1';
    lcm_solution *read = NULL;
    *which = -1;
    for (int k = 0; k < n; ++k) {
        lcm_err err = {0};
        lcm_solution *sol = NULL;
        int rc = core_solution_read_h5_ir(models[k], path, &sol, &err);
        if (verbose) fprintf(stderr, "fuzz: read as %s: %s\n", models[k]->name, rc ? err.msg : "a solution");
        if (rc) {
            fuzz_check_error(rc, &err);
            if (rc != LCM_E_INPUT && rc != LCM_E_IO) fuzz_fail("an error of another kind than a file's", err.msg);
        } else {
            if (read) fuzz_fail("a file read as the solution of two models", models[k]->name);
            check_solution(models[k], sol);
            read = sol, *which = k;
        }
        if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) fuzz_fail("HDF5 objects left open", models[k]->name);
    }
    return read;
}

void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz: %s: %s\n", what, detail);
    abort();
}
