/* plan.h - the kernel plan (design section 14, "the plan is data"): what
 * each piece of a kernel's generated code computes and where, decided once
 * by gen_plan_kernel before anything is printed.  The printers (emit*.c)
 * and the cost model (cost.c) only read it.
 *
 * A kernel is printed as nests.  A nest is a loop nest over some of the
 * regime's actions (its loops, outermost first) in which every DAG node is
 * computed at the outermost loop where all it reads is known, its level:
 *
 *     LVL_KERNEL    once per call (parameters, age, period),
 *     LVL_STATE     once per state (or per entry of a table),
 *     LVL_ACTION0+p inside the nest's p-th loop.
 *
 * The kernel body is the nest of every action in the regime's order
 * (grid search; an EGM regime's continuous action runs over its
 * candidates), or with a staged solve (ir/eliminate.h) the nest of the
 * actions the stages leave, each stage a nest of its own: its action's loop
 * around its table row's actions.  Around them: the launch's action terms
 * (a loop per action over the terms only one action decides), and the
 * entries of the kernel's tables (ir/precompute.h), flat nests whose nodes
 * all sit at one level (-1): the continuation table's entry, the expected
 * V of each target, an EGM regime's endogenous grid.
 *
 * Each nest sees the regime as its own view: the kernel's nodes (with a
 * staged solve the stages' appended), its objective as Q, its constraints
 * (a stage's own, the rest for the body, and the feasibility of the stages
 * it reads).
 */
#ifndef LCM_PLAN_H
#define LCM_PLAN_H

#include "grid.h"
#include "ir.h"
#include "eliminate.h"
#include "layout.h"
#include "precompute.h"
#include "vars.h"

/* Loop levels (above). */
enum { LVL_KERNEL = 0, LVL_STATE = 1, LVL_ACTION0 = 2 };

/* The C text of each node of a regime: its name (`v12`, or after what it
 * reads: `s_wealth`, `a_consumption`, `p_wage_health`, `period`, ...) and
 * its use as a number and as a condition (a cast or a comparison added). */
typedef struct emit_names {
    char **name, **num, **cond;
    size_t n;
} emit_names;
void emit_names_build(const ir_model *m, const ir_regime *r, emit_names *out);
void emit_names_free(emit_names *n);

/* What every kernel of a model is planned against: the grid buffer's
 * layout, the variables and the sharding (emit_layouts_free releases it). */
typedef struct emit_layouts {
    ir_grid_layout L;
    ir_vars V;
    ir_shard S;
} emit_layouts;
void emit_layouts_build(const ir_model *m, emit_layouts *out);
void emit_layouts_free(emit_layouts *l);

typedef enum plan_nest_kind {
    NEST_BODY,  /* the kernel body */
    NEST_STAGE, /* a stage of the staged solve: a row of its table */
    NEST_TERMS, /* the launch's action terms (plan_terms.c) */
    NEST_TABLE, /* the continuation table's entry */
    NEST_EV,    /* a target's expected V in the expected-V table */
    NEST_EGM    /* an EGM regime's endogenous grid */
} plan_nest_kind;

typedef struct plan_nest {
    plan_nest_kind kind;
    ir_regime view;     /* the regime as the nest sees it (above) */
    int stage;          /* NEST_STAGE: which stage */
    int flat;           /* a table's entry: every node at level -1, no loops */
    int cont;           /* it computes the continuation (its objective reads E_next_V, or the body's checks) */
    int nloops;
    int *loop;          /* [nloops]: the action of each loop, outermost first */
    int *action_level;  /* [nactions]: the level of each action's loop, -1 where it has none */
    int q;              /* the node it maximises (-1: none, a flat nest); view.q */
    int *lvl;           /* [nnodes]: each node's level */
    char *needed;       /* [nnodes]: the nodes the nest computes (or reads, below) */
    const char *has_enext; /* [nnodes]: the node reads E_next_V (the body's array) */
    int innermost;      /* the level of the innermost loop (LVL_STATE without loops) */
    int e_level;        /* where the continuation is known */
    int rp_level;       /* where the regime probabilities are all known (their check is hoisted there) */
    /* the body's terms (NULL elsewhere): read from the launch's action
     * terms, hoisted into arrays, or left to the table (plan_terms.c,
     * plan.c) */
    char *root;       /* the nodes the kernel uses: Q, utility, constraints, continuation */
    char *tabled;     /* a term read from lcm_at[at_off[id] + i<action>] */
    char *terms_only; /* a node only a tabled term reads: computed where lcm_at is filled */
    int *at_off;
    int nat;          /* lcm_at's length */
    char *next_only;  /* with a table: a node only next states need, which the staged loop leaves out */
    char *hoisted;    /* a term built into lcm_h<id>[] at hoist_level[id] on the CPU */
    char *hoist_only; /* a node of an action loop that only hoisted terms of that loop read */
    int *hoist_level;
    char *best_only;  /* an EGM body's (without taste shocks): a node of the innermost loop that only the
                       * best update reads (the marginal value), computed there, when a candidate is the best */
} plan_nest;

