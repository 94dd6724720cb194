/* lua_sandbox.c - see lua_sandbox.h.
 *
 * Every closure made here shares one upvalue, the box: a table private to
 * the host (no sandboxed code can reach it without the debug library) with
 *   env, files (list), seen (set of files), loaded (require's cache),
 *   dir (the folder as given, for messages and depfiles), folder (a
 *   descriptor of it, opened once, beneath which names are resolved:
 *   open_beneath.h), trusted (boolean),
 *   setmetatable, require (the host's own, for trusted files).
 */
#define _XOPEN_SOURCE 700 /* POSIX with XSI: openat, O_CLOEXEC */
#include "lua_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "lua_bounded.h"
#include "open_beneath.h"
#include "base.h"

/* No model needs a data or Lua file anywhere near this; a bound keeps a
 * crafted name (a huge sparse file) from being read whole. */
#define MAX_FILE_BYTES (256L * 1024 * 1024)

#define BOX lua_upvalueindex(1)

static int trusted_option;

void gen_sandbox_set_trusted(int trusted) { trusted_option = trusted; }

int gen_sandbox_trusted(void)
{
    return trusted_option || base_env_switch("LCM_TRUST_MODEL");
}

static const char *const pure_libraries[] = {LUA_MATHLIBNAME, LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_UTF8LIBNAME};
static const char *const safe_base[] = {"assert", "error",    "getmetatable", "ipairs", "next",   "pairs",
                                        "pcall",  "rawequal", "rawget",       "rawlen", "rawset", "select",
                                        "tonumber", "tostring", "type",       "xpcall", "_VERSION"};
/* Names whose absence a file should hear about rather than meet as nil. */
static const char *const withheld[] = {"io",      "os",          "debug",   "package", "dofile",  "loadfile",
                                       "require", "collectgarbage", "coroutine", "warn", "loadstring"};

/* Raises msg with the position of the sandboxed code that called us. */
static int raise_at_caller(lua_State *L, const char *msg)
{
    luaL_where(L, 1); /* level 0 is the C function running now */
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

/* ---- reading files beside the model ------------------------------------ */

enum { READ_OK, READ_MISSING, READ_REFUSED };

/* Reads the regular file (no device or pipe) open as fd, of a bounded
 * size, whole, and closes fd; `shown` names it in *msg on failure.  0 on
 * success. */
static int read_open_file(int fd, const char *shown, char **data, size_t *size, char **msg)
{
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st))
        *msg = base_xasprintf("cannot open '%s': %s", shown, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        *msg = base_xasprintf("'%s' is not a regular file", shown);
    else if (st.st_size > MAX_FILE_BYTES)
        *msg = base_xasprintf("'%s' is larger than %ld MiB", shown, MAX_FILE_BYTES >> 20);
    else {
        *size = (size_t)st.st_size;
        *data = base_xmalloc(*size + 1);
        size_t got = 0;
        ssize_t n = 1;
        while (got < *size && (n = read(fd, *data + got, *size - got)) > 0) got += (size_t)n;
        if (n < 0 || got != *size) {
            *msg = base_xasprintf("cannot read '%s': %s", shown, n < 0 ? strerror(errno) : "it changed while read");
            free(*data), *data = NULL;
        } else rc = 0;
    }
    close(fd);
    return rc;
}

/* Reads the file at path (relative to the folder open as dirfd, or
 * absolute), following symbolic links: the file the user named, or a
 * trusted file's. */
static int read_regular(int dirfd, const char *path, const char *shown, char **data, size_t *size, char **msg)
{
    int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *msg = base_xasprintf("cannot open '%s': %s", shown, strerror(errno));
        return -1;
    }
    return read_open_file(fd, shown, data, size, msg);
}

/* Whether a relative name climbs above its folder by its ".." alone
 * (checked before the file system is asked anything about it). */
static int climbs_out(const char *name)
{
    int depth = 0;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0) return 1;
        } else if (n && !(n == 1 && p[0] == '.')) depth++;
        p += n + (p[n] == '/');
    }
    return 0;
}

static char *outside(const char *name, const char *dir)
{
    return base_xasprintf("'%s' is outside the folder '%s' (a model, params or initial-conditions file reads files in "
                         "its own folder and below)", name, dir);
}

/* Reads `name` (relative to the box's folder) into a new string; *path gets
 * dir/name as given.  On failure *msg says why (caller frees).  The name is
 * resolved beneath the descriptor of the folder (open_beneath.h), so a
 * folder on the way swapped for a link cannot lead out of it. */
