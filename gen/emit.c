/* emit.c - see emit.h.  A kernel's emission from its plan (plan.h): the
 * pieces around its loops (state decoding, the tables' entries, the action
 * terms' loops) and the kernel assembled from its template.  The
 * continuation is emit_continuation.c's, the loop nest emit_loops.c's. */
#include "emit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h" /* lcm_pow_kind: which exponents the staged loop computes without pow */
#include "embedded.h"
#include "emit_internal.h"
#include "grid.h"
#include "layout.h"
#include "process.h"
#include "template.h"
#include "vars.h"

/* The state's row.  Simulation has no table (subjects sit between grid
 * points), so the body of a kernel with one computes E inline, and did so
 * again for each value of an action E does not read that loops outside E
 * (Mahler & Yum: E reads effort and saving, and was computed once per
 * labour supply as well).  The CPU's body keeps its state's row of the
 * table instead when the launch asks for it (lcm_kernel_args.cont_lazy):
 * lcm_row[at] for the read actions' combination at, and its off-grid byte,
 * stored where the inline code first computes E there and read from then
 * on; an entry the constraints rule out is never computed.  The inline
 * code gives the table's bits, so the panel keeps its bits.  Only where
 * such actions have 2 or more values in all and the row stays within
 * LAZY_MAX entries (its reals and two bytes each: 40 KiB of the stack in
 * float64), in the plain loop (the staged one runs with a table only).
 * The GPU computes E inline as before. */
enum { LAZY_MAX = 4096 };
int emit_lazy_row(const emitter *e)
{
    if (!emit_reads_table(e) || e->staged > 0 || e->p->pre.acts > LAZY_MAX || e->n->kind != NEST_BODY) return 0;
    long long reuse = 1;
    for (int j = 0; j < e->r->nactions; ++j) {
        int level = plan_action_level(e->n, j);
        if (!(e->p->pre.actions >> j & 1) && level >= LVL_ACTION0 && level < e->n->e_level)
            reuse *= e->r->actions[j].grid.n;
    }
    return reuse >= 2;
}

int emit_kernel_target(const emitter *e, int g)
{
    for (int t = 0; t < e->k->ntargets; ++t)
        if (e->k->targets[t] == g) return t;
    return -1;
}

int emit_ev_target(const emitter *e, int g)
{
    int t = emit_kernel_target(e, g);
    return t >= 0 && emit_reads_ev(e) && ir_pre_ev_target(&e->p->pre, t);
}

/* ---- the kernel's pieces --------------------------------------------------- */

/* The values x[] of a state in a grid: the code c, or the point c of the
 * grid buffer (offset off; a grid by age: its row of the period). */
static void state_value(emitter *e, int s, const ir_grid *g, size_t off)
{
    if (grid_is_discrete(g)) base_sb_printf(e->b, "x[%d] = (real)c;", s);
    else if (g->kind == GRID_AGE) base_sb_printf(e->b, "x[%d] = G[%zu + (lcm_index)a->period * %d + c];", s, off, g->n);
    else base_sb_printf(e->b, "x[%d] = G[%zu + c];", s, off);
}

/* State i's value from its code c, in a printed decode (ir_layout.h). */
static void decoded_value(void *ctx, int i, lcm_sb *b)
{
    emitter *e = ctx;
    lcm_assert(b == e->b);
    state_value(e, i, &e->r->states[i].grid, e->L->state_off[e->r->id][i]);
}

/* Whether a regime has a continuous state (the decode reads G). */
static int reads_grid(const ir_regime *r)
{
    for (int s = 0; s < r->nstates; ++s)
        if (!grid_is_discrete(&r->states[s].grid)) return 1;
    return 0;
}

/* The `_at` function's decode: flat index s -> codes -> values x[]. */
static void state_decode(emitter *e)
{
    const ir_regime *r = e->r;
    if (!r->nstates) {
        emit_line(e, "/* no states */");
        return;
    }
    if (reads_grid(r)) emit_line(e, "const real *LCM_RESTRICT G = (const real *)a->grids;");
    emit_line(e, "lcm_index rem = s;");
    ir_layout_print_decode(r, 0, "rem", 4 * e->depth, decoded_value, e, e->b);
}

