/* cli.c - argument helpers and model input shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "files.h"
#include "lcmgen.h"
#include "log.h"
#include "lua_sandbox.h"
#include "message.h"
#include "progress_line.h"

int cli_die(const char *cmd, const lcm_err *err)
{
    io_log_end_line();
    int code = err->code ? err->code : 1;
    if (!core_comm_failure_agreed()) { /* this rank's alone: the others wait in a collective */
        base_put_message(stderr, "lcm %s: error: rank %d of the MPI job: %s\n", cmd, core_comm_rank(), err->msg);
        core_comm_abort(code);
    }
    if (core_comm_rank() != 0) return code; /* rank 0 says it */
    base_put_message(stderr, "lcm %s: error: %s\n", cmd, err->msg);
    return code;
}

/* An option with a value: 1 and *value when argv[i] is `name`, 0 when it is
 * not, -1 for a missing or empty value or a second time for an option given
 * once. */
static int take_value(cli_args *a, const char *name, int once, const char **value, lcm_err *err)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) || (arg[n] && arg[n] != '=')) return 0;
    if (!arg[n] && a->i + 1 >= a->argc) {
        base_fail(err, LCM_E_USAGE, "%s needs a value", name);
        return -1;
    }
    const char *v = arg[n] ? arg + n + 1 : a->argv[++a->i];
    if (!*v) {
        base_fail(err, LCM_E_USAGE, "%s needs a value (it is empty)", name);
        return -1;
    }
    for (int k = 0; once && k < a->nseen; ++k)
        if (!strcmp(a->seen[k].name, name)) {
            base_fail(err, LCM_E_USAGE, "%s is given twice ('%s' and '%s'): give it once", name, a->seen[k].value, v);
            return -1;
        }
    if (once && a->nseen < CLI_MAX_OPTIONS) a->seen[a->nseen].name = name, a->seen[a->nseen++].value = v;
    *value = v;
    return 1;
}

void cli_report(const char *done, const char *const *outputs, int n)
{
    io_log_end_line(); /* the progress line gives way, also when the level prints nothing */
    lcm_sb line;
    base_sb_init(&line);
    base_sb_printf(&line, "%s", done);
    const char *sep = ": wrote ";
    for (int i = 0; i < n; ++i) {
        if (!outputs[i]) continue;
        base_sb_printf(&line, "%s%s", sep, strcmp(outputs[i], "-") ? outputs[i] : "standard output");
        sep = ", ";
    }
    io_info("%s", line.s);
    base_sb_free(&line);
}

int cli_value(cli_args *a, const char *name, const char **value, lcm_err *err)
{
    return take_value(a, name, 1, value, err);
}

int cli_each_value(cli_args *a, const char *name, const char **value, lcm_err *err)
{
    return take_value(a, name, 0, value, err);
}

int cli_folder_value(cli_args *a, const char *name, const char **value, lcm_err *err)
{
    int r = take_value(a, name, 1, value, err);
    return r > 0 && sys_refuse_dash_folder(name, *value, err) ? -1 : r;
}

int cli_model_option(cli_args *a, cli_model_opts *o, int *matched, lcm_err *err)
{
    const char *arg = a->argv[a->i], *def = NULL;
    *matched = 0;
    if (!strcmp(arg, "--trust-model")) { /* the model and params files get the full Lua library */
        gen_sandbox_set_trusted(1);
        *matched = 1;
        return 0;
    }
    int r = cli_each_value(a, "--fix", &def, err);
    if (r) {
        *matched = 1;
        ir_option f;
        if (r < 0 || lcmgen_parse_fix(def, &f, err)) return err->code;
        return lcmgen_add_option(&o->fixes, &o->nfixes, &f, "--fix", err);
    }
    if (!strcmp(arg, "-D")) {
        if (a->i + 1 >= a->argc) return base_fail(err, LCM_E_USAGE, "-D needs name=value");
        def = a->argv[++a->i];
    } else if (!strncmp(arg, "-D", 2)) {
        def = arg + 2;
    } else {
        return 0;
    }
    *matched = 1;
    ir_option d;
    if (lcmgen_parse_define(def, &d, err)) return err->code;
    return lcmgen_add_option(&o->defines, &o->ndefines, &d, "-D", err);
}

int cli_int(const char *opt, const char *s, int lo, int hi, int *out, lcm_err *err)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return base_fail(err, LCM_E_USAGE, "%s expects a whole number from %d to %d, got '%s'", opt, lo, hi, s);
    *out = (int)v;
    return 0;
}

int cli_count(const char *opt, const char *s, unsigned long long min, unsigned long long max, unsigned long long *out,
              lcm_err *err)
{
    const char *end = s;
    while (*end >= '0' && *end <= '9') ++end;
    errno = 0;
    unsigned long long v = *s && !*end ? strtoull(s, NULL, 10) : 0; /* digits only: no sign, no spaces */
    if (!*s || *end || errno == ERANGE || v < min || v > max)
        return base_fail(err, LCM_E_USAGE, "%s expects a whole number from %llu to %llu, got '%s'", opt, min, max, s);
    *out = v;
    return 0;
}

