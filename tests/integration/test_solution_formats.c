/* Solution and panel files beyond what an HDF5 attribute holds (64 KiB),
 * and solution files of the previous format:
 * - a continuous grid of 20,000 points, and a shock process of 100 points
 *   (a 100 x 100 transition matrix), write and read back: V as solved, the
 *   grids and matrices in the file equal to the solve's bit for bit;
 * - a discrete state of 5,000 long labels, in the solution and in a panel;
 * - the format-2 files of tests/fixtures/solution-v2 read back, with V
 *   equal to a fresh solve's;
 * - files changed after lcm wrote them: a newer format, NaN in V, a value
 *   of V or of an EGM regime's marginal value one ulp off, V without its
 *   sha256 or with a number for it, no parameters, V stored
 *   outside the file, a format-2 file whose strings'
 *   global heap is damaged are refused; V in compressed chunks (as
 *   h5repack leaves it) is read;
 * - an HDF5 failure other than a failed write is reported in HDF5's words,
 *   not as a full disk. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "initial.h"
#include "output.h"
#include "solver_internal.h"
#include "testlib.h"

static lcm_err err;

/* A 1-D or 2-D float64 dataset of exactly n values, or NULL. */
static double *read_doubles(hid_t f, const char *path, hssize_t n)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    if (d < 0) return NULL;
    hid_t sp = H5Dget_space(d);
    double *v = malloc((size_t)n * sizeof *v + 1);
    if (H5Sget_simple_extent_npoints(sp) != n || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        free(v), v = NULL;
    H5Sclose(sp), H5Dclose(d);
    return v;
}

/* Whether the string dataset at `path` holds exactly `want`. */
static int same_strings(hid_t f, const char *path, char *const *want, int n)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    if (d < 0) return 0;
    hid_t sp = H5Dget_space(d), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char **got = calloc((size_t)n + 1, sizeof *got);
    int same = H5Sget_simple_extent_npoints(sp) == n && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0;
    for (int i = 0; i < n && same; ++i) same = got[i] && !strcmp(got[i], want[i]);
    H5Dvlen_reclaim(t, sp, H5P_DEFAULT, got);
    free(got);
    H5Tclose(t), H5Sclose(sp), H5Dclose(d);
    return same;
}

/* /axes of the file: every regime's labels, grid points and transition
 * matrices, bit for bit those of the solve. */
static void check_axes(const char *path, const lcm_solution *sol)
{
    const ir_model *m = sol->m;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    for (int r = 0; r < m->nregimes && f >= 0; ++r)
        for (int s = 0; s < m->regimes[r].nstates; ++s) {
            const ir_grid *g = &m->regimes[r].states[s].grid;
            char name[512];
            const char *kind = grid_is_discrete(g) ? "labels" : "grid";
            snprintf(name, sizeof name, "/axes/%s/%s_%s", m->regimes[r].name, kind, m->regimes[r].states[s].name);
            if (grid_is_discrete(g)) {
                CHECK_MSG(same_strings(f, name, g->labels, g->n), "%s", name);
                continue;
            }
            double *v = read_doubles(f, name, g->n);
            CHECK_MSG(v && !memcmp(v, sol->grids + sol->layout.state_off[r][s], (size_t)g->n * sizeof *v), "%s", name);
            free(v);
            if (g->kind != GRID_PROCESS) continue;
            snprintf(name, sizeof name, "/axes/%s/transition_%s", m->regimes[r].name, m->regimes[r].states[s].name);
            hssize_t nn = (hssize_t)g->n * g->n;
            v = read_doubles(f, name, nn);
            CHECK_MSG(v && !memcmp(v, sol->grids + sol->layout.matrix_off[r][s], (size_t)nn * sizeof *v), "%s", name);
            free(v);
        }
    if (f >= 0) H5Fclose(f);
}

/* V of two solutions of one model, bit for bit. */
static int same_V(const lcm_solution *a, const lcm_solution *b)
{
    const ir_model *m = a->m;
    size_t bytes = core_real_bytes(a->precision);
    for (int i = 0; i < m->nperiods * m->nregimes; ++i) {
        lcm_index n = a->n[i % m->nregimes];
        if (!a->V[i] != !b->V[i] || (a->V[i] && memcmp(a->V[i], b->V[i], (size_t)n * bytes))) return 0;
    }
    return a->precision == b->precision;
}

