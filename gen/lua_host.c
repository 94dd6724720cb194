/* lua_host.c - the only C that talks to Lua in the generator.  It preloads
 * the embedded DSL modules and calls lcm.host.run(). */
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"

static const struct {
    const char *module, *chunkname;
    const char *src;
} dsl_modules[] = {
    {"lcm", "=lcm/lcm.lua", lcm_embed_lcm_lua},
    {"lcm.trace", "=lcm/trace.lua", lcm_embed_trace_lua},
    {"lcm.build", "=lcm/build.lua", lcm_embed_build_lua},
    {"lcm.host", "=lcm/host.lua", lcm_embed_host_lua},
};

static int preload(lua_State *L, lcm_err *err)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    for (size_t i = 0; i < sizeof dsl_modules / sizeof *dsl_modules; ++i) {
        const char *src = dsl_modules[i].src;
        if (luaL_loadbufferx(L, src, strlen(src), dsl_modules[i].chunkname, "t") != LUA_OK) {
            int rc = lcm_fail(err, LCM_E_INTERNAL, "embedded module %s: %s", dsl_modules[i].module,
                              lua_tostring(L, -1));
            lua_pop(L, 3);
            return rc;
        }
        lua_setfield(L, -2, dsl_modules[i].module);
    }
    lua_pop(L, 2);
    return 0;
}

/* ---- limits -------------------------------------------------------------
 * A model file is a program: `while true do end` would hang lcmgen and lcm
 * for ever, and a table filled in a loop would take the machine's memory.
 * The state counts the Lua instructions and the bytes it holds and fails
 * with an error beyond a limit far above what models need (the largest
 * bundled model runs 1.6e6 instructions in well under 1 MiB of heap).
 * runtime/cli/params_lua.c keeps the same limits for params files. */
#define MAX_INSTRUCTIONS 1e9             /* $LCM_LUA_MAX_INSTRUCTIONS */
#define MAX_MEMORY (2048.0 * 1024 * 1024) /* bytes; $LCM_LUA_MAX_MEMORY */
#define HOOK_EVERY 1000000               /* instructions between two counts */

typedef struct lua_limits {
    size_t used, max_memory; /* max_memory is SIZE_MAX until armed */
    double instructions, max_instructions;
    int every;               /* the hook's period in instructions */
    int memory_hit, instructions_hit;
} lua_limits;

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
    lua_limits *lim = ud;
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
    if (p) lim->used = lim->used - old + nsize;
    return p;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    void *ud;
    lua_getallocf(L, &ud);
    lua_limits *lim = ud;
    lim->instructions += lim->every;
    if (lim->instructions < lim->max_instructions) return;
    lim->instructions_hit = 1;
    /* From now on every instruction fails, so a pcall in the file cannot
     * swallow the error and loop on. */
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    luaL_error(L, "too many instructions");
}

/* Setting the state up is not limited: only what the model file does is. */
static lua_State *limited_state(lua_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->max_memory = SIZE_MAX;
    return lua_newstate(limited_alloc, lim);
}

static void arm_limits(lua_State *L, lua_limits *lim)
{
    double max_memory = env_limit("LCM_LUA_MAX_MEMORY", MAX_MEMORY);
    lim->max_memory = max_memory < (double)SIZE_MAX ? (size_t)max_memory : SIZE_MAX;
    lim->max_instructions = env_limit("LCM_LUA_MAX_INSTRUCTIONS", MAX_INSTRUCTIONS);
    lim->every = lim->max_instructions < HOOK_EVERY ? (int)lim->max_instructions : HOOK_EVERY;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, lim->every);
}

