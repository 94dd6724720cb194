/* compile_log.h - compiler diagnostics of generated code, explained: for
 * the first lines a compiler complains about, the generated code and the
 * model function it came from (the source comments the emitter writes). */
#ifndef LCM_COMPILE_LOG_H
#define LCM_COMPILE_LOG_H

#include "base.h"

/* Understands NVRTC ("kernels.c(123): error") and GCC/Clang
 * ("kernels.c:123:5: error") locations. */
void be_explain_compile_log(const char *log, const char *source, lcm_sb *out);

#endif