/* Solves a model, writes it, reads it back, checks what the file holds. */
static void round_trip(const char *lua, const char *const *defines, const char *params, const char *dir)
{
    lcm_model *model = NULL;
    lcm_solution *sol = NULL, *back = NULL;
    CHECK_MSG(!test_solve(lua, defines, params, LCM_BACKEND_CPU, 64, &model, &sol, &err), "%s: %s", lua, err.msg);
    if (!sol) return;
    char *h5 = base_path_join(dir, "round_trip.h5");
    CHECK_MSG(!lcm_solution_write_h5(sol, h5, &err), "%s: %s", lua, err.msg);
    CHECK_MSG(!lcm_solution_read_h5(model, h5, &back, &err), "%s: %s", lua, err.msg);
    if (back) {
        CHECK_MSG(same_V(sol, back), "%s: V read back", lua);
        CHECK(!memcmp(sol->params, back->params, core_model_ir(model)->params_size * sizeof *sol->params));
    }
    check_axes(h5, sol);
    unlink(h5);
    free(h5);
    lcm_solution_free(back), lcm_solution_free(sol);
    lcm_model_free(model);
}

/* A panel of the long-labels model: its labels in lcm-labels/kind. */
static void panel_labels(const char *dir)
{
    lcm_model *model = NULL;
    lcm_solution *sol = NULL;
    CHECK_OK(test_solve("tests/models/long_labels.lua", NULL, "tests/models/discount_only.params.lua",
                        LCM_BACKEND_CPU, 64, &model, &sol, &err));
    if (!sol) return;
    const ir_model *m = core_model_ir(model);
    lcm_initial *ic = NULL;
    const char *text = "regime,age,kind,wealth\nalive,0,household_type_4999_of_a_rather_long_list_of_categories,2\n";
    CHECK_OK(sim_initial_parse_csv(m, "initial.csv", text, &ic, &err));
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .precision = 64};
    lcm_sim_options so = {0};
    lcm_solver *solver = NULL;
    lcm_panel *p = NULL;
    CHECK_OK(lcm_solver_new(model, &o, &solver, &err));
    if (solver && ic) CHECK_OK(lcm_simulate(solver, sol, ic, &so, &p, &err));
    char *h5 = base_path_join(dir, "panel.h5");
    if (p) CHECK_MSG(!lcm_panel_write_h5(p, h5, &err), "%s", err.msg);
    hid_t f = p ? H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    CHECK(f >= 0);
    if (f >= 0) {
        const ir_grid *g = &m->regimes[ir_find_regime(m, "alive")].states[0].grid;
        CHECK(g->n == 5000 && same_strings(f, "/lcm-labels/kind", g->labels, g->n));
        char *regimes[] = {"alive", "dead"}, *columns[] = {"subject_id", "period", "age", "regime", "value",
                                                           "kind", "wealth", "consumption"};
        CHECK(same_strings(f, "/lcm-labels/regime", regimes, 2));
        CHECK(same_strings(f, "/lcm-columns", columns, 8));
        double *kind = read_doubles(f, "/kind", 2);
        CHECK(kind && kind[0] == 4998);
        free(kind);
        H5Fclose(f);
    }
    unlink(h5);
    free(h5);
    lcm_panel_free(p), lcm_solver_free(solver), lcm_initial_free(ic);
    lcm_solution_free(sol), lcm_model_free(model);
}

/* The root attribute source_hash of a file (caller frees). */
static char *file_hash(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), a = H5Aopen(f, "source_hash", H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *v = NULL, *copy = NULL;
    if (a >= 0 && H5Aread(a, t, &v) >= 0 && v) copy = base_xstrdup(v);
    if (v) H5free_memory(v);
    H5Tclose(t), H5Aclose(a), H5Fclose(f);
    return copy;
}

/* A file of format 2 read back, V within rounding of a fresh solve.  Its
 * source hash names the generated code of its day, which later changes to
 * the generator change legitimately: the model is given the file's hash, so
 * that this checks the format, not the generator. */
