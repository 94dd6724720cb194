/* tempname.h - the names of temporary files: which process made one, and
 * whether that process is gone.
 *
 * A process killed by SIGKILL (kill -9, the OOM killer) cannot remove its
 * temporaries, so a later run removes them: a run that writes a file
 * removes the stale temporaries of that name in its folder first
 * (tempfile.c), and `lcm cache clear` those of the cache (cache.c).  Stale
 * must be proven, since a temporary of a live process must never be
 * touched: the name says who made it,
 *
 *   NAME.tmp.<boot><pidns>.<pid>.<start>.<random>
 *
 * boot the first 8 hex digits of the kernel's boot id, pidns the pid
 * namespace (8 hex digits of its inode), pid and start the process's id and
 * its start time (clock ticks since boot, /proc/PID/stat), random 10
 * characters (two temporaries of one process and name).  One is stale when
 * it was made in this boot and this pid namespace by a process that no
 * longer runs: no process has that pid, or the process that has it now
 * started at another time (the pid was reused).  One made in another boot,
 * namespace or machine (a shared folder) is never judged, nor one whose
 * name does not parse (an older lcm's, anyone else's), nor one that is not
 * a regular file of this user.  Without /proc nothing is judged stale. */
#ifndef LCM_TEMPNAME_H
#define LCM_TEMPNAME_H

#include "fail.h"

/* A new name for a temporary of `path` (a path or a bare file name),
 * malloc'd. */
char *sys_temp_name(const char *path);
/* Whether `name`, in the folder open as dirfd, is a stale temporary (above)
 * of the file `base` (NULL: of any file). */
int sys_temp_stale(int dirfd, const char *name, const char *base);
/* Removes the stale temporaries of `base` (NULL: of any file) from the
 * folder open as dirfd; the number removed. */
int sys_temp_sweep(int dirfd, const char *base);

/* Outputs are written to a temporary file and renamed onto their name, so
 * the name must be free or a regular file: renaming onto a device, a
 * directory or a symbolic link would replace it.  Checks that. */
int sys_check_output_path(const char *path, lcm_err *err);

#endif
