/* lcmgen.c - see lcmgen.h. */
#include "lcmgen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "emit.h"
#include "files.h"
#include "lua_host.h"
#include "manifest.h"
#include "message.h"
#include "plan.h"
#include "sha256.h"
#include "tempname.h"

int lcmgen_parse_define(const char *arg, ir_option *out, lcm_err *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return base_fail(err, LCM_E_USAGE, "-D expects name=value, got '%s'", arg);
    out->name = base_xstrndup(arg, (size_t)(eq - arg));
    out->value = base_xstrdup(eq + 1);
    if (!base_is_identifier(out->name)) {
        int rc = base_fail(err, LCM_E_USAGE, "-D %s: '%s' is not an option name", arg, out->name);
        free(out->name), free(out->value);
        return rc;
    }
    return 0;
}

int lcmgen_parse_fix(const char *arg, ir_option *out, lcm_err *err)
{
    enum { PATH_MAX_CHARS = 200 }; /* three names: longer is a mistake, and messages quote it */
    if (!*arg) return base_fail(err, LCM_E_USAGE, "--fix needs a value (it is empty)");
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len > PATH_MAX_CHARS)
        return base_fail(err, LCM_E_USAGE, "--fix: a parameter path of %zu characters; at most %d", len, PATH_MAX_CHARS);
    out->name = eq ? base_xstrndup(arg, (size_t)(eq - arg)) : base_xstrdup(arg);
    out->value = eq ? base_xstrdup(eq + 1) : NULL;
    int parts = 0, ok = 1;
    for (const char *p = out->name; ok && p; ++parts) {
        const char *dot = strchr(p, '.');
        char *key = dot ? base_xstrndup(p, (size_t)(dot - p)) : base_xstrdup(p);
        ok = base_is_identifier(key);
        free(key);
        p = dot ? dot + 1 : NULL;
    }
    char *end = NULL;
    double x = eq ? strtod(eq + 1, &end) : 0;
    int rc = 0;
    if (!ok || parts > 3)
        rc = base_fail(err, LCM_E_USAGE, "--fix %s: '%s' is not a parameter path (NAME, REGIME.NAME or "
                      "REGIME.FUNCTION.NAME, as in a params file)", arg, out->name);
    else if (eq && (!eq[1] || *end || !isfinite(x)))
        rc = base_fail(err, LCM_E_USAGE, "--fix %s: the value must be a finite number", arg);
    if (rc) free(out->name), free(out->value);
    return rc;
}

int lcmgen_add_option(ir_option **list, int *n, ir_option *item, const char *option, lcm_err *err)
{
    *list = base_xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = *item; /* owned by the list from here on, also when it is a duplicate */
    for (int i = 0; i + 1 < *n; ++i)
        if (!strcmp((*list)[i].name, item->name))
            return base_fail(err, LCM_E_USAGE, "%s '%s' is given twice with %s",
                            strcmp(option, "-D") ? "parameter" : "option", item->name, option);
    return 0;
}

static int line_directives_option;

void lcmgen_set_line_directives(int on) { line_directives_option = on; }

int lcmgen_generate(const char *model_path, const lcmgen_inputs *in, lcmgen_output *out, lcm_err *err)
{
    memset(out, 0, sizeof *out);
    if (!sys_file_exists(model_path)) return base_fail(err, LCM_E_IO, "model file '%s' does not exist", model_path);
    if (sys_is_directory(model_path)) return base_fail(err, LCM_E_IO, "'%s' is a directory, not a model file", model_path);
    for (int i = 0; in && i < in->nfixes; ++i)
        if (!in->fixes[i].value)
            return base_fail(err, LCM_E_USAGE, "--fix %s: give its value (--fix %s=VALUE); only lcm solve, simulate "
                            "and run take it from the parameters", in->fixes[i].name, in->fixes[i].name);
    lcm_trace_result tr;
    int rc = gen_trace_model(model_path, in, &tr, err);
    if (rc) return rc;
    out->deps = tr.deps, out->ndeps = tr.ndeps;
    out->warnings = tr.warnings, out->nwarnings = tr.nwarnings;
    out->reachability = tr.reachability;
    tr.deps = tr.warnings = NULL, tr.ndeps = tr.nwarnings = 0;
    tr.reachability = NULL;
    out->model = tr.model;
    memset(&tr.model, 0, sizeof tr.model);
    gen_trace_result_free(&tr);

    gen_plan_kernels(&out->model);
    lcm_sb plan;
    base_sb_init(&plan);
    gen_plan_describe(&out->model, &plan);
    out->plan = plan.s ? base_sb_take(&plan) : base_xstrdup("");
    lcm_sb src;
    base_sb_init(&src);
    lcm_emit_options opt = {.line_directives = line_directives_option || base_env_switch("LCM_LINE_DIRECTIVES")};
    rc = gen_emit_source(&out->model, &opt, &src, err);
    if (rc) {
        base_sb_free(&src);
        return rc;
    }
    out->source = base_sb_take(&src);
    char hash[65];
    base_sha256_hex(out->source, strlen(out->source), hash);
    out->model.source_hash = base_xstrdup(hash);
    lcm_sb man;
    base_sb_init(&man);
    ir_manifest_write(&out->model, &man);
    out->manifest = base_sb_take(&man);
    return 0;
}

