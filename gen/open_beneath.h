/* open_beneath.h - opening a file by a relative name that cannot leave its folder.
 *
 * Checking a path (realpath, then a prefix test) and opening it by name
 * again leaves a window: a folder on the way swapped for a symbolic link in
 * between (rename, renameat2 RENAME_EXCHANGE) makes the open read what the
 * check never saw.  So the name is walked one component at a time, each
 * opened relative to the descriptor of the folder before it with
 * O_NOFOLLOW: what is checked is what is opened.  A symbolic link met on the
 * way is read (readlinkat) and its target walked the same way from the
 * folder that holds it; an absolute target, or a ".." above the starting
 * folder, is refused.  ".." returns to the descriptor the walk came from,
 * not to whatever that folder's parent is by then.  This is Linux's openat2
 * RESOLVE_BENEATH, done in user space so that it holds on every kernel; at
 * most 40 links are followed, as the kernel does.
 */
#ifndef LCM_OPEN_BENEATH_H
#define LCM_OPEN_BENEATH_H

enum {
    BENEATH_OK,
    BENEATH_MISSING, /* a component does not exist (errno ENOENT or ENOTDIR) */
    BENEATH_OUTSIDE, /* the name, or a link on the way, leads out of the folder */
    BENEATH_FOLDER,  /* the name is the folder itself */
    BENEATH_ERROR    /* another failure; errno says which */
};

/* A descriptor of the folder dir to open names beneath (O_PATH: searching
 * it is enough, reading its list is not needed), or -1 with errno. */
int gen_open_folder(const char *dir);

/* Opens `name` (relative) beneath the folder open as dirfd, read-only,
 * non-blocking (a FIFO does not hang the open) and close-on-exec; *fd gets
 * the descriptor on BENEATH_OK (a folder's, when the name is one: the
 * caller checks the type).  dirfd stays open. */
int gen_open_beneath(int dirfd, const char *name, int *fd);

#endif
