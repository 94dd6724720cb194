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

/* What the checks do at the current level. */
lcm_checks lcm_checks_mode(void);

void lcm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One step of a long task at level progress: on a terminal, a bar that
 * rewrites its line ("solving: period 3 of 6 [=====     ] ..."); elsewhere
 * the plain line.  The last step (done == total) ends the bar's line. */
void lcm_progress_step(int done, int total, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Ends an unfinished progress bar line (before printing an error). */
void lcm_log_end_line(void);

#endif
