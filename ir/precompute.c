/* precompute.c - see precompute.h. */
#include "precompute.h"

#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "layout.h"

void ir_node_masks(const ir_regime *r, uint64_t *sm, uint64_t *am)
{
    lcm_assert(r && sm && am);
    lcm_assert(r->nstates <= IR_SET_BITS && r->nactions <= IR_SET_BITS);
    for (size_t i = 0; i < r->nnodes; ++i) {
        const ir_node *n = &r->nodes[i];
        sm[i] = am[i] = 0;
        if (n->op == OP_STATE) sm[i] = (uint64_t)1 << n->ref;
        else if (n->op == OP_ACTION) am[i] = (uint64_t)1 << n->ref;
        for (int a = 0; a < n->nargs; ++a) sm[i] |= sm[n->args[a]], am[i] |= am[n->args[a]];
    }
}

/* A table may hold up to this many entries per state of the regime (or
 * 2^16 in all, for small models): beyond, the memory would outweigh the
 * evaluations it saves.  Each entry replaces as many evaluations of E as
 * the left-out state axes have points times the unread actions' combinations
 * (Mahler & Yum: 8 entries per state, each read by 750 state-action pairs). */
enum { PRE_PER_STATE = 16, PRE_SMALL = 1 << 16 };

long long ir_table_cap(const ir_regime *r)
{
    long long per_state = PRE_PER_STATE * ir_state_space_size(r);
    return per_state > PRE_SMALL ? per_state : PRE_SMALL;
}

void ir_table_shape(const ir_model *m, const ir_shard *S, const ir_regime *r, uint64_t states, uint64_t actions,
                    ir_shape *out)
{
    lcm_assert(m && S && r && out);
    *out = (ir_shape){.states = states, .actions = actions, .rows = 1, .acts = 1};
    int sharded = ir_shard_regime(m, S, r->id);
    long long whole_rows = 1;
    for (int i = 0; i < r->nstates; ++i) {
        const ir_grid *g = &r->states[i].grid;
        if (!(states >> i & 1)) continue;
        whole_rows *= g->n;
        if (sharded && g->distributed) {
            out->sharded = 1;
            continue;
        }
        out->rows *= ir_chunk_width(g);
        out->splayed |= ir_splays(g);
    }
    for (int j = 0; j < r->nactions; ++j)
        if (actions >> j & 1) out->acts *= r->actions[j].grid.n;
    out->whole = whole_rows * out->acts; /* the sharded states' combinations included */
}

void ir_continuation_reads(const ir_model *m, const ir_regime *r, const ir_kernel *kn, const uint64_t *sm,
                           const uint64_t *am, uint64_t *states, uint64_t *actions)
{
    *states = *actions = 0;
    if (r->risk_aversion >= 0) *states |= sm[r->risk_aversion], *actions |= am[r->risk_aversion];
    for (int t = 0; t < kn->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, kn->targets[t]);
        int P = r->rprob[tg->regime];
        *states |= sm[P], *actions |= am[P];
        const ir_regime *tr = &m->regimes[tg->regime];
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (nx->kind == NEXT_DET) *states |= sm[nx->node], *actions |= am[nx->node];
            else if (nx->kind == NEXT_PROCESS && nx->src >= 0) *states |= (uint64_t)1 << nx->src;
            else
                for (int j = 0; nx->kind == NEXT_MARKOV && j < nx->nprobs; ++j)
                    *states |= sm[nx->probs[j]], *actions |= am[nx->probs[j]];
        }
    }
}

uint64_t ir_egm_entry_roots(const ir_model *m, const ir_regime *r, const ir_kernel *kn, void (*root)(void *, int),
                            void *ctx)
{
    lcm_assert(m && r && kn && root && ir_is_egm(r));
    uint64_t direct = 0;
    for (int t = 0; t < kn->ntargets; ++t) {
        const ir_target *tg = ir_target_of(r, kn->targets[t]);
        int ti = (int)(tg - r->targets);
        if (!ir_egm_target(r, ti)) continue;
        const ir_regime *tr = &m->regimes[tg->regime];
        root(ctx, r->rprob[tg->regime]);
        for (int s = 0; s < tr->nstates; ++s) {
            const ir_next *nx = &tg->next[s];
            if (s == ir_marginal_state(tr)) root(ctx, r->egm.next[ti]), root(ctx, r->egm.dnext[ti]);
            else if (nx->kind == NEXT_DET) root(ctx, nx->node);
            else if (nx->kind == NEXT_MARKOV)
                for (int j = 0; j < nx->nprobs; ++j) root(ctx, nx->probs[j]);
            else if (nx->kind == NEXT_PROCESS && nx->src >= 0 && nx->src < IR_SET_BITS)
                direct |= (uint64_t)1 << nx->src;
        }
    }
    root(ctx, r->egm.discount);
    root(ctx, r->egm.policy);
    return direct;
}

