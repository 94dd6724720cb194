/* template.h - fills `$(key)` holes in a template text (templates/). */
#ifndef LCM_TEMPLATE_H
#define LCM_TEMPLATE_H

#include "base.h"

/* kv: key, value, key, value, ..., NULL.  A hole without a value is a bug in
 * the generator: reported as LCM_E_INTERNAL. */
int gen_fill_template(const char *tmpl, const char *const *kv, lcm_sb *out, lcm_err *err);

#endif
