/* Temporaries (ir/tempfile.c) and the all-or-none commit of outputs
 * (runtime/io/output.c): the names, a taken name, removal by a signal (and an
 * ignored signal left ignored), renames that all happen or none, and a batch
 * of outputs that leaves the earlier files when one of them fails; the
 * folder and stem of paths outputs are named after (ir/sys/files.c); a helper
 * program run on a thread of a host (runtime/backends/proc.c) that a
 * signal to the host ends before the host does. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "output.h"
#include "proc.h"
#include "tempfile.h"
#include "tempname.h"
#include "testlib.h"

/* A creator that finds the name taken `taken` times first. */
static int taken;
static int busy_then_create(const char *name, void *ctx)
{
    if (taken > 0) return --taken, EEXIST;
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) return errno;
    *(int *)ctx = fd;
    return 0;
}

static int temporaries_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

static int holds(const char *path, const char *text)
{
    char *s = sys_read_file(path, NULL, NULL);
    int same = s && !strcmp(s, text);
    free(s);
    return same;
}

static void put(const char *path, const char *text)
{
    lcm_err err = {0};
    CHECK_OK(sys_write_file_atomic(path, text, strlen(text), &err));
}

/* A child writes a temporary, then gets `sig`; returns its wait status. */
static int signalled_child(const char *path, int sig, int ignore)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (ignore) signal(sig, SIG_IGN);
        char *tmp;
        int fd;
        if (sys_temp_open(path, &tmp, &fd, NULL) || write(fd, "partial", 7) != 7) _exit(3);
        raise(sig);
        sys_temp_discard(tmp); /* only reached when the signal is ignored */
        _exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
}

/* A CSV output of the current batch holding `text`, or failing. */
static int csv_output(const char *path, const char *text, int failed, lcm_err *err)
{
    char *tmp;
    FILE *f = io_output_open_csv(path, &tmp, err);
    if (!f) return err->code;
    fputs(text, f);
    return io_output_commit_csv(f, tmp, path, failed, err);
}

/* dirname and stem as the shell's dirname and basename see them: a
 * trailing slash names the folder itself (lcm run gen/ is lcm run gen). */
static void check_path(const char *path, const char *dir, const char *stem)
{
    char *d = base_path_dirname(path), *s = base_path_stem(path);
    CHECK_MSG(!strcmp(d, dir) && !strcmp(s, stem), "'%s': dirname '%s' stem '%s', expected '%s' '%s'", path, d, s,
              dir, stem);
    free(d), free(s);
}

static void test_paths(void)
{
    check_path("a/b/model.lua", "a/b", "model");
    check_path("model.lua", ".", "model");
    check_path("gen_tiny/", ".", "gen_tiny");
    check_path("out/gen_tiny//", "out", "gen_tiny");
    check_path("a//b.x.lua", "a", "b.x");
    check_path("/model.lua", "/", "model");
    check_path("/", "/", "");
    check_path(".hidden", ".", ".hidden");
}

/* ---- a helper program on a host's thread ------------------------------------
 * A "compiler" whose driver dies at once by SIGTERM while its cc1 (a child
 * that traps it) takes 0.3 s to end and then writes into TMPDIR, as gcc's
 * may.  The host runs it on a thread of its own and waits in pthread_join;
 * the signal to the host lands on the main thread.  The host must end by
 * the signal only after the whole compiler has, leaving no folder: before,
 * the thread saw the driver gone and took it out of the handler's table
 * while the handler waited, so the host died with cc1 running (or the
 * thread reported status 0 for a killed compiler). */
static char scratch[4096];

static void *run_compiler(void *arg)
{
    char *argv[] = {"/bin/sh", "-c", (char *)arg, NULL}, *out = NULL;
    int st = be_run_capture(argv, scratch, &out);
    fprintf(stderr, "the compiler's status came back: %d\n", st); /* never, when the signal works */
    free(out);
    _exit(3);
}

