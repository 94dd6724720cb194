/* panel.c - simulated panels: columns, CSV and HDF5 (see lcm.h). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "api_args.h"
#include "output.h"
#include "panel.h"

/* The states' and actions' columns in the block of reals, after value. */
static void point_columns(lcm_panel *p)
{
    for (int k = 0; k < p->vars.nstates; ++k) p->x[k] = p->value + (size_t)(1 + k) * (size_t)p->stride;
    for (int k = 0; k < p->vars.nactions + p->nchoice; ++k)
        p->act[k] = p->value + (size_t)(1 + p->vars.nstates + k) * (size_t)p->stride;
}

static void free_target_names(lcm_panel *p)
{
    for (int i = 0; i < p->ntargets; ++i) free(p->target_names[i]);
    free(p->target_names);
    p->target_names = NULL, p->ntargets = 0;
}

static void free_targets(lcm_panel *p)
{
    free_target_names(p);
    free(p->targets);
    p->targets = NULL, p->targets_held = 0;
}

/* Memory for `bytes`: `held` (a block of held_bytes, or NULL) when it is
 * large enough, else a new block (`held` given back). */
static void *block(void *held, size_t held_bytes, size_t bytes)
{
    if (held && held_bytes >= bytes) return held;
    free(held);
    return base_xmalloc_large(bytes);
}

static size_t real_columns(const lcm_panel *p)
{
    return 1 + (size_t)p->vars.nstates + (size_t)p->vars.nactions + (size_t)p->nchoice;
}

/* A panel of n rows in old's memory where it holds enough (old: NULL or
 * freed here); keep: its truncation keeps the memory. */
static lcm_panel *make_panel(lcm_panel *old, const ir_model *m, int precision, lcm_index n, int nchoice, int keep,
                             int targets)
{
    lcm_panel *p = base_xcalloc(1, sizeof *p), none = {0};
    p->m = m;
    p->precision = precision;
    p->n = n;
    p->nchoice = nchoice;
    ir_vars_build(m, &p->vars);
    const lcm_panel *o = old ? old : &none;
    size_t rows = (size_t)n + 1, reals = real_columns(p) * (size_t)n + 1;
    /* the old targets' block stays for the new targets (`targets`: there
     * will be some) where the columns take no new memory; else it goes
     * first: the memory check counted it as room for what comes */
    if (old && targets && old->rows_held >= rows && old->reals_held >= reals) {
        free_target_names(old);
        p->targets = old->targets, p->targets_held = old->targets_held;
        old->targets = NULL, old->targets_held = 0;
    } else if (old) free_targets(old);
    p->subject = block(o->subject, o->rows_held * sizeof *p->subject, rows * sizeof *p->subject);
    p->period = block(o->period, o->rows_held * sizeof *p->period, rows * sizeof *p->period);
    p->regime = block(o->regime, o->rows_held * sizeof *p->regime, rows * sizeof *p->regime);
    p->value = block(o->value, o->reals_held * sizeof *p->value, reals * sizeof *p->value);
    p->rows_held = o->rows_held > rows ? o->rows_held : rows;
    p->reals_held = o->reals_held > reals ? o->reals_held : reals;
    p->keep = keep;
    if (old) { /* its columns are p's now, or given back */
        old->subject = NULL, old->period = NULL, old->regime = NULL, old->value = NULL;
        lcm_panel_free(old);
    }
    p->stride = n;
    p->x = base_xcalloc((size_t)p->vars.nstates + 1, sizeof *p->x);
    p->act = base_xcalloc((size_t)(p->vars.nactions + nchoice) + 1, sizeof *p->act);
    point_columns(p);
    return p;
}

lcm_panel *sim_panel_new(const ir_model *m, int precision, lcm_index n, int nchoice)
{
    return make_panel(NULL, m, precision, n, nchoice, 0, 0);
}

lcm_panel *sim_panel_renew(lcm_panel *old, const ir_model *m, int precision, lcm_index n, int nchoice, int targets)
{
    return make_panel(old, m, precision, n, nchoice, 1, targets);
}

static void *shrink(void *a, size_t bytes)
{
    void *b = realloc(a, bytes ? bytes : 1);
    return b ? b : a; /* a smaller block that cannot move stays where it is */
}

