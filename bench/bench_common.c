/* bench_common.c - see bench_common.h. */
#define _GNU_SOURCE
#include "bench_common.h"
#include "files.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

char *bench_cpu_name(void)
{
    char *info = sys_read_file("/proc/cpuinfo", NULL, NULL);
    char *name = NULL;
    char *p = info ? strstr(info, "model name") : NULL;
    if (p && (p = strchr(p, ':'))) name = base_xstrndup(p + 2, strcspn(p + 2, "\n"));
    free(info);
    return name ? name : base_xstrdup("unknown CPU");
}

void bench_die(const char *prog, const lcm_err *err)
{
    fprintf(stderr, "%s: %s\n", prog, err->msg);
    exit(err->code ? err->code : 1);
}

void bench_check_switches(const char *prog)
{
    lcm_err err = {0};
    if (base_env_switches_check(&err)) bench_die(prog, &err);
}

double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

void bench_stats(double *v, int n, double *min, double *median, double *max)
{
    *median = bench_median(v, n);
    *min = v[0], *max = v[n - 1];
}

char *bench_tempdir(const char *stem)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = base_xasprintf("%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", stem);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(5);
    }
    return dir;
}

void bench_rmdir(char *dir)
{
    char *argv[] = {"rm", "-rf", dir, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        execvp("rm", argv);
        _exit(127);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
    free(dir);
}

double bench_child(int argc, char **argv, const char *what, const char *cache_dir, double *figure)
{
    int fd[2];
    *figure = -1;
    if (pipe(fd)) return -1;
    char **args = base_xcalloc((size_t)argc + 3, sizeof *args);
    for (int i = 0; i < argc; ++i) args[i] = argv[i];
    args[argc] = "--child", args[argc + 1] = (char *)what;
    double t0 = base_now_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1), close(fd[0]), close(fd[1]);
        setenv("LCM_CACHE_DIR", cache_dir, 1);
        execv("/proc/self/exe", args);
        _exit(127);
    }
    free(args);
    close(fd[1]);
    char buf[4096];
    size_t len = 0;
    ssize_t r;
    while ((r = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)r;
    close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
    double t = base_now_seconds() - t0;
    buf[len] = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "the child process (%s) failed: %s\n", what, buf);
        return -1;
    }
    char *last = strrchr(buf, ':');
    if (last) *figure = atof(last + 1);
    return t;
}

int bench_model_arg(const char *prog, int argc, char **argv, int *i, bench_model_args *m)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : "";
    lcm_err err = {0};
    const int max = (int)(sizeof m->defs / sizeof *m->defs);
    if ((!strcmp(a, "-D") && m->ndefs == max) || (!strcmp(a, "--fix") && m->nfixes == max)) {
        base_fail(&err, LCM_E_USAGE, "at most %d %s options", max, a);
        bench_die(prog, &err);
    }
    if (!strcmp(a, "-D")) {
        if (lcmgen_parse_define(v, &m->defs[m->ndefs++], &err)) bench_die(prog, &err);
    } else if (!strcmp(a, "--fix")) { /* as lcm solve --fix: the value may come from --params */
        if (lcmgen_parse_fix(v, &m->fixes[m->nfixes++], &err)) bench_die(prog, &err);
    } else if (!strcmp(a, "--precision")) m->so.precision = atoi(v);
    else if (!strcmp(a, "--backend")) m->so.backend = lcm_backend_by_name(v);
    else if (!strcmp(a, "--threads")) m->so.threads = atoi(v);
    else if (!strcmp(a, "--device")) m->so.device = atoi(v);
    else return 0;
    ++*i;
    return 1;
}

void bench_model_args_free(bench_model_args *m)
{
    for (int i = 0; i < m->ndefs; ++i) free(m->defs[i].name), free(m->defs[i].value);
    for (int i = 0; i < m->nfixes; ++i) free(m->fixes[i].name), free(m->fixes[i].value);
}