static int read_beside(lua_State *L, const char *name, size_t len, char **data, size_t *size, char **path,
                       char **msg)
{
    lua_getfield(L, BOX, "folder");
    lua_getfield(L, BOX, "dir");
    lua_getfield(L, BOX, "trusted");
    const int *folder = lua_touserdata(L, -3);
    const char *dir = lua_tostring(L, -2);
    int trusted = lua_toboolean(L, -1);
    lua_pop(L, 3); /* the box holds them */
    *data = *path = *msg = NULL;
    if (!folder) return *msg = base_xstrdup("this file may read no other file"), READ_REFUSED;
    if (!len || strlen(name) != len) return *msg = base_xstrdup("not a file name"), READ_REFUSED;
    if (name[0] == '/' && !trusted)
        return *msg = base_xasprintf("'%s' is an absolute path: name files relative to the folder '%s'", name, dir),
               READ_REFUSED;
    if (!trusted && climbs_out(name)) return *msg = outside(name, dir), READ_REFUSED;
    *path = name[0] == '/' || !strcmp(dir, ".") ? base_xstrdup(name) : base_xasprintf("%s/%s", dir, name);
    if (trusted) return read_regular(*folder, name, *path, data, size, msg) ? READ_REFUSED : READ_OK;
    int fd, rc = gen_open_beneath(*folder, name, &fd);
    if (rc == BENEATH_OK) return read_open_file(fd, *path, data, size, msg) ? READ_REFUSED : READ_OK;
    if (rc == BENEATH_OUTSIDE) *msg = outside(name, dir);
    else if (rc == BENEATH_FOLDER) *msg = base_xasprintf("'%s' is the folder '%s' itself, not a file", name, dir);
    else *msg = base_xasprintf("cannot open '%s': %s", *path, strerror(errno));
    return rc == BENEATH_MISSING ? READ_MISSING : READ_REFUSED;
}

/* Records a file read through the box (each once, in order). */
static void note_file(lua_State *L, const char *path)
{
    lua_getfield(L, BOX, "seen");
    if (lua_getfield(L, -1, path) == LUA_TNIL) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -3, path);
        lua_getfield(L, BOX, "files");
        lua_pushstring(L, path);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

/* Reads the file named by argument 1 and pushes its text then its path;
 * on failure pushes nothing and returns the READ_ status with *msg set. */
static int push_file(lua_State *L, const char *what, char **msg)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char *data, *path, *why;
    size_t size = 0;
    int rc = read_beside(L, name, len, &data, &size, &path, &why);
    if (rc != READ_OK) {
        *msg = base_xasprintf("%s: %s", what, why);
        free(why), free(path);
        return rc;
    }
    lua_pushlstring(L, data, size);
    lua_pushstring(L, path);
    free(data), free(path);
    note_file(L, lua_tostring(L, -1));
    *msg = NULL;
    return READ_OK;
}

/* Loads the text at -2 with the chunk name "@" .. path at -1 into the
 * box's environment; replaces both with the function, or raises. */
static void load_pushed(lua_State *L)
{
    const char *path = lua_tostring(L, -1);
    size_t len;
    const char *text = lua_tolstring(L, -2, &len);
    lua_getfield(L, BOX, "env");
    lua_pushfstring(L, "@%s", path);
    if (gen_sandbox_load(L, text, len, lua_tostring(L, -1), lua_absindex(L, -2)) != LUA_OK) lua_error(L);
    lua_replace(L, -5);
    lua_pop(L, 3);
}

static int fail_read(lua_State *L, char *msg)
{
    lua_pushstring(L, msg);
    free(msg);
    return raise_at_caller(L, lua_tostring(L, -1));
}

/* Raises without a position: lcm.read_file (gen/dsl/lcm.lua) calls this
 * and adds the model's own line. */
static int sb_read_file(lua_State *L)
{
    char *msg;
    if (push_file(L, "lcm.read_file", &msg) != READ_OK) {
        lua_pushstring(L, msg);
        free(msg);
        return lua_error(L);
    }
    lua_pop(L, 1);
    return 1;
}

static int sb_dofile(lua_State *L)
{
    char *msg;
    if (push_file(L, "dofile", &msg) != READ_OK) return fail_read(L, msg);
    load_pushed(L);
    int base = lua_gettop(L) - 1;
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - base;
}

/* loadfile(name [, mode [, env]]): like Lua's, text only, failures as
 * nil plus message. */
