/* initial.c - see initial.h.
 *
 * Every format becomes the same thing before anything is checked: named
 * columns of cells, a cell being text (CSV, HDF5 string datasets, Lua
 * strings) or a number (HDF5 numeric datasets, Lua numbers).  One set of
 * rules then validates a subject whatever the format, and the messages
 * differ only in how they point at a cell: line and column for CSV,
 * dataset (HDF5) or column (Lua) and subject for the columnar ones.
 * CSV is checked record by record as it is parsed, so the problem reported
 * is the first one in the file.
 */
#include "initial.h"
#include "api_args.h"
#include "comm.h"
#include "files.h"
#include "memory.h"
#include "message.h"
#include "output.h"
#include "process.h"
#include "sha256.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- cells ---------------------------------------------------------------- */
typedef struct cell {
    const char *text; /* NULL: a number from a numeric HDF5 dataset */
    double num;
} cell;

/* An empty text or a NaN number is "not given". */
static int cell_given(const cell *c) { return c->text ? c->text[0] != 0 : !isnan(c->num); }

/* The cell as a number; text must be one number as a whole (strtod). */
static int cell_number(const cell *c, double *x)
{
    if (!c->text) {
        *x = c->num;
        return 1;
    }
    char *end;
    *x = strtod(c->text, &end);
    return end != c->text && *end == 0;
}

static int is_whole(double x) { return isfinite(x) && x == floor(x); }

/* Numbers in messages: enough digits to tell ages apart, without the
 * noise of %.17g (0.1 stays 0.1). */
static void show_number(lcm_sb *b, double x) { base_sb_printf(b, "%.15g", x); }

/* A cell as its message quotes it: text in quotes, numbers bare. */
static char *show_cell(const cell *c)
{
    lcm_sb b;
    base_sb_init(&b);
    if (c->text) { /* on one line: a quoted cell may hold line breaks */
        base_sb_putc(&b, '\'');
        base_escape_text(&b, c->text, 0);
        base_sb_putc(&b, '\'');
    } else show_number(&b, c->num);
    return base_sb_take(&b);
}

/* "a, b, c" */
static char *join(const char *const *names, int n)
{
    lcm_sb b;
    base_sb_init(&b);
    for (int i = 0; i < n; ++i) base_sb_printf(&b, "%s%s", i ? ", " : "", names[i]);
    return base_sb_take(&b);
}

static char *list_regimes(const ir_model *m)
{
    lcm_sb b;
    base_sb_init(&b);
    for (int r = 0; r < m->nregimes; ++r) base_sb_printf(&b, "%s%s", r ? ", " : "", m->regimes[r].name);
    return base_sb_take(&b);
}

/* All ages when there are few, else the first five and the last. */
static char *list_ages(const ir_model *m)
{
    lcm_sb b;
    base_sb_init(&b);
    int all = m->nperiods <= 12;
    for (int t = 0; t < m->nperiods; ++t) {
        if (!all && t == 5) {
            base_sb_puts(&b, ", ...");
            t = m->nperiods - 1;
        }
        if (t) base_sb_puts(&b, ", ");
        show_number(&b, m->ages[t]);
    }
    return base_sb_take(&b);
}

/* ---- the reader: columns matched to the model, subjects as they come ------- */
typedef struct reader {
    const ir_model *m;
    const char *path;
    const char *noun; /* columnar input: messages name "dataset 'x'" or "column 'x'" and a subject;
                       * NULL for CSV: a line and a column */
    ir_vars vars;
    int ncols;
    char **names;   /* [ncols] */
    int regime_col, age_col;
    int *slot_col;  /* [nslots] the column of each state slot, or -1 */
    long line;      /* CSV: the line being read (the header's while matching columns) */
    lcm_initial *ic;
    size_t cap;     /* subjects allocated in ic */
} reader;

static void reader_init(reader *rd, const ir_model *m, const char *path, const char *noun)
{
    memset(rd, 0, sizeof *rd);
    rd->m = m;
    rd->path = path;
    rd->noun = noun;
    ir_vars_build(m, &rd->vars);
    rd->ic = base_xcalloc(1, sizeof *rd->ic);
    rd->ic->nslots = rd->vars.nstates;
    rd->ic->source_hash = m->source_hash ? base_xstrdup(m->source_hash) : NULL;
}

/* The subjects' digest, once when they are read: the ranks of an MPI job
 * compare theirs with rank 0's before each simulation.  Outside one (MPI
 * starts before anything is read) it stays empty: nothing to compare. */
