/* test_progress.c - lcm.h's progress callback, linked with liblcm.so: what
 * a solve and a simulation tell it, step by step; a callback that cancels
 * after the first step gets LCM_E_CANCELLED with its message and no
 * solution or panel; the solver solves and simulates in full afterwards,
 * and its V is that of a solver without a callback.  Includes nothing
 * internal.
 *
 *   progress_api DIR INITIAL.csv     (DIR: lcmgen models/tiny.lua -o DIR)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcm.h"

static int failures;
#define CHECK(c)                                                                   \
    do {                                                                           \
        if (!(c)) fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c), ++failures; \
    } while (0)

/* What the callback saw, and when it cancels. */
typedef struct seen {
    long long cancel_at; /* the step (done) at which it returns non-zero; 0: never */
    int calls;
    lcm_progress_info first, last;
    int monotone;        /* done rose by one each call, seconds never fell, fields stayed in range */
} seen;

static int tell(const lcm_progress_info *p, void *user)
{
    seen *s = user;
    if (!s->calls) s->first = *p, s->monotone = 1;
    else if (p->done != s->last.done + 1 || p->seconds < s->last.seconds || p->what != s->last.what) s->monotone = 0;
    if (p->done < 1 || p->done > p->total || p->period < 0 || p->period >= p->periods || !p->model) s->monotone = 0;
    s->last = *p;
    ++s->calls;
    return s->cancel_at && p->done >= s->cancel_at;
}

static void reset(seen *s, long long cancel_at)
{
    memset(s, 0, sizeof *s);
    s->cancel_at = cancel_at;
}

static lcm_pvalue *tiny_params(void)
{
    lcm_pvalue *p = lcm_pv_table();
    lcm_pv_put(p, "discount_factor", lcm_pv_num(0.95));
    lcm_pv_put(p, "risk_aversion", lcm_pv_num(2.0));
    lcm_pv_put(p, "interest_rate", lcm_pv_num(0.04));
    return p;
}

/* Every V of two solutions is the same double. */
static int same_v(const lcm_model *m, const lcm_solution *a, const lcm_solution *b)
{
    int same = 1;
    for (int t = 0; t < lcm_model_periods(m); ++t)
        for (int r = 0; r < lcm_model_regimes(m); ++r) {
            lcm_index na = 0, nb = 0;
            const void *va = lcm_solution_V(a, t, r, &na), *vb = lcm_solution_V(b, t, r, &nb);
            if (!va != !vb || na != nb) return 0;
            for (lcm_index i = 0; va && i < na; ++i)
                same &= lcm_solution_value(a, t, r, i) == lcm_solution_value(b, t, r, i);
        }
    return same;
}

/* A solve tells every period, from the last down to 0; one that cancels
 * after the first returns no solution and says so. */
static void check_solve(const lcm_model *m, lcm_solver *sv, seen *s, const lcm_pvalue *params,
                        const lcm_solution *plain)
{
    int T = lcm_model_periods(m);
    lcm_err err = {0};
    lcm_solution *sol = NULL;
    reset(s, 0);
    CHECK(lcm_solve(sv, params, &sol, &err) == 0 && sol);
    CHECK(s->calls == T && s->monotone);
    CHECK(s->first.what == LCM_PROGRESS_SOLVE && !strcmp(s->first.model, "tiny") && s->first.subjects == 0);
    CHECK(s->first.period == T - 1 && s->first.done == 1 && s->first.total == T && s->first.periods == T);
    CHECK(s->first.age == lcm_model_age(m, T - 1));
    CHECK(s->last.period == 0 && s->last.done == T && s->last.seconds >= 0);
    CHECK(same_v(m, sol, plain));
    lcm_solution_free(sol);

    reset(s, 1);
    sol = NULL;
    CHECK(lcm_solve(sv, params, &sol, &err) == LCM_E_CANCELLED);
    CHECK(!sol && s->calls == 1);
    CHECK(err.code == LCM_E_CANCELLED && strstr(err.msg, "the solve of model 'tiny' was cancelled by its progress "
                                                         "callback after period 2 (step 1 of 3): no solution"));
    if (!strstr(err.msg, "cancelled")) fprintf(stderr, "message: %s\n", err.msg);

    /* the solver goes on as if nothing happened: the same V as a solver without a callback */
    reset(s, 0);
    CHECK(lcm_solve(sv, params, &sol, &err) == 0 && sol && s->calls == T);
    CHECK(same_v(m, sol, plain));
    lcm_solution_free(sol);
}

/* A simulation tells each period of each batch; cancelled after the first
 * it returns no panel (lcm_simulate_again: the one it was given is freed). */
