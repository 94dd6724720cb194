/* params_lua.c - Lua values to parameter trees (see params_lua.h). */
#include "params_lua.h"

#include "files.h"
#include "lua_limits.h"
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* More numbers and tables than any model's parameters (each converted once
 * per reference: a table shared by 2 fields, 40 levels deep, would be 2^40
 * values of the tree, in time and memory after the Lua limits end). */
#define MAX_VALUES 1000000

/* A limited state whose chunks run in a sandbox (lua_sandbox.h): the box
 * is left on the stack.  file: the params file, in whose folder the chunk
 * may dofile or require (NULL: no file access, for --set).  NULL and err
 * filled when the state cannot be made (gen_lua_limited_state). */
static lua_State *new_state(lcm_lua_limits *lim, const char *file, lcm_err *err)
{
    lua_State *L = gen_lua_limited_state(lim, err);
    if (!L) return NULL;
    luaL_openlibs(L); /* the sandbox copies from these; the chunk sees its own environment */
    gen_sandbox_push(L, file, gen_sandbox_trusted());
    return L;
}

/* Loads text as a chunk in the environment of the box at index 1. */
static int load_sandboxed(lua_State *L, const char *text, size_t len, const char *chunkname)
{
    lua_getfield(L, 1, "env");
    int rc = gen_sandbox_load(L, text, len, chunkname, -1);
    lua_remove(L, -2);
    return rc;
}

/* ---- values ------------------------------------------------------------- */

static int cmp_keys(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Converts the value at the top of the stack; `where` names it in errors;
 * *left counts down the values the tree may still take (MAX_VALUES).
 * Reads are raw: no metamethod runs, so no Lua code and no error. */
static int convert(lua_State *L, const char *where, int depth, long *left, lcm_pvalue **out, lcm_err *err)
{
    if (--*left < 0)
        return base_fail(err, LCM_E_PARAMS, "%s: the parameters hold more than %d numbers and tables in all (a table "
                        "in several places counts in each)", *where ? where : "the table", MAX_VALUES);
    int t = lua_type(L, -1);
    if (t == LUA_TNUMBER) {
        *out = lcm_pv_num(lua_tonumber(L, -1));
        return 0;
    }
    if (t != LUA_TTABLE)
        return base_fail(err, LCM_E_PARAMS, "%s must be a number or a table, not %s%s", where,
                        t == LUA_TNIL ? "" : "a ", t == LUA_TNIL ? "nil (no value)" : lua_typename(L, t));
    /* (the limit of a tree's depth also ends a table that holds itself) */
    if (depth >= LCM_PV_MAX_DEPTH || !lua_checkstack(L, 3))
        return base_fail(err, LCM_E_PARAMS, "%s nests tables more than %d deep (or holds itself)", where,
                        LCM_PV_MAX_DEPTH);
    lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
    /* what is wrong with the keys, whatever order lua_next gives them in:
     * the first type name that is neither string nor integer, the least
     * integer key outside 1..len */
    int nstr = 0, nint = 0;
    const char *bad_type = NULL;
    lua_Integer low = 1, high = len, past = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING) nstr++;
        else if (!lua_isinteger(L, -2)) {
            const char *type = lua_type(L, -2) == LUA_TNUMBER ? "fractional number" : lua_typename(L, lua_type(L, -2));
            if (!bad_type || strcmp(type, bad_type) < 0) bad_type = type;
        } else {
            lua_Integer k = lua_tointeger(L, -2);
            nint++;
            if (k < low) low = k;
            if (k > high && (!past || k < past)) past = k;
        }
        lua_pop(L, 1);
    }
    const char *name = *where ? where : "the table";
    if (bad_type)
        return base_fail(err, LCM_E_PARAMS, "%s has a key that is a %s: keys are names, or positions 1, 2, ... of a list",
                        name, bad_type);
    if (low < 1)
        return base_fail(err, LCM_E_PARAMS, "%s has an entry at position %lld: a list starts at position 1 (the "
                        "first element is code 0)", name, (long long)low);
    if (past)
        return base_fail(err, LCM_E_PARAMS, "%s has a hole: position %lld is given but not position %lld", name,
                        (long long)past, (long long)len + 1);
    if (nstr && nint) return base_fail(err, LCM_E_PARAMS, "%s mixes a list with named entries", name);
    int rc = 0;
    if (!nstr) {
        lcm_pvalue *list = lcm_pv_list();
        for (lua_Integer i = 1; i <= len && !rc; ++i) {
            lua_rawgeti(L, -1, i);
            char *w = base_xasprintf("%s[%lld]", where, (long long)i);
            lcm_pvalue *item = NULL;
            rc = convert(L, w, depth + 1, left, &item, err);
            free(w);
            lua_pop(L, 1);
            if (!rc) lcm_pv_append(list, item);
        }
        if (rc) lcm_pv_free(list);
        else *out = list;
        return rc;
    }
    /* by name, in sorted order: the tree and its errors do not depend on
     * Lua's hash order */
    char **keys = base_xcalloc((size_t)nstr, sizeof *keys);
    int n = 0, nul = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        size_t klen;
        const char *key = lua_tolstring(L, -2, &klen); /* a string: counted as one above */
        nul |= strlen(key) != klen;
        keys[n++] = base_xstrdup(key);
        lua_pop(L, 1);
    }
    if (nul) {
        for (int i = 0; i < n; ++i) free(keys[i]);
        free(keys);
        return base_fail(err, LCM_E_PARAMS, "%s has a name that holds a NUL byte", *where ? where : "the table");
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_keys);
    lcm_pvalue *table = lcm_pv_table();
    for (int i = 0; i < n && !rc; ++i) {
        lua_pushstring(L, keys[i]);
        lua_rawget(L, -2);
        char *w = *where ? base_xasprintf("%s.%s", where, keys[i]) : base_xasprintf("'%s'", keys[i]);
        lcm_pvalue *item = NULL;
        rc = convert(L, w, depth + 1, left, &item, err);
        free(w);
        lua_pop(L, 1);
        if (!rc) core_pv_put_new(table, keys[i], item); /* sorted, unique */
    }
    for (int i = 0; i < n; ++i) free(keys[i]);
    free(keys);
    if (rc) lcm_pv_free(table);
    else *out = table;
    return rc;
}