static void set_digest(lcm_initial *ic)
{
    if (core_comm_size() < 2) return;
    lcm_sha256 h;
    base_sha256_init(&h);
    size_t n = (size_t)ic->n, cells = n * (size_t)ic->nslots;
    base_sha256_update(&h, &ic->n, sizeof ic->n);
    base_sha256_update(&h, ic->regime, n * sizeof *ic->regime);
    base_sha256_update(&h, ic->period, n * sizeof *ic->period);
    base_sha256_update(&h, ic->x, cells * sizeof *ic->x);
    base_sha256_update(&h, ic->given, cells);
    base_sha256_hex_final(&h, ic->digest);
}

/* Frees the reader and hands the subjects over, or frees them after a failure. */
static int reader_finish(reader *rd, int rc, lcm_initial **out)
{
    if (rc) lcm_initial_free(rd->ic);
    else set_digest(rd->ic), *out = rd->ic;
    for (int c = 0; c < rd->ncols; ++c) free(rd->names[c]);
    free(rd->names);
    free(rd->slot_col);
    ir_vars_free(&rd->vars);
    return rc;
}

static void reader_add_column(reader *rd, const char *name)
{
    rd->names = base_xrealloc(rd->names, (size_t)(rd->ncols + 1) * sizeof *rd->names);
    rd->names[rd->ncols++] = base_xstrdup(name);
}

/* Where a message points: "<path>: line 3: column 'wealth'" for CSV;
 * "<path>: dataset 'wealth'" for HDF5 ("column 'wealth'" for Lua),
 * followed for a cell (not the whole column) by ": subject 2". */
static void where(const reader *rd, const char *column, int in_cell, lcm_sb *b)
{
    if (!rd->noun) base_sb_printf(b, "%s: line %ld: column '", rd->path, rd->line);
    else base_sb_printf(b, "%s: %s '", rd->path, rd->noun);
    base_escape_text(b, column, 0); /* a quoted header may hold line breaks too */
    base_sb_putc(b, '\'');
    if (!rd->noun) return;
    if (in_cell) base_sb_printf(b, ": subject %lld", (long long)rd->ic->n);
}

__attribute__((format(printf, 5, 6)))
static int fail_at(const reader *rd, const char *column, int in_cell, lcm_err *err, const char *fmt, ...)
{
    lcm_sb b;
    base_sb_init(&b);
    where(rd, column, in_cell, &b);
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(&b, fmt, ap);
    va_end(ap);
    int rc = base_fail(err, LCM_E_INPUT, "%s", b.s);
    base_sb_free(&b);
    return rc;
}

/* A cell without a value where one is required; `regime` names the regime
 * that needs it, NULL for the regime and age every subject needs. */
static int fail_empty(const reader *rd, const char *column, const char *regime, lcm_err *err)
{
    const char *empty = rd->noun ? ": no value (NaN or an empty string)" : " is empty";
    if (regime) return fail_at(rd, column, 1, err, "%s; regime '%s' needs it", empty, regime);
    return fail_at(rd, column, 1, err, "%s; every subject needs one", empty);
}

static int fail_no_subjects(const char *path, const char *expected, lcm_err *err)
{
    return base_fail(err, LCM_E_INPUT, "%s: no subjects (%s)", path, expected);
}

/* ---- columns --------------------------------------------------------------- */

/* Keeps `candidate` when it is closer to `name` than the best so far and
 * close enough to be a likely typo (not just a short name two edits from
 * another: 'id' is not a misspelt 'age'). */
static void consider(const char *name, const char *candidate, const char **best, unsigned *best_distance)
{
    unsigned d = base_edit_distance(name, candidate);
    if (d < *best_distance && 2 * d <= strlen(name)) *best_distance = d, *best = candidate;
}

/* The column a misspelt name most likely means, or NULL. */
static const char *closest_column(const reader *rd, const char *name)
{
    const char *best = NULL;
    unsigned best_distance = 3;
    consider(name, "regime", &best, &best_distance);
    consider(name, "age", &best, &best_distance);
    for (int s = 0; s < rd->vars.nstates; ++s) consider(name, rd->vars.state_names[s], &best, &best_distance);
    return best;
}

