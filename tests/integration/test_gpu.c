#define _GNU_SOURCE
/* On a GPU: every bundled and test model solved by the cuda backend equals
 * the cpu backend (float64 to 1e-10, float32 to 1e-4; EGM splayed too), a replayed solve
 * (CUDA graph) equals the first, the same without graphs, failed checks
 * give the same errors, and device memory is accounted; the bundled
 * models' panels simulated on the GPU have the cpu's rows and values (to
 * 1e-10) for every subject batch size, those of models solved by the
 * endogenous grid method too, and the choice probabilities of a regime
 * with taste shocks solved by EGM (kept by the kernels) are the cpu's,
 * whether or not the simulation before asked for them.  Exits 77 (skipped)
 * when no GPU is usable. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "cuda_api.h"
#include "panel.h"
#include "testlib.h"

static const struct {
    const char *model, *params, *define[2]; /* its -D options (NULL: none) */
} cases[] = {
    {"models/tiny.lua", "models/tiny.params.lua", {NULL}},
    {"models/mortality.lua", "models/mortality.params.lua", {NULL}},
    {"models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua", {NULL}},
    {"models/iskhakov_2017.lua", "models/iskhakov_2017_low_delta.params.lua", {"n_periods=4"}},
    {"tests/models/grid_edges.lua", "tests/models/discount_only.params.lua", {NULL}},
    {"tests/models/cake_eating.lua", "tests/models/discount_only.params.lua", {NULL}},
    {"tests/models/aggregator.lua", "tests/models/aggregator.params.lua", {"aggregator=nonlinear"}},
    /* the expected next V of shock processes (ir/precompute.h, "ev"): made by the table's kernel */
    {"models/precautionary_savings.lua", "models/precautionary_savings.params.lua", {"wealth_points=300"}},
    {"tests/models/expected_v.lua", "tests/models/expected_v.params.lua", {"shard=true"}},
    /* terms the CPU hoists out of an action loop and the GPU computes in place (emit.c, "hoisted terms") */
    {"tests/models/hoisted_terms.lua", "tests/models/hoisted_terms.params.lua", {NULL}},
    {"tests/models/hoisted_terms.lua", "tests/models/hoisted_terms_middle.params.lua", {"middle=true"}},
    /* the endogenous grid method */
    {"tests/models/egm_cake.lua", "tests/models/egm_cake.params.lua", {NULL}},
    {"models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua", {"solver=egm"}},
    {"models/precautionary_savings.lua", "models/precautionary_savings.params.lua", {"solver=egm"}},
    {"models/precautionary_savings_health.lua", "models/precautionary_savings_health.params.lua", {"solver=egm"}},
    /* EGM with its liquid state splayed, and with a type splayed as well */
    {"tests/models/egm_cake.lua", "tests/models/egm_cake.params.lua", {"wealth_batch=30"}},
    {"tests/models/egm_cake.lua", "tests/models/egm_cake.params.lua", {"types=3", "kind_batch=1"}},
};

static lcm_solution *solve(lcm_model *m, lcm_pvalue *p, lcm_backend_kind b, int precision, lcm_solver **keep)
{
    lcm_err err = {0};
    lcm_solver *s = NULL;
    lcm_solution *sol = NULL;
    lcm_solver_options o = {.backend = b, .precision = precision};
    CHECK_OK(lcm_solver_new(m, &o, &s, &err));
    if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
    if (keep) *keep = s;
    else lcm_solver_free(s);
    return sol;
}

/* ---- simulation ---------------------------------------------------------------- */

/* A simulation by `s`, or by a solver of its own on backend b (s NULL). */
static lcm_panel *simulate(lcm_model *m, lcm_solver *s, const lcm_solution *sol, lcm_backend_kind b,
                           const lcm_initial *ic, lcm_index batch)
{
    lcm_err err = {0};
    lcm_solver *own = NULL;
    lcm_panel *p = NULL;
    lcm_solver_options o = {.backend = b, .precision = 64};
    lcm_sim_options so = {.seed = 3, .subject_batch_size = batch};
    if (!s) CHECK_OK(lcm_solver_new(m, &o, &own, &err));
    if (s || own) CHECK_OK(lcm_simulate(s ? s : own, sol, ic, &so, &p, &err));
    lcm_solver_free(own);
    return p;
}

