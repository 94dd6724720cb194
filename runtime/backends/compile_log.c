/* compile_log.c - see compile_log.h. */
#include "compile_log.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static char *source_line(const char *src, int n)
{
    for (int i = 1; i < n && src; ++i) {
        src = strchr(src, '\n');
        if (src) ++src;
    }
    return src ? base_xstrndup(src, strcspn(src, "\n")) : base_xstrdup("");
}

/* The model location in the source comment on line l or the nearest above. */
static char *origin(const char *src, int line)
{
    for (int l = line; l > 0 && l > line - 200; --l) {
        char *text = source_line(src, l);
        char *c = strstr(text, "/* ");
        char *e = c ? strstr(c, " */") : NULL;
        char *lua = c ? strstr(c, ".lua:") : NULL; /* "file.lua:17 (regime.function)" */
        char *found = lua && e && lua < e ? base_xstrndup(c + 3, (size_t)(e - c - 3)) : NULL;
        free(text);
        if (found) return found;
    }
    return NULL;
}

void be_explain_compile_log(const char *log, const char *src, lcm_sb *out)
{
    int shown = 0, last = -1;
    for (const char *p = strstr(log, "kernels.c"); p && shown < 4; p = strstr(p + 1, "kernels.c")) {
        const char *q = p + 9;
        if (*q != '(' && *q != ':') continue;
        int line = atoi(q + 1);
        if (line <= 0 || line == last) continue;
        last = line;
        char *code = source_line(src, line), *from = origin(src, line);
        const char *trimmed = code;
        while (isspace((unsigned char)*trimmed)) ++trimmed;
        base_sb_printf(out, "\n  generated line %d: %.160s", line, trimmed);
        if (from) base_sb_printf(out, "\n    from %s", from);
        free(code), free(from);
        ++shown;
    }
}
