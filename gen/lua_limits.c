/* lua_limits.c - see lua_limits.h. */
#define _GNU_SOURCE /* clock_gettime, CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_COARSE */
#include "lua_limits.h"

#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_INSTRUCTIONS 1e9              /* $LCM_LUA_MAX_INSTRUCTIONS */
#define MAX_MEMORY (2048.0 * 1024 * 1024) /* bytes; $LCM_LUA_MAX_MEMORY */
#define HOOK_EVERY 1000                   /* instructions between two counts */
#define BYTES_PER_INSTRUCTION 16          /* allocations count as instructions too */
/* The CPU time the instruction limit allows: Lua runs 1e8 to 1e9
 * instructions a second, so a file that runs out of time before it runs out
 * of instructions spends its time where no instruction is counted. */
#define SECONDS_PER_INSTRUCTION 1e-7
#define MIN_SECONDS 1 /* a low instruction limit (a test's, a fuzzer's) still leaves time to set a model up */

/* The limits of the environment, an empty variable unset; a value that is
 * not one is a usage error, not the default silently (a typo in a limit
 * raised for a large model would bring back the low one). */
static int read_limits(lcm_lua_limits *lim, lcm_err *err)
{
    double memory = MAX_MEMORY;
    const char *s = getenv("LCM_LUA_MAX_MEMORY");
    if (s && *s && (base_parse_size(s, &memory) || memory < 1048576)) /* below, not even a state fits */
        return base_fail(err, LCM_E_USAGE, "LCM_LUA_MAX_MEMORY must be a size of at least 1M like 64M or 2G, not "
                        "'%s'", s);
    lim->armed_memory = memory < (double)SIZE_MAX ? (size_t)memory : SIZE_MAX;
    lim->max_instructions = MAX_INSTRUCTIONS;
    s = getenv("LCM_LUA_MAX_INSTRUCTIONS");
    if (s && *s) {
        char *end;
        double v = base_strtod_decimal(s, &end);
        if (end == s || *end || !(v >= 1) || !isfinite(v))
            return base_fail(err, LCM_E_USAGE, "LCM_LUA_MAX_INSTRUCTIONS must be a number of at least 1 like 1e9, "
                            "not '%s'", s);
        lim->max_instructions = v;
    }
    return 0;
}

/* A refusal, of the system (ulimit -v, a cgroup, the machine) or at the
 * limit: counted, unless Lua's retry of the same request after it collected
 * garbage (lmem.c's tryagain: the very next request) gets it, so that a
 * refusal Lua made up for neither hides the file's own error nor fails a
 * file that only touched the limit. */
static void *refused(lcm_lua_limits *lim, const void *ptr, size_t nsize, int at_limit)
{
    if (at_limit) ++lim->memory_hits;
    else ++lim->system_refusals, lim->used_when_refused = lim->used;
    lim->retry_pending = 1, lim->retry_at_limit = at_limit;
    lim->retry_ptr = (uintptr_t)ptr, lim->retry_nsize = nsize;
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
    if (nsize > old && (lim->used > lim->max_memory || nsize - old > lim->max_memory - lim->used))
        return refused(lim, ptr, nsize, 1);
    void *p = realloc(ptr, nsize);
    if (!p) return refused(lim, ptr, nsize, 0);
    if (retry) {
        if (lim->retry_at_limit) --lim->memory_hits;
        else --lim->system_refusals;
    }
    if (nsize > old) lim->instructions += (double)(nsize - old) / BYTES_PER_INSTRUCTION;
    lim->used = lim->used - old + nsize;
    return p;
}

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef CLOCK_MONOTONIC_COARSE
#define CHEAP_CLOCK CLOCK_MONOTONIC_COARSE /* a few ns: read at every count of the hook */
#else
#define CHEAP_CLOCK CLOCK_MONOTONIC
#endif

/* Whether the thread's CPU time since arming passed the limit.  Reading it
 * is a system call, so it is read only once the monotonic clock says it
 * could be over (one thread's CPU time grows no faster than the clock). */
static int out_of_time(lcm_lua_limits *lim)
{
    double now = clock_seconds(CHEAP_CLOCK);
    if (now < lim->next_time_check) return 0;
    double cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - lim->cpu_start;
    if (cpu >= lim->max_seconds) return 1;
    lim->next_time_check = now + (lim->max_seconds - cpu);
    return 0;
}

static lcm_lua_limits *limits_of(lua_State *L);

static int limit_hit(const lcm_lua_limits *lim)
{
    return lim->instructions_hit || lim->time_hit || lim->memory_hits > 0;
}

static void count_hook(lua_State *L, lua_Debug *ar);

/* Raises the error of a limit that was hit; from now on every instruction
 * fails, so a pcall in the file cannot swallow the error and loop on. */
