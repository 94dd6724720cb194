/* lua_sandbox.h - what a model or params file may do.
 *
 * A model or params file is data that a colleague may send by e-mail, so
 * its code runs in an environment of its own (the chunk's _ENV), not in the
 * Lua state's globals, which belong to the trusted DSL (gen/dsl/).  The
 * environment holds:
 *   - copies of the pure libraries math, string (without dump), table and
 *     utf8, and the safe part of the base library (no collectgarbage, no
 *     dofile/loadfile/load of the host's kind);
 *   - `print`, to standard error (standard output may carry results);
 *   - `setmetatable` without finalizers (__gc would run code after the
 *     limits of lua_limits.h are lifted);
 *   - `load` of text only (Lua does not verify bytecode: a crafted binary
 *     chunk crashes the process), with this environment by default;
 *   - when the file has a folder: `require`, `dofile` and `loadfile` of Lua
 *     files in that folder or below, text only, and `read_file`, the bytes
 *     of a data file there (the DSL offers it as lcm.read_file).  Paths are
 *     relative to the folder; one that leaves it (`..`, an absolute path, a
 *     symbolic link pointing out) or is not a regular file is refused.  A
 *     name is resolved beneath a descriptor of the folder opened once
 *     (open_beneath.h), so that what is checked is what is read.
 * Reading a name the sandbox leaves out (io, os, debug, package, ...) raises
 * an error that says so and names the opt-in.
 *
 * The opt-in for trusted files (lcm/lcmgen --trust-model, or
 * LCM_TRUST_MODEL=1): the environment reads through to the full standard
 * library, except os.exit and debug.sethook, which would end the process
 * without a message or lift the instruction limit; require falls back to
 * Lua's own for modules not found beside the model.
 */
#ifndef LCM_LUA_SANDBOX_H
#define LCM_LUA_SANDBOX_H

#include <lua.h>

#include "base.h"

/* The state must have the standard libraries open (luaL_openlibs): the
 * sandbox copies from them.  Pushes a table with the fields
 *   env       the environment for the file's chunks;
 *   files     the list of Lua and data files read through it, as
 *             dir/name (what a depfile lists), in order, each once;
 *   read_file the confined reader (nil without a folder);
 *   load_file the host's loader of the file itself: load_file(path) gives
 *             its chunk in env, or nil and a message (text only; a
 *             regular file of bounded size).
 * file: the model or params file (as the user gave it), whose folder its
 * names are relative to, or NULL for code that may read no file (a --set
 * value). */
void gen_sandbox_push(lua_State *L, const char *file, int trusted);

/* Loads text (never bytecode: a precompiled chunk is refused with a
 * message naming chunkname) as a chunk whose _ENV is the table at
 * env_index; like luaL_loadbufferx otherwise.  The text of a file
 * (chunkname "@path") loses a UTF-8 byte order mark and a first line
 * starting with '#', as the lua program reads files. */
int gen_sandbox_load(lua_State *L, const char *text, size_t len, const char *chunkname, int env_index);

/* Whether models and params files run with the full library: set by the
 * --trust-model option, or by LCM_TRUST_MODEL=1 in the environment. */
void gen_sandbox_set_trusted(int trusted);
/* The error (of kind `code`) of Lua message `msg` from the file at `path`:
 * Lua shortens long file names to "...tail:line: msg"; the full path is put
 * back.  A message that does not start with the path (error(msg, 0), an
 * error in a file it loaded) is prefixed with it; msg NULL (an error value
 * that is not a string) says so, naming the file. */
int gen_sandbox_fail(lcm_err *err, int code, const char *path, const char *msg);
int gen_sandbox_trusted(void);
/* The files read through the box at stack index `box` (its list "files"),
 * appended to *paths (malloc'd strings; *n counts them). */
void gen_sandbox_files(lua_State *L, int box, char ***paths, int *n);

#endif
