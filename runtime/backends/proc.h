/* proc.h - running a helper program (the host compiler) and capturing its output. */
#ifndef LCM_PROC_H
#define LCM_PROC_H

/* Runs argv[0] (searched in PATH) with argv, stdout and stderr captured
 * together into *output (caller frees).  Returns the exit status, or -1 if
 * the program could not be started (then *output says why).  While it
 * runs, a fatal signal to lcm is passed on to it (ir/tempfile.h): it runs
 * in lcm's process group, so a signal to the whole group (Ctrl-C, timeout)
 * reaches it anyway, and one to lcm alone would leave it running. */
int lcm_run_capture(char *const argv[], char **output);

#endif
