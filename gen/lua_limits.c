/* lua_limits.c - see lua_limits.h. */
#include "lua_limits.h"

#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INSTRUCTIONS 1e9              /* $LCM_LUA_MAX_INSTRUCTIONS */
#define MAX_MEMORY (2048.0 * 1024 * 1024) /* bytes; $LCM_LUA_MAX_MEMORY */
#define HOOK_EVERY 1000                   /* instructions between two counts */
#define BYTES_PER_INSTRUCTION 16          /* allocations count as instructions too */

/* The limits of the environment, an empty variable unset; a value that is
 * not one is a usage error, not the default silently (a typo in a limit
 * raised for a large model would bring back the low one). */
static int read_limits(lcm_lua_limits *lim, lcm_err *err)
{
    double memory = MAX_MEMORY;
    const char *s = getenv("LCM_LUA_MAX_MEMORY");
    if (s && *s && (lcm_parse_size(s, &memory) || memory < 1048576)) /* below, not even a state fits */
        return lcm_fail(err, LCM_E_USAGE, "LCM_LUA_MAX_MEMORY must be a size of at least 1M like 64M or 2G, not "
                        "'%s'", s);
    lim->armed_memory = memory < (double)SIZE_MAX ? (size_t)memory : SIZE_MAX;
    lim->max_instructions = MAX_INSTRUCTIONS;
    s = getenv("LCM_LUA_MAX_INSTRUCTIONS");
    if (s && *s) {
        char *end;
        double v = lcm_strtod_decimal(s, &end);
        if (end == s || *end || !(v >= 1) || !isfinite(v))
            return lcm_fail(err, LCM_E_USAGE, "LCM_LUA_MAX_INSTRUCTIONS must be a number of at least 1 like 1e9, "
                            "not '%s'", s);
        lim->max_instructions = v;
    }
    return 0;
}

/* The system refused memory below the cap (ulimit -v, a cgroup, the
 * machine): counted, unless Lua's retry of the same request after it
 * collected garbage (lmem.c's tryagain: the very next request) gets it, so
 * that a refusal Lua made up for does not hide the file's own error. */
static void *system_refused(lcm_lua_limits *lim, const void *ptr, size_t nsize)
{
    ++lim->system_refusals;
    lim->retry_pending = 1, lim->retry_ptr = (uintptr_t)ptr, lim->retry_nsize = nsize;
    lim->used_when_refused = lim->used;
    return NULL;
}

/* Lua's allocator contract (lua_Alloc), with growth refused beyond the cap;
 * Lua then collects garbage, retries, and raises "not enough memory". */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lcm_lua_limits *lim = ud;
    size_t old = ptr ? osize : 0; /* without ptr, osize is a type tag */
    if (nsize == 0) {
        free(ptr);
        lim->used -= old;
        return NULL;
    }
    int retry = lim->retry_pending && (uintptr_t)ptr == lim->retry_ptr && nsize == lim->retry_nsize;
    lim->retry_pending = 0;
    if (nsize > old && (lim->used > lim->max_memory || nsize - old > lim->max_memory - lim->used)) {
        lim->memory_hit = 1;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return system_refused(lim, ptr, nsize);
    if (retry) --lim->system_refusals;
    if (nsize > old) lim->instructions += (double)(nsize - old) / BYTES_PER_INSTRUCTION;
    lim->used = lim->used - old + nsize;
    return p;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    lcm_lua_limits *lim = ud;
    lim->instructions += lim->every;
    if (lim->instructions < lim->max_instructions) return;
    lim->instructions_hit = 1;
    /* from now on every instruction fails, so a pcall in the file cannot
     * swallow the error and loop on */
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    luaL_error(L, "too many instructions");
}

lua_State *lcm_lua_limited_state(lcm_lua_limits *lim, lcm_err *err)
{
    memset(lim, 0, sizeof *lim);
    lim->max_memory = SIZE_MAX;
    if (read_limits(lim, err)) return NULL;
    lua_State *L = lua_newstate(limited_alloc, lim);
    if (!L) lcm_fail(err, LCM_E_MEMORY, "cannot create a Lua state: out of memory");
    return L;
}

void lcm_lua_limits_arm(lua_State *L, lcm_lua_limits *lim)
{
    lim->max_memory = lim->armed_memory;
    lim->instructions = 0; /* what setting the state up allocated does not count */
    lim->every = lim->max_instructions < HOOK_EVERY ? (int)lim->max_instructions : HOOK_EVERY;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, lim->every);
}

void lcm_lua_limits_disarm(lua_State *L, lcm_lua_limits *lim)
{
    lua_sethook(L, NULL, 0, 0);
    lim->max_memory = SIZE_MAX;
}

int lcm_lua_limits_fail(lcm_err *err, int code, const char *where, const char *what, const lcm_lua_limits *lim)
{
    if (lim->instructions_hit)
        return lcm_fail(err, code, "%s: %s did not finish loading after %.3g Lua instructions (an endless loop? "
                        "LCM_LUA_MAX_INSTRUCTIONS raises the limit)", where, what, lim->max_instructions);
    if (lim->memory_hit)
        return lcm_fail(err, code, "%s: out of memory: %s needed more than %.0f MiB of Lua memory while loading "
                        "(LCM_LUA_MAX_MEMORY raises the limit)", where, what, (double)lim->armed_memory / (1024 * 1024));
    if (lim->system_refusals) /* not the file's fault: the memory class of failure (lcm.h) */
        return lcm_fail(err, LCM_E_MEMORY, "%s: out of memory: the system refused more memory while loading %s "
                        "(%.0f MiB of Lua memory in use)", where, what, (double)lim->used_when_refused / (1024 * 1024));
    return 0;
}
