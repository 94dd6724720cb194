/* tempfile.c - see tempfile.h.
 *
 * The signal handler may only make async-signal-safe calls (kill,
 * nanosleep, open, read, getdents64, unlink, rmdir, sigaction,
 * sigprocmask, raise) and pure string functions, and read lock-free
 * atomics, so the registry is a fixed
 * table of name buffers, each with an atomic state: a slot is filled before it
 * is marked live and marked free before it is filled again.  Linux hands a
 * process-directed signal to the main thread when it can, which is the
 * thread that writes outputs; the atomics keep the handler right when
 * another thread takes it.  A temporary is registered right after it is
 * created (never before: the handler must not remove a file that is not
 * ours), so a signal in between, a window of a few instructions, can still
 * leave one behind. */
#define _GNU_SOURCE /* syscall */
#include "tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "path.h"
#include "tempname.h"

/* ---- the registry ------------------------------------------------------- */
enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };
#define TEMP_SLOTS 64 /* live at once: a run's three outputs, a compile's folder and two files */

static struct {
    atomic_int state;
    int scratch; /* a folder of our own: emptied before it is removed */
    char name[PATH_MAX];
} slots[TEMP_SLOTS];

#define CHILD_SLOTS 8 /* helper programs running at once: one per thread that compiles */
static atomic_int children[CHILD_SLOTS]; /* their process ids, 0 for a free slot */

static atomic_int renaming; /* temp_commit calls between their first and last rename */
static atomic_int dying;    /* a signal is removing the temporaries */
static atomic_int deferred; /* a signal that came during renames: raised after them */
static atomic_int installed;

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};

/* The helper programs' process groups, taken when the handler begins: a
 * thread that waits for one may take it out of the table meanwhile. */
typedef struct groups {
    int pid[CHILD_SLOTS];
    int n;
} groups;

static void take_groups(groups *g)
{
    g->n = 0;
    for (int i = 0; i < CHILD_SLOTS; ++i) {
        int pid = atomic_load(&children[i]);
        if (pid > 0) g->pid[g->n++] = pid;
    }
}

/* The signal to every helper program's group: a compiler driver does not
 * pass it on to its cc1 or ld. */
static void signal_groups(const groups *g, int sig)
{
    for (int i = 0; i < g->n; ++i) kill(-g->pid[i], sig);
}

/* The number at *p (advanced past it), or -1. */
static long read_number(const char **p)
{
    long x = -1;
    for (; **p >= '0' && **p <= '9'; ++*p) x = (x < 0 ? 0 : x * 10) + (**p - '0');
    return x;
}

/* Whether process `pid` (a name in /proc, open as proc) is a live member
 * of group pgid: its stat reads "pid (comm) state ppid pgrp ...", comm
 * anything up to the last ')'. */
static int live_member(int proc, const char *pid, int pgid)
{
    size_t k = strlen(pid);
    char path[40], stat[512];
    if (k > 20) return 0;
    memcpy(path, pid, k), memcpy(path + k, "/stat", 6);
    int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) return 0;
    stat[n] = 0;
    const char *p = strrchr(stat, ')');
    if (!p || p[1] != ' ' || !p[2] || p[3] != ' ') return 0;
    const char state = p[2];
    p += 4;
    if (read_number(&p) < 0 || *p++ != ' ') return 0; /* ppid */
    return read_number(&p) == pgid && state != 'Z' && state != 'X';
}

/* Calls fn(dir, name, ctx) for the names in the open folder dir from its
 * start, by getdents64 (the handler may not use readdir), until fn returns
 * non-zero; returns that, or 0. */
