#define _GNU_SOURCE
/* The state layout (ir/layout.h): the splay predicate, chunks and strides;
 * the limits' check; the launch-to-state map covering every state exactly
 * once over the workers and chunks; and the kernel text the emitter prints
 * from it, compiled by the host compiler, computing the same state as the
 * runtime's C for every launch, thread and block. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "embedded.h"
#include "files.h"
#include "layout.h"
#include "proc.h"
#include "testlib.h"

/* ---- hand-made models ------------------------------------------------------- */
static ir_var var(const char *name, int n, int batch, int distributed)
{
    return (ir_var){.name = (char *)name, .grid = {.kind = GRID_DISCRETE, .n = n, .batch_size = batch,
                                                   .distributed = distributed}};
}

/* work: two sharded states around splayed and unsplayed ones (wealth's
 * chunks 3, 3, 1; x and y ask for chunks as long as their axis or longer:
 * not splayed); dead: no states; plain: no knobs; wide: 70 states, which
 * the old launch map silently left unmapped. */
static ir_var work[6], plain[2], wide[70];
static ir_regime regimes[4];
static ir_model model = {.name = "layout", .nregimes = 4, .regimes = regimes};

static void build_model(void)
{
    work[0] = var("type", 3, 0, 1), work[1] = var("health", 2, 1, 0), work[2] = var("group", 2, 0, 1);
    work[3] = var("wealth", 7, 3, 0), work[4] = var("x", 5, 5, 0), work[5] = var("y", 4, 9, 0);
    plain[0] = var("a", 3, 0, 0), plain[1] = var("b", 2, 0, 0);
    static char names[70][8];
    for (int i = 0; i < 70; ++i) {
        snprintf(names[i], sizeof names[i], "w%d", i);
        wide[i] = var(names[i], i == 3 ? 3 : i % 20 == 7 ? 2 : 1, i == 3 ? 2 : i == 47 ? 1 : 0, 0);
    }
    regimes[0] = (ir_regime){.name = "work", .id = 0, .nstates = 6, .states = work};
    regimes[1] = (ir_regime){.name = "dead", .id = 1};
    regimes[2] = (ir_regime){.name = "plain", .id = 2, .nstates = 2, .states = plain};
    regimes[3] = (ir_regime){.name = "wide", .id = 3, .nstates = 70, .states = wide};
}

/* ---- one axis, strides, limits ------------------------------------------------ */
static void test_axis(void)
{
    ir_grid g = {.n = 7, .batch_size = 3};
    CHECK(ir_splays(&g) && ir_chunk_count(&g) == 3 && ir_chunk_width(&g) == 3);
    int batches[] = {0, 7, 8}; /* none, one chunk of the whole axis, longer than the axis: not splayed */
    for (int k = 0; k < 3; ++k) {
        g.batch_size = batches[k];
        CHECK(!ir_splays(&g) && ir_chunk_count(&g) == 1 && ir_chunk_width(&g) == 7);
    }
    long long stride[6];
    ir_strides(&regimes[0], stride);
    CHECK(stride[5] == 1 && stride[4] == 4 && stride[3] == 20 && stride[2] == 140 && stride[1] == 280 &&
          stride[0] == 560);
}

static void test_check(void)
{
    lcm_err err = {0};
    CHECK_OK(ir_splay_check(&model, &err));
    ir_var nine[9];
    ir_regime r = {.name = "many", .nstates = 9, .states = nine};
    ir_model m = {.nregimes = 1, .regimes = &r};
    for (int i = 0; i < 9; ++i) nine[i] = var("s", 4, i < LCM_MAX_SPLAYED ? 2 : 4, 0);
    CHECK_OK(ir_splay_check(&m, &err)); /* the ninth asks for one chunk: not splayed */
    nine[8].grid.batch_size = 3;
    CHECK(ir_splay_check(&m, &err) == LCM_E_MODEL && strstr(err.msg, "regime 'many': at most 8 states can be splayed"));
    nine[8].grid.batch_size = 0;
    nine[0].grid.distributed = 1;
    CHECK(ir_splay_check(&m, &err) == LCM_E_MODEL && strstr(err.msg, "both splayed (batch_size) and sharded"));
}

/* ---- the launch map, in C and as kernel text ----------------------------------------- */
typedef long long (*state_fn)(const lcm_kernel_args *a, lcm_index l);

