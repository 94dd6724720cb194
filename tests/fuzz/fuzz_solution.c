/* fuzz_solution.c - libFuzzer harness of the solution reader (`lcm simulate
 * --solution`) on files HDF5 wrote.
 *
 * HDF5 1.10 does not survive crafted bytes (fuzz_solution_file.c), so this
 * harness changes well-formed files through HDF5's own writer, and what it
 * fuzzes is the reader's checks.  Input: one byte choosing the model
 * (models/tiny.lua, models/mortality.lua, models/precautionary_savings.lua,
 * each solved once by the interpreter), whose solution lcm_solution_write_h5
 * writes; then edits of that file, each an operation and its operands:
 *   - a link or a root attribute removed;
 *   - a root attribute rewritten: an integer, a float, a string of fixed or
 *     variable length, a list;
 *   - a dataset rewritten with another type, shape, storage (compact,
 *     chunked, compressed, or external: in a file beside) or values
 *     (NaN, infinities, the input's numbers);
 *   - a dataset replaced by a group, a soft link or an external link (to
 *     any object of the file, itself included);
 *   - one value of a dataset poked;
 *   - the file turned into format 2 (strings of variable length, the
 *     parameters an attribute).
 * The file is then read for the three models (fuzz_read_solution's checks);
 * a file without edits must read back for its model with V as solved. */
#include "fuzz_support.h"

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "params_lua.h"

#define NMODELS 3
#define MAX_VALUES (1 << 16) /* elements of a rewritten dataset, at most */
static const char *const model_files[NMODELS] = {"models/tiny.lua", "models/mortality.lua",
                                                 "models/precautionary_savings.lua"};
static const char *const root_attrs[] = {"format", "format_version", "model", "source_hash", "precision", "shards"};
#define NATTRS (int)(sizeof root_attrs / sizeof *root_attrs)

static const ir_model *models[NMODELS];
static lcm_solution *solutions[NMODELS];
static char *path, *raw_path; /* the solution, raw data stored outside it */

/* The objects of each model's file, as paths from the root ("V/period_0"). */
static struct objects {
    int n;
    char **name;
} objects[NMODELS];

/* ---- the fixed solutions ------------------------------------------------- */
static void solve(int k)
{
    lcmgen_output gen;
    fuzz_generate(model_files[k], &gen);
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_pvalue *params = NULL;
    lcm_solver *solver = NULL;
    lcm_solver_options o = {.backend = LCM_BACKEND_INTERP, .precision = 64, .checks = LCM_CHECKS_OFF}; /* as before 0.4.0 at level off */
    char *relative = base_xasprintf("%.*s.params.lua", (int)strlen(model_files[k]) - 4, model_files[k]);
    char *params_path = fuzz_source_path(relative);
    if (lcm_model_from_text(gen.manifest, gen.source, &model, &err) ||
        cli_params_read_lua(params_path, &params, NULL, NULL, &err) || lcm_solver_new(model, &o, &solver, &err) ||
        lcm_solve(solver, params, &solutions[k], &err))
        fuzz_fail("cannot solve a fixed model", err.msg);
    models[k] = core_model_ir(model); /* the model lives as long as the process */
    lcm_solver_free(solver), lcm_pv_free(params), lcmgen_output_free(&gen);
    free(relative), free(params_path);
}

static herr_t note_object(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    struct objects *o = data;
    (void)obj, (void)info;
    if (strcmp(name, ".")) {
        o->name = realloc(o->name, (size_t)(o->n + 1) * sizeof *o->name);
        o->name[o->n++] = base_xstrdup(name);
    }
    return 0;
}

static void write_solution(int k)
{
    lcm_err err = {0};
    if (lcm_solution_write_h5(solutions[k], path, &err)) fuzz_fail("cannot write a fixed solution", err.msg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    lcm_set_log_level(LCM_LOG_OFF); /* no Lua of an input runs: no limits to set */
    path = fuzz_temp_path("solution.h5");
    raw_path = fuzz_temp_path("external.raw");
    for (int k = 0; k < NMODELS; ++k) {
        solve(k);
        write_solution(k);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0 || H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, note_object, &objects[k]) < 0)
            fuzz_fail("cannot list a fixed solution's objects", model_files[k]);
        H5Fclose(f);
    }
    return 0;
}