static int each_name(int dir, int (*fn)(int dir, const char *name, void *ctx), void *ctx)
{
    char buf[4096];
    long n;
    int stop = 0;
    lseek(dir, 0, SEEK_SET);
    while (!stop && (n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
        for (long at = 0; at < n && !stop;) {
            /* struct linux_dirent64: inode 8 bytes, offset 8, record length 2, type 1, the name */
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            const char *name = buf + at + 19;
            if (strcmp(name, ".") && strcmp(name, "..")) stop = fn(dir, name, ctx);
            at += reclen;
        }
    return stop;
}

/* Whether /proc entry `name` is a live process of the group at *ctx. */
static int is_live_member(int proc, const char *name, void *ctx)
{
    return name[0] >= '1' && name[0] <= '9' && live_member(proc, name, *(const int *)ctx);
}

/* Whether process group pgid has a process that is not a zombie.  kill(-pgid,
 * 0) counts zombies too, and a compiler driver's cc1, orphaned when the
 * driver dies, stays one until whoever adopts it reaps it (in a container,
 * maybe never), so /proc tells. */
static int group_alive(int pgid)
{
    if (kill(-pgid, 0) != 0) return 0;
    int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0) return 1; /* no /proc: zombies count */
    int alive = each_name(proc, is_live_member, &pgid);
    close(proc);
    return alive;
}

static int groups_alive(const groups *g)
{
    for (int i = 0; i < g->n; ++i)
        if (group_alive(g->pid[i])) return 1;
    return 0;
}

/* Waits until the helper programs' groups have ended, as they do at once
 * when the signal ends them, and kills what is left after two seconds
 * (waiting one more at most): their files are in our folders (the
 * compiler's TMPDIR is its scratch folder), which are removed next, and no
 * compiler outlives lcm. */
static void wait_for_groups(const groups *g)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 300 && groups_alive(g); ++i) {
        if (i == 200) signal_groups(g, SIGKILL);
        nanosleep(&tick, NULL);
    }
}

/* Removes `name` from dir, noting in *ctx that one was. */
static int remove_name(int dir, const char *name, void *ctx)
{
    if (unlinkat(dir, name, 0) == 0) *(int *)ctx = 1;
    return 0;
}

/* Removes what a scratch folder holds (one level: what a compiler puts in
 * its TMPDIR), by the system calls the handler may make. */
static void empty_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    /* passes over the names until one removes nothing: removing while
     * reading may make the reading skip a name */
    for (int pass = 0, removed = 1; removed && pass < 8; ++pass) {
        removed = 0;
        each_name(fd, remove_name, &removed);
    }
    close(fd);
}

/* The handler's work: the signal to the helper programs' groups and the
 * wait for them, then the files, then the folders they leave empty (rmdir
 * of a file and unlink of a folder fail, harmlessly). */
static void remove_all(int sig)
{
    groups g;
    take_groups(&g);
    signal_groups(&g, sig);
    signal_groups(&g, SIGCONT); /* a group Ctrl-Z stopped acts on it only once continued */
    wait_for_groups(&g);
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (atomic_load(&slots[i].state) == SLOT_LIVE) {
            if (slots[i].scratch) empty_folder(slots[i].name);
            else unlink(slots[i].name);
        }
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (atomic_load(&slots[i].state) == SLOT_LIVE) rmdir(slots[i].name);
}

static struct sigaction default_action; /* SIG_DFL, set up with the handlers */

static void die_by(int sig)
{
    remove_all(sig);
    sigaction(sig, &default_action, NULL);
    raise(sig); /* blocked inside the handler: delivered as it returns */
}

static void on_signal(int sig)
{
    int saved = errno;
    atomic_store(&dying, 1);
    if (atomic_load(&renaming) > 0) {
        atomic_store(&deferred, sig); /* let the renames finish: all outputs new */
        errno = saved;
        return;
    }
    die_by(sig);
    errno = saved;
}

/* Ctrl-Z: the helper programs' groups stop too (theirs are not the
 * terminal's foreground group, which the terminal stops), then lcm stops by
 * the default action; when it is continued, so are they. */
static void on_stop(int sig)
{
    int saved = errno;
    groups g;
    take_groups(&g);
    signal_groups(&g, SIGTSTP);
    struct sigaction own;
    sigaction(sig, &default_action, &own);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    raise(sig);                                   /* pending while the handler blocks it */
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);     /* delivered: lcm stops here, until SIGCONT */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    sigaction(sig, &own, NULL);
    signal_groups(&g, SIGCONT);
    errno = saved;
}

static void install_handler(int sig, void (*handler)(int))
{
    struct sigaction old, sa;
    if (sigaction(sig, NULL, &old) != 0) return;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) return; /* ignored or someone's */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void install_handlers(void)
{
    if (atomic_exchange(&installed, 1)) return;
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; ++i)
        install_handler(cleanup_signals[i], on_signal);
}

static int track(const char *name, int scratch)
{
    install_handlers();
    if (strlen(name) >= PATH_MAX) return -1;
    for (int i = 0; i < TEMP_SLOTS; ++i) {
        int free_state = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&slots[i].state, &free_state, SLOT_FILLING)) continue;
        memcpy(slots[i].name, name, strlen(name) + 1); /* fits: checked by temp_create */
        slots[i].scratch = scratch;
        atomic_store(&slots[i].state, SLOT_LIVE);
        return 0;
    }
    return -1;
}

