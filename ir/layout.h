/* layout.h - the state layout of a regime, in one place: where a state
 * lies in V (strides), which states are splayed and their chunks, and
 * which state the l-th thread of a launch solves.  The emitter prints these
 * formulas into the kernels (`<symbol>_state`, the continuation table's
 * rows); the runtime calls the same functions (launches, the interpreter,
 * gathering sharded blocks), so the two cannot drift apart
 * (tests/unit/test_layout.c compiles the printed code and compares).
 *
 * V of a regime is row-major over its states in V order, the last state
 * fastest: state i has stride prod_{j > i} n_j.
 *
 * Splay (`batch_size = k` on a state of n points): a state is splayed when
 * 0 < k < n; its sweep then runs in ceil(n / k) chunks, chunk c holding the
 * points [c k, min((c + 1) k, n)), one launch per combination of chunks of
 * the regime's splayed states (at most LCM_MAX_SPLAYED, the length of
 * lcm_kernel_args.chunk).  k >= n is one chunk: not splayed.  V never
 * changes.
 *
 * A launch's l-th state: l counts the regime's non-sharded states (the last
 * fastest, a splayed one within the launch's chunk of it), then the sharded
 * states' combined index from the launch's shard_lo (ir/shard.h).
 */
#ifndef LCM_LAYOUT_H
#define LCM_LAYOUT_H

#include <stdint.h>

#include "kernel_abi.h" /* LCM_MAX_SPLAYED: the kernels' chunk[] */
#include "shard.h"

/* ---- one state axis ------------------------------------------------------- */
/* Whether grid g is splayed: 0 < batch_size < n. */
int ir_splays(const ir_grid *g);
/* Its chunks: ceil(n / batch_size) when splayed, else 1. */
int ir_chunk_count(const ir_grid *g);
/* Its longest chunk: batch_size when splayed, else n (chunk c is
 * min(width, n - c * width) long: ir_layout_launch_size). */
int ir_chunk_width(const ir_grid *g);

/* The strides of V over the regime's states (r->nstates of them). */
void ir_strides(const ir_regime *r, long long *stride);

/* Whether every regime of the model splays at most LCM_MAX_SPLAYED states,
 * none of them sharded (the generator says so first, naming the line; a
 * manifest is checked here). */
int ir_splay_check(const ir_model *m, lcm_err *err);

/* ---- a regime's sweep ------------------------------------------------------- */
typedef struct ir_axis {
    long long stride; /* in V */
    int n;            /* points */
    int width;        /* ir_chunk_width */
    int chunk;        /* splayed: its slot in lcm_kernel_args.chunk; else -1 */
} ir_axis;

typedef struct ir_state_layout {
    const ir_regime *r;
    ir_axis *axis;           /* by state */
    int *order;              /* the launch's digits, fastest first: the non-sharded states from the */
    int nfree;               /* last (order[0..nfree)), then the sharded ones from the last */
    int sharded;             /* the regime carries the sharded states */
    int nsplayed;
    int splayed[LCM_MAX_SPLAYED]; /* the state of each chunk slot, in V order */
    long long per_combo;     /* states per combined-index value (every state when unsharded) */
} ir_state_layout;

/* The layout of regime r when the model's sharded states are S (V: the
 * model's variable slots); ir_state_layout_free releases it. */
void ir_state_layout_build(const ir_model *m, const ir_vars *V, const ir_shard *S, int r, ir_state_layout *L);
void ir_state_layout_free(ir_state_layout *L);

/* Launches over one block of the sharded states: one per combination of
 * chunks (*tiles), the chunk slots of launch `tile` (the last splayed state
 * fastest), and how many states a launch with those chunks solves for a
 * block of `combos` combined-index values (chunk NULL: whole axes). */
