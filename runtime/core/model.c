/* model.c - a generated model: its IR (from the manifest) and kernel source. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "files.h"
#include "grid.h"
#include "layout.h"
#include "lcm_internal.h"
#include "manifest.h"
#include "sha256.h"
#include "model.h"
#include "params.h"
#include "solution.h"

/* The kernel ABI a generated source was written for (kernel_abi.h, pasted at
 * its top), or -1 when it names none. */
static int source_abi(const char *source)
{
    static const char key[] = "#define LCM_ABI_VERSION ";
    const char *at = strstr(source, key);
    return at ? atoi(at + sizeof key - 1) : -1;
}

int lcm_model_from_text(const char *manifest, const char *source, lcm_model **out, lcm_err *err)
{
    LCM_NEEDS(err, manifest, source, out);
    lcm_model *m = base_xcalloc(1, sizeof *m);
    atomic_init(&m->refs, 1);
    int rc = ir_manifest_read(manifest, &m->ir, err);
    if (!rc && (!m->ir.sealed || !m->ir.nkernels || !m->ir.period_kernel || !m->ir.source_hash))
        rc = base_fail(err, LCM_E_MODEL, "the manifest was not written by lcmgen (no kernel table or checksum); "
                      "regenerate the model");
    if (!rc) {
        char hash[65];
        base_sha256_hex(source, strlen(source), hash);
        if (strcmp(hash, m->ir.source_hash))
            rc = base_fail(err, LCM_E_MODEL, "kernels.c does not match manifest.lcm (edited or from another "
                          "lcmgen run); regenerate the model");
        else if (source_abi(source) != LCM_ABI_VERSION) /* an intact directory of another version's lcmgen */
            rc = base_fail(err, LCM_E_MODEL, "kernels.c was generated for kernel interface %d, this lcm runs %d: "
                          "regenerate the model with this version's lcmgen", source_abi(source), LCM_ABI_VERSION);
    }
    if (rc) {
        lcm_model_free(m);
        return rc;
    }
    m->manifest = base_xstrdup(manifest);
    m->source = base_xstrdup(source);
    *out = m;
    return 0;
}

int lcm_model_open_dir(const char *dir, lcm_model **out, lcm_err *err)
{
    LCM_NEEDS(err, dir, out);
    char *mp = base_path_join(dir, "manifest.lcm"), *sp = base_path_join(dir, "kernels.c");
    int rc = 0;
    if (!sys_is_directory(dir)) rc = base_fail(err, LCM_E_IO, "'%s' is not a directory made by lcmgen", dir);
    else if (!sys_file_exists(mp)) rc = base_fail(err, LCM_E_IO, "'%s' has no manifest.lcm: run lcmgen MODEL.lua -o %s", dir, dir);
    char *manifest = rc ? NULL : sys_read_file(mp, NULL, err);
    char *source = manifest ? sys_read_file(sp, NULL, err) : NULL;
    if (!rc && (!manifest || !source)) rc = err->code;
    if (!rc) {
        rc = lcm_model_from_text(manifest, source, out, err);
        if (rc) base_fail_prefix(err, "%s", dir);
    }
    free(manifest), free(source), free(mp), free(sp);
    return rc;
}

const ir_model *core_model_ir(const lcm_model *m) { return &m->ir; }
const char *lcm_model_source(const lcm_model *m) { return m ? m->source : NULL; }

