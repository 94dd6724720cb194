/* progress_line.c - see progress_line.h. */
#define _POSIX_C_SOURCE 200809L /* POSIX: fileno, isatty */
#include "progress_line.h"
#include "base.h"
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Work quicker than this shows no line: it would only flicker. */
#define PROGRESS_DELAY 1.0
/* Redraws at most this often: a terminal need not show every step of a
 * simulation of many small batches. */
#define PROGRESS_REDRAW 0.1

static int asked = -1;  /* --progress (1), --no-progress (0), neither (-1) */
static double drawn_at = -1; /* the seconds of the run drawn last (-1: none drawn in this run) */

int cli_progress_option(const char *arg, lcm_err *err)
{
    int on = !strcmp(arg, "--progress");
    if (!on && strcmp(arg, "--no-progress")) return 0;
    if (asked >= 0) {
        base_fail(err, LCM_E_USAGE, "%s after %s: give one of --progress and --no-progress, once", arg,
                 asked ? "--progress" : "--no-progress");
        return -1;
    }
    asked = on;
    return 1;
}

/* "3.2 s", "4 min 05 s", "2 h 07 min" */
static void put_duration(char *buf, size_t len, double s)
{
    if (s < 60) snprintf(buf, len, "%.1f s", s);
    else if (s < 3600) snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)s / 60 % 60);
}

/* What is running and how far it is: a solve's periods, or a simulation's
 * period of the batch of subjects it steps. */
static void put_step(char *buf, size_t len, const lcm_progress_info *p)
{
    if (p->what == LCM_PROGRESS_SOLVE && p->total == p->periods)
        snprintf(buf, len, "solving '%s': period %lld of %d (age %g)", p->model, p->done, p->periods, p->age);
    else if (p->what == LCM_PROGRESS_SOLVE) /* several workers of this process, one after the other */
        snprintf(buf, len, "solving '%s': step %lld of %lld (period %d)", p->model, p->done, p->total, p->period);
    else if (p->batch_size == p->subjects)
        snprintf(buf, len, "simulating '%s' (%lld subjects): period %d of %d", p->model, (long long)p->subjects,
                 p->period + 1, p->periods);
    else
        snprintf(buf, len, "simulating '%s': subjects %lld to %lld of %lld, period %d of %d", p->model,
                 (long long)p->batch_first, (long long)(p->batch_first + p->batch_size - 1), (long long)p->subjects,
                 p->period + 1, p->periods);
}

/* The terminal's width, to keep the line on one row ("\r" goes back to the
 * start of the row only); 0 when it cannot tell (not a terminal, or one
 * that does not say). */
static int stderr_columns(void)
{
    struct winsize ws;
    if (ioctl(fileno(stderr), TIOCGWINSZ, &ws) == 0) return ws.ws_col;
    return 0;
}

static int draw(const lcm_progress_info *p, void *user)
{
    (void)user;
    if (p->done <= 1) drawn_at = -1; /* a new run: lcm run solves, then simulates */
    int last = p->done >= p->total;
    if (p->seconds < PROGRESS_DELAY) return 0;
    /* a message that cleared the line since (--log-level progress prints one a period) has it drawn again at once */
    if (drawn_at >= 0 && p->seconds - drawn_at < PROGRESS_REDRAW && !last && io_log_live_shown()) return 0;
    drawn_at = p->seconds;
    char step[512], took[32], left[32], line[640];
    put_step(step, sizeof step, p);
    put_duration(took, sizeof took, p->seconds);
    put_duration(left, sizeof left, p->seconds / (double)p->done * (double)(p->total - p->done));
    snprintf(line, sizeof line, "lcm: %s, %s, about %s left", step, took, left);
    int width = stderr_columns() - 1; /* the last column would wrap on some terminals */
    if (width > 0 && width < (int)strlen(line)) line[width] = '\0'; /* the step and the time taken come first */
    io_log_live("%s", line); /* cleared by the next message: the final line, a warning, an error */
    return 0;
}

void cli_progress_attach(lcm_solver_options *so)
{
    int shown = asked >= 0 ? asked : isatty(fileno(stderr)) && lcm_get_log_level() >= LCM_LOG_INFO;
    so->progress = shown ? draw : NULL;
    so->progress_user = NULL;
}