typedef struct reads {
    const uint64_t *sm;
    ir_fold *fold; /* else sm */
    uint64_t states;
} reads;

static void read_root(void *ctx, int id)
{
    reads *rd = ctx;
    if (id >= 0) rd->states |= rd->fold ? ir_fold_reads(rd->fold, id) : rd->sm[id];
}

/* The groups of an endogenous grid's choices: one per combination of the
 * discrete actions, or one for all beyond IR_EGM_GROUPS of them. */
static int group_count(const ir_regime *r)
{
    long long combos = ir_taste_choices(r);
    return combos <= IR_EGM_GROUPS ? (int)combos : 1;
}

/* egm_plan's egm_shared: for each combination of the discrete actions,
 * the row states that neither its entry's roots nor the constraints it
 * tests read (sharded: the states no worker may leave to another). */
static void egm_share(const ir_model *m, const ir_kernel *kn, const ir_regime *r, uint64_t sharded, ir_pre *p)
{
    if (p->egm_groups != ir_taste_choices(r) || r->nconstraints > IR_SET_BITS) return; /* no group per combination */
    for (int dc = 0; dc < p->egm_groups; ++dc) {
        ir_fold fold;
        ir_fold_init(&fold, m, r, dc, ir_discrete_actions(r));
        reads rd = {NULL, &fold, 0};
        rd.states |= ir_egm_entry_roots(m, r, kn, read_root, &rd);
        for (int c = 0; c < r->nconstraints; ++c)
            if (p->egm_tests >> c & 1) read_root(&rd, r->constraints[c].node);
        ir_fold_free(&fold);
        p->egm_shared[dc] = p->states & ~rd.states & ~sharded;
    }
}

/* The most choices whose constraints the plan folds, one by one
 * (egm_kept): beyond, every choice of a group keeps its entries. */
#define EGM_FOLDED_CHOICES 65536

/* egm_plan's egm_kept of group g: 1 + the last of its choices that no
 * constraint its entries test rules out in every precision (ir/fold.h);
 * the constraints that rule out the others into egm_cuts. */
static long long egm_kept(const ir_model *m, const ir_regime *r, ir_pre *p, int g)
{
    long long inner = p->egm_inner;
    if (!p->egm_tests || ir_egm_choices(r) > EGM_FOLDED_CHOICES || r->nstates > IR_SET_BITS) return inner;
    for (long long ic = inner - 1; ic >= 0; --ic) {
        ir_fold fold;
        ir_fold_init(&fold, m, r, g * inner + ic, ir_egm_enumerated(r));
        uint64_t cuts = 0;
        for (int c = 0; c < r->nconstraints && !cuts; ++c)
            if ((p->egm_tests >> c & 1) && ir_fold_false(&fold, r->constraints[c].node)) cuts = (uint64_t)1 << c;
        ir_fold_free(&fold);
        if (!cuts) return ic + 1;
        p->egm_cuts |= cuts;
    }
    return 0;
}

/* egm_plan's groups: the curves (a row and a choice, J entries) each
 * group makes, from egm_first on: its kept choices, each over the points of
 * its row states but the shared ones. */
static void egm_curves(const ir_model *m, const ir_regime *r, ir_pre *p)
{
    long long curves = 0;
    for (int g = 0; g < p->egm_groups; ++g) {
        long long rows = 1;
        for (int s = 0; s < r->nstates; ++s)
            if (ir_pre_egm_row_state(p, s) && !(s < IR_SET_BITS && (p->egm_shared[g] >> s & 1))) rows *= r->states[s].grid.n;
        p->egm_rows[g] = rows;
        p->egm_kept[g] = egm_kept(m, r, p, g);
        p->egm_first[g] = curves;
        curves += p->egm_kept[g] * rows;
    }
    p->rows = curves;
}

/* An EGM kernel's endogenous grid: when one of its targets carries the
 * liquid state (else only the corner of the budget is a candidate).  Its
 * rows are the states the entry reads (and the sharded ones: a worker
 * makes its block's rows), the others left out: the shocks that only
 * this period's resources read (durables.lua: the transitory income xi)
 * would multiply the rows and not change an entry. */