/* Every regime's printed `_state` compiled into a shared object; fn[r]. */
static void *compile_states(const ir_state_layout *L, int n, state_fn *fn)
{
    lcm_sb src;
    base_sb_init(&src);
    base_sb_puts(&src, lcm_embed_kernel_abi_h);
    for (int r = 0; r < n; ++r) {
        lcm_sb order;
        base_sb_init(&order);
        base_sb_printf(&src, "\nlong long state%d(const lcm_kernel_args *a, lcm_index l)\n{\n    (void)a;\n", r);
        ir_layout_print_state(&L[r], &src, &order);
        base_sb_puts(&src, "\n}\n");
        base_sb_free(&order);
    }
    lcm_err err = {0};
    char *dir = test_tmpdir("layout"), *c = base_path_join(dir, "state.c"), *so = base_path_join(dir, "state.so");
    CHECK_OK(sys_write_file_atomic(c, src.s, src.len, &err));
    char *argv[] = {"cc", "-std=c11", "-Wall", "-Werror", "-fPIC", "-shared", "-o", so, c, NULL}, *out;
    int st = be_run_capture(argv, NULL, &out);
    CHECK_MSG(st == 0, "compiling the printed state maps failed:\n%s", out);
    void *dl = st == 0 ? dlopen(so, RTLD_NOW) : NULL;
    CHECK(dl != NULL);
    for (int r = 0; dl && r < n; ++r) {
        char name[32];
        snprintf(name, sizeof name, "state%d", r);
        *(void **)&fn[r] = dlsym(dl, name);
        CHECK(fn[r] != NULL);
    }
    free(out), base_sb_free(&src), free(c), free(so), free(dir);
    return dl;
}

/* Over D workers, every launch of regime r (each chunk of each block): the
 * C map and the compiled kernel text give the same states, within V, and
 * together every state exactly once per block owner (per worker when the
 * regime is not sharded); with chunk NULL, a block's states are the same
 * set as its chunks'. */
static void check_sweep(const ir_model *m, const ir_shard *S, const ir_state_layout *L, int r, state_fn fn, int D)
{
    long long N = ir_state_space_size(&m->regimes[r]);
    int *seen = calloc((size_t)N + 1, sizeof *seen), *whole = calloc((size_t)N + 1, sizeof *whole);
    long long mismatches = 0, outside = 0;
    for (int w = 0; w < D; ++w) {
        long long lo = 0, hi = 1;
        if (L->sharded) ir_shard_block(S, w, D, &lo, &hi);
        if (hi <= lo) continue;
        lcm_kernel_args a = {.shard_lo = lo};
        for (long long tile = 0; tile < ir_layout_tiles(L); ++tile) {
            ir_layout_tile(L, tile, a.chunk);
            for (long long l = 0, n = ir_layout_launch_size(L, hi - lo, a.chunk); l < n; ++l) {
                long long s = ir_layout_state(L, lo, a.chunk, l);
                if (s < 0 || s >= N) {
                    ++outside;
                    continue;
                }
                ++seen[s];
                mismatches += fn && fn(&a, l) != s;
            }
        }
        for (long long l = 0, n = ir_layout_launch_size(L, hi - lo, NULL); l < n; ++l) {
            long long s = ir_layout_state(L, lo, NULL, l);
            if (s >= 0 && s < N) ++whole[s];
            else ++outside;
        }
    }
    int per = L->sharded ? 1 : D; /* an unsharded regime is solved by every worker */
    long long wrong = 0;
    for (long long s = 0; s < N; ++s) wrong += seen[s] != per || whole[s] != per;
    CHECK_MSG(!outside && !wrong && !mismatches, "regime '%s' on %d workers: %lld states outside V, %lld not solved "
              "exactly %d times, %lld where the kernel text differs", m->regimes[r].name, D, outside, wrong, per,
              mismatches);
    free(seen), free(whole);
}

/* The variable slots and the sharded states of m, as the solver makes them. */
static void slots_of(const ir_model *m, ir_vars *V, ir_shard *S)
{
    ir_vars_build(m, V);
    ir_shard_build(m, V, S);
}

/* Every regime of m on 1 to 5 workers; the launch map's words for regime
 * `named` (when not NULL) are `order`. */
static void test_model(const ir_model *m, const char *named, const char *order)
{
    ir_vars V;
    ir_shard S;
    slots_of(m, &V, &S);
    ir_state_layout *L = calloc((size_t)m->nregimes, sizeof *L);
    state_fn *fn = calloc((size_t)m->nregimes, sizeof *fn);
    for (int r = 0; r < m->nregimes; ++r) ir_state_layout_build(m, &V, &S, r, &L[r]);
    void *dl = compile_states(L, m->nregimes, fn);
    for (int r = 0; r < m->nregimes; ++r) {
        for (int D = 1; D <= 5; ++D) check_sweep(m, &S, &L[r], r, fn[r], D);
        if (!named || strcmp(m->regimes[r].name, named)) continue;
        lcm_sb code, words;
        base_sb_init(&code), base_sb_init(&words);
        ir_layout_print_state(&L[r], &code, &words);
        CHECK_MSG(!strcmp(words.s, order), "regime '%s': '%s'", named, words.s);
        base_sb_free(&code), base_sb_free(&words);
    }
    if (dl) dlclose(dl);
    for (int r = 0; r < m->nregimes; ++r) ir_state_layout_free(&L[r]);
    free(L), free(fn);
    ir_vars_free(&V);
}

