/* plan_terms.c - the body's terms that are not computed where they are
 * used (plan.h): the launch's action terms and the CPU's hoisted terms. */
#include <stdlib.h>
#include <string.h>

#include "emit_internal.h" /* emit_costly_op */
#include "plan.h"

/* ---- action terms ---------------------------------------------------------
 * A term that only one action's value decides, log(consumption) say, is the
 * same at every state: a simulation of a million subjects computed it for
 * each subject and action.  The launch computes it once per action into
 * lcm_at and the body's loops read it (a load the staged loop can
 * vectorise), the same expression on the same operands: the same bits.  On
 * the CPU lcm_at is on the launch's stack (action_terms_build); on the GPU
 * it is a buffer of the backend that the kernel <symbol>_terms fills before
 * each launch (kernel_abi.h, lcm_kernel_args.terms; its length is the
 * kernel's `terms` in the manifest).  Only terms with a call or a division
 * in them are worth a load; none that reads a parameter at an index that
 * may be out of range (the table covers infeasible actions too), but one
 * at the action's own code (Mahler & Yum's effort_grid[effort] ^ power,
 * a call per state and effort before: plan_pidx_in_range). */

/* Whether parameter read id (OP_PIDX) is in range at every value of its
 * actions, so that a table of action terms may compute it at actions the
 * constraints rule out: each index a discrete action, whose every code is
 * an index (the DSL sizes the dimension by its categories), the period, or
 * a constant in range.  A state's code is not taken (no action term reads
 * a state, and a simulated subject's code may have left its grid after a
 * failed check). */
int plan_pidx_in_range(const kernel_plan *p, int id)
{
    const ir_node *n = &p->r->nodes[id];
    const ir_param *par = &p->m->params[n->ref];
    for (int d = 0; d < n->nargs; ++d) {
        const ir_node *x = &p->r->nodes[n->args[d]];
        int ok = x->op == OP_ACTION ? grid_is_discrete(&p->r->actions[x->ref].grid) &&
                                          p->r->actions[x->ref].grid.n <= par->dims[d]
                 : x->op == OP_PERIOD ? p->m->nperiods <= par->dims[d]
                 : x->op == OP_CONST && x->k >= 0 && x->k < par->dims[d] && x->k == (double)(int)x->k;
        if (!ok) return 0;
    }
    return 1;
}

void plan_mark_body(const kernel_plan *p, char *body, int id)
{
    const plan_nest *n = &p->body;
    if (id < 0 || body[id]) return;
    body[id] = 1;
    if (n->tabled[id] || n->hoisted[id]) return; /* read from lcm_at, or its lcm_h */
    for (int a = 0; a < p->r->nodes[id].nargs; ++a) plan_mark_body(p, body, p->r->nodes[id].args[a]);
}

void plan_action_terms(kernel_plan *p)
{
    const ir_regime *r = p->r;
    plan_nest *e = &p->body;
    size_t n = r->nnodes;
    /* act[i]: the one action node i depends on (-1: none); -2: a state, a
     * second action, E_next_V or an index that may be out of range, so not
     * a term */
    int *act = base_xcalloc(n + 1, sizeof *act);
    char *costly = base_xcalloc(n + 1, 1), *outside = base_xcalloc(n + 1, 1), *body = base_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; ++i) {
        const ir_node *nd = &r->nodes[i];
        switch (nd->op) {
        case OP_STATE: case OP_ENEXT: case OP_STAGE: case OP_STAGE_OK: act[i] = -2; break; /* a stage's: by state */
        case OP_ACTION: act[i] = ir_is_egm(r) && nd->ref == r->egm.action ? -2 : nd->ref; break; /* EGM's: off its grid */
        default:
            act[i] = nd->op == OP_PIDX && !plan_pidx_in_range(p, (int)i) ? -2 : -1;
            for (int a = 0; a < nd->nargs && act[i] != -2; ++a) {
                int x = act[nd->args[a]];
                if (x == -2 || (x >= 0 && act[i] >= 0 && x != act[i])) act[i] = -2;
                else if (x >= 0 && act[i] != -2) act[i] = x;
                costly[i] |= costly[nd->args[a]];
            }
        }
        if (act[i] >= 0 && emit_costly_op(nd->op)) costly[i] = 1;
        if (act[i] < 0) costly[i] = 0; /* a state's term, or one of the launch, is computed where it is */
    }
    for (size_t i = 0; i < n; ++i) /* a term some other node reads (a condition is computed where it is used) */
        for (int a = 0; e->needed[i] && a < r->nodes[i].nargs; ++a)
            if (act[i] < 0 || r->nodes[i].type == IR_BOOL) outside[r->nodes[i].args[a]] = 1;
    for (size_t i = 0; i < n; ++i) {
        /* a condition is not tabled: it is a predicate where it is used (the staged loop's feas &=) */
        if (!e->needed[i] || act[i] < 0 || !costly[i] || !(outside[i] || e->root[i]) || r->nodes[i].type == IR_BOOL)
            continue;
        int len = r->actions[act[i]].grid.n;
        if (e->nat + len > IR_MAX_ACTION_TERMS) continue;
        e->tabled[i] = 1;
        e->at_off[i] = e->nat;
        e->nat += len;
    }
    for (size_t i = 0; i < n; ++i)
        if (e->root[i]) plan_mark_body(p, body, (int)i);
    for (size_t i = 0; i < n; ++i) e->terms_only[i] = e->needed[i] && !body[i];
    free(act), free(costly), free(outside), free(body);
    /* the nest that fills lcm_at: the tabled terms, at the body's levels */
    plan_nest *t = &p->terms;
    *t = (plan_nest){.kind = NEST_TERMS, .view = e->view, .q = e->q, .innermost = e->innermost, .e_level = e->e_level,
                     .rp_level = e->rp_level, .has_enext = e->has_enext};
    t->view.constraints = NULL, t->view.nconstraints = 0; /* the body's own */
    t->lvl = base_xmalloc((n + 1) * sizeof *t->lvl);
    memcpy(t->lvl, e->lvl, n * sizeof *t->lvl);
    t->needed = base_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; ++i)
        if (e->tabled[i]) plan_mark(r, t->needed, (int)i);
}