static int fail_unknown_column(const reader *rd, const char *name, lcm_err *err)
{
    const char *near = closest_column(rd, name);
    if (near) return fail_at(rd, name, 0, err, " is not a state of the model (did you mean '%s'?)", near);
    if (!rd->vars.nstates)
        return fail_at(rd, name, 0, err, " is not a column: the model has no states, so the columns are 'regime' "
                       "and 'age'");
    char *states = join(rd->vars.state_names, rd->vars.nstates);
    int rc = fail_at(rd, name, 0, err, " is not a state of the model (the columns are 'regime', 'age' and "
                     "the states: %s)", states);
    free(states);
    return rc;
}

/* Gives every column its role: the regime, the age, or a state slot. */
static int match_columns(reader *rd, lcm_err *err)
{
    rd->regime_col = rd->age_col = -1;
    rd->slot_col = base_xmalloc(((size_t)rd->vars.nstates + 1) * sizeof *rd->slot_col);
    for (int s = 0; s < rd->vars.nstates; ++s) rd->slot_col[s] = -1;
    for (int c = 0; c < rd->ncols; ++c) {
        const char *name = rd->names[c];
        int *col = !strcmp(name, "regime") ? &rd->regime_col : !strcmp(name, "age") ? &rd->age_col : NULL;
        if (!col) {
            int slot = ir_vars_state(&rd->vars, name);
            if (slot < 0) return fail_unknown_column(rd, name, err);
            col = &rd->slot_col[slot];
        }
        if (*col >= 0) return fail_at(rd, name, 0, err, " appears twice (columns %d and %d)", *col + 1, c + 1);
        *col = c;
    }
    const char *noun = rd->noun ? rd->noun : "column";
    if (rd->regime_col < 0 || rd->age_col < 0)
        return fail_at(rd, rd->regime_col < 0 ? "regime" : "age", 0, err, " is missing (every subject needs a regime "
                       "and an age: %ss 'regime' and 'age')", noun);
    return 0;
}

/* ---- one subject ----------------------------------------------------------- */

/* A regime name, or its id. */
static int read_regime(const reader *rd, const cell *c, int *r, lcm_err *err)
{
    const ir_model *m = rd->m;
    if (!cell_given(c)) return fail_empty(rd, "regime", NULL, err);
    *r = c->text ? ir_find_regime(m, c->text) : -1;
    double id;
    if (*r < 0 && cell_number(c, &id) && is_whole(id) && id >= 0 && id < m->nregimes) *r = (int)id;
    if (*r >= 0) return 0;
    char *shown = show_cell(c), *names = list_regimes(m);
    int rc = fail_at(rd, "regime", 1, err, ": %s is not a regime (%s; or an id 0..%d)", shown, names,
                     m->nregimes - 1);
    free(shown), free(names);
    return rc;
}

/* An age of the model; *t is its period. */
static int read_age(const reader *rd, const cell *c, int *t, lcm_err *err)
{
    const ir_model *m = rd->m;
    if (!cell_given(c)) return fail_empty(rd, "age", NULL, err);
    double age;
    if (!cell_number(c, &age)) {
        char *shown = show_cell(c);
        int rc = fail_at(rd, "age", 1, err, ": %s is not a number", shown);
        free(shown);
        return rc;
    }
    /* ages are stored as doubles: 40 written as 40.0000000001 is still 40
     * (the tolerance scales with the model's age, which is finite: an
     * infinite age matches none) */
    for (*t = 0; *t < m->nperiods; ++*t)
        if (fabs(age - m->ages[*t]) <= 1e-9 * fmax(1.0, fabs(m->ages[*t]))) return 0;
    lcm_sb b;
    base_sb_init(&b);
    show_number(&b, age);
    char *ages = list_ages(m);
    int rc = fail_at(rd, "age", 1, err, ": age %s is not an age of the model (%s)", b.s, ages);
    base_sb_free(&b), free(ages);
    return rc;
}

static int check_active(const reader *rd, int r, int t, lcm_err *err)
{
    if (rd->m->regimes[r].active[t]) return 0;
    lcm_sb age;
    base_sb_init(&age);
    show_number(&age, rd->m->ages[t]);
    int rc = fail_at(rd, "regime", 1, err, ": regime '%s' is not active at age %s (period %d)",
                     rd->m->regimes[r].name, age.s, t);
    base_sb_free(&age);
    return rc;
}

