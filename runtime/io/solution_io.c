/* solution_io.c - solutions on disk: HDF5 for programs (and for simulating
 * later), CSV for eyes.  See output.h for how files are written. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "output.h"
#include "solver_internal.h"
#include "vars.h"

static int write_regime_axes(hid_t d, const ir_regime *r, const lcm_solution *sol)
{
    int bad = 0;
    const char **names = xcalloc((size_t)r->nstates + 1, sizeof *names);
    for (int s = 0; s < r->nstates; ++s) names[s] = r->states[s].name;
    bad |= h5_attr_strings(d, "axes", names, r->nstates);
    free(names);
    for (int s = 0; s < r->nstates && !bad; ++s) {
        const ir_grid *g = &r->states[s].grid;
        char key[256];
        if (grid_is_discrete(g)) {
            snprintf(key, sizeof key, "labels_%s", r->states[s].name);
            bad |= h5_attr_strings(d, key, (const char *const *)g->labels, g->n);
        } else {
            snprintf(key, sizeof key, "grid_%s", r->states[s].name);
            bad |= h5_attr_doubles(d, key, sol->grids + sol->layout.state_off[r->id][s], g->n, 0);
            if (g->kind == GRID_PROCESS) { /* its transition matrix, row = current point */
                snprintf(key, sizeof key, "transition_%s", r->states[s].name);
                bad |= h5_attr_doubles(d, key, sol->grids + sol->layout.matrix_off[r->id][s], g->n * g->n, 0);
            }
        }
    }
    return bad;
}

