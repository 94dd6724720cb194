/* lua_host.c - the only C that talks to Lua in the generator.  It preloads
 * the embedded DSL modules and calls lcm.host.run(). */
#include "lua_host.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
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
    return 3;
}

static char **string_list(lua_State *L, int index, int *n)
{
    lua_Integer len = luaL_len(L, index);
    char **v = xcalloc((size_t)len + 1, sizeof *v);
    for (lua_Integer i = 1; i <= len; ++i) {
        lua_geti(L, index, i);
        v[(*n)++] = xstrdup(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return v;
}

int lcm_trace_model(const char *model_path, const ir_option *defines, int ndefines,
                    lcm_trace_result *out, lcm_err *err)
{
    memset(out, 0, sizeof *out);
    lua_State *L = luaL_newstate();
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
    if (lua_pcall(L, 3, 3, 0) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        rc = lcm_fail(err, LCM_E_MODEL, "%s", msg ? msg : "(error object is not a string)");
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