/* A label of the state's grid in this regime, or a code 0..n-1. */
static int read_code(const reader *rd, const cell *c, const ir_regime *R, const ir_var *v, double *x, lcm_err *err)
{
    const ir_grid *g = &v->grid;
    for (int i = 0; c->text && i < g->n; ++i)
        if (!strcmp(c->text, g->labels[i])) {
            *x = i;
            return 0;
        }
    double code;
    int numeric = cell_number(c, &code);
    if (numeric && is_whole(code) && code >= 0 && code < g->n) {
        *x = code;
        return 0;
    }
    char *shown = show_cell(c), *labels = join((const char *const *)g->labels, g->n);
    int rc = numeric ? fail_at(rd, v->name, 1, err, ": %s is not a code of '%s' in regime '%s' (0..%d for %s)", shown,
                               v->name, R->name, g->n - 1, labels)
                     : fail_at(rd, v->name, 1, err, ": %s is not a category of '%s' in regime '%s' (%s)", shown,
                               v->name, R->name, labels);
    free(shown), free(labels);
    return rc;
}

/* A finite number; off the grid is fine (the simulation interpolates), but
 * not a value the state's law cannot take (a lognormal shock is positive). */
static int read_value(const reader *rd, const cell *c, const ir_var *v, double *x, lcm_err *err)
{
    int numeric = cell_number(c, x);
    int lognormal = v->grid.kind == GRID_PROCESS && v->grid.process == PROC_LOGNORMAL_IID;
    if (numeric && isfinite(*x) && (!lognormal || *x > 0)) return 0;
    char *shown = show_cell(c);
    int rc = !numeric            ? fail_at(rd, v->name, 1, err, ": %s is not a number", shown)
             : !isfinite(*x)     ? fail_at(rd, v->name, 1, err, ": %s is not a finite number", shown)
                                 : fail_at(rd, v->name, 1, err, ": %s is not a value of a lognormal shock (it is "
                                           "positive)", shown);
    free(shown);
    return rc;
}

/* State k of regime r into its slot.  A shock process may be left out:
 * the simulation then draws it from its law. */
static int read_state(const reader *rd, const cell *row, int r, int k, double *x, unsigned char *given, lcm_err *err)
{
    const ir_regime *R = &rd->m->regimes[r];
    const ir_var *v = &R->states[k];
    int col = rd->slot_col[rd->vars.state_slot[r][k]];
    if (col < 0 || !cell_given(&row[col])) {
        if (v->grid.kind == GRID_PROCESS) return 0;
        if (col >= 0) return fail_empty(rd, v->name, R->name, err);
        if (rd->noun)
            return fail_at(rd, v->name, 0, err, " is missing; subject %lld is in regime '%s', which needs it",
                           (long long)rd->ic->n, R->name);
        return fail_at(rd, v->name, 0, err, " is missing; regime '%s' needs it", R->name);
    }
    int rc = grid_is_discrete(&v->grid) ? read_code(rd, &row[col], R, v, x, err) : read_value(rd, &row[col], v, x, err);
    if (!rc) *given = 1;
    return rc;
}

static void reserve_subject(reader *rd)
{
    lcm_initial *ic = rd->ic;
    if ((size_t)ic->n < rd->cap) return;
    rd->cap = rd->cap ? 2 * rd->cap : 64;
    size_t cells = rd->cap * (size_t)ic->nslots;
    ic->regime = base_xrealloc(ic->regime, rd->cap * sizeof *ic->regime);
    ic->period = base_xrealloc(ic->period, rd->cap * sizeof *ic->period);
    ic->x = base_xrealloc(ic->x, cells * sizeof *ic->x);
    ic->given = base_xrealloc(ic->given, cells * sizeof *ic->given);
}

/* Validates one row (a cell per column) and appends it as the next subject.
 * Only the states of the subject's regime are read: the cells of other
 * regimes' states are ignored, so one file can mix regimes. */
static int read_subject(reader *rd, const cell *row, lcm_err *err)
{
    lcm_initial *ic = rd->ic;
    reserve_subject(rd);
    double *x = ic->x + (size_t)ic->n * (size_t)ic->nslots;
    unsigned char *given = ic->given + (size_t)ic->n * (size_t)ic->nslots;
    for (int s = 0; s < ic->nslots; ++s) x[s] = NAN, given[s] = 0;
    int r = 0, t = 0, rc; /* set by the reads when they succeed */
    if ((rc = read_regime(rd, &row[rd->regime_col], &r, err))) return rc;
    if ((rc = read_age(rd, &row[rd->age_col], &t, err))) return rc;
    if ((rc = check_active(rd, r, t, err))) return rc;
    for (int k = 0; k < rd->m->regimes[r].nstates; ++k) {
        int slot = rd->vars.state_slot[r][k];
        if ((rc = read_state(rd, row, r, k, &x[slot], &given[slot], err))) return rc;
    }
    ic->regime[ic->n] = r;
    ic->period[ic->n] = t;
    ++ic->n;
    return 0;
}