static void egm_plan(const ir_model *m, const ir_kernel *kn, const ir_regime *r, ir_pre *p)
{
    int any = 0;
    for (int t = 0; t < kn->ntargets; ++t)
        for (int i = 0; i < r->ntargets; ++i) any |= r->targets[i].regime == kn->targets[t] && ir_egm_target(r, i);
    if (!any) return;
    p->active = p->egm = 1;
    p->reals = 2;
    p->egm_groups = group_count(r);
    p->egm_inner = ir_egm_choices(r) / p->egm_groups;
    p->states = ~(uint64_t)0; /* beyond the masks: every state */
    if (r->nstates <= IR_SET_BITS && r->nactions <= IR_SET_BITS) {
        uint64_t *sm = base_xcalloc(r->nnodes + 1, sizeof *sm), *am = base_xcalloc(r->nnodes + 1, sizeof *am);
        ir_node_masks(r, sm, am);
        reads rd = {sm, NULL, 0};
        uint64_t direct = ir_egm_entry_roots(m, r, kn, read_root, &rd), discrete = 0, sharded = 0;
        rd.states |= direct;
        for (int s = 0; s < r->nstates; ++s) {
            if (r->states[s].grid.distributed) sharded |= (uint64_t)1 << s;
            if (grid_is_discrete(&r->states[s].grid)) discrete |= (uint64_t)1 << s;
        }
        rd.states |= sharded;
        p->states = rd.states & ~((uint64_t)1 << r->egm.state);
        /* the constraints its entries test: of its discrete row states only (a
         * state between two rows of a continuous one blends them, and the
         * constraint can hold at the state and fail at a row it reads) */
        for (int c = 0; r->nconstraints <= IR_SET_BITS && c < r->nconstraints; ++c) {
            int id = r->constraints[c].node;
            if (!(sm[id] & ~(p->states & discrete)) && !(am[id] >> r->egm.action & 1)) p->egm_tests |= (uint64_t)1 << c;
        }
        free(sm), free(am);
        egm_share(m, kn, r, sharded, p);
    } else if (r->egm.state < IR_SET_BITS) {
        p->states &= ~((uint64_t)1 << r->egm.state);
    }
    egm_curves(m, r, p);
    int J = r->egm.savings.grid.n;
    p->acts = J;
    p->blocks = p->rows * LCM_EGM_BLOCKS(J);
}

/* ir_pre_ev_axes for one state, before sources are shared out (sm, am:
 * node_masks of r). */
static int ev_axis(const ir_model *m, const ir_regime *r, const ir_target *tg, int s, const uint64_t *sm,
                   const uint64_t *am)
{
    const ir_next *nx = &tg->next[s];
    if (nx->kind == NEXT_PROCESS) return IR_EV_PROCESS;
    if (nx->kind != NEXT_MARKOV) return IR_EV_NONE;
    uint64_t states = 0, actions = 0;
    for (int j = 0; j < nx->nprobs; ++j) states |= sm[nx->probs[j]], actions |= am[nx->probs[j]];
    if (actions || (states & (states - 1))) return IR_EV_NONE; /* an action, or two states */
    if (!states) return IR_EV_FIXED;
    int src = 0;
    while (!(states >> src & 1)) ++src;
    const ir_grid *g = &r->states[src].grid;
    return grid_is_discrete(g) && g->n == nx->nprobs && nx->nprobs == m->regimes[tg->regime].states[s].grid.n
               ? src : IR_EV_NONE;
}

int ir_pre_ev_axes(const ir_model *m, const ir_regime *r, const ir_target *tg, int *axis, long long *nodes)
{
    lcm_assert(m && r && tg && axis && nodes);
    lcm_assert(tg->regime >= 0 && tg->regime < m->nregimes);
    const ir_regime *tr = &m->regimes[tg->regime];
    int wide = r->nstates > IR_SET_BITS || r->nactions > IR_SET_BITS; /* beyond the masks: processes only */
    uint64_t *sm = base_xcalloc(r->nnodes + 1, sizeof *sm), *am = base_xcalloc(r->nnodes + 1, sizeof *am);
    if (!wide) ir_node_masks(r, sm, am);
    uint64_t sources = 0; /* the Markov states' sources so far */
    int axes = 0;
    *nodes = 1;
    for (int s = 0; s < tr->nstates; ++s) {
        axis[s] = ev_axis(m, r, tg, s, sm, am);
        if (wide && axis[s] != IR_EV_PROCESS) axis[s] = IR_EV_NONE;
        if (axis[s] >= 0 && (sources >> axis[s] & 1)) axis[s] = IR_EV_NONE; /* one row per source */
        if (axis[s] == IR_EV_NONE) continue;
        if (axis[s] >= 0) sources |= (uint64_t)1 << axis[s];
        ++axes;
        *nodes *= tr->states[s].grid.n;
    }
    free(sm), free(am);
    return axes;
}