/* The bundled models, and then two of them solved by the endogenous grid method. */
static void check_simulation(void)
{
    lcm_err err = {0};
    const test_bundled_model egm[] = {
        {"models/iskhakov_2017.lua", "models/iskhakov_2017.params.lua", "models/iskhakov_2017.initial.csv"},
        {"models/precautionary_savings.lua", "models/precautionary_savings.params.lua",
         "models/precautionary_savings.initial.csv"},
    };
    for (size_t i = 0; i < (size_t)test_nbundled + 2; ++i) {
        const test_bundled_model *b = i < (size_t)test_nbundled ? &test_bundled[i] : &egm[i - (size_t)test_nbundled];
        const char *defines[] = {i < (size_t)test_nbundled ? NULL : "solver=egm", NULL};
        lcm_model *m = NULL;
        lcm_solution *sol = NULL;
        lcm_initial *ic = NULL;
        char *init = test_path(b->initial);
        CHECK_OK(test_solve(b->model, defines, b->params, LCM_BACKEND_CPU, 64, &m, &sol, &err));
        if (sol) CHECK_OK(lcm_initial_read(m, init, &ic, &err));
        free(init);
        if (!ic) continue;
        lcm_panel *cpu = simulate(m, NULL, sol, LCM_BACKEND_CPU, ic, 0);
        /* one solver: each simulation takes the device buffers of the one
         * before where they are large enough, else new ones */
        lcm_solver *cuda = NULL;
        lcm_solver_options o = {.backend = LCM_BACKEND_CUDA, .precision = 64};
        CHECK_OK(lcm_solver_new(m, &o, &cuda, &err));
        const lcm_index batches[] = {7, 1000, 0, 3};
        for (int k = 0; k < 4 && cpu && cuda; ++k) {
            lcm_panel *gpu = simulate(m, cuda, sol, LCM_BACKEND_CUDA, ic, batches[k]);
            double d = gpu ? test_panel_diff(gpu, cpu) : INFINITY;
            printf("%s %s: simulation on cuda vs cpu (batch %lld): %lld rows, max difference %.2e\n", b->model,
                   defines[0] ? defines[0] : "", (long long)batches[k], (long long)cpu->n, d);
            CHECK(d <= 1e-10);
            lcm_panel_free(gpu);
        }
        lcm_solver_free(cuda);
        lcm_panel_free(cpu);
        lcm_initial_free(ic);
        lcm_solution_free(sol);
        lcm_model_free(m);
    }
}

/* Iskhakov et al. by DC-EGM with taste shocks: the ccp targets on cuda are
 * the cpu's (1e-10), by one solver whose simulations alternate without and
 * with them (the kept device buffers then lack the choice slots, or have
 * more than needed). */
static void check_egm_choice_probabilities(void)
{
    lcm_err err = {0};
    const char *defines[] = {"solver=egm", "taste_shocks=true", NULL};
    lcm_model *m = NULL;
    lcm_solution *sol = NULL;
    lcm_initial *ic = NULL;
    char *init = test_path("models/iskhakov_2017.initial.csv");
    CHECK_OK(test_solve("models/iskhakov_2017.lua", defines, "models/iskhakov_2017_taste_shocks.params.lua",
                        LCM_BACKEND_CPU, 64, &m, &sol, &err));
    if (sol) CHECK_OK(lcm_initial_read(m, init, &ic, &err));
    free(init);
    lcm_solver *cpu = NULL, *cuda = NULL;
    lcm_solver_options oc = {.backend = LCM_BACKEND_CPU, .precision = 64}, og = {.backend = LCM_BACKEND_CUDA, .precision = 64};
    if (ic) CHECK_OK(lcm_solver_new(m, &oc, &cpu, &err));
    if (ic) CHECK_OK(lcm_solver_new(m, &og, &cuda, &err));
    lcm_sim_options with = {.seed = 5, .targets = "ccp_work,ccp_retire"}, without = {.seed = 5};
    lcm_panel *want = NULL;
    if (cpu) CHECK_OK(lcm_simulate(cpu, sol, ic, &with, &want, &err));
    const int asks[] = {0, 1, 0, 1};
    const lcm_index batches[] = {0, 0, 0, 7};
    for (int k = 0; k < 4 && want && cuda; ++k) {
        lcm_sim_options o = asks[k] ? with : without;
        o.subject_batch_size = batches[k];
        lcm_panel *got = NULL;
        CHECK_OK(lcm_simulate(cuda, sol, ic, &o, &got, &err));
        if (!got) continue;
        double d = test_panel_diff(got, want), worst = 0;
        for (lcm_index i = 0; asks[k] && i < got->n && got->n == want->n; ++i)
            for (int t = 0; t < got->ntargets; ++t) {
                double a = got->targets[(size_t)t * (size_t)got->n + (size_t)i];
                double b = want->targets[(size_t)t * (size_t)want->n + (size_t)i];
                if (!(isnan(a) && isnan(b))) worst = fmax(worst, isnan(a - b) ? INFINITY : fabs(a - b));
            }
        printf("DC-EGM with taste shocks on cuda vs cpu (%s targets, batch %lld): panel %.2e, ccp %.2e\n",
               asks[k] ? "with" : "without", (long long)batches[k], d, worst);
        CHECK(d <= 1e-10 && worst <= 1e-10 && (!asks[k] || got->ntargets == 2));
        lcm_panel_free(got);
    }
    lcm_panel_free(want);
    lcm_solver_free(cpu), lcm_solver_free(cuda);
    lcm_initial_free(ic);
    lcm_solution_free(sol);
    lcm_model_free(m);
}

/* The sharded test model on the GPU: the NCCL path (a communicator of one
 * GPU, or of as many as there are) and the host path give the cpu's V. */
