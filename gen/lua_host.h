/* lua_host.h - runs a Lua model file through the DSL (gen/dsl/) and returns
 * the manifest text it produces. */
#ifndef LCM_LUA_HOST_H
#define LCM_LUA_HOST_H

#include "ir.h"

typedef struct lcm_trace_result {
    char *manifest; /* manifest text (caller frees) */
    char **deps;    /* Lua files the model loaded, the model first */
    int ndeps;
    char **warnings; /* things the user should know; the caller prints them */
    int nwarnings;
    char *reachability; /* which regime can reach which, when (gen/dsl/reach.lua) */
} lcm_trace_result;

/* defines: -D name=value pairs given to lcm.option(). */
int lcm_trace_model(const char *model_path, const ir_option *defines, int ndefines,
                    lcm_trace_result *out, lcm_err *err);
void lcm_trace_result_free(lcm_trace_result *r);

#endif
