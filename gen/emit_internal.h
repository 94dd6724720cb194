/* emit_internal.h - what the parts of the emitter share: the per-kernel
 * emitter state; the text layer (emit_text.c: indented lines, the names of
 * DAG nodes and their printers, #line directives), used by the kernels
 * (emit.c, emit_continuation.c, emit_loops.c, emit_egm.c) and the
 * simulation steps (emit_step.c). */
#ifndef LCM_EMIT_INTERNAL_H
#define LCM_EMIT_INTERNAL_H

#include "grid.h"
#include "ir.h"
#include "layout.h"
#include "plan.h"
#include "precompute.h"
#include "vars.h"

typedef enum leaf_mode { LEAVES_KERNEL, LEAVES_VECTOR } leaf_mode;

/* A printer of one nest of a kernel's plan (plan.h), or of a simulation
 * step or a node function (their own marks, no plan): what it prints, and
 * the variant it prints now. */
typedef struct emitter {
    const ir_model *m;
    const ir_regime *r;
    const ir_kernel *k;       /* NULL: a step or a node function */
    const ir_grid_layout *L;
    const kernel_plan *p;     /* NULL: a step or a node function */
    const plan_nest *n;       /* the nest printed */
    const emit_names *names;
    leaf_mode leaves;
    int staged;   /* the innermost action loop: 1 the CPU's chunked one (emit_loops.c, "staged"), -1 the plain one beside it */
    /* With an expected-V table (ir_pre.ev): which continuation a target
     * block of the table's targets computes: 1 the one read from the table,
     * each AR(1) value's two nearest nodes blended (a simulated subject),
     * 2 the one read from it at the nodes (the solve: every AR(1) value is
     * a node), -1 the sum over the process nodes (no table), 0 the table's
     * or the sum, chosen at run time by whether the launch gives the
     * table. */
    int ev_path;
    int lines;    /* #line directives before the code traced from a model line */
    int depth;    /* indentation of the next line, in steps of four spaces */
    lcm_sb *b;
} emitter;

/* A printer of nest n of plan p, into b at depth. */
emitter emit_printer(const kernel_plan *p, const plan_nest *n, lcm_sb *b, int depth);


/* ---- what kind of kernel (emit.c) -------------------------------------------
 * Questions about the kernel being emitted that its parts all ask. */
static inline int emit_max(int a, int b) { return a > b ? a : b; }

/* Whether E_next_V is the certainty equivalent of an Epstein-Zin regime
 * (lcm_ce in templates/arith.h) rather than the expectation. */
static inline int emit_ez(const emitter *e) { return e->r->risk_aversion >= 0; }
/* Whether the kernel body reads its continuation from a table (when the
 * solve gives one) rather than computing it. */
static inline int emit_reads_table(const emitter *e)
{
    return e->p->pre.active && !e->p->pre.egm && e->n->cont && (e->n->kind == NEST_BODY || e->n->kind == NEST_STAGE);
}
/* Whether the variant printed now reads the table: where the nest does,
 * but for a staged loop of a stage's nest that reads the expected V
 * (ev_path) beside the one that reads the table (emit_loops.c, "staged"). */
static inline int emit_table_now(const emitter *e) { return emit_reads_table(e) && !(e->staged > 0 && e->ev_path); }
/* Whether the nest reads the expected V of some targets where it computes
 * their continuation (ir/precompute.h, "ev"): the body (when the launch
 * gives it) and the continuation table's entries. */
static inline int emit_reads_ev(const emitter *e)
{
    return e->p->pre.ev && e->n->cont && (e->n->kind == NEST_BODY || e->n->kind == NEST_TABLE || e->n->kind == NEST_STAGE);
}
/* Whether the nest checks the pairs it computes (the body and the stages;
 * a table's entries are checked where a feasible pair reads them). */
static inline int emit_checks_here(const emitter *e) { return e->n->kind == NEST_BODY || e->n->kind == NEST_STAGE; }
/* Whether the kernel's regime solves by the endogenous grid method, and
 * whether loop level `level` is its candidates' (gen/emit_egm.c). */