/* ---- CSV ------------------------------------------------------------------- */
typedef struct csv_cursor {
    const char *p;
    long line; /* the line *p is on */
} csv_cursor;

typedef struct csv_record {
    lcm_sb text;   /* the fields, each NUL-terminated, unquoted and trimmed */
    size_t *start; /* [n] where each field starts in text */
    size_t cap;
    int n;
    long line;     /* the line the record starts on */
} csv_record;

static const char *csv_field_text(const csv_record *rec, int i) { return rec->text.s + rec->start[i]; }

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* A line end is "\n" (Unix), "\r\n" (Windows) or a bare "\r" (classic
 * Mac OS, and some spreadsheets' "CSV for Macintosh"): the length of the
 * one at p, or 0. */
static int line_end_length(const char *p)
{
    if (p[0] == '\n') return 1;
    if (p[0] == '\r') return p[1] == '\n' ? 2 : 1;
    return 0;
}

/* Whether the character at p is the last one of a line end (the '\n' of
 * "\r\n", not its '\r'): where a line break inside a quoted field counts. */
static int ends_line(const char *p) { return *p == '\n' || (*p == '\r' && p[1] != '\n'); }

static int at_field_end(const char *p) { return !*p || *p == ',' || line_end_length(p); }

/* Moves past lines that hold nothing but spaces and tabs. */
static void skip_blank_lines(csv_cursor *c)
{
    for (;;) {
        const char *q = c->p;
        while (is_blank(*q)) ++q;
        int eol = line_end_length(q);
        if (!eol) {
            if (!*q) c->p = q;
            return;
        }
        c->p = q + eol;
        ++c->line;
    }
}

/* Appends one field, stopping at its ',' or line end; a quoted field may
 * hold commas, line breaks and "" for a quote. */
static int csv_field(csv_cursor *c, csv_record *rec, const char *path, lcm_err *err)
{
    LCM_GROW(rec->start, rec->cap, (size_t)rec->n + 1);
    rec->start[rec->n++] = rec->text.len;
    const char *p = c->p;
    while (is_blank(*p)) ++p;
    if (*p == '"') {
        long opened = c->line;
        for (++p;; ++p) {
            if (!*p) return base_fail(err, LCM_E_INPUT, "%s: line %ld: a quoted field is not closed", path, opened);
            if (*p == '"' && p[1] != '"') break;
            if (*p == '"') ++p; /* "" is one quote */
            else if (ends_line(p)) ++c->line;
            base_sb_putc(&rec->text, *p);
        }
        for (++p; is_blank(*p); ++p) {}
        if (!at_field_end(p))
            return base_fail(err, LCM_E_INPUT, "%s: line %ld: field %d: text after the closing quote", path, c->line,
                            rec->n);
    } else {
        const char *start = p;
        while (!at_field_end(p)) ++p;
        const char *end = p;
        while (end > start && is_blank(end[-1])) --end;
        base_sb_putn(&rec->text, start, (size_t)(end - start));
    }
    base_sb_putc(&rec->text, 0);
    c->p = p;
    return 0;
}

/* Reads the next non-blank record; *got = 0 at the end of the text. */
static int csv_next(csv_cursor *c, csv_record *rec, int *got, const char *path, lcm_err *err)
{
    skip_blank_lines(c);
    rec->n = 0;
    rec->text.len = 0;
    rec->line = c->line;
    *got = *c->p != 0;
    if (!*got) return 0;
    for (;;) {
        int rc = csv_field(c, rec, path, err);
        if (rc) return rc;
        if (*c->p != ',') break;
        ++c->p;
    }
    if (*c->p) c->p += line_end_length(c->p), ++c->line;
    return 0;
}

/* The header, then one subject per record. */
static int read_csv_records(reader *rd, csv_cursor *c, csv_record *rec, lcm_err *err)
{
    const char *expected = "a header line, then one line per subject";
    int got, rc = csv_next(c, rec, &got, rd->path, err);
    if (rc) return rc;
    if (!got) return fail_no_subjects(rd->path, expected, err);
    rd->line = rec->line;
    for (int i = 0; i < rec->n; ++i) reader_add_column(rd, csv_field_text(rec, i));
    long header_line = rec->line;
    if ((rc = match_columns(rd, err))) return rc;
    cell *row = base_xcalloc((size_t)rd->ncols, sizeof *row);
    while (!(rc = csv_next(c, rec, &got, rd->path, err)) && got) {
        rd->line = rec->line;
        if (rec->n != rd->ncols) {
            rc = base_fail(err, LCM_E_INPUT, "%s: line %ld: %d fields, but the header (line %ld) has %d", rd->path,
                          rec->line, rec->n, header_line, rd->ncols);
            break;
        }
        for (int i = 0; i < rec->n; ++i) row[i].text = csv_field_text(rec, i);
        if ((rc = read_subject(rd, row, err))) break;
    }
    free(row);
    if (!rc && !rd->ic->n) rc = fail_no_subjects(rd->path, expected, err);
    return rc;
}

int sim_initial_parse_csv(const ir_model *m, const char *path, const char *text, lcm_initial **out, lcm_err *err)
{
    *out = NULL;
    static const char bom[] = "\xEF\xBB\xBF"; /* spreadsheets like to start UTF-8 files with one */
    if (!strncmp(text, bom, 3)) text += 3;
    reader rd;
    reader_init(&rd, m, path, NULL);
    csv_cursor c = {text, 1};
    csv_record rec = {.start = NULL};
    base_sb_init(&rec.text);
    int rc = read_csv_records(&rd, &c, &rec, err);
    base_sb_free(&rec.text);
    free(rec.start);
    return reader_finish(&rd, rc, out);
}

/* ---- columns of cells: HDF5 datasets, a Lua file's lists ------------------- */
void sim_initial_columns_free(lcm_initial_column *cols, int n)
{
    for (int c = 0; c < n; ++c) {
        lcm_initial_column *col = &cols[c];
        for (size_t i = 0; col->text && i < col->len; ++i) free(col->text[i]);
        free(col->name), free(col->num), free(col->text);
    }
    free(cols);
}

/* The columns' names matched to the model, then one subject per index. */
static int read_column_subjects(reader *rd, const lcm_initial_column *cols, int n, const char *expected, lcm_err *err)
{
    if (!n) return fail_no_subjects(rd->path, expected, err);
    for (int c = 1; c < n; ++c)
        if (cols[c].len != cols[0].len)
            return base_fail(err, LCM_E_INPUT, "%s: %s '%s' has %zu values but %s '%s' has %zu; each holds one value "
                            "per subject", rd->path, rd->noun, cols[c].name, cols[c].len, rd->noun, cols[0].name,
                            cols[0].len);
    for (int c = 0; c < n; ++c) reader_add_column(rd, cols[c].name);
    int rc = match_columns(rd, err);
    if (rc) return rc;
    if (!cols[0].len) return fail_no_subjects(rd->path, expected, err);
    cell *row = base_xcalloc((size_t)n, sizeof *row);
    for (size_t i = 0; !rc && i < cols[0].len; ++i) {
        for (int c = 0; c < n; ++c) {
            const lcm_initial_column *col = &cols[c];
            row[c] = col->text && col->text[i] ? (cell){.text = col->text[i]}
                                                : (cell){.num = col->num ? col->num[i] : NAN}; /* no cell: no value */
        }
        rc = read_subject(rd, row, err);
    }
    free(row);
    return rc;
}

int sim_initial_from_columns(const ir_model *m, const char *path, const char *noun, const lcm_initial_column *cols,
                             int n, const char *expected, lcm_initial **out, lcm_err *err)
{
    *out = NULL;
    reader rd;
    reader_init(&rd, m, path, noun);
    return reader_finish(&rd, read_column_subjects(&rd, cols, n, expected, err), out);
}

/* ---- HDF5 ------------------------------------------------------------------ */
typedef struct h5_table {
    int n;
    lcm_initial_column *cols; /* numeric datasets in num, string ones in text (trimmed like CSV fields) */
} h5_table;

static char *trimmed_copy(const char *s)
{
    while (is_blank(*s)) ++s;
    size_t n = strlen(s);
    while (n && is_blank(s[n - 1])) --n;
    return base_xstrndup(s, n);
}

static int h5_read_strings(hid_t d, hid_t file_type, lcm_initial_column *col)
{
    col->text = base_xcalloc(col->len, sizeof *col->text);
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_cset(mem, H5Tget_cset(file_type)); /* HDF5 converts no character sets */
    herr_t rc;
    if (H5Tis_variable_str(file_type) > 0) {
        H5Tset_size(mem, H5T_VARIABLE);
        char **v = base_xcalloc(col->len, sizeof *v);
        rc = H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        if (rc >= 0) {
            for (size_t i = 0; i < col->len; ++i) col->text[i] = trimmed_copy(v[i] ? v[i] : "");
            hid_t space = H5Dget_space(d);
            H5Dvlen_reclaim(mem, space, H5P_DEFAULT, v);
            H5Sclose(space);
        }
        free(v);
    } else {
        /* one more byte per string than the file has, so every string arrives NUL-terminated */
        size_t width = H5Tget_size(file_type) + 1;
        H5Tset_size(mem, width);
        H5Tset_strpad(mem, H5T_STR_NULLTERM);
        char *buf = base_xcalloc(col->len, width);
        rc = H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        for (size_t i = 0; rc >= 0 && i < col->len; ++i) col->text[i] = trimmed_copy(buf + i * width);
        free(buf);
    }
    H5Tclose(mem);
    return rc < 0;
}

static int h5_read_numbers(hid_t d, lcm_initial_column *col)
{
    col->num = base_xcalloc(col->len, sizeof *col->num);
    return H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, col->num) < 0;
}