static void read_format_2(const char *name)
{
    char lua[256], params[256], fixture[256];
    snprintf(lua, sizeof lua, "models/%s.lua", name);
    snprintf(params, sizeof params, "models/%s.params.lua", name);
    snprintf(fixture, sizeof fixture, "tests/fixtures/solution-v2/%s.h5", name);
    lcm_model *model = NULL;
    lcm_solution *fresh = NULL, *old = NULL;
    CHECK_MSG(!test_solve(lua, NULL, params, LCM_BACKEND_CPU, 64, &model, &fresh, &err), "%s: %s", lua, err.msg);
    if (!fresh) return;
    char *path = test_path(fixture), *hash = file_hash(path);
    ir_model *m = (ir_model *)core_model_ir(model);
    char *own = m->source_hash;
    m->source_hash = hash;
    CHECK_MSG(hash && !core_solution_read_h5_ir(m, path, &old, &err), "%s: %s", fixture, err.msg);
    m->source_hash = own;
    if (old) {
        CHECK_MSG(test_max_rel_diff(old, fresh) <= 1e-12, "%s: V differs from a fresh solve", fixture);
        CHECK(!memcmp(old->params, fresh->params, m->params_size * sizeof *old->params));
    }
    free(hash), free(path);
    lcm_solution_free(old), lcm_solution_free(fresh);
    lcm_model_free(model);
}

/* How a test changes a solution file of models/tiny.lua. */
typedef enum edit { NEWER_FORMAT, NAN_IN_V, CHANGED_V, NO_DIGEST, NUMBER_DIGEST, NO_PARAMS, CHUNKED_V, EXTERNAL_V,
                    EXTERNAL_LINK } edit;

/* Replaces /V/period_0/alive (10 doubles) by v, stored as dcpl says, with
 * the sha256 lcm wrote (as h5repack keeps attributes) unless `digest` is 0. */
static void replace_V(hid_t f, const double *v, hid_t dcpl, int digest)
{
    hsize_t n = 10;
    char sha[80] = "";
    hid_t d = H5Dopen2(f, "/V/period_0/alive", H5P_DEFAULT), a = H5Aopen(d, "sha256", H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    CHECK(a >= 0 && H5Tget_size(t) < sizeof sha && H5Aread(a, t, sha) >= 0);
    H5Tclose(t), H5Aclose(a), H5Dclose(d);
    hid_t sp = H5Screate_simple(1, &n, NULL);
    H5Ldelete(f, "/V/period_0/alive", H5P_DEFAULT);
    d = H5Dcreate2(f, "/V/period_0/alive", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    if (digest) CHECK(!io_h5_attr_string(d, "sha256", sha));
    H5Dclose(d), H5Sclose(sp);
}

/* (EXTERNAL_V: the raw data in the file `outside`; EXTERNAL_LINK: V a link
 * to the same dataset of `outside`, a copy of the file.) */
static void change(const char *path, edit e, const char *outside)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    double v[10];
    hid_t d = H5Dopen2(f, "/V/period_0/alive", H5P_DEFAULT);
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d);
    hsize_t chunk = 4;
    switch (e) {
    case NEWER_FORMAT:
        H5Adelete(f, "format_version");
        CHECK(!io_h5_attr_int(f, "format_version", 5));
        break;
    case NAN_IN_V:
        v[3] = NAN;
        replace_V(f, v, dcpl, 1);
        break;
    case CHANGED_V:
        v[3] = nextafter(v[3], INFINITY);
        replace_V(f, v, dcpl, 1);
        break;
    case NO_DIGEST: replace_V(f, v, dcpl, 0); break;
    case NUMBER_DIGEST: /* the attribute of another type */
        replace_V(f, v, dcpl, 0);
        d = H5Dopen2(f, "/V/period_0/alive", H5P_DEFAULT);
        CHECK(d >= 0 && !io_h5_attr_int(d, "sha256", 7));
        H5Dclose(d);
        break;
    case NO_PARAMS: CHECK(H5Ldelete(f, "/params", H5P_DEFAULT) >= 0); break;
    case CHUNKED_V:
        H5Pset_chunk(dcpl, 1, &chunk);
        H5Pset_deflate(dcpl, 6);
        replace_V(f, v, dcpl, 1);
        break;
    case EXTERNAL_V:
        H5Pset_external(dcpl, outside, 0, sizeof v);
        replace_V(f, v, dcpl, 1);
        break;
    case EXTERNAL_LINK:
        CHECK(H5Ldelete(f, "/V/period_0/alive", H5P_DEFAULT) >= 0);
        CHECK(H5Lcreate_external(outside, "/V/period_0/alive", f, "/V/period_0/alive", H5P_DEFAULT, H5P_DEFAULT) >= 0);
        break;
    }
    H5Pclose(dcpl), H5Fclose(f);
}

