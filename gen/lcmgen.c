/* lcmgen.c - see lcmgen.h. */
#include "lcmgen.h"

#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "emit.h"
#include "lua_host.h"
#include "manifest.h"
#include "sha256.h"

int lcmgen_parse_define(const char *arg, ir_option *out, lcm_err *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return lcm_fail(err, LCM_E_USAGE, "-D expects name=value, got '%s'", arg);
    out->name = xstrndup(arg, (size_t)(eq - arg));
    out->value = xstrdup(eq + 1);
    if (!is_identifier(out->name)) {
        int rc = lcm_fail(err, LCM_E_USAGE, "-D %s: '%s' is not an option name", arg, out->name);
        free(out->name), free(out->value);
        return rc;
    }
    return 0;
}

int lcmgen_generate(const char *model_path, const ir_option *defines, int ndefines,
                    lcmgen_output *out, lcm_err *err)
{
    memset(out, 0, sizeof *out);
    if (!file_exists(model_path)) return lcm_fail(err, LCM_E_IO, "model file '%s' does not exist", model_path);
    if (is_directory(model_path)) return lcm_fail(err, LCM_E_IO, "'%s' is a directory, not a model file", model_path);
    lcm_trace_result tr;
    int rc = lcm_trace_model(model_path, defines, ndefines, &tr, err);
    if (rc) return rc;
    out->deps = tr.deps, out->ndeps = tr.ndeps;
    out->warnings = tr.warnings, out->nwarnings = tr.nwarnings;
    tr.deps = tr.warnings = NULL, tr.ndeps = tr.nwarnings = 0;
    rc = ir_manifest_read(tr.manifest, &out->model, err);
    lcm_trace_result_free(&tr);
    if (rc) {
        lcm_fail_prefix(err, "%s: internal error: the traced model does not read back", model_path);
        return err->code = LCM_E_INTERNAL;
    }

    lcm_plan_kernels(&out->model);
    lcm_sb src;
    sb_init(&src);
    rc = lcm_emit_source(&out->model, &src, err);
    if (rc) {
        sb_free(&src);
        return rc;
    }
    out->source = sb_take(&src);
    char hash[65];
    sha256_hex(out->source, strlen(out->source), hash);
    out->model.source_hash = xstrdup(hash);
    lcm_sb man;
    sb_init(&man);
    ir_manifest_write(&out->model, &man);
    out->manifest = sb_take(&man);
    return 0;
}

void lcmgen_output_free(lcmgen_output *out)
{
    ir_model_free(&out->model);
    free(out->source);
    free(out->manifest);
    for (int i = 0; i < out->ndeps; ++i) free(out->deps[i]);
    free(out->deps);
    for (int i = 0; i < out->nwarnings; ++i) free(out->warnings[i]);
    free(out->warnings);
    memset(out, 0, sizeof *out);
}

int lcmgen_write(const lcmgen_output *out, const char *dir, const char *depfile, lcm_err *err)
{
    int rc = make_dirs(dir, err);
    if (rc) return rc;
    char *src_path = path_join(dir, "kernels.c");
    char *man_path = path_join(dir, "manifest.lcm");
    rc = write_file_if_changed(src_path, out->source, strlen(out->source), NULL, err);
    if (!rc) rc = write_file_if_changed(man_path, out->manifest, strlen(out->manifest), NULL, err);
    if (!rc && depfile) {
        lcm_sb d;
        sb_init(&d);
        sb_printf(&d, "%s %s:", man_path, src_path);
        for (int i = 0; i < out->ndeps; ++i) sb_printf(&d, " \\\n  %s", out->deps[i]);
        sb_puts(&d, "\n");
        for (int i = 0; i < out->ndeps; ++i) sb_printf(&d, "%s:\n", out->deps[i]);
        rc = write_file_if_changed(depfile, d.s, d.len, NULL, err);
        sb_free(&d);
    }
    free(src_path), free(man_path);
    return rc;
}