void lcmgen_output_free(lcmgen_output *out)
{
    ir_model_free(&out->model);
    free(out->source);
    free(out->manifest);
    free(out->reachability);
    free(out->plan);
    for (int i = 0; i < out->ndeps; ++i) free(out->deps[i]);
    free(out->deps);
    for (int i = 0; i < out->nwarnings; ++i) free(out->warnings[i]);
    free(out->warnings);
    memset(out, 0, sizeof *out);
}

/* A file name as Make's glob reads it: Make globs a name holding a wildcard
 * (* ? [), reading every backslash in it as a quote, so such a name gets
 * each wildcard and backslash quoted and matches only itself; any other
 * name is left as it is. */
static void glob_quote(const char *path, lcm_sb *out)
{
    int globbed = strpbrk(path, "*?[") != NULL;
    for (const char *c = path; *c; ++c) {
        if (globbed && strchr("*?[\\", *c)) base_sb_putc(out, '\\');
        base_sb_putc(out, *c);
    }
}

/* Appends a file name as GNU make reads it in a rule: glob_quote's text,
 * then Make's own quoting.  A backslash quotes a space (a separator), '#'
 * (a comment), ':' (the rule's colon) and, in a target, '%' (a pattern
 * rule; a prerequisite keeps the backslash, and needs none); Make halves
 * the backslashes just before a quoted character and those ending a name,
 * so they are doubled there.  '$' is written "$$" and '=' as "$(strip =)":
 * a bare one would make the line a variable assignment.  A line break or
 * ';' cannot be written at all (Make ends the rule there whatever quotes
 * them), nor a tab (a quoted one becomes a space in a target, and every
 * file loaded is a target too). */
static int put_make_name(lcm_sb *b, const char *path, int target, lcm_err *err)
{
    if (strpbrk(path, "\n\t;")) {
        lcm_sb shown;
        base_sb_init(&shown);
        base_escape_text(&shown, path, 0);
        base_fail(err, LCM_E_IO, "-M: the path '%s' holds a line break, a tab or ';', which a Makefile rule cannot "
                 "hold; move the file to a path without them (or leave out -M)", shown.s);
        base_sb_free(&shown);
        return err->code;
    }
    lcm_sb glob;
    base_sb_init(&glob);
    glob_quote(path, &glob);
    size_t slashes = 0; /* backslashes written just before the current character */
    for (const char *c = glob.s ? glob.s : ""; *c; ++c) {
        if (strchr(" #:", *c) || (target && *c == '%'))
            for (size_t i = 0; i <= slashes; ++i) base_sb_putc(b, '\\');
        if (*c == '$') base_sb_puts(b, "$$");
        else if (*c == '=') base_sb_puts(b, "$(strip =)");
        else base_sb_putc(b, *c);
        slashes = *c == '\\' ? slashes + 1 : 0;
    }
    for (size_t i = 0; i < slashes; ++i) base_sb_putc(b, '\\');
    base_sb_free(&glob);
    return 0;
}

/* The depfile: both outputs depend on every Lua file the model loaded, and
 * each of those is a target of its own with no recipe, so that Make does
 * not stop when one is deleted or renamed (as gcc -MP). */
static int depfile_text(const lcmgen_output *out, const char *man_path, const char *src_path, lcm_sb *d,
                        lcm_err *err)
{
    int rc = put_make_name(d, man_path, 1, err);
    base_sb_putc(d, ' ');
    if (!rc) rc = put_make_name(d, src_path, 1, err);
    base_sb_putc(d, ':');
    for (int i = 0; i < out->ndeps && !rc; ++i) {
        base_sb_puts(d, " \\\n  ");
        rc = put_make_name(d, out->deps[i], 0, err);
    }
    base_sb_putc(d, '\n');
    for (int i = 0; i < out->ndeps && !rc; ++i) {
        rc = put_make_name(d, out->deps[i], 1, err);
        base_sb_puts(d, ":\n");
    }
    return rc;
}

int lcmgen_write(const lcmgen_output *out, const char *dir, const char *depfile, lcm_err *err)
{
    char *src_path = base_path_join(dir, "kernels.c");
    char *man_path = base_path_join(dir, "manifest.lcm");
    lcm_sb d;
    base_sb_init(&d);
    /* the depfile is made first: a path it cannot hold is refused before anything is written */
    int rc = depfile ? depfile_text(out, man_path, src_path, &d, err) : 0;
    if (!rc && depfile) rc = sys_check_output_path(depfile, err); /* before the folder is made */
    if (!rc) rc = sys_make_dirs(dir, err);
    /* the three together: a failure leaves the earlier build's files as they were */
    const char *paths[] = {src_path, man_path, depfile};
    const char *texts[] = {out->source, out->manifest, d.s};
    const size_t lens[] = {strlen(out->source), strlen(out->manifest), d.len};
    if (!rc) rc = sys_write_files_if_changed(depfile ? 3 : 2, paths, texts, lens, err);
    base_sb_free(&d);
    free(src_path), free(man_path);
    return rc;
}