static void test_layouts(void)
{
    ir_vars V;
    ir_shard S;
    slots_of(&model, &V, &S);
    ir_state_layout L;
    ir_state_layout_build(&model, &V, &S, 0, &L);
    CHECK(L.sharded && L.nsplayed == 2 && L.splayed[0] == 1 && L.splayed[1] == 3 && L.nfree == 4);
    CHECK(L.axis[1].chunk == 0 && L.axis[3].chunk == 1 && L.axis[4].chunk < 0 && L.axis[5].chunk < 0);
    CHECK(L.order[0] == 5 && L.order[1] == 4 && L.order[2] == 3 && L.order[3] == 1); /* the last state fastest */
    CHECK(L.order[4] == 2 && L.order[5] == 0);                                        /* then group, type */
    CHECK(L.per_combo == 2 * 7 * 5 * 4 && ir_layout_tiles(&L) == 2 * 3);
    int chunk[LCM_MAX_SPLAYED];
    ir_layout_tile(&L, 5, chunk); /* health's chunk 1, wealth's last (one point) */
    CHECK(chunk[0] == 1 && chunk[1] == 2 && ir_layout_launch_size(&L, 4, chunk) == 4 * 1 * 1 * 5 * 4);
    lcm_sb code;
    base_sb_init(&code);
    ir_layout_print_chunk_start(&L, 3, &code);
    base_sb_puts(&code, " | "), ir_layout_print_code(&L, 3, "p", &code);
    base_sb_puts(&code, " | "), ir_layout_print_code(&L, 4, "p", &code);
    CHECK_MSG(!strcmp(code.s, "a->chunk[1] * 3 | (p / 20 % 7 - a->chunk[1] * 3) | p / 4 % 5"), "%s", code.s);
    base_sb_free(&code);
    ir_state_layout_free(&L);
    ir_vars_free(&V);
    test_model(&model, "work", "this launch's block of the sharded states, one chunk of the splayed states.");
    test_model(&model, "plain", "l itself.");
    test_model(&model, "wide", "one chunk of the splayed states.");
}

/* ---- the decode of a flat index, in C and as kernel text ----------------------------- */
typedef void (*decode_fn)(const lcm_kernel_args *a, lcm_index flat, int *code, long long *point, int *ok);

/* The printed decodes' value: the code itself. */
static void code_value(void *ctx, int i, lcm_sb *b)
{
    (void)ctx;
    base_sb_printf(b, "code[%d] = c;", i);
}

/* A function `name(a, flat, code, point, ok)` around printed decode text
 * (`rest`, `point` and the sharded values x[] its variables): *ok = 0 where
 * the text returns early. */
static void decode_function(lcm_sb *src, const char *name, const char *var, const char *text, int point)
{
    base_sb_printf(src, "\nvoid %s(const lcm_kernel_args *a, lcm_index flat, int *code, long long *pt, int *ok)\n{\n"
                  "    (void)a, (void)pt;\n    real x[80] = {0};\n    lcm_index %s = flat;\n    *ok = 0;\n%s"
                  "    for (int i = 0; i < 80; ++i) code[i] += (int)x[i];\n    (void)%s;\n"
                  "%s    *ok = 1;\n}\n", name, var, text, var, point ? "    *pt = point;\n" : "");
}

/* Compiles src (kernel_abi.h first) and finds the functions name0, name1, ... */
static void *compile_decodes(lcm_sb *src, int n, decode_fn *fn)
{
    lcm_err err = {0};
    char *dir = test_tmpdir("layout"), *c = base_path_join(dir, "decode.c"), *so = base_path_join(dir, "decode.so");
    CHECK_OK(sys_write_file_atomic(c, src->s, src->len, &err));
    char *argv[] = {"cc", "-std=c11", "-Wall", "-Werror", "-fPIC", "-shared", "-o", so, c, NULL}, *out;
    int st = be_run_capture(argv, NULL, &out);
    CHECK_MSG(st == 0, "compiling the printed decodes failed:\n%s\n%s", out, src->s);
    void *dl = st == 0 ? dlopen(so, RTLD_NOW) : NULL;
    CHECK(dl != NULL);
    for (int k = 0; dl && k < n; ++k) {
        char name[32];
        snprintf(name, sizeof name, "decode%d", k);
        *(void **)&fn[k] = dlsym(dl, name);
        CHECK(fn[k] != NULL);
    }
    free(out), free(c), free(so), free(dir);
    return dl;
}

