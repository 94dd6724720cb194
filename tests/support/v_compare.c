/* v_compare - compares two value-function arrays by the names of their axes.
 *
 *   v_compare REF.h5 REF_DATASET OURS.h5 OUR_DATASET [name=index ...] [--rtol X]
 *
 * Each dataset is a float64 array whose attribute `axes` names its axes (a
 * list of strings, as lcm writes it, or one comma-separated string, as the
 * reference files of ../shared/reference have it).  Every element of the
 * reference is compared with the element of ours at the same named indices;
 * an axis that only one side has must be fixed with name=index (on the
 * reference: only its elements with that index are compared; on ours: that
 * index is read).
 * Equal infinities match; the relative difference is |a - b| / max(|b|, 1).
 * Prints the count and the largest difference with its indices; exits 1 when
 * it exceeds --rtol (default 1e-8), 2 on a usage or file error. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_AXES = 32, MAX_NAME = 64 };

typedef struct array {
    int rank;
    hsize_t dims[MAX_AXES];
    char names[MAX_AXES][MAX_NAME];
    double *v;
} array;

static int fail(const char *msg, const char *what)
{
    fprintf(stderr, "v_compare: %s%s%s\n", msg, what ? ": " : "", what ? what : "");
    return 2;
}

/* Splits the comma-separated `list` into names[from..]; returns the count. */
static int split_names(const char *list, char names[][MAX_NAME], int from)
{
    int n = from;
    for (const char *p = list; *p && n < MAX_AXES;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len >= MAX_NAME) len = MAX_NAME - 1;
        memcpy(names[n], p, len);
        names[n][len] = 0;
        ++n;
        p += len + (c != NULL);
    }
    return n - from;
}

/* The axis names of dataset d: its attribute `axes`, strings of variable or
 * fixed length, each one name or a comma-separated list.  Returns the count. */
static int read_axes(hid_t d, array *a)
{
    hid_t at = H5Aopen(d, "axes", H5P_DEFAULT);
    if (at < 0) return -1;
    hid_t sp = H5Aget_space(at), ft = H5Aget_type(at), mt = H5Tcopy(H5T_C_S1);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    int count = -1;
    if (n > 0 && n <= MAX_AXES && H5Tget_class(ft) == H5T_STRING) {
        H5Tset_cset(mt, H5Tget_cset(ft)); /* HDF5 does not convert between ASCII and UTF-8 */
        if (H5Tis_variable_str(ft) > 0) {
            char **s = calloc((size_t)n, sizeof *s);
            H5Tset_size(mt, H5T_VARIABLE);
            if (H5Aread(at, mt, s) >= 0) {
                count = 0;
                for (hssize_t i = 0; i < n; ++i) count += split_names(s[i] ? s[i] : "", a->names, count);
                H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, s);
            }
            free(s);
        } else {
            size_t len = H5Tget_size(ft) + 1;
            char *s = calloc((size_t)n, len);
            H5Tset_size(mt, len);
            H5Tset_strpad(mt, H5T_STR_NULLTERM);
            if (H5Aread(at, mt, s) >= 0) {
                count = 0;
                for (hssize_t i = 0; i < n; ++i) count += split_names(s + (size_t)i * len, a->names, count);
            }
            free(s);
        }
    }
    H5Tclose(mt), H5Tclose(ft), H5Sclose(sp), H5Aclose(at);
    return count;
}

static int load(const char *path, const char *dset, array *a)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return fail("cannot open", path);
    hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
    if (d < 0) return H5Fclose(f), fail("no dataset", dset);
    hid_t sp = H5Dget_space(d);
    a->rank = H5Sget_simple_extent_ndims(sp);
    int ok = a->rank >= 0 && a->rank <= MAX_AXES && H5Sget_simple_extent_dims(sp, a->dims, NULL) >= 0;
    size_t n = 1;
    for (int i = 0; ok && i < a->rank; ++i) n *= a->dims[i];
    if (ok && read_axes(d, a) != a->rank) ok = 0;
    if (ok) a->v = malloc(n * sizeof *a->v);
    if (ok && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a->v) < 0) ok = 0;
    H5Sclose(sp), H5Dclose(d), H5Fclose(f);
    return ok ? 0 : fail("cannot read the array and its axes", dset);
}

static int axis_of(const array *a, const char *name)
{
    for (int i = 0; i < a->rank; ++i)
        if (!strcmp(a->names[i], name)) return i;
    return -1;
}

