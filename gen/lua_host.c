/* lua_host.c - runs Lua for the generator.  It preloads the embedded DSL
 * modules and calls lcm.host.run() with the sandbox the model runs in
 * (lua_sandbox.h); lua_model.c reads the model that returns into the IR. */
#include "lua_host.h"

#include "lua_limits.h"
#include "lua_model.h"
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "layout.h"
#include "manifest.h"

static const struct {
    const char *module, *chunkname;
    const char *src;
} dsl_modules[] = {
    {"lcm", "=lcm/lcm.lua", lcm_embed_lcm_lua},
    {"lcm.trace", "=lcm/trace.lua", lcm_embed_trace_lua},
    {"lcm.diff", "=lcm/diff.lua", lcm_embed_diff_lua},
    {"lcm.inverse", "=lcm/inverse.lua", lcm_embed_inverse_lua},
    {"lcm.reach", "=lcm/reach.lua", lcm_embed_reach_lua},
    {"lcm.egm_plan", "=lcm/egm_plan.lua", lcm_embed_egm_plan_lua},
    {"lcm.build", "=lcm/build.lua", lcm_embed_build_lua},
    {"lcm.host", "=lcm/host.lua", lcm_embed_host_lua},
};

/* lcm.layout: the state layout's limits and splay predicate from their
 * owner (ir/layout.h), and the number of taste-shock choices a regime may
 * have (ir/ir.h), for build.lua's checks, which name the model line; and
 * the edit distance of lcm's "did you mean" hints (ir/base/text.c). */
static int layout_splays(lua_State *L)
{
    lua_Integer batch = luaL_checkinteger(L, 1), n = luaL_checkinteger(L, 2);
    ir_grid g = {.batch_size = batch < INT_MAX ? (int)batch : INT_MAX, .n = n < INT_MAX ? (int)n : INT_MAX};
    lua_pushboolean(L, ir_splays(&g));
    return 1;
}

static int layout_edit_distance(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)base_edit_distance(luaL_checkstring(L, 1), luaL_checkstring(L, 2)));
    return 1;
}

static int layout_near_miss(lua_State *L)
{
    lua_pushboolean(L, base_near_miss(luaL_checkstring(L, 1), luaL_checkstring(L, 2)));
    return 1;
}

static int open_layout(lua_State *L)
{
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, IR_MAX_TASTE_CHOICES);
    lua_setfield(L, -2, "max_taste_choices");
    lua_pushinteger(L, LCM_MAX_SPLAYED);
    lua_setfield(L, -2, "max_splayed");
    lua_pushinteger(L, IR_MAX_SHARDED);
    lua_setfield(L, -2, "max_sharded");
    lua_pushcfunction(L, layout_splays);
    lua_setfield(L, -2, "splays");
    lua_pushcfunction(L, layout_edit_distance);
    lua_setfield(L, -2, "edit_distance");
    lua_pushcfunction(L, layout_near_miss);
    lua_setfield(L, -2, "near_miss");
    return 1;
}

static int preload(lua_State *L, lcm_err *err)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    for (size_t i = 0; i < sizeof dsl_modules / sizeof *dsl_modules; ++i) {
        const char *src = dsl_modules[i].src;
        if (luaL_loadbufferx(L, src, strlen(src), dsl_modules[i].chunkname, "t") != LUA_OK) {
            int rc = base_fail(err, LCM_E_INTERNAL, "embedded module %s: %s", dsl_modules[i].module,
                              lua_tostring(L, -1));
            lua_pop(L, 3);
            return rc;
        }
        lua_setfield(L, -2, dsl_modules[i].module);
    }
    lua_pushcfunction(L, open_layout);
    lua_setfield(L, -2, "lcm.layout");
    lua_pop(L, 2);
    return 0;
}

typedef struct data_box {
    const char *file;
    const ir_option *options;
    int noptions;
} data_box;

/* Inside lua_pcall: the DSL's Lua code runs before the box exists. */
static int push_data_box(lua_State *L)
{
    const data_box *d = lua_touserdata(L, 1);
    lua_getglobal(L, "require");
    lua_pushstring(L, "lcm");
    lua_call(L, 1, 1); /* first: it extends math, which the sandbox copies */
    lua_getfield(L, -1, "_set_options");
    lua_createtable(L, 0, d->noptions);
    for (int i = 0; i < d->noptions; ++i) {
        lua_pushstring(L, d->options[i].value);
        lua_setfield(L, -2, d->options[i].name);
    }
    lua_pushboolean(L, 1); /* the manifest records every option the model reads */
    lua_call(L, 2, 0);
    gen_sandbox_push(L, d->file, gen_sandbox_trusted());
    lua_getfield(L, -2, "_set_reader");
    lua_getfield(L, -2, "read_file");
    lua_call(L, 1, 0);
    return 1;
}

