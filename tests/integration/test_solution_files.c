/* Solution files: HDF5 read back through the HDF5 library (datasets and
 * attributes), CSV layout, and byte-identical files for the same input. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "testlib.h"

static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = sys_read_file(a, &la, NULL), *y = sys_read_file(b, &lb, NULL);
    int same = x && y && la == lb && !memcmp(x, y, la);
    free(x), free(y);
    return same;
}

int main(void)
{
    lcm_err err = {0};
    lcm_model *model = NULL;
    lcm_solution *sol = NULL;
    CHECK_OK(test_solve("models/mortality.lua", NULL, "models/mortality.params.lua", LCM_BACKEND_CPU, 64, &model,
                        &sol, &err));
    if (!sol) CHECK_DONE();
    const ir_model *m = core_model_ir(model);
    char *dir = test_tmpdir("files");
    char *h5 = base_path_join(dir, "v.h5"), *h5b = base_path_join(dir, "v2.h5");
    char *csv = base_path_join(dir, "v.csv"), *csvb = base_path_join(dir, "v2.csv");
    CHECK_OK(lcm_solution_write_h5(sol, h5, &err));
    CHECK_OK(lcm_solution_write_h5(sol, h5b, &err));
    CHECK_OK(lcm_solution_write_csv(sol, csv, &err));
    CHECK_OK(lcm_solution_write_csv(sol, csvb, &err));
    CHECK(same_file(h5, h5b));
    CHECK(same_file(csv, csvb));

    /* HDF5: /V/period_2/working is health x patience x wealth = 2 x 2 x 60 */
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    hid_t d = H5Dopen2(f, "/V/period_2/working", H5P_DEFAULT);
    CHECK(d >= 0);
    hid_t sp = H5Dget_space(d);
    hsize_t dims[3];
    CHECK(H5Sget_simple_extent_ndims(sp) == 3);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    CHECK(dims[0] == 2 && dims[1] == 2 && dims[2] == 60);
    double *v = calloc(240, sizeof *v);
    CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    int r = ir_find_regime(m, "working");
    for (int i = 0; i < 240; ++i) CHECK(v[i] == lcm_solution_value(sol, 2, r, i));
    double age;
    hid_t a = H5Aopen(d, "age", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &age) >= 0 && age == 60);
    H5Aclose(a);
    /* grids and labels: datasets per regime under /axes */
    double grid[60];
    hid_t g = H5Dopen2(f, "/axes/working/grid_wealth", H5P_DEFAULT);
    CHECK(g >= 0 && H5Dread(g, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, grid) >= 0);
    CHECK(grid[0] == 1 && grid[59] == 100);
    H5Dclose(g);
    g = H5Dopen2(f, "/axes/working/labels_health", H5P_DEFAULT);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    char *labels[2] = {0};
    CHECK(g >= 0 && H5Dread(g, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels) >= 0);
    CHECK(labels[0] && !strcmp(labels[0], "bad") && labels[1] && !strcmp(labels[1], "good"));
    hid_t lsp = H5Dget_space(g);
    H5Dvlen_reclaim(st, lsp, H5P_DEFAULT, labels);
    H5Sclose(lsp), H5Tclose(st), H5Dclose(g);
    /* /param_names names each element of /params: "regime.function.name",
     * an array's codes row-major */
    g = H5Dopen2(f, "/param_names", H5P_DEFAULT);
    hid_t pst = H5Tcopy(H5T_C_S1), psp = g >= 0 ? H5Dget_space(g) : -1;
    H5Tset_size(pst, H5T_VARIABLE);
    H5Tset_cset(pst, H5T_CSET_UTF8);
    hssize_t np = psp >= 0 ? H5Sget_simple_extent_npoints(psp) : -1;
    CHECK(np == (hssize_t)m->params_size);
    char **pnames = calloc((size_t)m->params_size + 1, sizeof *pnames);
    CHECK(g >= 0 && H5Dread(g, pst, H5S_ALL, H5S_ALL, H5P_DEFAULT, pnames) >= 0);
    int seen = 0;
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        if (strcmp(p->name, "survival") || p->ndims != 2) continue;
        /* element [1,0] of the period x health table */
        size_t at = p->offset + (size_t)p->dims[1];
        char want[256];
        snprintf(want, sizeof want, "%s.%s.survival[1,0]", p->regime, p->func);
        CHECK(pnames[at] && !strcmp(pnames[at], want));
        ++seen;
    }
    CHECK(seen > 0);
    for (size_t k = 0; k < m->params_size; ++k) CHECK(pnames[k] && pnames[k][0]);
    if (psp >= 0) H5Dvlen_reclaim(pst, psp, H5P_DEFAULT, pnames);
    free(pnames);
    if (psp >= 0) H5Sclose(psp);
    H5Tclose(pst);
    if (g >= 0) H5Dclose(g);
    /* the dead regime has no states: a scalar dataset */
    hid_t dd = H5Dopen2(f, "/V/period_6/dead", H5P_DEFAULT);
    hid_t dsp = H5Dget_space(dd);
    CHECK(dd >= 0 && H5Sget_simple_extent_type(dsp) == H5S_SCALAR);
    /* inactive regimes have no dataset */
    CHECK(H5Lexists(f, "/V/period_6/working", H5P_DEFAULT) == 0);
    H5Sclose(dsp), H5Dclose(dd);
    H5Sclose(sp), H5Dclose(d), H5Fclose(f);
    free(v);

    /* CSV: header, labels, one row per grid point */
    char *text = sys_read_file(csv, NULL, &err);
    CHECK(text && !strncmp(text, "period,age,regime,health,patience,wealth,V\n", 43));
    CHECK(text && strstr(text, "\n0,50,working,bad,patient,1,") != NULL);
    CHECK(text && strstr(text, "\n6,80,dead,,,,0\n") != NULL);
    long rows = 0;
    for (char *p = text; p && *p; ++p) rows += *p == '\n';
    long expect = 1;
    for (int t = 0; t < m->nperiods; ++t)
        for (int g = 0; g < m->nregimes; ++g)
            if (m->regimes[g].active[t]) expect += ir_state_space_size(&m->regimes[g]);
    CHECK(rows == expect);
    free(text);

    /* a directory that does not exist: an error, and nothing written */
    char *bad = base_path_join(dir, "missing/v.h5");
    CHECK(lcm_solution_write_h5(sol, bad, &err) == LCM_E_IO && strstr(err.msg, "cannot create"));
    free(bad);
    unlink(h5), unlink(h5b), unlink(csv), unlink(csvb), rmdir(dir);
    free(h5), free(h5b), free(csv), free(csvb), free(dir);
    lcm_solution_free(sol);
    lcm_model_free(model);
    CHECK_DONE();
}
