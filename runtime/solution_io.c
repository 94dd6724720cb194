/* solution_io.c - writing solutions: HDF5 for programs, CSV for eyes.
 *
 * Both are written to a temporary file and renamed, so a failed write never
 * leaves a partial file under the requested name.  HDF5 object times are
 * not recorded: the same solution gives the same bytes.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grid.h"
#include "solver_internal.h"

/* Moves a finished temporary file into place, or removes it when writing
 * failed: the requested name never holds a partial file. */
static int commit_output(char *tmp, const char *path, int failed, lcm_err *err)
{
    int rc = 0;
    if (failed || rename(tmp, path) != 0) {
        unlink(tmp);
        rc = lcm_fail(err, LCM_E_IO, "cannot write '%s' (disk full or not writable?)", path);
    }
    free(tmp);
    return rc;
}

/* ---- HDF5 --------------------------------------------------------------- */
static hid_t str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static int attr_strings(hid_t obj, const char *name, const char *const *v, int n)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t sp = n ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_NULL), t = str_type();
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : (n ? H5Awrite(a, t, v) : 0);
    if (a >= 0) H5Aclose(a);
    H5Tclose(t), H5Sclose(sp);
    return rc < 0;
}

static int attr_string(hid_t obj, const char *name, const char *v)
{
    hid_t sp = H5Screate(H5S_SCALAR), t = str_type();
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, t, &v);
    if (a >= 0) H5Aclose(a);
    H5Tclose(t), H5Sclose(sp);
    return rc < 0;
}

static int attr_doubles(hid_t obj, const char *name, const double *v, int n, int scalar)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t sp = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, v);
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return rc < 0;
}

static int attr_int(hid_t obj, const char *name, int v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_INT, &v);
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return rc < 0;
}

static hid_t untimed(hid_t cls)
{
    hid_t p = H5Pcreate(cls);
    H5Pset_obj_track_times(p, 0);
    return p;
}

static int write_regime_axes(hid_t d, const ir_regime *r, const lcm_solution *sol)
{
    int bad = 0;
    const char **names = xcalloc((size_t)r->nstates + 1, sizeof *names);
    for (int s = 0; s < r->nstates; ++s) names[s] = r->states[s].name;
    bad |= attr_strings(d, "axes", names, r->nstates);
    free(names);
    for (int s = 0; s < r->nstates && !bad; ++s) {
        const ir_grid *g = &r->states[s].grid;
        char key[256];
        if (grid_is_discrete(g)) {
            snprintf(key, sizeof key, "labels_%s", r->states[s].name);
            bad |= attr_strings(d, key, (const char *const *)g->labels, g->n);
        } else {
            snprintf(key, sizeof key, "grid_%s", r->states[s].name);
            bad |= attr_doubles(d, key, sol->grids + sol->layout.state_off[r->id][s], g->n, 0);
            if (g->kind == GRID_PROCESS) { /* its transition matrix, row = current point */
                snprintf(key, sizeof key, "transition_%s", r->states[s].name);
                bad |= attr_doubles(d, key, sol->grids + sol->layout.matrix_off[r->id][s], g->n * g->n, 0);
            }
        }
    }
    return bad;
}

