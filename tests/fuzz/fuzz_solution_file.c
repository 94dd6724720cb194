/* fuzz_solution.c - libFuzzer harness of the solution reader (`lcm simulate
 * --solution`).
 *
 * Input: the bytes of a file, written to a private path and read with
 * lcm_solution_read_h5 for three models, of which the file's source hash
 * names at most one: models/tiny.lua (continuous states only),
 * models/mortality.lua (labels, a Markov state, a regime without states)
 * and models/precautionary_savings.lua (a shock process).  They are
 * generated as `lcm solve models/X.lua` in the source tree generates them,
 * so the files scripts/fuzz.sh writes that way as seeds read through.
 *
 * A rejected file must give one clean error of a file's kind (cannot read,
 * or a bad saved solution); a read one must be a solution of its model: its
 * precision, V of every active regime and period with no NaN.  Either way
 * the reader must leave no HDF5 object open: one left open keeps its file
 * open and grows with every input. */
#include "fuzz_support.h"

#include <hdf5.h>
#include <math.h>

#define NMODELS 3
static const char *const model_files[NMODELS] = {"models/tiny.lua", "models/mortality.lua",
                                                 "models/precautionary_savings.lua"};
static lcmgen_output models[NMODELS];
static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int k = 0; k < NMODELS; ++k) fuzz_generate_as_typed(model_files[k], &models[k]);
    lcm_set_log_level(LCM_LOG_OFF); /* no Lua runs after this: no limits to set */
    path = fuzz_temp_path("solution.h5");
    return 0;
}

static void check_solution(const ir_model *m, const lcm_solution *sol)
{
    int precision = lcm_solution_precision(sol);
    if (lcm_solution_model(sol) != m) fuzz_fail("a solution of another model", m->name);
    if (precision != 64 && precision != 32) fuzz_fail("a precision neither 64 nor 32", m->name);
    for (int t = 0; t < m->nperiods; ++t)
        for (int r = 0; r < m->nregimes; ++r) {
            if (!m->regimes[r].active[t]) continue;
            lcm_index n = 0;
            if (!lcm_solution_V(sol, t, r, &n) || n != ir_state_space_size(&m->regimes[r]))
                fuzz_fail("V of an active regime missing or of another size", m->regimes[r].name);
            for (lcm_index i = 0; i < n; ++i)
                if (isnan(lcm_solution_value(sol, t, r, i))) fuzz_fail("NaN in V read", m->regimes[r].name);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(path, data, size);
    const char *read_as = NULL;
    for (int k = 0; k < NMODELS; ++k) {
        const ir_model *m = &models[k].model;
        lcm_err err = {0};
        lcm_solution *sol = NULL;
        int rc = lcm_solution_read_h5(m, path, &sol, &err);
        if (rc) {
            fuzz_check_error(rc, &err);
            if (rc != LCM_E_INPUT && rc != LCM_E_IO) fuzz_fail("an error of another kind than a file's", err.msg);
        } else {
            if (read_as) fuzz_fail("a file read as the solution of two models", read_as);
            read_as = m->name;
            check_solution(m, sol);
        }
        lcm_solution_free(sol);
        if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) fuzz_fail("HDF5 objects left open", m->name);
    }
    return 0;
}
