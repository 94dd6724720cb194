/* solution_io.c - solutions on disk: HDF5 for programs (and for simulating
 * later), CSV for eyes.  See output.h for how files are written.
 *
 * The HDF5 layout, format 4 (docs/user-guide.md, "Reading results"):
 *   /                         attributes format, format_version, model,
 *                             source_hash, precision, shards
 *   /ages /params /param_names /regimes /sharded_states     datasets
 *   /axes/<regime>/grid_<state>, labels_<state>, transition_<state>
 *   /V/period_<t>/<regime>    V; attributes age, period, axes, sha256
 *   /marginal/period_<t>/<regime>   regimes that solve by EGM (and terminal
 *                             ones they move into): d V / d x of the liquid
 *                             state x (attribute `of`), as V
 * sha256: the hex SHA-256 of the array's values as lcm holds them (IEEE,
 * little-endian on every host lcm runs on), so that reading it back finds
 * values changed after lcm wrote them.  Format 3 had no sha256; format 2
 * kept the root's arrays as its attributes, and each V dataset's grids,
 * labels and transitions as attributes of the dataset, which HDF5 limits to
 * 64 KiB: a grid of more than 8,190 points could not be written.  The
 * reader takes all three. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "grid.h"
#include "h5_vlen.h"
#include "layout.h"
#include "model.h"
#include "output.h"
#include "sha256.h"
#include "shard.h"
#include "solution.h"
#include "vars.h"

enum { FORMAT_OLDEST = 2, FORMAT = 4 };

/* A regime with more states than HDF5 has dimensions cannot be a dataset. */
static int check_rank(const ir_model *m, const char *path, lcm_err *err)
{
    for (int r = 0; r < m->nregimes; ++r)
        if (m->regimes[r].nstates > H5S_MAX_RANK)
            return base_fail(err, LCM_E_IO, "cannot write '%s': regime '%s' has %d states, but an HDF5 dataset has "
                            "at most %d dimensions", path, m->regimes[r].name, m->regimes[r].nstates, H5S_MAX_RANK);
    return 0;
}

/* The file's scalars as attributes of the root, its arrays as datasets there. */
/* /param_names: the name of each element of /params, "regime.function.name"
 * and, in an array, its codes ("working.income.wage[1]", row-major), so
 * that a reader can tell the parameters of the solve apart. */
static int write_param_names(hid_t f, const ir_model *m)
{
    size_t n = m->params_size;
    char **names = base_xcalloc(n + 1, sizeof *names);
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        for (size_t j = 0; j < p->size && p->offset + j < n; ++j) {
            lcm_sb b;
            base_sb_init(&b);
            base_sb_printf(&b, "%s.%s.%s", p->regime, p->func, p->name);
            for (int d = 0, rest = (int)j, below = (int)p->size; d < p->ndims; ++d) {
                below /= p->dims[d];
                base_sb_printf(&b, "%s%d", d ? "," : "[", rest / below);
                rest %= below;
            }
            if (p->ndims) base_sb_putc(&b, ']');
            names[p->offset + j] = base_sb_take(&b);
        }
    }
    for (size_t k = 0; k < n; ++k)
        if (!names[k]) names[k] = base_xstrdup(""); /* a slot no parameter claims: none known, kept aligned */
    int bad = io_h5_data_strings(f, "param_names", (const char *const *)names, (hsize_t)n);
    for (size_t k = 0; k < n; ++k) free(names[k]);
    free(names);
    return bad;
}