/* Whether `len` values of a column (as numbers: the most a column takes in
 * memory) may be read: 0, or LCM_E_MEMORY naming the dataset. */
static int column_fits(const char *path, const char *name, hsize_t len, lcm_err *err)
{
    double room, bytes = (double)len * (double)sizeof(double);
    int whole;
    char what[256];
    int rc = solve_host_memory_room(&room, &whole, what, sizeof what, err);
    if (rc || bytes <= room) return rc;
    return base_fail(err, LCM_E_MEMORY, "%s: dataset '%s' declares %llu values (%.1f MiB), more than this process "
                    "may use (%.1f MiB: %s)", path, name, (unsigned long long)len, bytes / 1048576, room / 1048576, what);
}

/* Reads a 1-D dataset of numbers or strings, kept in the file itself. */
static int h5_read_column(hid_t f, const char *path, lcm_initial_column *col, lcm_err *err)
{
    H5L_info_t link;
    if (H5Lget_info(f, col->name, &link, H5P_DEFAULT) >= 0 && link.type != H5L_TYPE_HARD &&
        link.type != H5L_TYPE_SOFT)
        return base_fail(err, LCM_E_INPUT, "%s: '%s' at the root is a link to another file; lcm reads the initial "
                        "conditions from the file itself", path, col->name);
    hid_t d = H5Dopen2(f, col->name, io_h5_read_links());
    if (d < 0)
        return base_fail(err, LCM_E_INPUT, "%s: '%s' at the root is not a dataset (one 1-D dataset per column "
                        "expected)", path, col->name);
    hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    int rank = H5Sget_simple_extent_ndims(space), rc = 0;
    H5T_class_t cls = H5Tget_class(type);
    hsize_t len = 0;
    if (rank == 1) H5Sget_simple_extent_dims(space, &len, NULL);
    if (rank != 1) {
        rc = base_fail(err, LCM_E_INPUT, "%s: dataset '%s' has %d dimensions; each column is a 1-D dataset", path,
                      col->name, rank);
    } else if (cls != H5T_INTEGER && cls != H5T_FLOAT && cls != H5T_STRING) {
        rc = base_fail(err, LCM_E_INPUT, "%s: dataset '%s' holds neither numbers nor strings", path, col->name);
    } else if (!io_h5_plain_storage(d, 1, &len)) {
        rc = base_fail(err, LCM_E_INPUT, "%s: dataset '%s' keeps its values outside the file (external or virtual "
                      "storage) or in a layout lcm does not read; lcm reads the initial conditions from the file "
                      "itself", path, col->name);
    } else if (!(rc = column_fits(path, col->name, len, err))) {
        col->len = (size_t)len;
        if (cls == H5T_STRING ? h5_read_strings(d, type, col) : h5_read_numbers(d, col))
            rc = base_fail(err, LCM_E_IO, "%s: dataset '%s' cannot be read", path, col->name);
    }
    H5Tclose(type), H5Sclose(space), H5Dclose(d);
    return rc;
}