/* ir_layout_decode and ir_layout_encode are inverses over V (with a state
 * left out too), and the printed decode (ir_layout_print_decode: the
 * kernels' `_at` and the EGM table's) gives the same codes; the combined
 * index of the sharded states (ir_layout_combo, its printed form and the
 * subjects' by slot) is the block a state of ir_layout_state lies in; and
 * every table entry (ir_layout_entry, whole axes or a launch's chunks,
 * with and without the sharded states and the flat point) is the same in C
 * and in the printed text of ir_layout_print_entry. */
static void test_decode(void)
{
    ir_vars V;
    ir_shard S;
    slots_of(&model, &V, &S);
    ir_state_layout L[4];
    for (int r = 0; r < 4; ++r) ir_state_layout_build(&model, &V, &S, r, &L[r]);
    const ir_regime *R = &regimes[0];
    /* decode0: whole axes; decode1: without wealth; decode2..5: entries of
     * work (all states, sharded, point; every other state, unsharded, no
     * point; none but the sharded), then plain's (with point); combo0:
     * the printed combined index */
    lcm_sb src, text;
    base_sb_init(&src), base_sb_init(&text);
    base_sb_puts(&src, lcm_embed_kernel_abi_h);
    base_sb_puts(&src, "\ntypedef double real;\n");
    const char *names[] = {"decode0", "decode1", "decode2", "decode3", "decode4", "decode5"};
    for (int skip = -1; skip <= 3; skip += 4) {
        base_sb_free(&text), base_sb_init(&text);
        ir_layout_print_decode(R, skip < 0 ? 0 : (uint64_t)1 << skip, "rem", 4, code_value, NULL, &text);
        decode_function(&src, names[skip < 0 ? 0 : 1], "rem", text.s, 0);
    }
    struct { int r; uint64_t states; int sharded, point; } entries[] = {
        {0, 0x3f, 1, 1}, {0, 0x2a, 0, 0}, {0, 0, 1, 0}, {2, 0x3, 0, 1}};
    for (int k = 0; k < 4; ++k) {
        base_sb_free(&text), base_sb_init(&text);
        ir_layout_print_entry(&L[entries[k].r], entries[k].states, entries[k].sharded, entries[k].point, "x", 4,
                              code_value, NULL, &text);
        decode_function(&src, names[2 + k], "rest", text.s, entries[k].point);
    }
    base_sb_free(&text), base_sb_init(&text);
    ir_layout_print_combo(&L[0], "code", &text);
    base_sb_printf(&src, "\nlong long combo0(const int *code) { return %s; }\n", text.s);
    decode_fn fn[6] = {0};
    void *dl = compile_decodes(&src, 6, fn);
    long long (*combo_fn)(const int *) = NULL;
    if (dl) *(void **)&combo_fn = dlsym(dl, "combo0");
    CHECK(combo_fn != NULL);
    long long N = ir_state_space_size(R), wrong = 0, differ = 0;
    for (lcm_index s = 0; s < N; ++s) {
        int code[6], printed[80] = {0}, ok = 0;
        ir_layout_decode(R->states, 6, -1, s, code);
        for (int i = 0; i < 6; ++i) wrong += code[i] < 0 || code[i] >= R->states[i].grid.n;
        wrong += ir_layout_encode(R->states, 6, -1, code) != s;
        if (fn[0]) fn[0](NULL, s, printed, NULL, &ok), differ += !ok || memcmp(printed, code, sizeof code);
        /* the same without wealth: the flat index of the other five */
        int five[6] = {0}, back[80] = {0};
        lcm_index f = s % (N / 7);
        ir_layout_decode(R->states, 6, 3, f, five);
        wrong += five[3] != 0 || ir_layout_encode(R->states, 6, 3, five) != f;
        if (fn[1]) fn[1](NULL, f, back, NULL, &ok), differ += !ok || memcmp(back, five, sizeof five);
    }
    CHECK_MSG(!wrong && !differ, "decode: %lld codes wrong, %lld where the printed decode differs", wrong, differ);

    /* the sharded states' combined index: the block of the state */
    for (int D = 1; D <= 5; ++D)
        for (int w = 0; w < D; ++w) {
            long long lo, hi;
            ir_shard_block(&S, w, D, &lo, &hi);
            for (long long l = 0, n = ir_layout_launch_size(&L[0], hi - lo, NULL); l < n; ++l) {
                int code[6];
                double x[80] = {0};
                ir_layout_decode(R->states, 6, -1, ir_layout_state(&L[0], lo, NULL, l), code);
                for (int i = 0; i < 6; ++i) x[V.state_slot[0][i]] = code[i];
                long long combo = ir_layout_combo(&L[0], code);
                wrong += combo < lo || combo >= hi || ir_layout_combo_of_slots(&S, x) != combo ||
                         combo != (long long)code[0] * 2 + code[2]; /* type, then group */
                differ += combo_fn && combo_fn(code) != combo;
            }
        }
    CHECK_MSG(!wrong && !differ, "combo: %lld states outside their block, %lld where the printed combo differs",
              wrong, differ);

    /* table entries: every chunk, two combined-index values a block, every entry */
    for (int k = 0; k < 4; ++k) {
        const ir_state_layout *E = &L[entries[k].r];
        long long n = 1, M = ir_state_space_size(E->r);
        for (int d = 0; d < E->nfree; ++d)
            if (entries[k].states >> E->order[d] & 1) n *= E->axis[E->order[d]].width;
        long long entries_seen = 0;
        for (long long tile = 0; tile < ir_layout_tiles(E); ++tile) {
            lcm_kernel_args a = {.shard_lo = 0};
            ir_layout_tile(E, tile, a.chunk);
            for (long long lo = 0; lo < (entries[k].sharded ? S.combos : 1); lo += 2) {
                a.shard_lo = lo;
                long long rows = entries[k].sharded ? (S.combos - lo < 2 ? S.combos - lo : 2) : 1;
                for (long long rest = 0; rest < n * rows; ++rest) {
                    int code[80] = {0}, printed[80] = {0}, ok = 0, in;
                    long long point = -1, ppoint = -1;
                    in = ir_layout_entry(E, entries[k].states, entries[k].sharded, lo, a.chunk, rest, code,
                                         entries[k].point ? &point : NULL);
                    if (fn[2 + k]) fn[2 + k](&a, rest, printed, &ppoint, &ok);
                    differ += ok != in || (in && (memcmp(printed, code, sizeof code) || point != ppoint));
                    if (!in) continue;
                    ++entries_seen;
                    if (entries[k].point) {
                        int full[80] = {0};
                        for (int i = 0; i < E->r->nstates; ++i)
                            full[i] = entries[k].states >> i & 1 ||
                                      (entries[k].sharded && E->r->states[i].grid.distributed) ? code[i] : 0;
                        wrong += point < 0 || point >= M || ir_layout_encode(E->r->states, E->r->nstates, -1, full) != point;
                    }
                }
            }
        }
        CHECK_MSG(entries_seen > 0, "entry %d: no entries", k);
    }
    CHECK_MSG(!wrong && !differ, "entries: %lld points wrong, %lld where the printed entry differs", wrong, differ);
    if (dl) dlclose(dl);
    base_sb_free(&src), base_sb_free(&text);
    for (int r = 0; r < 4; ++r) ir_state_layout_free(&L[r]);
    ir_vars_free(&V);
}