int gen_lua_push_data_box(lua_State *L, const char *file, const ir_option *options, int noptions, lcm_err *err)
{
    int rc = preload(L, err);
    if (rc) return rc;
    data_box d = {file, options, noptions};
    lua_pushcfunction(L, push_data_box);
    lua_pushlightuserdata(L, &d);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        rc = base_fail(err, LCM_E_INTERNAL, "%s: cannot load the lcm library: %s", file, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return rc;
}

/* The error of a model that failed: a limit it ran into, or Lua's message. */
static int fail_model(lcm_err *err, const char *path, const lcm_lua_limits *lim, const char *msg)
{
    int rc = gen_lua_limits_fail(err, LCM_E_MODEL, path, "the model", lim);
    return rc ? rc : msg ? base_fail(err, LCM_E_MODEL, "%s", msg)
                         : base_fail(err, LCM_E_MODEL, "%s: raised an error whose value is not a string (error(...) of "
                                    "a table?)", path);
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

typedef struct run_ctx {
    const char *path;
    const lcmgen_inputs *in;
    ir_model *model;
    lcm_err *err;
    int rc, internal; /* gen_lua_read_model's */
} run_ctx;

/* Runs inside lua_pcall so that every Lua error is caught, the reading of
 * the model's tables too (it pushes keys: a memory error). */
static int run_protected(lua_State *L)
{
    run_ctx *ctx = lua_touserdata(L, 1);
    const char *path = ctx->path;
    const lcmgen_inputs *in = ctx->in;
    lua_settop(L, 0);
    lua_getglobal(L, "require");
    lua_pushstring(L, "lcm");
    lua_call(L, 1, 0); /* first: it extends math, which the sandbox copies */
    lua_getglobal(L, "require");
    lua_pushstring(L, "lcm.host");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "run");
    lua_pushstring(L, path);
    lua_createtable(L, 0, in->ndefines);
    for (int i = 0; i < in->ndefines; ++i) {
        lua_pushstring(L, in->defines[i].value);
        lua_setfield(L, -2, in->defines[i].name);
    }
    lua_createtable(L, in->nfixes, 0); /* { {path, value}, ... } in the order given */
    for (int i = 0; i < in->nfixes; ++i) {
        lua_createtable(L, 2, 0);
        lua_pushstring(L, in->fixes[i].name);
        lua_rawseti(L, -2, 1);
        /* the number C read (lcmgen_parse_fix checked it), in a form Lua reads
         * as that float: hex, exact, -0 kept (0xffffffffffffffff would be
         * Lua's integer -1) */
        char num[64];
        snprintf(num, sizeof num, "%a", strtod(in->fixes[i].value, NULL));
        lua_pushstring(L, num);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, i + 1);
    }
    gen_sandbox_push(L, path, gen_sandbox_trusted());
    lua_call(L, 4, 4);
    if (lua_type(L, -4) != LUA_TTABLE || !is_string_list(L, -3) || !is_string_list(L, -2) ||
        lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "%s: the model replaced a function of the lcm library, which then did not return "
                          "the model", path);
    ctx->rc = gen_lua_read_model(L, -4, ctx->model, &ctx->internal, ctx->err);
    return 4;
}

/* A list checked by is_string_list: raw reads, no metamethod runs. */
static char **string_list(lua_State *L, int index, int *n)
{
    lua_Unsigned len = lua_rawlen(L, index);
    char **v = base_xcalloc((size_t)len + 1, sizeof *v);
    for (lua_Unsigned i = 1; i <= len; ++i) {
        lua_rawgeti(L, index, (lua_Integer)i);
        v[(*n)++] = base_xstrdup(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return v;
}

int gen_trace_model(const char *model_path, const lcmgen_inputs *in, lcm_trace_result *out, lcm_err *err)
{
    static const lcmgen_inputs none;
    if (!in) in = &none;
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(model_path, &st) || !S_ISREG(st.st_mode)) /* a pipe would hang the read */
        return base_fail(err, LCM_E_IO, "model '%s' is not a regular file", model_path);
    lcm_lua_limits lim;
    lua_State *L = gen_lua_limited_state(&lim, err);
    if (!L) return err->code;
    luaL_openlibs(L);
    int rc = preload(L, err);
    if (rc) {
        lua_close(L);
        return rc;
    }
    run_ctx ctx = {.path = model_path, .in = in, .model = &out->model, .err = err};
    lua_pushcfunction(L, run_protected);
    lua_pushlightuserdata(L, &ctx);
    gen_lua_limits_arm(L, &lim);
    if (lua_pcall(L, 1, 4, 0) != LUA_OK || gen_lua_limits_hit(&lim)) { /* a limit holds inside pcall too */
        rc = fail_model(err, model_path, &lim, lua_tostring(L, -1));
        lua_close(L);
        gen_trace_result_free(out);
        return rc;
    }
    if (ctx.rc) {
        if (ctx.internal) {
            base_fail_prefix(err, "%s: internal error: the traced model does not read back", model_path);
            err->code = LCM_E_INTERNAL;
        } else base_fail_prefix(err, "%s", model_path);
        lua_close(L);
        gen_trace_result_free(out);
        return err->code;
    }
    out->deps = string_list(L, -3, &out->ndeps);
    out->warnings = string_list(L, -2, &out->nwarnings);
    out->reachability = base_xstrdup(lua_tostring(L, -1));
    lua_close(L);
    return 0;
}

void gen_trace_result_free(lcm_trace_result *r)
{
    ir_model_free(&r->model);
    free(r->reachability);
    for (int i = 0; i < r->ndeps; ++i) free(r->deps[i]);
    free(r->deps);
    for (int i = 0; i < r->nwarnings; ++i) free(r->warnings[i]);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}
