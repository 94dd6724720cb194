/* emit_egm.c - the endogenous grid method in the generated kernels (ir.h,
 * ir_egm; the table's layout in ir/precompute.h; the model's side in
 * gen/dsl/egm_plan.lua).
 *
 * Two pieces per kernel of an EGM regime.  The table entry computes, for a
 * row of the states the entry reads (never the liquid one x:
 * ir_pre_egm_row_state), a combination d of the actions it enumerates (the
 * discrete ones, and with nested EGM the continuous ones besides c, on
 * their grids: ir_egm_enumerated) and a savings point a_j, the action c_j
 * at which a_j is optimal:
 * the Euler equation
 *
 *     u_c(c) = delta * sum_g P_g * dx'_g/da * E[ M_{t+1,g}(x'_g(a_j), z') ]
 *
 * inverted in closed form (egm.policy), M the marginal value of x of the
 * targets carrying it, interpolated as V is; and R_j = a_j + c_j, the
 * resources at which c_j is optimal (NaN where the right side has no
 * positive value: no interior optimum there).  The kernel then takes at each
 * state and choice the candidates the grid offers at the state's resources
 * r: the corner c = r - a_0 (savings at the borrowing limit) and every
 * segment [R_j, R_{j+1}] that covers r, c interpolated.  Each is judged by
 * the exact Q of grid search, so where the grid bends back (a future
 * discrete choice makes the value non-concave) the best of the segments is
 * DC-EGM's upper envelope, and V is Q at the best.  With it the kernel
 * keeps the action and its marginal utility, d V / d x by the envelope
 * theorem, which the table of the period before reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "emit_internal.h"
#include "template.h"

/* The continuous states of the table's rows (ir_pre_egm_row_state: never
 * the liquid one): their count, and their indices into `out` (at most
 * IR_SET_BITS: a regime of more has no EGM plan; gen/dsl/egm_plan.lua
 * allows 6). */
static int other_continuous(const emitter *e, int *out)
{
    const ir_regime *r = e->r;
    int n = 0;
    for (int s = 0; s < r->nstates; ++s)
        if (ir_pre_egm_row_state(&e->p->pre, s) && !grid_is_discrete(&r->states[s].grid)) {
            lcm_assert(n < IR_SET_BITS);
            out[n++] = s;
        }
    return n;
}

/* The table's entries: curves x savings points (ir/precompute.h). */
static long long table_entries(const emitter *e) { return e->p->pre.rows * e->p->pre.acts; }

/* The distinct non-empty sets of shared row states of the plan's groups
 * (ir_pre.egm_shared) into sets[], their count returned; set_of[g]: group
 * g's set, -1 for none. */
static int shared_sets(const emitter *e, uint64_t *sets, int *set_of)
{
    const ir_pre *p = &e->p->pre;
    int n = 0;
    for (int g = 0; g < p->egm_groups; ++g) {
        set_of[g] = -1;
        if (!p->egm_shared[g]) continue;
        for (int i = 0; i < n && set_of[g] < 0; ++i)
            if (sets[i] == p->egm_shared[g]) set_of[g] = i;
        if (set_of[g] < 0) sets[n] = p->egm_shared[g], set_of[g] = n++;
    }
    return n;
}

/* The groups whose entries share the points of state s (their rows leave
 * it out): the condition on the group's index `g`, "" for none. */
static void shared_condition(const emitter *e, int s, const char *g, lcm_sb *b)
{
    const ir_pre *p = &e->p->pre;
    for (int c = 0; c < p->egm_groups; ++c)
        if (s < IR_SET_BITS && (p->egm_shared[c] >> s & 1)) base_sb_printf(b, "%s%s == %d", b->len ? " || " : "", g, c);
}

/* A value of each group, vals[g], chosen by the group's index `g`. */
static void group_select(const emitter *e, const long long *vals, const char *g, lcm_sb *b)
{
    int last = e->p->pre.egm_groups - 1;
    for (int c = 0; c < last; ++c)
        if (vals[c] != vals[last]) base_sb_printf(b, "%s == %d ? (lcm_index)%lld : ", g, c, vals[c]);
    base_sb_printf(b, "(lcm_index)%lld", vals[last]);
}

