/* ir.h - the model intermediate representation.
 *
 * A model is a set of regimes over a grid of ages.  Each regime carries its
 * state and action variables (each on a grid) and one expression DAG: a flat
 * array of nodes in topological order (a node's arguments have smaller ids).
 * Named roots of that DAG give utility, the constraints, the aggregator Q,
 * the probability of each next regime, and for every target regime the next
 * value of each of its states.  The DAG is produced by tracing the Lua model
 * (gen/dsl), stored in the manifest (manifest.c), compiled by the emitter
 * (gen/emit.c) and evaluated directly by the interpreter (eval.c).
 */
#ifndef LCM_IR_H
#define LCM_IR_H

#include <stddef.h>

#include "base.h"

#define IR_MAX_ARGS 8        /* node arguments; array parameters have <= 7 indices */
#define IR_MAX_REGIMES 64    /* LCM_MAX_REGIMES of templates/kernel_abi.h (_Static_assert in ir/precompute.c) */
/* The members of a uint64_t bit set over a regime's states, actions or
 * constraints, or a kernel's targets (ir_node_masks, ir/precompute.h,
 * ir/eliminate.h): a regime with more states or actions is solved without
 * the plans that read such sets (continuation and stage tables, the
 * expected V of Markov rows), by processes only. */
#define IR_SET_BITS 64

typedef enum ir_type { IR_NUM = 0, IR_BOOL = 1 } ir_type;

#define IR_OPS(X)                                              \
    /* leaves */                                               \
    X(CONST, "const", 0) X(STATE, "state", 0)                   \
    X(ACTION, "action", 0) X(AGE, "age", 0)                     \
    X(PERIOD, "period", 0) X(ENEXT, "enext", 0)                 \
    X(PARAM, "param", 0) X(PIDX, "pidx", -1)                    \
    X(SAVINGS, "egm_savings", 0) X(MARGINAL, "egm_marginal", 0) \
    /* the staged solve's table reads (ir/eliminate.h): never in a manifest */ \
    X(STAGE, "stage", 0) X(STAGE_OK, "stage_ok", 0)             \
    /* unary */                                                \
    X(NEG, "neg", 1) X(NOT, "not", 1) X(LOG, "log", 1)          \
    X(EXP, "exp", 1) X(SQRT, "sqrt", 1) X(ABS, "abs", 1)        \
    X(FLOOR, "floor", 1) X(CEIL, "ceil", 1)                     \
    X(LOG1P, "log1p", 1) X(EXPM1, "expm1", 1)                   \
    X(NCDF, "normal_cdf", 1) X(TANH, "tanh", 1)                 \
    /* binary */                                               \
    X(ADD, "add", 2) X(SUB, "sub", 2) X(MUL, "mul", 2)          \
    X(DIV, "div", 2) X(POW, "pow", 2) X(MOD, "mod", 2)          \
    X(IDIV, "idiv", 2) X(MIN, "min", 2) X(MAX, "max", 2)        \
    X(LT, "lt", 2) X(LE, "le", 2) X(GT, "gt", 2) X(GE, "ge", 2) \
    X(EQ, "eq", 2) X(NE, "ne", 2) X(AND, "and", 2)              \
    X(OR, "or", 2)                                             \
    /* ternary */                                              \
    X(WHERE, "where", 3)

typedef enum ir_op {
#define X(id, name, arity) OP_##id,
    IR_OPS(X)
#undef X
    OP_COUNT
} ir_op;

typedef struct ir_op_info {
    const char *name;
    int arity; /* -1: variable (pidx) */
} ir_op_info;

extern const ir_op_info ir_ops[OP_COUNT];
/* Returns the op with that name, or -1. */
int ir_op_by_name(const char *name);

typedef struct ir_node {
    ir_op op;
    ir_type type;
    int nargs;
    int args[IR_MAX_ARGS]; /* node ids; pidx: index nodes */
    int ref;               /* STATE/ACTION: variable index; PARAM/PIDX: slot; STAGE/STAGE_OK: stage */
    double k;              /* CONST: the value; STAGE/STAGE_OK: the stage's action */
    int src;               /* index into ir_model.src, or -1 */
} ir_node;

