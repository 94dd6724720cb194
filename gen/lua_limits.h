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
 * $LCM_LUA_MAX_INSTRUCTIONS (a number of at least 1, 1e6 notation) and
 * $LCM_LUA_MAX_MEMORY (a size like $LCM_MEMORY_LIMIT's: 64M, 2G, 1e8); an
 * empty one is unset, an invalid one a usage error (not the default
 * silently).  When the system refuses memory below the limit (ulimit -v, a
 * cgroup), the error names the file too, not Lua's bare "not enough
 * memory".  Used by the Lua hosts: gen/lua_host.c (models),
 * runtime/cli/params_lua.c (params files) and runtime/cli/initial_lua.c
 * (initial conditions).
 */
#ifndef LCM_LUA_LIMITS_H
#define LCM_LUA_LIMITS_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct lcm_lua_limits {
    size_t used, max_memory; /* max_memory is SIZE_MAX while not armed */
    size_t armed_memory;     /* the limit while armed ($LCM_LUA_MAX_MEMORY), also for the message */
    double instructions, max_instructions;
    int every;               /* the hook's period in instructions */
    int memory_hit, instructions_hit;
    int system_refusals;     /* refusals of the system that Lua did not make up for */
    size_t used_when_refused;
    int retry_pending;       /* the next request may be Lua's retry of the refused one: */
    uintptr_t retry_ptr;     /* its block */
    size_t retry_nsize;      /* and size */
} lcm_lua_limits;

/* A new state whose allocations go through lim (not limited until armed),
 * with the limits of the environment read and checked into lim; NULL and
 * err filled when one is invalid (LCM_E_USAGE) or there is no memory. */
lua_State *lcm_lua_limited_state(lcm_lua_limits *lim, lcm_err *err);
/* The limits hold from arm to disarm: around the file's code, not around
 * the host reading results back (a Lua error there would abort). */
void lcm_lua_limits_arm(lua_State *L, lcm_lua_limits *lim);
void lcm_lua_limits_disarm(lua_State *L, lcm_lua_limits *lim);
/* The error of a limit that was hit ("<where>: <what> did not finish ...",
 * code), or of memory the system refused ("<where>: out of memory: ...",
 * LCM_E_MEMORY: not the file's fault, the machine's), or 0 when neither
 * happened. */
int lcm_lua_limits_fail(lcm_err *err, int code, const char *where, const char *what, const lcm_lua_limits *lim);

#endif
