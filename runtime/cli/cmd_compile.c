/* cmd_compile.c - `lcm compile`: build a model's solver into the cache
 * without solving, e.g. GPU kernels on a machine without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuda_compile.h"
#include "log.h"

static const char usage[] =
    "usage: lcm compile MODEL.lua|DIR [-D name=value]... [--fix path=value]... [--trust-model] [--backend auto|cpu|cuda] [--arch sm_XX]\n"
    "                   [--precision 64|32] [--device N]\n"
    "\n"
    "Compiles the model's solver into the cache ($LCM_CACHE_DIR, default\n"
    "$XDG_CACHE_HOME/lcm, else ~/.cache/lcm)\n"
    "without solving, so that later solves start at once.  With --backend cuda and\n"
    "--arch (e.g. sm_90 for H100/H200, sm_80 for A100) no GPU is needed: prepare the\n"
    "cache on a login node, solve on the GPU nodes.  A cache that cannot take the\n"
    "solver is an error (exit code 5).\n";

int cmd_compile(int argc, char **argv)
{
    cli_args a = {.argc = argc, .argv = argv, .cmd = "compile"};
    cli_model_opts mo = {0};
    lcm_solver_options so = {.backend = LCM_BACKEND_AUTO, .precision = 64, .cache_required = 1};
    const char *arch_text = NULL;
    lcm_err err = {0};
    int rc = 0, r, matched;
    for (a.i = 1; a.i < argc && !rc; ++a.i) {
        const char *arg = argv[a.i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if ((rc = cli_model_option(&a, &mo, &matched, &err)) || matched) continue;
        if ((rc = cli_solver_option(&a, &so, &matched, &err)) || matched) continue;
        if ((r = cli_value(&a, "--arch", &arch_text, &err))) rc = r < 0 ? err.code : 0;
        else if (arg[0] == '-') rc = base_fail(&err, LCM_E_USAGE, "unknown option '%s' (see lcm compile --help)", arg);
        else if (mo.model) rc = base_fail(&err, LCM_E_USAGE, "more than one model given");
        else mo.model = arg;
    }
    int arch = 0;
    if (!rc && arch_text) {
        arch = be_cuda_parse_arch(arch_text);
        if (!arch) rc = base_fail(&err, LCM_E_USAGE, "--arch expects a GPU architecture like sm_90 or sm_80, got '%s'", arch_text);
        else if (so.backend == LCM_BACKEND_AUTO) so.backend = LCM_BACKEND_CUDA;
        else if (so.backend != LCM_BACKEND_CUDA) rc = base_fail(&err, LCM_E_USAGE, "--arch applies to --backend cuda");
    }
    if (!rc && so.backend == LCM_BACKEND_INTERP)
        rc = base_fail(&err, LCM_E_USAGE, "the interp backend compiles nothing");
    lcm_model *model = NULL;
    if (!rc) rc = cli_open_model(&mo, &model, &err);
    if (!rc && arch) {
        int compiled = 0;
        double seconds = 0;
        char *target = NULL;
        rc = lcm_precompile_cuda(model, arch, so.precision, NULL, &compiled, &seconds, &target, &err);
        if (!rc) {
            if (compiled) io_progress("compiled the cuda solver of model '%s' (float%d, %s) in %.2f s",
                                       core_model_ir(model)->name, so.precision, target, seconds);
            else io_progress("the cuda solver of model '%s' (float%d, %s) is in the cache already",
                              core_model_ir(model)->name, so.precision, target);
        }
        free(target);
    } else if (!rc) {
        lcm_solver *solver = NULL;
        rc = lcm_solver_new(model, &so, &solver, &err);
        lcm_solver_free(solver);
    }
    lcm_model_free(model);
    cli_model_opts_free(&mo);
    return rc ? cli_die("compile", &err) : 0;
}