/* ---- the input, read as operations and operands --------------------------- */
typedef struct cursor {
    const uint8_t *p;
    size_t n;
} cursor;

static unsigned byte(cursor *c)
{
    if (!c->n) return 0;
    --c->n;
    return *c->p++;
}

static unsigned pick(cursor *c, unsigned n) { return n ? byte(c) % n : 0; }

/* A number: the input's 8 bytes, a special value or a small integer. */
static double number(cursor *c)
{
    const double special[] = {NAN, INFINITY, -INFINITY, 0, -0.0, 1e308, 5e-324};
    unsigned kind = pick(c, 3);
    if (kind == 0) return special[pick(c, sizeof special / sizeof *special)];
    if (kind == 1) return (double)byte(c) - 128;
    double x = 0;
    unsigned char b[sizeof x];
    for (size_t i = 0; i < sizeof b; ++i) b[i] = (unsigned char)byte(c);
    memcpy(&x, b, sizeof x);
    return x;
}

/* Up to max - 1 bytes of the input as a NUL-terminated string. */
static void text(cursor *c, char *out, unsigned max)
{
    unsigned len = pick(c, max);
    for (unsigned i = 0; i < len; ++i) out[i] = (char)byte(c);
    out[len] = 0;
}

/* ---- edits ------------------------------------------------------------------ */
static void set_attr(hid_t f, cursor *c)
{
    const char *name = root_attrs[pick(c, NATTRS)];
    H5Adelete(f, name);
    static const int ints[] = {2, 3, 4, 1, 0, -1, 32, 64, 1 << 30};
    int iv[2] = {ints[pick(c, sizeof ints / sizeof *ints)], (int)byte(c)};
    double dv = number(c);
    char sv[96];
    text(c, sv, sizeof sv);
    const char *vs = sv;
    hsize_t two = 2;
    hid_t space = H5Screate(H5S_SCALAR), type = H5Tcopy(H5T_C_S1);
    const void *value = iv;
    switch (pick(c, 5)) {
    case 0: H5Tclose(type), type = H5Tcopy(H5T_NATIVE_INT); break;
    case 1: H5Tclose(type), type = H5Tcopy(H5T_NATIVE_DOUBLE), value = &dv; break;
    case 2: H5Tset_size(type, strlen(sv) + 1), value = sv; break;
    case 3: H5Tset_size(type, H5T_VARIABLE), value = &vs; break;
    case 4: H5Tclose(type), type = H5Tcopy(H5T_NATIVE_INT), H5Sclose(space), space = H5Screate_simple(1, &two, NULL);
    }
    hid_t a = H5Acreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) H5Awrite(a, type, value), H5Aclose(a);
    H5Tclose(type), H5Sclose(space);
}

/* The dataset `name` (if one) as doubles: its shape in rank/dims, its
 * values and their count *n (NULL and 0 when it is none or too large). */
static double *current(hid_t f, const char *name, int *rank, hsize_t *dims, hssize_t *n)
{
    *rank = 0, *n = 0;
    if (H5Lexists(f, name, H5P_DEFAULT) <= 0) return NULL;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) return NULL;
    hid_t space = H5Dget_space(d);
    int r = H5Sget_simple_extent_ndims(space);
    hssize_t count = H5Sget_simple_extent_npoints(space);
    double *v = NULL;
    if (r >= 0 && r <= H5S_MAX_RANK && count >= 0 && count <= MAX_VALUES) {
        *rank = r, *n = count;
        H5Sget_simple_extent_dims(space, dims, NULL);
        v = calloc((size_t)count + 1, sizeof *v);
        if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) /* not numbers: zeros */
            memset(v, 0, (size_t)count * sizeof *v);
    }
    H5Sclose(space), H5Dclose(d);
    return v;
}