/* The expected next V (ev) of each target whose shock processes and
 * Markov states of matrix rows (ir_pre_ev_axes) have 2 or more nodes in
 * all (the continuation then reads one row where it summed over them),
 * when the table stays as small as a continuation table must (at most
 * PRE_PER_STATE entries per state of the regime, or PRE_SMALL in all: a
 * regime of few states that moves to a large one keeps summing inline).
 * Not for Epstein-Zin regimes (their certainty equivalent is not linear in
 * V), nor beyond LCM_EV_AXES such axes in one target (prelude.h,
 * lcm_expected_v). */
_Static_assert(IR_MAX_REGIMES == LCM_MAX_REGIMES, "the IR's regimes are the kernels' (kernel_abi.h: v_next[], m_next[])");
_Static_assert(IR_SET_BITS == 8 * sizeof(uint64_t), "a bit set is a uint64_t");
_Static_assert(IR_MAX_REGIMES <= IR_SET_BITS, "a kernel's targets fit a bit set (ev_targets)");

static void ev_plan(const ir_model *m, const ir_kernel *kn, const ir_regime *r, ir_pre *p)
{
    long long entries = 0;
    uint64_t targets = 0;
    for (int t = 0; t < kn->ntargets && t < IR_SET_BITS; ++t) {
        const ir_target *tg = ir_target_of(r, kn->targets[t]);
        const ir_regime *tr = &m->regimes[tg->regime];
        int *axis = base_xcalloc((size_t)tr->nstates + 1, sizeof *axis);
        long long nodes;
        int axes = ir_pre_ev_axes(m, r, tg, axis, &nodes);
        free(axis);
        if (!axes || axes > LCM_EV_AXES || nodes < 2) continue;
        targets |= (uint64_t)1 << t;
        entries += ir_state_space_size(tr);
    }
    if (!targets || (entries > PRE_SMALL && entries > PRE_PER_STATE * ir_state_space_size(r))) return;
    p->ev = 1; /* its entries read V_{t+1} only: no state, chunk or block of the regime */
    p->ev_targets = targets;
    p->ev_entries = entries;
}

/* The continuation table (and the expected V under it, or alone) of a
 * kernel that is neither an EGM regime's nor the last. */
static void table_plan(const ir_model *m, const ir_shard *S, const ir_kernel *kn, const ir_regime *r, ir_pre *p)
{
    uint64_t *sm = base_xcalloc(r->nnodes + 1, sizeof *sm), *am = base_xcalloc(r->nnodes + 1, sizeof *am), states,
             actions;
    ir_node_masks(r, sm, am);
    ir_continuation_reads(m, r, kn, sm, am, &states, &actions);
    free(sm), free(am);
    ir_shape sh;
    ir_table_shape(m, S, r, states, actions, &sh);
    p->states = sh.states, p->actions = sh.actions, p->sharded = sh.sharded, p->splayed = sh.splayed;
    p->rows = sh.rows, p->acts = sh.acts;
    int first = ir_pre_first_action(p);
    p->item_acts = first >= 0 ? sh.acts / r->actions[first].grid.n : 1;
    long long combos = sh.sharded ? S->combos : 1, entries = combos * sh.rows * sh.acts, cap = ir_table_cap(r);
    /* worth it: the continuation is evaluated per state (it reads something),
     * a state axis of 2 or more points is left out, and the table is small
     * (splay makes it smaller: a chunk's rows) */
    long long skipped = 1;
    for (int i = 0; i < r->nstates; ++i)
        if (!(states >> i & 1)) skipped *= r->states[i].grid.n;
    int useful = (states || actions) && skipped >= 2;
    p->active = useful && entries <= cap;
    /* The expected V: under the continuation table when it costs less than
     * one more pass over the table (its entries then read one row where
     * they summed the nodes), and where the table would not be taken
     * without splay in its place.  Either choice reads the table's whole
     * size, not a chunk's: the expected V rounds differently, and splay is
     * value-identical. */
    int whole_active = useful && sh.whole <= cap;
    if (r->risk_aversion >= 0) return;
    ir_pre ev = {0};
    ev_plan(m, kn, r, &ev);
    if (!ev.ev) return;
    if (whole_active && ev.ev_entries > sh.whole) return;
    if (!whole_active) { /* the expected V alone: the body reads it, no continuation table */
        memset(p, 0, sizeof *p);
        p->reals = 1;
    }
    p->ev = 1, p->ev_targets = ev.ev_targets, p->ev_entries = ev.ev_entries;
}

