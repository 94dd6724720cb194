/* solution_io.h - solution files beyond lcm.h's: a file with some of the
 * V arrays (snapshots of failed checks keep only the periods they need). */
#ifndef LCM_SOLUTION_IO_H
#define LCM_SOLUTION_IO_H

#include "lcm_internal.h"

/* The solution's HDF5 file with only the V arrays of include[t * nregimes + r]. */
int core_solution_write_h5_subset(const lcm_solution *s, const char *path, const unsigned char *include, lcm_err *err);

#endif
