/* lua_limits.c - see lua_limits.h. */
#include "lua_limits.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INSTRUCTIONS 1e9              /* $LCM_LUA_MAX_INSTRUCTIONS */
#define MAX_MEMORY (2048.0 * 1024 * 1024) /* bytes; $LCM_LUA_MAX_MEMORY */
#define HOOK_EVERY 1000                   /* instructions between two counts */
#define BYTES_PER_INSTRUCTION 16          /* allocations count as instructions too */

/* A positive number from the environment (1e6 is accepted), else fallback. */
static double env_limit(const char *name, double fallback)
{
    const char *s = getenv(name);
    char *end;
    double v = s ? strtod(s, &end) : 0;
    return s && end != s && !*end && v >= 1 ? v : fallback;
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
    if (nsize > old && (lim->used > lim->max_memory || nsize - old > lim->max_memory - lim->used)) {
        lim->memory_hit = 1;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p) {
        if (nsize > old) lim->instructions += (double)(nsize - old) / BYTES_PER_INSTRUCTION;
        lim->used = lim->used - old + nsize;
    }
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

lua_State *lcm_lua_limited_state(lcm_lua_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->max_memory = SIZE_MAX;
    return lua_newstate(limited_alloc, lim);
}

void lcm_lua_limits_arm(lua_State *L, lcm_lua_limits *lim)
{
    double max_memory = env_limit("LCM_LUA_MAX_MEMORY", MAX_MEMORY);
    lim->max_memory = max_memory < (double)SIZE_MAX ? (size_t)max_memory : SIZE_MAX;
    lim->armed_memory = lim->max_memory;
    lim->instructions = 0; /* what setting the state up allocated does not count */
    lim->max_instructions = env_limit("LCM_LUA_MAX_INSTRUCTIONS", MAX_INSTRUCTIONS);
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
    return 0;
}
