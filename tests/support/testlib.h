/* testlib.h - helpers of the C tests: generate and solve models from Lua
 * files through the same library calls the lcm command uses. */
#ifndef LCM_TESTLIB_H
#define LCM_TESTLIB_H

#include "initial.h"
#include "lcm_internal.h"
#include "log.h"
#include "params.h"

/* Source tree root (set by CMake), for models/ and ../shared/reference. */
const char *test_source_dir(void);
char *test_path(const char *relative);

/* Generates a model (.lua, with "name=value" defines, NULL-terminated). */
int test_generate(const char *lua, const char *const *defines, lcm_model **out, lcm_err *err);
/* Reads a Lua params file into a tree. */
int test_params(const char *lua, lcm_pvalue **out, lcm_err *err);
/* Generate + solve on a backend. */
int test_solve(const char *lua, const char *const *defines, const char *params, lcm_backend_kind backend,
               int precision, lcm_model **model, lcm_solution **sol, lcm_err *err);
/* The continuation table plan (ir/precompute.h) of each of the model's
 * kernels, as the generator and the runtime make it, into plans[nkernels]. */
struct ir_pre;
void test_pre_plans(const lcm_model *m, struct ir_pre *plans);
/* Largest relative difference of V between two solutions of one model. */
double test_max_rel_diff(const lcm_solution *a, const lcm_solution *b);
/* Largest difference of two panels' numbers (value, states, actions;
 * relative above 1), or infinity when their rows (subject, period, regime)
 * differ. */
double test_panel_diff(const lcm_panel *a, const lcm_panel *b);
/* The same without the value column: how far the paths (states, actions,
 * regimes) differ. */
double test_panel_path_diff(const lcm_panel *a, const lcm_panel *b);
/* The bundled models with their params and initial conditions (models/). */
typedef struct test_bundled_model {
    const char *model, *params, *initial;
} test_bundled_model;
extern const test_bundled_model test_bundled[];
extern const int test_nbundled;

/* A fresh empty directory under the build tree (caller frees the name);
 * it and all it holds are removed when the test program ends, unless
 * LCM_TEST_KEEP_TMP is set. */
char *test_tmpdir(const char *tag);

/* The name of a temporary of `path` (ir/tempname.h) as a process that has
 * ended would have made it: a stale one (caller frees). */
char *test_dead_temp_name(const char *path);

#endif

#ifndef LCM_TESTLIB_TEXT
#define LCM_TESTLIB_TEXT
/* Writes Lua text to a fresh file and generates it (for small inline models). */
int test_generate_text(const char *lua_text, lcm_model **out, lcm_err *err);
#endif
