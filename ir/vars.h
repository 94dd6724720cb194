/* vars.h - the model's variables across regimes, for simulation.
 *
 * A simulated subject moves between regimes that have different states and
 * actions; a variable is identified by its name (`wealth` in `working` and
 * `retired` is one variable).  Each distinct state name gets a slot, in
 * order of first appearance over the regimes (then the states of each
 * regime in their order); likewise actions.  A subject's state is one row
 * of `nstates` values by slot (NaN where its regime lacks the variable);
 * the generated simulation kernels use the same numbering, so the runtime
 * and the kernels agree by construction.
 */
#ifndef LCM_VARS_H
#define LCM_VARS_H

#include "ir.h"

typedef struct ir_vars {
    int nstates, nactions;
    const char **state_names;             /* [nstates], borrowed from the model */
    const char **action_names;            /* [nactions] */
    int *state_slot[IR_MAX_REGIMES];      /* [regime][state of the regime] -> slot */
    int *action_slot[IR_MAX_REGIMES];     /* [regime][action of the regime] -> slot */
    const ir_grid **state_grid;           /* [nstates]: the grid of its first regime */
    const ir_grid **action_grid;          /* [nactions] */
} ir_vars;

void ir_vars_build(const ir_model *m, ir_vars *v);
void ir_vars_free(ir_vars *v);
/* Slot of a state / action name, or -1. */
int ir_vars_state(const ir_vars *v, const char *name);
int ir_vars_action(const ir_vars *v, const char *name);

#endif