static int write_root(const lcm_solution *s, hid_t f)
{
    const ir_model *m = s->m;
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    int bad = io_h5_attr_string(root, "format", "lcm-solution") || io_h5_attr_int(root, "format_version", FORMAT) ||
              io_h5_attr_string(root, "model", m->name) ||
              io_h5_attr_string(root, "source_hash", m->source_hash ? m->source_hash : "") ||
              io_h5_attr_int(root, "precision", s->precision) || io_h5_attr_int(root, "shards", s->shards);
    H5Gclose(root);
    if (bad) return bad;
    bad |= io_h5_data_doubles(f, "ages", m->ages, (hsize_t)m->nperiods);
    /* the parameters of the solve: a simulation from this file uses them,
     * and a reader finds each element's name beside it */
    bad |= io_h5_data_doubles(f, "params", s->params, (hsize_t)m->params_size);
    bad |= write_param_names(f, m);
    const char **rn = base_xcalloc((size_t)m->nregimes, sizeof *rn);
    for (int r = 0; r < m->nregimes; ++r) rn[r] = m->regimes[r].name;
    bad |= io_h5_data_strings(f, "regimes", rn, (hsize_t)m->nregimes);
    free(rn);
    /* how it was solved: the workers that shared the sharded states (V itself is whole) */
    ir_vars V;
    ir_vars_build(m, &V);
    ir_shard S;
    ir_shard_build(m, &V, &S);
    const char *sharded[IR_MAX_SHARDED];
    for (int k = 0; k < S.nsharded; ++k) sharded[k] = V.state_names[S.slot[k]];
    bad |= io_h5_data_strings(f, "sharded_states", sharded, (hsize_t)S.nsharded);
    ir_vars_free(&V);
    return bad;
}

/* /axes/<regime>: the labels of its discrete states, the points of its
 * continuous ones (a grid by age: periods x points) and the transition
 * matrix of its processes (row = current point), each named by the state. */
static int write_regime_axes(hid_t axes, const ir_regime *r, const lcm_solution *sol)
{
    hid_t g = io_h5_group(axes, r->name);
    int bad = g < 0;
    for (int s = 0; s < r->nstates && !bad; ++s) {
        const ir_grid *grid = &r->states[s].grid;
        hsize_t n = (hsize_t)grid->n;
        char key[256];
        if (grid_is_discrete(grid)) {
            snprintf(key, sizeof key, "labels_%s", r->states[s].name);
            bad |= io_h5_data_strings(g, key, (const char *const *)grid->labels, n);
            continue;
        }
        snprintf(key, sizeof key, "grid_%s", r->states[s].name);
        if (grid->kind == GRID_AGE) { /* its rows, one per period */
            hsize_t dims[2] = {(hsize_t)grid->nperiods, n};
            bad |= io_h5_data(g, key, H5T_NATIVE_DOUBLE, 2, dims, sol->grids + sol->layout.state_off[r->id][s]);
            continue;
        }
        bad |= io_h5_data_doubles(g, key, sol->grids + sol->layout.state_off[r->id][s], n);
        if (grid->kind == GRID_PROCESS && !bad) {
            hsize_t dims[2] = {n, n};
            snprintf(key, sizeof key, "transition_%s", r->states[s].name);
            bad |= io_h5_data(g, key, H5T_NATIVE_DOUBLE, 2, dims, sol->grids + sol->layout.matrix_off[r->id][s]);
        }
    }
    if (g >= 0) H5Gclose(g);
    return bad;
}

/* The sha256 attribute of an array of n states of the solution's precision. */
static void array_digest(const lcm_solution *s, const void *data, lcm_index n, char out[65])
{
    base_sha256_hex(data, (size_t)n * (s->precision == 32 ? sizeof(float) : sizeof(double)), out);
}

/* V (or the marginal value of an EGM regime: `of` its liquid state) of
 * regime R in period group pg: the regime's state grids as its shape (a
 * scalar without states), its states' names as `axes`, its digest. */
static int write_V(hid_t pg, const lcm_solution *s, int t, const ir_regime *R, const void *data, const char *of)
{
    hsize_t dims[H5S_MAX_RANK];
    for (int k = 0; k < R->nstates; ++k) dims[k] = (hsize_t)R->states[k].grid.n;
    hid_t type = s->precision == 32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    hid_t d = io_h5_dataset(pg, R->name, type, R->nstates, dims, data);
    if (d < 0) return 1;
    const char **names = base_xcalloc((size_t)R->nstates + 1, sizeof *names);
    for (int k = 0; k < R->nstates; ++k) names[k] = R->states[k].name;
    char digest[65];
    array_digest(s, data, s->n[R->id], digest);
    int bad = io_h5_attr_double(d, "age", s->m->ages[t]) || io_h5_attr_int(d, "period", t) ||
              io_h5_attr_strings(d, "axes", names, R->nstates) || (of && io_h5_attr_string(d, "of", of)) ||
              io_h5_attr_string(d, "sha256", digest);
    free(names);
    H5Dclose(d);
    return bad;
}