/* A solution of tiny, changed, read back: 0 or the status, with the
 * message in err. */
static int read_changed(const lcm_model *model, const lcm_solution *sol, edit e, const char *dir, lcm_solution **back)
{
    char *h5 = base_path_join(dir, "changed.h5"), *outside = base_path_join(dir, "outside.bin");
    CHECK_OK(lcm_solution_write_h5(sol, h5, &err));
    if (e == EXTERNAL_LINK) CHECK_OK(lcm_solution_write_h5(sol, outside, &err));
    change(h5, e, outside);
    int rc = lcm_solution_read_h5(model, h5, back, &err);
    unlink(h5), unlink(outside);
    free(h5), free(outside);
    return rc;
}

static void changed_files(const char *dir)
{
    lcm_model *model = NULL;
    lcm_solution *sol = NULL, *back = NULL;
    CHECK_OK(test_solve("models/tiny.lua", NULL, "models/tiny.params.lua", LCM_BACKEND_CPU, 64, &model, &sol, &err));
    if (!sol) return;
    CHECK(read_changed(model, sol, NEWER_FORMAT, dir, &back) == LCM_E_INPUT &&
          strstr(err.msg, "was written by a newer lcm (format 5; this one reads formats 2 to 4)"));
    CHECK_MSG(read_changed(model, sol, NAN_IN_V, dir, &back) == LCM_E_INPUT &&
              strstr(err.msg, "V of regime 'alive' in period 0 is NaN at wealth=4 (a solve stops at NaN"), "%s",
              err.msg);
    for (edit e = CHANGED_V; e <= NUMBER_DIGEST; ++e)
        CHECK_MSG(read_changed(model, sol, e, dir, &back) == LCM_E_INPUT &&
                      strstr(err.msg, "V of regime 'alive' in period 0 is not what lcm wrote (its sha256 differs: the "
                                      "file was changed after lcm wrote it)"), "%s", err.msg);
    CHECK(read_changed(model, sol, NO_PARAMS, dir, &back) == LCM_E_INPUT &&
          strstr(err.msg, "the parameters of its solve are missing"));
    for (edit e = EXTERNAL_V; e <= EXTERNAL_LINK; ++e)
        CHECK_MSG(read_changed(model, sol, e, dir, &back) == LCM_E_INPUT &&
                      strstr(err.msg, "V of regime 'alive' in period 0 is missing, of the wrong shape or type, or "
                                      "stored outside"), "%s", err.msg);
    CHECK_MSG(!read_changed(model, sol, CHUNKED_V, dir, &back), "%s", err.msg);
    if (back) CHECK(same_V(sol, back));
    lcm_solution_free(back), lcm_solution_free(sol);
    lcm_model_free(model);
}

/* An EGM solution (tests/models/egm_cake.lua) whose marginal value of
 * wealth in period 0 is one ulp off at one state: refused, as V would be. */