static int raise_limit(lua_State *L, const lcm_lua_limits *lim)
{
    lua_sethook(L, count_hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
    return luaL_error(L, lim->memory_hits > 0 ? "not enough memory" : lim->time_hit ? "out of CPU time"
                                                                                  : "too many instructions");
}

/* Runs every `every` instructions, and at every call: a loop of calls to
 * a library function that works long in C (a pattern match within its
 * bound, tonumber of a long string, next over a sparse table) runs few
 * instructions, so the CPU time is checked at each call too (the cheap clock
 * first: a few ns). */
static void count_hook(lua_State *L, lua_Debug *ar)
{
    lcm_lua_limits *lim = limits_of(L);
    if (ar->event == LUA_HOOKCOUNT) {
        lim->instructions += lim->every;
        if (lim->instructions >= lim->max_instructions) lim->instructions_hit = 1;
    }
    if (!limit_hit(lim) && out_of_time(lim)) lim->time_hit = 1;
    if (limit_hit(lim)) raise_limit(L, lim);
}

static lcm_lua_limits *limits_of(lua_State *L)
{
    void *ud;
    return lua_getallocf(L, &ud) == limited_alloc ? ud : NULL;
}

void gen_lua_charge(lua_State *L, double work, const char *what)
{
    lcm_lua_limits *lim = limits_of(L);
    if (!lim || !lim->armed || !(work > 0)) return;
    lim->instructions += work;
    if (lim->instructions < lim->max_instructions) return;
    if (!lim->instructions_hit) { /* the call that passed the limit, for the message */
        lim->instructions_hit = 1;
        lim->charged = what, lim->charged_work = work;
        lua_Debug ar; /* the file's line (level 0 is the library function), its name in full */
        if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0)
            snprintf(lim->charged_where, sizeof lim->charged_where, "%s:%d",
                     ar.source[0] == '@' ? ar.source + 1 : ar.short_src, ar.currentline);
    }
    raise_limit(L, lim);
}

int gen_lua_limit_hit_in(lua_State *L)
{
    lcm_lua_limits *lim = limits_of(L);
    return lim && lim->armed && limit_hit(lim);
}

int gen_lua_limits_hit(const lcm_lua_limits *lim) { return limit_hit(lim) || lim->system_refusals > 0; }

lua_State *gen_lua_limited_state(lcm_lua_limits *lim, lcm_err *err)
{
    memset(lim, 0, sizeof *lim);
    lim->max_memory = SIZE_MAX;
    if (read_limits(lim, err)) return NULL;
    lua_State *L = lua_newstate(limited_alloc, lim);
    if (!L) base_fail(err, LCM_E_MEMORY, "cannot create a Lua state: out of memory");
    return L;
}

void gen_lua_limits_arm(lua_State *L, lcm_lua_limits *lim)
{
    lim->max_memory = lim->armed_memory;
    lim->instructions = 0; /* what setting the state up allocated does not count */
    lim->every = lim->max_instructions < HOOK_EVERY ? (int)lim->max_instructions : HOOK_EVERY;
    lim->max_seconds = fmax(lim->max_instructions * SECONDS_PER_INSTRUCTION, MIN_SECONDS);
    lim->cpu_start = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    lim->next_time_check = clock_seconds(CHEAP_CLOCK) + lim->max_seconds;
    lim->armed = 1;
    lua_sethook(L, count_hook, LUA_MASKCOUNT | LUA_MASKCALL, lim->every);
}

void gen_lua_limits_disarm(lua_State *L, lcm_lua_limits *lim)
{
    lua_sethook(L, NULL, 0, 0);
    lim->max_memory = SIZE_MAX;
    lim->armed = 0;
}

int gen_lua_limits_fail(lcm_err *err, int code, const char *where, const char *what, const lcm_lua_limits *lim)
{
    if (lim->instructions_hit && lim->charged)
        return base_fail(err, code, "%s: %s did not finish loading after %.3g Lua instructions (an endless loop? "
                        "LCM_LUA_MAX_INSTRUCTIONS raises the limit); library calls count their work as "
                        "instructions, and the one that passed the limit%s%s%s was %s counting %.3g", where, what,
                        lim->max_instructions, *lim->charged_where ? ", at " : "", lim->charged_where,
                        *lim->charged_where ? "," : "", lim->charged, lim->charged_work);
    if (lim->instructions_hit)
        return base_fail(err, code, "%s: %s did not finish loading after %.3g Lua instructions (an endless loop? "
                        "LCM_LUA_MAX_INSTRUCTIONS raises the limit)", where, what, lim->max_instructions);
    if (lim->time_hit)
        return base_fail(err, code, "%s: %s did not finish loading within %.3g s of CPU time (an endless loop of "
                        "library calls? the limit is 1 s per 1e7 of LCM_LUA_MAX_INSTRUCTIONS, which raises it)",
                        where, what, lim->max_seconds);
    if (lim->memory_hits > 0)
        return base_fail(err, code, "%s: out of memory: %s needed more than %.0f MiB of Lua memory while loading "
                        "(LCM_LUA_MAX_MEMORY raises the limit)", where, what, (double)lim->armed_memory / (1024 * 1024));
    if (lim->system_refusals) /* not the file's fault: the memory class of failure (lcm.h) */
        return base_fail(err, LCM_E_MEMORY, "%s: out of memory: the system refused more memory while loading %s "
                        "(%.0f MiB of Lua memory in use)", where, what, (double)lim->used_when_refused / (1024 * 1024));
    return 0;
}
