/* eval.h - the IR interpreter: evaluates a regime's DAG directly, in
 * float64.  It shares no code with the emitter or the kernel templates,
 * which is what makes it a useful oracle for the generated code. */
#ifndef LCM_EVAL_H
#define LCM_EVAL_H

#include "ir.h"

typedef struct ir_env {
    const double *states;  /* value per state (codes for discrete states) */
    const double *actions; /* value per action */
    double age, period;
    double enext;          /* E_next_V, used only by the aggregator */
    double savings, marginal; /* the leaves of the endogenous grid method's roots (ir.h, ir_egm) */
    const double *params;  /* the flat parameter buffer */
} ir_env;

/* Evaluates nodes 0..n-1 of r (n <= r->nnodes) into vals[]; booleans are 0/1. */
void ir_eval(const ir_model *m, const ir_regime *r, const ir_env *env, double *vals, size_t n);

#endif
