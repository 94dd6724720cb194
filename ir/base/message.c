/* message.c - see message.h. */
#include "message.h"
#include "mem.h"

#include <string.h>

/* The length (2..4) of the well-formed UTF-8 sequence at s (no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    if (!n) return 0;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (s[0] == 0xE0) lo = 0xA0;
    else if (s[0] == 0xED) hi = 0x9F;
    else if (s[0] == 0xF0) lo = 0x90;
    else if (s[0] == 0xF4) hi = 0x8F;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; ++i)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

static void put_hex(lcm_sb *b, unsigned char c)
{
    static const char digits[] = "0123456789abcdef";
    char e[4] = {'\\', 'x', digits[c >> 4], digits[c & 15]};
    base_sb_putn(b, e, 4);
}

void base_escape_text(lcm_sb *b, const char *s, int keep_layout)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if ((*p == '\n' || *p == '\t') && keep_layout) {
            base_sb_putc(b, (char)*p++);
        } else if (*p == '\n' || *p == '\t') {
            base_sb_puts(b, *p++ == '\n' ? "\\n" : "\\t");
        } else if (*p < 0x20 || *p == 0x7F) {
            put_hex(b, *p++);
        } else if (*p < 0x80) {
            base_sb_putc(b, (char)*p++);
        } else {
            int n = utf8_length(p);
            int c1 = n == 2 && p[0] == 0xC2 && p[1] < 0xA0; /* U+0080..U+009F */
            if (n && !c1) {
                base_sb_putn(b, (const char *)p, (size_t)n);
                p += n;
            } else {
                for (int i = 0; i < (n ? n : 1); ++i) put_hex(b, *p++);
            }
        }
    }
}

char *base_escaped(const char *s)
{
    lcm_sb b;
    base_sb_init(&b);
    base_escape_text(&b, s, 0);
    return b.s ? b.s : base_xstrdup("");
}

void base_vput_message(FILE *f, const char *fmt, va_list ap)
{
    lcm_sb text, shown;
    base_sb_init(&text), base_sb_init(&shown);
    base_sb_vprintf(&text, fmt, ap);
    base_escape_text(&shown, text.s ? text.s : "", 1);
    if (shown.len) fwrite(shown.s, 1, shown.len, f);
    base_sb_free(&text), base_sb_free(&shown);
}

void base_put_message(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    base_vput_message(f, fmt, ap);
    va_end(ap);
}