static void test_threaded_host(const char *dir)
{
    char *pidfile = base_path_join(dir, "cc1.pid");
    unlink(pidfile);
    char *script = base_xasprintf("sh -c 'trap \"sleep 0.3; echo left > \\\"$TMPDIR/ccLeft.s\\\"; exit 1\" TERM; "
                                 "echo $$ > %s; while :; do sleep 0.05; done'; echo finished",
                                 pidfile);
    snprintf(scratch, sizeof scratch, "%s/lcm-cc-XXXXXX", dir);
    CHECK(mkdtemp(scratch) != NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sys_temp_register_scratch(scratch);
        pthread_t t;
        pthread_create(&t, NULL, run_compiler, script);
        pthread_join(t, NULL);
        _exit(4);
    }
    /* the pid written: the file exists once the shell opens it, and holds
     * the whole line only once the shell has written it (polled, not slept
     * for: a loaded machine may let the shell wait) */
    const struct timespec tick = {0, 10 * 1000 * 1000};
    int cc1 = 0;
    for (int i = 0; i < 1000 && cc1 <= 0; ++i) {
        char *text = sys_read_file(pidfile, NULL, NULL);
        if (text && strchr(text, '\n')) cc1 = atoi(text);
        free(text);
        if (cc1 <= 0) nanosleep(&tick, NULL);
    }
    CHECK_MSG(cc1 > 0, "the compiler started");
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "the host ends by SIGTERM (status %d)", status);
    char *stat = cc1 > 0 ? base_xasprintf("/proc/%d/stat", cc1) : NULL;
    char *cc1_stat = stat ? sys_read_file(stat, NULL, NULL) : NULL;
    const char *paren = cc1_stat ? strrchr(cc1_stat, ')') : NULL;
    int cc1_alive = paren && paren[2] != 'Z';
    CHECK_MSG(!cc1_alive, "the compiler's cc1 ended before the host did");
    CHECK_MSG(!sys_file_exists(scratch), "the compile folder %s is gone", scratch);
    if (cc1_alive) kill(cc1, SIGKILL); /* only then: a pid that ended may be someone else's by now */
    free(cc1_stat), free(stat), free(script), free(pidfile);
}

/* ---- the temporaries a killed run left (ir/tempname.h) ---------------------- */
static void plant_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    CHECK(fd >= 0 && write(fd, "half", 4) == 4);
    if (fd >= 0) close(fd);
}

/* A run into a name removes the stale temporaries of that name (a dead
 * process's; a live process's whose pid was given to another since) and
 * leaves every other: a live process's, another boot's, another name's, a
 * folder or link under such a name, a name that is not lcm's. */
