/* emit_continuation.c - the continuation of a kernel body (emit_internal.h,
 * "the continuation"): next states' cells and weights on each target's
 * grids, V_{t+1} interpolated there and summed into E, or read from the
 * solve's table (its row, a lazy row of the simulation), and the checks
 * of the regime probabilities and codes that the continuation raises. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_internal.h"
#include "grid.h"
#include "layout.h"

/* The cell of a piecewise grid: which piece (comparisons with the pieces'
 * starts), then that piece's closed form. */
static void piece_cell(emitter *e, const ir_grid *gr, int node)
{
    lcm_sb *b = e->b;
    const char *x = emit_num(e, node);
    int offset = 0;
    for (int k = 0; k < gr->npieces; offset += gr->pieces[k++].n) {
        double start, stop, next_start, next_stop;
        ir_piece_bounds(&gr->pieces[k], &start, &stop);
        if (k + 1 < gr->npieces) {
            ir_piece_bounds(&gr->pieces[k + 1], &next_start, &next_stop);
            base_sb_printf(b, "(%s < %s ? ", x, emit_literal(next_start).s);
        }
        int np = gr->pieces[k].n;
        if (gr->kind == GRID_PWLIN)
            base_sb_printf(b, "lcm_cell_pwlin(%s, %s, %s", x, emit_literal(start).s, emit_literal((np - 1) / (stop - start)).s);
        else
            base_sb_printf(b, "lcm_cell_pwlog(%s, %s, %s, %s", x, emit_literal(start).s, emit_literal(log(start)).s,
                      emit_literal((np - 1) / (log(stop) - log(start))).s);
        base_sb_printf(b, ", %d, %d, %d)", offset, np, gr->n);
        if (k + 1 < gr->npieces) base_sb_puts(b, " : ");
    }
    for (int k = 0; k + 1 < gr->npieces; ++k) base_sb_putc(b, ')');
}

/* The weight of node k of process state s of target g at the current
 * value of its AR(1) source: the matrix's rows at the value's cell,
 * interpolated. */
typedef struct weight_text {
    char s[256];
} weight_text;

static weight_text process_weight(int g, int s, int n, const char *k)
{
    weight_text w;
    snprintf(w.s, sizeof w.s, "((1 - pt%d_%d) * pm%d_%d[pc%d_%d * %d + %s] + pt%d_%d * pm%d_%d[(pc%d_%d + 1) * %d + %s])", g, s,
             g, s, g, s, n, k, g, s, g, s, g, s, n, k);
    return w;
}

/* Whether the GPU also keeps an AR(1) row's n weights in pw (the CPU
 * always does): not where the body reads a table or the expected V, which
 * makes the inline continuation the rare path (the weights' registers,
 * live through the action loop for it, cost FVV 2018's kernel a third of
 * its speed on an H200), nor beyond the registers 16 of them take. */
static int gpu_keeps_weights(const emitter *e, int n) { return !emit_reads_table(e) && !emit_reads_ev(e) && n <= 16; }

/* A process's transition matrix and, for an AR(1) process, the cell of the
 * current value on its grid (its row of the matrix) and that row's
 * weights: once per state, not once per action (weight_loop). */
static void process_weights(emitter *e, int g, int s, const ir_next *nx)
{
    const ir_regime *tr = &e->m->regimes[g];
    /* unused where only the expected V is read (a table's entry) */
    emit_line(e, "LCM_UNUSED const real *LCM_RESTRICT pm%d_%d = G + %zu; /* %s.%s: transitions */", g, s,
              e->L->matrix_off[g][s], tr->name, tr->states[s].name);
    if (nx->src < 0) return;
    size_t soff = e->L->state_off[e->r->id][nx->src];
    const char *from = e->r->states[nx->src].name;
    int n = tr->states[s].grid.n;
    emit_line(e, "const int pc%d_%d = lcm_cell_search(x[%d], G + %zu, %d); /* %s */", g, s, nx->src, soff, n, from);
    if (emit_ez(e)) /* a lottery: the outer node's row beyond it (lcm_lottery_t) */
        emit_line(e, "const real pt%d_%d = lcm_lottery_t(lcm_frac(x[%d], G + %zu, pc%d_%d)); /* %s */", g, s, nx->src,
                  soff, g, s, from);
    else emit_line(e, "const real pt%d_%d = lcm_frac(x[%d], G + %zu, pc%d_%d); /* %s */", g, s, nx->src, soff, g, s, from);
    if (e->n->flat || (e->ev_path > 0 && emit_ev_target(e, g))) return; /* the row's weights: only where the nodes are summed */
    int cpu_only = !gpu_keeps_weights(e, n);
    if (cpu_only) base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    emit_line(e, "real pw%d_%d[%d];", g, s, n);
    emit_line(e, "for (int k = 0; k < %d; ++k) pw%d_%d[k] = %s;", n, g, s, process_weight(g, s, n, "k").s);
    if (cpu_only) base_sb_puts(e->b, "#endif\n");
}

