/* log.h - messages on stderr, filtered by level.
 *
 * Levels follow pylcm's, with one more, info, as the default: off (nothing,
 * not even warnings), warning (warnings only), info (the default: warnings,
 * and one line per command of what was done and where the results went),
 * progress (+ what is being done and how long each period took), debug
 * (+ V's min, max and mean per regime and period, the backend's choices).
 * What the numerical checks do is not the level's but the solver's option
 * (lcm_solver_options.checks, lcm.h): the level only says what is printed.
 * Errors are not logged here: they travel back as lcm_err to the caller.
 */
#ifndef LCM_LOG_H
#define LCM_LOG_H

/* lcm_log_level, lcm_set_log_level, lcm_get_log_level, lcm_log_level_by_name: lcm.h */
#include "lcm.h"

/* This process's rank in an MPI job (core/comm.c sets it; 0 outside one):
 * only rank 0 prints. */
void io_log_set_rank(int rank);

void io_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void io_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void io_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void io_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that rewrites itself in place on stderr, at any level: the lcm
 * command's progress line on a terminal (runtime/cli/progress_line.c),
 * drawn from the progress callback of lcm.h.  Every message printed while
 * it is on the screen clears it first and takes its place; the next draw
 * puts it back below. */
void io_log_live(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether a live line is on the screen: no message has cleared it since. */
int io_log_live_shown(void);
/* Clears a live line that is on the screen (before printing anything else
 * to stderr: an error, the command's final line). */
void io_log_end_line(void);

#endif
