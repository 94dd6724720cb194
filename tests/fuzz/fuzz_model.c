/* fuzz_model.c - libFuzzer harness of the model loader.
 *
 * Input: the text of a model .lua file.  It is generated through the
 * generator library (Lua DSL, tracing, manifest, planning, emission), as
 * `lcm solve MODEL.lua` does, and the result is loaded by the runtime.  A
 * model may be rejected with an lcm_err; a model the generator accepts must
 * load. */
#include "fuzz_support.h"

#include <stdlib.h>

static char *model_path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* the largest bundled model runs 1.6e6 instructions */
    fuzz_setup("1e7", "64e6");
    model_path = fuzz_temp_path("fuzz.lua");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(model_path, data, size);
    lcm_err err = {0};
    lcmgen_output gen;
    int rc = lcmgen_generate(model_path, NULL, &gen, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
    } else {
        lcm_model *m = NULL;
        if (lcm_model_from_text(gen.manifest, gen.source, &m, &err))
            fuzz_fail("the runtime rejects a model the generator accepted", err.msg);
        lcm_model_free(m);
    }
    lcmgen_output_free(&gen); /* also after a failure: it may hold what was done */
    return 0;
}