/* A Markov state's probabilities and their check. */
static void markov_weights(emitter *e, int g, int s, const ir_next *nx)
{
    emit_start(e);
    base_sb_printf(e->b, "const real pm%d_%d[%d] = {", g, s, nx->nprobs);
    for (int j = 0; j < nx->nprobs; ++j) base_sb_printf(e->b, "%s%s", j ? ", " : "", emit_num(e, nx->probs[j]));
    base_sb_printf(e->b, "}; /* next %s */\n", e->m->regimes[g].states[s].name);
    if (emit_checks_here(e)) /* the kernel checks them (checks()); a table's entry does not */
        emit_line(e, "const int pmok%d_%d = !checks || lcm_probs_ok(pm%d_%d, %d);", g, s, g, s, nx->nprobs);
}

/* The weights of the kernel's targets' stochastic next states known at this
 * level (and their check), declared here once rather than in every
 * continuation block below: a Markov state's probabilities, a process's
 * transition matrix and, for an AR(1) process, the row of the current value. */
void emit_stochastic_weights(emitter *e, int level)
{
    for (int t = 0; t < e->k->ntargets && e->n->cont; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        if ((e->n->kind == NEST_EGM) && !ir_egm_target(e->r, (int)(tg - e->r->targets))) continue; /* not in its sum */
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_DET || emit_weights_level(e, nx) != level) continue;
            if (nx->kind == NEXT_PROCESS) process_weights(e, tg->regime, s, nx);
            else markov_weights(e, tg->regime, s, nx);
        }
    }
}

/* The action whose grid point node id is, where that grid is the next
 * state's grid gr (Mahler & Yum's wealth = saving, both on the wealth
 * grid) and its code i<j> is in scope (a loop's, or a table entry's): -1
 * where not (an EGM action is off its grid). */
int emit_on_own_grid(const emitter *e, int id, const ir_grid *gr)
{
    const ir_node *n = &e->r->nodes[id];
    if (n->op != OP_ACTION || gr->n < 2 || (emit_is_egm(e) && n->ref == e->r->egm.action)) return -1;
    int j = n->ref;
    if (!ir_grid_same(&e->r->actions[j].grid, gr)) return -1;
    int coded = e->n->flat ? (int)(e->p && (e->p->pre.actions >> j & 1)) : plan_action_level(e->n, j) >= LVL_ACTION0;
    return coded ? j : -1;
}

/* Whether next state s of target tg is interpolated: a deterministic
 * continuous one, not an action's point on its own grid. */
static int interpolated(const emitter *e, const ir_target *tg, int s)
{
    const ir_grid *gr = &e->m->regimes[tg->regime].states[s].grid;
    const ir_next *nx = &tg->next[s];
    return nx->kind == NEXT_DET && !grid_is_discrete(gr) && !(e->n->kind != NEST_EGM && emit_on_own_grid(e, nx->node, gr) >= 0);
}

/* The cell of value `node` on the grid of continuous state s of target
 * regime g, as an expression. */
static void cell_of(emitter *e, int g, int s, int node)
{
    const ir_grid *gr = &e->m->regimes[g].states[s].grid;
    const char *x = emit_num(e, node);
    char pts[96];
    emit_state_points(e, g, s, "a->period + 1", pts, sizeof pts);
    switch (gr->kind) {
    case GRID_LIN:
        base_sb_printf(e->b, "lcm_cell_lin(%s, %s, %s, %d)", x, emit_literal(gr->start).s,
                       emit_literal((gr->n - 1) / (gr->stop - gr->start)).s, gr->n);
        break;
    case GRID_LOG:
        base_sb_printf(e->b, "lcm_cell_log(%s, %s, %s, %s, %d)", x, emit_literal(gr->start).s,
                       emit_literal(log(gr->start)).s, emit_literal((gr->n - 1) / (log(gr->stop) - log(gr->start))).s,
                       gr->n);
        break;
    case GRID_PWLIN:
    case GRID_PWLOG: piece_cell(e, gr, node); break;
    default: base_sb_printf(e->b, "lcm_cell_search(%s, %s, %d)", x, pts, gr->n); break; /* irregular, by age */
    }
}