void sim_panel_truncate(lcm_panel *p, lcm_index n)
{
    if (n >= p->n) return;
    p->n = n;
    if (p->keep) return; /* the columns stay a stride apart, for the next simulation */
    size_t rows = (size_t)n + 1, ncols = real_columns(p);
    p->subject = shrink(p->subject, rows * sizeof *p->subject);
    p->period = shrink(p->period, rows * sizeof *p->period);
    p->regime = shrink(p->regime, rows * sizeof *p->regime);
    /* the block of reals: column c moves down to c * n (front to back, never
     * onto a column not yet moved), then gives the rest back */
    for (size_t c = 1; c < ncols; ++c)
        memmove(p->value + c * (size_t)n, p->value + c * (size_t)p->stride, (size_t)n * sizeof *p->value);
    p->stride = n;
    p->value = shrink(p->value, (ncols * (size_t)n + 1) * sizeof *p->value);
    p->rows_held = rows, p->reals_held = ncols * (size_t)n + 1;
    point_columns(p);
}

size_t sim_panel_bytes(const lcm_panel *p)
{
    if (!p) return 0;
    return p->rows_held * (sizeof *p->subject + sizeof *p->period + sizeof *p->regime) +
           p->reals_held * sizeof *p->value + p->targets_held * sizeof *p->targets;
}

void lcm_panel_free(lcm_panel *p)
{
    if (!p) return;
    free_targets(p);
    free(p->subject), free(p->period), free(p->regime), free(p->value), free(p->x), free(p->act);
    ir_vars_free(&p->vars);
    core_model_release(p->owner);
    free(p);
}

void sim_panel_hold_model(lcm_panel *p, const lcm_model *model) { p->owner = core_model_retain(model); }

lcm_index lcm_panel_rows(const lcm_panel *p) { return p ? p->n : 0; }
double lcm_panel_seconds(const lcm_panel *p) { return p ? p->seconds : NAN; }

/* ---- columns: one description serves the accessor and both writers -------- */
typedef enum col_kind {
    COL_SUBJECT, COL_PERIOD, COL_AGE, COL_REGIME, COL_VALUE, COL_STATE, COL_ACTION, COL_TARGET
} col_kind;

typedef struct column {
    col_kind kind;
    int index;          /* slot or target */
    const char *name;
    const ir_grid *grid; /* the variable's grid in its first regime (discrete: labels) */
} column;

/* The panel's columns in output order; returns their count. */
static int columns(const lcm_panel *p, column **out)
{
    const ir_vars *V = &p->vars;
    int n = lcm_panel_columns(p), k = 0;
    column *c = base_xcalloc((size_t)n, sizeof *c);
    c[k++] = (column){COL_SUBJECT, 0, "subject_id", NULL};
    c[k++] = (column){COL_PERIOD, 0, "period", NULL};
    c[k++] = (column){COL_AGE, 0, "age", NULL};
    c[k++] = (column){COL_REGIME, 0, "regime", NULL};
    c[k++] = (column){COL_VALUE, 0, "value", NULL};
    for (int s = 0; s < V->nstates; ++s) c[k++] = (column){COL_STATE, s, V->state_names[s], V->state_grid[s]};
    for (int a = 0; a < V->nactions; ++a) c[k++] = (column){COL_ACTION, a, V->action_names[a], V->action_grid[a]};
    for (int t = 0; t < p->ntargets; ++t) c[k++] = (column){COL_TARGET, t, p->target_names[t], NULL};
    *out = c;
    return n;
}

static double cell(const lcm_panel *p, const column *c, lcm_index i)
{
    switch (c->kind) {
    case COL_SUBJECT: return (double)p->subject[i];
    case COL_PERIOD: return p->period[i];
    case COL_AGE: return p->m->ages[p->period[i]];
    case COL_REGIME: return p->regime[i];
    case COL_VALUE: return p->value[i];
    case COL_STATE: return p->x[c->index][i];
    case COL_ACTION: return p->act[c->index][i];
    case COL_TARGET: return p->targets[(size_t)c->index * (size_t)p->n + (size_t)i];
    }
    return 0;
}

/* A column kept as doubles in the panel, or NULL (subject, period, age, regime). */
static const double *column_doubles(const lcm_panel *p, const column *c)
{
    switch (c->kind) {
    case COL_VALUE: return p->value;
    case COL_STATE: return p->x[c->index];
    case COL_ACTION: return p->act[c->index];
    case COL_TARGET: return p->targets + (size_t)c->index * (size_t)p->n;
    default: return NULL;
    }
}

