/* proc.c - see proc.h. */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tempfile.h"
#include "base.h"

extern char **environ;

/* environ with TMPDIR set to tmpdir (the array and that one string are the
 * caller's to free: *own). */
static char **environ_with_tmpdir(const char *tmpdir, char **own)
{
    size_t n = 0;
    while (environ[n]) ++n;
    char **env = base_xcalloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (strncmp(environ[i], "TMPDIR=", 7)) env[k++] = environ[i];
    env[k++] = *own = base_xasprintf("TMPDIR=%s", tmpdir);
    env[k] = NULL;
    return env;
}

int be_run_capture(char *const argv[], const char *tmpdir, char **output)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        *output = base_xasprintf("pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    sigset_t saved;
    sys_temp_hold_signals(&saved); /* an interrupt now waits until the program is registered */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &saved); /* the program's signals as this thread had them */
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    char *tmpdir_var = NULL, **env = tmpdir ? environ_with_tmpdir(tmpdir, &tmpdir_var) : environ;
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, env);
    if (tmpdir) free(env), free(tmpdir_var);
    if (rc == 0) sys_temp_add_child((int)pid);
    sys_temp_release_signals(&saved);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        *output = base_xasprintf("cannot run '%s': %s", argv[0], strerror(rc));
        return -1;
    }
    lcm_sb b;
    base_sb_init(&b);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        base_sb_putn(&b, buf, (size_t)n);
    }
    close(fds[0]);
    /* waited for unreaped first: until reaped the id is still the program's,
     * never another process's that the signal handler could hit */
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    sys_temp_wait_if_dying(); /* the handler, on another thread, still waits for the group */
    sys_temp_remove_child((int)pid);
    int status = 0, got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    *output = base_sb_take(&b);
    if (got < 0) return 0; /* ECHILD: reaped already (SIGCHLD ignored): no status to tell */
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? LCM_RUN_SIGNALED + WTERMSIG(status) : -1;
}
