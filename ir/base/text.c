/* text.c - see text.h. */
#include "text.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double base_strtod_decimal(const char *s, char **end)
{
    *end = (char *)s;
    if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1]))) return 0;
    double x = strtod(s, end);
    for (const char *p = s; p < *end; ++p)
        if (*p == 'x' || *p == 'X') return *end = (char *)s, 0; /* hexadecimal: 0x10, 0x1p4 */
    return x;
}

int base_parse_size(const char *s, double *bytes)
{
    char *end;
    double x = base_strtod_decimal(s, &end);
    if (end == s || !(x >= 0) || !isfinite(x)) return -1;
    const char *units = "KMGTP", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) x *= pow(1024, (double)(u - units + 1)), ++end;
    if (u && *end == 'i') ++end;
    if (*end == 'B') ++end;
    if (*end || !isfinite(x)) return -1;
    *bytes = x;
    return 0;
}

int base_is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (++s; *s; ++s)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}


unsigned base_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > LCM_EDIT_MAX_CHARS || lb > LCM_EDIT_MAX_CHARS) return 99;
    unsigned d[LCM_EDIT_MAX_CHARS + 1][LCM_EDIT_MAX_CHARS + 1];
    for (size_t i = 0; i <= la; ++i) d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; ++j) d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; ++i)
        for (size_t j = 1; j <= lb; ++j) {
            unsigned s = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            unsigned x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
            d[i][j] = s < x ? (s < y ? s : y) : (x < y ? x : y);
        }
    return d[la][lb];
}

int base_near_miss(const char *typed, const char *name)
{
    size_t lt = strlen(typed), ln = strlen(name);
    if (lt < 4 || !strcmp(typed, name)) return 0;
    return base_edit_distance(typed, name) <= (lt >= 6 && ln >= 6 ? 2u : 1u);
}