/* name=index arguments */
typedef struct fixes {
    int n;
    char name[MAX_AXES][MAX_NAME];
    long index[MAX_AXES];
} fixes;

static int parse_fix(const char *arg, fixes *f)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= MAX_NAME || f->n == MAX_AXES) return -1;
    memcpy(f->name[f->n], arg, (size_t)(eq - arg));
    f->name[f->n][eq - arg] = 0;
    char *end;
    f->index[f->n] = strtol(eq + 1, &end, 10);
    if (*end || end == eq + 1) return -1;
    ++f->n;
    return 0;
}

static long fixed(const fixes *f, const char *name)
{
    for (int i = 0; i < f->n; ++i)
        if (!strcmp(f->name[i], name)) return f->index[i];
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 5) return fail("usage: v_compare REF.h5 REF_DATASET OURS.h5 OUR_DATASET [name=index ...] [--rtol X]", NULL);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported here, once */
    double rtol = 1e-8;
    fixes fix = { 0 };
    for (int i = 5; i < argc; ++i) {
        if (!strcmp(argv[i], "--rtol") && i + 1 < argc) rtol = atof(argv[++i]);
        else if (parse_fix(argv[i], &fix)) return fail("bad argument", argv[i]);
    }
    array ref = { 0 }, our = { 0 };
    int rc = load(argv[1], argv[2], &ref);
    if (!rc) rc = load(argv[3], argv[4], &our);
    if (rc) return rc;

    /* where each of our axes reads: a reference axis, or a fixed index */
    int from_ref[MAX_AXES];
    long our_fixed[MAX_AXES];
    for (int i = 0; i < our.rank; ++i) {
        from_ref[i] = axis_of(&ref, our.names[i]);
        our_fixed[i] = from_ref[i] < 0 ? fixed(&fix, our.names[i]) : -1;
        if (from_ref[i] < 0 && (our_fixed[i] < 0 || (hsize_t)our_fixed[i] >= our.dims[i]))
            return fail("our axis is not in the reference; fix it with name=index", our.names[i]);
    }
    long ref_fixed[MAX_AXES];
    for (int j = 0; j < ref.rank; ++j) {
        ref_fixed[j] = axis_of(&our, ref.names[j]) < 0 ? fixed(&fix, ref.names[j]) : -1;
        if (axis_of(&our, ref.names[j]) < 0 && (ref_fixed[j] < 0 || (hsize_t)ref_fixed[j] >= ref.dims[j]))
            return fail("the reference's axis is not ours; fix it with name=index", ref.names[j]);
    }

    size_t nref = 1, compared = 0, worst_at = 0;
    for (int j = 0; j < ref.rank; ++j) nref *= ref.dims[j];
    double worst = 0, worst_ref = 0, worst_our = 0;
    hsize_t idx[MAX_AXES];
    for (size_t e = 0; e < nref; ++e) {
        size_t r = e;
        for (int j = ref.rank; j-- > 0;) idx[j] = r % ref.dims[j], r /= ref.dims[j];
        int take = 1;
        for (int j = 0; j < ref.rank && take; ++j)
            take = ref_fixed[j] < 0 || (long)idx[j] == ref_fixed[j];
        if (!take) continue;
        size_t o = 0;
        for (int i = 0; i < our.rank; ++i) {
            hsize_t k = from_ref[i] >= 0 ? idx[from_ref[i]] : (hsize_t)our_fixed[i];
            if (k >= our.dims[i]) return fail("the arrays' shapes differ on axis", our.names[i]);
            o = o * our.dims[i] + (size_t)k;
        }
        double a = our.v[o], b = ref.v[e];
        double d = (a == b) ? 0 : fabs(a - b) / fmax(fabs(b), 1.0);
        if (d != d) d = INFINITY;
        if (d > worst || (compared == 0 && d > 0)) worst = d, worst_at = e, worst_ref = b, worst_our = a;
        ++compared;
    }
    if (!compared) return fail("no element compared", NULL);
    printf("%zu values compared; largest relative difference %.3g", compared, worst);
    if (worst > 0) {
        size_t r = worst_at;
        for (int j = ref.rank; j-- > 0;) idx[j] = r % ref.dims[j], r /= ref.dims[j];
        printf(" at");
        for (int j = 0; j < ref.rank; ++j) printf(" %s=%llu", ref.names[j], (unsigned long long)idx[j]);
        printf(" (reference %.17g, ours %.17g)", worst_ref, worst_our);
    }
    printf("\n");
    free(ref.v), free(our.v);
    return worst <= rtol ? 0 : 1;
}
