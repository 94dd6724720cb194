/* output.c - see output.h. */
#define _POSIX_C_SOURCE 200809L /* POSIX: fileno, isatty, fsync, localtime_r */
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "tempfile.h"
#include "tempname.h"

static herr_t h5_note_failure(hid_t stack, void *unused);

/* The outputs held back between io_outputs_begin and io_outputs_end:
 * finished temporaries and the names they go to. */
static struct {
    int open, n, cap;
    char **tmp, **path;
} held;

static int is_stdout(const char *path) { return !strcmp(path, "-"); }

static int write_failed(const char *path, int why, lcm_err *err)
{
    if (is_stdout(path))
        return why ? base_fail(err, LCM_E_IO, "cannot write to standard output: %s", strerror(why))
                   : base_fail(err, LCM_E_IO, "cannot write to standard output");
    return why ? base_fail(err, LCM_E_IO, "cannot write '%s' (disk full or not writable?): %s", path, strerror(why))
               : base_fail(err, LCM_E_IO, "cannot write '%s' (disk full or not writable?)", path);
}

/* Moves a finished temporary into place (or holds it back until the run's
 * other outputs are written), or removes it when writing failed: the
 * requested name never holds a partial file.  `why` is the errno of the
 * failure (0: unknown). */
static int finish(char *tmp, const char *path, int failed, int why, lcm_err *err)
{
    if (failed) {
        sys_temp_discard(tmp);
        return write_failed(path, why, err);
    }
    if (!held.open) return sys_temp_commit(&tmp, &path, 1, err);
    if (held.n == held.cap) {
        held.cap = held.cap ? 2 * held.cap : 4;
        held.tmp = base_xrealloc(held.tmp, (size_t)held.cap * sizeof *held.tmp);
        held.path = base_xrealloc(held.path, (size_t)held.cap * sizeof *held.path);
    }
    held.tmp[held.n] = tmp;
    held.path[held.n++] = base_xstrdup(path);
    return 0;
}

void io_outputs_begin(void) { held.open = 1; }

int io_outputs_end(int rc, lcm_err *err)
{
    if (rc) {
        for (int i = 0; i < held.n; ++i) sys_temp_discard(held.tmp[i]);
    } else {
        rc = sys_temp_commit(held.tmp, (const char *const *)held.path, held.n, err);
    }
    for (int i = 0; i < held.n; ++i) free(held.path[i]);
    free(held.tmp), free(held.path);
    memset(&held, 0, sizeof held);
    return rc;
}

/* HDF5 set up the way lcm uses it (its failures recorded: lcm reports them);
 * called before any other HDF5 call. */
static void lcm_h5_prepare(void)
{
    static int done;
    if (done) return;
    done = 1;
    /* HDF5 closes what is still open when the process exits; a file whose
     * close failed (a full disk) stays registered and crashes that cleanup
     * (HDF5 1.10), so lcm closes its files itself and turns it off. */
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, h5_note_failure, NULL);
}

int io_h5_open_read(const char *path, const char *what, hid_t *f, lcm_err *err)
{
    lcm_h5_prepare();
    FILE *probe = sys_open_input(path, err);
    if (!probe) return err->code;
    fclose(probe);
    *f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*f >= 0) return 0;
    if (H5Fis_hdf5(path) > 0)
        return base_fail(err, LCM_E_INPUT, "'%s' is a damaged or truncated HDF5 file (it should hold %s)", path, what);
    return base_fail(err, LCM_E_INPUT, "'%s' is not an HDF5 file (it should hold %s)", path, what);
}

/* External links are not followed: refusing to traverse one fails the
 * open. */
static herr_t refuse_external_link(const char *parent_file, const char *parent_group, const char *child_file,
                                   const char *child_object, unsigned *acc_flags, hid_t fapl, void *op_data)
{
    (void)parent_file, (void)parent_group, (void)child_file, (void)child_object, (void)acc_flags, (void)fapl,
        (void)op_data;
    return -1;
}

hid_t io_h5_read_links(void)
{
    static hid_t plist = -1;
    lcm_h5_prepare();
    if (plist < 0) {
        plist = H5Pcreate(H5P_DATASET_ACCESS); /* H5Dopen2 takes one; its class derives from link access */
        H5Pset_elink_cb(plist, refuse_external_link, NULL);
    }
    return plist;
}

/* Raw data as lcm writes it (contiguous or compact) or as h5repack may
 * leave it (chunks no larger than the dataset, HDF5's own filters), so
 * that what reading it allocates is bounded by the shape the model gives:
 * not in other files (external or virtual storage). */
