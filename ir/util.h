/* util.h - errors, growable strings and small helpers shared by every layer.
 *
 * Error convention: a function that can fail returns 0 on success and a
 * non-zero lcm_status on failure, after filling the caller's lcm_err with one
 * human-readable message.  The status doubles as the process exit code of the
 * command-line tools, so each class of failure exits differently.
 */
#ifndef LCM_UTIL_H
#define LCM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* lcm_status, lcm_err and lcm_index are the public API's (runtime/include/lcm.h). */
#include "lcm.h"

/* Sets err (if non-NULL) and returns code, so callers can `return lcm_fail(...)`. */
int lcm_fail(lcm_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes an existing message: "<prefix>: <old message>". */
int lcm_fail_prefix(lcm_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- growable string ---------------------------------------------------- */
typedef struct lcm_sb {
    char *s;
    size_t len, cap;
} lcm_sb;

void lcm_sb_init(lcm_sb *b);
void lcm_sb_free(lcm_sb *b);
void lcm_sb_putc(lcm_sb *b, char c);
void lcm_sb_puts(lcm_sb *b, const char *s);
void lcm_sb_putn(lcm_sb *b, const char *s, size_t n);
void lcm_sb_printf(lcm_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lcm_sb_vprintf(lcm_sb *b, const char *fmt, va_list ap);
/* Appends a double so that strtod() gives back exactly the same bits. */
void lcm_sb_double(lcm_sb *b, double x);
/* Detaches the buffer (NUL-terminated, caller frees). */
char *lcm_sb_take(lcm_sb *b);

/* ---- memory ------------------------------------------------------------- */
void *lcm_xmalloc(size_t n);
/* Memory for a large array written through once (a panel's columns):
 * from LCM_LARGE_BYTES on, aligned to 2 MiB and advised as transparent
 * huge pages, so that first touching it faults once per 2 MiB, not once
 * per 4 KiB (a fresh 229 MiB panel: 58,600 faults, or 115).  free() gives
 * it back; smaller sizes are plain malloc.  Not for scratch freed and
 * taken again by every run: malloc hands that back from its heap, already
 * touched, and an aligned block is always new. */
#define LCM_LARGE_BYTES ((size_t)16 << 20)
void *lcm_xmalloc_large(size_t n);
void *lcm_xcalloc(size_t n, size_t size);
void *lcm_xrealloc(void *p, size_t n);
char *lcm_xstrdup(const char *s);
/* Called first by each program: a file opened while standard input, output
 * or error is closed would take its number (a memfd, an output), and what
 * the program writes to standard output would go into that file.  Each
 * closed one is given /dev/null, read-only, so that writing to it still
 * fails as it would closed. */
void lcm_hold_standard_fds(void);
/* Whether the environment switch `name` (one of the list in util.c) is on:
 * "1".  Unset, empty and "0" are off; any other value is refused by
 * lcm_env_switches_check, which each program and lcm_solver_new call
 * before they read a switch (until then it counts as off: an unclear
 * LCM_TRUST_MODEL must not open the sandbox). */
int lcm_env_switch(const char *name);
/* LCM_E_USAGE naming the first switch whose value is neither 1 nor 0. */
int lcm_env_switches_check(lcm_err *err);
char *lcm_xstrndup(const char *s, size_t n);

/* Grows *arr (of element size elem) so that index `need - 1` is valid. */
void lcm_grow_array(void **arr, size_t *cap, size_t need, size_t elem);
#define LCM_GROW(arr, cap, need) lcm_grow_array((void **)&(arr), &(cap), (need), sizeof *(arr))

/* ---- files -------------------------------------------------------------- */
/* An input file opened for reading; a path that is no regular file (a
 * directory, FIFO, device: reading would fail or wait) is an error. */
FILE *lcm_open_input(const char *path, lcm_err *err);
/* Reads a whole file (lcm_open_input); returns NULL and fills err on failure. */
char *lcm_read_file(const char *path, size_t *len, lcm_err *err);
/* Outputs are written to a temporary file and renamed onto their name, so
 * the name must be free or a regular file: renaming onto a device, a
 * directory or a symbolic link would replace it.  Checks that. */
int lcm_check_output_path(const char *path, lcm_err *err);
/* Writes atomically: a temporary in the same directory (tempfile.h), fsync,
 * rename. */
int lcm_write_file_atomic(const char *path, const void *data, size_t len, lcm_err *err);
/* Writes n files together, all or none (tempfile.h's lcm_temp_commit),
 * leaving each one whose content is already that (and its mtime) untouched,
 * so that build systems do not rebuild. */
int lcm_write_files_if_changed(int n, const char *const *path, const char *const *data, const size_t *len,
                               lcm_err *err);
/* mkdir -p, all or nothing: when a folder cannot be made (a name too long,
 * a file in the way, no permission), those this call made before it are
 * removed again, deepest first, so that a failure leaves nothing behind. */
int lcm_make_dirs(const char *path, lcm_err *err);
/* The folders that lcm_make_dirs_listed made, outermost first, for a caller
 * that removes them again when what was to go in them fails later (lcm run
 * --out-dir).  Starts zeroed ({0}). */
typedef struct lcm_made_dirs {
    char **paths;
    int n;
} lcm_made_dirs;
/* lcm_make_dirs, adding the folders it made to *made (on failure it has
 * removed them and adds none). */
int lcm_make_dirs_listed(const char *path, lcm_made_dirs *made, lcm_err *err);
/* Removes the folders of made again, deepest first (one that something
 * else has put a file in stays), and frees the list. */
void lcm_unmake_dirs(lcm_made_dirs *made);
/* Frees the list, keeping the folders. */
void lcm_made_dirs_free(lcm_made_dirs *made);
int lcm_file_exists(const char *path);
int lcm_is_directory(const char *path);
/* Directory part of a path ("." if none); caller frees. */
char *lcm_path_dirname(const char *path);
/* '-' given where a folder is named (lcm --out-dir, --log-path, lcmgen
 * -o): it names standard output for a file, so it is refused, not made a
 * folder called '-'.  The usage error of option opt, or 0. */
int lcm_refuse_dash_folder(const char *opt, const char *value, lcm_err *err);
/* "a/b/model.lua" -> "model" ; caller frees. */
char *lcm_path_stem(const char *path);
/* Whether path ends in ext (".csv"), in any case, after at least one
 * other character. */
int lcm_path_has_extension(const char *path, const char *ext);
/* Named as an HDF5 file: .h5 or .hdf5 (the initial conditions read by
 * name, the warning of an output named against its format). */
int lcm_path_is_h5(const char *path);
char *lcm_path_join(const char *a, const char *b);

/* ---- checks ------------------------------------------------------------- */
/* One check-and-cleanup pattern for functions that set up several things
 * (emit_kernel, lcm_backend_cpu_new, lcm_backend_cuda_new): each step that
 * can fail is `LCM_CHECK_GOTO(step(...), rc, done);`, and `done:` frees
 * everything, whatever was reached. */
#define LCM_CHECK_GOTO(call, rc, label)                                                                   \
    do {                                                                                              \
        if (((rc) = (call)) != 0) goto label;                                                         \
    } while (0)

/* lcm_assert(cond): an invariant of the code (not of the input: bad input
 * is an lcm_err).  Built with LCM_ASSERTS (the CMake option, on for Debug,
 * the tests' scripts and the sanitizer build) a false one aborts with
 * file:line and the condition; without, it compiles to nothing and the
 * code goes on as it did (clamping, skipping), so it must not have effects. */
#ifdef LCM_ASSERTS
#define lcm_assert(cond) ((cond) ? (void)0 : lcm_assert_fail(__FILE__, __LINE__, #cond))
void lcm_assert_fail(const char *file, int line, const char *cond) __attribute__((noreturn));
#else
#define lcm_assert(cond) ((void)0)
#endif

/* ---- misc --------------------------------------------------------------- */
/* A size in bytes as people write it, for the environment's limits
 * (LCM_MEMORY_LIMIT, LCM_LUA_MAX_MEMORY): a plain decimal number (1e6
 * notation too; no sign, blank or hexadecimal) and
 * an optional unit K, M, G, T or P (powers of 1024, either case), then an
 * optional "i" and "B": "4096", "64G", "1.5T", "512MiB", "100B".  0 and
 * *bytes, or -1 (*bytes untouched) for anything else: empty, negative,
 * infinite, NaN, text after it. */
int lcm_parse_size(const char *s, double *bytes);
/* strtod of a plain decimal number that starts s: a digit or ".5" first
 * (no sign, blank, inf or nan), no hexadecimal; *end = s when there is
 * none (then 0). */
double lcm_strtod_decimal(const char *s, char **end);
int lcm_is_identifier(const char *s);
/* Levenshtein distance of two names (99 beyond 64 characters), for
 * "did you mean" suggestions. */
unsigned lcm_edit_distance(const char *a, const char *b);
double lcm_now_seconds(void);
/* printf-style into a fresh heap string. */
char *lcm_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