static void check_simulate(const lcm_model *m, lcm_solver *sv, seen *s, const lcm_solution *sol,
                           const lcm_initial *ic)
{
    int T = lcm_model_periods(m);
    lcm_index n = lcm_initial_subjects(ic), K = 30, batches = (n + K - 1) / K;
    lcm_sim_options so = {.seed = 5, .subject_batch_size = K};
    lcm_err err = {0};
    lcm_panel *panel = NULL, *plain = NULL;
    reset(s, 0);
    CHECK(lcm_simulate(sv, sol, ic, &so, &plain, &err) == 0 && plain);
    CHECK(s->calls == batches * T && s->monotone);
    CHECK(s->first.what == LCM_PROGRESS_SIMULATE && s->first.subjects == n && s->first.total == batches * T);
    CHECK(s->first.period == 0 && s->first.batch_first == 0 && s->first.batch_size == K);
    CHECK(s->last.period == T - 1 && s->last.batch_first == (batches - 1) * K && s->last.batch_size == n - (batches - 1) * K);

    reset(s, 1);
    CHECK(lcm_simulate(sv, sol, ic, &so, &panel, &err) == LCM_E_CANCELLED && !panel && s->calls == 1);
    CHECK(strstr(err.msg, "the simulation of model 'tiny' was cancelled by its progress callback after period 0 of "
                          "subjects 0 to 29 (step 1 of 12): no panel"));
    if (!strstr(err.msg, "cancelled")) fprintf(stderr, "message: %s\n", err.msg);
    reset(s, 2);
    CHECK(lcm_simulate_again(sv, sol, ic, &so, &plain, &err) == LCM_E_CANCELLED && !plain && s->calls == 2);

    /* and in full again afterwards */
    reset(s, 0);
    CHECK(lcm_simulate(sv, sol, ic, &so, &panel, &err) == 0 && panel && s->calls == batches * T);
    CHECK(lcm_panel_rows(panel) > 0);
    lcm_panel_free(panel);
}

/* Two workers of this process (devices = 2, cpu) solve one after the
 * other: each tells its periods, T steps each, and a cancel in the first
 * stops the second from starting. */
static void check_workers(const lcm_model *m, const lcm_pvalue *params, const lcm_solution *plain)
{
    int T = lcm_model_periods(m);
    seen s;
    reset(&s, 0);
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .devices = 2, .progress = tell, .progress_user = &s};
    lcm_solver *sv = NULL;
    lcm_err err = {0};
    lcm_set_log_level(LCM_LOG_OFF); /* tiny shards no state: its warning says both workers solve all of it */
    int rc = lcm_solver_new(m, &o, &sv, &err);
    lcm_set_log_level(LCM_LOG_WARNING);
    CHECK(rc == 0 && sv);
    if (rc) return;
    lcm_solution *sol = NULL;
    CHECK(lcm_solve(sv, params, &sol, &err) == 0 && sol);
    CHECK(s.calls == 2 * T && s.monotone && s.last.total == 2 * T && s.last.period == 0);
    CHECK(same_v(m, sol, plain));
    lcm_solution_free(sol);
    reset(&s, T); /* the first worker's last period */
    sol = NULL;
    CHECK(lcm_solve(sv, params, &sol, &err) == LCM_E_CANCELLED && !sol && s.calls == T);
    lcm_solver_free(sv);
}

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    lcm_err err = {0};
    lcm_model *m = NULL;
    lcm_solver *sv = NULL, *bare = NULL;
    lcm_initial *ic = NULL;
    lcm_solution *plain = NULL;
    lcm_set_log_level(LCM_LOG_WARNING);
    seen s;
    reset(&s, 0);
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .progress = tell, .progress_user = &s};
    lcm_pvalue *params = tiny_params();
    if (lcm_model_open_dir(argv[1], &m, &err) || lcm_solver_new(m, &o, &sv, &err) ||
        lcm_solver_new(m, &(lcm_solver_options){.backend = LCM_BACKEND_CPU}, &bare, &err) ||
        lcm_initial_read(m, argv[2], &ic, &err) || lcm_solve(bare, params, &plain, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    CHECK(LCM_E_CANCELLED == 11);
    check_solve(m, sv, &s, params, plain);
    check_simulate(m, sv, &s, plain, ic);
    check_workers(m, params, plain);

    /* the interp backend tells the same steps */
    lcm_solver *interp = NULL;
    lcm_solver_options oi = {.backend = LCM_BACKEND_INTERP, .progress = tell, .progress_user = &s};
    reset(&s, 1);
    lcm_solution *sol = NULL;
    CHECK(lcm_solver_new(m, &oi, &interp, &err) == 0);
    CHECK(lcm_solve(interp, params, &sol, &err) == LCM_E_CANCELLED && !sol && s.calls == 1);
    lcm_solver_free(interp);

    lcm_solution_free(plain);
    lcm_initial_free(ic);
    lcm_solver_free(sv);
    lcm_solver_free(bare);
    lcm_pv_free(params);
    lcm_model_free(m);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("progress callback: all checks passed\n");
    return failures != 0;
}