/* Simulation: a subject's state values from its slots. */
static void sim_load(emitter *e, const ir_vars *V)
{
    const ir_regime *r = e->r;
    if (!r->nstates) {
        emit_line(e, "/* no states */");
        return;
    }
    emit_line(e, "const real *LCM_RESTRICT X = (const real *)sim->x + (lcm_index)row * sim->nstates;");
    for (int s = 0; s < r->nstates; ++s)
        emit_line(e, "x[%d] = X[%d]; /* %s */", s, V->state_slot[r->id][s], r->states[s].name);
}

/* The periods a kernel serves: "periods 0 1 2". */
static void kernel_periods(const ir_model *m, const ir_kernel *k, lcm_sb *b)
{
    base_sb_puts(b, "periods");
    for (int t = 0; t < m->nperiods; ++t)
        if (m->period_kernel[k->regime * m->nperiods + t] == (int)(k - m->kernels)) base_sb_printf(b, " %d", t);
}

/* A table's decode of its states from the entry index `rest`: the states
 * of `states`, fastest first, a splayed one within its chunk, then the
 * sharded ones from the launch's block (sharded: the table has them); a
 * state past its last point ends the entry.  With `point`, their flat
 * index too (the other states' codes 0), from which a table the entry
 * reads finds its row (emit_row_of). */
void emit_decode_states(emitter *e, uint64_t states, int sharded, int point)
{
    ir_layout_print_entry(&e->p->lay, states, sharded, point, "x", 4 * e->depth, decoded_value, e, e->b);
}

/* The loops that fill lcm_at (the plan's terms nest): for each action with
 * tabled terms, a loop over its values, from `first` in steps of `step`
 * (all of them on the CPU, a thread's share on the GPU), computing them
 * (and what they read, of the launch's nodes first) as the body would. */
static void action_term_loops(const kernel_plan *p, int lines, lcm_sb *out, int depth, const char *first, const char *step)
{
    const ir_regime *r = p->r;
    const plan_nest *body = &p->body;
    emitter t = emit_printer(p, &p->terms, out, depth);
    t.lines = lines;
    emit_line(&t, "LCM_UNUSED const real *LCM_RESTRICT P = (const real *)a->params;");
    emit_line(&t, "LCM_UNUSED const real *LCM_RESTRICT G = (const real *)a->grids;");
    for (size_t i = 0; i < r->nnodes; ++i)
        if (t.n->needed[i] && t.n->lvl[i] == LVL_KERNEL) emit_node_decl(&t, (int)i);
    for (int j = 0; j < r->nactions; ++j) {
        int any = 0, level = plan_action_level(body, j);
        for (size_t i = 0; i < r->nnodes; ++i) any |= body->tabled[i] && body->lvl[i] == level;
        if (!any) continue;
        int n = r->actions[j].grid.n;
        emit_open(&t, "for (int i%d = %s; i%d < %d; i%d += %s) { /* action %s */", j, first, j, n, j, step,
                  r->actions[j].name);
        emit_action_value(&t, j, 'i');
        for (size_t i = 0; i < r->nnodes; ++i)
            if (t.n->needed[i] && t.n->lvl[i] == level) emit_node_decl(&t, (int)i);
        for (size_t i = 0; i < r->nnodes; ++i)
            if (body->tabled[i] && body->lvl[i] == level)
                emit_line(&t, "lcm_at[%d + i%d] = %s;", body->at_off[i], j, emit_name(&t, (int)i));
        emit_close(&t);
    }
}

/* The CPU launch's lcm_at, on its stack (cpu), and the GPU's kernel
 * <symbol>_terms that fills lcm_kernel_args.terms before each launch
 * (gpu).  Both empty when nothing is tabled. */
static void action_terms_build(const kernel_plan *p, int lines, lcm_sb *cpu, lcm_sb *gpu)
{
    int nat = p->body.nat;
    if (!nat) return;
    base_sb_printf(cpu, "    real lcm_at[%d]; /* the action terms, once per launch (emit.c, \"action terms\") */\n", nat);
    base_sb_puts(cpu, "    {\n");
    action_term_loops(p, lines, cpu, 2, "0", "1");
    base_sb_puts(cpu, "    }\n");
    base_sb_printf(gpu, "/* The launch's action terms (emit.c, \"action terms\"): %d reals, by the threads of the grid. */\n"
                       "LCM_EXTERN __global__ void %s_terms(const lcm_kernel_args args)\n{\n", nat, p->k->symbol);
    base_sb_puts(gpu, "    const lcm_kernel_args *LCM_RESTRICT a = &args;\n"
                     "    real *LCM_RESTRICT lcm_at = (real *)a->terms;\n"
                     "    const int first = (int)(blockIdx.x * blockDim.x + threadIdx.x), step = (int)(gridDim.x * blockDim.x);\n");
    action_term_loops(p, lines, gpu, 1, "first", "step");
    base_sb_puts(gpu, "}\n\n");
}