/* Whether the cell of next state s of target tg is sought where its value
 * is known, once, rather than in every continuation block of the loops
 * inside (emit_next_cells: Druedahl's p' at the state, n' at the durable,
 * not at each consumption).  Not where a continuation table makes those
 * blocks the rare path, and on the CPU alone: a GPU thread would keep the
 * cells in registers through those loops (the reason process_weights keeps
 * an AR(1) row's weights on the CPU alone). */
static int cell_hoisted(const emitter *e, const ir_target *tg, int s)
{
    return !e->n->flat && !emit_reads_table(e) && interpolated(e, tg, s) &&
           e->n->lvl[tg->next[s].node] < emit_target_level(e, tg);
}

void emit_next_cells(emitter *e, int level)
{
    for (int t = 0; t < e->k->ntargets && e->n->cont; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        if (emit_target_level(e, tg) <= level) continue;
        const ir_regime *tr = &e->m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            int g = tg->regime, node = tg->next[s].node;
            if (!cell_hoisted(e, tg, s) || e->n->lvl[node] != level) continue;
            char pts[96];
            emit_state_points(e, g, s, "a->period + 1", pts, sizeof pts);
            base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
            emit_start(e);
            base_sb_printf(e->b, "const int nc%d_%d = ", g, s);
            cell_of(e, g, s, node);
            base_sb_printf(e->b, "; /* %s.%s: its cell, for the continuations below */\n", tr->name, tr->states[s].name);
            emit_line(e, "const real nt%d_%d = lcm_frac(%s, %s, nc%d_%d);", g, s, emit_num(e, node), pts, g, s);
            base_sb_puts(e->b, "#endif\n");
        }
    }
}

/* The deterministic next value of state s of target tg: a discrete one
 * moves the base of V; a continuous one gives its cell, fraction and
 * stride (number kc of the interpolated axes), on next period's grid. */
static void next_cell(emitter *e, const ir_target *tg, int s, int node, int kc, long long stride)
{
    int g = tg->regime;
    const ir_regime *tr = &e->m->regimes[g];
    const ir_grid *gr = &tr->states[s].grid;
    const char *x = emit_num(e, node);
    if (grid_is_discrete(gr)) {
        if (e->staged > 0) /* the same base and verdict, by selects (the staged loop has no branch) */
            emit_line(e, "{ const int c = lcm_code(%s, %d); code_ok%d &= c >= 0; base += (lcm_index)(c < 0 ? 0 : c) * %lld; } "
                         "/* %s.%s */", x, gr->n, g, stride, tr->name, tr->states[s].name);
        else
            emit_line(e, "{ const int c = lcm_code(%s, %d); if (c < 0) code_ok%d = 0; else base += (lcm_index)c * %lld; } "
                         "/* %s.%s */", x, gr->n, g, stride, tr->name, tr->states[s].name);
        return;
    }
    int j = emit_on_own_grid(e, node, gr);
    if (j >= 0) { /* an action's point: read there, as a code (interpolation at a point gives the point's V, exactly) */
        emit_line(e, "base += (lcm_index)i%d * %lld; /* %s.%s: %s's point */", j, stride, tr->name, tr->states[s].name,
                  e->r->actions[j].name);
        return;
    }
    int hoisted = cell_hoisted(e, tg, s) && node == tg->next[s].node;
    if (hoisted) {
        base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        emit_line(e, "cell[%d] = nc%d_%d; t[%d] = nt%d_%d; st[%d] = %lld; /* %s.%s */", kc, g, s, kc, g, s, kc, stride,
                  tr->name, tr->states[s].name);
        base_sb_puts(e->b, "#else\n");
    }
    char pts[96];
    emit_state_points(e, g, s, "a->period + 1", pts, sizeof pts);
    emit_start(e);
    base_sb_printf(e->b, "cell[%d] = ", kc);
    cell_of(e, g, s, node);
    base_sb_printf(e->b, "; t[%d] = lcm_frac(%s, %s, cell[%d]); st[%d] = %lld; /* %s.%s */\n", kc, x, pts, kc, kc, stride,
                   tr->name, tr->states[s].name);
    if (hoisted) base_sb_puts(e->b, "#endif\n");
}

/* The loop over the points of stochastic next state s (a Markov state's
 * categories or a process's nodes), its weight the product with the weight
 * of the enclosing loop (state `outer`, -1 for none); zero weights skipped:
 * by `continue`, or in the staged loop (one such loop) by a select on the
 * weight where target_sum adds the corner. */
