/* lcm_main.c - the `lcm` command: solve, simulate and inspect models. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "comm.h"
#include "cuda_api.h"
#include "files.h"

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

/* What this build can use here: the GPU stack and MPI. */
static void print_features(void)
{
    lcm_err err = {0};
    printf("cpu backend: the host C compiler ($LCM_CC, $CC or cc)\n");
#ifdef LCM_HAVE_CUDA
    int major = 0, minor = 0, gpus = be_cuda_device_count();
    const lcm_nvrtc_api *nv = be_nvrtc(&err);
    if (nv) nv->nvrtcVersion(&major, &minor);
    if (nv) printf("cuda backend: NVRTC %d.%d, %d usable GPU(s)\n", major, minor, gpus);
    else printf("cuda backend: %d usable GPU(s), but %s\n", gpus, err.msg);
#ifdef LCM_HAVE_NCCL
    const lcm_nccl_api *nc = be_nccl(&err);
    int v = 0;
    if (nc) nc->ncclGetVersion(&v);
    if (nc) printf("NCCL %d.%d.%d (GPU workers reduce their checks with it)\n", v / 10000, v / 100 % 100, v % 100);
    else printf("NCCL: GPU workers reduce their checks on the host (%s)\n", err.msg);
#endif
#else
    printf("cuda backend: not built (no CUDA toolkit at build time)\n");
#endif
    const char *mpi = core_comm_library();
    printf("MPI: %s\n", mpi ? mpi : "not built (no MPI at build time)");
}

int main(int argc, char **argv)
{
    sys_hold_standard_fds();
    /* the compiler's exit status tells whether it worked: a SIGCHLD ignored
     * by whoever started lcm (and so by lcm) would have it reaped unread */
    signal(SIGCHLD, SIG_DFL);
    lcm_err err = {0};
    if (core_comm_init(&argc, &argv, &err)) return cli_die(argc > 1 ? argv[1] : "", &err);
    /* an MPI job runs one command on every rank: another would wait in
     * other collectives than rank 0's for ever */
    char command[64] = {0};
    snprintf(command, sizeof command, "%s", argc > 1 ? argv[1] : "");
    if (core_comm_agree(core_comm_same(command, sizeof command, "the command", &err), &err)) {
        int rc = cli_die(command, &err);
        core_comm_finalize();
        return rc;
    }
    int rc = run_command(argc, argv);
    core_comm_finalize();
    return rc;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? LCM_E_USAGE : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("lcm " LCM_VERSION_STRING);
        print_features();
        return 0;
    }
    /* the switches before any file is read (help never fails); every rank
     * of an MPI job stops, or none */
    int help = 0;
    for (int i = 2; i < argc; ++i) help |= !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
    lcm_err err = {0};
    if (!help && core_comm_agree(base_env_switches_check(&err), &err)) return cli_die(argv[1], &err);
    if (!strcmp(argv[1], "solve")) return cmd_solve(argc - 1, argv + 1);
    if (!strcmp(argv[1], "simulate")) return cmd_simulate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "params-template")) return cmd_params_template(argc - 1, argv + 1);
    if (!strcmp(argv[1], "compile")) return cmd_compile(argc - 1, argv + 1);
    if (!strcmp(argv[1], "cache")) return cmd_cache(argc - 1, argv + 1);
    fprintf(stderr, "lcm: error: unknown command '%s'\n%s", argv[1], usage);
    return LCM_E_USAGE;
}
