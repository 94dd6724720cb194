/* lcmgen_main.c - the `lcmgen` command: a build step that turns a model
 * file into kernel source and a manifest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcmgen.h"
#include "files.h"
#include "lua_sandbox.h"
#include "message.h"

static const char usage[] =
    "usage: lcmgen MODEL.lua -o DIR [-D name=value]... [--fix path=value]... [-M DEPFILE] [--trust-model]\n"
    "              [--line-directives]\n"
    "       lcmgen MODEL.lua --reachability|--plan [-o DIR] [-D name=value]...\n"
    "\n"
    "Generates DIR/kernels.c (compiles as C11 and as CUDA) and DIR/manifest.lcm\n"
    "from a model written in Lua.  Files are rewritten only when their content\n"
    "changes; -M writes a Makefile depfile listing every file the model read.\n"
    "The model runs in a sandbox (docs/model-language.md); --trust-model (or\n"
    "LCM_TRUST_MODEL=1) gives a model you trust the full Lua library.\n"
    "--line-directives (or LCM_LINE_DIRECTIVES=1) puts #line directives into\n"
    "kernels.c that point at the model's lines, for compiler messages,\n"
    "debuggers and profilers.\n"
    "--fix path=value fixes a parameter (NAME, REGIME.NAME or REGIME.FUNCTION.NAME)\n"
    "as if the model's fixed_params gave it: a scalar becomes a constant of the\n"
    "kernels (docs/tuning.md).\n"
    "--reachability prints which regime can move into which and at which ages\n"
    "(docs/model-language.md, section 10); -o is then optional.\n"
    "--plan prints how each kernel solves: which actions are maximised first\n"
    "into tables (the staged solve) and the work saved, or why it searches the\n"
    "grid (docs/tuning.md, \"Write models the staged solve applies to\"); for\n"
    "an EGM regime its method and the endogenous grid's size.\n";

typedef struct args {
    const char *model, *dir, *depfile;
    ir_option *defs, *fixes;
    int ndefs, nfixes;
    int help, reachability, plan;
} args;

static int add_define(args *a, const char *text, lcm_err *err)
{
    ir_option d;
    return lcmgen_parse_define(text, &d, err) || lcmgen_add_option(&a->defs, &a->ndefs, &d, "-D", err) ? err->code : 0;
}

static int add_fix(args *a, const char *text, lcm_err *err)
{
    ir_option f;
    return lcmgen_parse_fix(text, &f, err) || lcmgen_add_option(&a->fixes, &a->nfixes, &f, "--fix", err) ? err->code : 0;
}

static int parse(int argc, char **argv, args *a, lcm_err *err)
{
    for (int i = 1; i < argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            a->help = 1;
            return 0;
        }
        if (!strcmp(s, "-o") || !strcmp(s, "-M") || !strcmp(s, "-D") || !strcmp(s, "--fix")) {
            if (i + 1 >= argc) return base_fail(err, LCM_E_USAGE, "%s needs a value", s);
            const char *v = argv[++i];
            if (s[1] == 'o' && sys_refuse_dash_folder(s, v, err)) return err->code;
            if (s[1] == 'o') a->dir = v;
            else if (s[1] == 'M') a->depfile = v;
            else if (s[1] == 'D' ? add_define(a, v, err) : add_fix(a, v, err)) return err->code;
        } else if (!strncmp(s, "-D", 2) && s[2]) {
            if (add_define(a, s + 2, err)) return err->code;
        } else if (!strncmp(s, "--fix=", 6)) {
            if (add_fix(a, s + 6, err)) return err->code;
        } else if (!strcmp(s, "--trust-model")) {
            gen_sandbox_set_trusted(1);
        } else if (!strcmp(s, "--line-directives")) {
            lcmgen_set_line_directives(1);
        } else if (!strcmp(s, "--reachability")) {
            a->reachability = 1;
        } else if (!strcmp(s, "--plan")) {
            a->plan = 1;
        } else if (s[0] == '-') {
            return base_fail(err, LCM_E_USAGE, "unknown option '%s' (see lcmgen --help)", s);
        } else if (a->model) {
            return base_fail(err, LCM_E_USAGE, "more than one model file ('%s' and '%s')", a->model, s);
        } else {
            a->model = s;
        }
    }
    if (!a->model) return base_fail(err, LCM_E_USAGE, "no model file given (see lcmgen --help)");
    if (a->depfile && !a->dir) return base_fail(err, LCM_E_USAGE, "-M needs -o DIR (the depfile names its files)");
    if (!a->dir && !a->reachability && !a->plan)
        return base_fail(err, LCM_E_USAGE, "no output directory: give -o DIR (see lcmgen --help)");
    return 0;
}

int main(int argc, char **argv)
{
    sys_hold_standard_fds();
    args a = {0};
    lcm_err err = {0};
    lcmgen_output out = {0};
    int rc = parse(argc, argv, &a, &err);
    if (!rc && !a.help) rc = base_env_switches_check(&err);
    lcmgen_inputs in = {a.defs, a.ndefs, a.fixes, a.nfixes};
    if (!rc && a.help) fputs(usage, stdout);
    else if (!rc && !(rc = lcmgen_generate(a.model, &in, &out, &err))) {
        for (int i = 0; i < out.nwarnings; ++i) base_put_message(stderr, "lcmgen: warning: %s\n", out.warnings[i]);
        if (a.reachability) fputs(out.reachability, stdout);
        if (a.plan) fputs(out.plan, stdout);
        if (a.dir) rc = lcmgen_write(&out, a.dir, a.depfile, &err);
    }
    if (rc) base_put_message(stderr, "lcmgen: error: %s\n", err.msg);
    lcmgen_output_free(&out);
    for (int i = 0; i < a.ndefs; ++i) free(a.defs[i].name), free(a.defs[i].value);
    for (int i = 0; i < a.nfixes; ++i) free(a.fixes[i].name), free(a.fixes[i].value);
    free(a.defs), free(a.fixes);
    return rc;
}