/* ---- lcm.h's accessors: what users need of the IR (a NULL model: nothing) -- */
const char *lcm_version(void) { return LCM_VERSION_STRING; }
const char *lcm_model_name(const lcm_model *m) { return m ? m->ir.name : NULL; }
int lcm_model_periods(const lcm_model *m) { return m ? m->ir.nperiods : 0; }
double lcm_model_age(const lcm_model *m, int period)
{
    return m && period >= 0 && period < m->ir.nperiods ? m->ir.ages[period] : NAN;
}
int lcm_model_regimes(const lcm_model *m) { return m ? m->ir.nregimes : 0; }
int lcm_model_kernels(const lcm_model *m) { return m ? m->ir.nkernels : 0; }
const char *lcm_model_regime_name(const lcm_model *m, int regime)
{
    return m && regime >= 0 && regime < m->ir.nregimes ? m->ir.regimes[regime].name : NULL;
}
int lcm_model_regime_by_name(const lcm_model *m, const char *name)
{
    return m && name ? ir_find_regime(&m->ir, name) : -1;
}
lcm_index lcm_model_states(const lcm_model *m, int regime)
{
    return m && regime >= 0 && regime < m->ir.nregimes ? ir_state_space_size(&m->ir.regimes[regime]) : 0;
}
/* A regime's states (action 0) or actions (1): how many, and variable k, or NULL out of range. */
static int model_vars(const lcm_model *m, int regime, int action)
{
    if (!m || regime < 0 || regime >= m->ir.nregimes) return 0;
    return action ? m->ir.regimes[regime].nactions : m->ir.regimes[regime].nstates;
}
static const ir_var *model_var(const lcm_model *m, int regime, int k, int action)
{
    if (k < 0 || k >= model_vars(m, regime, action)) return NULL;
    return action ? &m->ir.regimes[regime].actions[k] : &m->ir.regimes[regime].states[k];
}
static const char *var_describe(const ir_var *v, int *points, int *discrete)
{
    if (points) *points = v ? v->grid.n : 0;
    if (discrete) *discrete = v ? grid_is_discrete(&v->grid) : 0;
    return v ? v->name : NULL;
}
static const char *var_label(const ir_var *v, int code)
{
    return v && grid_is_discrete(&v->grid) && code >= 0 && code < v->grid.n ? v->grid.labels[code] : NULL;
}
int lcm_model_regime_states(const lcm_model *m, int regime) { return model_vars(m, regime, 0); }
const char *lcm_model_state(const lcm_model *m, int regime, int k, int *points, int *discrete)
{
    return var_describe(model_var(m, regime, k, 0), points, discrete);
}
const char *lcm_model_state_label(const lcm_model *m, int regime, int k, int code)
{
    return var_label(model_var(m, regime, k, 0), code);
}
int lcm_model_regime_actions(const lcm_model *m, int regime) { return model_vars(m, regime, 1); }
const char *lcm_model_action(const lcm_model *m, int regime, int k, int *points, int *discrete)
{
    return var_describe(model_var(m, regime, k, 1), points, discrete);
}
const char *lcm_model_action_label(const lcm_model *m, int regime, int k, int code)
{
    return var_label(model_var(m, regime, k, 1), code);
}
size_t lcm_model_params_size(const lcm_model *m) { return m ? m->ir.params_size : 0; }
int lcm_model_params(const lcm_model *m) { return m ? m->ir.nparams : 0; }
void lcm_model_param(const lcm_model *m, int i, const char **regime, const char **func, const char **name,
                     size_t *offset, size_t *size, int *fixed)
{
    const ir_param *p = m && i >= 0 && i < m->ir.nparams ? &m->ir.params[i] : NULL;
    if (regime) *regime = p ? p->regime : NULL;
    if (func) *func = p ? p->func : NULL;
    if (name) *name = p ? p->name : NULL;
    if (offset) *offset = p ? p->offset : 0;
    if (size) *size = p ? p->size : 0;
    if (fixed) *fixed = p ? p->fixed : 0;
}
int lcm_model_resolve_params(const lcm_model *m, const lcm_pvalue *root, double *buf, lcm_err *err)
{
    LCM_NEEDS(err, m, root, buf);
    return core_params_resolve(&m->ir, root, buf, err);
}
int lcm_solution_read_h5(const lcm_model *m, const char *path, lcm_solution **out, lcm_err *err)
{
    LCM_NEEDS(err, m, path, out);
    int rc = core_solution_read_h5_ir(&m->ir, path, out, err);
    if (!rc) (*out)->owner = core_model_retain(m);
    return rc;
}
const lcm_model *core_model_retain(const lcm_model *m)
{
    atomic_fetch_add(&((lcm_model *)m)->refs, 1); /* the count is the one part of a model that changes */
    return m;
}

void core_model_release(const lcm_model *m) { lcm_model_free((lcm_model *)m); }

void lcm_model_free(lcm_model *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) > 1) return; /* a solver, solution or panel still holds it */
    ir_model_free(&m->ir);
    free(m->manifest);
    free(m->source);
    free(m);
}

void core_describe_values(const ir_regime *r, const double *x, lcm_sb *out)
{
    if (r->nstates == 0) {
        base_sb_puts(out, "the only state (the regime has no states)");
        return;
    }
    for (int i = 0; i < r->nstates; ++i) {
        const ir_grid *g = &r->states[i].grid;
        base_sb_printf(out, "%s%s=", i ? ", " : "", r->states[i].name);
        /* a code only when x is one (the range test first: casting NaN or a huge x is undefined) */
        if (grid_is_discrete(g) && x[i] >= 0 && x[i] < g->n && x[i] == (double)(int)x[i])
            base_sb_puts(out, g->labels[(int)x[i]]);
        else base_sb_printf(out, "%.10g", x[i]);
    }
}

void core_describe_state(const ir_regime *r, lcm_index s, int period, const double *G, const ir_grid_layout *L,
                        lcm_sb *out)
{
    double *x = base_xcalloc((size_t)r->nstates + 1, sizeof *x);
    int *code = base_xcalloc((size_t)r->nstates + 1, sizeof *code);
    ir_layout_decode(r->states, r->nstates, -1, s, code);
    for (int i = 0; i < r->nstates; ++i) {
        const ir_grid *g = &r->states[i].grid;
        x[i] = grid_is_discrete(g) ? code[i] : G[ir_grid_at(g, L->state_off[r->id][i], period) + (size_t)code[i]];
    }
    core_describe_values(r, x, out);
    free(code);
    free(x);
}
