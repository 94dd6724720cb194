/* iskhakov_ref.h - the published closed-form value functions of Iskhakov,
 * Jørgensen, Rust & Schjerning (2017) (tests/reference/iskhakov_2017) and
 * how close a solution of models/iskhakov_2017.lua comes to them, for the
 * reference test and the EGM benchmark alike. */
#ifndef LCM_ISKHAKOV_REF_H
#define LCM_ISKHAKOV_REF_H

#include "lcm_internal.h"

/* The worst per-point mean squared error (mean over the table's periods, at
 * its wealth points from the third on: the two lowest are left out, as the
 * paper's comparison does) of V of working_life (worst[0]) and retirement
 * (worst[1]) against <dir>/iskhakov_2017_<case>__values_{worker,retired}.csv,
 * and at which wealth point (at[], may be NULL).  The solution's wealth grid
 * holds the table's 100 points at every `stride`-th of its points.  Returns
 * 0, or an error naming the file. */
int iskhakov_worst_mse(const lcm_solution *sol, const char *dir, const char *case_name, int stride, double worst[2],
                       int at[2], lcm_err *err);

#endif
