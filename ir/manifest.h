/* manifest.h - the text form of the IR.
 *
 * The IR as a file: lcmgen writes it (the model the Lua tracer returned as
 * tables, gen/lua_model.c, planned, with the kernel table) next to the
 * generated source, and the runtime reads it back.  Line oriented, whitespace separated, with
 * double-quoted strings; doubles are printed to round-trip exactly.  The
 * grammar is documented in docs/internals.md.
 */
#ifndef LCM_MANIFEST_H
#define LCM_MANIFEST_H

#include "ir.h"

#define LCM_MANIFEST_VERSION 5 /* 4: the margin of grid-search regimes, dresources, margin_why; 5: euler_marginal */

/* Parses text into m (zeroed by the caller) and runs ir_model_check. */
int ir_manifest_read(const char *text, ir_model *m, lcm_err *err);
int ir_manifest_read_file(const char *path, ir_model *m, lcm_err *err);
/* What reading checks of a whole model, after its lines: each regime has
 * its active flags, the model a name, then ir_model_check, the shards and
 * the splay (ir/layout.h).  gen/lua_model.c runs it on the traced model. */
int ir_manifest_check(ir_model *m, lcm_err *err);
void ir_manifest_write(const ir_model *m, lcm_sb *out);

#endif
