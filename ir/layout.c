/* layout.c - see layout.h.  Each formula is written once in C and once as
 * the kernel text that computes the same (the printers at the end, which
 * read the same ir_state_layout); test_layout.c runs both. */
#include "layout.h"

#include <stdarg.h>
#include <stdlib.h>

/* ---- one state axis --------------------------------------------------------- */
int ir_splays(const ir_grid *g) { return g->batch_size > 0 && g->batch_size < g->n; }

int ir_chunk_count(const ir_grid *g) { return ir_splays(g) ? (g->n + g->batch_size - 1) / g->batch_size : 1; }

int ir_chunk_width(const ir_grid *g) { return ir_splays(g) ? g->batch_size : g->n; }

void ir_strides(const ir_regime *r, long long *stride)
{
    lcm_assert(r && stride);
    long long acc = 1;
    for (int i = r->nstates - 1; i >= 0; --i) stride[i] = acc, acc *= r->states[i].grid.n;
}

int ir_splay_check(const ir_model *m, lcm_err *err)
{
    for (int r = 0; r < m->nregimes; ++r) {
        const ir_regime *R = &m->regimes[r];
        int splayed = 0;
        for (int s = 0; s < R->nstates; ++s) {
            const ir_grid *g = &R->states[s].grid;
            if (!ir_splays(g)) continue;
            if (g->distributed)
                return base_fail(err, LCM_E_MODEL, "regime '%s': state '%s' is both splayed (batch_size) and sharded "
                                "(distributed = true)", R->name, R->states[s].name);
            if (++splayed > LCM_MAX_SPLAYED)
                return base_fail(err, LCM_E_MODEL, "regime '%s': at most %d states can be splayed (batch_size)",
                                R->name, LCM_MAX_SPLAYED);
        }
    }
    return 0;
}

/* ---- a regime's sweep ------------------------------------------------------- */
void ir_state_layout_build(const ir_model *m, const ir_vars *V, const ir_shard *S, int r, ir_state_layout *L)
{
    lcm_assert(m && V && S && L);
    lcm_assert(r >= 0 && r < m->nregimes);
    const ir_regime *R = &m->regimes[r];
    long long *stride = base_xcalloc((size_t)R->nstates + 1, sizeof *stride);
    ir_strides(R, stride);
    L->r = R;
    L->axis = base_xcalloc((size_t)R->nstates + 1, sizeof *L->axis);
    L->order = base_xcalloc((size_t)R->nstates + 1, sizeof *L->order);
    L->sharded = ir_shard_regime(m, S, r);
    L->nsplayed = 0;
    L->per_combo = 1;
    for (int i = 0; i < R->nstates; ++i) {
        const ir_grid *g = &R->states[i].grid;
        ir_axis *x = &L->axis[i];
        *x = (ir_axis){.stride = stride[i], .n = g->n, .width = ir_chunk_width(g), .chunk = -1};
        /* ir_splay_check (manifest) and the DSL refuse more */
        lcm_assert(!ir_splays(g) || L->nsplayed < LCM_MAX_SPLAYED);
        if (ir_splays(g) && L->nsplayed < LCM_MAX_SPLAYED) x->chunk = L->nsplayed, L->splayed[L->nsplayed++] = i;
    }
    int d = 0;
    for (int i = R->nstates - 1; i >= 0; --i)
        if (!(L->sharded && R->states[i].grid.distributed)) L->order[d++] = i, L->per_combo *= R->states[i].grid.n;
    L->nfree = d;
    for (int k = S->nsharded - 1; L->sharded && k >= 0; --k) L->order[d++] = ir_shard_state(V, S, R, k);
    free(stride);
}

void ir_state_layout_free(ir_state_layout *L)
{
    free(L->axis);
    free(L->order);
    L->axis = NULL;
    L->order = NULL;
}

long long ir_layout_tiles(const ir_state_layout *L)
{
    lcm_assert(L && L->r);
    long long tiles = 1;
    for (int c = 0; c < L->nsplayed; ++c) tiles *= ir_chunk_count(&L->r->states[L->splayed[c]].grid);
    return tiles;
}

void ir_layout_tile(const ir_state_layout *L, long long tile, int *chunk)
{
    lcm_assert(L && (chunk || !L->nsplayed));
    lcm_assert(tile >= 0 && tile < ir_layout_tiles(L));
    for (int c = L->nsplayed - 1; c >= 0; --c) {
        int n = ir_chunk_count(&L->r->states[L->splayed[c]].grid);
        chunk[c] = (int)(tile % n);
        tile /= n;
    }
}

/* The first point of chunk c, and the length of the chunk from `lo` on:
 * the kernels' `lo` and `len` (ir_layout_print_state). */
static long long chunk_start(int c, int width) { return (long long)c * width; }
static long long chunk_len(int n, long long lo, int width) { return n - lo < width ? n - lo : width; }

/* Where the launch's digit of axis x starts, and its length: the launch's
 * chunk of a splayed state, else the whole axis. */
