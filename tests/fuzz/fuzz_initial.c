/* fuzz_initial.c - libFuzzer harness of the initial-conditions reader.
 *
 * Input: one byte choosing the model (even: models/mortality.lua, with
 * Markov and fixed discrete states and three regimes; odd:
 * models/precautionary_savings.lua, with a shock process that may be left
 * out), then CSV text, parsed with sim_initial_parse_csv.  The subjects of
 * a successful read must be what the simulation relies on. */
#include "fuzz_support.h"

#include <math.h>
#include <stdlib.h>

#include "vars.h"

static lcmgen_output models[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_generate("models/mortality.lua", &models[0]);
    fuzz_generate("models/precautionary_savings.lua", &models[1]);
    lcm_set_log_level(LCM_LOG_OFF); /* no Lua runs after this: no limits to set */
    return 0;
}

/* A given state value is a code of its grid (discrete) or a finite number. */
static void check_state(const ir_var *v, double x)
{
    int discrete = grid_is_discrete(&v->grid);
    if (discrete && !(x >= 0 && x < v->grid.n && x == floor(x))) fuzz_fail("a code off the grid", v->name);
    if (!discrete && !isfinite(x)) fuzz_fail("a state value that is not finite", v->name);
}

static void check_subjects(const ir_model *m, const lcm_initial *ic)
{
    ir_vars vars;
    ir_vars_build(m, &vars);
    if (ic->n < 1 || ic->nslots != vars.nstates) fuzz_fail("a read without subjects or with other slots", "");
    for (lcm_index i = 0; i < ic->n; ++i) {
        int r = ic->regime[i], t = ic->period[i];
        if (r < 0 || r >= m->nregimes || t < 0 || t >= m->nperiods) fuzz_fail("a regime or period out of range", "");
        if (!m->regimes[r].active[t]) fuzz_fail("a subject starts in an inactive regime", m->regimes[r].name);
        for (int k = 0; k < m->regimes[r].nstates; ++k) {
            size_t at = (size_t)i * (size_t)ic->nslots + (size_t)vars.state_slot[r][k];
            if (ic->given[at]) check_state(&m->regimes[r].states[k], ic->x[at]);
        }
    }
    ir_vars_free(&vars);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const ir_model *m = &models[data[0] & 1].model;
    char *text = fuzz_text(data + 1, size - 1);
    lcm_err err = {0};
    lcm_initial *ic = NULL;
    int rc = sim_initial_parse_csv(m, "fuzz.csv", text, &ic, &err);
    if (rc) fuzz_check_error(rc, &err);
    else check_subjects(m, ic);
    lcm_initial_free(ic);
    free(text);
    return 0;
}
