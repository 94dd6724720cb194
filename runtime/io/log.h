/* log.h - messages on stderr, filtered by level, and what the numerical
 * checks do at each level.
 *
 * Levels follow pylcm's, with one more, info, as the default: off (nothing,
 * not even warnings, and no checks), warning (checks warn and the run
 * completes), info (the default: checks raise at the first failing period;
 * warnings, and one line per command of what was done and where the results
 * went), progress (checks warn; + what is being done and how long each
 * period took), debug (checks raise; + V's min, max and mean per regime and
 * period, the backend's choices).
 * Errors are not logged here: they travel back as lcm_err to the caller.
 */
#ifndef LCM_LOG_H
#define LCM_LOG_H

/* lcm_log_level, lcm_set_log_level, lcm_get_log_level, lcm_log_level_by_name: lcm.h */
#include "lcm.h"

typedef enum lcm_checks {
    LCM_CHECKS_OFF = 0, /* not evaluated */
    LCM_CHECKS_WARN,    /* a failed check is a warning; the run goes on */
    LCM_CHECKS_RAISE    /* a failed check is an error at the first failing period */
} lcm_checks;

/* This process's rank in an MPI job (core/comm.c sets it; 0 outside one):
 * only rank 0 prints. */
void lcm_log_set_rank(int rank);

/* What the checks do at the current level. */
lcm_checks lcm_checks_mode(void);

void lcm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that rewrites itself in place on stderr, at any level: the lcm
 * command's progress line on a terminal (runtime/cli/progress_line.c),
 * drawn from the progress callback of lcm.h.  Every message printed while
 * it is on the screen clears it first and takes its place; the next draw
 * puts it back below. */
void lcm_log_live(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether a live line is on the screen: no message has cleared it since. */
int lcm_log_live_shown(void);
/* Clears a live line that is on the screen (before printing anything else
 * to stderr: an error, the command's final line). */
void lcm_log_end_line(void);

#endif