/* The symbol suffix of kernel p's table pass of kind `kind` (ir/precompute.h,
 * ir_pre_passes): "" for the first pass, else its number. */
void emit_pass_suffix(const kernel_plan *p, ir_pass kind, char *buf, size_t len)
{
    for (int i = 0; i < ir_pre_passes(&p->pre); ++i)
        if (ir_pre_pass(&p->pre, i) == kind) {
            if (i) snprintf(buf, len, "%d", i);
            else snprintf(buf, len, "%s", "");
            return;
        }
    lcm_assert(!"no such table pass");
}

/* The nodes a flat nest needs, declared in order (none that reads
 * E_next_V: a table holds what comes before it). */
static void flat_nodes(emitter *f)
{
    for (size_t i = 0; i < f->r->nnodes; ++i)
        if (f->n->needed[i] && !f->n->has_enext[i]) emit_node_decl(f, (int)i);
}

/* The continuation table's pass (templates/table.c.in; the plan's table
 * nest): launch item j -- a row and a value of the first action read --
 * decoded, then the nest over the other actions read, computing the
 * continuation as the kernel body computes it inline and storing each
 * entry (emit_table_store). */
static int emit_table(const kernel_plan *p, int lines, const char *nx, lcm_sb *out, lcm_err *err)
{
    const ir_regime *r = p->r;
    int first = ir_pre_first_action(&p->pre);
    lcm_sb decode, body, what;
    base_sb_init(&decode), base_sb_init(&body), base_sb_init(&what);
    emitter f = emit_printer(p, &p->table, &decode, 1);
    f.lines = lines;
    if (first >= 0) {
        emit_line(&f, "const int i%d = (int)(rest %% %d);", first, r->actions[first].grid.n);
        emit_line(&f, "rest /= %d;", r->actions[first].grid.n);
        emit_action_value(&f, first, 'i');
    }
    emit_decode_states(&f, p->pre.states, p->pre.sharded, 0);
    f.b = &body;
    f.ev_path = p->pre.ev; /* the launch gives the expected V with the table */
    emit_level(&f, LVL_KERNEL);
    base_sb_printf(&what, "The continuation table of %s (ir/precompute.h): launch item j, a row and a\n"
                         " * value of the first action it reads, makes its %lld entries from j * %lld on, by the\n"
                         " * code the kernel runs inline.", p->k->symbol, p->pre.item_acts, p->pre.item_acts);
    char pass[16];
    emit_pass_suffix(p, IR_PASS_TABLE, pass, sizeof pass);
    const char *kv[] = {"what", what.s, "symbol", p->k->symbol, "pass", pass, "nx", nx, "decode", emit_fragment(&decode),
                        "body", emit_fragment(&body), "store", "", NULL};
    int rc = gen_fill_template(lcm_embed_table_c_in, kv, out, err);
    base_sb_free(&decode), base_sb_free(&body), base_sb_free(&what);
    return rc;
}

void emit_table_store(emitter *e)
{
    lcm_sb at, code;
    base_sb_init(&at), base_sb_init(&code);
    int first = ir_pre_first_action(&e->p->pre);
    uint64_t inner = e->p->pre.actions & ~(first >= 0 ? (uint64_t)1 << first : 0);
    emit_actions_index(e->r, inner, 'i', &at);
    emit_off_grid_byte(e, &code);
    emit_line(e, "((real *)a->cont)[j * %lld + %s] = E;", e->p->pre.item_acts, at.s);
    emit_line(e, "a->cont_code[j * %lld + %s] = (unsigned char)(%s);", e->p->pre.item_acts, at.s, code.s);
    base_sb_free(&at), base_sb_free(&code);
}

/* One target's part of an expected-V table's entry (nest ev[t] of the
 * plan): for entry j in [off, off + its V's size), the cells of the axes
 * it sums over (ir_pre_ev_axes), then, where the entry is one the kernel
 * reads (index 0 on the axes of one row), each axis's row of weights -- an
 * AR(1) process's matrix row, an IID process's weights, a Markov state's
 * probabilities computed at its source's category -- and the sum. */
