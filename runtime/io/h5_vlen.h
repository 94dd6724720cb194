/* h5_vlen.h - variable-length strings of untrusted HDF5 files, read without
 * HDF5's global heap reader.
 *
 * HDF5 keeps the characters of a variable-length string in a global heap
 * collection, and HDF5 1.10 (Debian's) reads them trusting the sizes and
 * indices the file gives: a crafted file overflows a buffer or loops
 * forever in H5HG_read (tests/fuzz/crashes/solution_file).  Here HDF5 hands
 * over only the string's reference (its length, the collection's address
 * and the object's index), and the characters are taken from the
 * collection read from the file, within the bounds the file holds. */
#ifndef LCM_H5_VLEN_H
#define LCM_H5_VLEN_H

#include <hdf5.h>
#include <stddef.h>

/* The scalar variable-length string attribute `a` of the file at `path`
 * into out (len bytes with its NUL).  Returns 0, or 1 when it is no such
 * attribute, does not fit, or its reference or collection is damaged. */
int io_h5_vlen_attr_string(const char *path, hid_t a, char *out, size_t len);

#endif
