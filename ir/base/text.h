/* text.h - numbers, sizes and names in text. */
#ifndef LCM_TEXT_H
#define LCM_TEXT_H


/* A size in bytes as people write it, for the environment's limits
 * (LCM_MEMORY_LIMIT, LCM_LUA_MAX_MEMORY): a plain decimal number (1e6
 * notation too; no sign, blank or hexadecimal) and
 * an optional unit K, M, G, T or P (powers of 1024, either case), then an
 * optional "i" and "B": "4096", "64G", "1.5T", "512MiB", "100B".  0 and
 * *bytes, or -1 (*bytes untouched) for anything else: empty, negative,
 * infinite, NaN, text after it. */
int base_parse_size(const char *s, double *bytes);
/* strtod of a plain decimal number that starts s: a digit or ".5" first
 * (no sign, blank, inf or nan), no hexadecimal; *end = s when there is
 * none (then 0). */
double base_strtod_decimal(const char *s, char **end);
int base_is_identifier(const char *s);
/* Levenshtein distance of two names (99 beyond LCM_EDIT_MAX_CHARS
 * characters), for "did you mean" suggestions. */
#define LCM_EDIT_MAX_CHARS 64
unsigned base_edit_distance(const char *a, const char *b);
/* Whether `typed` (a name that names nothing, which became a parameter) is
 * most likely a misspelling of `name`: at least 4 characters, and within one
 * edit, or two where both have at least 6 (two edits turn many a short name
 * into another: 'dbar' into 'dur').  The one rule of lcmgen's warning and of
 * the missing-parameter error that repeats it. */
int base_near_miss(const char *typed, const char *name);

#endif
