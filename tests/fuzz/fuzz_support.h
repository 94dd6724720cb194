/* fuzz_support.h - what the libFuzzer harnesses share: a private file to
 * hand inputs to readers that take a path, the fixed models they read
 * against, and the check that a failure was a clean lcm_err. */
#ifndef LCM_FUZZ_SUPPORT_H
#define LCM_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "lcm.h"
#include "lcmgen.h"

/* Once per process: logging off, and low Lua limits unless the environment
 * sets them (an endless loop in an input then costs a fraction of a second,
 * not the default 1e9 instructions).  After fuzz_generate: the fixed models
 * may need more than an input is given. */
void fuzz_setup(const char *max_instructions, const char *max_memory);

/* Once per process: a path named `name` in a directory of this process's
 * own under $TMPDIR (removed at exit), for every run to rewrite. */
char *fuzz_temp_path(const char *name);
/* Replaces the file's content with the input bytes. */
void fuzz_write(const char *path, const uint8_t *data, size_t size);
/* The input as a NUL-terminated string (caller frees). */
char *fuzz_text(const uint8_t *data, size_t size);

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
/* Aborts with a message: an invariant of a successful read does not hold. */
void fuzz_fail(const char *what, const char *detail) __attribute__((noreturn));

#endif