int io_h5_plain_storage(hid_t d, int rank, const hsize_t *dims)
{
    hid_t dcpl = H5Dget_create_plist(d);
    if (dcpl < 0) return 0;
    H5D_layout_t layout = H5Pget_layout(dcpl);
    int ok = (layout == H5D_CONTIGUOUS || layout == H5D_COMPACT || layout == H5D_CHUNKED) &&
             H5Pget_external_count(dcpl) == 0;
    if (ok && layout == H5D_CHUNKED) {
        hsize_t chunk[H5S_MAX_RANK];
        ok = rank > 0 && H5Pget_chunk(dcpl, rank, chunk) == rank;
        for (int k = 0; k < rank && ok; ++k) ok = chunk[k] >= 1 && chunk[k] <= dims[k];
        int nfilters = H5Pget_nfilters(dcpl);
        ok &= nfilters >= 0;
        for (int i = 0; i < nfilters && ok; ++i) {
            unsigned flags;
            size_t nvalues = 0;
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nvalues, NULL, 0, NULL, NULL);
            ok = id >= H5Z_FILTER_DEFLATE && id <= H5Z_FILTER_SCALEOFFSET;
        }
    }
    H5Pclose(dcpl);
    return ok;
}

FILE *io_output_open_csv(const char *path, char **tmp, lcm_err *err)
{
    *tmp = NULL;
    if (is_stdout(path)) {
        clearerr(stdout);
        return stdout;
    }
    int fd;
    if (sys_check_output_path(path, err) || sys_temp_open(path, tmp, &fd, err)) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int why = errno;
        close(fd);
        sys_temp_discard(*tmp);
        write_failed(path, why, err);
    }
    return f;
}

int io_output_commit_csv(FILE *f, char *tmp, const char *path, int failed, lcm_err *err)
{
    int why = failed > 0 ? failed : 0;
    /* the flush first: when it fails, errno says why (ENOSPC), which a
     * stream's error flag, set by an earlier write, does not */
    if (fflush(f) != 0) failed = 1, why = why ? why : errno;
    if (ferror(f)) failed = 1;
    if (!tmp) return failed ? write_failed(path, why, err) : 0; /* standard output: stays open */
    if (fsync(fileno(f)) != 0 && !why) failed = 1, why = errno;
    if (fclose(f) != 0 && !why) failed = 1, why = errno;
    return finish(tmp, path, failed, why, err);
}

