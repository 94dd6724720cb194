/* lcm_internal.h - what the runtime, the `lcm` command, the tests and the
 * benchmarks reach beyond lcm.h: the IR behind a model or solution, models
 * counted, a solve's profile by table pass.  Declarations only: each room's
 * own offers are in its headers (params.h, initial.h, log.h, solution.h,
 * ...).  Not installed: code outside this tree sees lcm.h only
 * (docs/internals.md, "The public API").
 */
#ifndef LCM_INTERNAL_H
#define LCM_INTERNAL_H

#include "ir.h"
#include "kernel_abi.h"
#include "lcm.h"

const ir_model *core_model_ir(const lcm_model *m);
/* Models are counted: lcm_model_free gives up the caller's hold, and the
 * model is freed when the last solver, solution or panel made from it is.
 * Whatever keeps a model takes a hold (retain, which returns m) and gives it
 * up (release, which takes NULL). */
const lcm_model *core_model_retain(const lcm_model *m);
void core_model_release(const lcm_model *m);
const ir_model *core_solution_model(const lcm_solution *s);
/* lcm_solution_read_h5 for the IR of a model. */
int core_solution_read_h5_ir(const ir_model *m, const char *path, lcm_solution **out, lcm_err *err);
/* lcm_solver_profile with the time of each table pass apart:
 * pass_seconds[k * LCM_TABLE_PASSES + i] is kernel k's pass i
 * (ir/precompute.h, ir_pre_passes), summed over its periods and launches. */
#define LCM_TABLE_PASSES (3 + LCM_MAX_STAGES) /* a kernel's table passes at most (ir_pre_passes) */
int solve_solver_profile_passes(lcm_solver *s, const lcm_pvalue *params, double *seconds, double *pass_seconds,
                              lcm_err *err);

#endif
