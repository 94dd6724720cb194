/* eliminate.h - the staged solve of a kernel: max-sum variable elimination
 * on the factor graph of Q (design section 14, "Variable elimination";
 * docs/internals.md, "The staged solve").
 *
 * Q of a kernel is a sum of terms: its DAG through ADD, SUB and NEG down to
 * the first node that is none of them.  Each term reads some states and
 * actions; E_next_V reads what the continuation reads (the regime
 * probabilities, the next states and their weights).  An action j that
 * only some terms and constraints read is maximised out first, over the
 * states and the other actions those read (the stage's scope):
 *
 *     G_j(scope) = max over j feasible of B_j(scope, j),
 *
 * B_j the terms that read j, into a table over the scope, and Q becomes the
 * other terms plus G_j, maximised over the remaining actions (bucket
 * elimination).  It is exact: max over (a, j) of A(a) + B(a, j) is max over
 * a of A(a) + max over j of B(a, j) where the constraints that read j read
 * the scope only, and they go with it; a pair of the remaining actions is
 * feasible when its other constraints hold and some j is feasible with it.
 * Ties go to the first pair of the remaining actions (row-major), then to
 * the first j; NaN and the checks of B's feasible pairs reach the pairs
 * that read them (LCM_STAGE_CODE).  The sum is associated differently from
 * grid search's, so V agrees with it to rounding.
 *
 * Stages follow one another (two eliminations in sequence): a later
 * stage's terms may include an earlier stage's G, whose scope it then
 * covers, and whose feasibility it takes as a constraint.  A stage is
 * taken, greedily, where it makes the kernel's cost a period (states
 * times the remaining actions' combinations, plus each stage's table
 * entries times its action's points, eight times that where a row has
 * fewer entries than a vector's lanes: eliminate.c, stage_cost) at most
 * half of what it was without it, its table stays as small as a continuation table must
 * (ir_table_cap) and a table row stays small enough for a simulated subject
 * to keep (LCM_STAGE_ROW_MAX): a simulation, whose subjects sit between
 * grid points, makes its subject's rows of each stage itself.  The sizes
 * weighed are the whole tables', so no choice depends on splay or the
 * devices.  Not where taste shocks smooth the maximum over the discrete
 * choices, nor for Epstein-Zin preferences, nor for an EGM regime (its
 * own solver): those solve by grid search, and the plan says why.
 */
#ifndef LCM_ELIMINATE_H
#define LCM_ELIMINATE_H

#include "precompute.h"

/* A stage's table row (its actions' combinations) a simulated subject keeps on its stack. */
#define LCM_STAGE_ROW_MAX 4096

/* What the generator builds of a staged solve: the regime's DAG with the
 * stages' nodes appended -- each stage's objective B, the leaves that read
 * its table (OP_STAGE, its value; OP_STAGE_OK, whether some action of the
 * entry is feasible) and the outer loops' Q -- and which stages each
 * objective reads (bit r: stage r's G is one of its terms). */
typedef struct ir_elim_dag {
    ir_node *nodes;
    size_t nnodes;
    int root[LCM_MAX_STAGES], value[LCM_MAX_STAGES], feasible[LCM_MAX_STAGES];
    unsigned reads[LCM_MAX_STAGES]; /* the stages stage s reads */
    int q;
    unsigned outer_reads;           /* the stages the outer loops read */
} ir_elim_dag;

/* The staged solve of kernel kn (none: out->nstages 0, out->why saying
 * why where an action would have saved work), and with dag the DAG it
 * solves (ir_elim_dag_free releases it). */
void ir_elim_plan(const ir_model *m, const ir_shard *S, const ir_kernel *kn, ir_elim *out, ir_elim_dag *dag);
void ir_elim_dag_free(ir_elim_dag *d);
/* The whole plan of kernel k: its tables (ir_pre_plan) and its stages. */
void ir_elim_plan_kernel(const ir_model *m, const ir_shard *S, int k, ir_pre *p);

#endif
