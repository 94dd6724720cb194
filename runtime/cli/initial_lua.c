/* initial_lua.c - see initial_lua.h. */
#include "initial_lua.h"

#include "files.h"
#include "lua_host.h"
#include "lua_limits.h"
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define COLUMNS "a table of columns { regime = {...}, age = {...}, <state> = {...} }"
static const char shape[] = COLUMNS " or a function(n) that returns one for n subjects";

/* Runs the file, and the function it returns if it returns one, leaving
 * the columns' table on the stack.  Lua errors and the limits of
 * lua_limits.h are the file's problems. */
static int run_file(lua_State *L, lcm_lua_limits *lim, const char *path, long long subjects, long long *asked,
                    lcm_err *err)
{
    size_t len = 0;
    char *text = sys_read_file(path, &len, err);
    if (!text) return err->code;
    char *chunkname = base_xasprintf("@%s", path);
    lua_getfield(L, 1, "env");
    gen_lua_limits_arm(L, lim);
    int rc = gen_sandbox_load(L, text, len, chunkname, -1);
    free(text), free(chunkname);
    lua_remove(L, -2);
    if (rc == LUA_OK) rc = lua_pcall(L, 0, 1, 0);
    int function = rc == LUA_OK && lua_type(L, -1) == LUA_TFUNCTION;
    *asked = 0;
    if (function) {
        *asked = subjects ? subjects : LCM_INITIAL_LUA_DEFAULT_SUBJECTS;
        lua_pushinteger(L, *asked);
        rc = lua_pcall(L, 1, 1, 0);
    }
    gen_lua_limits_disarm(L, lim);
    if (rc != LUA_OK || gen_lua_limits_hit(lim)) {
        int hit = gen_lua_limits_fail(err, LCM_E_INPUT, path, "the initial conditions file", lim);
        return hit ? hit : gen_sandbox_fail(err, LCM_E_INPUT, path, lua_tostring(L, -1));
    }
    if (lua_type(L, -1) != LUA_TTABLE)
        return base_fail(err, LCM_E_INPUT, "%s: %s, not %s", path, function ? "the function it returns must return "
                        COLUMNS : "an initial conditions file returns " COLUMNS " or a function(n) that returns one for "
                        "n subjects", luaL_typename(L, -1));
    if (subjects && !function)
        return base_fail(err, LCM_E_USAGE, "--subjects %lld: %s returns its subjects, not a function(n) of their "
                        "number; leave out --subjects", subjects, path);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(((const lcm_initial_column *)a)->name, ((const lcm_initial_column *)b)->name);
}

/* One list of the table (on the top of the stack) as a column: reads are
 * raw, so no metamethod runs. */
static int read_list(lua_State *L, const char *path, lcm_initial_column *col, lcm_err *err)
{
    if (lua_type(L, -1) != LUA_TTABLE)
        return base_fail(err, LCM_E_INPUT, "%s: column '%s' must be a list of one value per subject, not %s", path,
                        col->name, luaL_typename(L, -1));
    size_t len = (size_t)lua_rawlen(L, -1), entries = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) ++entries, lua_pop(L, 1);
    if (entries != len)
        return base_fail(err, LCM_E_INPUT, "%s: column '%s' is not a list (it has holes or named entries): one value "
                        "per subject, in order", path, col->name);
    col->len = len;
    col->num = base_xcalloc(len + 1, sizeof *col->num);
    col->text = base_xcalloc(len + 1, sizeof *col->text);
    for (size_t i = 0; i < len; ++i) {
        int t = lua_rawgeti(L, -1, (lua_Integer)i + 1);
        size_t n = 0;
        const char *s = t == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
        if (t == LUA_TNUMBER) col->num[i] = lua_tonumber(L, -1);
        else if (s && strlen(s) == n) col->text[i] = base_xstrdup(s);
        lua_pop(L, 1);
        if (s && !col->text[i])
            return base_fail(err, LCM_E_INPUT, "%s: column '%s': subject %zu: a label holds a NUL byte", path,
                            col->name, i);
        if (t != LUA_TNUMBER && t != LUA_TSTRING)
            return base_fail(err, LCM_E_INPUT, "%s: column '%s': subject %zu: a %s is not a value (a number, a label "
                            "or a regime name)", path, col->name, i, lua_typename(L, t));
    }
    return 0;
}

/* The table on the top of the stack as columns, in name order. */
static int read_columns(lua_State *L, const char *path, lcm_initial_column **cols, int *n, lcm_err *err)
{
    size_t cap = 0;
    int rc = 0;
    lua_pushnil(L);
    while (!rc && lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            rc = base_fail(err, LCM_E_INPUT, "%s: the table has an entry with a %s key; it must be %s", path,
                          luaL_typename(L, -2), shape);
            lua_pop(L, 2);
            break;
        }
        size_t len;
        const char *name = lua_tolstring(L, -2, &len);
        if (strlen(name) != len) {
            rc = base_fail(err, LCM_E_INPUT, "%s: a column name holds a NUL byte", path);
            lua_pop(L, 2);
            break;
        }
        LCM_GROW(*cols, cap, (size_t)*n + 1);
        lcm_initial_column *col = &(*cols)[(*n)++];
        memset(col, 0, sizeof *col);
        col->name = base_xstrdup(name);
        rc = read_list(L, path, col, err);
        lua_pop(L, rc ? 2 : 1);
    }
    if (!rc && *n > 1) qsort(*cols, (size_t)*n, sizeof **cols, cmp_names);
    return rc;
}

int cli_initial_read_lua(const ir_model *m, const char *path, long long subjects, lcm_initial **out, char ***read,
                         int *nread, lcm_err *err)
{
    *out = NULL;
    lcm_lua_limits lim;
    lua_State *L = gen_lua_limited_state(&lim, err);
    if (!L) return err->code;
    luaL_openlibs(L);
    long long asked = 0; /* n, when the file returned a function(n) */
    int rc = gen_lua_push_data_box(L, path, m->options, m->noptions, err);
    if (!rc) rc = run_file(L, &lim, path, subjects, &asked, err);
    lcm_initial_column *cols = NULL;
    int n = 0;
    if (!rc) rc = read_columns(L, path, &cols, &n, err);
    if (read && lua_type(L, 1) == LUA_TTABLE) gen_sandbox_files(L, 1, read, nread); /* the box, once made */
    lua_close(L);
    if (!rc) rc = sim_initial_from_columns(m, path, "column", cols, n, shape, out, err);
    sim_initial_columns_free(cols, n);
    if (!rc && asked && (*out)->n != asked) { /* the subjects asked for, or an estimation's moments are off */
        rc = base_fail(err, LCM_E_INPUT, "%s: the function it returns was asked for n = %lld subjects and returned %lld",
                      path, asked, (long long)(*out)->n);
        lcm_initial_free(*out);
        *out = NULL;
    }
    return rc;
}