void emit_egm_rows(emitter *e)
{
    const ir_regime *r = e->r;
    if (!e->p->pre.egm) return; /* no target carries the liquid state: only the corner */
    int cont[IR_SET_BITS], nc = other_continuous(e, cont), corners = 1 << nc;
    emit_line(e, "/* the endogenous grid's rows of this state: the states its entries read, each continuous one between "
                 "its two nearest points */");
    emit_line(e, "const real *LCM_RESTRICT egm_T = (const real *)a->cont;");
    emit_line(e, "lcm_index egm_at[%d];", corners);
    emit_line(e, "real egm_w[%d];", corners);
    emit_line(e, "int egm_n = 0; /* the corners of non-zero weight, first in egm_at and egm_w */");
    uint64_t sets[IR_EGM_GROUPS];
    int set_of[IR_EGM_GROUPS], nsets = shared_sets(e, sets, set_of);
    for (int i = 0; i < nsets; ++i) /* shared points read as point 0 */
        emit_line(e, "lcm_index egm_at%d[%d]; /* the rows of the groups that share points (ir_pre.egm_shared) */", i, corners);
    emit_open(e, "{");
    for (int k = 0; k < nc; ++k) {
        char pts[96];
        emit_state_points(e, e->r->id, cont[k], "a->period", pts, sizeof pts);
        emit_line(e, "const int ec%d = lcm_cell_search(x[%d], %s, %d);", cont[k], cont[k], pts, r->states[cont[k]].grid.n);
        emit_line(e, "const real et%d = lcm_frac(x[%d], %s, ec%d);", cont[k], cont[k], pts, cont[k]);
    }
    emit_open(e, "for (int k = 0; k < %d; ++k) {", corners);
    emit_line(e, "lcm_index row = 0;");
    for (int i = 0; i < nsets; ++i) emit_line(e, "lcm_index row%d = 0;", i);
    emit_line(e, "real w = 1;");
    for (int s = 0, bit = 0; s < r->nstates; ++s) {
        const ir_var *v = &r->states[s];
        if (!ir_pre_egm_row_state(&e->p->pre, s)) continue;
        emit_open(e, "{ /* %s */", v->name);
        if (grid_is_discrete(&v->grid)) {
            emit_line(e, "const lcm_index at = (lcm_index)x[%d];", s);
        } else {
            emit_line(e, "const int up = k >> %d & 1;", bit++);
            emit_line(e, "const lcm_index at = ec%d + up;", s);
            emit_line(e, "w *= up ? et%d : (real)1 - et%d;", s, s);
        }
        emit_line(e, "row = row * %d + at;", v->grid.n);
        for (int i = 0; i < nsets; ++i) /* a shared state is not an axis of the rows */
            if (!(s < IR_SET_BITS && (sets[i] >> s & 1))) emit_line(e, "row%d = row%d * %d + at;", i, i, v->grid.n);
        emit_close(e);
    }
    emit_open(e, "if (w != 0) { /* a corner of weight 0 adds nothing: kept out of every search */");
    emit_line(e, "egm_at[egm_n] = row;");
    for (int i = 0; i < nsets; ++i) emit_line(e, "egm_at%d[egm_n] = row%d;", i, i);
    emit_line(e, "egm_w[egm_n++] = w;");
    emit_close(e);
    emit_close(e);
    emit_close(e);
}