static long long digit_start(const ir_axis *x, const int *chunk)
{
    return x->chunk >= 0 && chunk ? chunk_start(chunk[x->chunk], x->width) : 0;
}
static long long digit_len(const ir_axis *x, const int *chunk)
{
    return x->chunk >= 0 && chunk ? chunk_len(x->n, digit_start(x, chunk), x->width) : x->n;
}

long long ir_layout_launch_size(const ir_state_layout *L, long long combos, const int *chunk)
{
    lcm_assert(L && combos >= 0);
    long long n = L->sharded ? combos : 1;
    for (int d = 0; d < L->nfree; ++d) n *= digit_len(&L->axis[L->order[d]], chunk);
    return n;
}

long long ir_layout_state(const ir_state_layout *L, long long shard_lo, const int *chunk, long long l)
{
    lcm_assert(L && shard_lo >= 0 && l >= 0);
    long long rest = l, s = 0;
    for (int d = 0; d < L->nfree; ++d) {
        const ir_axis *x = &L->axis[L->order[d]];
        long long lo = digit_start(x, chunk), len = digit_len(x, chunk);
        s += (lo + rest % len) * x->stride;
        rest /= len;
    }
    if (!L->sharded) return s;
    long long combo = shard_lo + rest; /* the sharded states, last fastest */
    for (int d = L->nfree; d < L->r->nstates; ++d) {
        const ir_axis *x = &L->axis[L->order[d]];
        s += (combo % x->n) * x->stride;
        combo /= x->n;
    }
    return s;
}

/* ---- a flat index and its codes ---------------------------------------------- */
void ir_layout_decode(const ir_var *v, int n, int skip, lcm_index flat, int *code)
{
    for (int i = n - 1; i >= 0; --i) {
        if (i == skip) continue;
        code[i] = (int)(flat % v[i].grid.n);
        flat /= v[i].grid.n;
    }
}

lcm_index ir_layout_encode(const ir_var *v, int n, int skip, const int *code)
{
    lcm_index flat = 0;
    for (int i = 0; i < n; ++i)
        if (i != skip) flat = flat * v[i].grid.n + code[i];
    return flat;
}

long long ir_layout_combo(const ir_state_layout *L, const int *code)
{
    long long combo = 0;
    for (int d = L->r->nstates - 1; d >= L->nfree; --d) combo = combo * L->axis[L->order[d]].n + code[L->order[d]];
    return combo;
}

long long ir_layout_combo_of_slots(const ir_shard *S, const double *x)
{
    long long combo = 0;
    for (int k = 0; k < S->nsharded; ++k) combo = combo * S->n[k] + (long long)x[S->slot[k]];
    return combo;
}

int ir_layout_entry(const ir_state_layout *L, uint64_t states, int sharded, long long shard_lo, const int *chunk,
                    long long rest, int *code, long long *point)
{
    long long at = 0;
    for (int d = 0; d < L->nfree; ++d) {
        int i = L->order[d];
        const ir_axis *x = &L->axis[i];
        if (!(states >> i & 1)) continue;
        int c = (int)(digit_start(x, chunk) + rest % x->width);
        rest /= x->width;
        if (c >= x->n) return 0;
        code[i] = c, at += c * x->stride;
    }
    if (sharded) {
        long long combo = shard_lo + rest; /* the sharded states, last fastest */
        for (int d = L->nfree; d < L->r->nstates; ++d) {
            const ir_axis *x = &L->axis[L->order[d]];
            code[L->order[d]] = (int)(combo % x->n), at += combo % x->n * x->stride;
            combo /= x->n;
        }
    }
    if (point) *point = at;
    return 1;
}

/* ---- the same formulas as kernel text ---------------------------------------- */
void ir_layout_print_chunk_start(const ir_state_layout *L, int i, lcm_sb *b)
{
    base_sb_printf(b, "a->chunk[%d] * %d", L->axis[i].chunk, L->axis[i].width);
}

void ir_layout_print_code(const ir_state_layout *L, int i, const char *var, lcm_sb *b)
{
    const ir_axis *x = &L->axis[i];
    if (x->chunk < 0) {
        base_sb_printf(b, "%s / %lld %% %d", var, x->stride, x->n);
        return;
    }
    base_sb_printf(b, "(%s / %lld %% %d - ", var, x->stride, x->n);
    ir_layout_print_chunk_start(L, i, b);
    base_sb_putc(b, ')');
}

void ir_layout_print_combo(const ir_state_layout *L, const char *codes, lcm_sb *b)
{
    int digits = L->r->nstates - L->nfree;
    for (int k = 1; k < digits; ++k) base_sb_putc(b, '(');
    for (int d = L->r->nstates - 1; d >= L->nfree; --d) { /* the slowest digit first (Horner) */
        int i = L->order[d];
        if (d < L->r->nstates - 1) base_sb_printf(b, " * %d + ", L->axis[i].n);
        base_sb_printf(b, "(lcm_index)%s[%d]", codes, i);
        if (d < L->r->nstates - 1) base_sb_putc(b, ')');
    }
}

/* One state's line of a printed decode: its code is `c` (from `code`, a
 * printf format of the arguments after it), then the caller's value. */