static void untrack(const char *name)
{
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (atomic_load(&slots[i].state) == SLOT_LIVE && !strcmp(slots[i].name, name)) {
            atomic_store(&slots[i].state, SLOT_FREE);
            return;
        }
}

/* ---- names and creation --------------------------------------------------- */
/* Removes the temporaries of path that a killed run left (tempname.h):
 * a run into the same name cleans up after the one before. */
static void sweep_stale(const char *path)
{
    char *dir = base_path_dirname(path);
    const char *slash = strrchr(path, '/');
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) sys_temp_sweep(fd, slash ? slash + 1 : path), close(fd);
    free(dir);
}

int sys_temp_create(const char *path, temp_creator create, void *ctx, char **tmp, lcm_err *err)
{
    *tmp = NULL;
    if (strlen(path) + 64 >= PATH_MAX) return base_fail(err, LCM_E_IO, "cannot create '%s': the name is too long", path);
    sweep_stale(path);
    int why = EEXIST;
    for (int attempt = 0; attempt < 100 && why == EEXIST; ++attempt) {
        char *name = sys_temp_name(path); /* unguessable: a squatter on a name fails O_EXCL, another is drawn */
        why = create(name, ctx);
        if (!why && track(name, 0) != 0) {
            unlink(name);
            free(name);
            return base_fail(err, LCM_E_INTERNAL, "cannot create '%s': more than %d temporary files at once", path,
                            TEMP_SLOTS);
        }
        if (!why) {
            *tmp = name;
            return 0;
        }
        free(name);
    }
    return base_fail(err, LCM_E_IO, "cannot create '%s' (does the directory exist and is it writable?): %s", path,
                    strerror(why));
}

static int open_exclusive(const char *name, void *ctx)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) return errno;
    *(int *)ctx = fd;
    return 0;
}

int sys_temp_open(const char *path, char **tmp, int *fd, lcm_err *err)
{
    return sys_temp_create(path, open_exclusive, fd, tmp, err);
}

int sys_temp_sync(const char *tmp)
{
    int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno;
    int why = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
    close(fd);
    return why;
}

void sys_temp_discard(char *tmp)
{
    if (!tmp) return;
    untrack(tmp);
    unlink(tmp);
    free(tmp);
}

/* ---- committing ------------------------------------------------------------ */
/* The renames are on disk once their folder is synced (best effort: some
 * file systems cannot sync a folder). */
static void sync_folder(const char *path)
{
    char *dir = base_path_dirname(path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) fsync(fd), close(fd);
    free(dir);
}

/* Ends a commit's renaming; raises a signal that came during it. */
static void end_renaming(void)
{
    if (atomic_fetch_sub(&renaming, 1) == 1 && atomic_load(&deferred)) die_by(atomic_load(&deferred));
}

/* Two runs that write the same outputs at once must not leave a mixed set
 * (one's V.h5 beside the other's V.csv): a batch of several renames runs
 * under an exclusive lock (flock) on each of its folders, taken in the order
 * of (device, inode), so that two batches never wait for each other in a
 * circle; the lock goes with the descriptor, also when the process dies.
 * Best effort: a folder that cannot be locked (a file system without flock)
 * is renamed into without. */
typedef struct folder_lock {
    dev_t dev;
    ino_t ino;
    int fd;
} folder_lock;

static int by_inode(const void *a, const void *b)
{
    const folder_lock *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Locks the folders of path[0..n-1] (each once); *locks gets them, the
 * number is returned (for unlock_folders). */
static int lock_folders(const char *const *path, int n, folder_lock **locks)
{
    folder_lock *l = base_xcalloc((size_t)n + 1, sizeof *l);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        char *dir = base_path_dirname(path[i]);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(dir);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) {
            if (fd >= 0) close(fd);
            continue; /* the rename will say what is wrong */
        }
        int seen = 0;
        for (int j = 0; j < k && !seen; ++j) seen = l[j].dev == st.st_dev && l[j].ino == st.st_ino;
        if (seen) close(fd);
        else l[k++] = (folder_lock){st.st_dev, st.st_ino, fd};
    }
    qsort(l, (size_t)k, sizeof *l, by_inode);
    for (int j = 0; j < k; ++j)
        while (flock(l[j].fd, LOCK_EX) != 0 && errno == EINTR) continue;
    *locks = l;
    return k;
}

static void unlock_folders(folder_lock *l, int k)
{
    for (int j = 0; j < k; ++j) close(l[j].fd); /* the lock goes with the descriptor */
    free(l);
}

