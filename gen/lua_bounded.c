/* lua_bounded.c - see lua_bounded.h. */
#include "lua_bounded.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <string.h>

#include "lua_limits.h"

#define ELEMENT_WORK 8 /* instructions per element a library call handles */

/* The library's own function (upvalue 1) on the arguments, once checked. */
static int call_library(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- pattern matching with a bound ----------------------------------------
 *
 * Lua's matcher backtracks: string.find(("a"):rep(40), ("a*"):rep(40) ..
 * "b") would run for ever in one call.  Its work at one start is at most
 * (n + 1)^q steps for a subject of n bytes and q quantifiers (*, +, -, ?,
 * %b); every start is tried but for a pattern anchored by ^ (gmatch and gsub
 * try every start, whatever the pattern).  A call whose bound exceeds
 * MAX_MATCH_STEPS is refused before it runs.  Without quantifiers (a plain
 * find among them) each start compares up to the pattern's length, so the
 * bound is (n + 1) (m + 1) for a pattern of m bytes.  Real patterns have one
 * or two quantifiers on short strings (lcm.read_table splits lines with
 * plain finds). */
#define MAX_MATCH_STEPS 1e10

/* Quantifiers of a pattern (*, +, -, ?, and %b, which scans to the end of
 * the subject at each start), outside other %-escapes and [sets]. */
