/* lcm_main.c - the `lcm` command: solve, simulate and inspect models. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "comm.h"

static const char usage[] =
    "usage: lcm <command> [options]\n"
    "\n"
    "commands:\n"
    "  solve             backward induction: V of every regime and period\n"
    "  simulate          a panel of subjects from initial conditions, with optimal choices\n"
    "  run               solve and simulate a model with its bundled parameters and initial conditions\n"
    "  params-template   print a params file to fill in\n"
    "  compile           build a model's solver into the cache (GPU kernels without a GPU)\n"
    "  cache             list, inspect or clear the solver cache\n"
    "\n"
    "MODEL is a .lua model file (generated on the fly) or a directory written by\n"
    "lcmgen.  'lcm <command> --help' describes a command.\n";

static int run_command(int argc, char **argv);

int main(int argc, char **argv)
{
    lcm_err err = {0};
    if (lcm_comm_init(&argc, &argv, &err)) return cli_die(argc > 1 ? argv[1] : "", &err);
    int rc = run_command(argc, argv);
    lcm_comm_finalize();
    return rc;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? LCM_E_USAGE : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("lcm " LCM_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "solve")) return cmd_solve(argc - 1, argv + 1);
    if (!strcmp(argv[1], "simulate")) return cmd_simulate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "params-template")) return cmd_params_template(argc - 1, argv + 1);
    if (!strcmp(argv[1], "compile")) return cmd_compile(argc - 1, argv + 1);
    if (!strcmp(argv[1], "cache")) return cmd_cache(argc - 1, argv + 1);
    fprintf(stderr, "lcm: error: unknown command '%s'\n%s", argv[1], usage);
    return LCM_E_USAGE;
}
