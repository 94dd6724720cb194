/* cli.h - shared pieces of the lcm subcommands. */
#ifndef LCM_CLI_H
#define LCM_CLI_H

#include <stdio.h>

#include "lcm_internal.h"

/* A file that an input read: outputs must not replace it. */
typedef struct cli_read {
    const char *what; /* "a file the model loads", ... */
    char *path;
} cli_read;

/* Options every subcommand that takes a model understands. */
typedef struct cli_model_opts {
    const char *model;  /* MODEL.lua or a directory written by lcmgen */
    ir_option *defines; /* -D name=value */
    int ndefines;
    ir_option *fixes;   /* --fix path[=value]: the value may come from the parameters (core_params_take_fixes) */
    int nfixes;
    cli_read *read;     /* what the inputs read: a .lua model once generated (itself, require), a params or
                           initial conditions .lua file once run (dofile, require, read_file) */
    int nread;
} cli_model_opts;

/* Argument cursor: `--name value` and `--name=value` alike; the options
 * given so far that take one value. */
#define CLI_MAX_OPTIONS 32 /* more than any command has */
typedef struct cli_args {
    int argc, i;
    char **argv;
    const char *cmd;
    struct {
        const char *name, *value;
    } seen[CLI_MAX_OPTIONS];
    int nseen;
} cli_args;

/* If argv[i] is option `name`, stores its value (next or after '=') and
 * returns 1; a missing or empty value, or a second --name, is a usage error
 * (-1, err filled).  cli_each_value is for options that may be repeated
 * (--set). */
int cli_value(cli_args *a, const char *name, const char **value, lcm_err *err);
int cli_each_value(cli_args *a, const char *name, const char **value, lcm_err *err);
/* cli_value for an option that names a folder: '-', which names standard
 * output for a file, is a usage error (-1) rather than a folder called '-'. */
int cli_folder_value(cli_args *a, const char *name, const char **value, lcm_err *err);
/* Consumes -D name=value / -Dname=value, --fix path[=value] and
 * --trust-model into o. */
int cli_model_option(cli_args *a, cli_model_opts *o, int *matched, lcm_err *err);
int cli_int(const char *opt, const char *s, int lo, int hi, int *out, lcm_err *err);
/* A whole number from min to max, digits only (no sign: strtoull would
 * wrap "-1" round, and clamp what is too large); the message names the
 * range. */
int cli_count(const char *opt, const char *s, unsigned long long min, unsigned long long max, unsigned long long *out,
              lcm_err *err);
/* Consumes --backend, --precision, --device, --devices, --threads,
 * --log-level, --log-path, --log-keep, --progress and --no-progress (then
 * cli_progress_attach, progress_line.h, puts the progress line into so). */
int cli_solver_option(cli_args *a, lcm_solver_options *so, int *matched, lcm_err *err);

/* Generates (a .lua file: o->read gets its files) or opens (a directory)
 * the model. */
int cli_open_model(cli_model_opts *o, lcm_model **out, lcm_err *err);
/* Adds paths[n] (taken over, and the array freed) to o->read as `what`. */
void cli_note_read(cli_model_opts *o, const char *what, char **paths, int n);
void cli_model_opts_free(cli_model_opts *o);

/* A file a command reads or writes, named by the option that gave it. */
typedef struct cli_file {
    const char *option; /* "--csv", "--params", "the model", ... */
    const char *path;   /* NULL: not given */
    int output, csv;    /* written; a CSV output may be '-' (standard output) */
} cli_file;

/* Before any work: standard output ('-') only for one CSV output, and no
 * output is the same file as another output or an input (a directory input
 * stands for its files) -- compared as files: device and inode of those that
 * exist, the resolved folder and the name of those to be created.  Usage
 * errors naming both options.  An output named like the other format
 * (--out V.csv, --csv V.h5) is written as asked, with a warning. */
int cli_check_outputs(const cli_file *files, int n, lcm_err *err);
/* The same for the files the inputs read (mo->read), once they are read. */
int cli_check_loaded(const cli_model_opts *mo, const cli_file *files, int n, lcm_err *err);
/* Fails early when a file cannot be created in the directory of path. */
int cli_check_writable(const char *path, lcm_err *err);
/* Fails early when folder dir neither exists nor can be made (its nearest
 * existing ancestor is a file, or not writable). */
int cli_check_dir_creatable(const char *dir, lcm_err *err);

/* Standard output written so far reached it: 0, or LCM_E_IO (a full disk,
 * a closed pipe), for commands whose result is what they print. */
int cli_flush_stdout(lcm_err *err);

int cmd_solve(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_params_template(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_cache(int argc, char **argv);

int cli_die(const char *cmd, const lcm_err *err);

/* --euler [--euler-cutoff X] of lcm solve, simulate and run (euler_report.c). */
#define CLI_EULER_CUTOFF 0.02 /* Druedahl (2021)'s: savings below it count as at the limit */
typedef struct cli_euler {
    int on, cutoff_given;
    double cutoff;
} cli_euler;
/* Consumes --euler or --euler-cutoff X (*matched). */
int cli_euler_option(cli_args *a, cli_euler *e, int *matched, lcm_err *err);
/* A usage error for a cutoff without --euler, or --euler in an MPI job. */
int cli_euler_check(const cli_euler *e, lcm_err *err);
/* With --euler: the Euler errors on the grid (and along the panel, which
 * gets the column euler_error, unless NULL) as a table on `to`. */
int cli_euler_report(const cli_euler *e, const lcm_model *model, lcm_solver *sv, const lcm_solution *sol,
                     lcm_panel *panel, FILE *to, lcm_err *err);
/* The line the default log level (info) prints when a command succeeded:
 * what was done, then where each output went (NULL entries are skipped;
 * "-" is standard output).  It takes the progress line's place. */
void cli_report(const char *done, const char *const *outputs, int n);

#endif
