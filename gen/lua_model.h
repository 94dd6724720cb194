/* lua_model.h - the model as the DSL returns it (gen/dsl/build.lua's
 * B.model: plain Lua tables) read into the IR.  The tables come out of a
 * state that ran the user's model file, which can replace functions of the
 * DSL, so every field is read raw (no metamethod runs) and checked for its
 * type and range, and the IR is then checked as a manifest read from disk
 * is (ir_manifest_check).  C alone writes the manifest (ir_manifest_write). */
#ifndef LCM_LUA_MODEL_H
#define LCM_LUA_MODEL_H

#include <lua.h>

#include "ir.h"

/* Reads the table at index into m (zeroed by the caller; the caller frees
 * it also on failure).  Call it inside lua_pcall: it pushes keys, which can
 * raise a memory error.  On failure *internal tells whether the tables were
 * malformed (1: a DSL function replaced or a bug) or the model's own text
 * cannot be written (0: a NUL byte in a name or label). */
int gen_lua_read_model(lua_State *L, int index, ir_model *m, int *internal, lcm_err *err);

#endif
