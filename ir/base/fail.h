/* fail.h - errors and invariants.

 * Error convention: a function that can fail returns 0 on success and a
 * non-zero lcm_status on failure, after filling the caller's lcm_err with one
 * human-readable message.  The status doubles as the process exit code of the
 * command-line tools, so each class of failure exits differently. */
#ifndef LCM_FAIL_H
#define LCM_FAIL_H


/* lcm_status, lcm_err and lcm_index are the public API's (runtime/include/lcm.h). */
#include "lcm.h"

/* Sets err (if non-NULL) and returns code, so callers can `return base_fail(...)`. */
int base_fail(lcm_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes an existing message: "<prefix>: <old message>". */
int base_fail_prefix(lcm_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One check-and-cleanup pattern for functions that set up several things
 * (emit_kernel, be_backend_cpu_new, be_backend_cuda_new): each step that
 * can fail is `LCM_CHECK_GOTO(step(...), rc, done);`, and `done:` frees
 * everything, whatever was reached. */
#define LCM_CHECK_GOTO(call, rc, label)                                                                   \
    do {                                                                                              \
        if (((rc) = (call)) != 0) goto label;                                                         \
    } while (0)

/* lcm_assert(cond): an invariant of the code (not of the input: bad input
 * is an lcm_err).  Built with LCM_ASSERTS (the CMake option, on for Debug,
 * the tests' scripts and the sanitizer build) a false one aborts with
 * file:line and the condition; without, it compiles to nothing and the
 * code goes on as it did (clamping, skipping), so it must not have effects. */
#ifdef LCM_ASSERTS
#define lcm_assert(cond) ((cond) ? (void)0 : lcm_assert_fail(__FILE__, __LINE__, #cond))
void lcm_assert_fail(const char *file, int line, const char *cond) __attribute__((noreturn));
#else
#define lcm_assert(cond) ((void)0)
#endif

#endif