static int write_h5_body(const lcm_solution *s, hid_t f)
{
    const ir_model *m = s->m;
    int bad = 0;
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    bad |= attr_string(root, "format", "lcm-solution");
    bad |= attr_int(root, "format_version", 1);
    bad |= attr_string(root, "model", m->name);
    bad |= attr_string(root, "source_hash", m->source_hash ? m->source_hash : "");
    bad |= attr_int(root, "precision", s->precision);
    bad |= attr_doubles(root, "ages", m->ages, m->nperiods, 0);
    const char **rn = xcalloc((size_t)m->nregimes, sizeof *rn);
    for (int r = 0; r < m->nregimes; ++r) rn[r] = m->regimes[r].name;
    bad |= attr_strings(root, "regimes", rn, m->nregimes);
    free(rn);
    H5Gclose(root);
    hid_t gcpl = untimed(H5P_GROUP_CREATE), dcpl = untimed(H5P_DATASET_CREATE);
    hid_t vg = H5Gcreate2(f, "V", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t type = s->precision == 32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    for (int t = 0; t < m->nperiods && !bad && vg >= 0; ++t) {
        char name[64];
        snprintf(name, sizeof name, "period_%d", t);
        hid_t pg = H5Gcreate2(vg, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        if (pg < 0) {
            bad = 1;
            break;
        }
        double age = m->ages[t];
        bad |= attr_doubles(pg, "age", &age, 1, 1);
        bad |= attr_int(pg, "period", t);
        for (int r = 0; r < m->nregimes && !bad; ++r) {
            const void *V = s->V[t * m->nregimes + r];
            if (!V) continue;
            const ir_regime *R = &m->regimes[r];
            hsize_t dims[64];
            for (int k = 0; k < R->nstates; ++k) dims[k] = (hsize_t)R->states[k].grid.n;
            hid_t sp = R->nstates ? H5Screate_simple(R->nstates, dims, NULL) : H5Screate(H5S_SCALAR);
            hid_t d = H5Dcreate2(pg, R->name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            bad |= d < 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, V) < 0;
            if (d >= 0) {
                bad |= attr_doubles(d, "age", &age, 1, 1) || attr_int(d, "period", t);
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

int lcm_solution_write_h5(const lcm_solution *s, const char *path, lcm_err *err)
{
    if (check_output_path(path, err)) return err->code;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (f < 0) {
        free(tmp);
        return lcm_fail(err, LCM_E_IO, "cannot create '%s' (does the directory exist and is it writable?)", path);
    }
    int bad = write_h5_body(s, f);
    bad |= H5Fclose(f) < 0;
    return commit_output(tmp, path, bad, err);
}

/* ---- CSV ------------------------------------------------------------------ */
static void csv_value(FILE *f, double x, int precision)
{
    if (x != x) fputs("nan", f);
    else if (x == 1.0 / 0.0) fputs("inf", f);
    else if (x == -1.0 / 0.0) fputs("-inf", f);
    else fprintf(f, precision == 32 ? "%.9g" : "%.17g", x);
}

int lcm_solution_write_csv(const lcm_solution *s, const char *path, lcm_err *err)
{
    const ir_model *m = s->m;
    if (check_output_path(path, err)) return err->code;
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(tmp);
        return lcm_fail(err, LCM_E_IO, "cannot create '%s' (does the directory exist and is it writable?)", path);
    }
    /* columns: the union of the regimes' state names, in order of appearance */
    const char **cols = NULL;
    int ncols = 0;
    for (int r = 0; r < m->nregimes; ++r)
        for (int k = 0; k < m->regimes[r].nstates; ++k) {
            const char *n = m->regimes[r].states[k].name;
            int seen = 0;
            for (int c = 0; c < ncols; ++c) seen |= !strcmp(cols[c], n);
            if (!seen) cols = xrealloc(cols, (size_t)(ncols + 1) * sizeof *cols), cols[ncols++] = n;
        }
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
                fprintf(f, "%d,%.17g,%s", t, m->ages[t], R->name);
                for (int c = 0; c < ncols; ++c) {
                    int k = col_of[c];
                    fputc(',', f);
                    if (k < 0) continue;
                    if (grid_is_discrete(&R->states[k].grid)) fputs(R->states[k].grid.labels[code[k]], f);
                    else fprintf(f, "%.17g", pts[k][code[k]]);
                }
                fputc(',', f);
                csv_value(f, lcm_solution_value(s, t, r, i), s->precision);
                fputc('\n', f);
            }
            free(pts), free(col_of), free(code);
        }
    free(cols);
    int bad = ferror(f);
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    return commit_output(tmp, path, bad, err);
}