int cli_params_read_lua(const char *path, lcm_pvalue **out, char ***read, int *nread, lcm_err *err)
{
    *out = NULL;
    if (!sys_file_exists(path)) return base_fail(err, LCM_E_IO, "params file '%s' does not exist", path);
    size_t len = 0;
    char *text = sys_read_file(path, &len, err);
    if (!text) return err->code;
    char *chunkname = base_xasprintf("@%s", path);
    lcm_lua_limits lim;
    lua_State *L = new_state(&lim, path, err);
    if (!L) {
        free(text), free(chunkname);
        return err->code;
    }
    int rc = 0;
    gen_lua_limits_arm(L, &lim);
    int loaded = load_sandboxed(L, text, len, chunkname);
    free(text), free(chunkname);
    if (loaded != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK || gen_lua_limits_hit(&lim)) {
        rc = gen_lua_limits_fail(err, LCM_E_PARAMS, path, "the params file", &lim);
        if (!rc) rc = gen_sandbox_fail(err, LCM_E_PARAMS, path, lua_tostring(L, -1));
    } else if (lua_type(L, -1) != LUA_TTABLE) {
        rc = base_fail(err, LCM_E_PARAMS, "%s: a params file must return a table, it returned %s", path,
                      luaL_typename(L, -1));
    } else {
        gen_lua_limits_disarm(L, &lim);
        long left = MAX_VALUES;
        rc = convert(L, "", 0, &left, out, err);
        if (rc) base_fail_prefix(err, "%s", path);
        else if ((*out)->kind != LCM_PV_TABLE && (*out)->n > 0) {
            lcm_pv_free(*out);
            *out = NULL;
            rc = base_fail(err, LCM_E_PARAMS, "%s: a params file must return a table of names, not a list", path);
        } else if ((*out)->kind == LCM_PV_LIST) {
            lcm_pv_free(*out); /* an empty table */
            *out = lcm_pv_table();
        }
    }
    if (read) gen_sandbox_files(L, 1, read, nread);
    lua_close(L);
    return rc;
}

int cli_params_apply_set(lcm_pvalue *root, const char *assignment, lcm_err *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return base_fail(err, LCM_E_USAGE, "--set expects name=value (e.g. --set working.wage=20), got '%s'", assignment);
    if (!eq[1]) return base_fail(err, LCM_E_PARAMS, "--set %.*s: no value after '='", (int)(eq - assignment), assignment);
    lcm_lua_limits lim;
    lua_State *L = new_state(&lim, NULL, err);
    if (!L) return err->code;
    char *path = base_xstrndup(assignment, (size_t)(eq - assignment));
    char *where = base_xasprintf("--set %s", path);
    char *chunk = base_xasprintf("return %s", eq + 1);
    int rc = 0;
    gen_lua_limits_arm(L, &lim);
    if (load_sandboxed(L, chunk, strlen(chunk), "=--set") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK ||
        gen_lua_limits_hit(&lim)) {
        rc = gen_lua_limits_fail(err, LCM_E_PARAMS, where, "the value", &lim);
        if (!rc) rc = base_fail(err, LCM_E_PARAMS, "%s: '%s' is not a value (%s)", where, eq + 1, lua_tostring(L, -1));
    } else if (lua_isnil(L, -1)) { /* an undefined name: nan, inf, a typo */
        rc = base_fail(err, LCM_E_PARAMS, "%s: '%s' is not a value (a number such as 0.95 or a table such as {1, 2}; "
                      "names such as nan or inf are not defined)", where, eq + 1);
    } else {
        gen_lua_limits_disarm(L, &lim);
        lcm_pvalue *v = NULL;
        long left = MAX_VALUES;
        rc = convert(L, where, 0, &left, &v, err);
        if (!rc && (rc = lcm_pv_set_path(root, path, v, err))) base_fail_prefix(err, "--set");
    }
    lua_close(L);
    free(chunk), free(where), free(path);
    return rc;
}