/* The error of a model that failed: a limit it ran into, or Lua's message. */
static int fail_model(lcm_err *err, const char *path, const lua_limits *lim, const char *msg)
{
    if (lim->instructions_hit)
        return lcm_fail(err, LCM_E_MODEL,
                        "%s: the model did not finish loading after %.3g Lua instructions (an endless loop? "
                        "LCM_LUA_MAX_INSTRUCTIONS raises the limit)", path, lim->max_instructions);
    if (lim->memory_hit)
        return lcm_fail(err, LCM_E_MODEL,
                        "%s: out of memory: the model needed more than %.0f MiB of Lua memory while loading "
                        "(LCM_LUA_MAX_MEMORY raises the limit)", path, (double)lim->max_memory / (1024 * 1024));
    return lcm_fail(err, LCM_E_MODEL, "%s", msg ? msg : "(error object is not a string)");
}

/* ---- running the model ------------------------------------------------- */

/* The model file can replace functions of the DSL (its modules are ordinary
 * tables), so what lcm.host.run returned is checked before C reads it. */
static int is_string_list(lua_State *L, int index)
{
    if (lua_type(L, index) != LUA_TTABLE) return 0;
    lua_Unsigned n = lua_rawlen(L, index);
    for (lua_Unsigned i = 1; i <= n; ++i) {
        int type = lua_rawgeti(L, index, (lua_Integer)i);
        lua_pop(L, 1);
        if (type != LUA_TSTRING) return 0;
    }
    return 1;
}

/* Runs inside lua_pcall so that every Lua error is caught. */
static int run_protected(lua_State *L)
{
    const char *path = lua_touserdata(L, 1);
    const ir_option *defs = lua_touserdata(L, 2);
    int ndefs = (int)lua_tointeger(L, 3);
    lua_settop(L, 0);
    lua_getglobal(L, "require");
    lua_pushstring(L, "lcm.host");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "run");
    lua_pushstring(L, path);
    lua_createtable(L, 0, ndefs);
    for (int i = 0; i < ndefs; ++i) {
        lua_pushstring(L, defs[i].value);
        lua_setfield(L, -2, defs[i].name);
    }
    lua_call(L, 2, 3);
    if (lua_type(L, -3) != LUA_TSTRING || !is_string_list(L, -2) || !is_string_list(L, -1))
        return luaL_error(L, "%s: the model replaced a function of the lcm library, which then did not return "
                          "the manifest", path);
    return 3;
}

/* A list checked by is_string_list: raw reads, no metamethod runs. */
static char **string_list(lua_State *L, int index, int *n)
{
    lua_Unsigned len = lua_rawlen(L, index);
    char **v = xcalloc((size_t)len + 1, sizeof *v);
    for (lua_Unsigned i = 1; i <= len; ++i) {
        lua_rawgeti(L, index, (lua_Integer)i);
        v[(*n)++] = xstrdup(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return v;
}

int lcm_trace_model(const char *model_path, const ir_option *defines, int ndefines,
                    lcm_trace_result *out, lcm_err *err)
{
    memset(out, 0, sizeof *out);
    lua_limits lim;
    lua_State *L = limited_state(&lim);
    if (!L) return lcm_fail(err, LCM_E_INTERNAL, "cannot create a Lua state");
    luaL_openlibs(L);
    int rc = preload(L, err);
    if (rc) {
        lua_close(L);
        return rc;
    }
    lua_pushcfunction(L, run_protected);
    lua_pushlightuserdata(L, (void *)model_path);
    lua_pushlightuserdata(L, (void *)defines);
    lua_pushinteger(L, ndefines);
    arm_limits(L, &lim);
    if (lua_pcall(L, 3, 3, 0) != LUA_OK) {
        rc = fail_model(err, model_path, &lim, lua_tostring(L, -1));
        lua_close(L);
        return rc;
    }
    out->manifest = xstrdup(lua_tostring(L, -3));
    out->deps = string_list(L, -2, &out->ndeps);
    out->warnings = string_list(L, -1, &out->nwarnings);
    lua_close(L);
    return 0;
}

void lcm_trace_result_free(lcm_trace_result *r)
{
    free(r->manifest);
    for (int i = 0; i < r->ndeps; ++i) free(r->deps[i]);
    free(r->deps);
    for (int i = 0; i < r->nwarnings; ++i) free(r->warnings[i]);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}