/* The grid of a discrete variable in regime r (labels may differ between
 * regimes), or NULL. */
static const ir_grid *regime_grid(const lcm_panel *p, const column *c, int regime)
{
    if (c->kind != COL_STATE && c->kind != COL_ACTION) return NULL;
    const ir_regime *r = &p->m->regimes[regime];
    int k = c->kind == COL_STATE ? ir_find_state(r, c->name) : ir_find_action(r, c->name);
    if (k < 0) return NULL;
    const ir_grid *g = c->kind == COL_STATE ? &r->states[k].grid : &r->actions[k].grid;
    return grid_is_discrete(g) ? g : NULL;
}

int lcm_panel_columns(const lcm_panel *p)
{
    return p ? 5 + p->vars.nstates + p->vars.nactions + p->ntargets : 0;
}

const char *lcm_panel_column_name(const lcm_panel *p, int i)
{
    if (i < 0 || i >= lcm_panel_columns(p)) return NULL;
    column *c;
    columns(p, &c);
    const char *name = c[i].name; /* the panel's or its model's: outlives c */
    free(c);
    return name;
}

/* The column named `name` (columns(p, c) of them), or -1. */
static int column_by_name(const column *c, int n, const char *name)
{
    for (int k = 0; k < n; ++k)
        if (!strcmp(c[k].name, name)) return k;
    return -1;
}

int lcm_panel_column(const lcm_panel *p, const char *name, double *out, lcm_err *err)
{
    LCM_NEEDS(err, p, name, out);
    column *c;
    int n = columns(p, &c), found = column_by_name(c, n, name);
    if (found < 0) {
        lcm_sb names;
        base_sb_init(&names);
        for (int k = 0; k < n; ++k) base_sb_printf(&names, "%s%s", k ? ", " : "", c[k].name);
        base_fail(err, LCM_E_USAGE, "the panel has no column '%s' (columns: %s)", name, names.s);
        base_sb_free(&names);
        free(c);
        return err->code;
    }
    const double *col = column_doubles(p, &c[found]);
    if (col) memcpy(out, col, (size_t)p->n * sizeof *out);
    else
        for (lcm_index i = 0; i < p->n; ++i) out[i] = cell(p, &c[found], i);
    free(c);
    return 0;
}

const double *lcm_panel_column_data(const lcm_panel *p, const char *name)
{
    if (!p || !name) return NULL;
    column *c;
    int n = columns(p, &c), k = column_by_name(c, n, name);
    const double *data = k < 0 ? NULL : column_doubles(p, &c[k]);
    free(c);
    return data;
}

const char *lcm_panel_column_label(const lcm_panel *p, const char *name, int code)
{
    if (!p || !name || code < 0) return NULL;
    column *c;
    int n = columns(p, &c), k = column_by_name(c, n, name);
    const char *label = NULL; /* the model's: outlives c */
    if (k >= 0 && c[k].kind == COL_REGIME) label = code < p->m->nregimes ? p->m->regimes[code].name : NULL;
    else if (k >= 0 && c[k].grid && grid_is_discrete(c[k].grid) && code < c[k].grid->n) label = c[k].grid->labels[code];
    free(c);
    return label;
}

/* ---- CSV ------------------------------------------------------------------- */
/* A row is assembled in a line buffer and appended to the block's text at
 * once; a piece that would overflow the buffer sends what is there first. */
enum { CSV_LINE = 4096 };

typedef struct csv_line {
    char s[CSV_LINE];
    size_t len;
    lcm_sb *out;
} csv_line;

static void line_room(csv_line *l, size_t n)
{
    if (l->len + n <= CSV_LINE) return;
    base_sb_putn(l->out, l->s, l->len);
    l->len = 0;
}

static void line_put(csv_line *l, const char *s, size_t n)
{
    line_room(l, n);
    if (n > CSV_LINE) base_sb_putn(l->out, s, n);
    else memcpy(l->s + l->len, s, n), l->len += n;
}

static void line_number(csv_line *l, double x, int precision)
{
    line_room(l, LCM_CSV_NUMBER_MAX);
    l->len += (size_t)io_csv_format(l->s + l->len, x, precision);
}