static void weight_loop(emitter *e, int g, int s, const ir_next *nx, int outer)
{
    int n = nx->kind == NEXT_MARKOV ? nx->nprobs : e->m->regimes[g].states[s].grid.n;
    char w[64] = "";
    if (outer >= 0) snprintf(w, sizeof w, "w%d * ", outer);
    emit_open(e, "for (int k%d = 0; k%d < %d; ++k%d) {", s, s, n, s);
    if (nx->kind == NEXT_MARKOV || nx->src < 0) {
        emit_line(e, "const real w%d = %spm%d_%d[k%d];", s, w, g, s, s);
    } else { /* an AR(1) row: read from pw (process_weights) or, in the table's entry (one action), computed */
        char k[16];
        snprintf(k, sizeof k, "k%d", s);
        int read = !e->n->flat, computed = e->n->flat || !gpu_keeps_weights(e, n);
        if (read && computed) base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        if (read) emit_line(e, "const real w%d = %spw%d_%d[k%d];", s, w, g, s, s);
        if (read && computed) base_sb_puts(e->b, "#else\n");
        if (computed) emit_line(e, "const real w%d = %s%s;", s, w, process_weight(g, s, n, k).s);
        if (read && computed) base_sb_puts(e->b, "#endif\n");
    }
    lcm_assert(e->staged <= 0 || outer < 0); /* stages_inline: one loop */
    if (e->staged <= 0) emit_line(e, "if (w%d == 0) continue;", s);
}

/* Whether state s of target tg is an AR(1) axis of the expected V that
 * blends (IR_EV_PROCESS with a source: its row is the current value's). */
static int blended(const ir_target *tg, const int *ev_axis, int s)
{
    return ev_axis && ev_axis[s] == IR_EV_PROCESS && tg->next[s].src >= 0;
}

int emit_at_nodes(const emitter *e, lcm_sb *cond)
{
    int n = 0;
    for (int t = 0; t < e->k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(e->r, e->k->targets[t]);
        int *axis = emit_ev_axes(e, tg), g = tg->regime;
        for (int s = 0; axis && s < e->m->regimes[g].nstates; ++s)
            if (blended(tg, axis, s)) base_sb_printf(cond, "%spt%d_%d == 0", n++ ? " && " : "", g, s);
        free(axis);
    }
    return n;
}

/* From the expected V, the corners of its AR(1) axes (blended): the
 * current value's row is a blend of the rows of its two nearest nodes,
 * (1 - pt) of cell pc's and pt of the next, and the expected V is linear
 * in the row, so the blend of the two rows' expected V is the one of the
 * value's.  Opens the loop over the 2^n corners, with weight wb and offset
 * ob, and returns n; at the nodes (ev_path 2: every pt is 0) the one
 * corner's offset ob, and returns 0 (*at_node set). */
static int blend_corners(emitter *e, const ir_target *tg, const long long *stride, const int *ev_axis, int *at_node)
{
    int g = tg->regime, n = 0;
    const ir_regime *tr = &e->m->regimes[g];
    for (int s = 0; s < tr->nstates; ++s) n += blended(tg, ev_axis, s);
    *at_node = n && e->ev_path == 2;
    if (*at_node) {
        emit_start(e);
        base_sb_puts(e->b, "const lcm_index ob = 0");
        for (int s = 0; s < tr->nstates; ++s)
            if (blended(tg, ev_axis, s)) base_sb_printf(e->b, " + (lcm_index)pc%d_%d * %lld", g, s, stride[s]);
        base_sb_puts(e->b, "; /* each AR(1) value's node */\n");
        return 0;
    }
    if (!n) return 0;
    emit_open(e, "for (int b = 0; b < %d; ++b) { /* each AR(1) value's two nearest nodes, blended */", 1 << n);
    emit_line(e, "real wb = 1;");
    emit_line(e, "lcm_index ob = 0;");
    for (int s = 0, bit = 0; s < tr->nstates; ++s) {
        if (!blended(tg, ev_axis, s)) continue;
        emit_line(e, "{ const int up = b >> %d & 1; wb *= up ? pt%d_%d : 1 - pt%d_%d; ob += (lcm_index)(pc%d_%d + up) * %lld; } "
                     "/* %s */", bit++, g, s, g, s, g, s, stride[s], tr->states[s].name);
    }
    if (e->staged <= 0) emit_line(e, "if (wb == 0) continue;");
    return n;
}

/* The sum of target g's continuation over its stochastic next states,
 * after the deterministic ones' cells (ncont of them interpolated): loops
 * over the Markov categories and process nodes, V_{t+1} interpolated at
 * each (ev_axis NULL); or, from the expected V (ir/precompute.h, "ev", at
 * offset ev_off of a->ev), loops over the states the table does not sum
 * only (ev_axis[s] IR_EV_NONE), at the others their current row: an
 * AR(1) process's value (blend_corners), a Markov state's source's
 * category, row 0 for an IID process or fixed probabilities. */
