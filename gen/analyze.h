/* analyze.h - period classes: which kernels a model needs.
 *
 * A regime's kernel depends on which regimes are active in the next period
 * (their V is read, the others must have zero probability).  Periods with the
 * same answer share one kernel; `age` and `period` are kernel arguments.
 */
#ifndef LCM_ANALYZE_H
#define LCM_ANALYZE_H

#include "ir.h"

/* Fills m->kernels and m->period_kernel. */
void gen_plan_kernels(ir_model *m);

#endif