/* The solution, or the V arrays with include[t * nregimes + r] set (NULL: all). */
static int write_h5_body(const lcm_solution *s, hid_t f, const unsigned char *include)
{
    const ir_model *m = s->m;
    int bad = 0;
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    bad |= h5_attr_string(root, "format", "lcm-solution");
    bad |= h5_attr_int(root, "format_version", 2);
    bad |= h5_attr_string(root, "model", m->name);
    bad |= h5_attr_string(root, "source_hash", m->source_hash ? m->source_hash : "");
    bad |= h5_attr_int(root, "precision", s->precision);
    bad |= h5_attr_doubles(root, "ages", m->ages, m->nperiods, 0);
    /* the parameters of the solve: a simulation from this file uses them */
    bad |= h5_attr_doubles(root, "params", s->params, (int)m->params_size, 0);
    const char **rn = xcalloc((size_t)m->nregimes, sizeof *rn);
    for (int r = 0; r < m->nregimes; ++r) rn[r] = m->regimes[r].name;
    bad |= h5_attr_strings(root, "regimes", rn, m->nregimes);
    free(rn);
    /* how it was solved: the workers that shared the sharded states (V itself is whole) */
    ir_vars V;
    ir_vars_build(m, &V);
    ir_shard S;
    ir_shard_build(m, &V, &S);
    const char *sharded[IR_MAX_SHARDED];
    for (int k = 0; k < S.nsharded; ++k) sharded[k] = V.state_names[S.slot[k]];
    bad |= h5_attr_strings(root, "sharded_states", sharded, S.nsharded);
    bad |= h5_attr_int(root, "shards", s->shards);
    ir_vars_free(&V);
    H5Gclose(root);
    hid_t gcpl = h5_untimed(H5P_GROUP_CREATE), dcpl = h5_untimed(H5P_DATASET_CREATE);
    hid_t vg = H5Gcreate2(f, "V", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t type = s->precision == 32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    for (int t = 0; t < m->nperiods && !bad && vg >= 0; ++t) {
        int any = 0;
        for (int r = 0; r < m->nregimes; ++r) any |= !include || include[t * m->nregimes + r];
        if (!any) continue;
        char name[64];
        snprintf(name, sizeof name, "period_%d", t);
        hid_t pg = H5Gcreate2(vg, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        if (pg < 0) {
            bad = 1;
            break;
        }
        double age = m->ages[t];
        bad |= h5_attr_doubles(pg, "age", &age, 1, 1);
        bad |= h5_attr_int(pg, "period", t);
        for (int r = 0; r < m->nregimes && !bad; ++r) {
            const void *V = s->V[t * m->nregimes + r];
            if (!V || (include && !include[t * m->nregimes + r])) continue;
            const ir_regime *R = &m->regimes[r];
            hsize_t dims[64];
            for (int k = 0; k < R->nstates; ++k) dims[k] = (hsize_t)R->states[k].grid.n;
            hid_t sp = R->nstates ? H5Screate_simple(R->nstates, dims, NULL) : H5Screate(H5S_SCALAR);
            hid_t d = H5Dcreate2(pg, R->name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            bad |= d < 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, V) < 0;
            if (d >= 0) {
                bad |= h5_attr_doubles(d, "age", &age, 1, 1) || h5_attr_int(d, "period", t);
                bad |= write_regime_axes(d, R, s);
                H5Dclose(d);
            }
            H5Sclose(sp);
        }
        H5Gclose(pg);
    }
    if (vg < 0) bad = 1;
    else H5Gclose(vg);
    H5Pclose(gcpl), H5Pclose(dcpl);
    return bad;
}

int lcm_solution_write_h5_subset(const lcm_solution *s, const char *path, const unsigned char *include, lcm_err *err)
{
    char *tmp;
    hid_t f = lcm_output_create_h5(path, &tmp, err);
    if (f < 0) return err->code;
    return lcm_output_commit_h5(f, tmp, path, write_h5_body(s, f, include), err);
}

int lcm_solution_write_h5(const lcm_solution *s, const char *path, lcm_err *err)
{
    return lcm_solution_write_h5_subset(s, path, NULL, err);
}

/* ---- CSV ------------------------------------------------------------------ */
int lcm_solution_write_csv(const lcm_solution *s, const char *path, lcm_err *err)
{
    const ir_model *m = s->m;
    char *tmp;
    FILE *f = lcm_output_open_csv(path, &tmp, err);
    if (!f) return err->code;
    /* columns: every state name of the model (vars.h) */
    ir_vars V;
    ir_vars_build(m, &V);
    const char **cols = V.state_names;
    int ncols = V.nstates;
    fputs("period,age,regime", f);
    for (int c = 0; c < ncols; ++c) fprintf(f, ",%s", cols[c]);
    fputs(",V\n", f);
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            const ir_regime *R = &m->regimes[r];
            if (!s->V[t * m->nregimes + r]) continue;
            const double **pts = xcalloc((size_t)R->nstates + 1, sizeof *pts);
            int *col_of = xcalloc((size_t)ncols + 1, sizeof *col_of);
            for (int k = 0; k < R->nstates; ++k) pts[k] = s->grids + s->layout.state_off[r][k];
            for (int c = 0; c < ncols; ++c) col_of[c] = ir_find_state(R, cols[c]);
            int *code = xcalloc((size_t)R->nstates + 1, sizeof *code);
            for (lcm_index i = 0; i < s->n[r]; ++i) {
                lcm_index rem = i;
                for (int k = R->nstates - 1; k >= 0; --k) code[k] = (int)(rem % R->states[k].grid.n), rem /= R->states[k].grid.n;
                fprintf(f, "%d,", t);
                lcm_csv_number(f, m->ages[t], 64);
                fprintf(f, ",%s", R->name);
                for (int c = 0; c < ncols; ++c) {
                    int k = col_of[c];
                    fputc(',', f);
                    if (k < 0) continue;
                    if (grid_is_discrete(&R->states[k].grid)) fputs(R->states[k].grid.labels[code[k]], f);
                    else lcm_csv_number(f, pts[k][code[k]], 64);
                }
                fputc(',', f);
                lcm_csv_number(f, lcm_solution_value(s, t, r, i), s->precision);
                fputc('\n', f);
            }
            free(pts), free(col_of), free(code);
        }
    ir_vars_free(&V);
    return lcm_output_commit_csv(f, tmp, path, 0, err);
}

/* ---- reading a solution back (to simulate without solving again) ---------- */
static int read_attr_string(hid_t obj, const char *name, char *out, size_t len)
{
    out[0] = 0;
    if (H5Aexists(obj, name) <= 0) return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a), mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(t));
    char *v = NULL;
    int bad = H5Tget_class(t) != H5T_STRING || !H5Tis_variable_str(t) || H5Aread(a, mt, &v) < 0 || !v;
    if (!bad) snprintf(out, len, "%s", v);
    if (v) H5free_memory(v);
    H5Tclose(mt), H5Tclose(t), H5Aclose(a);
    return bad;
}