static void target_sum(emitter *e, const ir_target *tg, const long long *stride, int ncont, const int *ev_axis,
                       long long ev_off)
{
    int g = tg->regime;
    const ir_regime *tr = &e->m->regimes[g];
    if (ev_axis) emit_line(e, "const real *LCM_RESTRICT Vn = ev + %lld; /* its expected V */", ev_off);
    else emit_line(e, "const real *LCM_RESTRICT Vn = (const real *)a->%s[%d];", (e->n->kind == NEST_EGM) ? "m_next" : "v_next", g);
    int at_node, blend = blend_corners(e, tg, stride, ev_axis, &at_node), loops = 0, outer = -1;
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind == NEXT_DET || (ev_axis && ev_axis[s] != IR_EV_NONE)) continue;
        weight_loop(e, g, s, nx, outer);
        outer = s;
        ++loops;
    }
    const char *interp = (e->n->kind == NEST_EGM) ? "lcm_interp_marginal" : "lcm_interp";
    char w[32] = "1";
    if (blend && loops) snprintf(w, sizeof w, "wb * w%d", outer);
    else if (blend) snprintf(w, sizeof w, "wb");
    else if (loops) snprintf(w, sizeof w, "w%d", outer);
    int weighted = blend || loops;
    emit_start(e);
    if (emit_ez(e)) base_sb_printf(e->b, "lcm_ce_add(&C%d, %s, %s, lcm_interp(Vn, base", g, emit_num(e, e->r->risk_aversion), w);
    else if (weighted && e->staged > 0) base_sb_printf(e->b, "const real sum = E%d + %s * %s(Vn, base", g, w, interp);
    else if (weighted) base_sb_printf(e->b, "E%d += %s * %s(Vn, base", g, w, interp);
    else base_sb_printf(e->b, "E%d = %s(Vn, base", g, interp);
    if (blend || at_node) base_sb_puts(e->b, " + ob");
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        int axis = ev_axis ? ev_axis[s] : IR_EV_NONE;
        if (axis >= 0) /* the source's current category (a code) */
            base_sb_printf(e->b, " + (lcm_index)x[%d] * %lld", axis, stride[s]);
        else if (axis == IR_EV_NONE && nx->kind != NEXT_DET) /* its loop's point */
            base_sb_printf(e->b, " + (lcm_index)k%d * %lld", s, stride[s]);
    }
    base_sb_printf(e->b, ", %d, st, cell, t)%s;\n", ncont, emit_ez(e) ? ")" : "");
    /* a zero weight skips its corner (0 * -inf is NaN) by a select on the
     * weight itself: gcc vectorises a select on a comparison of doubles
     * that do not change in the loop, not one on a flag made outside it */
    if (weighted && e->staged > 0) emit_line(e, "E%d = %s != 0 ? sum : E%d;", g, w, g);
    for (; loops > 0; --loops) emit_close(e);
    if (blend) emit_close(e);
}

int *emit_ev_axes(const emitter *e, const ir_target *tg)
{
    if (!emit_ev_target(e, tg->regime)) return NULL;
    int *axis = base_xcalloc((size_t)e->m->regimes[tg->regime].nstates + 1, sizeof *axis);
    long long nodes;
    ir_pre_ev_axes(e->m, e->r, tg, axis, &nodes);
    return axis;
}

/* The continuation in target regime tg: its V_{t+1} interpolated at the
 * deterministic next states, summed over the stochastic ones; for a target
 * of the expected-V table, read from it where the launch gives it (the
 * solve) and summed where not (e->ev_path chooses or leaves it to run
 * time). */