/* Every link at the root, in name order, as a column. */
static int h5_read_table(hid_t f, const char *path, h5_table *tab, lcm_err *err)
{
    H5G_info_t info;
    if (H5Gget_info(f, &info) < 0) return base_fail(err, LCM_E_IO, "%s: cannot list the root group", path);
    tab->cols = base_xcalloc((size_t)info.nlinks, sizeof *tab->cols);
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        ssize_t len = H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
        if (len < 0) return base_fail(err, LCM_E_IO, "%s: cannot list the root group", path);
        lcm_initial_column *col = &tab->cols[tab->n++];
        col->name = base_xcalloc((size_t)len + 1, 1);
        H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, i, col->name, (size_t)len + 1, H5P_DEFAULT);
        int rc = h5_read_column(f, path, col, err);
        if (rc) return rc;
    }
    return 0;
}

static int h5_open(const char *path, hid_t *f, lcm_err *err)
{
    return io_h5_open_read(path, "initial conditions: one dataset per column (files named .h5 or .hdf5 are read "
                            "as HDF5)", f, err);
}

static int read_h5(const ir_model *m, const char *path, lcm_initial **out, lcm_err *err)
{
    hid_t f;
    int rc = h5_open(path, &f, err);
    if (rc) return rc;
    h5_table tab = {0};
    rc = h5_read_table(f, path, &tab, err);
    H5Fclose(f);
    if (!rc)
        rc = sim_initial_from_columns(m, path, "dataset", tab.cols, tab.n, "one 1-D dataset per column at the root, "
                                      "one value per subject", out, err);
    sim_initial_columns_free(tab.cols, tab.n);
    return rc;
}