/* Whether the file holds V of (t, r): the regime is active then, and
 * include[t * nregimes + r] is set (include NULL: all). */
static int written(const lcm_solution *s, const unsigned char *include, int t, int r)
{
    int i = t * s->m->nregimes + r;
    return s->V[i] && (!include || include[i]);
}

/* Group `group` (V, or marginal: the marginal values of the EGM regimes)
 * with a group per period holding its arrays that `written` names. */
static int write_arrays(const lcm_solution *s, hid_t f, const unsigned char *include, const char *group, int marginal)
{
    const ir_model *m = s->m;
    hid_t vg = io_h5_group(f, group);
    int bad = vg < 0;
    for (int t = 0; t < m->nperiods && !bad; ++t) {
        int any = 0;
        for (int r = 0; r < m->nregimes; ++r) any |= written(s, include, t, r) && (!marginal || s->M[t * m->nregimes + r]);
        if (!any) continue;
        char name[64];
        snprintf(name, sizeof name, "period_%d", t);
        hid_t pg = io_h5_group(vg, name);
        bad = pg < 0 || io_h5_attr_double(pg, "age", m->ages[t]) || io_h5_attr_int(pg, "period", t);
        for (int r = 0; r < m->nregimes && !bad; ++r) {
            const ir_regime *R = &m->regimes[r];
            const void *data = marginal ? s->M[t * m->nregimes + r] : s->V[t * m->nregimes + r];
            if (written(s, include, t, r) && data)
                bad |= write_V(pg, s, t, R, data, marginal ? R->states[ir_marginal_state(R)].name : NULL);
        }
        if (pg >= 0) H5Gclose(pg);
    }
    if (vg >= 0) H5Gclose(vg);
    return bad;
}

/* The solution, or the V arrays that `written` names. */
static int write_h5_body(const lcm_solution *s, hid_t f, const unsigned char *include)
{
    const ir_model *m = s->m;
    int bad = write_root(s, f), egm = 0;
    hid_t axes = bad ? -1 : io_h5_group(f, "axes");
    bad |= axes < 0;
    for (int r = 0; r < m->nregimes && !bad; ++r) bad |= write_regime_axes(axes, &m->regimes[r], s);
    if (axes >= 0) H5Gclose(axes);
    for (int r = 0; r < m->nregimes; ++r) egm |= ir_marginal_state(&m->regimes[r]) >= 0;
    if (!bad) bad = write_arrays(s, f, include, "V", 0);
    if (!bad && egm) bad = write_arrays(s, f, include, "marginal", 1);
    return bad;
}

int core_solution_write_h5_subset(const lcm_solution *s, const char *path, const unsigned char *include, lcm_err *err)
{
    lcm_assert(s && path);
    if (check_rank(s->m, path, err)) return err->code;
    char *tmp;
    hid_t f = io_output_create_h5(path, &tmp, err);
    if (f < 0) return err->code;
    io_h5_failure_reset();
    return io_h5_finish(f, tmp, path, write_h5_body(s, f, include), err);
}

int lcm_solution_write_h5(const lcm_solution *s, const char *path, lcm_err *err)
{
    LCM_NEEDS(err, s, path);
    return core_solution_write_h5_subset(s, path, NULL, err);
}