static void line_count(csv_line *l, unsigned long long v) /* a non-negative integer in decimal */
{
    char d[24];
    int k = 24;
    do d[--k] = (char)('0' + (int)(v % 10)), v /= 10;
    while (v);
    line_put(l, d + k, (size_t)(24 - k));
}

/* Rows [lo, hi) as CSV text into out; grids[k * nregimes + r]: column k's
 * discrete grid in regime r, or NULL. */
static void csv_rows(const lcm_panel *p, const column *c, int n, const ir_grid *const *grids, lcm_index lo,
                     lcm_index hi, lcm_sb *out)
{
    int R = p->m->nregimes;
    csv_line *l = base_xmalloc(sizeof *l);
    l->len = 0;
    l->out = out;
    for (lcm_index i = lo; i < hi; ++i) {
        int r = p->regime[i];
        line_count(l, p->subject[i]);
        line_put(l, ",", 1);
        line_count(l, (unsigned long long)p->period[i]);
        line_put(l, ",", 1);
        line_number(l, p->m->ages[p->period[i]], 64);
        line_put(l, ",", 1);
        line_put(l, p->m->regimes[r].name, strlen(p->m->regimes[r].name));
        line_put(l, ",", 1);
        line_number(l, p->value[i], p->precision);
        for (int k = 5; k < n; ++k) {
            line_put(l, ",", 1);
            double x = column_doubles(p, &c[k])[i];
            const ir_grid *g = grids[k * R + r];
            if (x != x && c[k].kind != COL_TARGET) continue; /* the regime lacks the variable */
            if (g && x >= 0 && x < g->n && x == (int)x) line_put(l, g->labels[(int)x], strlen(g->labels[(int)x]));
            else line_number(l, x, c[k].kind == COL_TARGET ? 64 : p->precision);
        }
        line_put(l, "\n", 1);
    }
    base_sb_putn(out, l->s, l->len);
    free(l);
}

/* Blocks of rows are formatted in parallel, each by one thread into its own
 * text, and written in order as they are done (the writing of one block
 * overlaps the formatting of the next ones). */
int lcm_panel_write_csv(const lcm_panel *p, const char *path, lcm_err *err)
{
    LCM_NEEDS(err, p, path);
    char *tmp;
    FILE *f = io_output_open_csv(path, &tmp, err);
    if (!f) return err->code;
    column *c;
    int n = columns(p, &c), R = p->m->nregimes;
    const ir_grid **grids = base_xcalloc((size_t)(n * R) + 1, sizeof *grids);
    for (int k = 0; k < n; ++k)
        for (int r = 0; r < R; ++r) grids[k * R + r] = regime_grid(p, &c[k], r);
    for (int k = 0; k < n; ++k) fprintf(f, "%s%s", k ? "," : "", c[k].name);
    fputc('\n', f);
    int threads = base_host_threads(p->threads);
    const lcm_index block = 16384, nblocks = (p->n + block - 1) / block;
    lcm_sb *text = base_xcalloc((size_t)threads, sizeof *text);
    for (int b = 0; b < threads; ++b) base_sb_init(&text[b]);
    int failed = 0;
#pragma omp parallel for ordered schedule(static, 1) num_threads(threads)
    for (lcm_index b = 0; b < nblocks; ++b) {
        int stop;
#pragma omp atomic read
        stop = failed;
        if (stop) continue; /* a write failed: nothing more to format */
        lcm_sb *t = &text[omp_get_thread_num()];
        lcm_index from = b * block, to = from + block < p->n ? from + block : p->n;
        t->len = 0;
        csv_rows(p, c, n, grids, from, to, t);
#pragma omp ordered
        if (!failed && t->len && fwrite(t->s, 1, t->len, f) != t->len) {
#pragma omp atomic write
            failed = errno ? errno : -1; /* why, for the message */
        }
    }
    for (int b = 0; b < threads; ++b) base_sb_free(&text[b]);
    free(text), free(grids), free(c);
    return io_output_commit_csv(f, tmp, path, failed, err);
}

/* ---- HDF5 ------------------------------------------------------------------- */
/* The grid whose labels name the codes of a discrete column in every regime
 * that has it, or NULL when regimes label them differently (the CSV then
 * still names each row's code by its own regime). */
