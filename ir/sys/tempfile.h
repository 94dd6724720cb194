/* tempfile.h - the temporary files that outputs are written to before they
 * are renamed onto their names.
 *
 * A temporary lies in its target's folder (the rename stays on one file
 * system) under the target's name plus ".tmp.", who made it and a random
 * suffix (tempname.h), and is created exclusively (O_CREAT|O_EXCL, which
 * also refuses a symbolic link): in a shared folder nobody can guess the
 * name in advance or plant a link there that the write would follow.
 * Creating one removes first the stale temporaries of its name, which runs
 * killed by SIGKILL left (tempname.h says how they are told from a live
 * run's).
 *
 * Every live temporary is listed in a registry.  SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE and SIGXFSZ (when their action is the default one: an ignored or
 * handled signal is left alone) remove them all before the process ends with
 * the signal's usual status, so an interrupted run leaves none behind.  The
 * names are kept as given, relative to the working directory, which lcm never
 * changes.  The same handler undoes the cpu compile (backend_cpu.c): it
 * passes the signal on to the compiler, which a signal meant for lcm alone
 * (kill PID, a job scheduler's) would leave running, waits for it to end,
 * and removes the files and folder the compile registered
 * (sys_temp_register_scratch). */
#ifndef LCM_TEMPFILE_H
#define LCM_TEMPFILE_H

#include <signal.h>

#include "base.h"

/* Creates the file `name` exclusively and returns 0, or an errno value:
 * EEXIST when the name is taken (another is then tried).  A creator that
 * fails part way removes what it made. */
typedef int (*temp_creator)(const char *name, void *ctx);

/* Creates a registered temporary for `path` with create(name, ctx); *tmp is
 * its name, to be handed to temp_commit or temp_discard. */
int sys_temp_create(const char *path, temp_creator create, void *ctx, char **tmp, lcm_err *err);
/* The common case: a new empty file opened for writing (*fd). */
int sys_temp_open(const char *path, char **tmp, int *fd, lcm_err *err);
/* Flushes a written and closed temporary to the disk; 0 or an errno value. */
int sys_temp_sync(const char *tmp);
/* Removes a temporary, unregisters it and frees its name. */
void sys_temp_discard(char *tmp);
/* Renames n finished (synced) temporaries onto their paths, in order, and
 * frees their names.  The renames come last so that a failure before them
 * changes nothing; a signal during them waits until all are done; several
 * run under a lock of their folders, so that two processes committing the
 * same paths at once leave one's set, not a mix.  What
 * remains possible: several renames are not one atomic step, so a crash or
 * SIGKILL between two of them, or a rename that fails (after everything was
 * written, on the same file system: practically never), leaves the earlier
 * paths new and the later ones as they were -- each file is whole, old or
 * new, never partial.  On a failure the temporaries not yet renamed are
 * removed and the error names the path. */
int sys_temp_commit(char **tmp, const char *const *path, int n, lcm_err *err);
/* The same, leaving each path whose file holds its temporary's bytes
 * already untouched (its mtime too), compared under the lock: two
 * processes that write the same set at once still leave one's set. */
int sys_temp_commit_changed(char **tmp, const char *const *path, int n, lcm_err *err);

/* Registers a folder of our own (mkdtemp's) that a helper program works
 * in, for the handler to remove with what it holds (one level: the
 * program's files and temporaries, its TMPDIR).  0, or -1 when the
 * registry is full (then nothing is registered). */
int sys_temp_register_scratch(const char *dir);
/* Unregisters it (the caller removes it, or keeps it). */
void sys_temp_unregister(const char *path);
/* A helper program (the host compiler) that the handler passes the signal
 * on to while it runs, with every process of its group (the driver, cc1,
 * as, ld), and waits for before it removes the files (until no process of
 * the group but zombies is left; after two seconds it kills them, and
 * waits one more at most): it must lead a process group of its own (pid =
 * group id), added once started, removed once waited for.  While one runs,
 * SIGTSTP (Ctrl-Z) stops its group with lcm, and continuing lcm continues
 * it. */
void sys_temp_add_child(int pid);
void sys_temp_remove_child(int pid);
/* Once the handler has begun to remove everything (the process ends by the
 * signal), blocks for good: a thread that found its helper program ended
 * must not go on to report that as an error and exit first. */
void sys_temp_wait_if_dying(void);
/* Blocks the handler's signals and SIGTSTP in the calling thread (*saved:
 * the mask before), so that one arriving while a helper program is started
 * and added waits, and then reaches it; release restores *saved. */
void sys_temp_hold_signals(sigset_t *saved);
void sys_temp_release_signals(const sigset_t *saved);

#endif
