/* lcmgen.h - the generator as a library: model file -> planned IR, kernel
 * source and manifest.  Used by the lcmgen command and by `lcm` when it is
 * given a .lua model. */
#ifndef LCM_LCMGEN_H
#define LCM_LCMGEN_H

#include "gen_inputs.h"
#include "ir.h"

typedef struct lcmgen_output {
    ir_model model;  /* planned: kernels and period classes filled */
    char *source;    /* the kernel source (kernels.c) */
    char *manifest;  /* the manifest, with the kernel table and source hash */
    char **deps;     /* Lua files the model loaded */
    int ndeps;
    char **warnings; /* for the user: the caller prints them its own way */
    int nwarnings;
    char *reachability; /* the regime graph as text: lcmgen --reachability */
    char *plan;         /* the staged solve of each kernel (gen/plan.h, gen_plan_describe): the caller prints it */
} lcmgen_output;

/* in may be NULL: no options, nothing fixed. */
int lcmgen_generate(const char *model_path, const lcmgen_inputs *in, lcmgen_output *out, lcm_err *err);
void lcmgen_output_free(lcmgen_output *out);

/* `#line` directives in the kernel source pointing into the model file
 * (lcmgen --line-directives; also on when LCM_LINE_DIRECTIVES=1, which is
 * how `lcm` gets them for a .lua model): compiler messages, debuggers and
 * profilers then name the model's lines.  Off by default. */
void lcmgen_set_line_directives(int on);

/* Writes DIR/kernels.c and DIR/manifest.lcm (only when their content
 * changed) and, if depfile is given, a Makefile depfile. */
int lcmgen_write(const lcmgen_output *out, const char *dir, const char *depfile, lcm_err *err);

/* Parses "name=value" (as given to -D). */
int lcmgen_parse_define(const char *arg, ir_option *out, lcm_err *err);
/* Parses "path=value" or "path" (as given to --fix; value NULL when absent:
 * the caller takes it from the parameters).  The path is checked, the value
 * is read by the generator. */
int lcmgen_parse_fix(const char *arg, ir_option *out, lcm_err *err);
/* Adds *item (taken over) to a list of -D or --fix entries; a name given
 * twice is a usage error naming the option. */
int lcmgen_add_option(ir_option **list, int *n, ir_option *item, const char *option, lcm_err *err);

#endif
