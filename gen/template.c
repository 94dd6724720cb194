/* template.c - see template.h. */
#include "template.h"

#include <string.h>

int gen_fill_template(const char *tmpl, const char *const *kv, lcm_sb *out, lcm_err *err)
{
    const char *p = tmpl;
    for (;;) {
        const char *hole = strstr(p, "$(");
        if (!hole) {
            base_sb_puts(out, p);
            return 0;
        }
        base_sb_putn(out, p, (size_t)(hole - p));
        const char *end = strchr(hole, ')');
        if (!end) return base_fail(err, LCM_E_INTERNAL, "template: unterminated hole");
        size_t klen = (size_t)(end - hole - 2);
        const char *value = NULL;
        for (const char *const *k = kv; *k; k += 2)
            if (strlen(*k) == klen && !strncmp(*k, hole + 2, klen)) value = k[1];
        if (!value)
            return base_fail(err, LCM_E_INTERNAL, "template: no value for $(%.*s)", (int)klen, hole + 2);
        base_sb_puts(out, value);
        p = end + 1;
    }
}
