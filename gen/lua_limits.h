/* lua_limits.h - Lua states that cannot hang or exhaust the machine.
 *
 * A model file or a params file is a program: `while true do end` would
 * hang lcmgen and lcm for ever, and a table filled in a loop would take the
 * machine's memory.  A limited state counts the Lua instructions it runs
 * (and allocations, one per 16 bytes: one string call can do the work of
 * many instructions) and the bytes it holds, and fails with an error beyond
 * a limit far above what real files need: the largest bundled model,
 * mortality.lua, runs 1.7e6 instructions in 0.5 MiB, params files fewer
 * than 200.  Defaults 1e9 instructions and 2 GiB, changed by
 * $LCM_LUA_MAX_INSTRUCTIONS and $LCM_LUA_MAX_MEMORY (bytes; 1e6 notation).
 * Used by both Lua hosts: gen/lua_host.c (models) and
 * runtime/cli/params_lua.c (params files).
 */
#ifndef LCM_LUA_LIMITS_H
#define LCM_LUA_LIMITS_H

#include <lua.h>
#include <stddef.h>

#include "util.h"

typedef struct lcm_lua_limits {
    size_t used, max_memory; /* max_memory is SIZE_MAX while not armed */
    size_t armed_memory;     /* the limit while armed, for the message of a hit after disarming */
    double instructions, max_instructions;
    int every;               /* the hook's period in instructions */
    int memory_hit, instructions_hit;
} lcm_lua_limits;

/* A new state whose allocations go through lim (not limited until armed). */
lua_State *lcm_lua_limited_state(lcm_lua_limits *lim);
/* The limits hold from arm to disarm: around the file's code, not around
 * the host reading results back (a Lua error there would abort). */
void lcm_lua_limits_arm(lua_State *L, lcm_lua_limits *lim);
void lcm_lua_limits_disarm(lua_State *L, lcm_lua_limits *lim);
/* The error of a limit that was hit ("<where>: <what> did not finish ..."),
 * or 0 when none was. */
int lcm_lua_limits_fail(lcm_err *err, int code, const char *where, const char *what, const lcm_lua_limits *lim);

#endif