/* A numeric attribute of exactly n elements. */
static int read_attr_numbers(hid_t obj, const char *name, hid_t type, void *out, hssize_t n)
{
    if (H5Aexists(obj, name) <= 0) return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), sp = H5Aget_space(a);
    int bad = H5Sget_simple_extent_npoints(sp) != n || (n > 0 && H5Aread(a, type, out) < 0);
    H5Sclose(sp), H5Aclose(a);
    return bad;
}

/* V of (t, r): a dataset of the regime's shape and the solution's type. */
static int read_V(hid_t f, const ir_regime *R, int t, void *V, int precision)
{
    char name[512];
    snprintf(name, sizeof name, "/V/period_%d/%s", t, R->name);
    if (H5Lexists(f, "/V", H5P_DEFAULT) <= 0 || H5Lexists(f, name, H5P_DEFAULT) <= 0) return 1;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), sp = H5Dget_space(d);
    hsize_t dims[64];
    int nd = H5Sget_simple_extent_ndims(sp), bad = nd != R->nstates || nd > 64;
    if (!bad && nd > 0) H5Sget_simple_extent_dims(sp, dims, NULL);
    for (int k = 0; k < nd && !bad; ++k) bad |= dims[k] != (hsize_t)R->states[k].grid.n;
    hid_t type = precision == 32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    if (!bad) bad = H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, V) < 0;
    H5Sclose(sp), H5Dclose(d);
    return bad;
}

static int read_h5_body(const ir_model *m, hid_t f, const char *path, lcm_solution **out, lcm_err *err)
{
    char format[64], hash[128];
    int version = 0, precision = 0;
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    int bad = read_attr_string(root, "format", format, sizeof format) || strcmp(format, "lcm-solution");
    if (!bad) bad = read_attr_numbers(root, "format_version", H5T_NATIVE_INT, &version, 1);
    if (bad) {
        H5Gclose(root);
        return lcm_fail(err, LCM_E_INPUT, "'%s' is not a solution written by lcm solve --out", path);
    }
    if (version < 2) {
        H5Gclose(root);
        return lcm_fail(err, LCM_E_INPUT, "'%s' was written by an older lcm (format %d, without the parameters of "
                        "its solve); solve again", path, version);
    }
    bad = read_attr_string(root, "source_hash", hash, sizeof hash) || !m->source_hash || strcmp(hash, m->source_hash);
    if (bad) {
        H5Gclose(root);
        return lcm_fail(err, LCM_E_INPUT, "'%s' was computed for another model or another version of model '%s' "
                        "(its generated code differs); solve again", path, m->name);
    }
    if (read_attr_numbers(root, "precision", H5T_NATIVE_INT, &precision, 1) || (precision != 64 && precision != 32)) {
        H5Gclose(root);
        return lcm_fail(err, LCM_E_INPUT, "'%s': no valid precision attribute", path);
    }
    lcm_solution *sol = lcm_solution_alloc(m, precision, err);
    if (!sol) {
        H5Gclose(root);
        return err->code;
    }
    bad = read_attr_numbers(root, "params", H5T_NATIVE_DOUBLE, sol->params, (hssize_t)m->params_size);
    H5Gclose(root);
    if (bad) {
        lcm_solution_free(sol);
        return lcm_fail(err, LCM_E_INPUT, "'%s': the parameters of its solve are missing or of the wrong size", path);
    }
    char why[512];
    if (ir_grid_buffer_fill(m, &sol->layout, sol->params, sol->grids, why, sizeof why)) {
        lcm_solution_free(sol);
        return lcm_fail(err, LCM_E_INPUT, "'%s': its parameters give invalid grids: %s", path, why);
    }
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            void *V = sol->V[t * m->nregimes + r];
            if (V && read_V(f, &m->regimes[r], t, V, precision)) {
                lcm_solution_free(sol);
                return lcm_fail(err, LCM_E_INPUT, "'%s': V of regime '%s' in period %d is missing or of the wrong "
                                "shape", path, m->regimes[r].name, t);
            }
        }
    *out = sol;
    return 0;
}

int lcm_solution_read_h5(const ir_model *m, const char *path, lcm_solution **out, lcm_err *err)
{
    hid_t f;
    if (lcm_h5_open_read(path, "a solution written by lcm solve --out", &f, err)) return err->code;
    int rc = read_h5_body(m, f, path, out, err);
    H5Fclose(f);
    return rc;
}

const double *lcm_solution_params(const lcm_solution *s) { return s->params; }
