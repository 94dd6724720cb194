/* proc.h - running a helper program (the host compiler) and capturing its output. */
#ifndef LCM_PROC_H
#define LCM_PROC_H

/* be_run_capture's result for a program a signal ended: this plus the
 * signal's number (exit statuses are 0 to 255). */
#define LCM_RUN_SIGNALED 256

/* Runs argv[0] (searched in PATH) with argv, stdout and stderr captured
 * together into *output (caller frees), and with TMPDIR set to tmpdir
 * (NULL: lcm's own environment), where a compiler puts its temporaries.
 * Returns the exit status, LCM_RUN_SIGNALED plus the signal's number when
 * a signal ended it, or -1
 * if the program could not be started (then *output says why); 0 also when
 * the status cannot be known (a process that ignores SIGCHLD has its
 * children reaped by the system): the caller judges by what the program
 * made.  The program leads a process group of its own, registered with the
 * signal handler of ir/tempfile.h while it runs, so that a fatal signal to
 * lcm (Ctrl-C at a terminal, a scheduler's SIGTERM, from any thread)
 * reaches all of it, a compiler driver's cc1, as and ld included, as
 * ninja does with its commands. */
int be_run_capture(char *const argv[], const char *tmpdir, char **output);

#endif
