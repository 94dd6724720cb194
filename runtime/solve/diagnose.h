/* diagnose.h - explaining a failed check.
 *
 * The kernels only record that a check failed and at which state (the
 * smallest index).  This re-evaluates that state with the IR interpreter,
 * action by action, and describes the first action where the check fails:
 * which regime or state, the probabilities and their sum, where a NaN
 * first appears.
 */
#ifndef LCM_DIAGNOSE_H
#define LCM_DIAGNOSE_H

#include "grid.h"
#include "lcm_internal.h"

void solve_diagnose(const ir_model *m, const ir_grid_layout *L, const double *G, const double *params,
                  const lcm_solution *sol, int period, int regime, lcm_index state, int bit, lcm_sb *out);
/* The same at state values x[] (the regime's states; off the grid is fine). */
void solve_diagnose_at(const ir_model *m, const ir_grid_layout *L, const double *G, const double *params,
                     const lcm_solution *sol, int period, int regime, const double *x, int bit, lcm_sb *out);

#endif
