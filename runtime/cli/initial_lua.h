/* initial_lua.h - initial conditions from a Lua file (--initial FILE.lua).
 *
 * The file runs in the sandbox of params files and models (lua_sandbox.h,
 * with require("lcm") for lcm.read_table of data files beside it) and
 * returns the columns { regime = {...}, age = {...}, <state> = {...} }
 * (lists of one value per subject: numbers, labels or regime names, as in
 * CSV), or a function(n) that returns them for n subjects.  The columns are
 * validated like CSV (runtime/sim/initial.c); every problem is an
 * LCM_E_INPUT error naming the file, the column and the subject.
 */
#ifndef LCM_INITIAL_LUA_H
#define LCM_INITIAL_LUA_H

#include "initial.h"

/* Subjects of a function(n) when --subjects is not given. */
#define LCM_INITIAL_LUA_DEFAULT_SUBJECTS 1000

/* subjects: --subjects N, or 0 when not given (a function then gets
 * LCM_INITIAL_LUA_DEFAULT_SUBJECTS; a file returning columns refuses it).
 * The files it read (require, lcm.read_table, ...) are appended to *read
 * (*nread of them), also on failure. */
int cli_initial_read_lua(const ir_model *m, const char *path, long long subjects, lcm_initial **out, char ***read,
                         int *nread, lcm_err *err);

#endif
