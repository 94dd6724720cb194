/* check.h - the assertions of the C tests: failures are counted and
 * reported with file and line; main returns the count (0 = pass). */
#ifndef LCM_CHECK_H
#define LCM_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++check_failures;                                                        \
        }                                                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                   \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            ++check_failures;                                                  \
        }                                                                      \
    } while (0)

/* |a - b| <= tol * max(1, |b|), NaNs and infinities equal to themselves */
static inline int close_rel(double a, double b, double tol)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

#define CHECK_CLOSE(a, b, tol)                                                                  \
    do {                                                                                        \
        double ca_ = (a), cb_ = (b);                                                            \
        if (!close_rel(ca_, cb_, tol)) {                                                        \
            fprintf(stderr, "%s:%d: CHECK_CLOSE failed: %s = %.17g, %s = %.17g (tol %g)\n",     \
                    __FILE__, __LINE__, #a, ca_, #b, cb_, (double)(tol));                       \
            ++check_failures;                                                                   \
        }                                                                                       \
    } while (0)

#define CHECK_OK(call)                                                              \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call, \
                    rc_, err.msg);                                                  \
            ++check_failures;                                                       \
        }                                                                           \
    } while (0)

#define CHECK_DONE()                                                          \
    do {                                                                      \
        if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures); \
        return check_failures ? 1 : 0;                                        \
    } while (0)

#endif