static void check_nccl(void)
{
    lcm_err err = {0};
    lcm_model *m = NULL;
    lcm_solution *cpu = NULL;
    const char *defines[] = {"axes=2", NULL};
    CHECK_OK(test_solve("tests/models/sharded.lua", defines, "tests/models/sharded.params.lua", LCM_BACKEND_CPU, 64, &m,
                        &cpu, &err));
    lcm_pvalue *p = NULL;
    CHECK_OK(test_params("tests/models/sharded.params.lua", &p, &err));
    int gpus = be_cuda_device_count();
    for (int k = 0; k < 2 && cpu && p; ++k) {
        if (k) setenv("LCM_NO_NCCL", "1", 1);
        for (int devices = 1; devices <= gpus && devices <= 4; devices *= 2) {
            lcm_solver *s = NULL;
            lcm_solution *sol = NULL;
            lcm_solver_options o = {.backend = LCM_BACKEND_CUDA, .devices = devices};
            CHECK_OK(lcm_solver_new(m, &o, &s, &err));
            if (s) CHECK_OK(lcm_solve(s, p, &sol, &err));
            double d = sol ? test_max_rel_diff(sol, cpu) : 1;
            printf("sharded model on %d GPU worker(s), %s: cuda vs cpu %.2e\n", devices, k ? "host reduction" : "NCCL", d);
            CHECK(d <= 1e-10);
            lcm_solution_free(sol);
            lcm_solver_free(s);
        }
        unsetenv("LCM_NO_NCCL");
    }
    lcm_pv_free(p);
    lcm_solution_free(cpu);
    lcm_model_free(m);
}

int main(void)
{
    if (be_cuda_device_count() == 0) {
        printf("no usable GPU: skipped\n");
        return 77;
    }
    lcm_err err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        const char *defines[] = {cases[i].define[0], cases[i].define[1], NULL};
        lcm_model *m = NULL;
        lcm_pvalue *p = NULL;
        CHECK_OK(test_generate(cases[i].model, defines, &m, &err));
        CHECK_OK(test_params(cases[i].params, &p, &err));
        if (!m || !p) continue;
        lcm_solver *gpu = NULL;
        lcm_solution *cpu64 = solve(m, p, LCM_BACKEND_CPU, 64, NULL);
        lcm_solution *cpu32 = solve(m, p, LCM_BACKEND_CPU, 32, NULL);
        lcm_solution *g64 = solve(m, p, LCM_BACKEND_CUDA, 64, &gpu);
        lcm_solution *g32 = solve(m, p, LCM_BACKEND_CUDA, 32, NULL);
        lcm_solution *again = NULL;
        if (gpu) CHECK_OK(lcm_solve(gpu, p, &again, &err)); /* replays the graph */
        setenv("LCM_NO_GRAPHS", "1", 1);
        lcm_solution *nograph = solve(m, p, LCM_BACKEND_CUDA, 64, NULL);
        unsetenv("LCM_NO_GRAPHS");
        if (cpu64 && cpu32 && g64 && g32 && again && nograph) {
            double d64 = test_max_rel_diff(g64, cpu64), d32 = test_max_rel_diff(g32, cpu32);
            printf("%s %s %s: cuda vs cpu float64 %.2e, float32 %.2e; replay %.0e, no graph %.0e; device peak %.2f "
                   "MiB\n", cases[i].model, cases[i].define[0] ? cases[i].define[0] : "",
                   cases[i].define[1] ? cases[i].define[1] : "", d64, d32, test_max_rel_diff(again, g64),
                   test_max_rel_diff(nograph, g64), (double)lcm_solver_device_peak(gpu) / 1048576.0);
            CHECK(d64 <= 1e-10);
            CHECK(d32 <= 1e-4);
            CHECK(test_max_rel_diff(again, g64) == 0);
            CHECK(test_max_rel_diff(nograph, g64) == 0);
            CHECK(lcm_solver_device_peak(gpu) > 0);
        }
        lcm_solution_free(cpu64), lcm_solution_free(cpu32), lcm_solution_free(g64), lcm_solution_free(g32);
        lcm_solution_free(again), lcm_solution_free(nograph);
        lcm_solver_free(gpu);
        lcm_pv_free(p);
        lcm_model_free(m);
    }
    /* a failed check is the same error on the GPU */
    lcm_model *m = NULL;
    CHECK_OK(test_generate("tests/bad_input/models/nan_log.lua", NULL, &m, &err));
    if (m) {
        lcm_pvalue *p = lcm_pv_table();
        for (int b = LCM_BACKEND_CPU; b <= LCM_BACKEND_CUDA; ++b) {
            lcm_solver *s = NULL;
            lcm_solution *sol = NULL;
            lcm_solver_options o = {.backend = (lcm_backend_kind)b};
            CHECK_OK(lcm_solver_new(m, &o, &s, &err));
            lcm_err e2 = {0};
            int rc = s ? lcm_solve(s, p, &sol, &e2) : -1;
            CHECK_MSG(rc == LCM_E_NUMERIC && strstr(e2.msg, "V is NaN"), "backend %d: %s", b, e2.msg);
            lcm_solution_free(sol);
            lcm_solver_free(s);
        }
        lcm_pv_free(p);
        lcm_model_free(m);
    }
    check_simulation();
    check_egm_choice_probabilities();
    check_nccl();
    CHECK_DONE();
}
