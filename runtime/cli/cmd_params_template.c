/* cmd_params_template.c - `lcm params-template`: a params file to fill in. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "params.h"

static const char usage[] =
    "usage: lcm params-template MODEL.lua|DIR [-D name=value]... [--fix path=value]... [--trust-model]\n"
    "\n"
    "Prints a Lua params file listing every parameter the model needs, with its\n"
    "shape and the functions that use it.\n";

int cmd_params_template(int argc, char **argv)
{
    cli_args a = {.argc = argc, .argv = argv, .cmd = "params-template"};
    cli_model_opts mo = {0};
    lcm_err err = {0};
    int rc = 0;
    for (a.i = 1; a.i < argc && !rc; ++a.i) {
        const char *arg = argv[a.i];
        int matched;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if ((rc = cli_model_option(&a, &mo, &matched, &err)) || matched) continue;
        if (arg[0] == '-') rc = base_fail(&err, LCM_E_USAGE, "unknown option '%s'", arg);
        else if (mo.model) rc = base_fail(&err, LCM_E_USAGE, "more than one model given");
        else mo.model = arg;
    }
    lcm_model *model = NULL;
    if (!rc) rc = cli_open_model(&mo, &model, &err);
    if (!rc) {
        lcm_sb b;
        base_sb_init(&b);
        core_params_template(core_model_ir(model), &b);
        fputs(b.s, stdout);
        base_sb_free(&b);
        rc = cli_flush_stdout(&err);
    }
    lcm_model_free(model);
    cli_model_opts_free(&mo);
    return rc ? cli_die("params-template", &err) : 0;
}