int cli_solver_option(cli_args *a, lcm_solver_options *so, int *matched, lcm_err *err)
{
    const char *v;
    int r;
    *matched = 1;
    if ((r = cli_value(a, "--precision", &v, err))) {
        if (r < 0) return err->code;
        if (strcmp(v, "64") && strcmp(v, "32"))
            return base_fail(err, LCM_E_USAGE, "--precision must be 64 or 32, got '%s'", v);
        so->precision = atoi(v);
        return 0;
    }
    if ((r = cli_value(a, "--backend", &v, err))) {
        if (r < 0) return err->code;
        int b = lcm_backend_by_name(v);
        if (b < 0) return base_fail(err, LCM_E_USAGE, "--backend must be auto, cpu, cuda or interp, got '%s'", v);
        so->backend = (lcm_backend_kind)b;
        return 0;
    }
    if ((r = cli_value(a, "--device", &v, err))) return r < 0 ? err->code : cli_int("--device", v, 0, 1023, &so->device, err);
    if ((r = cli_value(a, "--devices", &v, err))) return r < 0 ? err->code : cli_int("--devices", v, 1, 4096, &so->devices, err);
    if ((r = cli_value(a, "--threads", &v, err))) return r < 0 ? err->code : cli_int("--threads", v, 0, LCM_MAX_THREADS, &so->threads, err);
    if ((r = cli_folder_value(a, "--log-path", &v, err))) return r < 0 ? err->code : (so->log_path = v, 0);
    if ((r = cli_value(a, "--log-keep", &v, err))) return r < 0 ? err->code : cli_int("--log-keep", v, 1, 1000000, &so->log_keep, err);
    if ((r = cli_value(a, "--checks", &v, err))) {
        if (r < 0) return err->code;
        int c = lcm_check_policy_by_name(v);
        if (c < 0) return base_fail(err, LCM_E_USAGE, "--checks must be raise, warn or off, got '%s'", v);
        so->checks = (lcm_check_policy)c;
        return 0;
    }
    if ((r = cli_value(a, "--log-level", &v, err))) {
        if (r < 0) return err->code;
        int l = lcm_log_level_by_name(v);
        if (l < 0) return base_fail(err, LCM_E_USAGE, "--log-level must be off, warning, info, progress or debug, got '%s'", v);
        lcm_set_log_level((lcm_log_level)l);
        return 0;
    }
    if ((r = cli_progress_option(a->argv[a->i], err))) return r < 0 ? err->code : 0;
    *matched = 0;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int cli_open_model(cli_model_opts *o, lcm_model **out, lcm_err *err)
{
    if (!o->model) return base_fail(err, LCM_E_USAGE, "no model given (MODEL.lua or a directory made by lcmgen)");
    if (sys_is_directory(o->model)) {
        if (o->ndefines)
            return base_fail(err, LCM_E_USAGE, "-D %s: options apply when the model is a .lua file; '%s' was "
                            "generated already (run lcmgen with -D instead)", o->defines[0].name, o->model);
        if (o->nfixes)
            return base_fail(err, LCM_E_USAGE, "--fix %s: fixing applies when the model is a .lua file; '%s' was "
                            "generated already (run lcmgen with --fix instead)", o->fixes[0].name, o->model);
        return lcm_model_open_dir(o->model, out, err);
    }
    if (!ends_with(o->model, ".lua")) {
        if (!sys_file_exists(o->model)) return base_fail(err, LCM_E_IO, "model '%s' does not exist", o->model);
        return base_fail(err, LCM_E_USAGE, "model '%s' is neither a .lua file nor a directory made by lcmgen", o->model);
    }
    if (!sys_file_exists(o->model)) return base_fail(err, LCM_E_IO, "model file '%s' does not exist", o->model);
    lcmgen_output gen;
    lcmgen_inputs in = {o->defines, o->ndefines, o->fixes, o->nfixes};
    int rc = lcmgen_generate(o->model, &in, &gen, err);
    if (rc) return rc;
    for (int i = 0; i < gen.nwarnings; ++i) io_warn("%s", gen.warnings[i]);
    cli_note_read(o, "a file the model loads", gen.deps, gen.ndeps);
    gen.deps = NULL, gen.ndeps = 0;
    rc = lcm_model_from_text(gen.manifest, gen.source, out, err);
    lcmgen_output_free(&gen);
    return rc;
}

void cli_note_read(cli_model_opts *o, const char *what, char **paths, int n)
{
    o->read = base_xrealloc(o->read, ((size_t)o->nread + (size_t)n + 1) * sizeof *o->read);
    for (int i = 0; i < n; ++i) o->read[o->nread++] = (cli_read){what, paths[i]};
    free(paths);
}

void cli_model_opts_free(cli_model_opts *o)
{
    for (int i = 0; i < o->ndefines; ++i) free(o->defines[i].name), free(o->defines[i].value);
    for (int i = 0; i < o->nfixes; ++i) free(o->fixes[i].name), free(o->fixes[i].value);
    free(o->defines), free(o->fixes);
    o->defines = o->fixes = NULL, o->ndefines = o->nfixes = 0;
    for (int i = 0; i < o->nread; ++i) free(o->read[i].path);
    free(o->read);
    o->read = NULL, o->nread = 0;
}