/* ---- hoisted terms ----------------------------------------------------------
 * A term of an action loop that the loops between it and its inputs leave
 * unchanged -- Mahler & Yum's consumption utility, which reads the state,
 * labor supply and saving but not the effort looped between them; their
 * health logit, which reads the state and effort but not the labor supply
 * looped outside effort -- was computed once per pass of those loops: the
 * utility's division once per effort level, the logit's exp once per labor
 * supply.  On the CPU it is computed into lcm_h<id>[], one value per point
 * of its own action (its home: the level the term is at), where its inputs
 * are known (hoist_level: the labor loop for the utility, the state for the
 * logit), and its loop reads it: the same expression on the same operands,
 * so the same bits.  The GPU, whose lanes split the innermost loop,
 * computes it in place as before.  A term qualifies when it is costly (a
 * division, power or call in what it computes), reads no indexed parameter
 * at its home that may be out of range (plan_pidx_in_range: the building
 * loop computes actions the constraints rule out), nothing of E_next_V, and
 * only where at least two iterations of the loops between share it.  The
 * loop that builds it stops where a cap of its home action known there
 * (saving <= cash on hand) ends the home loop. */
enum { HOIST_MAX = 4096 }; /* reals of lcm_h buffers in one body: 32 KiB of its stack in float64 */

/* Of a node of an action loop: whether it can be computed before the loops
 * between it and its inputs (ok), whether what it computes there is costly,
 * and the innermost level of those inputs outside its own. */
typedef struct hoist_info {
    char ok, costly;
    int level;
} hoist_info;

static hoist_info *hoist_infos(const kernel_plan *p)
{
    const ir_regime *r = p->r;
    const plan_nest *e = &p->body;
    hoist_info *h = base_xcalloc(r->nnodes + 1, sizeof *h);
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *nd = &r->nodes[i];
        int home = e->lvl[i];
        if (home < LVL_ACTION0) continue;
        h[i].level = LVL_KERNEL;
        if (e->tabled[i] || nd->op == OP_ACTION) { /* lcm_at's, or the home's action (the only one of its level) */
            h[i].ok = 1;
            continue;
        }
        /* a stage's table read depends on the state: it stays where it is */
        if ((nd->op == OP_PIDX && !plan_pidx_in_range(p, (int)i)) || e->has_enext[i] || nd->op == OP_STAGE ||
            nd->op == OP_STAGE_OK)
            continue;
        h[i].ok = 1;
        h[i].costly = (char)emit_costly_op(nd->op);
        for (int a = 0; a < nd->nargs; ++a) {
            int x = nd->args[a];
            if (e->lvl[x] != home) {
                h[i].level = h[i].level > e->lvl[x] ? h[i].level : e->lvl[x];
                continue;
            }
            h[i].ok &= h[x].ok;
            h[i].level = h[i].level > h[x].level ? h[i].level : h[x].level;
            h[i].costly |= h[x].costly && !e->tabled[x];
        }
    }
    return h;
}

/* How many times the loops between level `level` and loop level `home`
 * run per iteration of `level`: how often a term hoisted to it is shared. */
static double hoist_gain(const plan_nest *e, const ir_regime *r, int level, int home)
{
    double g = 1;
    for (int l = level < LVL_ACTION0 ? LVL_ACTION0 : level + 1; l < home; ++l)
        g *= r->actions[plan_loop_action(e, l)].grid.n;
    return g;
}

void plan_hoisted_terms(kernel_plan *p)
{
    const ir_regime *r = p->r;
    plan_nest *e = &p->body;
    if (!p->host || ir_is_egm(r) || r->nactions < 2) return;
    size_t n = r->nnodes;
    int used = 0;
    hoist_info *h = hoist_infos(p);
    char *outside = base_xcalloc(n + 1, 1); /* read where the body computes its reader */
    for (size_t i = n; i-- > 0;) { /* readers first: arguments have lower ids */
        if (!e->needed[i] || e->terms_only[i]) continue;
        const ir_node *nd = &r->nodes[i];
        int home = e->lvl[i], read = e->root[i] || outside[i];
        if (home < LVL_ACTION0) {
            /* a state's or the launch's node: computed where it is */
        } else if (read && h[i].ok && h[i].costly && !e->tabled[i] && nd->type != IR_BOOL &&
                   hoist_gain(e, r, h[i].level, home) >= 2 &&
                   used + r->actions[plan_loop_action(e, home)].grid.n <= HOIST_MAX) {
            e->hoisted[i] = 1;
            e->hoist_level[i] = h[i].level;
            used += r->actions[plan_loop_action(e, home)].grid.n;
        } else if (!read) {
            e->hoist_only[i] = 1; /* only hoisted terms read it */
        }
        if (e->tabled[i]) continue; /* its arguments are read where lcm_at is filled */
        /* a hoisted term's arguments at its home are computed where it is
         * built; those outside it are read there, declared where they are */
        int built = e->hoisted[i] || e->hoist_only[i];
        for (int a = 0; a < nd->nargs; ++a)
            if (!built || e->lvl[nd->args[a]] != home) outside[nd->args[a]] = 1;
    }
    free(h), free(outside);
}
