/* lua_bounded.h - Lua's library inside the limits of lua_limits.h.
 *
 * The instruction limit counts the instructions of Lua code; a library
 * function written in C runs as one of them however long it loops.  On a
 * table of 1e7 elements, table.insert(t, 1, k) moves 1e7 of them in one
 * instruction; string.rep("", 2^60) loops 2^60 times without allocating a
 * byte.  So the functions that loop over a count or a length their
 * arguments give are replaced, in the state's own library tables (which the
 * sandbox copies, and the string metatable reaches), by wrappers that
 * charge that work to the instruction limit before they call the library
 * (gen_lua_charge: a call over the limit is refused before it starts):
 *
 *   8 instructions per element  table.insert and table.remove (the elements
 *                               they shift), table.move, table.concat,
 *                               table.unpack, table.pack, table.sort (n log2 n
 *                               comparisons), string.rep (per repetition),
 *                               string.char and utf8.char (per argument)
 *   1 per byte                  string.byte, string.upper, string.lower,
 *                               string.reverse, string.format (of the
 *                               format), string.pack, string.packsize,
 *                               string.unpack, utf8.len, utf8.codepoint,
 *                               utf8.offset
 *
 * (8 is about what one element costs in time against one instruction.)
 * Pattern matching (string.find, match, gmatch, gsub) backtracks, so its
 * work is not known before it runs: a call whose worst case exceeds 1e10
 * steps is refused (MAX_MATCH_STEPS below), and a loop of calls, each within
 * the bound, meets the limit's CPU time (lua_limits.h), the backstop for any
 * work no count sees.
 *
 * xpcall is replaced too: when an error is a limit's (gen_lua_limit_hit_in),
 * the file's message handler is not called, since Lua calls a handler for
 * an error raised in the count hook with the hook off, where a handler that
 * loops would never be stopped.
 */
#ifndef LCM_LUA_BOUNDED_H
#define LCM_LUA_BOUNDED_H

#include <lua.h>

/* Replaces the functions above in the state's libraries (string, table,
 * utf8 and the base library's xpcall), once per state; the standard
 * libraries must be open. */
void gen_lua_bound_library(lua_State *L);

#endif
