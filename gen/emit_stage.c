/* emit_stage.c - the staged solve in the generated kernels (ir/eliminate.h;
 * the plan's stage nests, gen/plan.c).
 *
 * Stage s is a function, <kernel>_stage<s>, that makes one row of its
 * table: for a state (x[], its flat index `point`), the entries of its row
 * -- one per combination of the actions its table keeps, row-major in the
 * regime's order -- each the best over the stage's action of its terms
 * (gv), the action that gives it (ga) and a code byte (gc: whether some
 * action is feasible, and the checks that failed at its feasible pairs,
 * kernel_abi.h).  Its nest loops over the stage's action outside the
 * row's actions, so that what only the stage's action decides is computed
 * once per row and the inner loops run over the row; ties go to the first
 * action (a later one must be larger).
 *
 * The solve makes each stage's table in a pass of its own (one row per
 * launch item, templates/table.c.in), before the kernel, and the body
 * reads its state's row; a simulation, whose subjects sit between the
 * grid's points, has no tables: the body makes its subject's rows with the
 * same functions, and from them composes the whole action at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "emit_internal.h"
#include "template.h"

unsigned emit_stages_read(const emitter *e)
{
    if (e->n->kind == NEST_BODY) return e->p->dag.outer_reads;
    return e->n->kind == NEST_STAGE ? e->p->dag.reads[e->n->stage] : 0;
}

void emit_actions_index(const ir_regime *r, uint64_t actions, char index, lcm_sb *out)
{
    int open = 0;
    for (int j = 0; j < r->nactions; ++j) open += (int)(actions >> j & 1);
    if (!open) {
        base_sb_puts(out, "0");
        return;
    }
    for (int k = 1; k < open; ++k) base_sb_putc(out, '(');
    for (int j = 0, first = 1; j < r->nactions; ++j) {
        if (!(actions >> j & 1)) continue;
        if (first) base_sb_printf(out, "%c%d", index, j);
        else base_sb_printf(out, " * %d + %c%d)", r->actions[j].grid.n, index, j);
        first = 0;
    }
}

void emit_stage_index(const emitter *e, int s, char index, lcm_sb *out)
{
    emit_actions_index(e->r, e->p->pre.elim.stage[s].shape.actions, index, out);
}

/* A table row's entries: its actions' combinations. */
static long long row_entries(const kernel_plan *p, int s) { return p->pre.elim.stage[s].shape.acts; }

/* The arguments a stage's function takes besides its own row: the rows of
 * the stages it reads (param: their declarations; else the names passed). */
static void reads_list(const kernel_plan *p, int s, int param, lcm_sb *out)
{
    for (int r = 0; r < s; ++r)
        if (p->dag.reads[s] >> r & 1) {
            if (param) base_sb_printf(out, ", const real *LCM_RESTRICT gv%d, const unsigned char *LCM_RESTRICT gc%d", r, r);
            else base_sb_printf(out, ", gv%d, gc%d", r, r);
        }
}

void emit_stage_rows(emitter *e)
{
    const kernel_plan *p = e->p;
    const ir_elim *el = &p->pre.elim;
    emit_line(e, "/* the stages' rows of this state (gen/emit_stage.c): the solve's tables', or a subject's own */");
    for (int s = 0; s < el->nstages; ++s) {
        long long n = row_entries(p, s);
        emit_line(e, "real lcm_gv%d[%lld]; /* the best over %s */", s, n, e->r->actions[el->stage[s].action].name);
        emit_line(e, "int lcm_ga%d[%lld];", s, n);
        emit_line(e, "unsigned char lcm_gc%d[%lld];", s, n);
        emit_line(e, "const real *LCM_RESTRICT gv%d = lcm_gv%d;", s, s);
        emit_line(e, "const unsigned char *LCM_RESTRICT gc%d = lcm_gc%d;", s, s);
    }
    emit_open(e, "if (a->stage[0]) {");
    for (int s = 0; s < el->nstages; ++s) {
        if (!(p->dag.outer_reads >> s & 1)) continue;
        const ir_shape *sh = &el->stage[s].shape;
        lcm_sb row;
        base_sb_init(&row);
        emit_row_of(e, sh->states, sh->sharded, &row);
        emit_line(e, "const lcm_index row%d = %s;", s, row.s);
        emit_line(e, "gv%d = (const real *)a->stage[%d] + row%d * %lld;", s, s, s, sh->acts);
        emit_line(e, "gc%d = a->stage_code[%d] + row%d * %lld;", s, s, s, sh->acts);
        base_sb_free(&row);
    }
    emit_else(e);
    for (int s = 0; s < el->nstages; ++s) {
        lcm_sb reads;
        base_sb_init(&reads);
        reads_list(p, s, 0, &reads);
        emit_line(e, "%s_stage%d(a, x, point, lcm_gv%d, lcm_ga%d, lcm_gc%d%s);", p->k->symbol, s, s, s, s,
                  reads.s ? reads.s : "");
        base_sb_free(&reads);
    }
    emit_close(e);
}

