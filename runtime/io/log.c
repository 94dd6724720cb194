/* log.c - see log.h. */
#include "log.h"

#include "message.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static lcm_log_level current = LCM_LOG_INFO;
static int live_open; /* a live line (io_log_live) is on the screen */

void io_log_end_line(void)
{
    if (live_open) fputs("\r\033[K", stderr); /* back to its start and cleared: what follows takes its place */
    live_open = 0;
}

int io_log_live_shown(void) { return live_open; }

void io_log_live(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputc('\r', stderr);
    base_vput_message(stderr, fmt, ap);
    fputs("\033[K", stderr); /* clears what a longer line before left */
    fflush(stderr);
    va_end(ap);
    live_open = 1;
}

void lcm_set_log_level(lcm_log_level level)
{
    if ((int)level >= LCM_LOG_OFF && (int)level <= LCM_LOG_DEBUG) current = level; /* else (-1 of by_name): no change */
}
lcm_log_level lcm_get_log_level(void) { return current; }

int lcm_log_level_by_name(const char *name)
{
    static const char *names[] = {"off", "warning", "info", "progress", "debug"};
    for (int i = 0; i < (int)(sizeof names / sizeof *names) && name; ++i)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

/* In an MPI job only rank 0 speaks (every rank would say the same);
 * core/comm.c says which rank this is when it joins the job. */
static int rank;
void io_log_set_rank(int r) { rank = r; }
static int muted(void) { return rank != 0; }

static void emit(lcm_log_level level, const char *tag, const char *fmt, va_list ap)
{
    if (current < level || muted()) return;
    io_log_end_line();
    fprintf(stderr, "lcm: %s", tag);
    base_vput_message(stderr, fmt, ap);
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

LOG_FN(io_warn, LCM_LOG_WARNING, "warning: ")
LOG_FN(io_info, LCM_LOG_INFO, "")
LOG_FN(io_progress, LCM_LOG_PROGRESS, "")
LOG_FN(io_debug, LCM_LOG_DEBUG, "")
