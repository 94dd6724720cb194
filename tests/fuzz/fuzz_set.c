/* fuzz_set.c - libFuzzer harness of `--set name=value`.
 *
 * Input: up to MAX_SETS lines, each one assignment as given after --set
 * (a dotted name, '=', a Lua expression run in the sandbox without file
 * access).  They are applied, in order, to the parameters of
 * models/mortality.params.lua, which are then resolved against
 * models/mortality.lua: so most inputs reach the resolution, where a value
 * of the wrong shape or level must be a clean error too.  (fuzz_params
 * fuzzes the params file itself.) */
#include "fuzz_support.h"

#include <stdlib.h>
#include <string.h>

#include "params_lua.h"

#define MAX_SETS 8

static lcmgen_output mortality;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_generate("models/mortality.lua", &mortality);
    fuzz_setup("1e6", "64e6");
    return 0;
}

static lcm_pvalue *bundled_params(void)
{
    lcm_err err = {0};
    lcm_pvalue *root = NULL;
    if (cli_params_read_lua(LCM_SOURCE_DIR "/models/mortality.params.lua", &root, NULL, NULL, &err))
        fuzz_fail("cannot read models/mortality.params.lua", err.msg);
    return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lcm_pvalue *root = bundled_params();
    char *text = fuzz_text(data, size);
    int n = 0;
    for (char *line = text; line && n < MAX_SETS; ++n) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        lcm_err err = {0};
        int rc = cli_params_apply_set(root, line, &err);
        if (rc) fuzz_check_error(rc, &err);
        line = end ? end + 1 : NULL;
    }
    double *buf = base_xcalloc((size_t)mortality.model.params_size + 1, sizeof *buf);
    lcm_err err = {0};
    int rc = core_params_resolve(&mortality.model, root, buf, &err);
    if (rc) fuzz_check_error(rc, &err);
    free(buf), free(text);
    lcm_pv_free(root);
    return 0;
}
