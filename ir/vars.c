/* vars.c - see vars.h. */
#include "vars.h"

#include <stdlib.h>
#include <string.h>

static int find(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

/* Gives every variable of every regime a slot by name. */
static int number(const ir_model *m, int actions, const char ***names, const ir_grid ***grids, int **slot_of)
{
    int n = 0, cap = 0;
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        int nv = actions ? R->nactions : R->nstates;
        const ir_var *vars = actions ? R->actions : R->states;
        slot_of[r] = base_xcalloc((size_t)nv + 1, sizeof *slot_of[r]);
        for (int i = 0; i < nv; ++i) {
            int s = find(*names, n, vars[i].name);
            if (s < 0) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 8;
                    *names = base_xrealloc(*names, (size_t)cap * sizeof **names);
                    *grids = base_xrealloc(*grids, (size_t)cap * sizeof **grids);
                }
                (*names)[n] = vars[i].name;
                (*grids)[n] = &vars[i].grid;
                s = n++;
            }
            slot_of[r][i] = s;
        }
    }
    return n;
}

void ir_vars_build(const ir_model *m, ir_vars *v)
{
    memset(v, 0, sizeof *v);
    v->nstates = number(m, 0, &v->state_names, &v->state_grid, v->state_slot);
    v->nactions = number(m, 1, &v->action_names, &v->action_grid, v->action_slot);
}

void ir_vars_free(ir_vars *v)
{
    for (int r = 0; r < IR_MAX_REGIMES; ++r) free(v->state_slot[r]), free(v->action_slot[r]);
    free(v->state_names), free(v->action_names);
    free(v->state_grid), free(v->action_grid);
    memset(v, 0, sizeof *v);
}

int ir_vars_state(const ir_vars *v, const char *name) { return find(v->state_names, v->nstates, name); }
int ir_vars_action(const ir_vars *v, const char *name) { return find(v->action_names, v->nactions, name); }