/* Whether files a and b hold the same bytes (a missing or unreadable one:
 * no). */
static int same_content(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fa ? fopen(b, "rb") : NULL;
    int same = fa && fb;
    char x[1 << 14], y[1 << 14];
    while (same) {
        size_t na = fread(x, 1, sizeof x, fa), nb = fread(y, 1, sizeof y, fb);
        same = na == nb && memcmp(x, y, na) == 0 && !ferror(fa) && !ferror(fb);
        if (na < sizeof x) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* temp_commit and temp_commit_changed: with keep_same, a path that holds
 * its temporary's bytes already is left as it is (the temporary removed),
 * decided under the lock, so that the set of paths is one writer's. */
static int commit(char **tmp, const char *const *path, int n, int keep_same, lcm_err *err)
{
    int rc = 0;
    folder_lock *locks = NULL;
    int nlocks = n > 1 ? lock_folders(path, n, &locks) : 0; /* one rename is one step already */
    /* what makes a rename fail -- a directory or the like come in the way
     * since the run began -- is looked for before the first one */
    for (int i = 0; i < n && !rc; ++i) rc = sys_check_output_path(path[i], err);
    unsigned char *keep = base_xcalloc((size_t)n + 1, 1); /* compared before the renames: their window stays short */
    for (int i = 0; i < n && !rc && keep_same; ++i) keep[i] = (unsigned char)same_content(tmp[i], path[i]);
    atomic_fetch_add(&renaming, 1);
    if (!rc && n && atomic_load(&dying)) rc = base_fail(err, LCM_E_IO, "interrupted before '%s' was written", path[0]);
    for (int i = 0; i < n; ++i) {
        if (!rc && !keep[i] && rename(tmp[i], path[i]) != 0)
            rc = base_fail(err, LCM_E_IO, "cannot move '%s' onto '%s': %s%s", tmp[i], path[i], strerror(errno),
                          i ? " (the outputs before it were replaced already)" : "");
        if (rc || keep[i]) {
            sys_temp_discard(tmp[i]);
        } else {
            untrack(tmp[i]);
            free(tmp[i]);
        }
        tmp[i] = NULL;
    }
    end_renaming();
    unlock_folders(locks, nlocks);
    free(keep);
    for (int i = 0; i < n && !rc; ++i) sync_folder(path[i]);
    return rc;
}

int sys_temp_commit(char **tmp, const char *const *path, int n, lcm_err *err)
{
    return commit(tmp, path, n, 0, err);
}

int sys_temp_commit_changed(char **tmp, const char *const *path, int n, lcm_err *err)
{
    return commit(tmp, path, n, 1, err);
}

/* ---- what the cpu compile leaves while it runs ----------------------------- */
int sys_temp_register_scratch(const char *dir) { return track(dir, 1); }

void sys_temp_unregister(const char *path) { untrack(path); }

/* The Ctrl-Z handler is there only while a helper program runs: a handled
 * SIGTSTP makes a host's sleep or poll return early (EINTR), and a host
 * that handles it itself installs its handler only over the default. */
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static int running; /* helper programs added and not yet removed */

void sys_temp_add_child(int pid)
{
    install_handlers();
    pthread_mutex_lock(&running_lock);
    if (running++ == 0) install_handler(SIGTSTP, on_stop);
    pthread_mutex_unlock(&running_lock);
    for (int i = 0; i < CHILD_SLOTS; ++i) {
        int none = 0;
        if (atomic_compare_exchange_strong(&children[i], &none, pid)) return;
    }
    /* more than CHILD_SLOTS at once: this one is not passed the signal */
}

void sys_temp_remove_child(int pid)
{
    for (int i = 0; i < CHILD_SLOTS; ++i) {
        int own = pid;
        if (atomic_compare_exchange_strong(&children[i], &own, 0)) break;
    }
    pthread_mutex_lock(&running_lock);
    struct sigaction now;
    if (--running == 0 && sigaction(SIGTSTP, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
        now.sa_handler == on_stop)
        sigaction(SIGTSTP, &default_action, NULL);
    pthread_mutex_unlock(&running_lock);
}

void sys_temp_wait_if_dying(void)
{
    while (atomic_load(&dying)) pause();
}

void sys_temp_hold_signals(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; ++i) sigaddset(&set, cleanup_signals[i]);
    sigaddset(&set, SIGTSTP);
    pthread_sigmask(SIG_BLOCK, &set, saved);
}

void sys_temp_release_signals(const sigset_t *saved) { pthread_sigmask(SIG_SETMASK, saved, NULL); }