/* ---- grids -------------------------------------------------------------- */
typedef enum grid_kind {
    GRID_DISCRETE = 0, /* categorical codes 0..n-1 */
    GRID_LIN,          /* start + i * (stop - start) / (n - 1) */
    GRID_LOG,          /* exp of a linspace in logs; ends exactly start, stop */
    GRID_IRREG,        /* increasing points, fixed in the model or given at run time */
    GRID_PWLIN,        /* adjacent pieces, each a linspace */
    GRID_PWLOG,        /* adjacent pieces, each a logspace */
    GRID_PROCESS,      /* a shock process: points and transitions from its law */
    GRID_AGE           /* one fixed continuous grid per period, all of n points (lcm.by_age) */
} grid_kind;

/* A piece of a piecewise grid: [lo, hi], (lo, hi], ... with n points; an
 * open end stops at the neighbouring double. */
typedef struct ir_piece {
    double lo, hi;
    int lo_closed, hi_closed;
    int n;
} ir_piece;

typedef struct ir_grid {
    grid_kind kind;
    int n;
    double start, stop; /* LIN, LOG */
    double *points;     /* IRREG: n points, or NULL when given at run time */
    int points_slot;    /* IRREG at run time: the parameter slot of the points; else -1 */
    int npieces;        /* PWLIN, PWLOG */
    ir_piece *pieces;
    int process;        /* PROCESS: an ir_process_kind */
    int gauss_hermite;  /* PROCESS: Gauss-Hermite nodes */
    int nslots;         /* PROCESS: parameter slots, in ir_process_params order */
    int *slots;
    char **labels;      /* DISCRETE: n labels */
    char *category;     /* DISCRETE: name of the categorical type, may be NULL */
    int nperiods;       /* AGE: the model's periods */
    struct ir_grid *periods; /* AGE: the grid of each period (LIN, LOG, IRREG with points, PWLIN, PWLOG) */
    int batch_size;     /* splay: 0 = none */
    int distributed;    /* shard: discrete only */
} ir_grid;

const char *ir_grid_kind_name(grid_kind k);
int ir_grid_kind_by_name(const char *name);
static inline int grid_is_discrete(const ir_grid *g) { return g->kind == GRID_DISCRETE; }

typedef struct ir_var {
    char *name;
    ir_grid grid;
} ir_var;

/* ---- regimes ------------------------------------------------------------ */
typedef enum next_kind { NEXT_DET = 0, NEXT_MARKOV = 1, NEXT_PROCESS = 2 } next_kind;

/* How the source regime computes one state of a target regime. */
typedef struct ir_next {
    next_kind kind;
    int node;   /* DET: value node (a code for discrete states) */
    int nprobs; /* MARKOV: one probability node per category of the state */
    int *probs;
    int src;    /* PROCESS: the source's state carrying the current value (AR(1)); -1 for IID */
} ir_next;

typedef struct ir_target {
    int regime;    /* target regime id */
    ir_next *next; /* one per state of the target regime, in its order */
} ir_target;

typedef struct ir_named {
    char *name;
    int node;
} ir_named;

/* The endogenous grid method (solver = lcm.egm, gen/dsl/egm_plan.lua): the
 * liquid state x and the action c paid from it, savings a = R - c on their
 * own grid, and the nodes EGM reads.  The leaves egm_savings (a) and
 * egm_marginal (the right side of the Euler equation) appear only under
 * these roots.
 *
 * A regime that solves by grid search has the same consumption-saving
 * margin where the plan's checks hold (its probe, egm_plan.lua): then
 * `margin` is set and every field but the savings grid is filled (the
 * Euler errors of its solution read them; no kernel does).  ir_has_margin
 * tells either; ir_regime.margin_why says why a regime has none. */
typedef struct ir_egm {
    int margin;        /* a grid-search regime's margin (ir_has_margin); 0 for EGM regimes and those without */
    int state, action; /* the liquid state and the continuous action */
    ir_var savings;    /* the savings grid, its first point the borrowing limit; no points: grid search */
    int resources;     /* node: R, of the states (savings = R - c) */
    int dresources;    /* node: d R / d x; the marginal value of x is marginal(c*) * dresources (envelope) */
    int discount;      /* node: delta of Q = utility + delta * E_next_V */
    int marginal;      /* node: d utility / d c */
    int policy;        /* node: the c whose marginal utility is the leaf egm_marginal */
    int *next, *dnext; /* [target, in r->targets order]: next x of the leaf egm_savings and its
                        * derivative by it; -1 where the target lacks x */
} ir_egm;