void emit_egm_choice(emitter *e)
{
    const ir_regime *r = e->r;
    const ir_pre *p = &e->p->pre;
    if (!p->egm) return;
    /* the choice: the combination of the enumerated actions, which come first
     * (ai<nd-1> counts them in the loops around the candidates'); its group
     * and its index there pick its curves (ir/precompute.h) */
    int cont[IR_SET_BITS], corners = 1 << other_continuous(e, cont), nd = ir_egm_enumerated(r);
    char d[32] = "0";
    if (nd) snprintf(d, sizeof d, "ai%d", nd - 1);
    emit_line(e, "LCM_UNUSED const lcm_index egm_g = %s / %lld, egm_i = %s %% %lld; /* its group, and its index there */",
              d, p->egm_inner, d, p->egm_inner);
    uint64_t sets[IR_EGM_GROUPS];
    int set_of[IR_EGM_GROUPS];
    shared_sets(e, sets, set_of);
    lcm_sb rows, first, per, kept;
    base_sb_init(&rows), base_sb_init(&first), base_sb_init(&per), base_sb_init(&kept);
    for (int g = 0; g < p->egm_groups; ++g)
        if (set_of[g] >= 0) base_sb_printf(&rows, "egm_g == %d ? egm_at%d : ", g, set_of[g]);
    base_sb_puts(&rows, "egm_at");
    group_select(e, p->egm_first, "egm_g", &first);
    group_select(e, p->egm_rows, "egm_g", &per);
    group_select(e, p->egm_kept, "egm_g", &kept);
    emit_line(e, "const lcm_index *LCM_RESTRICT egm_rows = %s;", rows.s);
    emit_line(e, "lcm_index egm_off[%d]; /* the curves of this choice */", corners);
    emit_line(e, "const lcm_index egm_curve = (%s) + egm_i * (%s);", first.s, per.s);
    emit_line(e, "const int egm_live = egm_i < (%s) ? egm_n : 0; /* a choice a constraint rules out has none: the corner "
                 "alone */", kept.s);
    emit_line(e, "for (int k = 0; k < egm_live; ++k) egm_off[k] = (egm_curve + egm_rows[k]) * %d;", r->egm.savings.grid.n);
    base_sb_free(&rows), base_sb_free(&first), base_sb_free(&per), base_sb_free(&kept);
}

void emit_egm_candidates(emitter *e, int j)
{
    const ir_regime *r = e->r;
    int J = e->p->pre.egm ? r->egm.savings.grid.n : 1;
    char next[512]; /* lcm_egm_next(..., i<j>, &act<j>) after its `i` argument */
    if (e->p->pre.egm)
        snprintf(next, sizeof next, "lcm_egm_next(egm_T, %lld, egm_off, egm_w, egm_live, %d, %s, G[%zu], ", table_entries(e),
                 J, emit_num(e, r->egm.resources), e->L->savings_off[r->id][0]);
    else /* no target carries the liquid state: the corner alone */
        snprintf(next, sizeof next, "lcm_egm_next((const real *)0, 0, (const lcm_index *)0, (const real *)0, 0, %d, %s, "
                 "G[%zu], ", J, emit_num(e, r->egm.resources), e->L->savings_off[r->id][0]);
    emit_line(e, "real act%d; /* action %s: the budget's corner, then the endogenous grid's segments at the resources */",
              j, r->actions[j].name);
    emit_open(e, "for (int i%d = %s-2, &act%d); i%d < %d; i%d = %si%d, &act%d)) {", j, next, j, j, J - 1, j, next, j, j);
}

void emit_egm_defines(const ir_regime *r, lcm_sb *out)
{
    int keeps = ir_marginal_state(r) >= 0, taste = r->taste_scale >= 0;
    /* egm_best: the best action and its marginal utility; with taste
     * shocks then each choice's action and marginal utility */
    base_sb_printf(out, "#define LCM_MARGINAL %d\n", keeps ? (taste ? 2 + 2 * ir_taste_choices(r) : 2) : 0);
    base_sb_printf(out, "#define LCM_EGM_ACTION %d\n", ir_is_egm(r)); /* a terminal regime's: no step takes an action */
}

/* An entry the kernel never reads: NaN (no segment), and the entry ends. */
static void empty_entry(const emitter *f, lcm_sb *b)
{
    base_sb_printf(b, "((real *)a->cont)[j] = ((real *)a->cont)[%lld + j] = LCM_NAN; return;", table_entries(f));
}

/* Entry j -> savings point egm_j, the curve's group egm_g, the
 * enumerated actions act<k> (discrete, and continuous ones besides the EGM
 * action: ir_egm_enumerated), the rows' states x[] (ir_pre_egm_row_state,
 * the shared ones at point 0; the layout of ir/precompute.h), and the
 * savings. */
