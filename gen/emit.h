/* emit.h - prints the generated kernel source of a planned model.
 *
 * One fused kernel per (regime, period class): for each state, loop over the
 * action product, evaluate the traced DAG, the continuation and H, keep the
 * running max and argmax, write V.  Each DAG node is computed at the
 * outermost loop where all it depends on is known (hoisting), constraints
 * skip the rest of a loop as soon as they fail, and the continuation of a
 * target regime is computed at the outermost loop its next states allow.
 */
#ifndef LCM_EMIT_H
#define LCM_EMIT_H

#include "ir.h"

typedef struct lcm_emit_options {
    /* `#line N "model.lua"` before the code traced from line N of a model
     * file, and `#line M "kernels.c"` after it, so that compiler messages,
     * debuggers and profilers name the model's lines */
    int line_directives;
} lcm_emit_options;

/* m must have its kernels planned (analyze.h); opt may be NULL (defaults).
 * Records each kernel's nterms, which the manifest carries to the runtime. */
int gen_emit_source(ir_model *m, const lcm_emit_options *opt, lcm_sb *out, lcm_err *err);

/* Emits `real name(const real *x, const real *P)` evaluating one node of a
 * regime DAG whose leaves are read as: state i -> x[i], action j ->
 * x[nstates + j], age -> x[ns+na], period -> x[ns+na+1], E_next_V ->
 * x[ns+na+2].  Used by the differential tests against the interpreter. */
int gen_emit_node_function(const ir_model *m, const ir_regime *r, int node, const char *name,
                           lcm_sb *out, lcm_err *err);

/* The prelude and ABI text every generated source starts with. */
void gen_emit_prelude(lcm_sb *out);

#endif
