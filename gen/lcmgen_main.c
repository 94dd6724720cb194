/* lcmgen_main.c - the `lcmgen` command: a build step that turns a model
 * file into kernel source and a manifest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcmgen.h"

static const char usage[] =
    "usage: lcmgen MODEL.lua -o DIR [-D name=value]... [-M DEPFILE]\n"
    "\n"
    "Generates DIR/kernels.c (compiles as C11 and as CUDA) and DIR/manifest.lcm\n"
    "from a model written in Lua.  Files are rewritten only when their content\n"
    "changes; -M writes a Makefile depfile listing every Lua file the model loaded.\n";

static int die(lcm_err *err)
{
    fprintf(stderr, "lcmgen: error: %s\n", err->msg);
    return err->code ? err->code : 1;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *dir = NULL, *depfile = NULL;
    ir_option *defs = xcalloc((size_t)argc, sizeof *defs);
    int ndefs = 0;
    lcm_err err = {0};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "-o") || !strcmp(a, "-M") || !strcmp(a, "-D")) {
            if (i + 1 >= argc) {
                lcm_fail(&err, LCM_E_USAGE, "%s needs a value", a);
                return die(&err);
            }
            const char *v = argv[++i];
            if (a[1] == 'o') dir = v;
            else if (a[1] == 'M') depfile = v;
            else if (lcmgen_parse_define(v, &defs[ndefs++], &err)) return die(&err);
        } else if (!strncmp(a, "-D", 2) && a[2]) {
            if (lcmgen_parse_define(a + 2, &defs[ndefs++], &err)) return die(&err);
        } else if (a[0] == '-') {
            lcm_fail(&err, LCM_E_USAGE, "unknown option '%s' (see lcmgen --help)", a);
            return die(&err);
        } else if (model) {
            lcm_fail(&err, LCM_E_USAGE, "more than one model file ('%s' and '%s')", model, a);
            return die(&err);
        } else {
            model = a;
        }
    }
    if (!model || !dir) {
        lcm_fail(&err, LCM_E_USAGE, "%s (see lcmgen --help)",
                 !model ? "no model file given" : "no output directory: give -o DIR");
        return die(&err);
    }
    for (int i = 0; i < ndefs; ++i)
        for (int j = 0; j < i; ++j)
            if (!strcmp(defs[i].name, defs[j].name)) {
                lcm_fail(&err, LCM_E_USAGE, "option '%s' is given twice with -D", defs[i].name);
                return die(&err);
            }
    lcmgen_output out;
    if (lcmgen_generate(model, defs, ndefs, &out, &err)) return die(&err);
    for (int i = 0; i < out.nwarnings; ++i) fprintf(stderr, "lcmgen: warning: %s\n", out.warnings[i]);
    int rc = lcmgen_write(&out, dir, depfile, &err);
    lcmgen_output_free(&out);
    for (int i = 0; i < ndefs; ++i) free(defs[i].name), free(defs[i].value);
    free(defs);
    return rc ? die(&err) : 0;
}