long long ir_layout_tiles(const ir_state_layout *L);
void ir_layout_tile(const ir_state_layout *L, long long tile, int *chunk);
long long ir_layout_launch_size(const ir_state_layout *L, long long combos, const int *chunk);
/* The flat state index of the launch's l-th state, for the block from
 * combined index shard_lo and the chunks chunk[] (NULL: whole axes, as one
 * launch of the block would run if nothing were splayed). */
long long ir_layout_state(const ir_state_layout *L, long long shard_lo, const int *chunk, long long l);

/* ---- a flat index and its codes ---------------------------------------------- */
/* Row-major over v[0..n) (a regime's states, or its actions), the last
 * fastest, leaving out v[skip] (-1: none; code[skip] is not written): the
 * codes code[i] of flat index `flat`, and the flat index of codes. */
void ir_layout_decode(const ir_var *v, int n, int skip, lcm_index flat, int *code);
lcm_index ir_layout_encode(const ir_var *v, int n, int skip, const int *code);
/* The combined index of the sharded states whose codes are code[i] (by
 * state; a regime that is sharded): ir_layout_print_combo's; the same of a
 * subject whose state values by slot are x[] (ir_vars; S's slots). */
long long ir_layout_combo(const ir_state_layout *L, const int *code);
long long ir_layout_combo_of_slots(const ir_shard *S, const double *x);
/* A table's entry `rest` (ir_layout_print_entry): the codes code[i] of the
 * states in the mask `states`, fastest first, a splayed one within its
 * chunk chunk[] (each digit as wide as its chunk, ir_chunk_width), then,
 * when `sharded`, the sharded states from combined index shard_lo on;
 * *point (when not NULL) their flat index, the other states' codes 0.  0
 * when a code is past its axis (a chunk's end: no entry), else 1. */
int ir_layout_entry(const ir_state_layout *L, uint64_t states, int sharded, long long shard_lo, const int *chunk,
                    long long rest, int *code, long long *point);

/* ---- the same formulas as kernel text (lcm_kernel_args *a in scope) --------- */
/* A printed decode, one line per state (`indent` spaces first):
 *     { const int c = <the code>; <value> } <a comment naming the state>
 * where `value(ctx, i, b)` prints what state i's code c gives. */
typedef void ir_print_value(void *ctx, int i, lcm_sb *b);
/* ir_layout_decode over r's states but those in `skip` (a set; states past
 * IR_SET_BITS are never skipped): `var` (an lcm_index variable holding the
 * flat index over the others) taken apart in place, the last state first. */
void ir_layout_print_decode(const ir_regime *r, uint64_t skip, const char *var, int indent, ir_print_value *value,
                            void *ctx, lcm_sb *b);
/* ir_layout_entry from the variable `rest`: with `point` the variable
 * `point` declared first; the sharded states' values into x[i] (type real). */
void ir_layout_print_entry(const ir_state_layout *L, uint64_t states, int sharded, int point, const char *x,
                           int indent, ir_print_value *value, void *ctx, lcm_sb *b);
/* The body of `<symbol>_state(a, l)` (templates/kernel.c.in) and, into
 * `order`, the words that say its order. */
void ir_layout_print_state(const ir_state_layout *L, lcm_sb *code, lcm_sb *order);
/* The first point of the launch's chunk of splayed state i: `a->chunk[c] * k`. */
void ir_layout_print_chunk_start(const ir_state_layout *L, int i, lcm_sb *b);
/* State i's code at flat index `var`, counted within the launch's chunk
 * when it is splayed: `var / stride % n` or `(var / stride % n - start)`. */
void ir_layout_print_code(const ir_state_layout *L, int i, const char *var, lcm_sb *b);
/* The inverse of the sharded digits of <symbol>_state: the combined index
 * of the sharded states whose codes are codes[i] (a real array indexed by
 * state), as an expression of type lcm_index (a regime that is sharded). */
void ir_layout_print_combo(const ir_state_layout *L, const char *codes, lcm_sb *b);

#endif