void emit_target_block(emitter *e, const ir_target *tg, int level)
{
    const ir_regime *tr = &e->m->regimes[tg->regime];
    int g = tg->regime, P = e->r->rprob[g];
    emit_line(e, "/* continuation in regime '%s' */", tr->name);
    if (e->staged > 0 && emit_table_now(e)) { /* the table's byte flags a code: the inline block is the other loop's */
        emit_line(e, "const int code_ok%d = 1;", g);
        return;
    }
    if (emit_ez(e)) emit_line(e, "lcm_ce C%d = LCM_CE_EMPTY; /* its lottery (Epstein-Zin) */", g);
    else emit_line(e, "real E%d = 0;", g);
    emit_line(e, "%sint code_ok%d = 1;", (e->n->kind == NEST_EGM) ? "LCM_UNUSED " : "", g); /* EGM's table flags nothing */
    /* skipped where the target is not reached; the staged loop computes it
     * anyway (a branch would keep it scalar): a target's V_{t+1} is always
     * there, and E adds the block only where the target is reached */
    int guarded = e->n->lvl[P] <= level && e->staged <= 0;
    /* with a table (or the entry in the state's row), the block is skipped */
    const char *inline_only = emit_lazy_row(e) && level == e->n->e_level ? "!pre && !lcm_known" : emit_table_now(e) ? "!pre" : "";
    if (guarded) emit_open(e, "if (%s%s%s != 0) {", inline_only, *inline_only ? " && " : "", emit_name(e, P));
    else if (*inline_only) emit_open(e, "if (%s) {", inline_only);
    else emit_open(e, "{");

    long long *stride = base_xcalloc((size_t)tr->nstates + 1, sizeof *stride); /* of the target's V */
    ir_strides(tr, stride);
    int ncont = 0; /* interpolated axes: continuous, not processes (read at their nodes) nor an action's points */
    for (int s = 0; s < tr->nstates; ++s) ncont += interpolated(e, tg, s);
    int m1 = ncont ? ncont : 1;
    emit_line(e, "lcm_index base = 0;");
    emit_line(e, "int cell[%d]; real t[%d]; lcm_index st[%d];", m1, m1, m1);
    for (int s = 0, kc = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (nx->kind != NEXT_DET) continue;
        /* the EGM table reads next period's marginal values, at the next
         * liquid state as a function of savings (gen/emit_egm.c) */
        int liquid = (e->n->kind == NEST_EGM) && s == ir_marginal_state(tr);
        next_cell(e, tg, s, liquid ? e->r->egm.next[tg - e->r->targets] : nx->node, kc, stride[s]);
        kc += interpolated(e, tg, s);
    }
    int *axis = emit_ev_axes(e, tg); /* NULL: the target's V is summed inline, always */
    long long ev_off = axis ? ir_pre_ev_offset(e->m, e->k, &e->p->pre, emit_kernel_target(e, g)) : 0;
    if (axis && e->ev_path == 0) {
        emit_open(e, "if (ev) { /* the expected V (ir/precompute.h) */");
        target_sum(e, tg, stride, ncont, axis, ev_off);
        emit_else(e);
        target_sum(e, tg, stride, ncont, NULL, 0);
        emit_close(e);
    } else {
        target_sum(e, tg, stride, ncont, e->ev_path > 0 ? axis : NULL, ev_off);
    }
    emit_close(e);
    free(stride), free(axis);
}

/* at, the pair's entry of the table: the state's row, then the read
 * actions' combination (ir/precompute.h). */
static void table_at(emitter *e)
{
    emit_start(e);
    base_sb_puts(e->b, "const lcm_index at = ");
    for (int j = 0; j < e->r->nactions; ++j)
        if (e->p->pre.actions >> j & 1) base_sb_putc(e->b, '(');
    base_sb_puts(e->b, "pre_row");
    for (int j = 0; j < e->r->nactions; ++j)
        if (e->p->pre.actions >> j & 1) base_sb_printf(e->b, " * %d + i%d)", e->r->actions[j].grid.n, j);
    base_sb_puts(e->b, ";\n");
}

/* E and its table's checks from entry `at` of a table (reals T, off-grid
 * bytes C). */
static void table_entry_read(emitter *e, const char *T, const char *C)
{
    emit_line(e, "E = %s[at];", T);
    emit_line(e, "pre_bad = %s[at] & 1;", C);
    if (emit_ez(e)) emit_line(e, "ce_bad = %s[at] >> 1 & 1;", C);
}

/* A table entry's off-grid byte (ir/precompute.h) from the inline code's
 * checks: bit 0 a next discrete state off its grid in a target reached,
 * bit 1 an Epstein-Zin certainty equivalent without a value. */
void emit_off_grid_byte(const emitter *e, lcm_sb *out)
{
    base_sb_puts(out, "0");
    for (int t = 0; t < e->k->ntargets; ++t)
        base_sb_printf(out, " | (%s != 0 && !code_ok%d)", emit_name(e, e->r->rprob[e->k->targets[t]]), e->k->targets[t]);
    if (emit_ez(e)) base_sb_puts(out, " | ce_bad << 1");
}

/* The state's row (emit_lazy_row): its entries, their off-grid bytes and which
 * are filled, none yet; lcm_lazy when the launch asks for it. */
void emit_lazy_row_decl(emitter *e)
{
    long long n = e->p->pre.acts;
    base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    emit_line(e, "real lcm_row[%lld]; /* the state's row of the table (emit.c, \"the state's row\") */", n);
    emit_line(e, "unsigned char lcm_row_code[%lld], lcm_row_have[%lld];", n, n);
    emit_line(e, "const int lcm_lazy = !pre && a->cont_lazy;");
    emit_line(e, "if (lcm_lazy) for (int j = 0; j < %lld; ++j) lcm_row_have[j] = 0;", n);
    base_sb_puts(e->b, "#endif\n");
}

