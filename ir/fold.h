/* fold.h - what a regime's nodes read once its discrete actions are fixed.
 *
 * A node such as where(adjust == "adjust", d_new, n) reads the state n for
 * a keeper only: with the discrete actions known, a where() whose condition
 * they alone decide (and constants: integers, by exact ops) follows its
 * taken branch.  The endogenous grid's plan (ir/precompute.c, egm_share)
 * asks this for each combination of the discrete actions, so that a
 * choice's entries are made once for all the points of a row state it does
 * not read. */
#ifndef LCM_FOLD_H
#define LCM_FOLD_H

#include <stdint.h>

#include "ir.h"

typedef struct ir_fold {
    const ir_regime *r;
    char *known;  /* [node]: its value follows from constants and the discrete actions */
    double *val;  /* [node]: that value, where known (ir_eval's) */
    char *seen;   /* [node]: visited by ir_fold_reads */
    int *stack;
    uint64_t states; /* what the roots given so far read */
} ir_fold;

/* Fixes regime r's discrete actions at combination dc (their flat index,
 * the first action slowest, as ir_layout_decode; 0 <= dc <
 * the product of their points).  r has at most IR_SET_BITS states. */
void ir_fold_init(ir_fold *f, const ir_model *m, const ir_regime *r, long long dc);
void ir_fold_free(ir_fold *f);
/* The states (bit i: state i) the nodes under root (-1: none) and under
 * the roots of the calls before read, the branches a known condition does
 * not take left out: each node is visited once for all the roots. */
uint64_t ir_fold_reads(ir_fold *f, int root);

#endif
