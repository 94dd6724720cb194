/* strbuf.h - growable strings. */
#ifndef LCM_STRBUF_H
#define LCM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct lcm_sb {
    char *s;
    size_t len, cap;
} lcm_sb;

void base_sb_init(lcm_sb *b);
void base_sb_free(lcm_sb *b);
void base_sb_putc(lcm_sb *b, char c);
void base_sb_puts(lcm_sb *b, const char *s);
void base_sb_putn(lcm_sb *b, const char *s, size_t n);
void base_sb_printf(lcm_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void base_sb_vprintf(lcm_sb *b, const char *fmt, va_list ap);
/* Appends a double so that strtod() gives back exactly the same bits. */
void base_sb_double(lcm_sb *b, double x);
/* Detaches the buffer (NUL-terminated, caller frees). */
char *base_sb_take(lcm_sb *b);

/* printf-style into a fresh heap string. */
char *base_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