static inline int emit_is_egm(const emitter *e) { return ir_is_egm(e->r); }
static inline int emit_egm_level(const emitter *e, int level)
{
    return emit_is_egm(e) && level == plan_action_level(e->n, e->r->egm.action);
}
/* A library call the C compiler does not vectorise (the staged loop has none). */
static inline int emit_call_op(ir_op op)
{
    switch (op) {
    case OP_LOG: case OP_EXP: case OP_LOG1P: case OP_EXPM1: case OP_NCDF: case OP_TANH: return 1;
    default: return 0;
    }
}

static inline int emit_costly_op(ir_op op)
{
    switch (op) {
    case OP_SQRT: case OP_DIV: case OP_POW: case OP_MOD: case OP_IDIV: return 1;
    default: return emit_call_op(op);
    }
}
/* Whether the body computes node id itself. */
static inline int emit_body_computes(const emitter *e, int id)
{
    return e->n->needed[id] && !(e->n->tabled && (e->n->tabled[id] || e->n->terms_only[id]));
}
/* Level at which the continuation of target tg is computed (plan.h). */
static inline int emit_target_level(const emitter *e, const ir_target *tg) { return plan_target_level(e->p, e->n, tg); }
/* Whether the CPU's plain loop keeps the state's row of the table
 * (emit.c, "the state's row"). */
int emit_lazy_row(const emitter *e);
/* Target regime g's index among the kernel's targets, or -1. */
int emit_kernel_target(const emitter *e, int g);
/* Whether target regime g is one whose expected V the body reads. */
int emit_ev_target(const emitter *e, int g);

/* The symbol suffix of kernel p's table pass of kind `kind`
 * (ir/precompute.h, ir_pre_passes): "" for the first pass, else its number. */
void emit_pass_suffix(const kernel_plan *p, ir_pass kind, char *buf, size_t len);

/* ---- lines ---------------------------------------------------------------
 * Every line the emitter writes goes through these, at e->depth. */