/* ---- CSV ------------------------------------------------------------------ */
int lcm_solution_write_csv(const lcm_solution *s, const char *path, lcm_err *err)
{
    LCM_NEEDS(err, s, path);
    const ir_model *m = s->m;
    char *tmp;
    FILE *f = io_output_open_csv(path, &tmp, err);
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
            const double **pts = base_xcalloc((size_t)R->nstates + 1, sizeof *pts);
            int *col_of = base_xcalloc((size_t)ncols + 1, sizeof *col_of);
            for (int k = 0; k < R->nstates; ++k) pts[k] = s->grids + ir_grid_at(&R->states[k].grid, s->layout.state_off[r][k], t);
            for (int c = 0; c < ncols; ++c) col_of[c] = ir_find_state(R, cols[c]);
            int *code = base_xcalloc((size_t)R->nstates + 1, sizeof *code);
            for (lcm_index i = 0; i < s->n[r]; ++i) {
                ir_layout_decode(R->states, R->nstates, -1, i, code);
                fprintf(f, "%d,", t);
                io_csv_number(f, m->ages[t], 64);
                fprintf(f, ",%s", R->name);
                for (int c = 0; c < ncols; ++c) {
                    int k = col_of[c];
                    fputc(',', f);
                    if (k < 0) continue;
                    if (grid_is_discrete(&R->states[k].grid)) fputs(R->states[k].grid.labels[code[k]], f);
                    else io_csv_number(f, pts[k][code[k]], 64);
                }
                fputc(',', f);
                io_csv_number(f, lcm_solution_value(s, t, r, i), s->precision);
                fputc('\n', f);
            }
            free(pts), free(col_of), free(code);
        }
    ir_vars_free(&V);
    return io_output_commit_csv(f, tmp, path, 0, err);
}

/* ---- reading a solution back (to simulate without solving again) ---------- */
/* A string attribute of fixed length, shorter than len (format 3). */
static int read_fixed_string(hid_t a, hid_t t, char *out, size_t len)
{
    size_t size = H5Tget_size(t);
    if (H5Tis_variable_str(t) != 0 || size == 0 || size >= len) return 1;
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, size + 1); /* room for the NUL a padded string lacks */
    H5Tset_strpad(mt, H5T_STR_NULLTERM);
    H5Tset_cset(mt, H5Tget_cset(t));
    int bad = H5Aread(a, mt, out) < 0;
    H5Tclose(mt);
    return bad;
}

/* A scalar string attribute of the file at `path` as the format writes it:
 * of fixed length from format 3 on, of variable length in format 2 (read
 * without HDF5's global heap reader: see h5_vlen.h). */
static int read_attr_string(const char *path, hid_t obj, const char *name, int version, char *out, size_t len)
{
    out[0] = 0;
    if (H5Aexists(obj, name) <= 0) return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a), sp = H5Aget_space(a);
    int bad = H5Tget_class(t) != H5T_STRING || H5Sget_simple_extent_type(sp) != H5S_SCALAR;
    if (!bad) bad = version >= 3 ? read_fixed_string(a, t, out, len) : io_h5_vlen_attr_string(path, a, out, len);
    H5Sclose(sp), H5Tclose(t), H5Aclose(a);
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

/* A floating-point dataset at `path` of exactly the given shape (rank 0: a
 * scalar), read as `type`. */
static int read_dataset(hid_t f, const char *path, int rank, const hsize_t *dims, hid_t type, void *out)
{
    if (H5Lexists(f, path, io_h5_read_links()) <= 0) return 1; /* fails as well when a group on the way is missing */
    hid_t d = H5Dopen2(f, path, io_h5_read_links());
    if (d < 0) return 1;
    hid_t sp = H5Dget_space(d), ft = H5Dget_type(d);
    hsize_t have[H5S_MAX_RANK];
    int nd = H5Sget_simple_extent_ndims(sp);
    int bad = nd != rank || H5Sget_simple_extent_type(sp) != (rank ? H5S_SIMPLE : H5S_SCALAR) ||
              H5Tget_class(ft) != H5T_FLOAT || H5Tget_size(ft) != H5Tget_size(type);
    if (!bad && rank > 0) bad = H5Sget_simple_extent_dims(sp, have, NULL) != rank;
    for (int k = 0; k < rank && !bad; ++k) bad = have[k] != dims[k];
    hssize_t n = bad ? 0 : H5Sget_simple_extent_npoints(sp);
    if (!bad) bad = !io_h5_plain_storage(d, rank, dims);
    if (!bad && n > 0) bad = H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0;
    H5Tclose(ft), H5Sclose(sp), H5Dclose(d);
    return bad;
}