/* At the level of E, before the target blocks there: the pair's entry and
 * whether the state's row holds it already (lcm_known: the blocks and the
 * sum are skipped). */
void emit_lazy_row_entry(emitter *e)
{
    table_at(e);
    base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
    emit_line(e, "const int lcm_known = lcm_lazy && lcm_row_have[at];");
    base_sb_puts(e->b, "#else\n");
    emit_line(e, "const int lcm_known = 0;");
    base_sb_puts(e->b, "#endif\n");
}

/* E: the targets' continuations weighted by their probabilities, or the
 * table's entry (and its off-grid byte) when the solve gives a table. */
void emit_accumulate(emitter *e)
{
    int table = emit_table_now(e);
    emit_line(e, "real E = 0;");
    if (emit_ez(e)) emit_line(e, "int ce_bad = 0;");
    int lazy = emit_lazy_row(e);
    if (table) {
        emit_line(e, "int pre_bad = 0;");
        emit_open(e, e->staged > 0 ? "{" : "if (pre) {");
        if (!lazy) table_at(e); /* else before the target blocks */
        table_entry_read(e, "pre", "pre_code");
        if (e->staged > 0) {
            emit_close(e);
            return;
        }
        if (lazy) {
            emit_close(e);
            base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
            emit_open(e, "else if (lcm_known) {");
            table_entry_read(e, "lcm_row", "lcm_row_code");
            emit_close(e);
            base_sb_puts(e->b, "#endif\n");
            emit_open(e, "else {");
        } else {
            emit_else(e);
        }
    }
    if (emit_ez(e)) {
        const char *alpha = emit_num(e, e->r->risk_aversion);
        emit_line(e, "lcm_ce C = LCM_CE_EMPTY; /* the whole lottery: CE = E_next_V */");
        for (int t = 0; t < e->k->ntargets; ++t) {
            int g = e->k->targets[t], P = e->r->rprob[g];
            emit_line(e, "if (%s != 0) lcm_ce_merge(&C, %s, %s, &C%d);", emit_name(e, P), alpha, emit_num(e, P), g);
        }
        emit_line(e, "E = lcm_ce_value(&C, %s);", alpha);
        emit_line(e, "ce_bad = C.bad;");
    } else {
        for (int t = 0; t < e->k->ntargets; ++t) {
            int g = e->k->targets[t], P = e->r->rprob[g];
            emit_line(e, "if (%s != 0) E += %s * E%d;", emit_name(e, P), emit_num(e, P), g);
        }
    }
    if (lazy) {
        lcm_sb code;
        base_sb_init(&code);
        emit_off_grid_byte(e, &code);
        base_sb_puts(e->b, "#if !defined(__CUDACC__)\n");
        emit_open(e, "if (lcm_lazy) { /* the state's row keeps it */");
        emit_line(e, "lcm_row[at] = E;");
        emit_line(e, "lcm_row_code[at] = (unsigned char)(%s);", code.s);
        emit_line(e, "lcm_row_have[at] = 1;");
        emit_close(e);
        base_sb_puts(e->b, "#endif\n");
        base_sb_free(&code);
    }
    if (table) emit_close(e);
}

/* The row of the state with flat index `point` in a table over `states`
 * (ir/precompute.h): the combined index of its sharded states within the
 * launch's block (sharded: the table has that dimension), then its other
 * states of the table, a splayed one within its chunk. */
void emit_row_of(const emitter *e, uint64_t states, int sharded, lcm_sb *b)
{
    const ir_state_layout *lay = &e->p->lay;
    int nstates = e->r->nstates;
    /* a left-nested ((0 * n + code) * n + code)...: the parentheses first;
     * the sharded states slowest first, then the others slowest first */
    int open = sharded ? nstates - lay->nfree + 1 : 0;
    for (int d = 0; d < lay->nfree; ++d) open += (int)(states >> lay->order[d] & 1);
    for (int j = 0; j < open; ++j) base_sb_putc(b, '(');
    base_sb_puts(b, "0");
    for (int d = nstates - 1; sharded && d >= lay->nfree; --d) {
        base_sb_printf(b, " * %d + ", lay->axis[lay->order[d]].n);
        ir_layout_print_code(lay, lay->order[d], "point", b);
        base_sb_putc(b, ')');
    }
    if (sharded) base_sb_puts(b, " - a->shard_lo)");
    for (int d = lay->nfree - 1; d >= 0; --d) {
        int i = lay->order[d];
        if (!(states >> i & 1)) continue;
        base_sb_printf(b, " * %d + ", lay->axis[i].width);
        ir_layout_print_code(lay, i, "point", b);
        base_sb_putc(b, ')');
    }
}