/* The action of loop level `level` of nest n, and the level of action j. */
static inline int plan_loop_action(const plan_nest *n, int level) { return n->loop[level - LVL_ACTION0]; }
static inline int plan_action_level(const plan_nest *n, int j) { return n->action_level[j]; }

typedef struct kernel_plan {
    const ir_model *m;
    const ir_regime *r;  /* the kernel's regime: its nodes, with a staged solve the stages' appended */
    const ir_kernel *k;
    const ir_grid_layout *L;
    const ir_vars *V;
    const ir_shard *S;
    ir_state_layout lay; /* the regime's strides, chunks and launch map (ir/layout.h) */
    emit_names names;
    ir_pre pre;          /* its tables (ir/precompute.h) and its staged solve (pre.elim, ir/eliminate.h) */
    ir_elim_dag dag;     /* the staged solve's DAG */
    ir_regime staged;    /* the regime with it (r then points here) */
    char *has_enext;     /* [nnodes]: the node reads E_next_V */
    int tables, host;    /* what it was planned for (gen_plan_kernel) */
    plan_nest body;
    plan_nest stage[LCM_MAX_STAGES]; /* pre.elim.nstages */
    plan_nest terms;     /* body.nat > 0 */
    plan_nest table;     /* pre.active, neither EGM nor expected V */
    plan_nest *ev;       /* [k->ntargets]: pre.ev, for each target read from it */
    plan_nest egm;       /* pre.egm */
} kernel_plan;

/* The plan of kernel k.  With tables 0 the plan has no table but an EGM
 * regime's (the cost of a solve under LCM_NO_TABLES=1); with host 0 no
 * hoisted terms (the cost of the GPU's kernel, which computes them in
 * place).  Emission asks for both: its kernels read a table only when the
 * solve gives one and fence what only the CPU hoists.  gen_plan_free
 * releases what it made, also after a failure. */
int gen_plan_kernel(kernel_plan *p, const ir_model *m, const emit_layouts *lo, const ir_kernel *k, int tables,
                    int host, lcm_err *err);
void gen_plan_free(kernel_plan *p);

/* How each kernel of a planned model solves, a line per kernel: its
 * staged solve (the actions maximised first, their tables' entries, the
 * evaluations a period), or grid search and, where an action would have
 * saved work, why not staged (lcmgen --plan, bench_solve). */
void gen_plan_describe(const ir_model *m, lcm_sb *out);

/* Marks node id of regime r and everything it depends on in needed. */
void plan_mark(const ir_regime *r, char *needed, int id);

/* Level at which the continuation of target tg can be computed in nest n
 * (for an Epstein-Zin regime no higher than the risk aversion, which
 * transforms V; -1 in a flat nest). */
int plan_target_level(const kernel_plan *p, const plan_nest *n, const ir_target *tg);
/* Where the next-state weights of a target's state are known in nest n:
 * its Markov probabilities' level, or the current state's (an AR(1) row). */
int plan_weights_level(const plan_nest *n, const ir_next *nx);

/* ---- the body's terms (plan_terms.c) ---- */
/* Whether parameter read id (OP_PIDX) is in range at every value of its actions. */
int plan_pidx_in_range(const kernel_plan *p, int id);
/* The action terms and the hoisted terms of the body, and the nest that
 * fills the action terms. */
void plan_action_terms(kernel_plan *p);
void plan_hoisted_terms(kernel_plan *p);
/* Marks in body (r->nnodes + 1 bytes) node id the body computes or reads,
 * not looking past a tabled or hoisted term. */
void plan_mark_body(const kernel_plan *p, char *body, int id);

#endif