static void ev_target_entry(const kernel_plan *p, int lines, int t, long long off, int first, lcm_sb *out)
{
    int g = p->k->targets[t];
    const ir_regime *r = p->r, *tr = &p->m->regimes[g];
    const ir_target *tg = ir_target_of(r, g);
    emitter f = emit_printer(p, &p->ev[t], out, 1);
    f.lines = lines;
    long long *stride = base_xcalloc((size_t)tr->nstates + 1, sizeof *stride), nodes;
    int *axis = base_xcalloc((size_t)tr->nstates + 1, sizeof *axis);
    ir_strides(tr, stride);
    int np = ir_pre_ev_axes(p->m, r, tg, axis, &nodes);
    lcm_sb st, n, one_row, row;
    base_sb_init(&st), base_sb_init(&n), base_sb_init(&one_row), base_sb_init(&row);
    for (int s = 0, i = 0; s < tr->nstates; ++s) {
        if (axis[s] == IR_EV_NONE) continue;
        const ir_next *nx = &tg->next[s];
        const char *sep = i ? ", " : "";
        base_sb_printf(&st, "%s%lld", sep, stride[s]);
        base_sb_printf(&n, "%s%d", sep, tr->states[s].grid.n);
        if (axis[s] == IR_EV_FIXED || (axis[s] == IR_EV_PROCESS && nx->src < 0))
            base_sb_printf(&one_row, "%sc[%d] == 0", one_row.s ? " && " : "", i);
        if (axis[s] == IR_EV_PROCESS && nx->src >= 0)
            base_sb_printf(&row, "%sG + %zu + (lcm_index)c[%d] * %d", sep, p->L->matrix_off[g][s], i, tr->states[s].grid.n);
        else if (axis[s] == IR_EV_PROCESS) base_sb_printf(&row, "%sG + %zu", sep, p->L->matrix_off[g][s]);
        else base_sb_printf(&row, "%swm%d", sep, s);
        ++i;
    }
    emit_open(&f, "%sif (j < %lld) { /* regime '%s' */", first ? "" : "else ", off + ir_state_space_size(tr), tr->name);
    emit_line(&f, "const lcm_index st[%d] = {%s};", np, st.s);
    emit_line(&f, "const int n[%d] = {%s};", np, n.s);
    emit_line(&f, "int c[%d];", np);
    emit_line(&f, "const lcm_index base = lcm_ev_cells(j - %lld, %d, st, n, c);", off, np);
    if (one_row.s) emit_open(&f, "if (%s) { /* one row: the rest is never read */", one_row.s);
    else emit_open(&f, "{");
    for (int s = 0, i = 0; s < tr->nstates; ++s) {
        if (axis[s] == IR_EV_NONE) continue;
        if (axis[s] >= 0) emit_line(&f, "x[%d] = (real)c[%d]; /* %s: the category whose row weights next %s */", axis[s],
                                    i, r->states[axis[s]].name, tr->states[s].name);
        ++i;
    }
    flat_nodes(&f);
    for (int s = 0; s < tr->nstates; ++s) {
        const ir_next *nx = &tg->next[s];
        if (axis[s] == IR_EV_NONE || nx->kind != NEXT_MARKOV) continue;
        emit_start(&f);
        base_sb_printf(f.b, "const real wm%d[%d] = {", s, nx->nprobs);
        for (int k = 0; k < nx->nprobs; ++k) base_sb_printf(f.b, "%s%s", k ? ", " : "", emit_num(&f, nx->probs[k]));
        base_sb_printf(f.b, "}; /* next %s */\n", tr->states[s].name);
    }
    emit_line(&f, "const real *const row[%d] = {%s};", np, row.s);
    emit_line(&f, "E = lcm_expected_v((const real *)a->v_next[%d], base, %d, st, n, row);", g, np);
    emit_close(&f);
    emit_close(&f);
    base_sb_free(&st), base_sb_free(&n), base_sb_free(&one_row), base_sb_free(&row);
    free(stride), free(axis);
}

/* The table entry of a kernel with an expected-V table (ir/precompute.h,
 * "ev"; templates/table.c.in): entry j lies in the expected V of one
 * target (ev_target_entry). */