/* Generated models: the bundled sharded model with a splayed state, and
 * one whose states all ask for whole-axis chunks (more than the splay
 * limit of them, which is no splay: the DSL asks C what splays). */
static void test_generated(void)
{
    lcm_err err = {0};
    lcm_model *m = NULL;
    const char *defines[] = {"axes=2", "splay=wealth", "wealth_points=11", NULL};
    CHECK_OK(test_generate("tests/models/sharded.lua", defines, &m, &err));
    if (m) test_model(core_model_ir(m), NULL, NULL);
    lcm_model_free(m);
    m = NULL;
    const char *whole = "local lcm = require('lcm')\n"
                        "local states = {}\n"
                        "for i = 1, 10 do states['s' .. i] = lcm.linspace{ start = 1, stop = 2, n_points = 2, "
                        "batch_size = i % 2 + 2 } end\n"
                        "local dead = lcm.regime{ terminal = true, states = states,\n"
                        "  functions = { utility = function(s1) return s1 end } }\n"
                        "return lcm.model{ ages = lcm.ages{ start = 0, stop = 1 }, regimes = { dead = dead } }\n";
    CHECK_OK(test_generate_text(whole, &m, &err));
    if (m) test_model(core_model_ir(m), "dead", "l itself.");
    lcm_model_free(m);
}

int main(void)
{
    build_model();
    test_axis();
    test_check();
    test_layouts();
    test_decode();
    test_generated();
    CHECK_DONE();
}
