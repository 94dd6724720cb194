/* params_lua.h - parameter files are Lua: a file returning a table. */
#ifndef LCM_PARAMS_LUA_H
#define LCM_PARAMS_LUA_H

#include "params.h"

/* Reads a params file into a value tree; the files it read (dofile,
 * require, read_file) are appended to *read (*nread of them) when read is
 * not NULL, also on failure. */
int cli_params_read_lua(const char *path, lcm_pvalue **out, char ***read, int *nread, lcm_err *err);
/* Applies "--set a.b.c=value"; value is a Lua expression (20, 0.98, {1, 2}). */
int cli_params_apply_set(lcm_pvalue *root, const char *assignment, lcm_err *err);

#endif
