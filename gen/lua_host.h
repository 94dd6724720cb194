/* lua_host.h - runs a Lua model file through the DSL (gen/dsl/) and returns
 * the model it traced, as IR (read from the DSL's tables by lua_model.h). */
#ifndef LCM_LUA_HOST_H
#define LCM_LUA_HOST_H

#include <lua.h>

#include "gen_inputs.h"
#include "ir.h"

typedef struct lcm_trace_result {
    ir_model model; /* the traced model, checked as a manifest read is (ir_manifest_check) */
    char **deps;    /* Lua files the model loaded, the model first */
    int ndeps;
    char **warnings; /* things the user should know; the caller prints them */
    int nwarnings;
    char *reachability; /* which regime can reach which, when (gen/dsl/reach.lua) */
} lcm_trace_result;

/* in: the -D options given to lcm.option() and the --fix values (NULL: none). */
int gen_trace_model(const char *model_path, const lcmgen_inputs *in, lcm_trace_result *out, lcm_err *err);
void gen_trace_result_free(lcm_trace_result *r);

/* Pushes the sandbox (lua_sandbox.h) for a data file that is Lua, such as
 * an --initial .lua file, on a state with the standard libraries open:
 * the model's sandbox, with the DSL loaded so that require("lcm") gives
 * lcm.read_table and lcm.read_file of files beside `file`, and lcm.option
 * the values of the model's options (a file made for a model whose -D
 * options change its grids can follow them). */
int gen_lua_push_data_box(lua_State *L, const char *file, const ir_option *options, int noptions, lcm_err *err);

#endif