/* Creates the HDF5 file `name` only if no file (or link) has that name. */
static int h5_create_exclusive(const char *name, void *ctx)
{
    errno = 0;
    hid_t f = H5Fcreate(name, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (f >= 0) {
        *(hid_t *)ctx = f;
        return 0;
    }
    if (errno == EEXIST) return EEXIST;
    int why = errno ? errno : EIO;
    struct stat st;
    if (lstat(name, &st) == 0 && S_ISREG(st.st_mode)) unlink(name); /* ours: made exclusively, then failed */
    return why;
}

hid_t io_output_create_h5(const char *path, char **tmp, lcm_err *err)
{
    *tmp = NULL;
    if (is_stdout(path))
        return base_fail(err, LCM_E_USAGE, "an HDF5 file cannot be written to standard output ('-' is for CSV)"), -1;
    if (sys_check_output_path(path, err)) return -1;
    lcm_h5_prepare();
    hid_t f = -1;
    if (sys_temp_create(path, h5_create_exclusive, &f, tmp, err)) return -1;
    return f;
}

/* Closes and fsyncs an HDF5 file, then commits it as io_output_commit_csv. */
static int lcm_output_commit_h5(hid_t f, char *tmp, const char *path, int failed, lcm_err *err)
{
    errno = 0;
    int why = 0;
    if (H5Fclose(f) < 0) failed = 1, why = errno;
    if (!failed && (why = sys_temp_sync(tmp))) failed = 1;
    return finish(tmp, path, failed, why, err);
}

void io_csv_number(FILE *f, double x, int precision)
{
    char buf[LCM_CSV_NUMBER_MAX];
    fwrite(buf, 1, (size_t)io_csv_format(buf, x, precision), f);
}

/* ---- HDF5's reason for a failure ------------------------------------------ */
/* HDF5 calls this (instead of printing its error stack) when an API call
 * fails; the first failure since h5_failure_reset is what h5_finish names. */
static struct {
    int failed;      /* an HDF5 call failed since h5_failure_reset */
    int io;          /* a read or write of the file itself failed */
    int sys_errno;   /* the system's errno of that failure (0: not given) */
    char api[64];    /* the API function that failed */
    char what[256];  /* HDF5's innermost description of why */
} h5_failure;

static herr_t note_frame(unsigned n, const H5E_error2_t *e, void *unused)
{
    (void)unused;
    if (n == 0) snprintf(h5_failure.what, sizeof h5_failure.what, "%s", e->desc ? e->desc : "");
    if (e->func_name) snprintf(h5_failure.api, sizeof h5_failure.api, "%s", e->func_name);
    if (e->maj_num == H5E_IO) {
        /* the file drivers put the system's errno in their description */
        const char *at = e->desc ? strstr(e->desc, "errno = ") : NULL;
        h5_failure.io = 1;
        if (at) h5_failure.sys_errno = atoi(at + 8);
    }
    return 0;
}

static herr_t h5_note_failure(hid_t stack, void *unused)
{
    (void)unused;
    if (h5_failure.failed) return 0;
    h5_failure.failed = 1;
    H5Ewalk2(stack, H5E_WALK_UPWARD, note_frame, NULL); /* innermost first, the API function last */
    return 0;
}

void io_h5_failure_reset(void) { memset(&h5_failure, 0, sizeof h5_failure); }

int io_h5_finish(hid_t f, char *tmp, const char *path, int failed, lcm_err *err)
{
    int rc = lcm_output_commit_h5(f, tmp, path, failed, err);
    if (!rc || !h5_failure.failed) return rc; /* moving it into place failed: the commit's message says so */
    if (!h5_failure.io)
        return base_fail(err, LCM_E_IO, "cannot write '%s': HDF5 failed in %s: %s", path, h5_failure.api,
                        h5_failure.what);
    /* the file's own write failed (the driver's description names the temporary file: not shown) */
    return h5_failure.sys_errno
               ? base_fail(err, LCM_E_IO, "cannot write '%s' (disk full or not writable?): %s", path,
                          strerror(h5_failure.sys_errno))
               : base_fail(err, LCM_E_IO, "cannot write '%s' (disk full or not writable?)", path);
}

/* ---- HDF5 attributes and datasets ----------------------------------------- */
static hid_t str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

/* An attribute of one element or of n (an empty list: a null dataspace). */
static int attr_write(hid_t obj, const char *name, hid_t type, hid_t space, const void *v)
{
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Sget_simple_extent_type(space) == H5S_NULL ? 0 : H5Awrite(a, type, v);
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return rc < 0;
}

int io_h5_attr_strings(hid_t obj, const char *name, const char *const *v, int n)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t t = str_type();
    int bad = attr_write(obj, name, t, n ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_NULL), v);
    H5Tclose(t);
    return bad;
}

int io_h5_attr_string(hid_t obj, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(v) + 1);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    H5Tset_cset(t, H5T_CSET_UTF8);
    int bad = attr_write(obj, name, t, H5Screate(H5S_SCALAR), v);
    H5Tclose(t);
    return bad;
}

int io_h5_attr_double(hid_t obj, const char *name, double v)
{
    return attr_write(obj, name, H5T_NATIVE_DOUBLE, H5Screate(H5S_SCALAR), &v);
}

int io_h5_attr_int(hid_t obj, const char *name, int v)
{
    return attr_write(obj, name, H5T_NATIVE_INT, H5Screate(H5S_SCALAR), &v);
}

/* Property lists for groups and datasets without object times. */
static hid_t lcm_h5_untimed(hid_t cls)
{
    hid_t p = H5Pcreate(cls);
    H5Pset_obj_track_times(p, 0);
    return p;
}

hid_t io_h5_group(hid_t loc, const char *name)
{
    hid_t gcpl = lcm_h5_untimed(H5P_GROUP_CREATE);
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    return g;
}

hid_t io_h5_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *v)
{
    hid_t space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t dcpl = lcm_h5_untimed(H5P_DATASET_CREATE);
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d >= 0 && H5Sget_simple_extent_npoints(space) > 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        H5Dclose(d);
        d = -1;
    }
    H5Pclose(dcpl), H5Sclose(space);
    return d;
}

int io_h5_data(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *v)
{
    hid_t d = io_h5_dataset(loc, name, type, rank, dims, v);
    if (d >= 0) H5Dclose(d);
    return d < 0;
}

int io_h5_data_doubles(hid_t loc, const char *name, const double *v, hsize_t n)
{
    return io_h5_data(loc, name, H5T_NATIVE_DOUBLE, 1, &n, v);
}

int io_h5_data_strings(hid_t loc, const char *name, const char *const *v, hsize_t n)
{
    hid_t t = str_type();
    int bad = io_h5_data(loc, name, t, 1, &n, v);
    H5Tclose(t);
    return bad;
}
