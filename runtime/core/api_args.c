/* api_args.c - see api_args.h. */
#include "api_args.h"

#include <stdarg.h>
#include <string.h>

#include "log.h"
#include "base.h"

int core_api_needs(lcm_err *err, const char *fn, const char *names, int n, ...)
{
    if (!err) {
        io_warn("%s: 'err' is NULL: the call does nothing (pass an lcm_err for its message)", fn);
        return LCM_E_USAGE;
    }
    va_list ap;
    va_start(ap, n);
    int rc = 0;
    for (int i = 0; i < n && !rc; ++i) {
        size_t len = strcspn(names, ",");
        if (!va_arg(ap, const void *))
            rc = base_fail(err, LCM_E_USAGE, "%s: '%.*s' is NULL (lcm.h says which arguments may be)", fn, (int)len,
                          names);
        names += len;
        while (*names == ',' || *names == ' ') ++names;
    }
    va_end(ap);
    return rc;
}
