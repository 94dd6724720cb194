/* progress_line.h - the lcm command's progress line: while a solve or a
 * simulation runs for more than about a second, one line of stderr that
 * rewrites itself in place ("lcm: solving 'tiny': period 2 of 3 (age 1),
 * 1.4 s, about 0.7 s left") and gives way to the command's next message.
 * Drawn from lcm.h's progress callback (lcm_solver_options.progress), as
 * any liblcm program could; shown when stderr is a terminal and the log
 * level is info or more, unless --progress or --no-progress says otherwise.
 */
#ifndef LCM_PROGRESS_LINE_H
#define LCM_PROGRESS_LINE_H

#include "lcm.h"

/* Whether arg is --progress or --no-progress: 1 (consumed), 0 (another
 * argument), or -1 with a usage error (given twice). */
int cli_progress_option(const char *arg, lcm_err *err);
/* Puts the line's callback into so when the line is to be shown (after
 * the options are parsed: it depends on --log-level). */
void cli_progress_attach(lcm_solver_options *so);

#endif
