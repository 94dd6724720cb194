/* A compile error in generated code is reported with the generated line and
 * the model function it came from, by the host compiler and by NVRTC (when
 * available), and the source is kept for inspection. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "backend.h"
#include "check.h"
#include "cuda_compile.h"
#include "testlib.h"

static void expect(int rc, const lcm_err *err, const char *who)
{
    printf("--- %s:\n%.900s\n", who, err->msg);
    CHECK_MSG(rc == LCM_E_COMPILE, "%s: rc %d", who, rc);
    CHECK_MSG(strstr(err->msg, "generated line") != NULL, "%s: %s", who, err->msg);
    CHECK_MSG(strstr(err->msg, "from tiny.lua:17 (alive.utility)") != NULL, "%s: %s", who, err->msg);
    CHECK_MSG(strstr(err->msg, "the source is kept at") != NULL, "%s: %s", who, err->msg);
}

int main(void)
{
    lcm_err err = {0};
    lcm_model *model = NULL;
    CHECK_OK(test_generate("models/tiny.lua", NULL, &model, &err));
    if (!model) CHECK_DONE();
    /* break the power in the utility function, everywhere it is computed:
     * in the GPU's body and in the CPU launch's action terms (emit.c) */
    const char *src = lcm_model_source(model), *at;
    CHECK(strstr(src, "= lcm_pow(") != NULL);
    if (!strstr(src, "= lcm_pow(")) CHECK_DONE();
    lcm_sb broken;
    base_sb_init(&broken);
    for (; (at = strstr(src, "= lcm_pow(")) != NULL; src = at + 10) {
        base_sb_putn(&broken, src, (size_t)(at - src));
        base_sb_puts(&broken, "= lcm_pow( @ ");
    }
    base_sb_puts(&broken, src);

    char *dir = test_tmpdir("compile-errors");
    /* the kept sources go below the test's own folder, not into /tmp */
    setenv("TMPDIR", dir, 1);
    lcm_cache cache;
    be_cache_open(&cache, dir);
    lcm_backend *b = NULL;
    int rc = be_backend_cpu_new(core_model_ir(model), broken.s, 64, &cache, 1, &b, &err);
    expect(rc, &err, "host compiler");
    if (!rc) b->destroy(b);

    lcm_cuda_image img;
    memset(&err, 0, sizeof err);
    rc = be_cuda_compile(core_model_ir(model), broken.s, 90, 64, &cache, &img, &err);
    if (rc == LCM_E_DEVICE) printf("NVRTC not available, host compiler only: %s\n", err.msg);
    else expect(rc, &err, "NVRTC");
    be_cuda_image_free(&img);

    be_cache_close(&cache);
    base_sb_free(&broken);
    free(dir);
    lcm_model_free(model);
    CHECK_DONE();
}
