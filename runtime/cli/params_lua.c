/* params_lua.c - Lua values to parameter trees (see params_lua.h). */
#include "params_lua.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- limits -------------------------------------------------------------
 * A params file is a program: `while true do end` would hang lcm for ever,
 * and a table filled in a loop would take the machine's memory.  The state
 * counts the Lua instructions and the bytes it holds and fails with an
 * error beyond a limit far above what params files need.  The same limits
 * as gen/lua_host.c has for model files (kept in step with it: the two
 * libraries share no code). */
#define MAX_INSTRUCTIONS 1e9             /* $LCM_LUA_MAX_INSTRUCTIONS */
#define MAX_MEMORY (2048.0 * 1024 * 1024) /* bytes; $LCM_LUA_MAX_MEMORY */
#define HOOK_EVERY 1000000               /* instructions between two counts */
/* Deeper tables than any parameter array; also ends a table that holds itself. */
#define MAX_DEPTH 100

typedef struct lua_limits {
    size_t used, max_memory; /* max_memory is SIZE_MAX while not armed */
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

/* Limits hold while the file's code runs (arm_limits to disarm_limits). */
static void arm_limits(lua_State *L, lua_limits *lim)
{
    double max_memory = env_limit("LCM_LUA_MAX_MEMORY", MAX_MEMORY);
    lim->max_memory = max_memory < (double)SIZE_MAX ? (size_t)max_memory : SIZE_MAX;
    lim->max_instructions = env_limit("LCM_LUA_MAX_INSTRUCTIONS", MAX_INSTRUCTIONS);
    lim->every = lim->max_instructions < HOOK_EVERY ? (int)lim->max_instructions : HOOK_EVERY;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, lim->every);
}

/* Reading the values back must not fail half-way: that runs outside
 * lua_pcall, where a Lua error would abort the process. */
static void disarm_limits(lua_State *L, lua_limits *lim)
{
    lua_sethook(L, NULL, 0, 0);
    lim->max_memory = SIZE_MAX;
}

/* The error of a limit the code of `where` ran into ("x.params.lua",
 * "--set a.b"), what = "the params file" or "the value"; 0 if none. */
static int fail_limit(lcm_err *err, const char *where, const char *what, const lua_limits *lim)
{
    if (lim->instructions_hit)
        return lcm_fail(err, LCM_E_PARAMS,
                        "%s: %s did not finish after %.3g Lua instructions (an endless loop? "
                        "LCM_LUA_MAX_INSTRUCTIONS raises the limit)", where, what, lim->max_instructions);
    if (lim->memory_hit)
        return lcm_fail(err, LCM_E_PARAMS,
                        "%s: out of memory: %s needed more than %.0f MiB of Lua memory "
                        "(LCM_LUA_MAX_MEMORY raises the limit)", where, what, (double)lim->max_memory / (1024 * 1024));
    return 0;
}

static lua_State *new_state(lua_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->max_memory = SIZE_MAX;
    lua_State *L = lua_newstate(limited_alloc, lim);
    if (!L) return NULL;
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base}, {LUA_MATHLIBNAME, luaopen_math},
                                    {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
                                    {NULL, NULL}};
    for (const luaL_Reg *l = libs; l->func; ++l) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    return L;
}

/* ---- values ------------------------------------------------------------- */

static int cmp_keys(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Converts the value at the top of the stack; `where` names it in errors.
 * Reads are raw: no metamethod runs, so no Lua code and no error. */
static int convert(lua_State *L, const char *where, int depth, lcm_pvalue **out, lcm_err *err)
{
    int t = lua_type(L, -1);
    if (t == LUA_TNUMBER) {
        *out = lcm_pv_num(lua_tonumber(L, -1));
        return 0;
    }
    if (t != LUA_TTABLE)
        return lcm_fail(err, LCM_E_PARAMS, "%s must be a number or a table, not %s%s", where,
                        t == LUA_TNIL ? "" : "a ", t == LUA_TNIL ? "nil (no value)" : lua_typename(L, t));
    if (depth >= MAX_DEPTH || !lua_checkstack(L, 3))
        return lcm_fail(err, LCM_E_PARAMS, "%s nests tables more than %d deep (or holds itself)", where, MAX_DEPTH);
    lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
    int nstr = 0, nother = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING) nstr++;
        else if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > len) nother++;
        lua_pop(L, 1);
    }
    if (nother || (nstr && len))
        return lcm_fail(err, LCM_E_PARAMS, "%s mixes a list with named entries", where);
    int rc = 0;
    if (!nstr) {
        lcm_pvalue *list = lcm_pv_list();
        for (lua_Integer i = 1; i <= len && !rc; ++i) {
            lua_rawgeti(L, -1, i);
            char *w = xasprintf("%s[%lld]", where, (long long)i);
            lcm_pvalue *item = NULL;
            rc = convert(L, w, depth + 1, &item, err);
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
    char **keys = xcalloc((size_t)nstr, sizeof *keys);
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        keys[n++] = xstrdup(lua_tostring(L, -2));
        lua_pop(L, 1);
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_keys);
    lcm_pvalue *table = lcm_pv_table();
    for (int i = 0; i < n && !rc; ++i) {
        lua_pushstring(L, keys[i]);
        lua_rawget(L, -2);
        char *w = *where ? xasprintf("%s.%s", where, keys[i]) : xasprintf("'%s'", keys[i]);
        lcm_pvalue *item = NULL;
        rc = convert(L, w, depth + 1, &item, err);
        free(w);
        lua_pop(L, 1);
        if (!rc) lcm_pv_put(table, keys[i], item);
    }
    for (int i = 0; i < n; ++i) free(keys[i]);
    free(keys);
    if (rc) lcm_pv_free(table);
    else *out = table;
    return rc;
}