static int sb_loadfile(lua_State *L)
{
    const char *mode = luaL_optstring(L, 2, "t");
    int has_env = !lua_isnone(L, 3);
    char *msg;
    if (!strchr(mode, 't')) {
        luaL_pushfail(L);
        lua_pushstring(L, "loadfile: only text chunks can be loaded (binary chunks are refused)");
        return 2;
    }
    if (push_file(L, "loadfile", &msg) != READ_OK) {
        luaL_pushfail(L);
        lua_pushstring(L, msg);
        free(msg);
        return 2;
    }
    load_pushed(L);
    if (has_env) {
        lua_pushvalue(L, 3);
        lua_setupvalue(L, -2, 1);
    }
    return 1;
}

/* load(chunk [, chunkname [, mode [, env]]]): text only, and a chunk name
 * that never claims to be a file ("@..."), which the DSL would read. */
static int sb_load(lua_State *L)
{
    size_t len;
    const char *text = lua_tolstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "load");
    const char *mode = luaL_optstring(L, 3, "t");
    if (!text) return luaL_argerror(L, 1, "load takes the chunk as a string here");
    if (!strchr(mode, 't')) {
        luaL_pushfail(L);
        lua_pushstring(L, "load: only text chunks can be loaded (binary chunks are refused)");
        return 2;
    }
    while (*name == '@' || *name == '=') name++;
    lua_pushfstring(L, "=%s", name);
    int env = lua_isnone(L, 4) ? 0 : 4;
    if (!env) lua_getfield(L, BOX, "env");
    if (gen_sandbox_load(L, text, len, lua_tostring(L, env ? -1 : -2), env ? 4 : lua_gettop(L)) != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}

static int valid_module_name(const char *s)
{
    int segment = 0;
    for (; *s; ++s) {
        if (*s == '.') {
            if (!segment) return 0;
            segment = 0;
        } else if (*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
            segment++;
        else return 0;
    }
    return segment > 0;
}

/* require(name): the DSL ("lcm"), else NAME.lua (dots are folders) beside
 * the file; for a trusted file, else Lua's own require. */
static int sb_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_pushvalue(L, 1); /* index 2 keeps the name alive once 1 holds the file name */
    if (!strcmp(name, "lcm")) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        if (lua_getfield(L, -1, "lcm") != LUA_TNIL) return 1;
        lua_pop(L, 2);
    }
    lua_getfield(L, BOX, "loaded");
    int loaded = lua_gettop(L);
    int state = lua_getfield(L, loaded, name);
    if (state == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        return raise_at_caller(L, lua_pushfstring(L, "require '%s': modules require each other in a cycle", name));
    if (state != LUA_TNIL) return 1;
    lua_pop(L, 1);
    if (!valid_module_name(name))
        return raise_at_caller(L, lua_pushfstring(L, "require '%s': a module name is made of letters, digits and "
                                                  "_, with dots between folders", name));
    char *file = base_xasprintf("%s.lua", name);
    for (char *p = file; *p && p < file + strlen(name); ++p)
        if (*p == '.') *p = '/';
    lua_pushstring(L, file);
    lua_replace(L, 1);
    free(file);
    char *msg;
    int rc = push_file(L, "require", &msg);
    if (rc == READ_MISSING) {
        lua_getfield(L, BOX, "trusted");
        int trusted = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (trusted) {
            free(msg);
            lua_getfield(L, BOX, "require");
            lua_pushstring(L, name);
            lua_call(L, 1, 1);
            return 1;
        }
        lua_getfield(L, BOX, "base"); /* the file the box runs: the model, or initial conditions */
        char *m = base_xasprintf("require '%s': no file %s beside %s (modules are Lua files in its folder)", name,
                                lua_tostring(L, 1), lua_isstring(L, -1) ? lua_tostring(L, -1) : "the file");
        lua_pop(L, 1);
        free(msg);
        return fail_read(L, m);
    }
    if (rc != READ_OK) return fail_read(L, msg);
    lua_pushboolean(L, 0); /* loading: a cycle comes back here */
    lua_setfield(L, loaded, name);
    load_pushed(L);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, loaded, name);
    return 1;
}

/* box.load_file(path): the host loads the model file itself (any path the
 * user named, but a regular file, text only) into the environment;
 * returns the function, or nil and a message. */
static int sb_load_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char *data = NULL, *msg = NULL;
    size_t size = 0;
    if (read_regular(AT_FDCWD, path, path, &data, &size, &msg)) {
        luaL_pushfail(L);
        lua_pushstring(L, msg);
        free(msg);
        return 2;
    }
    lua_getfield(L, BOX, "env");
    lua_pushfstring(L, "@%s", path);
    int rc = gen_sandbox_load(L, data, size, lua_tostring(L, -1), -2);
    free(data);
    if (rc != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}

