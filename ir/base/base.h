/* base.h - the base every layer stands on: errors and invariants (fail.h),
 * growable strings (strbuf.h), memory (mem.h), environment switches
 * (env.h), numbers and names in text (text.h), file names (path.h), the host's threads and
 * clock (host.h).  Messages (message.h) and SHA-256 (sha256.h) are
 * included by the files that need them; files and processes are the layer
 * above (ir/sys). */
#ifndef LCM_BASE_H
#define LCM_BASE_H

#include "env.h"
#include "fail.h"
#include "host.h"
#include "mem.h"
#include "path.h"
#include "strbuf.h"
#include "text.h"

#endif