static void changed_marginal(const char *dir)
{
    const char *defines[] = {"wealth_points=20", NULL};
    lcm_model *model = NULL;
    lcm_solution *sol = NULL, *back = NULL;
    CHECK_OK(test_solve("tests/models/egm_cake.lua", defines, "tests/models/egm_cake.params.lua", LCM_BACKEND_CPU, 64,
                        &model, &sol, &err));
    char *h5 = base_path_join(dir, "egm.h5");
    if (sol) CHECK_OK(lcm_solution_write_h5(sol, h5, &err));
    double m[20];
    hid_t f = sol ? H5Fopen(h5, H5F_ACC_RDWR, H5P_DEFAULT) : -1;
    hid_t d = f >= 0 ? H5Dopen2(f, "/marginal/period_0/eating", H5P_DEFAULT) : -1;
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m) >= 0);
    m[7] = nextafter(m[7], 0);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m) >= 0);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    if (sol)
        CHECK_MSG(lcm_solution_read_h5(model, h5, &back, &err) == LCM_E_INPUT &&
                      strstr(err.msg, "the marginal value of regime 'eating' in period 0 is not what lcm wrote"), "%s",
                  err.msg);
    unlink(h5);
    free(h5);
    lcm_solution_free(back), lcm_solution_free(sol);
    lcm_model_free(model);
}

/* A format-2 file whose global heap gives its objects sizes beyond the
 * heap (as fuzzing crafted, where HDF5's own reader copied past its
 * buffers): a clean error. */
static void damaged_heap(const char *dir)
{
    char *fixture = test_path("tests/fixtures/solution-v2/tiny.h5"), *copy = base_path_join(dir, "heap.h5");
    size_t n;
    char *bytes = sys_read_file(fixture, &n, &err);
    char *heap = bytes ? memmem(bytes, n, "GCOL", 4) : NULL;
    CHECK(heap != NULL);
    if (heap && heap + 24 + 8 <= bytes + n) memset(heap + 16 + 8, 0x7f, 8); /* the first object's size */
    CHECK_OK(bytes ? sys_write_file_atomic(copy, bytes, n, &err) : 1);
    lcm_model *model = NULL;
    CHECK_OK(test_generate("models/tiny.lua", NULL, &model, &err));
    lcm_solution *sol = NULL;
    if (model)
        CHECK_MSG(lcm_solution_read_h5(model, copy, &sol, &err) == LCM_E_INPUT &&
                      strstr(err.msg, "is not a solution written by lcm solve --out"), "%s", err.msg);
    lcm_solution_free(sol), lcm_model_free(model);
    unlink(copy);
    free(bytes), free(copy), free(fixture);
}

/* An HDF5 failure that is no failed write (here: an attribute made twice)
 * names HDF5's reason, and leaves no file. */
static void hdf5_reason(const char *dir)
{
    char *path = base_path_join(dir, "twice.h5"), *tmp = NULL;
    hid_t f = io_output_create_h5(path, &tmp, &err);
    CHECK(f >= 0);
    if (f < 0) return;
    io_h5_failure_reset();
    int bad = io_h5_attr_int(f, "a", 1) || io_h5_attr_int(f, "a", 2);
    CHECK(bad);
    CHECK(io_h5_finish(f, tmp, path, bad, &err) == LCM_E_IO);
    CHECK_MSG(strstr(err.msg, "twice.h5': HDF5 failed in H5Acreate2: ") && !strstr(err.msg, "disk full"), "%s",
              err.msg);
    CHECK(access(path, F_OK) != 0);
    free(path);
}

int main(void)
{
    char *dir = test_tmpdir("formats");
    /* the solve's grids: the wealth grid of 20,000 points, then income of 100 */
    const char *wide[] = {"n_periods=3", "wealth_points=20000", "income_points=3", "consumption_points=2", NULL};
    const char *deep[] = {"n_periods=3", "wealth_points=3", "income_points=100", "consumption_points=2", NULL};
    round_trip("models/precautionary_savings.lua", wide, "models/precautionary_savings.params.lua", dir);
    round_trip("models/precautionary_savings.lua", deep, "models/precautionary_savings.params.lua", dir);
    round_trip("tests/models/long_labels.lua", NULL, "tests/models/discount_only.params.lua", dir);
    round_trip("models/mortality.lua", NULL, "models/mortality.params.lua", dir);
    panel_labels(dir);
    read_format_2("tiny");
    read_format_2("mortality");
    read_format_2("precautionary_savings");
    changed_files(dir);
    changed_marginal(dir);
    damaged_heap(dir);
    hdf5_reason(dir);
    rmdir(dir);
    free(dir);
    CHECK_DONE();
}
