/* emit_internal.h - what the parts of the emitter share: the per-kernel
 * emitter state and the printers of DAG nodes (emit.c), used by the
 * kernels (emit.c) and the simulation steps (emit_step.c). */
#ifndef LCM_EMIT_INTERNAL_H
#define LCM_EMIT_INTERNAL_H

#include "grid.h"
#include "ir.h"
#include "layout.h"
#include "precompute.h"
#include "vars.h"

/* Loop levels: 0 = once per call, 1 = per state, 2 + j = inside the loop of
 * action j (actions in the regime's order). */
enum { LVL_KERNEL = 0, LVL_STATE = 1, LVL_ACTION0 = 2 };

typedef enum leaf_mode { LEAVES_KERNEL, LEAVES_VECTOR } leaf_mode;

typedef struct emitter {
    const ir_model *m;
    const ir_regime *r;
    const ir_kernel *k;
    const ir_grid_layout *L;
    leaf_mode leaves;
    int *lvl;
    char *needed;
    char *has_enext;
    int innermost, e_level;
    int rp_level; /* where the regime probabilities are all known (their check is hoisted there) */
    const ir_shard *S;
    const ir_state_layout *lay; /* the regime's strides, chunks and launch map (ir/layout.h) */
    ir_pre pre;   /* the kernel's continuation table (ir/precompute.h) */
    int flat;     /* emitting the table's entry: every node at level -1, no loops */
    lcm_sb *b;
} emitter;

/* Indentation of a loop level (level -1: the function body). */
void emit_indent(emitter *e, int level);
void emit_literal(lcm_sb *b, double x);
/* A node used as a number / as a condition. */
void emit_num(emitter *e, int id);
void emit_cond(emitter *e, int id);
/* `const real vN = <expr>;` with a comment naming the model line. */
void emit_node_decl(emitter *e, int id, int level);
/* Marks a node and everything it depends on in e->needed. */
void emit_mark(emitter *e, int id);
/* The last path component (generated text must not depend on how the
 * model's path was spelled: it is part of the cache key). */
const char *emit_base_name(const char *path);

/* The simulation step of regime r (templates/step.c.in), and its symbol. */
int lcm_emit_step(const ir_model *m, const ir_grid_layout *L, const ir_vars *V, int r, lcm_sb *out, lcm_err *err);
void lcm_step_symbol(const ir_model *m, int r, char *buf, size_t len);

#endif