/* A new shape: the same, one axis a point longer or shorter, an axis more,
 * or a scalar; returns the number of elements (-1 when over MAX_VALUES). */
static hssize_t reshape(cursor *c, int *rank, hsize_t *dims)
{
    switch (pick(c, 4)) {
    case 1:
        if (*rank) {
            int k = (int)pick(c, (unsigned)*rank);
            dims[k] = pick(c, 2) ? dims[k] + 1 : dims[k] ? dims[k] - 1 : 0;
        }
        break;
    case 2:
        if (*rank < H5S_MAX_RANK) dims[(*rank)++] = 1 + pick(c, 3);
        break;
    case 3: *rank = 0;
    }
    hssize_t n = 1;
    for (int k = 0; k < *rank && n >= 0; ++k)
        n = dims[k] > MAX_VALUES / (hsize_t)(n ? n : 1) ? -1 : n * (hssize_t)dims[k];
    return n;
}

/* Storage: contiguous, compact, chunked (compressed or not), or external
 * (in a file beside: not in the solution's own bytes, whose metadata a
 * write would then damage). */
static hid_t storage(cursor *c, int rank, const hsize_t *dims, size_t bytes)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk[H5S_MAX_RANK];
    switch (pick(c, 4)) {
    case 1:
        if (bytes < 60000) H5Pset_layout(dcpl, H5D_COMPACT);
        break;
    case 2:
        for (int k = 0; k < rank; ++k) chunk[k] = dims[k] ? 1 + pick(c, (unsigned)(dims[k] < 255 ? dims[k] : 255)) : 1;
        if (rank) H5Pset_chunk(dcpl, rank, chunk);
        if (rank && pick(c, 2)) H5Pset_deflate(dcpl, 1);
        break;
    case 3: H5Pset_external(dcpl, raw_path, (off_t)pick(c, 256) * 64, (hsize_t)bytes); break;
    }
    return dcpl;
}

/* The dataset (or whatever is there) rewritten: another shape, type,
 * storage, its values kept where they fit and some replaced. */
static void rewrite(hid_t f, const char *name, cursor *c)
{
    int rank;
    hsize_t dims[H5S_MAX_RANK];
    hssize_t had;
    double *old = current(f, name, &rank, dims, &had);
    hssize_t n = reshape(c, &rank, dims);
    hid_t types[] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT, H5T_NATIVE_INT, H5T_NATIVE_SCHAR};
    hid_t type = types[pick(c, 4)];
    if (n >= 0) {
        double *v = calloc((size_t)n + 1, sizeof *v);
        if (old) memcpy(v, old, (size_t)(had < n ? had : n) * sizeof *v);
        for (unsigned i = 0, pokes = pick(c, 4); i < pokes && n > 0; ++i) v[pick(c, 256) % (unsigned)n] = number(c);
        hid_t dcpl = storage(c, rank, dims, (size_t)n * H5Tget_size(type));
        H5Ldelete(f, name, H5P_DEFAULT);
        hid_t space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
        hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (d >= 0 && n > 0) H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        if (d >= 0) H5Dclose(d);
        H5Sclose(space), H5Pclose(dcpl);
        free(v);
    }
    free(old);
}

/* One element of the dataset set to a number. */
static void poke(hid_t f, const char *name, cursor *c)
{
    int rank;
    hsize_t dims[H5S_MAX_RANK];
    hssize_t n;
    double *v = current(f, name, &rank, dims, &n);
    if (v && n > 0) {
        v[pick(c, 256) % (unsigned)n] = number(c);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        H5Dclose(d);
    }
    free(v);
}

/* The object `name` replaced by a group, a soft link or an external link
 * (to this file) to `target`. */
static void relink(hid_t f, const char *name, const char *target, unsigned how)
{
    char *absolute = base_xasprintf("/%s", target);
    H5Ldelete(f, name, H5P_DEFAULT);
    if (how == 0) {
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g >= 0) H5Gclose(g);
    } else if (how == 1) {
        H5Lcreate_soft(absolute, f, name, H5P_DEFAULT, H5P_DEFAULT);
    } else {
        H5Lcreate_external(path, absolute, f, name, H5P_DEFAULT, H5P_DEFAULT);
    }
    free(absolute);
}