void emit_stage_compose(emitter *e)
{
    const ir_regime *r = e->r;
    const plan_nest *n = e->n;
    const ir_elim *el = &e->p->pre.elim;
    emit_open(e, "if (!a->stage[0] && best_a >= 0) { /* the whole action: the loops' here, then each stage's best */");
    if (n->nloops) emit_line(e, "lcm_index rest = best_a;");
    for (int l = n->nloops - 1; l >= 0; --l) {
        int j = n->loop[l];
        emit_line(e, "const int c%d = (int)(rest %% %d); /* %s */", j, r->actions[j].grid.n, r->actions[j].name);
        if (l) emit_line(e, "rest /= %d;", r->actions[j].grid.n);
    }
    for (int s = el->nstages - 1; s >= 0; --s) {
        lcm_sb idx;
        base_sb_init(&idx);
        emit_stage_index(e, s, 'c', &idx);
        emit_line(e, "const int c%d = lcm_ga%d[%s]; /* %s */", el->stage[s].action, s, idx.s,
                  r->actions[el->stage[s].action].name);
        base_sb_free(&idx);
    }
    lcm_sb all;
    base_sb_init(&all);
    emit_actions_index(r, r->nactions >= IR_SET_BITS ? ~(uint64_t)0 : ((uint64_t)1 << r->nactions) - 1, 'c', &all);
    emit_line(e, "best_a = %s;", all.s);
    base_sb_free(&all);
    emit_close(e);
}

void emit_stage_update(emitter *e)
{
    const ir_stage *st = &e->p->pre.elim.stage[e->n->stage];
    lcm_sb idx;
    base_sb_init(&idx);
    emit_stage_index(e, e->n->stage, 'i', &idx);
    emit_open(e, "{");
    emit_line(e, "const lcm_index kc = %s;", idx.s);
    emit_line(e, "unsigned pair_bad = 0;");
    emit_checks(e, "pair_bad");
    emit_line(e, "const real q = %s;", emit_num(e, e->n->q));
    emit_line(e, "const unsigned char code = gc[kc];");
    if (e->staged > 0) { /* the CPU's staged loop: the same, by selects (a loop without branches vectorises) */
        emit_line(e, "const real old = gv[kc];");
        emit_line(e, "const int nan = q != q || old != old, take = !nan && (q > old || !(code & LCM_STAGE_FEASIBLE));");
        emit_line(e, "gv[kc] = feas ? (nan ? LCM_NAN : take ? q : old) : old;");
        emit_line(e, "ga[kc] = feas && take ? i%d : ga[kc];", st->action);
        emit_line(e, "gc[kc] = feas ? (unsigned char)(code | LCM_STAGE_FEASIBLE | LCM_STAGE_CODE(pair_bad)) : code;");
    } else {
        emit_line(e, "gc[kc] = (unsigned char)(code | LCM_STAGE_FEASIBLE | LCM_STAGE_CODE(pair_bad));");
        emit_line(e, "if (q != q || gv[kc] != gv[kc]) gv[kc] = LCM_NAN; /* a NaN stays: the entry's value is NaN */");
        emit_line(e, "else if (q > gv[kc] || !(code & LCM_STAGE_FEASIBLE)) { gv[kc] = q; ga[kc] = i%d; }", st->action);
    }
    emit_close(e);
    base_sb_free(&idx);
}

