/* bench_common.h - what the benchmarks share: medians, the CPU's name,
 * peak host memory, errors. */
#ifndef LCM_BENCH_COMMON_H
#define LCM_BENCH_COMMON_H

#include "initial.h"
#include "lcm_internal.h"
#include "log.h"
#include "params.h"
#include "lcmgen.h"

/* The median of v[0, n) (sorts v). */
double bench_median(double *v, int n);
/* min, median and max of v[0, n) (sorts v). */
void bench_stats(double *v, int n, double *min, double *median, double *max);
/* A temporary directory (caller removes it with bench_rmdir and frees). */
char *bench_tempdir(const char *stem);
void bench_rmdir(char *dir);
/* Runs this program again, a fresh process, as `argv[0] args... --child
 * what` with LCM_CACHE_DIR=cache_dir; returns its whole wall time in
 * seconds (from before fork to after exit; < 0 when it failed) and the
 * figure it printed on its last line in *figure (or -1). */
double bench_child(int argc, char **argv, const char *what, const char *cache_dir, double *figure);
/* The CPU's model name (caller frees). */
char *bench_cpu_name(void);
/* The options of the model and its solver that every benchmark takes. */
typedef struct bench_model_args {
    ir_option defs[16], fixes[16]; /* -D name=value, --fix path[=value] */
    int ndefs, nfixes;
    lcm_solver_options so; /* --precision, --backend, --threads, --device */
} bench_model_args;

/* Takes argv[*i] (and its value, argv[*i + 1]) into *m when it is one of
 * bench_model_args' options: 1, with *i on the value; else 0.  A -D or
 * --fix that does not parse ends the program (bench_die, as prog). */
int bench_model_arg(const char *prog, int argc, char **argv, int *i, bench_model_args *m);
/* Frees what bench_model_arg took (the -D and --fix strings). */
void bench_model_args_free(bench_model_args *m);

/* Prints "<prog>: <message>" and exits with the error's code. */
void bench_die(const char *prog, const lcm_err *err);
/* The environment's switches (LCM_TRUST_MODEL, LCM_NO_TABLES, ...) checked
 * before anything reads one: a bad value ends the program (bench_die). */
void bench_check_switches(const char *prog);
/* Peak resident host memory of this process, MiB. */
double bench_peak_rss_mib(void);

#endif