static const ir_grid *shared_labels(const lcm_panel *p, const column *c)
{
    if (!c->grid || !grid_is_discrete(c->grid)) return NULL;
    for (int r = 0; r < p->m->nregimes; ++r) {
        const ir_regime *R = &p->m->regimes[r];
        int k = c->kind == COL_STATE ? ir_find_state(R, c->name) : ir_find_action(R, c->name);
        if (k < 0) continue;
        const ir_grid *g = c->kind == COL_STATE ? &R->states[k].grid : &R->actions[k].grid;
        if (!grid_is_discrete(g) || g->n != c->grid->n) return NULL;
        for (int i = 0; i < g->n; ++i)
            if (strcmp(g->labels[i], c->grid->labels[i])) return NULL;
    }
    return c->grid;
}

/* The names of a column's codes: the regimes', or the labels of a discrete
 * variable that every regime labels alike; NULL otherwise (n: how many). */
static const char **code_names(const lcm_panel *p, const column *c, int *n)
{
    if (c->kind == COL_REGIME) {
        const char **names = base_xcalloc((size_t)p->m->nregimes, sizeof *names);
        for (int r = 0; r < p->m->nregimes; ++r) names[r] = p->m->regimes[r].name;
        *n = p->m->nregimes;
        return names;
    }
    const ir_grid *g = shared_labels(p, c);
    if (!g) return NULL;
    const char **names = base_xcalloc((size_t)g->n, sizeof *names);
    for (int i = 0; i < g->n; ++i) names[i] = g->labels[i];
    *n = g->n;
    return names;
}

static int write_column(hid_t f, hid_t labels, const lcm_panel *p, const column *c)
{
    hsize_t rows = (hsize_t)p->n;
    int bad;
    const double *col = column_doubles(p, c);
    if (col) bad = io_h5_data(f, c->name, H5T_NATIVE_DOUBLE, 1, &rows, col);
    else if (c->kind == COL_SUBJECT) bad = io_h5_data(f, c->name, H5T_NATIVE_LLONG, 1, &rows, p->subject);
    else {
        int integer = c->kind != COL_AGE;
        void *buf = base_xmalloc(((size_t)p->n + 1) * 8);
        int threads = base_host_threads(p->threads);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (lcm_index i = 0; i < p->n; ++i) {
            double x = cell(p, c, i);
            if (integer) ((long long *)buf)[i] = (long long)x;
            else ((double *)buf)[i] = x;
        }
        bad = io_h5_data(f, c->name, integer ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, 1, &rows, buf);
        free(buf);
    }
    int n = 0;
    const char **names = bad ? NULL : code_names(p, c, &n);
    if (names) bad |= io_h5_data_strings(labels, c->name, names, (hsize_t)n);
    free(names);
    return bad;
}

/* Format 2 (docs/simulation.md, "The panel"): a dataset per column at the
 * root, the column order in `lcm-columns` and the names of codes in
 * `lcm-labels/<column>` (a hyphen is in no column's name), which format 1
 * kept as attributes, limited by HDF5 to 64 KiB. */
int lcm_panel_write_h5(const lcm_panel *p, const char *path, lcm_err *err)
{
    LCM_NEEDS(err, p, path);
    char *tmp;
    hid_t f = io_output_create_h5(path, &tmp, err);
    if (f < 0) return err->code;
    io_h5_failure_reset();
    column *c;
    int n = columns(p, &c);
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    int bad = io_h5_attr_string(root, "format", "lcm-panel") || io_h5_attr_int(root, "format_version", 2) ||
              io_h5_attr_string(root, "model", p->m->name);
    H5Gclose(root);
    const char **order = base_xcalloc((size_t)n, sizeof *order);
    for (int k = 0; k < n; ++k) order[k] = c[k].name;
    bad = bad || io_h5_data_strings(f, "lcm-columns", order, (hsize_t)n);
    free(order);
    hid_t labels = bad ? -1 : io_h5_group(f, "lcm-labels");
    bad |= labels < 0;
    for (int k = 0; k < n && !bad; ++k) bad |= write_column(f, labels, p, &c[k]);
    if (labels >= 0) H5Gclose(labels);
    free(c);
    return io_h5_finish(f, tmp, path, bad, err);
}
