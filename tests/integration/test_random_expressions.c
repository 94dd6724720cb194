#define _GNU_SOURCE
/* Random expression DAGs: the emitter's C (compiled by the host compiler)
 * against the IR interpreter at random points, float64, 1e-12 relative,
 * NaN and infinities matching exactly. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "emit.h"
#include "eval.h"
#include "files.h"
#include "proc.h"
#include "testlib.h"

#define NEXPR 300
#define NPOINTS 40

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}
static int pick(int n) { return (int)(next_u64() % (uint64_t)n); }
static double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next_u64() >> 11) / 9007199254740992.0; }

/* One regime: states (discrete n=3, continuous), one action, three scalar
 * parameters and one array indexed by the discrete state. */
static void build_model(ir_model *m)
{
    memset(m, 0, sizeof *m);
    m->name = strdup("random");
    m->nperiods = 4;
    m->ages = calloc(4, sizeof *m->ages);
    for (int t = 0; t < 4; ++t) m->ages[t] = 20 + 2 * t;
    m->nparams = 4;
    m->params = calloc(4, sizeof *m->params);
    for (int i = 0; i < 4; ++i) {
        m->params[i].regime = strdup("r"), m->params[i].func = strdup("f");
        m->params[i].name = base_xasprintf("p%d", i);
    }
    m->params[3].ndims = 1, m->params[3].dims[0] = 3, m->params[3].dimnames[0] = strdup("d");
    m->nregimes = 1;
    m->regimes = calloc(1, sizeof *m->regimes);
    ir_regime *r = &m->regimes[0];
    r->name = strdup("r"), r->terminal = 1;
    r->active = calloc(4, 1);
    r->nstates = 2, r->nactions = 1;
    r->states = calloc(2, sizeof *r->states), r->actions = calloc(1, sizeof *r->actions);
    r->states[0].name = strdup("d"), r->states[0].grid.kind = GRID_DISCRETE, r->states[0].grid.n = 3;
    r->states[1].name = strdup("x"), r->states[1].grid.kind = GRID_LIN, r->states[1].grid.n = 2;
    r->actions[0].name = strdup("a"), r->actions[0].grid.kind = GRID_LIN, r->actions[0].grid.n = 2;
    for (int g = 0; g < IR_MAX_REGIMES; ++g) r->rprob[g] = -1;
    r->risk_aversion = -1; /* expected utility */
    r->taste_scale = -1; /* no taste shocks */
}

static int add(ir_regime *r, ir_node n)
{
    r->nodes = realloc(r->nodes, (r->nnodes + 1) * sizeof *r->nodes);
    n.src = -1;
    r->nodes[r->nnodes] = n;
    return (int)r->nnodes++;
}

/* Appends a random expression; returns its root. */
static int random_expr(ir_regime *r, int size)
{
    int first = (int)r->nnodes;
    int dvar = add(r, (ir_node){.op = OP_STATE, .ref = 0});
    add(r, (ir_node){.op = OP_STATE, .ref = 1});
    add(r, (ir_node){.op = OP_ACTION, .ref = 0});
    add(r, (ir_node){.op = OP_AGE});
    int per = add(r, (ir_node){.op = OP_PERIOD});
    add(r, (ir_node){.op = OP_ENEXT});
    for (int i = 0; i < 3; ++i) add(r, (ir_node){.op = OP_PARAM, .ref = i});
    add(r, (ir_node){.op = OP_PIDX, .ref = 3, .nargs = 1, .args = {dvar}});
    (void)per;
    static const double consts[] = {0, 1, -1, 0.5, 2, 3.25, -7.5, 1e-3, 100};
    for (int i = 0; i < 3; ++i) add(r, (ir_node){.op = OP_CONST, .k = consts[pick(9)]});
    for (int i = 0; i < size; ++i) {
        int n = (int)r->nnodes, lo = first;
        ir_op op = (ir_op)(OP_NEG + pick(OP_COUNT - OP_NEG));
        ir_node node = {.op = op, .nargs = ir_ops[op].arity};
        for (int a = 0; a < node.nargs; ++a) node.args[a] = lo + pick(n - lo);
        add(r, node);
    }
    return (int)r->nnodes - 1;
}

int main(void)
{
    ir_model m;
    build_model(&m);
    ir_regime *r = &m.regimes[0];
    int roots[NEXPR];
    for (int e = 0; e < NEXPR; ++e) roots[e] = random_expr(r, 4 + pick(24));
    r->utility = r->q = roots[NEXPR - 1];
    lcm_err err = {0};
    CHECK_OK(ir_model_check(&m, &err));

    lcm_sb src;
    base_sb_init(&src);
    gen_emit_prelude(&src);
    for (int e = 0; e < NEXPR; ++e) {
        char name[32];
        snprintf(name, sizeof name, "expr%d", e);
        CHECK_OK(gen_emit_node_function(&m, r, roots[e], name, &src, &err));
    }
    char *dir = test_tmpdir("random");
    char *c = base_path_join(dir, "expr.c"), *so = base_path_join(dir, "expr.so");
    CHECK_OK(sys_write_file_atomic(c, src.s, src.len, &err));
    char *argv[] = {"cc", "-O3", "-march=native", "-std=c11", "-fPIC", "-shared", "-fno-trapping-math", "-DLCM_PRECISION=64",
                    "-o", so, c, "-lm", NULL};
    char *out;
    int st = be_run_capture(argv, NULL, &out);
    CHECK_MSG(st == 0, "compiling random expressions failed:\n%s", out);
    free(out);
    void *dl = st == 0 ? dlopen(so, RTLD_NOW) : NULL;
    CHECK(dl != NULL);
    double *vals = calloc(r->nnodes, sizeof *vals);
    long compared = 0, special = 0;
    for (int e = 0; dl && e < NEXPR; ++e) {
        char name[32];
        snprintf(name, sizeof name, "expr%d", e);
        double (*fn)(const double *, const double *);
        *(void **)&fn = dlsym(dl, name);
        CHECK(fn != NULL);
        if (!fn) continue;
        for (int k = 0; k < NPOINTS; ++k) {
            double x[6] = {(double)pick(3), uniform(-5, 5), uniform(-5, 5), 20 + 2 * pick(4), (double)pick(4),
                           uniform(-10, 10)};
            double P[6] = {uniform(-3, 3), uniform(0.1, 4), uniform(-1, 1), uniform(-2, 2), uniform(-2, 2),
                           uniform(-2, 2)};
            ir_env env = {.states = x, .actions = x + 2, .age = x[3], .period = x[4], .enext = x[5], .params = P};
            ir_eval(&m, r, &env, vals, (size_t)roots[e] + 1);
            double want = vals[roots[e]], got = fn(x, P);
            special += isnan(want) || isinf(want);
            CHECK_MSG(close_rel(got, want, 1e-12), "expression %d at point %d: generated %.17g, interpreter %.17g", e,
                      k, got, want);
            ++compared;
        }
    }
    printf("%ld evaluations compared (%ld NaN or infinite on both sides)\n", compared, special);
    if (dl) dlclose(dl);
    unlink(c), unlink(so), rmdir(dir);
    free(c), free(so), free(dir), free(vals);
    base_sb_free(&src);
    ir_model_free(&m);
    CHECK_DONE();
}