static void test_stale(const char *dir)
{
    char *a = base_xasprintf("%s/stale.csv", dir), *other = base_xasprintf("%s/other.csv", dir);
    char *dead = test_dead_temp_name(a), *dead_folder = test_dead_temp_name(a), *dead_link = test_dead_temp_name(a);
    char *dead_other = test_dead_temp_name(other), *live = sys_temp_name(a);
    CHECK(dead && dead_folder && dead_link && dead_other);
    if (!dead || !dead_folder || !dead_link || !dead_other) return;
    const char *tag = live + strlen(a) + 5;
    char host[17], rnd[16];
    long pid = 0;
    long long start = 0;
    CHECK(sscanf(tag, "%16[0-9a-f].%ld.%lld.%15s", host, &pid, &start, rnd) == 4);
    char *reused = base_xasprintf("%s.tmp.%s.%ld.%lld.%s", a, host, pid, start + 1, rnd); /* our pid, earlier */
    char *other_boot = base_xasprintf("%s.tmp.%c%s.%ld.%lld.%s", a, host[0] == 'f' ? 'e' : 'f', host + 1, pid,
                                     start + 1, rnd);
    char *not_ours = base_xasprintf("%s.tmp.0123456789", a); /* an older lcm's name: its maker unknown */
    plant_file(dead), plant_file(dead_other), plant_file(live), plant_file(reused), plant_file(other_boot);
    plant_file(not_ours);
    CHECK(mkdir(dead_folder, 0777) == 0 && symlink(live, dead_link) == 0);
    CHECK(temporaries_in(dir) == 8);
    put(a, "new");
    CHECK(!sys_file_exists(dead) && !sys_file_exists(reused));
    CHECK(sys_file_exists(live) && sys_file_exists(other_boot) && sys_file_exists(not_ours) &&
          sys_file_exists(dead_other) && sys_is_directory(dead_folder));
    struct stat st;
    CHECK(lstat(dead_link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(temporaries_in(dir) == 6 && holds(a, "new"));
    put(other, "new"); /* its own name's */
    CHECK(!sys_file_exists(dead_other) && temporaries_in(dir) == 5);
    unlink(live), unlink(other_boot), unlink(not_ours), unlink(dead_link), rmdir(dead_folder), unlink(a), unlink(other);
    CHECK(temporaries_in(dir) == 0);
    free(a), free(other), free(dead), free(dead_folder), free(dead_link), free(dead_other), free(live);
    free(reused), free(other_boot), free(not_ours);
}

int main(void)
{
    test_paths();
    char *dir = test_tmpdir("tempfile");
    char *a = base_path_join(dir, "a.csv"), *b = base_path_join(dir, "b.csv"), *sub = base_path_join(dir, "sub");
    lcm_err err = {0};
    char *tmp, *tmp2;
    int fd;

    /* first, in children that installed nothing before: a signal removes the
     * temporaries and ends the process as the signal does; an ignored one
     * stays ignored */
    int status = signalled_child(a, SIGTERM, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    status = signalled_child(a, SIGINT, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    CHECK(temporaries_in(dir) == 0 && !sys_file_exists(a));
    status = signalled_child(a, SIGHUP, 1);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(temporaries_in(dir) == 0);
    test_threaded_host(dir);

    /* the name: the target's, ".tmp.", the boot and pid namespace (16 hex
     * digits), the process's id and start time, ten random characters */
    CHECK_OK(sys_temp_open(a, &tmp, &fd, &err));
    CHECK_OK(sys_temp_open(a, &tmp2, &fd, &err));
    size_t n = strlen(a);
    char host[17], rnd[16];
    long pid = 0;
    long long start = -1;
    CHECK(!strncmp(tmp, a, n) && !strncmp(tmp + n, ".tmp.", 5) && strcmp(tmp, tmp2) &&
          sscanf(tmp + n + 5, "%16[0-9a-f].%ld.%lld.%15s", host, &pid, &start, rnd) == 4 && strlen(host) == 16 &&
          pid == (long)getpid() && start > 0 && strlen(rnd) == 10);
    sys_temp_discard(tmp), sys_temp_discard(tmp2);
    CHECK(temporaries_in(dir) == 0);
    test_stale(dir);

    /* a taken name: another is tried, up to a point */
    taken = 3;
    CHECK_OK(sys_temp_create(a, busy_then_create, &fd, &tmp, &err));
    close(fd), sys_temp_discard(tmp);
    taken = 1000;
    CHECK(sys_temp_create(a, busy_then_create, &fd, &tmp, &err) == LCM_E_IO && strstr(err.msg, "File exists") && !tmp);

    /* commit: every temporary renamed ... */
    put(a, "old a"), put(b, "old b");
    char *tmps[2];
    const char *paths[2] = {a, b};
    CHECK_OK(sys_temp_open(a, &tmps[0], &fd, &err));
    CHECK(write(fd, "new a", 5) == 5);
    close(fd);
    CHECK_OK(sys_temp_open(b, &tmps[1], &fd, &err));
    CHECK(write(fd, "new b", 5) == 5);
    close(fd);
    CHECK_OK(sys_temp_commit(tmps, paths, 2, &err));
    CHECK(holds(a, "new a") && holds(b, "new b") && temporaries_in(dir) == 0);
    /* ... or none, when one target cannot take it (a folder came in the way) */
    CHECK(mkdir(sub, 0777) == 0);
    paths[1] = sub;
    CHECK_OK(sys_temp_open(a, &tmps[0], &fd, &err));
    close(fd);
    CHECK_OK(sys_temp_open(sub, &tmps[1], &fd, &err));
    close(fd);
    CHECK(sys_temp_commit(tmps, paths, 2, &err) == LCM_E_IO && strstr(err.msg, "sub"));
    CHECK(holds(a, "new a") && sys_is_directory(sub) && temporaries_in(dir) == 0);

    /* a batch of outputs: held back until its end, then all or none */
    io_outputs_begin();
    CHECK_OK(csv_output(a, "batch a", 0, &err));
    CHECK(holds(a, "new a") && temporaries_in(dir) == 1);
    CHECK(csv_output(b, "batch b", 1, &err) == LCM_E_IO && strstr(err.msg, "b.csv"));
    CHECK(io_outputs_end(err.code, &err) == LCM_E_IO);
    CHECK(holds(a, "new a") && holds(b, "new b") && temporaries_in(dir) == 0);
    io_outputs_begin();
    CHECK_OK(csv_output(a, "batch a", 0, &err));
    CHECK_OK(csv_output(b, "batch b", 0, &err));
    CHECK(holds(a, "new a"));
    CHECK_OK(io_outputs_end(0, &err));
    CHECK(holds(a, "batch a") && holds(b, "batch b") && temporaries_in(dir) == 0);
    /* without a batch an output is in place at once */
    CHECK_OK(csv_output(a, "alone", 0, &err));
    CHECK(holds(a, "alone") && temporaries_in(dir) == 0);
    /* HDF5 cannot go to standard output */
    CHECK(io_output_create_h5("-", &tmp, &err) < 0 && err.code == LCM_E_USAGE);

    unlink(a), unlink(b), rmdir(sub);
    free(a), free(b), free(sub), free(dir);
    return check_failures;
}
