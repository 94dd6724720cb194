/* fuzz_support.c - see fuzz_support.h. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp, getcwd, chdir */
#include "fuzz_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *temp_dir, *temp_file;

void fuzz_setup(const char *max_instructions, const char *max_memory)
{
    lcm_set_log_level(LCM_LOG_OFF);
    setenv("LCM_LUA_MAX_INSTRUCTIONS", max_instructions, 0);
    setenv("LCM_LUA_MAX_MEMORY", max_memory, 0);
}

static void remove_temp(void)
{
    if (temp_file) unlink(temp_file);
    rmdir(temp_dir);
    free(temp_file), free(temp_dir);
}

char *fuzz_temp_path(const char *name)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/lcm-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        abort();
    }
    temp_dir = dir;
    temp_file = path_join(dir, name);
    atexit(remove_temp);
    return temp_file;
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
    char *s = xmalloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

static void generate(const char *path, lcmgen_output *out)
{
    lcm_err err = {0};
    if (lcmgen_generate(path, NULL, 0, out, &err)) fuzz_fail("cannot generate a fixed model", err.msg);
}

void fuzz_generate(const char *relative, lcmgen_output *out)
{
    char *path = path_join(LCM_SOURCE_DIR, relative);
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

void fuzz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz: %s: %s\n", what, detail);
    abort();
}
