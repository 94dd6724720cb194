/* files.h - files, folders and atomic writes. */
#ifndef LCM_FILES_H
#define LCM_FILES_H

#include <stdio.h>
#include "fail.h"

/* Called first by each program: a file opened while standard input, output
 * or error is closed would take its number (a memfd, an output), and what
 * the program writes to standard output would go into that file.  Each
 * closed one is given /dev/null, read-only, so that writing to it still
 * fails as it would closed. */
void sys_hold_standard_fds(void);

/* An input file opened for reading; a path that is no regular file (a
 * directory, FIFO, device: reading would fail or wait) is an error. */
FILE *sys_open_input(const char *path, lcm_err *err);
/* Reads a whole file (sys_open_input); returns NULL and fills err on failure. */
char *sys_read_file(const char *path, size_t *len, lcm_err *err);
/* Writes atomically: a temporary in the same directory (tempfile.h), fsync,
 * rename. */
int sys_write_file_atomic(const char *path, const void *data, size_t len, lcm_err *err);
/* Writes n files together, all or none (tempfile.h's sys_temp_commit),
 * leaving each one whose content is already that (and its mtime) untouched,
 * so that build systems do not rebuild. */
int sys_write_files_if_changed(int n, const char *const *path, const char *const *data, const size_t *len,
                               lcm_err *err);
/* mkdir -p, all or nothing: when a folder cannot be made (a name too long,
 * a file in the way, no permission), those this call made before it are
 * removed again, deepest first, so that a failure leaves nothing behind. */
int sys_make_dirs(const char *path, lcm_err *err);
/* The folders that sys_make_dirs_listed made, outermost first, for a caller
 * that removes them again when what was to go in them fails later (lcm run
 * --out-dir).  Starts zeroed ({0}). */
typedef struct lcm_made_dirs {
    char **paths;
    int n;
} lcm_made_dirs;
/* sys_make_dirs, adding the folders it made to *made (on failure it has
 * removed them and adds none). */
int sys_make_dirs_listed(const char *path, lcm_made_dirs *made, lcm_err *err);
/* Removes the folders of made again, deepest first (one that something
 * else has put a file in stays), and frees the list. */
void sys_unmake_dirs(lcm_made_dirs *made);
/* Frees the list, keeping the folders. */
void sys_made_dirs_free(lcm_made_dirs *made);
int sys_file_exists(const char *path);
int sys_is_directory(const char *path);
/* '-' given where a folder is named (lcm --out-dir, --log-path, lcmgen
 * -o): it names standard output for a file, so it is refused, not made a
 * folder called '-'.  The usage error of option opt, or 0. */
int sys_refuse_dash_folder(const char *opt, const char *value, lcm_err *err);

#endif