/* Lua shortens long file names in messages to "...tail:line: msg"; put
 * the full path back. */
static int fail_lua(lcm_err *err, const char *path, const char *msg)
{
    const char *colon = msg && !strncmp(msg, "...", 3) ? strchr(msg + 3, ':') : NULL;
    size_t tail = colon ? (size_t)(colon - msg - 3) : 0, plen = strlen(path);
    if (colon && tail <= plen && !strncmp(path + plen - tail, msg + 3, tail))
        return lcm_fail(err, LCM_E_PARAMS, "%s%s", path, colon);
    return lcm_fail(err, LCM_E_PARAMS, "%s", msg ? msg : "(error object is not a string)");
}

int lcm_params_read_lua(const char *path, lcm_pvalue **out, lcm_err *err)
{
    *out = NULL;
    if (!file_exists(path)) return lcm_fail(err, LCM_E_IO, "params file '%s' does not exist", path);
    lua_limits lim;
    lua_State *L = new_state(&lim);
    if (!L) return lcm_fail(err, LCM_E_INTERNAL, "cannot create a Lua state");
    int rc = 0;
    arm_limits(L, &lim);
    if (luaL_loadfilex(L, path, "t") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        rc = fail_limit(err, path, "the params file", &lim);
        if (!rc) rc = fail_lua(err, path, lua_tostring(L, -1));
    } else if (lua_type(L, -1) != LUA_TTABLE) {
        rc = lcm_fail(err, LCM_E_PARAMS, "%s: a params file must return a table, it returned %s", path,
                      luaL_typename(L, -1));
    } else {
        disarm_limits(L, &lim);
        rc = convert(L, "", 0, out, err);
        if (rc) lcm_fail_prefix(err, "%s", path);
        else if ((*out)->kind != LCM_PV_TABLE && (*out)->n > 0) {
            lcm_pv_free(*out);
            *out = NULL;
            rc = lcm_fail(err, LCM_E_PARAMS, "%s: a params file must return a table of names, not a list", path);
        } else if ((*out)->kind == LCM_PV_LIST) {
            lcm_pv_free(*out); /* an empty table */
            *out = lcm_pv_table();
        }
    }
    lua_close(L);
    return rc;
}

int lcm_params_apply_set(lcm_pvalue *root, const char *assignment, lcm_err *err)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return lcm_fail(err, LCM_E_USAGE, "--set expects name=value (e.g. --set working.wage=20), got '%s'", assignment);
    if (!eq[1]) return lcm_fail(err, LCM_E_PARAMS, "--set %.*s: no value after '='", (int)(eq - assignment), assignment);
    lua_limits lim;
    lua_State *L = new_state(&lim);
    if (!L) return lcm_fail(err, LCM_E_INTERNAL, "cannot create a Lua state");
    char *path = xstrndup(assignment, (size_t)(eq - assignment));
    char *where = xasprintf("--set %s", path);
    char *chunk = xasprintf("return %s", eq + 1);
    int rc = 0;
    arm_limits(L, &lim);
    if (luaL_loadbufferx(L, chunk, strlen(chunk), "=--set", "t") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        rc = fail_limit(err, where, "the value", &lim);
        if (!rc) rc = lcm_fail(err, LCM_E_PARAMS, "%s: '%s' is not a value (%s)", where, eq + 1, lua_tostring(L, -1));
    } else {
        disarm_limits(L, &lim);
        lcm_pvalue *v = NULL;
        rc = convert(L, where, 0, &v, err);
        if (!rc && (rc = lcm_pv_set_path(root, path, v, err))) lcm_fail_prefix(err, "--set");
    }
    lua_close(L);
    free(chunk), free(where), free(path);
    return rc;
}