/* Stage s's function (templates/stage.c.in). */
static int stage_function(const kernel_plan *p, int s, int lines, lcm_sb *out, lcm_err *err)
{
    const ir_regime *r = p->r;
    const ir_stage *st = &p->pre.elim.stage[s];
    lcm_sb body, what, params;
    base_sb_init(&body), base_sb_init(&what), base_sb_init(&params);
    emitter e = emit_printer(p, &p->stage[s], &body, 2);
    e.lines = lines;
    emit_level(&e, LVL_KERNEL);
    char names[160] = "", stage[16], row[32];
    for (int j = 0, at = 0; j < r->nactions; ++j)
        if (st->shape.actions >> j & 1)
            at += snprintf(names + at, sizeof names - (size_t)at, "%s%s", at ? ", " : "", r->actions[j].name);
    base_sb_printf(&what, "Stage %d of %s's staged solve (ir/eliminate.h): the row of the state x of\n"
                         " * its table, for each combination of %s the best over %s.",
                  s, p->k->symbol, *names ? names : "no action", r->actions[st->action].name);
    reads_list(p, s, 1, &params);
    snprintf(stage, sizeof stage, "%d", s);
    snprintf(row, sizeof row, "%lld", row_entries(p, s));
    const char *kv[] = {"what", what.s, "symbol", p->k->symbol, "stage", stage, "row", row,
                        "reads_param", params.s ? params.s : "", "body", emit_fragment(&body), NULL};
    int rc = gen_fill_template(lcm_embed_stage_c_in, kv, out, err);
    base_sb_free(&body), base_sb_free(&what), base_sb_free(&params);
    return rc;
}

/* Stage s's table pass (templates/table.c.in): row j of the launch's
 * table, from the row's states, into its entries. */
static int stage_pass(const kernel_plan *p, int s, const char *nx, lcm_sb *out, lcm_err *err)
{
    const ir_shape *sh = &p->pre.elim.stage[s].shape;
    lcm_sb decode, body, what, reads;
    base_sb_init(&decode), base_sb_init(&body), base_sb_init(&what), base_sb_init(&reads);
    emitter e = emit_printer(p, &p->stage[s], &decode, 1);
    emit_decode_states(&e, sh->states, sh->sharded, 1);
    e.b = &body;
    for (int r = 0; r < s; ++r) { /* the rows of the stages it reads, in their tables */
        if (!(p->dag.reads[s] >> r & 1)) continue;
        const ir_shape *rs = &p->pre.elim.stage[r].shape;
        lcm_sb row;
        base_sb_init(&row);
        emit_row_of(&e, rs->states, rs->sharded, &row);
        emit_line(&e, "const lcm_index row%d = %s;", r, row.s);
        emit_line(&e, "const real *LCM_RESTRICT gv%d = (const real *)a->stage[%d] + row%d * %lld;", r, r, r, rs->acts);
        emit_line(&e, "const unsigned char *LCM_RESTRICT gc%d = a->stage_code[%d] + row%d * %lld;", r, r, r, rs->acts);
        base_sb_free(&row);
    }
    reads_list(p, s, 0, &reads);
    emit_line(&e, "int ga[%lld]; /* the actions that give the best: the solve keeps none */", sh->acts);
    emit_line(&e, "%s_stage%d(a, x, point, (real *)a->stage[%d] + j * %lld, ga, a->stage_code[%d] + j * %lld%s);",
              p->k->symbol, s, s, sh->acts, s, sh->acts, reads.s ? reads.s : "");
    base_sb_printf(&what, "The table of stage %d of %s (ir/eliminate.h): row j of this launch's table.", s,
                  p->k->symbol);
    char pass[16] = "";
    if (ir_pre_stage_pass(&p->pre, s)) snprintf(pass, sizeof pass, "%d", ir_pre_stage_pass(&p->pre, s));
    const char *kv[] = {"what", what.s, "symbol", p->k->symbol, "pass", pass, "nx", nx, "decode", emit_fragment(&decode),
                        "body", emit_fragment(&body), "store", "", NULL};
    int rc = gen_fill_template(lcm_embed_table_c_in, kv, out, err);
    base_sb_free(&decode), base_sb_free(&body), base_sb_free(&what), base_sb_free(&reads);
    return rc;
}

int emit_stage_functions(const kernel_plan *p, int lines, const char *nx, lcm_sb *functions, lcm_sb *passes,
                         lcm_err *err)
{
    int rc = 0;
    for (int s = 0; s < p->pre.elim.nstages && !rc; ++s) {
        rc = stage_function(p, s, lines, functions, err);
        if (!rc) rc = stage_pass(p, s, nx, passes, err);
    }
    return rc;
}