int ir_pre_plan(const ir_model *m, const ir_shard *S, int k, ir_pre *p)
{
    lcm_assert(m && S && p);
    lcm_assert(k >= 0 && k < m->nkernels);
    memset(p, 0, sizeof *p);
    p->reals = 1;
    const ir_kernel *kn = &m->kernels[k];
    const ir_regime *r = &m->regimes[kn->regime];
    if (ir_is_egm(r)) {
        if (kn->last) return 0;
        egm_plan(m, kn, r, p);
        /* the kernel's exact Q at each candidate reads the expected V (the
         * endogenous grid reads the marginal values, inverted before they
         * are summed: no expectation of them is linear) */
        if (r->risk_aversion < 0 && r->nstates <= IR_SET_BITS && r->nactions <= IR_SET_BITS) ev_plan(m, kn, r, p);
        return 0;
    }
    if (r->nstates > IR_SET_BITS || r->nactions > IR_SET_BITS) return 0;
    if (!kn->last && kn->ntargets) table_plan(m, S, kn, r, p);
    return 1;
}

long long ir_pre_ev_offset(const ir_model *m, const ir_kernel *kn, const ir_pre *p, int t)
{
    lcm_assert(m && kn && p);
    lcm_assert(t >= 0 && t <= kn->ntargets);
    long long off = 0;
    for (int i = 0; i < t; ++i)
        if (ir_pre_ev_target(p, i)) off += ir_state_space_size(&m->regimes[kn->targets[i]]);
    return off;
}

long long ir_pre_entries(const ir_pre *p, long long combos)
{
    return p->active ? (p->sharded ? combos : 1) * p->rows * p->acts : 0;
}

long long ir_pre_reals(const ir_pre *p, long long combos)
{
    return ir_pre_entries(p, combos) * p->reals + 2 * p->blocks;
}

int ir_pre_sim_reads_ev(const ir_pre *p, long long subjects)
{
    return p->ev && (p->egm || (double)subjects * p->elim.subject >= (double)p->ev_entries);
}

int ir_pre_first_action(const ir_pre *p)
{
    for (int j = 0; j < IR_SET_BITS; ++j)
        if (p->actions >> j & 1) return j;
    return -1;
}

int ir_pre_passes(const ir_pre *p) { return ir_pre_stage_pass(p, p->elim.nstages); }

ir_pass ir_pre_pass(const ir_pre *p, int i)
{
    lcm_assert(p && i >= 0 && i < ir_pre_passes(p));
    if (p->ev && i-- == 0) return IR_PASS_EV;
    if (p->active && i-- == 0) return IR_PASS_TABLE;
    if (p->egm && i-- == 0) return IR_PASS_EGM_BOUNDS;
    return IR_PASS_STAGE;
}

int ir_pre_pass_stage(const ir_pre *p, int i) { return i - ir_pre_stage_pass(p, 0); }

long long ir_pre_launch(const ir_pre *p, int i, long long combos)
{
    switch (ir_pre_pass(p, i)) {
    case IR_PASS_EV: return p->ev_entries;
    case IR_PASS_TABLE: { /* a launch item per row and value of the first action read, but EGM's per entry */
        long long entries = ir_pre_entries(p, combos);
        return p->egm ? entries : entries / p->item_acts;
    }
    case IR_PASS_EGM_BOUNDS: return p->blocks;
    default: { /* a stage: a launch item per row */
        const ir_shape *sh = &p->elim.stage[ir_pre_pass_stage(p, i)].shape;
        return (sh->sharded ? combos : 1) * sh->rows;
    }
    }
}

int ir_pre_per_chunk(const ir_pre *p, int i)
{
    switch (ir_pre_pass(p, i)) {
    case IR_PASS_EV: return 0;
    case IR_PASS_STAGE: return p->elim.stage[ir_pre_pass_stage(p, i)].shape.splayed;
    default: return p->splayed;
    }
}
