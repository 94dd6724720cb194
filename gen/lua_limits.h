/* lua_limits.h - Lua states that cannot hang or exhaust the machine.
 *
 * A model file or a params file is a program: `while true do end` would
 * hang lcmgen and lcm for ever, and a table filled in a loop would take the
 * machine's memory.  A limited state counts the Lua instructions it runs
 * (and allocations, one per 16 bytes: one string call can do the work of
 * many instructions; and the work of library calls that loop in C, which
 * lua_bounded.c charges through gen_lua_charge) and the bytes it holds, and
 * fails with an error beyond a limit far above what real files need: the
 * largest bundled model, mortality.lua, runs 1.7e6 instructions in 0.5 MiB,
 * params files fewer than 200.  Defaults 1e9 instructions and 2 GiB,
 * changed by $LCM_LUA_MAX_INSTRUCTIONS (a number of at least 1, 1e6
 * notation) and $LCM_LUA_MAX_MEMORY (a size like $LCM_MEMORY_LIMIT's: 64M,
 * 2G, 1e8); an empty one is unset, an invalid one a usage error (not the
 * default silently).  The instruction limit is also one of CPU time, 1 s
 * per 1e7 instructions and at least 1 s (100 s at the default), checked
 * at every call too: the backstop for work that no count sees (a loop of
 * pattern matches, each within its bound).
 *
 * A limit, once hit, holds until the host disarms the state: every later
 * instruction raises again (a pcall in the file cannot swallow it and go
 * on), the host fails even when the file caught every error (gen_lua_limits_hit),
 * and xpcall's message handler is skipped (Lua runs it with the hook off,
 * where it could loop for ever; lua_bounded.c wraps xpcall).  When the
 * system refuses memory below the limit (ulimit -v, a cgroup), the error
 * names the file too, not Lua's bare "not enough memory".  Used by the Lua
 * hosts: gen/lua_host.c (models), runtime/cli/params_lua.c (params files)
 * and runtime/cli/initial_lua.c (initial conditions).
 */
#ifndef LCM_LUA_LIMITS_H
#define LCM_LUA_LIMITS_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

typedef struct lcm_lua_limits {
    size_t used, max_memory; /* max_memory is SIZE_MAX while not armed */
    size_t armed_memory;     /* the limit while armed ($LCM_LUA_MAX_MEMORY), also for the message */
    double instructions, max_instructions;
    double max_seconds;      /* of this thread's CPU time while armed */
    double cpu_start;        /* this thread's CPU time when armed */
    double next_time_check;  /* the monotonic clock's time before which the CPU time cannot be over */
    int every;               /* the hook's period in instructions */
    int armed;
    int memory_hits;         /* refusals at the limit that Lua did not make up for by collecting garbage */
    int instructions_hit, time_hit;
    const char *charged;     /* the library call whose work passed the instruction limit, or NULL */
    char charged_where[4200]; /* where the file called it ("dir/m.lua:3"), a path in full */
    double charged_work;
    int system_refusals;     /* refusals of the system that Lua did not make up for */
    size_t used_when_refused;
    int retry_pending;       /* the next request may be Lua's retry of the refused one: */
    int retry_at_limit;      /* (refused at the limit, not by the system) */
    uintptr_t retry_ptr;     /* its block */
    size_t retry_nsize;      /* and size */
} lcm_lua_limits;

/* A new state whose allocations go through lim (not limited until armed),
 * with the limits of the environment read and checked into lim; NULL and
 * err filled when one is invalid (LCM_E_USAGE) or there is no memory. */
lua_State *gen_lua_limited_state(lcm_lua_limits *lim, lcm_err *err);
/* The limits hold from arm to disarm: around the file's code, not around
 * the host reading results back (a Lua error there would abort). */
void gen_lua_limits_arm(lua_State *L, lcm_lua_limits *lim);
void gen_lua_limits_disarm(lua_State *L, lcm_lua_limits *lim);
/* Whether a limit was hit since the state was armed, even if the file
 * caught the error: the host fails then as if the call had. */
int gen_lua_limits_hit(const lcm_lua_limits *lim);
/* The error of a limit that was hit ("<where>: <what> did not finish ...",
 * code), or of memory the system refused ("<where>: out of memory: ...",
 * LCM_E_MEMORY: not the file's fault, the machine's), or 0 when neither
 * happened. */
int gen_lua_limits_fail(lcm_err *err, int code, const char *where, const char *what, const lcm_lua_limits *lim);

/* For the library functions that loop in C (lua_bounded.c): counts `work`
 * instructions against the limit of the armed state L, and raises the
 * limit's error (naming `what`, "table.insert", and the file's line that
 * called it) when they pass it, before the call does the work.  Nothing
 * while L is not armed, or not a limited state. */
void gen_lua_charge(lua_State *L, double work, const char *what);
/* Whether L is a limited state one of whose limits was hit (xpcall's
 * handler is then skipped). */
int gen_lua_limit_hit_in(lua_State *L);

#endif