/* ---- the rest of the environment ---------------------------------------- */

static int sb_print(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; ++i) {
        size_t len;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1) fputc('\t', stderr);
        fwrite(s, 1, len, stderr);
        lua_pop(L, 1);
    }
    fputc('\n', stderr);
    return 0;
}

static int has_finalizer(lua_State *L, int mt)
{
    lua_pushliteral(L, "__gc");
    int type = lua_rawget(L, mt);
    lua_pop(L, 1);
    return type != LUA_TNIL;
}

static int sb_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE && has_finalizer(L, 2))
        return raise_at_caller(L, "setmetatable: finalizers (__gc) are not allowed in a model or params file");
    lua_getfield(L, BOX, "setmetatable");
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_withheld(lua_State *L)
{
    const char *name = lua_tostring(L, 2);
    for (size_t i = 0; name && i < sizeof withheld / sizeof *withheld; ++i)
        if (!strcmp(name, withheld[i]))
            return raise_at_caller(L, lua_pushfstring(L, "'%s' is not available: model and params files run in a "
                                                      "sandbox (docs/model-language.md, \"What a model file may "
                                                      "do\"); --trust-model or LCM_TRUST_MODEL=1 gives trusted "
                                                      "files the full library", name));
    return 0;
}

static int refuse_exit(lua_State *L)
{
    return raise_at_caller(L, "os.exit: a model or params file cannot end the program (raise an error instead)");
}

static int refuse_sethook(lua_State *L)
{
    return raise_at_caller(L, "debug.sethook: a model or params file cannot change the hooks that limit its "
                              "running time");
}

/* ---- building the box ----------------------------------------------------- */

/* A shallow copy of the global table `lib` into the table at -1. */
static void copy_library(lua_State *L, const char *lib)
{
    lua_newtable(L);
    if (lua_getglobal(L, lib) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -5);
        }
    }
    lua_pop(L, 1);
    lua_setfield(L, -2, lib);
}

static void set_closure(lua_State *L, int env, int box, const char *name, lua_CFunction f)
{
    lua_pushvalue(L, box);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, env, name);
}

/* The trusted environment: the full library through __index, with os and
 * debug copies that cannot exit or unhook. */
static void fill_trusted(lua_State *L, int env)
{
    copy_library(L, LUA_OSLIBNAME);
    lua_getfield(L, -1, LUA_OSLIBNAME);
    lua_pushcfunction(L, refuse_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
    copy_library(L, LUA_DBLIBNAME);
    lua_getfield(L, -1, LUA_DBLIBNAME);
    lua_pushcfunction(L, refuse_sethook);
    lua_setfield(L, -2, "sethook");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushglobaltable(L);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, env);
}

static void fill_sandbox(lua_State *L, int env, int box)
{
    for (size_t i = 0; i < sizeof pure_libraries / sizeof *pure_libraries; ++i) copy_library(L, pure_libraries[i]);
    lua_getfield(L, env, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump"); /* bytecode has no use without binary loading */
    lua_pop(L, 1);
    for (size_t i = 0; i < sizeof safe_base / sizeof *safe_base; ++i) {
        lua_getglobal(L, safe_base[i]);
        lua_setfield(L, env, safe_base[i]);
    }
    set_closure(L, env, box, "setmetatable", sb_setmetatable);
    lua_newtable(L);
    lua_pushcfunction(L, sb_withheld);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, env);
    /* the string metatable is shared with the DSL: the file may use it
     * (("x"):rep(3)) but not get hold of it to change it */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
}

/* Lua 5.4 seeds math.random from the time and an address: a file that
 * draws numbers would give another model on every run.  Same input, same
 * output: the seed is fixed (a file may still call math.randomseed). */
static void fix_random_seed(lua_State *L)
{
    int top = lua_gettop(L);
    if (lua_getglobal(L, LUA_MATHLIBNAME) == LUA_TTABLE && lua_getfield(L, -1, "randomseed") == LUA_TFUNCTION) {
        lua_pushinteger(L, 0);
        lua_call(L, 1, 0);
    }
    lua_settop(L, top);
}

