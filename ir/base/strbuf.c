/* strbuf.c - see strbuf.h. */
#include "strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mem.h"

/* ---- string builder ----------------------------------------------------- */
void base_sb_init(lcm_sb *b) { b->s = NULL, b->len = b->cap = 0; }
void base_sb_free(lcm_sb *b) { free(b->s), base_sb_init(b); }

static void sb_reserve(lcm_sb *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t c = b->cap ? b->cap : 64;
    while (c < b->len + extra + 1) c *= 2;
    b->s = base_xrealloc(b->s, c);
    b->cap = c;
}

void base_sb_putn(lcm_sb *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void base_sb_putc(lcm_sb *b, char c) { base_sb_putn(b, &c, 1); }
void base_sb_puts(lcm_sb *b, const char *s) { base_sb_putn(b, s, strlen(s)); }

void base_sb_vprintf(lcm_sb *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    sb_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void base_sb_printf(lcm_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void base_sb_double(lcm_sb *b, double x)
{
    if (isnan(x)) base_sb_puts(b, "nan");
    else if (isinf(x)) base_sb_puts(b, x > 0 ? "inf" : "-inf");
    else {
        /* the shortest of %.15g, %.16g, %.17g that reads back exactly: 0.03, not 0.029999999999999999 */
        char buf[40];
        for (int digits = 15; digits <= 17; ++digits) {
            snprintf(buf, sizeof buf, "%.*g", digits, x);
            if (strtod(buf, NULL) == x) break;
        }
        base_sb_puts(b, buf);
    }
}

char *base_sb_take(lcm_sb *b)
{
    char *s = b->s ? b->s : base_xstrdup("");
    base_sb_init(b);
    return s;
}


char *base_xasprintf(const char *fmt, ...)
{
    lcm_sb b;
    base_sb_init(&b);
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(&b, fmt, ap);
    va_end(ap);
    return base_sb_take(&b);
}
