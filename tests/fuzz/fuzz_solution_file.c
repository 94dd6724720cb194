/* fuzz_solution_file.c - libFuzzer harness of the solution reader (`lcm
 * simulate --solution`) on raw bytes.
 *
 * Input: the bytes of a file, written to a private path and read with
 * lcm_solution_read_h5 for three models, of which the file's source hash
 * names at most one: models/tiny.lua (continuous states only),
 * models/mortality.lua (labels, a Markov state, a regime without states)
 * and models/precautionary_savings.lua (a shock process).  They are
 * generated as `lcm solve models/X.lua` in the source tree generates them,
 * so the files scripts/fuzz.sh writes that way as seeds read through.
 *
 * HDF5 1.10 (Debian's) does not survive crafted bytes: it trusts the sizes
 * in object headers and attribute messages, and this harness finds crashes
 * inside HDF5 within seconds (tests/fuzz/crashes/solution_file).  So
 * scripts/fuzz.sh runs it only when asked; fuzz_solution fuzzes the
 * reader's own checks on files HDF5 wrote.  The checks of a read are
 * fuzz_read_solution's. */
#include "fuzz_support.h"

#include <stdlib.h>

#define NMODELS 3
static const char *const model_files[NMODELS] = {"models/tiny.lua", "models/mortality.lua",
                                                 "models/precautionary_savings.lua"};
static lcmgen_output generated[NMODELS];
static const ir_model *models[NMODELS];
static char *path;

/* An allocation too large to make fails as it would without ASan (malloc
 * gives NULL, HDF5 reports it) instead of stopping the run: HDF5 asks for
 * what a crafted size field says. */
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int k = 0; k < NMODELS; ++k) {
        fuzz_generate_as_typed(model_files[k], &generated[k]);
        models[k] = &generated[k].model;
    }
    lcm_set_log_level(LCM_LOG_OFF); /* no Lua runs after this: no limits to set */
    path = fuzz_temp_path("solution.h5");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(path, data, size);
    int which;
    lcm_solution_free(fuzz_read_solution(path, models, NMODELS, &which));
    return 0;
}
