/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static lcm_log_level current = LCM_LOG_PROGRESS;

void lcm_set_log_level(lcm_log_level level) { current = level; }
lcm_log_level lcm_get_log_level(void) { return current; }

int lcm_log_level_by_name(const char *name)
{
    static const char *names[] = {"off", "warning", "progress", "debug"};
    for (int i = 0; i < 4; ++i)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

static void emit(lcm_log_level level, const char *tag, const char *fmt, va_list ap)
{
    if (current < level) return;
    fprintf(stderr, "lcm: %s", tag);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

#define LOG_FN(name, level, tag)              \
    void name(const char *fmt, ...)           \
    {                                         \
        va_list ap;                           \
        va_start(ap, fmt);                    \
        emit(level, tag, fmt, ap);            \
        va_end(ap);                           \
    }

LOG_FN(lcm_warn, LCM_LOG_WARNING, "warning: ")
LOG_FN(lcm_progress, LCM_LOG_PROGRESS, "")
LOG_FN(lcm_debug, LCM_LOG_DEBUG, "")