/* The parameters of the solve: a dataset (format 3), the root's attribute (2). */
static int read_params(hid_t f, int version, const ir_model *m, double *params)
{
    hsize_t n = (hsize_t)m->params_size;
    if (version >= 3) return read_dataset(f, "/params", 1, &n, H5T_NATIVE_DOUBLE, params);
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    int bad = read_attr_numbers(root, "params", H5T_NATIVE_DOUBLE, params, (hssize_t)n);
    H5Gclose(root);
    return bad;
}

/* V of (t, r) (or in group /marginal its marginal value): a dataset of the
 * regime's shape and the solution's type. */
static int read_V(hid_t f, const char *group, const ir_regime *R, int t, void *V, int precision)
{
    char name[512];
    snprintf(name, sizeof name, "/%s/period_%d/%s", group, t, R->name);
    hsize_t dims[H5S_MAX_RANK];
    if (R->nstates > H5S_MAX_RANK) return 1;
    for (int k = 0; k < R->nstates; ++k) dims[k] = (hsize_t)R->states[k].grid.n;
    return read_dataset(f, name, R->nstates, dims, precision == 32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, V);
}

/* Whether the array read from group's (t, r) has the digest lcm wrote with
 * it (format 4 on; before, there is none to compare). */
static int same_digest(hid_t f, const char *path, int version, const char *group, const lcm_solution *sol, int t,
                       int r, const void *data)
{
    if (version < 4) return 1;
    char name[512], have[80], want[65];
    snprintf(name, sizeof name, "/%s/period_%d/%s", group, t, sol->m->regimes[r].name);
    hid_t d = H5Dopen2(f, name, io_h5_read_links());
    if (d < 0) return 0;
    int bad = read_attr_string(path, d, "sha256", version, have, sizeof have);
    H5Dclose(d);
    array_digest(sol, data, sol->n[r], want);
    return !bad && !strcmp(have, want);
}

/* The file's version and format: formats FORMAT_OLDEST to FORMAT are read. */
static int read_version(hid_t root, const char *path, int *version, lcm_err *err)
{
    char format[64];
    if (read_attr_numbers(root, "format_version", H5T_NATIVE_INT, version, 1))
        return base_fail(err, LCM_E_INPUT, "'%s' is not a solution written by lcm solve --out", path);
    if (*version < FORMAT_OLDEST)
        return base_fail(err, LCM_E_INPUT, "'%s' is not a solution written by lcm solve --out, or one an older lcm "
                        "wrote (format %d, without the parameters of its solve); solve again", path, *version);
    if (*version > FORMAT)
        return base_fail(err, LCM_E_INPUT, "'%s' was written by a newer lcm (format %d; this one reads formats %d "
                        "to %d)", path, *version, FORMAT_OLDEST, FORMAT);
    if (read_attr_string(path, root, "format", *version, format, sizeof format) || strcmp(format, "lcm-solution"))
        return base_fail(err, LCM_E_INPUT, "'%s' is not a solution written by lcm solve --out", path);
    return 0;
}

/* The root's scalars: the format, the model the file is for, the precision. */
static int read_header(const ir_model *m, hid_t f, const char *path, int *version, int *precision, lcm_err *err)
{
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    if (root < 0) return base_fail(err, LCM_E_INPUT, "'%s' is not a solution written by lcm solve --out", path);
    char hash[128];
    int rc = read_version(root, path, version, err);
    if (!rc && (read_attr_string(path, root, "source_hash", *version, hash, sizeof hash) || !m->source_hash ||
                strcmp(hash, m->source_hash)))
        rc = base_fail(err, LCM_E_INPUT, "'%s' was computed for another model or another version of model '%s' "
                      "(its generated code differs: other -D or --fix values?); solve again", path, m->name);
    if (!rc && (read_attr_numbers(root, "precision", H5T_NATIVE_INT, precision, 1) ||
                (*precision != 64 && *precision != 32)))
        rc = base_fail(err, LCM_E_INPUT, "'%s': no valid precision attribute", path);
    H5Gclose(root);
    return rc;
}