static int emit_ev_table(const kernel_plan *p, int lines, const char *nx, lcm_sb *out, lcm_err *err)
{
    lcm_sb body, what;
    base_sb_init(&body), base_sb_init(&what);
    base_sb_puts(&body, "    real E = 0;\n");
    for (int t = 0, first = 1; t < p->k->ntargets; ++t) {
        if (!ir_pre_ev_target(&p->pre, t)) continue;
        ev_target_entry(p, lines, t, ir_pre_ev_offset(p->m, p->k, &p->pre, t), first, &body);
        first = 0;
    }
    base_sb_printf(&what, "The expected next V of %s (ir/precompute.h, \"ev\"): entry j\n"
                         " * of the table, the targets' expected V one after another.", p->k->symbol);
    char pass[16];
    emit_pass_suffix(p, IR_PASS_EV, pass, sizeof pass);
    const char *kv[] = {"what", what.s, "symbol", p->k->symbol, "pass", pass, "nx", nx, "decode", "",
                        "body", emit_fragment(&body), "store", "    ((real *)a->ev)[j] = E;", NULL};
    int rc = gen_fill_template(lcm_embed_table_c_in, kv, out, err);
    base_sb_free(&body), base_sb_free(&what);
    return rc;
}

/* The defines that choose kernel.c.in's variant for kernel p: its taste
 * shocks (the discrete choices, and the actions per choice), its action
 * terms, the marginal value it keeps and whether its step takes an EGM
 * action off its grid (gen/emit_egm.c). */
static void kernel_defines(const kernel_plan *p, lcm_sb *out)
{
    const ir_regime *r = p->r;
    int taste = r->taste_scale >= 0;
    base_sb_printf(out, "#define LCM_TASTE_CHOICES %d\n", taste ? ir_taste_choices(r) : 0);
    base_sb_printf(out, "#define LCM_TASTE_INNER %lld\n", taste ? ir_taste_inner(r) : 1);
    base_sb_printf(out, "#define LCM_ACTION_TERMS %d\n", p->body.nat);
    emit_egm_defines(r, out);
}

emitter emit_printer(const kernel_plan *p, const plan_nest *n, lcm_sb *b, int depth)
{
    return (emitter){.m = p->m, .r = &n->view, .k = p->k, .L = p->L, .p = p, .n = n, .names = &p->names,
                     .leaves = LEAVES_KERNEL, .b = b, .depth = depth};
}

/* Kernel k's text; *nterms: its action terms' length (emit.c, "action terms"). */
static int emit_kernel(const ir_model *m, const emit_layouts *lo, const ir_kernel *k, int lines, lcm_sb *out,
                       int *nterms, lcm_err *err)
{
    const ir_regime *r = &m->regimes[k->regime];
    kernel_plan p;
    lcm_sb body, decode, what, state_names, load, state, order, table, at_build, at_kernel, defines, stages;
    base_sb_init(&body), base_sb_init(&decode), base_sb_init(&what), base_sb_init(&state_names), base_sb_init(&load), base_sb_init(&state);
    base_sb_init(&order), base_sb_init(&table), base_sb_init(&at_build), base_sb_init(&at_kernel), base_sb_init(&defines);
    base_sb_init(&stages);
    char nx[32], step[128];
    snprintf(nx, sizeof nx, "%d", r->nstates ? r->nstates : 1);
    gen_step_symbol(m, r->id, step, sizeof step);

    int rc;
    LCM_CHECK_GOTO(gen_plan_kernel(&p, m, lo, k, 1, 1, err), rc, done);
    emitter e = emit_printer(&p, &p.body, &body, 2); /* inside the body's do { } while (0) */
    e.lines = lines;
    if (r->taste_scale >= 0)
        emit_line(&e, "for (int d = 0; d < %d; ++d) vd[d] = -LCM_INF, ad[d] = -1;", ir_taste_choices(r));
    emit_level(&e, LVL_KERNEL);
    if (p.pre.elim.nstages) emit_stage_compose(&e);
    e.b = &decode;
    e.depth = 1;
    state_decode(&e);
    e.b = &load;
    sim_load(&e, &lo->V);
    kernel_periods(m, k, &what);
    emit_state_names(r, &state_names);
    ir_layout_print_state(&p.lay, &state, &order);
    if (p.pre.ev) LCM_CHECK_GOTO(emit_ev_table(&p, lines, nx, &table, err), rc, done);
    if (p.pre.active && p.pre.egm) LCM_CHECK_GOTO(emit_egm_table(&p, lines, nx, &table, err), rc, done);
    else if (p.pre.active) LCM_CHECK_GOTO(emit_table(&p, lines, nx, &table, err), rc, done);
    LCM_CHECK_GOTO(emit_stage_functions(&p, lines, nx, &stages, &table, err), rc, done);
    action_terms_build(&p, lines, &at_build, &at_kernel);
    *nterms = p.body.nat;
    kernel_defines(&p, &defines);
    const char *kv[] = {"symbol", k->symbol, "regime", r->name, "what", what.s, "state_names", state_names.s,
                        "defines", emit_fragment(&defines), "stages", stages.s ? stages.s : "",
                        "body", emit_fragment(&body), "nx", nx,
                        "decode", emit_fragment(&decode), "load", emit_fragment(&load), "step", step,
                        "state_of", state.s, "launch_order", order.s, "table", table.s ? table.s : "",
                        "at_build", at_build.s ? at_build.s : "", "at_kernel", at_kernel.s ? at_kernel.s : "", NULL};
    rc = gen_fill_template(lcm_embed_kernel_c_in, kv, out, err);
done:
    base_sb_free(&body), base_sb_free(&decode), base_sb_free(&what), base_sb_free(&state_names), base_sb_free(&load), base_sb_free(&state);
    base_sb_free(&order), base_sb_free(&table), base_sb_free(&at_build), base_sb_free(&at_kernel), base_sb_free(&defines);
    base_sb_free(&stages);
    gen_plan_free(&p);
    return rc;
}

