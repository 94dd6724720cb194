/* path.h - file names as text: folder, stem, extension, joining.  No
 * system call: what is on the disk is ir/sys/files.h's. */
#ifndef LCM_PATH_H
#define LCM_PATH_H

/* Directory part of a path ("." if none); caller frees. */
char *base_path_dirname(const char *path);
/* "a/b/model.lua" -> "model" ; caller frees. */
char *base_path_stem(const char *path);
/* Whether path ends in ext (".csv"), in any case, after at least one
 * other character. */
int base_path_has_extension(const char *path, const char *ext);
/* Named as an HDF5 file: .h5 or .hdf5 (the initial conditions read by
 * name, the warning of an output named against its format). */
int base_path_is_h5(const char *path);
char *base_path_join(const char *a, const char *b);

#endif
