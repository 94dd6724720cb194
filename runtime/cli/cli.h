/* cli.h - shared pieces of the lcm subcommands. */
#ifndef LCM_CLI_H
#define LCM_CLI_H

#include "lcm.h"

/* Options every subcommand that takes a model understands. */
typedef struct cli_model_opts {
    const char *model;  /* MODEL.lua or a directory written by lcmgen */
    ir_option *defines; /* -D name=value */
    int ndefines;
} cli_model_opts;

/* Argument cursor: `--name value` and `--name=value` alike. */
typedef struct cli_args {
    int argc, i;
    char **argv;
    const char *cmd;
} cli_args;

/* If argv[i] is option `name`, stores its value (next or after '=') and
 * returns 1; a missing value is a usage error (-1, err filled). */
int cli_value(cli_args *a, const char *name, const char **value, lcm_err *err);
/* Consumes -D name=value / -Dname=value into o. */
int cli_define(cli_args *a, cli_model_opts *o, int *matched, lcm_err *err);
int cli_int(const char *opt, const char *s, int lo, int hi, int *out, lcm_err *err);
/* Consumes --backend, --precision, --device, --devices, --threads,
 * --log-level, --log-path and --log-keep. */
int cli_solver_option(cli_args *a, lcm_solver_options *so, int *matched, lcm_err *err);

/* Generates (a .lua file) or opens (a directory) the model. */
int cli_open_model(const cli_model_opts *o, lcm_model **out, lcm_err *err);
void cli_model_opts_free(cli_model_opts *o);

/* Fails early when a file cannot be created in the directory of path. */
int cli_check_writable(const char *path, lcm_err *err);

int cmd_solve(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_params_template(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_cache(int argc, char **argv);

int cli_die(const char *cmd, const lcm_err *err);

#endif