static void table_decode(emitter *f)
{
    const ir_regime *r = f->r;
    const ir_pre *p = &f->p->pre;
    int J = r->egm.savings.grid.n, nd = ir_egm_enumerated(r);
    emit_line(f, "const int egm_j = (int)(rest %% %d);", J);
    emit_line(f, "rest /= %d; /* the curve */", J);
    emit_line(f, "LCM_UNUSED int egm_g = 0; /* its group */");
    for (int g = 1; g < p->egm_groups; ++g)
        if (p->egm_first[g] < p->rows) emit_line(f, "if (rest >= %lld) egm_g = %d;", p->egm_first[g], g);
    lcm_sb first, per;
    base_sb_init(&first), base_sb_init(&per);
    group_select(f, p->egm_first, "egm_g", &first);
    group_select(f, p->egm_rows, "egm_g", &per);
    emit_line(f, "rest -= %s;", first.s);
    emit_line(f, "const lcm_index egm_per = %s;", per.s);
    emit_line(f, "LCM_UNUSED lcm_index egm_row = rest %% egm_per; /* the row */");
    emit_line(f, "rest = egm_g * %lld + rest / egm_per; /* the choice */", p->egm_inner);
    base_sb_free(&first), base_sb_free(&per);
    for (int j = nd - 1; j >= 0; --j) {
        emit_line(f, "const int i%d = (int)(rest %% %d);", j, r->actions[j].grid.n);
        emit_line(f, "rest /= %d;", r->actions[j].grid.n);
        emit_action_value(f, j, 'i');
    }
    for (int s = r->nstates - 1; s >= 0; --s) {
        if (!ir_pre_egm_row_state(p, s)) continue;
        const ir_grid *g = &r->states[s].grid;
        lcm_sb cond;
        base_sb_init(&cond);
        shared_condition(f, s, "egm_g", &cond);
        if (cond.len) emit_line(f, "const int egm_c%d = %s ? 0 : (int)(egm_row %% %d); /* %s: shared, point 0 */", s, cond.s,
                                g->n, r->states[s].name);
        else emit_line(f, "const int egm_c%d = (int)(egm_row %% %d); /* %s */", s, g->n, r->states[s].name);
        if (cond.len) emit_line(f, "if (!(%s)) egm_row /= %d;", cond.s, g->n);
        else emit_line(f, "egm_row /= %d;", g->n);
        base_sb_free(&cond);
        if (grid_is_discrete(g)) {
            emit_line(f, "x[%d] = (real)egm_c%d;", s, s);
        } else {
            char pts[96];
            emit_state_points(f, r->id, s, "a->period", pts, sizeof pts);
            emit_line(f, "x[%d] = (%s)[egm_c%d];", s, pts, s);
        }
    }
    emit_line(f, "const real egm_savings = G[%zu + egm_j]; /* savings */", f->L->savings_off[r->id][0]);
    if (!(&f->p->lay)->sharded) return;
    /* a sharded regime: this worker makes the rows of its block only, as
     * its V_{t+1} and marginal values hold that block alone; the others'
     * entries are NaN (no segment), which its states never read */
    lcm_sb combo;
    base_sb_init(&combo);
    ir_layout_print_combo((&f->p->lay), "x", &combo);
    emit_line(f, "const lcm_index combo = %s; /* the sharded states' combined index */", combo.s);
    base_sb_free(&combo);
    emit_open(f, "if (combo < a->shard_lo || combo >= a->shard_hi) {");
    emit_start(f);
    empty_entry(f, f->b);
    base_sb_putc(f->b, '\n');
    emit_close(f);
}

/* The entry's nodes that read the Euler equation's right side (the leaf
 * egm_marginal): marked in `after`, declared once it is known. */
static void declare(emitter *f, const char *after, int later)
{
    for (size_t i = 0; i < f->r->nnodes; ++i)
        if (f->n->needed[i] && after[i] == later) emit_node_decl(f, (int)i);
}