static int quantifiers(const char *p, size_t len)
{
    int q = 0;
    for (size_t i = 0; i < len; ++i) {
        if (p[i] == '%') q += ++i < len && p[i] == 'b';
        else if (p[i] == '[') {
            if (i + 1 < len && p[i + 1] == '^') ++i;
            if (i + 1 < len && p[i + 1] == ']') ++i;
            while (++i < len && p[i] != ']')
                if (p[i] == '%') ++i;
        } else if (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?') ++q;
    }
    return q;
}

/* Raises (at the file's line: luaL_error's level 1 is the caller of this C
 * function) when matching pattern argument 2 on subject argument 1 could
 * take more than MAX_MATCH_STEPS; `every_start`: gmatch and gsub. */
static void check_match_cost(lua_State *L, const char *fn, int every_start)
{
    size_t n, plen;
    const char *subject = lua_tolstring(L, 1, &n), *pattern = lua_tolstring(L, 2, &plen);
    if (!subject || !pattern) return; /* the real function reports the wrong argument */
    int plain = !strcmp(fn, "find") && lua_toboolean(L, 4);
    int q = plain ? 0 : quantifiers(pattern, plen);
    int starts_all = every_start || !plen || pattern[0] != '^';
    double steps = q ? pow((double)n + 1, q) * (starts_all ? (double)n + 1 : 1) : ((double)n + 1) * ((double)plen + 1);
    if (!q && steps > MAX_MATCH_STEPS)
        luaL_error(L, "string.%s: a pattern of %I bytes on a string of %I bytes could take more than 1e10 steps: "
                   "split the string", fn, (lua_Integer)plen, (lua_Integer)n);
    if (steps > MAX_MATCH_STEPS)
        luaL_error(L, "string.%s: the pattern has %d quantifier%s (*, +, -, ?, %%b); on a string of %I bytes it could "
                   "backtrack for more than 1e10 steps: simplify the pattern or split the string",
                   fn, q, q == 1 ? "" : "s", (lua_Integer)n);
}

#define BOUNDED_MATCH(name, every_start)                                  \
    static int bounded_##name(lua_State *L)                               \
    {                                                                     \
        check_match_cost(L, #name, every_start);                          \
        return call_library(L);                                           \
    }
BOUNDED_MATCH(find, 0)
BOUNDED_MATCH(match, 0)
BOUNDED_MATCH(gmatch, 1)
BOUNDED_MATCH(gsub, 1)

/* ---- work charged to the instruction limit ------------------------------ */

/* Argument i as the library reads an optional integer (def when absent or
 * nil); NAN when it is not one (the library then reports it, and nothing is
 * charged). */
static double opt_integer(lua_State *L, int i, double def)
{
    if (lua_isnoneornil(L, i)) return def;
    int is;
    lua_Integer v = lua_tointegerx(L, i, &is);
    return is ? (double)v : NAN;
}

/* The length of the table at i as the table library reads it (__len
 * included), or 0 for an argument the library will refuse. */
static double length_of(lua_State *L, int i)
{
    if (lua_type(L, i) != LUA_TTABLE) {
        if (luaL_getmetafield(L, i, "__len") == LUA_TNIL) return 0;
        lua_pop(L, 1);
    }
    return (double)luaL_len(L, i);
}

/* The bytes of a string argument (not a number, which a library function
 * would convert: converting it here would change the argument). */
static double bytes_of(lua_State *L, int i)
{
    return lua_type(L, i) == LUA_TSTRING ? (double)lua_rawlen(L, i) : 0;
}

/* The bytes from i to j of a string of n bytes, as string.sub counts them
 * (negative positions from the end). */
static double byte_span(double n, double i, double j)
{
    if (i < 0) i = fmax(n + i + 1, 1);
    else if (i == 0) i = 1;
    if (j < 0) j = n + j + 1;
    else if (j > n) j = n;
    return i <= j ? j - i + 1 : 0;
}

static double elements(double lo, double hi) { return hi >= lo ? (hi - lo + 1) * ELEMENT_WORK : 0; }

static double work_insert(lua_State *L) /* the elements from pos up move one place */
{
    if (lua_gettop(L) != 3) return ELEMENT_WORK;
    double n = length_of(L, 1);
    return elements(opt_integer(L, 2, n + 1), n + 1);
}
static double work_remove(lua_State *L)
{
    double n = length_of(L, 1);
    return elements(opt_integer(L, 2, n), n + 1);
}
static double work_move(lua_State *L) { return elements(opt_integer(L, 2, NAN), opt_integer(L, 3, NAN)); }
static double work_sort(lua_State *L)
{
    double n = length_of(L, 1);
    return n > 1 ? n * log2(n) * ELEMENT_WORK : 0;
}
static double work_concat(lua_State *L)
{
    double first = opt_integer(L, 3, 1);
    return elements(first, lua_isnoneornil(L, 4) ? length_of(L, 1) : opt_integer(L, 4, NAN));
}
static double work_unpack(lua_State *L)
{
    double first = opt_integer(L, 2, 1);
    return elements(first, lua_isnoneornil(L, 3) ? length_of(L, 1) : opt_integer(L, 3, NAN));
}
static double work_arguments(lua_State *L) { return elements(1, lua_gettop(L)); }
static double work_rep(lua_State *L) { return elements(1, opt_integer(L, 2, NAN)); }
static double work_bytes(lua_State *L) { return bytes_of(L, 1); }
static double work_two_strings(lua_State *L) { return bytes_of(L, 1) + bytes_of(L, 2); }
static double work_byte(lua_State *L) /* string.byte(s, i, j): j defaults to i */
{
    double i = opt_integer(L, 2, 1);
    return byte_span(bytes_of(L, 1), i, opt_integer(L, 3, i));
}
static double work_utf8_len(lua_State *L) /* utf8.len(s, i, j): j defaults to -1 */
{
    return byte_span(bytes_of(L, 1), opt_integer(L, 2, 1), opt_integer(L, 3, -1));
}

typedef double (*work_fn)(lua_State *L);

/* library.name, and the work a call does */
static const struct charged {
    const char *function;
    work_fn work;
} charged[] = {
    {"table.insert", work_insert},     {"table.remove", work_remove},   {"table.move", work_move},
    {"table.sort", work_sort},         {"table.concat", work_concat},   {"table.unpack", work_unpack},
    {"table.pack", work_arguments},    {"string.rep", work_rep},        {"string.char", work_arguments},
    {"string.byte", work_byte},        {"string.upper", work_bytes},    {"string.lower", work_bytes},
    {"string.reverse", work_bytes},    {"string.format", work_bytes},   {"string.pack", work_bytes},
    {"string.packsize", work_bytes},   {"string.unpack", work_two_strings}, {"utf8.char", work_arguments},
    {"utf8.len", work_utf8_len},       {"utf8.codepoint", work_byte},   {"utf8.offset", work_bytes},
};

/* A charged function: upvalue 1 the library's, upvalue 2 its index in charged[]. */
static int charged_call(lua_State *L)
{
    const struct charged *c = &charged[lua_tointeger(L, lua_upvalueindex(2))];
    gen_lua_charge(L, c->work(L), c->function);
    return call_library(L);
}

/* ---- xpcall -------------------------------------------------------------- */

/* The file's message handler (upvalue 1), unless the error is a limit's. */
static int limited_handler(lua_State *L)
{
    if (gen_lua_limit_hit_in(L)) return 1; /* the error as it is */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* As the base library's xpcall (lbaselib.c), with the handler wrapped. */
static int finish_xpcall(lua_State *L, int status, lua_KContext extra)
{
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int limited_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, limited_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1); /* the first result */
    lua_pushvalue(L, 1);   /* the function */
    lua_rotate(L, 3, 2);   /* both below the function's arguments */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_xpcall);
    return finish_xpcall(L, status, 2);
}

/* ---- installing them ----------------------------------------------------- */

/* Replaces field `name` of the global table `library` (its first len
 * bytes) by f with the old function as upvalue 1 (and `index` as upvalue 2
 * when not negative). */
static void wrap(lua_State *L, const char *library, size_t len, const char *name, lua_CFunction f, int index)
{
    int top = lua_gettop(L);
    lua_pushglobaltable(L);
    lua_pushlstring(L, library, len);
    if (lua_rawget(L, -2) == LUA_TTABLE && lua_getfield(L, -1, name) == LUA_TFUNCTION) {
        if (index >= 0) lua_pushinteger(L, index);
        lua_pushcclosure(L, f, index >= 0 ? 2 : 1);
        lua_setfield(L, -2, name);
    }
    lua_settop(L, top);
}

void gen_lua_bound_library(lua_State *L)
{
    static const luaL_Reg matchers[] = {{"find", bounded_find}, {"match", bounded_match},
                                        {"gmatch", bounded_gmatch}, {"gsub", bounded_gsub}, {NULL, NULL}};
    int top = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "lcm.bounded_library") == LUA_TNIL) {
        for (const luaL_Reg *r = matchers; r->name; ++r)
            wrap(L, LUA_STRLIBNAME, strlen(LUA_STRLIBNAME), r->name, r->func, -1);
        for (size_t i = 0; i < sizeof charged / sizeof *charged; ++i) {
            const char *dot = strchr(charged[i].function, '.');
            wrap(L, charged[i].function, (size_t)(dot - charged[i].function), dot + 1, charged_call, (int)i);
        }
        lua_pushcfunction(L, limited_xpcall);
        lua_setglobal(L, "xpcall");
        lua_pushboolean(L, 1);
        lua_setfield(L, LUA_REGISTRYINDEX, "lcm.bounded_library");
    }
    lua_settop(L, top);
}