typedef struct ir_regime {
    char *name;
    int id;
    int terminal;
    unsigned char *active; /* per period */
    int nstates, nactions;
    ir_var *states;  /* V layout: discrete first, continuous last */
    ir_var *actions; /* action order: discrete first, continuous last */
    size_t nnodes;
    ir_node *nodes;
    int utility; /* node */
    int q;       /* node of the aggregator H (non-terminal) or utility */
    int risk_aversion; /* Epstein-Zin: node of the risk aversion of the certainty
                        * equivalent that E_next_V becomes (docs/model-language.md
                        * section 11); -1: E_next_V is the expectation */
    int nconstraints;
    ir_named *constraints;
    int nfuncs; /* every traced DAG function: simulation targets, reports */
    ir_named *funcs;
    int taste_scale; /* node of the EV1 taste-shock scale over the discrete actions, -1: none */
    int rprob[IR_MAX_REGIMES]; /* node of P(next regime = id), -1 = never */
    int ntargets;
    ir_target *targets;
    ir_egm egm;
    /* a terminal regime an EGM regime moves into keeps the marginal value of
     * that regime's liquid state, its state marginal_state: node `marginal`,
     * d utility / d x (terminal_marginal set).  A terminal regime without
     * actions that only grid-search regimes with a margin move into has the
     * same node for their Euler errors alone (euler_marginal set): no kernel
     * reads it or stores a marginal value (ir_marginal_state is -1), its
     * nodes come after the kernel's (their ids those of the model without
     * it).  At most one of the two flags is set. */
    int terminal_marginal, euler_marginal, marginal_state, marginal;
    /* why a non-terminal regime has no margin (ir_has_margin false): the
     * check of gen/dsl/egm_plan.lua it fails; NULL where it has one, and
     * for terminal regimes */
    char *margin_why;
    /* a grid-search regime's margin: the last margin_nodes of `nodes` are
     * read by its roots only (no kernel reads them: ir/eliminate.c leaves
     * them out of a staged solve's DAG, so its nodes' ids are those of the
     * model without the margin); 0 for all other regimes */
    int margin_nodes;
} ir_regime;

/* ---- parameters --------------------------------------------------------- */
#define IR_MAX_DIMS 7

/* One parameter slot: a name as seen by one function of one regime. */
typedef struct ir_param {
    char *regime, *func, *name;
    int ndims;
    int dims[IR_MAX_DIMS];
    char *dimnames[IR_MAX_DIMS]; /* the variable indexing each dimension */
    size_t size;                 /* product of dims (1 for scalars) */
    size_t offset;               /* into the flat parameter buffer */
    int fixed;                   /* baked into the model: values below */
    double *values;
} ir_param;

/* ---- kernels: one per (regime, period class) ---------------------------- */
typedef struct ir_kernel {
    char *symbol;
    int staged;    /* its actions may be maximised in stages (ir/eliminate.h); 0: LCM_NO_ELIMINATION=1 */
    int regime;
    int ntargets;  /* regimes whose V_{t+1} the kernel reads */
    int *targets;
    int ninactive; /* reachable regimes inactive next period: checked to be 0 */
    int *inactive;
    int last; /* the kernel of a terminal regime (no continuation) */
    int par;  /* the action whose loop GPU threads split (-1: none) */
    int nterms; /* reals of its launch's action terms (gen/emit.c; the GPU's <symbol>_terms fills them),
                 * at most IR_MAX_ACTION_TERMS */
} ir_kernel;

typedef struct ir_option {
    char *name, *value;
} ir_option;

