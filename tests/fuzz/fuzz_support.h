/* fuzz_support.h - what the libFuzzer harnesses share: a private file to
 * hand inputs to readers that take a path, the fixed models they read
 * against, and the check that a failure was a clean lcm_err. */
#ifndef LCM_FUZZ_SUPPORT_H
#define LCM_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "initial.h"
#include "lcm_internal.h"
#include "lcmgen.h"
#include "log.h"
#include "params.h"

/* Once per process: logging off, and low Lua limits unless the environment
 * sets them (an endless loop in an input then costs a fraction of a second,
 * not the default 1e9 instructions).  After fuzz_generate: the fixed models
 * may need more than an input is given. */
void fuzz_setup(const char *max_instructions, const char *max_memory);

/* A path named `name` in a directory of this process's own under $TMPDIR
 * (made at the first call; it and the files named so are removed at exit),
 * for every run to rewrite.  Once per name, at most four. */
char *fuzz_temp_path(const char *name);
/* Replaces the file's content with the input bytes. */
void fuzz_write(const char *path, const uint8_t *data, size_t size);
/* The input as a NUL-terminated string (caller frees). */
char *fuzz_text(const uint8_t *data, size_t size);

/* A path in the source tree (caller frees). */
char *fuzz_source_path(const char *relative);
/* Generates a bundled model (path relative to the source tree); aborts on failure. */
void fuzz_generate(const char *relative, lcmgen_output *out);
/* The same, as `lcm solve <relative>` run in the source tree generates it:
 * the generated code records the model's path as typed, so the source hash
 * of a solution file written that way names this model. */
void fuzz_generate_as_typed(const char *relative, lcmgen_output *out);

/* A reader's failure must be one clean error: a status of the input's kind
 * with a message.  Anything else, an internal error included, aborts, which
 * the fuzzer reports as a crash. */
void fuzz_check_error(int rc, const lcm_err *err);
/* Reads the file at `path` as a solution of each of the n models, as `lcm
 * simulate --solution` does.  A failure must be one clean error of a file's
 * kind (cannot read, or a bad saved solution); a success a solution of that
 * model (its precision, V of every active regime and period, no NaN in it),
 * for one model at most; no HDF5 object may stay open either way (one left
 * open keeps its file open and grows with every input).  Returns the
 * solution read (caller frees) with its model's index in *which, or NULL
 * and -1. */
lcm_solution *fuzz_read_solution(const char *path, const ir_model *const *models, int n, int *which);

/* Aborts with a message: an invariant of a successful read does not hold. */
void fuzz_fail(const char *what, const char *detail) __attribute__((noreturn));

#endif