void gen_sandbox_files(lua_State *L, int box, char ***paths, int *n)
{
    box = lua_absindex(L, box);
    if (lua_getfield(L, box, "files") == LUA_TTABLE) {
        lua_Unsigned len = lua_rawlen(L, -1);
        *paths = base_xrealloc(*paths, ((size_t)*n + (size_t)len + 1) * sizeof **paths);
        for (lua_Unsigned i = 1; i <= len; ++i) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING) (*paths)[(*n)++] = base_xstrdup(lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static int close_folder(lua_State *L)
{
    int *fd = lua_touserdata(L, 1);
    if (*fd >= 0) close(*fd), *fd = -1;
    return 0;
}

/* Pushes a userdata holding a descriptor of the folder dir (closed when
 * the state is), or nil when it cannot be opened. */
static void push_folder(lua_State *L, const char *dir)
{
    int fd = gen_open_folder(dir);
    if (fd < 0) {
        lua_pushnil(L);
        return;
    }
    int *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    *ud = fd;
    if (luaL_newmetatable(L, "lcm.sandbox_folder")) {
        lua_pushcfunction(L, close_folder);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
}

void gen_sandbox_push(lua_State *L, const char *file, int trusted)
{
    gen_lua_bound_library(L);
    fix_random_seed(L);
    lua_newtable(L);
    int box = lua_gettop(L);
    lua_newtable(L);
    int env = lua_gettop(L);
    lua_pushvalue(L, env);
    lua_setfield(L, box, "env");
    lua_newtable(L);
    lua_setfield(L, box, "files");
    lua_newtable(L);
    lua_setfield(L, box, "seen");
    lua_newtable(L);
    lua_setfield(L, box, "loaded");
    lua_pushboolean(L, trusted);
    lua_setfield(L, box, "trusted");
    lua_getglobal(L, "setmetatable");
    lua_setfield(L, box, "setmetatable");
    lua_getglobal(L, "require");
    lua_setfield(L, box, "require");
    lua_pushvalue(L, box);
    lua_pushcclosure(L, sb_load_file, 1);
    lua_setfield(L, box, "load_file");
    if (trusted) fill_trusted(L, env);
    else fill_sandbox(L, env, box);
    set_closure(L, env, box, "print", sb_print);
    set_closure(L, env, box, "load", sb_load);
    lua_pushvalue(L, env);
    lua_setfield(L, env, "_G");
    if (file) {
        char *folder = base_path_dirname(file);
        lua_pushstring(L, folder); /* Lua's copy from here on: no C string to free on an error */
        free(folder);
        push_folder(L, lua_tostring(L, -1));
        lua_setfield(L, box, "folder"); /* nil when the folder cannot be opened: nothing can be read */
        lua_setfield(L, box, "dir");
        lua_pushstring(L, file);
        lua_setfield(L, box, "base");
        set_closure(L, env, box, "require", sb_require);
        set_closure(L, env, box, "dofile", sb_dofile);
        set_closure(L, env, box, "loadfile", sb_loadfile);
        lua_pushvalue(L, box);
        lua_pushcclosure(L, sb_read_file, 1);
        lua_setfield(L, box, "read_file");
    }
    lua_settop(L, box);
}

int gen_sandbox_load(lua_State *L, const char *text, size_t len, const char *chunkname, int env_index)
{
    env_index = lua_absindex(L, env_index);
    if (*chunkname == '@') { /* a file, read as lua and luaL_loadfile read one: */
        if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) text += 3, len -= 3; /* a UTF-8 byte order mark, */
        if (len && text[0] == '#') /* and a first line such as #!/usr/bin/env lua, its line break kept */
            while (len && *text != '\n') ++text, --len;
    }
    if (len && text[0] == LUA_SIGNATURE[0]) {
        lua_pushfstring(L, "%s: a precompiled (binary) chunk: only Lua source text is loaded",
                        chunkname + (*chunkname == '@' || *chunkname == '='));
        return LUA_ERRSYNTAX;
    }
    int rc = luaL_loadbufferx(L, text, len, chunkname, "t");
    if (rc == LUA_OK) {
        lua_pushvalue(L, env_index);
        lua_setupvalue(L, -2, 1); /* a main chunk's first upvalue is its _ENV */
    }
    return rc;
}

int gen_sandbox_fail(lcm_err *err, int code, const char *path, const char *msg)
{
    if (!msg) return base_fail(err, code, "%s: raised an error whose value is not a string (error(...) of a table?)", path);
    const char *colon = !strncmp(msg, "...", 3) ? strchr(msg + 3, ':') : NULL;
    size_t tail = colon ? (size_t)(colon - msg - 3) : 0, plen = strlen(path);
    if (colon && tail <= plen && !strncmp(path + plen - tail, msg + 3, tail))
        return base_fail(err, code, "%s%s", path, colon);
    if (!strncmp(msg, path, plen) && msg[plen] == ':') return base_fail(err, code, "%s", msg);
    return base_fail(err, code, "%s: %s", path, msg); /* error(msg, 0), or raised in a file it loaded */
}
