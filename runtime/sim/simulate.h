/* simulate.h - the simulation's entry points inside the runtime (lcm.h has
 * the public ones, lcm_simulate and lcm_simulate_again). */
#ifndef LCM_SIMULATE_H
#define LCM_SIMULATE_H

#include "lcm_internal.h"

/* lcm_simulate over periods t_first .. t_last only (0 <= t_first <= t_last <
 * the model's periods), with default options: subjects that start in that
 * span and live through it.  The Euler errors (euler.c) take the decisions
 * at the grid's points this way, one period at a time. */
int sim_simulate_span(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic, int t_first, int t_last,
                      lcm_panel **out, lcm_err *err);

#endif