/* The first state whose V is NaN, or -1. */
static lcm_index first_nan(const void *V, lcm_index n, int precision)
{
    const float *f = V;
    const double *d = V;
    for (lcm_index i = 0; i < n; ++i)
        if (precision == 32 ? isnan(f[i]) : isnan(d[i])) return i;
    return -1;
}

/* V of every period and active regime, without NaN (a solve that meets NaN
 * stops, so a file with it was changed after lcm wrote it), and the
 * marginal values of EGM regimes; each as its digest says lcm wrote it. */
static int read_all_V(hid_t f, const char *path, int version, lcm_solution *sol, lcm_err *err)
{
    const ir_model *m = sol->m;
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            void *V = sol->V[t * m->nregimes + r];
            if (!V) continue;
            if (read_V(f, "V", &m->regimes[r], t, V, sol->precision))
                return base_fail(err, LCM_E_INPUT, "'%s': V of regime '%s' in period %d is missing, of the wrong "
                                "shape or type, or stored outside the file", path, m->regimes[r].name, t);
            void *M = sol->M[t * m->nregimes + r]; /* EGM's: NaN where no action is feasible */
            if (M && read_V(f, "marginal", &m->regimes[r], t, M, sol->precision))
                return base_fail(err, LCM_E_INPUT, "'%s': the marginal value of regime '%s' (for EGM) in period "
                                "%d is missing, of the wrong shape or type, or stored outside the file", path,
                                m->regimes[r].name, t);
            lcm_index bad = first_nan(V, sol->n[r], sol->precision);
            if (bad < 0) {
                const char *changed = !same_digest(f, path, version, "V", sol, t, r, V) ? "V"
                                      : M && !same_digest(f, path, version, "marginal", sol, t, r, M)
                                          ? "the marginal value"
                                          : NULL;
                if (changed)
                    return base_fail(err, LCM_E_INPUT, "'%s': %s of regime '%s' in period %d is not what lcm wrote "
                                    "(its sha256 differs: the file was changed after lcm wrote it); solve again",
                                    path, changed, m->regimes[r].name, t);
                continue;
            }
            lcm_sb at;
            base_sb_init(&at);
            core_describe_state(&m->regimes[r], bad, t, sol->grids, &sol->layout, &at);
            base_fail(err, LCM_E_INPUT, "'%s': V of regime '%s' in period %d is NaN at %s (a solve stops at NaN: "
                     "the file was changed after lcm wrote it)", path, m->regimes[r].name, t, at.s);
            base_sb_free(&at);
            return err->code;
        }
    return 0;
}

static int read_h5_body(const ir_model *m, hid_t f, const char *path, lcm_solution **out, lcm_err *err)
{
    int version = 0, precision = 0;
    if (read_header(m, f, path, &version, &precision, err)) return err->code;
    lcm_solution *sol = core_solution_alloc(m, precision, err);
    if (!sol) return err->code;
    int rc = 0;
    char why[512];
    if (read_params(f, version, m, sol->params))
        rc = base_fail(err, LCM_E_INPUT, "'%s': the parameters of its solve are missing or of the wrong size", path);
    else if (ir_grid_buffer_fill(m, &sol->layout, sol->params, precision == 32, sol->grids, why, sizeof why))
        rc = base_fail(err, LCM_E_INPUT, "'%s': its parameters give invalid grids: %s", path, why);
    if (!rc) rc = read_all_V(f, path, version, sol, err);
    if (rc) lcm_solution_free(sol);
    else *out = sol;
    return rc;
}

int core_solution_read_h5_ir(const ir_model *m, const char *path, lcm_solution **out, lcm_err *err)
{
    lcm_assert(m && path && out);
    hid_t f;
    if (io_h5_open_read(path, "a solution written by lcm solve --out", &f, err)) return err->code;
    int rc = read_h5_body(m, f, path, out, err);
    H5Fclose(f);
    return rc;
}

const double *lcm_solution_params(const lcm_solution *s) { return s ? s->params : NULL; }
