/* fold.h - what a regime's nodes read, and which constraints fail, once
 * its enumerated actions are fixed.
 *
 * A node such as where(adjust == "adjust", d_new, n) reads the state n for
 * a keeper only, and a constraint any(adjust == "adjust", d_new <= 0) rules
 * out a keeper's durables past the first: with the actions known, a node
 * whose value follows from them and from constants in every precision is
 * known, a where() whose condition is known follows its taken branch.
 * The endogenous grid's plan (ir/precompute.c) asks this for each
 * combination of the discrete actions, so that a choice's entries are made
 * once for all the points of a row state it does not read, and for each
 * combination of all the actions it enumerates, so that the entries a
 * constraint rules out take no room in its table. */
#ifndef LCM_FOLD_H
#define LCM_FOLD_H

#include <stdint.h>

#include "ir.h"

typedef struct ir_fold {
    const ir_regime *r;
    char *known;  /* [node]: its value follows from constants and the fixed actions (FOLD_* of fold.c) */
    double *val;  /* [node]: that value in double (ir_eval's) */
    float *val32; /* [node]: a known point's value in float32, as a float32 kernel holds it */
    char *seen;   /* [node]: visited by ir_fold_reads */
    int *stack;
    uint64_t states; /* what the roots given so far read */
} ir_fold;

/* Fixes regime r's first `fixed` actions (its discrete ones, or all those
 * EGM enumerates: ir_egm_enumerated) at their combination d (their flat
 * index, the first action slowest, as ir_layout_decode; 0 <= d < the
 * product of their points).  A continuous one is known at its point where
 * the model fixes its grid's points and every machine computes them alike
 * (given points, a linspace; not a logspace, made by the machine's libm).  r has at most IR_SET_BITS states. */
void ir_fold_init(ir_fold *f, const ir_model *m, const ir_regime *r, long long d, int fixed);
void ir_fold_free(ir_fold *f);
/* The states (bit i: state i) the nodes under root (-1: none) and under
 * the roots of the calls before read, the branches a known condition does
 * not take left out: each node is visited once for all the roots. */
uint64_t ir_fold_reads(ir_fold *f, int root);
/* Whether node id is known to be false (0) in every precision. */
int ir_fold_false(const ir_fold *f, int id);

#endif
