/* env.c - see env.h. */
#include "env.h"

#include <stdlib.h>
#include <string.h>
#include "message.h" /* base_escaped: a switch's value shown as text */

/* Every on/off switch read from the environment (docs/tuning.md,
 * docs/model-language.md, docs/debugging.md): one list, so that one check
 * covers them all. */
static const char *const env_switches[] = {"LCM_TRUST_MODEL", "LCM_LINE_DIRECTIVES", "LCM_NO_TABLES", "LCM_NO_ELIMINATION", "LCM_NO_GRAPHS",
                                           "LCM_NO_NCCL"};

int base_env_switch(const char *name)
{
    int known = 0;
    for (size_t i = 0; i < sizeof env_switches / sizeof *env_switches; ++i) known |= !strcmp(name, env_switches[i]);
    lcm_assert(known);
    const char *v = getenv(name);
    return v && !strcmp(v, "1");
}

int base_env_switches_check(lcm_err *err)
{
    for (size_t i = 0; i < sizeof env_switches / sizeof *env_switches; ++i) {
        const char *v = getenv(env_switches[i]);
        if (v && *v && strcmp(v, "0") && strcmp(v, "1")) {
            char *shown = base_escaped(v);
            int rc = base_fail(err, LCM_E_USAGE, "%s must be 1 (on) or 0 (off), not '%s'", env_switches[i], shown);
            free(shown);
            return rc;
        }
    }
    return 0;
}
