/* cost.h - what a kernel body does per state-action pair, counted from the
 * IR: the operations and bytes of a roofline (bench_solve prints one per
 * kernel against the machine's measured peaks, docs/tuning.md).
 *
 * The count follows the emitter's own analysis (emit.c): the nodes the
 * kernel needs, each at the loop its inputs put it in, weighted by how
 * often that loop runs per pair (a node of the outer of two action loops
 * counts 1/n of the inner loop's n actions); what the body reads from the
 * launch's action terms (or on the CPU a hoisted term) counts as a load.  The continuation is either one entry of
 * the table (a real and its flag byte; the table's own launch is timed
 * apart) or computed in the body: then the cells of the next states, the
 * corners of the interpolation and the next V it reads, over the Markov
 * categories and process nodes, as the body does (emit_continuation.c, emit_target_block);
 * with an expected-V table, over the Markov categories only.
 *
 * It is a count, not a simulation of the machine: an exponent known before
 * the loop is counted as what lcm_pow becomes for it, loads are counted
 * before any cache, and a comparison as one operation. */
#ifndef LCM_COST_H
#define LCM_COST_H

#include "ir.h"

typedef struct lcm_kernel_cost {
    double arith;   /* add, sub, mul, negation, abs, min, max, floor, ceil, a select's arithmetic */
    double compare; /* comparisons, logic, the argmax's comparison */
    double divide;  /* divisions and square roots */
    double calls;   /* log, exp, pow at a general exponent, normal_cdf, tanh, ...: library calls */
    double bytes;   /* loads: the table's entry, next V, grid points, action terms, indexed parameters */
    double footprint; /* bytes those loads come from, shared by the states: the table, next V, action terms */
    int table;      /* the continuation is read from the table */
    int inline_continuation; /* ... or computed per pair in the body */
    int expected_v; /* ... from the expected V of its shock processes (ir/precompute.h, "ev"), whose table's
                     * own launch is timed apart */
} lcm_kernel_cost;

/* Kernel k of a planned model, for reals of `precision` bits (64 or 32).
 * With the parameters (the flat buffer; NULL: not known) a power or a
 * quotient whose exponent or divisor only parameters decide is counted as
 * what that value makes it (a product at 2, a division at -1, ...), as the
 * solve does it (arith.h).  With tables 0 the continuation is counted as a
 * solve under LCM_NO_TABLES=1 computes it: inline.  With host 1 the kernel
 * is the CPU's, which reads hoisted terms (emit.c, "hoisted terms"), each a
 * load per pair, and computes them once per point of the innermost action
 * where their inputs are known; the GPU computes them per pair. */
int gen_kernel_cost_of(const ir_model *m, int k, int precision, const double *params, int tables, int host,
                       lcm_kernel_cost *out, lcm_err *err);

#endif
