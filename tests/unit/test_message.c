/* Messages on the terminal: control characters escaped, text and UTF-8
 * kept (ir/message.c); a message too long for lcm_err marked where it was
 * cut (ir/base/fail.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "message.h"
#include "base.h"

static char *escaped(const char *s, int keep_layout)
{
    lcm_sb b;
    base_sb_init(&b);
    base_escape_text(&b, s, keep_layout);
    return base_sb_take(&b);
}

#define CHECK_ESCAPE(in, keep, want)                                                   \
    do {                                                                               \
        char *got_ = escaped(in, keep);                                                \
        CHECK_MSG(!strcmp(got_, want), "escaped '%s', want '%s'", got_, want);          \
        free(got_);                                                                    \
    } while (0)

int main(void)
{
    /* plain text and a message's own layout pass */
    CHECK_ESCAPE("regime 'alive': wealth \\ 2", 1, "regime 'alive': wealth \\ 2");
    CHECK_ESCAPE("line 1\n\tline 2", 1, "line 1\n\tline 2");
    CHECK_ESCAPE("line 1\n\tline 2", 0, "line 1\\n\\tline 2");
    CHECK_ESCAPE("", 1, "");
    /* C0 controls and DEL: clear screen, title (OSC ... BEL), carriage return, backspace */
    CHECK_ESCAPE("\x1b[2J\x1b[31mred", 1, "\\x1b[2J\\x1b[31mred");
    CHECK_ESCAPE("\x1b]0;title\x07", 1, "\\x1b]0;title\\x07");
    CHECK_ESCAPE("ok\rlie\b\x7f", 1, "ok\\x0dlie\\x08\\x7f");
    /* UTF-8 text is kept; the C1 controls (CSI U+009B) and stray bytes are not */
    CHECK_ESCAPE("r\xc3\xa9gime \xe2\x82\xac \xf0\x9f\x98\x80", 1, "r\xc3\xa9gime \xe2\x82\xac \xf0\x9f\x98\x80");
    CHECK_ESCAPE("\xc2\x9b" "2J", 1, "\\xc2\\x9b2J");
    CHECK_ESCAPE("\x9b" "2J", 1, "\\x9b2J");
    CHECK_ESCAPE("\xc3", 1, "\\xc3");            /* cut short at the end */
    CHECK_ESCAPE("\xe2\x82" "x", 1, "\\xe2\\x82x"); /* cut short before text */
    CHECK_ESCAPE("\xc0\xaf", 1, "\\xc0\\xaf");     /* overlong '/' */
    CHECK_ESCAPE("\xed\xa0\x80", 1, "\\xed\\xa0\\x80"); /* a surrogate */
    CHECK_ESCAPE("\xf4\x90\x80\x80", 1, "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
    /* base_put_message formats, then escapes */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        base_put_message(f, "lcm solve: error: %s\n", "model.lua:3: \x1b[2Jgone");
        rewind(f);
        char line[128] = {0};
        CHECK(fgets(line, sizeof line, f) != NULL);
        CHECK_MSG(!strcmp(line, "lcm solve: error: model.lua:3: \\x1b[2Jgone\n"), "printed '%s'", line);
        fclose(f);
    }
    /* a message longer than LCM_ERR_MSG_MAX ends in the mark, cut between
     * whole UTF-8 characters (2-byte 'é' from an odd offset) */
    static char text[6002]; /* 6001 bytes and the NUL */
    text[0] = 'x';
    for (int i = 1; i + 2 < (int)sizeof text; i += 2) text[i] = '\xc3', text[i + 1] = '\xa9';
    lcm_err err = {0};
    static const char MARK[] = " [message cut]";
    for (int prefixed = 0; prefixed < 2; ++prefixed) {
        CHECK(base_fail(&err, LCM_E_MODEL, "%s", text) == LCM_E_MODEL && err.code == LCM_E_MODEL);
        if (prefixed) base_fail_prefix(&err, "m.lua");
        size_t n = strlen(err.msg), m = sizeof MARK - 1;
        CHECK_MSG(n < sizeof err.msg && n > sizeof err.msg - 8 - m, "%zu bytes", n);
        CHECK_MSG(n > m && !strcmp(err.msg + n - m, MARK), "ends in '%s'", err.msg + (n > 20 ? n - 20 : 0));
        CHECK_MSG((n - m - (prefixed ? 8 : 1)) % 2 == 0, "a character cut in two (%zu bytes)", n);
        CHECK(!prefixed || !strncmp(err.msg, "m.lua: x\xc3\xa9", 9));
    }
    /* one that fits is kept as it is, with no mark */
    base_fail(&err, LCM_E_MODEL, "%.4000s", text + 1);
    CHECK(strlen(err.msg) == 4000 && !strstr(err.msg, MARK));
    CHECK_DONE();
}