/* The continuation table's row of the state (ir/precompute.h). */
void emit_table_row(emitter *e)
{
    emit_start(e);
    base_sb_puts(e->b, "const lcm_index pre_row = pre ? ");
    emit_row_of(e, e->p->pre.states, e->p->pre.sharded, e->b);
    base_sb_puts(e->b, " : 0; /* the state's row of the table */\n");
}

/* The number of regimes the regime may move to. */
static int nreachable(const emitter *e)
{
    int n = 0;
    for (int g = 0; g < e->m->nregimes; ++g) n += e->r->rprob[g] >= 0;
    return n;
}

/* The regime probabilities' check, hoisted to where they are all known. */
void emit_regime_prob_check(emitter *e, int level)
{
    const ir_regime *r = e->r;
    int nprob = nreachable(e);
    if (nprob == 0 || !e->n->cont || !emit_checks_here(e) || level != e->n->rp_level) return;
    emit_start(e);
    base_sb_printf(e->b, "const real rp[%d] = {", nprob);
    for (int g = 0, first = 1; g < e->m->nregimes; ++g) {
        if (r->rprob[g] < 0) continue;
        base_sb_printf(e->b, "%s%s", first ? "" : ", ", emit_num(e, r->rprob[g]));
        first = 0;
    }
    base_sb_puts(e->b, "};\n");
    emit_line(e, "const int rp_ok = !checks || lcm_probs_ok(rp, %d);", nprob);
}

/* The terms of a check statement (emit_checks). */
static void check_term(lcm_sb *terms, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check_term(lcm_sb *terms, const char *fmt, ...)
{
    if (terms->len) base_sb_putc(terms, '\n');
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(terms, fmt, ap);
    va_end(ap);
}

/* Probability and code checks of a feasible state-action pair, where the
 * nest computes the continuation, and the checks of the stages' entries
 * it reads (kernel_abi.h, LCM_STAGE_BAD): the verdicts are computed at
 * their own levels; here, without a branch, the failed ones join `into`
 * (the body's `bad`, which it flags once when it ends; a stage's per-pair
 * bits). */
void emit_checks(emitter *e, const char *into)
{
    const ir_regime *r = e->r;
    const ir_kernel *k = e->k;
    lcm_sb terms;
    base_sb_init(&terms);
    if (e->n->cont && nreachable(e)) {
        check_term(&terms, "(unsigned)!rp_ok << LCM_FLAG_REGIME_PROB");
        for (int i = 0; i < k->ninactive; ++i)
            check_term(&terms, "(unsigned)(%s != 0) << LCM_FLAG_INACTIVE", emit_name(e, r->rprob[k->inactive[i]]));
        for (int t = 0; t < k->ntargets; ++t) {
            int g = k->targets[t];
            const ir_target *tg = ir_target_of(r, g);
            const char *P = emit_name(e, r->rprob[g]);
            check_term(&terms, "(unsigned)(%s != 0 && !code_ok%d) << LCM_FLAG_CODE", P, g);
            for (int s = 0; s < e->m->regimes[g].nstates; ++s)
                if (tg->next[s].kind == NEXT_MARKOV)
                    check_term(&terms, "(unsigned)(%s != 0 && !pmok%d_%d) << LCM_FLAG_STATE_PROB", P, g, s);
        }
        if (emit_table_now(e)) check_term(&terms, "(unsigned)pre_bad << LCM_FLAG_CODE");
        if (emit_ez(e)) check_term(&terms, "(unsigned)ce_bad << LCM_FLAG_CE");
    }
    unsigned reads = emit_stages_read(e);
    for (int s = 0; s < e->p->pre.elim.nstages; ++s)
        if (reads >> s & 1) {
            lcm_sb idx;
            base_sb_init(&idx);
            emit_stage_index(e, s, 'i', &idx);
            check_term(&terms, "LCM_STAGE_BAD(gc%d[%s])", s, idx.s);
            base_sb_free(&idx);
        }
    if (!terms.len) return;
    emit_start(e);
    base_sb_printf(e->b, "if (checks) %s |= %s", into, e->staged > 0 ? "(0u - (unsigned)feas) & (" : "");
    e->depth++;
    for (const char *t = terms.s, *nl; t; t = nl ? nl + 1 : NULL) {
        nl = strchr(t, '\n');
        if (t != terms.s) {
            base_sb_putc(e->b, '\n');
            emit_start(e);
            base_sb_puts(e->b, "| ");
        }
        base_sb_putn(e->b, t, nl ? (size_t)(nl - t) : strlen(t));
    }
    e->depth--;
    base_sb_puts(e->b, e->staged > 0 ? ");\n" : ";\n");
    base_sb_free(&terms);
}
