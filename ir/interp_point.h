/* interp_point.h - one state-action pair evaluated by the IR interpreter:
 * the DAG, feasibility, the continuation E and Q.  Used by the interpreter
 * backend (every pair) and by the diagnosis of failed checks (the pairs of
 * one state).  Shares no code with the emitter or the kernel templates. */
#ifndef LCM_INTERP_POINT_H
#define LCM_INTERP_POINT_H

#include "grid.h"
#include "kernel_abi.h"

/* The states, and the actions, of a point (lcm_point's x and act): the
 * interpreter backend and --targets refuse a regime with more, the
 * diagnosis of a failed check says nothing of it. */
#define IR_POINT_VARS 64

/* Reads V_{t+1} of a regime at a flat index, as a double. */
typedef double (*lcm_vnext_fn)(const void *ctx, int regime, lcm_index i);

typedef struct lcm_point {
    const ir_model *m;
    const ir_kernel *k;
    const ir_regime *r;
    const ir_grid_layout *L;
    const double *G;      /* the grid buffer (ir/grid.h) */
    const double *params; /* the parameter buffer */
    lcm_vnext_fn vnext;
    const void *vnext_ctx;
    double age, period;
    double x[IR_POINT_VARS], act[IR_POINT_VARS]; /* state and action values */
    double *vals;          /* one per DAG node (caller allocates r->nnodes) */
    /* results of ir_point_eval */
    int feasible;
    double E, q;
    int ce_bad; /* Epstein-Zin: the CE has no value (a negative next V, a risk aversion not finite) */
} lcm_point;

/* Sets p->x from a flat state index / p->act from a flat action index. */
void ir_point_state(lcm_point *p, lcm_index s);
void ir_point_action(lcm_point *p, lcm_index a);
/* Evaluates the pair: vals, feasible and (when feasible) E and q (E the
 * certainty equivalent of an Epstein-Zin regime, and ce_bad). */
void ir_point_eval(lcm_point *p);
/* Evaluates vals at the pair without the continuation (E_next_V NaN):
 * what the nodes that do not read it need (ir_point_eval's first step). */
void ir_point_eval_values(lcm_point *p);
/* Expected V of target regime g at the current pair (vals evaluated);
 * *codes_ok is cleared when a deterministic discrete next state is not a code. */
double ir_point_target(const lcm_point *p, int g, int *codes_ok);
/* Visits every next point of target regime g of positive probability w at
 * the current pair (vals evaluated), the value v there interpolated from
 * p->vnext: node(ctx, w, v), in the order of the kernels' continuation
 * loop (ir_point_target sums w * v).  *codes_ok as for ir_point_target. */
typedef void (*ir_node_fn)(void *ctx, double w, double v);
void ir_point_target_visit(const lcm_point *p, int g, ir_node_fn node, void *ctx, int *codes_ok);
/* The smallest V of target regime g read at the pair (a node of positive weight). */
double ir_point_target_min(const lcm_point *p, int g);
const ir_target *ir_find_target(const ir_regime *r, int g);
/* Taste shocks (EV1; the kernels' prelude.h, "taste shocks", written
 * out): each discrete choice's best Q v[d] (-inf: none feasible) and its
 * action a[d], and the scale. */
typedef struct lcm_choices {
    int n;            /* choices; 0: the regime has no taste shocks */
    lcm_index inner;  /* continuous combinations: choice d = action / inner */
    double v[IR_MAX_TASTE_CHOICES], scale;
    lcm_index a[IR_MAX_TASTE_CHOICES];
} lcm_choices;

void ir_choices_reset(lcm_choices *ch, const ir_regime *r);
/* A feasible, non-NaN Q at flat action index ai (the first of equals kept). */
void ir_choices_add(lcm_choices *ch, lcm_index ai, double q);
/* V from the plain max vmax: vmax + scale * log(sum_d exp((v_d - vmax) /
 * scale)); vmax itself without taste shocks, at scale 0 or when vmax is not
 * finite; NaN for a negative or non-finite scale. */
double ir_choices_value(const lcm_choices *ch, double vmax);

/* "consumption=12.5, labor_supply=work" */
void ir_describe_action(const lcm_point *p, lcm_index a, lcm_sb *out);

#endif