static void print_digit(const ir_regime *r, int i, int indent, ir_print_value *value, void *ctx, lcm_sb *b,
                        const char *code, ...) __attribute__((format(printf, 7, 8)));
static void print_digit(const ir_regime *r, int i, int indent, ir_print_value *value, void *ctx, lcm_sb *b,
                        const char *code, ...)
{
    va_list ap;
    base_sb_printf(b, "%*s{ const int c = ", indent, "");
    va_start(ap, code);
    base_sb_vprintf(b, code, ap);
    va_end(ap);
    value(ctx, i, b);
    base_sb_printf(b, " } /* %s */\n", r->states[i].name);
}

void ir_layout_print_decode(const ir_regime *r, uint64_t skip, const char *var, int indent, ir_print_value *value,
                            void *ctx, lcm_sb *b)
{
    for (int i = r->nstates - 1; i >= 0; --i) {
        int n = r->states[i].grid.n;
        if (i >= IR_SET_BITS || !(skip >> i & 1)) print_digit(r, i, indent, value, ctx, b, "(int)(%s %% %d); %s /= %d; ", var, n, var, n);
    }
}

void ir_layout_print_entry(const ir_state_layout *L, uint64_t states, int sharded, int point, const char *x,
                           int indent, ir_print_value *value, void *ctx, lcm_sb *b)
{
    const ir_regime *r = L->r;
    if (point) base_sb_printf(b, "%*slcm_index point = 0; /* the flat index of the entry's states */\n", indent, "");
    for (int d = 0; d < L->nfree; ++d) {
        int i = L->order[d];
        const ir_axis *a = &L->axis[i];
        if (!(states >> i & 1)) continue;
        lcm_sb start, at;
        base_sb_init(&start), base_sb_init(&at);
        if (a->chunk >= 0) ir_layout_print_chunk_start(L, i, &start), base_sb_puts(&start, " + ");
        if (point) base_sb_printf(&at, "point += (lcm_index)c * %lld; ", a->stride);
        print_digit(r, i, indent, value, ctx, b, "%s(int)(rest %% %d); rest /= %d; if (c >= %d) return; %s",
                    start.len ? start.s : "", a->width, a->width, a->n, at.len ? at.s : "");
        base_sb_free(&start), base_sb_free(&at);
    }
    if (!sharded) return;
    base_sb_printf(b, "%*slcm_index combo = a->shard_lo + rest; /* the sharded states, last fastest */\n", indent, "");
    for (int d = L->nfree; d < r->nstates; ++d) {
        int i = L->order[d], n = L->axis[i].n;
        base_sb_printf(b, "%*s%s[%d] = (real)(combo %% %d); /* %s */\n", indent, "", x, i, n, r->states[i].name);
        if (point) base_sb_printf(b, "%*spoint += combo %% %d * %lld;\n", indent, "", n, L->axis[i].stride);
        base_sb_printf(b, "%*scombo /= %d;\n", indent, "", n);
    }
}

/* Without either knob a launch solves every state in order: l itself. */
void ir_layout_print_state(const ir_state_layout *L, lcm_sb *code, lcm_sb *order)
{
    const ir_regime *r = L->r;
    if (!L->nsplayed && !L->sharded) {
        base_sb_puts(code, "    return l;");
        base_sb_puts(order, "l itself.");
        return;
    }
    base_sb_puts(code, "    lcm_index rest = l, s = 0;\n");
    for (int d = 0; d < L->nfree; ++d) {
        int i = L->order[d];
        const ir_axis *x = &L->axis[i];
        if (x->chunk < 0) {
            base_sb_printf(code, "    s += (rest %% %d) * %lld; /* %s */\n    rest /= %d;\n", x->n, x->stride,
                      r->states[i].name, x->n);
            continue;
        }
        base_sb_printf(code, "    { /* %s, splayed: chunks of %d */\n", r->states[i].name, x->width);
        base_sb_puts(code, "        const int lo = "), ir_layout_print_chunk_start(L, i, code);
        base_sb_printf(code, ", len = %d - lo < %d ? %d - lo : %d;\n", x->n, x->width, x->n, x->width);
        base_sb_printf(code, "        s += (lo + rest %% len) * %lld;\n        rest /= len;\n    }\n", x->stride);
    }
    if (L->sharded) {
        base_sb_puts(code, "    lcm_index combo = a->shard_lo + rest; /* the sharded states, last fastest */\n");
        for (int d = L->nfree; d < r->nstates; ++d) {
            int i = L->order[d];
            const ir_axis *x = &L->axis[i];
            base_sb_printf(code, "    s += (combo %% %d) * %lld; /* %s */\n    combo /= %d;\n", x->n, x->stride,
                      r->states[i].name, x->n);
        }
    }
    base_sb_puts(code, "    return s;");
    base_sb_printf(order, "%s%s", L->sharded ? "this launch's block of the sharded states" : "",
              L->nsplayed ? (L->sharded ? ", one chunk of the splayed states." : "one chunk of the splayed states.")
                          : ".");
}
