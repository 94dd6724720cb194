/* api_args.h - lcm.h's entry points and the NULL pointers they are given.
 *
 * An entry point that returns a status checks first that the pointers it
 * needs are not NULL: LCM_NEEDS(err, a, b, ...) returns LCM_E_USAGE from
 * the function, with "lcm_solve: 'out' is NULL" in err, for the first one
 * that is (err itself first: without it the message goes to stderr as a
 * warning, since there is nowhere else to put it).  The getters answer a
 * NULL handle with their "nothing" (NULL, 0, -1 or NaN, as lcm.h says), and
 * the free functions take NULL.  tests/unit/test_api_null.c calls every
 * LCM_API function with NULL in each pointer argument. */
#ifndef LCM_API_ARGS_H
#define LCM_API_ARGS_H

#include "lcm.h"

/* LCM_E_USAGE when err or one of the n pointers (named, comma-separated, in
 * names) is NULL; 0 when none is.  fn names the entry point. */
int core_api_needs(lcm_err *err, const char *fn, const char *names, int n, ...);

/* (const void *) of each argument, for the variadic check (up to 6). */
#define LCM_API_NARGS_(a, b, c, d, e, f, n, ...) n
#define LCM_API_NARGS(...) LCM_API_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define LCM_API_VP1(a) (const void *)(a)
#define LCM_API_VP2(a, ...) (const void *)(a), LCM_API_VP1(__VA_ARGS__)
#define LCM_API_VP3(a, ...) (const void *)(a), LCM_API_VP2(__VA_ARGS__)
#define LCM_API_VP4(a, ...) (const void *)(a), LCM_API_VP3(__VA_ARGS__)
#define LCM_API_VP5(a, ...) (const void *)(a), LCM_API_VP4(__VA_ARGS__)
#define LCM_API_VP6(a, ...) (const void *)(a), LCM_API_VP5(__VA_ARGS__)
#define LCM_API_CAT_(a, b) a##b
#define LCM_API_CAT(a, b) LCM_API_CAT_(a, b)

#define LCM_NEEDS(err, ...)                                                                                        \
    do {                                                                                                           \
        int needs_rc_ = core_api_needs(err, __func__, #__VA_ARGS__, LCM_API_NARGS(__VA_ARGS__),                     \
                                      LCM_API_CAT(LCM_API_VP, LCM_API_NARGS(__VA_ARGS__))(__VA_ARGS__));           \
        if (needs_rc_) return needs_rc_;                                                                           \
    } while (0)

#endif