/* A root attribute's fixed-length string rewritten as variable-length. */
static void vary_string(hid_t f, const char *name)
{
    char v[256] = "";
    hid_t a = H5Aopen(f, name, H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, sizeof v);
    H5Tset_cset(t, H5T_CSET_UTF8); /* as lcm writes them: HDF5 converts no character sets */
    int ok = a >= 0 && H5Aread(a, t, v) >= 0;
    if (a >= 0) H5Aclose(a);
    H5Tset_size(t, H5T_VARIABLE);
    const char *p = v;
    hid_t space = H5Screate(H5S_SCALAR);
    if (ok && H5Adelete(f, name) >= 0 && (a = H5Acreate2(f, name, t, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        H5Awrite(a, t, &p), H5Aclose(a);
    H5Sclose(space), H5Tclose(t);
}

/* The file turned into format 2: its strings of variable length, the
 * parameters an attribute of the root. */
static void downgrade(hid_t f)
{
    vary_string(f, "format");
    vary_string(f, "source_hash");
    int two = 2, rank;
    hsize_t dims[H5S_MAX_RANK];
    hssize_t n;
    double *params = current(f, "params", &rank, dims, &n);
    hid_t space = H5Screate(H5S_SCALAR), a;
    if (H5Adelete(f, "format_version") >= 0 && (a = H5Acreate2(f, "format_version", H5T_NATIVE_INT, space,
                                                               H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        H5Awrite(a, H5T_NATIVE_INT, &two), H5Aclose(a);
    H5Sclose(space);
    hsize_t len = (hsize_t)n;
    space = n > 0 ? H5Screate_simple(1, &len, NULL) : H5Screate(H5S_NULL);
    if (params && (a = H5Acreate2(f, "params", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0) {
        if (n > 0) H5Awrite(a, H5T_NATIVE_DOUBLE, params);
        H5Aclose(a);
    }
    H5Sclose(space);
    free(params);
}

static void edit(hid_t f, const struct objects *o, cursor *c)
{
    unsigned op = pick(c, 8);
    if (op == 7) {
        downgrade(f);
        return;
    }
    const char *name = o->name[pick(c, (unsigned)o->n)];
    switch (op) {
    case 0: H5Ldelete(f, name, H5P_DEFAULT); break;
    case 1: H5Adelete(f, root_attrs[pick(c, NATTRS)]); break;
    case 2: set_attr(f, c); break;
    case 3: rewrite(f, name, c); break;
    case 4: poke(f, name, c); break;
    default: relink(f, name, o->name[pick(c, (unsigned)o->n)], op - 5 + pick(c, 2)); break;
    }
}

/* V of two solutions, bit for bit. */
static int same_V(const ir_model *m, const lcm_solution *a, const lcm_solution *b)
{
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            lcm_index n, nb;
            const void *x = lcm_solution_V(a, t, r, &n), *y = lcm_solution_V(b, t, r, &nb);
            size_t bytes = lcm_solution_precision(a) == 32 ? 4 : 8;
            if (!x != !y || (x && (n != nb || memcmp(x, y, (size_t)n * bytes)))) return 0;
        }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cursor c = {data, size};
    int k = (int)pick(&c, NMODELS), edited = c.n > 0;
    write_solution(k);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) fuzz_fail("cannot open a fixed solution to edit", model_files[k]);
    for (int e = 0; e < 16 && c.n > 0; ++e) edit(f, &objects[k], &c);
    if (H5Fclose(f) < 0 || H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        fuzz_fail("the edits left HDF5 objects open", "");
    int which;
    lcm_solution *sol = fuzz_read_solution(path, models, NMODELS, &which);
    if (!edited && (which != k || !same_V(models[k], sol, solutions[k])))
        fuzz_fail("a solution lcm wrote does not read back as it was", model_files[k]);
    lcm_solution_free(sol);
    return 0;
}