typedef struct ir_model {
    char *name;
    char *file; /* the model file, for messages */
    int noptions;
    ir_option *options;
    int nperiods;
    double *ages;
    int nregimes;
    ir_regime *regimes;
    int nparams;
    ir_param *params;
    size_t params_size; /* doubles in the flat parameter buffer */
    int nsrc;
    char **src; /* "file:line (regime.function)" */
    /* filled by analysis (gen) and stored in the manifest */
    int nkernels;
    ir_kernel *kernels;
    int *period_kernel; /* [regime * nperiods + period] -> kernel or -1 */
    char *source_hash;  /* sha256 of the generated kernel source */
    int sealed;         /* the manifest carried a valid checksum line */
} ir_model;

void ir_model_free(ir_model *m);
/* Infers node types and checks structural sanity (argument ids, arities,
 * references).  Called after reading a manifest. */
int ir_model_check(ir_model *m, lcm_err *err);

int ir_find_regime(const ir_model *m, const char *name);
int ir_find_state(const ir_regime *r, const char *name);
int ir_find_action(const ir_regime *r, const char *name);
/* Number of grid points of the regime's state space (1 without states). */
long long ir_state_space_size(const ir_regime *r);
/* The most DAG nodes of any regime (at least 1): a buffer of values for any regime's point. */
size_t ir_most_nodes(const ir_model *m);
/* How regime r reaches target regime g, or NULL when it cannot. */
const ir_target *ir_target_of(const ir_regime *r, int g);
long long ir_action_space_size(const ir_regime *r);
/* Taste shocks: the number of combinations of the regime's discrete actions
 * (the choices d, 1 without discrete actions), and the number of
 * combinations of its continuous ones.  Actions are ordered discrete first,
 * so the flat action index a is d * ir_taste_inner(r) + (the continuous
 * combination). */
#define IR_MAX_ACTION_TERMS 4096 /* a launch's action terms (gen/emit.c): 32 KiB of a CPU launch's stack */
#define IR_MAX_TASTE_CHOICES 256 /* one Philox block per choice (templates/random.h) */
int ir_taste_choices(const ir_regime *r);
/* The number of discrete actions (those before the first continuous one). */
int ir_discrete_actions(const ir_regime *r);
/* A regime with a margin (EGM or grid search, ir_has_margin): the actions
 * EGM enumerates on their grids, those before its action c, which is the
 * regime's last (ir_model_check): the discrete ones and any continuous ones
 * besides c (nested EGM: the endogenous grid has a row per combination of
 * them).  ir_egm_choices is the number of their combinations, the
 * endogenous grid's choices (1 without); with taste shocks it is
 * ir_taste_choices (gen/dsl/egm_plan.lua refuses taste shocks with a
 * continuous action enumerated).  0 and 1 for a regime without a margin. */
int ir_egm_enumerated(const ir_regime *r);
long long ir_egm_choices(const ir_regime *r);
long long ir_taste_inner(const ir_regime *r);
const char *ir_src(const ir_model *m, int src);
/* Whether regime r solves by the endogenous grid method. */
static inline int ir_is_egm(const ir_regime *r) { return r->egm.savings.grid.n > 0; }
/* Whether regime r has a consumption-saving margin (ir_egm: state, action,
 * resources, dresources, discount, marginal, policy, next/dnext): EGM
 * regimes, and grid-search ones whose functions pass EGM's checks. */
static inline int ir_has_margin(const ir_regime *r) { return ir_is_egm(r) || r->egm.margin; }
/* Whether the terminal regime r has the node `marginal`, d utility / d x of
 * its state marginal_state: kept as its marginal value (terminal_marginal)
 * or for the Euler errors alone (euler_marginal). */
static inline int ir_has_terminal_marginal(const ir_regime *r) { return r->terminal_marginal || r->euler_marginal; }
/* Whether the marginal value of the liquid state, marginal(c*) * dresources,
 * needs the factor: dresources is not the constant 1 (resources = x). */
static inline int ir_margin_scaled(const ir_regime *r)
{
    int d = r->egm.dresources;
    return d >= 0 && !(r->nodes[d].op == OP_CONST && r->nodes[d].k == 1.0);
}
/* The state whose marginal value d V / d x regime r keeps (an EGM regime's
 * liquid state, or a terminal regime's that an EGM regime reads), or -1. */
static inline int ir_marginal_state(const ir_regime *r)
{
    return ir_is_egm(r) ? r->egm.state : r->terminal_marginal ? r->marginal_state : -1;
}

#endif