/* ---- entry points ---------------------------------------------------------- */

int sim_initial_read_ir(const ir_model *m, const char *path, lcm_initial **out, lcm_err *err)
{
    *out = NULL;
    if (base_path_is_h5(path)) return read_h5(m, path, out, err);
    if (base_path_has_extension(path, ".lua")) /* the Lua host lives in the lcm command (cli/initial_lua.c), not here */
        return base_fail(err, LCM_E_USAGE, "%s: initial conditions written in Lua are read by the lcm command "
                        "(lcm simulate --initial FILE.lua); the library reads CSV and HDF5 (.h5, .hdf5)", path);
    size_t len;
    char *text = sys_read_file(path, &len, err);
    if (!text) return err->code;
    int rc;
    /* a NUL would silently end the text: most likely a binary file under another name */
    if (strlen(text) != len)
        rc = base_fail(err, LCM_E_INPUT, "%s: not a CSV file (a NUL byte at offset %zu; HDF5 files must be named "
                      ".h5 or .hdf5)", path, strlen(text));
    else rc = sim_initial_parse_csv(m, path, text, out, err);
    free(text);
    return rc;
}

void lcm_initial_free(lcm_initial *ic)
{
    if (!ic) return;
    free(ic->regime), free(ic->period), free(ic->x), free(ic->given), free(ic->source_hash);
    free(ic);
}

/* ---- lcm.h: initial conditions of a model --------------------------------- */
int lcm_initial_read(const lcm_model *m, const char *path, lcm_initial **out, lcm_err *err)
{
    LCM_NEEDS(err, m, path, out);
    return sim_initial_read_ir(core_model_ir(m), path, out, err);
}
int lcm_initial_from_arrays(const lcm_model *m, const char *source, int ncols, const char *const *names,
                            const double *const *num, const char *const *const *text, lcm_index n, lcm_initial **out,
                            lcm_err *err)
{
    LCM_NEEDS(err, m, source, names, out);
    *out = NULL;
    if (ncols < 0 || n < 0)
        return base_fail(err, LCM_E_USAGE, "lcm_initial_from_arrays: %d columns of %lld subjects", ncols, (long long)n);
    /* the reader's columns: borrowed cells (it only reads them), so nothing to free but the array */
    lcm_initial_column *cols = base_xcalloc((size_t)ncols + 1, sizeof *cols);
    int rc = 0;
    for (int i = 0; i < ncols && !rc; ++i) {
        if (!names[i]) rc = base_fail(err, LCM_E_USAGE, "%s: column %d has no name", source, i);
        else if (!(num && num[i]) && !(text && text[i]))
            rc = base_fail(err, LCM_E_USAGE, "%s: column '%s' has no cells", source, names[i]);
        cols[i] = (lcm_initial_column){(char *)names[i], (size_t)n, num ? (double *)num[i] : NULL,
                                       text ? (char **)text[i] : NULL};
    }
    if (!rc)
        rc = sim_initial_from_columns(core_model_ir(m), source, "column", cols, ncols, "one column per variable, one cell per "
                                      "subject", out, err);
    free(cols);
    return rc;
}
lcm_index lcm_initial_subjects(const lcm_initial *ic) { return ic ? ic->n : 0; }
