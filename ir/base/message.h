/* message.h - how messages reach the terminal.
 *
 * Error messages and warnings carry text from outside: model and params
 * files (a Lua error(), a name, a label), paths, compiler output.  A control
 * character in that text (ESC starting a terminal escape sequence, a
 * carriage return, a backspace) would drive the terminal it is printed on:
 * clear the screen, rewrite earlier lines, set the window title.  So every
 * message the commands print goes through base_put_message, which writes
 * such characters as visible escapes (ESC as \x1b).
 */
#ifndef LCM_MESSAGE_H
#define LCM_MESSAGE_H

#include <stdarg.h>
#include <stdio.h>

#include "strbuf.h"

/* Appends s with its control characters written as \xNN: C0 controls and
 * DEL, the C1 controls U+0080..U+009F (encoded in UTF-8 or as raw bytes),
 * and any byte that is not part of valid UTF-8.  Other text, UTF-8
 * included, is copied as it is.  With keep_layout, newline and tab are kept
 * (a message's own line breaks and indentation); without, they are escaped
 * too (\n, \t), for showing a name or path on one line. */
void base_escape_text(lcm_sb *b, const char *s, int keep_layout);
/* s escaped for one line (base_escape_text without layout), as a new
 * string the caller frees: a value from outside quoted in a message. */
char *base_escaped(const char *s);

/* Prints a message formatted as printf does, escaped with its layout kept
 * (the program's own control sequences, such as a progress bar's, are
 * written apart). */
void base_put_message(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void base_vput_message(FILE *f, const char *fmt, va_list ap);

#endif
