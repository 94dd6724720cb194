/* fail.c - see fail.h. */
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message longer than err->msg ends in a mark rather than mid-word in
 * silence; the cut keeps whole UTF-8 characters. */
static void mark_cut(char *msg, size_t size, int length)
{
    static const char MARK[] = " [message cut]";
    if (length < (int)size) return;
    _Static_assert(sizeof MARK < LCM_ERR_MSG_MAX, "the mark fits in a message");
    size_t at = size - sizeof MARK;
    /* back over continuation bytes, at most 3 (a character has at most 4
     * bytes): text that is not UTF-8 loses no more than that */
    for (int k = 0; k < 3 && at > 0 && ((unsigned char)msg[at] & 0xC0) == 0x80; ++k) --at;
    memcpy(msg + at, MARK, sizeof MARK);
}

int base_fail(lcm_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        mark_cut(err->msg, sizeof err->msg, n);
        err->code = code;
    }
    return code;
}

int base_fail_prefix(lcm_err *err, const char *fmt, ...)
{
    if (!err) return LCM_E_INTERNAL;
    char prefix[1024], old[LCM_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    int n = snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    mark_cut(err->msg, sizeof err->msg, n);
    return err->code;
}

/* Defined in every build, so that code built with LCM_ASSERTS links with
 * libraries built without it. */
void lcm_assert_fail(const char *file, int line, const char *cond) __attribute__((noreturn));
void lcm_assert_fail(const char *file, int line, const char *cond)
{
    fflush(stdout);
    fprintf(stderr, "%s:%d: lcm_assert failed: %s (a bug in lcmgen; please report it)\n", file, line, cond);
    abort();
}