int emit_egm_table(const kernel_plan *p, int lines, const char *nx, lcm_sb *out, lcm_err *err)
{
    const ir_regime *r = p->r;
    lcm_sb decode, body, store, what;
    base_sb_init(&decode), base_sb_init(&body), base_sb_init(&store), base_sb_init(&what);
    emitter f = emit_printer(p, &p->egm, &decode, 1);
    f.lines = lines;
    char *after = base_xcalloc(r->nnodes + 1, 1);
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        after[i] = n->op == OP_MARGINAL;
        for (int a = 0; a < n->nargs; ++a) after[i] |= after[n->args[a]];
    }
    if (r->nstates <= IR_SET_BITS && r->nactions <= IR_SET_BITS) { /* the entry reads its rows' states only */
        uint64_t *sm = base_xcalloc(r->nnodes + 1, sizeof *sm), *am = base_xcalloc(r->nnodes + 1, sizeof *am);
        ir_node_masks(r, sm, am);
        for (size_t i = 0; i < r->nnodes; ++i) lcm_assert(!f.n->needed[i] || !(sm[i] & ~p->pre.states));
        free(sm), free(am);
    }
    table_decode(&f);
    f.b = &body;
    declare(&f, after, 0);
    uint64_t tested = p->pre.egm_tests;
    for (int c = 0; c < r->nconstraints; ++c) {
        if (!(tested >> c & 1)) continue;
        emit_open(&f, "if (!%s) { /* constraint %s rules the choice out: the kernel never reads the entry */",
                  emit_cond(&f, r->constraints[c].node), r->constraints[c].name);
        emit_start(&f);
        empty_entry(&f, f.b);
        base_sb_putc(f.b, '\n');
        emit_close(&f);
    }
    emit_stochastic_weights(&f, -1);
    for (int t = 0; t < f.k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, f.k->targets[t]);
        if (!ir_egm_target(r, (int)(tg - r->targets))) continue;
        emit_target_block(&f, tg, -1); /* a code off the grid is the kernel's to flag, at the exact Q */
    }
    emit_line(&f, "real EM = 0; /* the expected marginal value of savings */");
    for (int t = 0; t < f.k->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, f.k->targets[t]);
        int ti = (int)(tg - r->targets), P = r->rprob[tg->regime];
        if (!ir_egm_target(r, ti)) continue;
        emit_line(&f, "if (%s != 0) EM += %s * (%s * E%d);", emit_name(&f, P), emit_num(&f, P),
                  emit_num(&f, r->egm.dnext[ti]), tg->regime);
    }
    emit_line(&f, "const real egm_rhs = %s * EM; /* the Euler equation's right side */", emit_num(&f, r->egm.discount));
    declare(&f, after, 1);
    emit_line(&f, "real egm_C = %s, egm_R = egm_savings + egm_C; /* the action, and the resources where it is optimal */",
              emit_num(&f, r->egm.policy));
    emit_line(&f, "if (!(egm_rhs > 0) || !(egm_C > 0) || !(egm_R - egm_R == 0)) egm_C = egm_R = LCM_NAN; /* no interior "
                  "optimum */");
    base_sb_puts(&store, "    real *LCM_RESTRICT T = (real *)a->cont;\n    T[j] = egm_R;\n");
    base_sb_printf(&store, "    T[%lld + j] = egm_C;", table_entries(&f));
    base_sb_printf(&what, "The endogenous grid of %s (the endogenous grid method, ir/precompute.h): entry\n"
                         " * j = curve * %d + savings point, a curve for each row and choice it may read, the\n"
                         " * resources R (T[j]) and the action C (T[%lld + j]) at which that saving is optimal,\n"
                         " * from the Euler equation.",
                  f.k->symbol, r->egm.savings.grid.n, table_entries(&f));
    char pass[16], bounds[16];
    emit_pass_suffix(p, IR_PASS_TABLE, pass, sizeof pass);
    emit_pass_suffix(p, IR_PASS_EGM_BOUNDS, bounds, sizeof bounds);
    const char *kv[] = {"what", what.s, "symbol", f.k->symbol, "pass", pass, "nx", nx, "decode", emit_fragment(&decode),
                        "body", emit_fragment(&body), "store", store.s, NULL};
    int rc = gen_fill_template(lcm_embed_table_c_in, kv, out, err);
    /* the second pass: the blocks' bounds */
    char n[32], points[32], per_row[32];
    int J = r->egm.savings.grid.n;
    snprintf(n, sizeof n, "%lld", table_entries(&f));
    snprintf(points, sizeof points, "%d", J);
    snprintf(per_row, sizeof per_row, "%d", LCM_EGM_BLOCKS(J));
    const char *kv1[] = {"symbol", f.k->symbol, "pass", bounds, "n", n, "points", points, "per_row", per_row, NULL};
    if (!rc) rc = gen_fill_template(lcm_embed_egm_bounds_c_in, kv1, out, err);
    base_sb_free(&decode), base_sb_free(&body), base_sb_free(&store), base_sb_free(&what);
    free(after);
    return rc;
}
