/* output.h - what every result file shares: written to a temporary file
 * (tempfile.h: created exclusively, removed when the process is interrupted)
 * and renamed into place, so a failed write never leaves a partial file under
 * the requested name; a run's several outputs committed together; numbers
 * in CSV that read back bit for bit; and the HDF5 attributes the result files
 * carry (written without object times, so the same result gives the same
 * bytes). */
#ifndef LCM_OUTPUT_H
#define LCM_OUTPUT_H

#include <hdf5.h>
#include <stdio.h>

#include "base.h"
#include "csv_number.h"

/* Opens a temporary file next to `path` for writing (*tmp: its name, handed
 * to the commit below).  A CSV `path` of "-" is standard output (*tmp NULL),
 * written as it goes; HDF5 cannot go there (LCM_E_USAGE). */
FILE *io_output_open_csv(const char *path, char **tmp, lcm_err *err);
hid_t io_output_create_h5(const char *path, char **tmp, lcm_err *err);
/* Finishes a CSV file (flush, fsync, close), then moves it into place -- or
 * holds it back, between io_outputs_begin and io_outputs_end -- or removes
 * it when `failed` (the errno of a failed write, or -1) or finishing fails
 * (HDF5 files: io_h5_finish). */
int io_output_commit_csv(FILE *f, char *tmp, const char *path, int failed, lcm_err *err);

/* A run's outputs, all or none: after io_outputs_begin, finished files wait
 * as synced temporaries; io_outputs_end(rc) then renames them all into
 * place when rc is 0 (temp_commit in tempfile.h says what a crash can still
 * do) and returns 0 or the failed rename's status, or removes them all when
 * rc is a failure (returned as it is), leaving every earlier file as it was.
 * Standard output is not held back: write it last.  One batch at a time,
 * from one thread. */
void io_outputs_begin(void);
int io_outputs_end(int rc, lcm_err *err);

/* Opens an HDF5 file to read: LCM_E_IO when it cannot be read, LCM_E_INPUT
 * when it is not HDF5 or is damaged (`what`: what it should hold). */
int io_h5_open_read(const char *path, const char *what, hid_t *f, lcm_err *err);
/* The access list of every read (datasets, links): an external link is not
 * followed (a file lcm is given must not make it read another file, which
 * could be any the process may read), so opening through one fails. */
hid_t io_h5_read_links(void);
/* Whether dataset d (rank, dims: its shape) keeps its raw data in the file
 * itself, in a layout whose reading allocates no more than its shape says
 * (below). */
int io_h5_plain_storage(hid_t d, int rank, const hsize_t *dims);

/* A number with the fewest digits that read back exactly (as a float for
 * float32 results), or nan, inf, -inf. */
void io_csv_number(FILE *f, double x, int precision);
/* Into a buffer: csv_number.h. */

/* ---- writing HDF5 -------------------------------------------------------------
 * Arrays whose size the model, its grids or its parameters decide are
 * datasets: HDF5 keeps an attribute in its object's header, 64 KiB at most
 * (8,190 doubles, 4,095 strings).  Attributes hold scalars and the state
 * names of a V dataset (at most 32: HDF5's limit on dimensions).
 * Each returns non-zero when HDF5 fails; h5_finish then names its reason. */
int io_h5_attr_strings(hid_t obj, const char *name, const char *const *v, int n);
/* A single string, of fixed length (its own, NUL-terminated): reading it
 * back needs no global heap, whose reader in HDF5 1.10 trusts the sizes and
 * indices a file gives (lists of strings are variable-length). */
int io_h5_attr_string(hid_t obj, const char *name, const char *v);
int io_h5_attr_double(hid_t obj, const char *name, double v);
int io_h5_attr_int(hid_t obj, const char *name, int v);
/* A group without object times, or -1. */
hid_t io_h5_group(hid_t loc, const char *name);
/* A dataset of `rank` dimensions (0: a scalar) written from v (of `type`,
 * in memory and in the file), left open (the caller closes it), or -1. */
hid_t io_h5_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *v);
/* The same, closed. */
int io_h5_data(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, const void *v);
int io_h5_data_doubles(hid_t loc, const char *name, const double *v, hsize_t n);
/* UTF-8 strings of variable length. */
int io_h5_data_strings(hid_t loc, const char *name, const char *const *v, hsize_t n);

/* Forgets HDF5's failures so far: called once a file to write is created. */
void io_h5_failure_reset(void);
/* The commit of an HDF5 file written since h5_failure_reset, whose
 * error names HDF5's reason when an HDF5 call failed: a failed write of the
 * file itself as a full or unwritable disk (with the system's reason), any
 * other failure in HDF5's own words. */
int io_h5_finish(hid_t f, char *tmp, const char *path, int failed, lcm_err *err);

#endif