/* One whole line. */
void emit_line(emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line that opens a block (its text ends in '{'): the lines after it are
 * one step deeper until emit_close. */
void emit_open(emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The '}' line of the innermost open block. */
void emit_close(emitter *e);
/* `} else {` between the two branches of the innermost open block. */
void emit_else(emitter *e);
/* The indentation of a line the caller writes piece by piece (with sb_*),
 * ending it with '\n'. */
void emit_start(emitter *e);

/* Whether the second operand of node id (an exponent, a divisor) is a
 * run-time value known outside the node's loop: the same for every pair
 * the loop visits (lcm_div, lcm_pow_kind: templates/arith.h). */
static inline int emit_outer_operand(const emitter *e, int id)
{
    const int y = e->r->nodes[id].args[1];
    return e->n->lvl && e->n->lvl[y] < e->n->lvl[id] && e->r->nodes[y].op != OP_CONST;
}

/* In the staged loop (emit_loops.c): a power or quotient of the innermost level
 * whose exponent or divisor is such a value, decided once per state
 * (pk<id> = lcm_pow_kind, df<id> = lcm_div_by). */
static inline int emit_reduced(const emitter *e, int id)
{
    const ir_node *n = &e->r->nodes[id];
    if (e->staged <= 0 || (n->op != OP_POW && n->op != OP_DIV) || e->n->lvl[id] != e->n->innermost) return 0;
    return emit_outer_operand(e, id);
}

/* Of the hoisted terms (emit.c, "hoisted terms"; built in emit_loops.c):
 * whether node id is one hoisted to `level`; whether the loop that builds
 * those reads node id rather than computing it (a tabled term from lcm_at,
 * one hoisted further out from its own lcm_h). */
static inline int emit_hoisted_to(const emitter *e, int id, int level)
{
    return e->n->hoisted && e->n->hoisted[id] && e->n->hoist_level[id] == level;
}
static inline int emit_hoist_reads(const emitter *e, int id, int level)
{
    return e->n->tabled[id] || (e->n->hoisted && e->n->hoisted[id] && e->n->hoist_level[id] < level);
}
/* Marks in chain (r->nnodes + 1 bytes) what the loop that builds the terms
 * of action level `home` hoisted to `level` computes or reads of that
 * level: those terms and what they read there.  Returns whether any such
 * term is hoisted to `level`. */
int emit_hoist_chain(const emitter *e, int level, int home, char *chain);
/* The constraints (their indices into caps, when not NULL) that end that
 * loop where they end the home loop: its caps known at `level`, none
 * when a constraint reads a term hoisted there.  Returns how many. */
int emit_hoist_caps(const emitter *e, int level, int home, int *caps);

/* ---- names (built in emit_text.c) ---------------------------------------- */
static inline const char *emit_name(const emitter *e, int id) { return e->names->name[id]; }
/* A node used as a number / as a condition. */
static inline const char *emit_num(const emitter *e, int id) { return e->names->num[id]; }
static inline const char *emit_cond(const emitter *e, int id) { return e->names->cond[id]; }

/* A double as a C literal of type real (exact: 17 digits), `LCM_INF`, ... */
typedef struct emit_lit {
    char s[48];
} emit_lit;
emit_lit emit_literal(double x);

/* `const real NAME = <expr>;` with a comment naming the model line (and
 * before it, with e->lines, a #line directive pointing there). */
void emit_node_decl(emitter *e, int id);
/* A comment ending the line: what it is, and where in the model it came
 * from (source location src, -1: none), as "mortality.lua:53
 * (working.utility)" (runtime/backends/compile_log.c reads it). */
void emit_comment(emitter *e, const char *what, int src);
/* With e->lines, `#line N "model.lua"` before the line of code traced from
 * source location src (-1: none). */
void emit_line_directive(emitter *e, int src);
/* src with `#line N "kernels.c"` after the last traced line of each run
 * (the line after a #line directive; the emitter writes no other), N the
 * number of the line after it, so that the compiler counts the lines of
 * kernels.c again. */
void emit_line_returns(const char *src, lcm_sb *out);
/* The last path component (generated text must not depend on how the
 * model's path was spelled: it is part of the cache key). */
const char *emit_base_name(const char *path);
/* `const real act<j> = ...;`: the value of action j at its code, the
 * variable <index><j> (the loop's i<j>, the step's c<j>). */
/* The points of state s of regime g, as C: G + its offset, for a grid by
 * age the row of period `period` (a C expression: "a->period", "a->period
 * + 1" for next period's grid). */
void emit_state_points(const emitter *e, int g, int s, const char *period, char *buf, size_t len);
void emit_action_value(emitter *e, int j, char index);
/* The state names of a regime, for comments: "health, wealth" or "no states". */
void emit_state_names(const ir_regime *r, lcm_sb *b);
/* A fragment for a template hole that stands on its own line: its text
 * without the last line break ("" when empty). */
const char *emit_fragment(lcm_sb *b);

/* ---- the continuation (emit_continuation.c) ---------------------------------- */
/* The continuation in target regime tg, computed at loop level `level`
 * (-1 in a table's entry): V_{t+1} (with egm_table the marginal value)
 * interpolated at the next states, summed over the stochastic ones into E<g>. */
void emit_target_block(emitter *e, const ir_target *tg, int level);
/* The weights of the targets' stochastic next states known at `level`. */
void emit_stochastic_weights(emitter *e, int level);
/* The cells of the targets' continuous next states whose values are known
 * at this level, where the continuation is computed in a loop inside it:
 * sought here once, on the CPU (gen/emit_continuation.c, cell_hoisted). */
void emit_next_cells(emitter *e, int level);
/* The axes the expected V of target tg sums over (ir_pre_ev_axes, one per
 * state of the target), or NULL when the kernel does not read the
 * target's expected V (ir/precompute.h, "ev"); the caller frees. */
int *emit_ev_axes(const emitter *e, const ir_target *tg);
/* The test that every AR(1) value the kernel's expected V blends is a node
 * ("pt0_6 == 0 && ...") into cond; 0 when it blends none. */
int emit_at_nodes(const emitter *e, lcm_sb *cond);
/* Where the next-state weights of state s of a target are known (plan.h). */
static inline int emit_weights_level(const emitter *e, const ir_next *nx) { return plan_weights_level(e->n, nx); }
/* The action whose grid point node id is, where that grid is the next
 * state's grid gr and its code i<j> is in scope (its cell is then the
 * code, no search), or -1. */
int emit_on_own_grid(const emitter *e, int id, const ir_grid *gr);
/* E: the targets' continuations weighted by their probabilities, or the
 * table's entry (and its off-grid byte) when the solve gives a table. */
void emit_accumulate(emitter *e);
/* A table entry's off-grid byte (ir/precompute.h) from the inline code's
 * checks: bit 0 a next discrete state off its grid in a target reached,
 * bit 1 an Epstein-Zin certainty equivalent without a value. */
void emit_off_grid_byte(const emitter *e, lcm_sb *out);
/* The continuation table's row of the state (ir/precompute.h), and the
 * row of the state at flat index `point` in any table over `states` (a
 * stage's): the expression. */
void emit_table_row(emitter *e);
void emit_row_of(const emitter *e, uint64_t states, int sharded, lcm_sb *b);
/* A table's decode of the states of its entry (emit.c), with `point`
 * their flat index too. */
void emit_decode_states(emitter *e, uint64_t states, int sharded, int point);
/* The state's row (emit_lazy_row): its declaration at the state level, and
 * at the level of E the pair's entry and whether the row holds it already. */
void emit_lazy_row_decl(emitter *e);
void emit_lazy_row_entry(emitter *e);
/* The regime probabilities' check, hoisted to where they are all known. */
void emit_regime_prob_check(emitter *e, int level);
/* Probability and code checks of a feasible state-action pair and those
 * of the stage entries it reads, joined into `into` without a branch. */
void emit_checks(emitter *e, const char *into);

/* ---- the staged solve (emit_stage.c; ir/eliminate.h) -------------------------- */
/* The flat index of the actions of `actions` (row-major in the regime's
 * order) from their codes <index><j>: "(i0 * 50 + i2)", "0" for none. */
void emit_actions_index(const ir_regime *r, uint64_t actions, char index, lcm_sb *out);
/* In the continuation table's nest, the innermost store: the entry's E and
 * its off-grid byte (emit.c). */
void emit_table_store(emitter *e);
/* The stages whose tables nest e reads (bit s). */
unsigned emit_stages_read(const emitter *e);
/* The flat index of stage s's row entries (its table row's actions, row-major
 * in the regime's order) from their codes <index><j>: "(i0 * 50 + i2)". */
void emit_stage_index(const emitter *e, int s, char index, lcm_sb *out);
/* At the body's state level: each stage's row of the state, from the
 * solve's table or made here (a simulated subject). */
void emit_stage_rows(emitter *e);
/* At the body's end: a subject's best action whole, from the stages' rows. */
void emit_stage_compose(emitter *e);
/* In a stage's nest, the innermost update: the entry's best. */
void emit_stage_update(emitter *e);
/* The stages' functions of kernel p (which the body calls) and their
 * tables' passes. */
int emit_stage_functions(const kernel_plan *p, int lines, const char *nx, lcm_sb *functions, lcm_sb *passes,
                         lcm_err *err);

/* ---- the loop nest (emit_loops.c) ---------------------------------------------- */
/* Loop level `level` of the body and everything inside it: the action's
 * loop, what is computed there, the constraints, and at the innermost the
 * best action's update (the CPU's staged loop beside the plain one). */
void emit_level(emitter *e, int level);

/* ---- the endogenous grid method (emit_egm.c) --------------------------------
 * In the kernel of an EGM regime the continuous action's loop runs over the
 * candidates its endogenous grid offers (the budget's corner and every
 * segment that covers the state's resources), each with the exact Q. */
/* At the state level: the table's rows of the state (egm_at, egm_w). */
void emit_egm_rows(emitter *e);
/* Inside the discrete actions' loops: the rows' offsets of this choice. */
void emit_egm_choice(emitter *e);
/* The candidates' loop of action j, with act<j> (opens a block). */
void emit_egm_candidates(emitter *e, int j);
/* The defines of kernel.c.in and step.c.in for a regime that keeps a
 * marginal value (an EGM regime, or a terminal one EGM moves into; 0
 * otherwise): LCM_MARGINAL, the length of the body's output egm_best (the
 * action and its marginal utility, with taste shocks each choice's too),
 * and LCM_EGM_ACTION, the step's argument egm_action (the chosen action
 * off its grid). */
void emit_egm_defines(const ir_regime *r, lcm_sb *out);
/* The table entry of an EGM kernel (templates/table.c.in): its endogenous grid. */
int emit_egm_table(const kernel_plan *p, int lines, const char *nx, lcm_sb *out, lcm_err *err);

/* The simulation step of regime r (templates/step.c.in), and its symbol. */
int gen_emit_step(const ir_model *m, const ir_grid_layout *L, const ir_vars *V, int r, int lines, lcm_sb *out,
                  lcm_err *err);
void gen_step_symbol(const ir_model *m, int r, char *buf, size_t len);

#endif