void gen_emit_prelude(lcm_sb *out)
{
    base_sb_puts(out, lcm_embed_kernel_abi_h);
    base_sb_puts(out, "\n");
    base_sb_puts(out, lcm_embed_prelude_h);
    base_sb_puts(out, "\n");
    base_sb_puts(out, lcm_embed_arith_h);
    base_sb_puts(out, "\n");
    base_sb_puts(out, lcm_embed_random_h);
    base_sb_puts(out, "\n#define LCM_RECORD_REAL real\n#define LCM_RECORD_FN lcm_record_row\n#define LCM_RECORD_KERNEL\n");
    base_sb_puts(out, lcm_embed_sim_record_h);
}

/* The simulation steps of the regimes that have kernels, then the kernels. */
static int emit_regimes(ir_model *m, const lcm_emit_options *opt, lcm_sb *out, lcm_err *err)
{
    emit_layouts lo;
    emit_layouts_build(m, &lo);
    int rc = 0, lines = opt && opt->line_directives;
    for (int r = 0; r < m->nregimes; ++r) {
        int used = 0;
        for (int k = 0; k < m->nkernels; ++k) used |= m->kernels[k].regime == r;
        if (used) LCM_CHECK_GOTO(gen_emit_step(m, &lo.L, &lo.V, r, lines, out, err), rc, done);
    }
    for (int k = 0; k < m->nkernels; ++k)
        LCM_CHECK_GOTO(emit_kernel(m, &lo, &m->kernels[k], lines, out, &m->kernels[k].nterms, err), rc, done);
done:
    emit_layouts_free(&lo);
    return rc;
}

int gen_emit_source(ir_model *m, const lcm_emit_options *opt, lcm_sb *out, lcm_err *err)
{
    lcm_sb src;
    base_sb_init(&src);
    base_sb_printf(&src, "/* Generated by lcmgen from %s (model '%s'). Do not edit. */\n\n",
              emit_base_name(m->file ? m->file : "?"), m->name);
    gen_emit_prelude(&src);
    int rc = emit_regimes(m, opt, &src, err);
    if (!rc && opt && opt->line_directives) emit_line_returns(src.s, out);
    else if (!rc) base_sb_puts(out, src.s);
    base_sb_free(&src);
    return rc;
}

int gen_emit_node_function(const ir_model *m, const ir_regime *r, int node, const char *name,
                           lcm_sb *out, lcm_err *err)
{
    if (node < 0 || node >= (int)r->nnodes) return base_fail(err, LCM_E_INTERNAL, "no node %d", node);
    emit_names names;
    emit_names_build(m, r, &names);
    plan_nest n = {.flat = 1, .needed = base_xcalloc(r->nnodes + 1, 1)}; /* no levels: every node in order */
    plan_mark(r, n.needed, node);
    emitter e = {.m = m, .r = r, .n = &n, .leaves = LEAVES_VECTOR, .names = &names, .b = out, .depth = 1};
    base_sb_printf(out, "LCM_EXTERN real %s(LCM_UNUSED const real *x, LCM_UNUSED const real *P)\n{\n", name);
    for (int i = 0; i <= node; ++i)
        if (n.needed[i]) emit_node_decl(&e, i);
    emit_line(&e, "return %s;", emit_num(&e, node));
    base_sb_puts(out, "}\n");
    free(n.needed);
    emit_names_free(&names);
    return 0;
}
