/* fuzz_params.c - libFuzzer harness of the params reader.
 *
 * Input: the text of a params .lua file, read with cli_params_read_lua and
 * resolved against models/mortality.lua (arrays, labels, levels).  Lines
 * starting with "--set " (Lua comments, so the file stays a params file)
 * are also applied as `--set name=value` overrides, to the tree read or to
 * an empty one when the file was rejected, before the resolution. */
#include "fuzz_support.h"

#include <stdlib.h>
#include <string.h>

#include "params_lua.h"

#define MAX_SETS 8 /* overrides applied per input */

static char *params_path;
static lcmgen_output mortality;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_generate("models/mortality.lua", &mortality);
    fuzz_setup("1e6", "64e6");
    params_path = fuzz_temp_path("fuzz.params.lua");
    return 0;
}

static void apply_sets(lcm_pvalue *root, const char *text)
{
    static const char mark[] = "--set ";
    const size_t marklen = sizeof mark - 1;
    int n = 0;
    for (const char *line = text; line && n < MAX_SETS;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, mark, marklen)) {
            size_t len = end ? (size_t)(end - line) - marklen : strlen(line + marklen);
            char *assignment = base_xstrndup(line + marklen, len);
            lcm_err err = {0};
            int rc = cli_params_apply_set(root, assignment, &err);
            if (rc) fuzz_check_error(rc, &err);
            free(assignment);
            ++n;
        }
        line = end ? end + 1 : NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(params_path, data, size);
    lcm_err err = {0};
    lcm_pvalue *root = NULL;
    int rc = cli_params_read_lua(params_path, &root, NULL, NULL, &err);
    if (rc) {
        fuzz_check_error(rc, &err);
        root = lcm_pv_table();
    }
    char *text = fuzz_text(data, size);
    apply_sets(root, text);
    double *buf = base_xcalloc((size_t)mortality.model.params_size + 1, sizeof *buf);
    rc = core_params_resolve(&mortality.model, root, buf, &err);
    if (rc) fuzz_check_error(rc, &err);
    free(buf), free(text);
    lcm_pv_free(root);
    return 0;
}
