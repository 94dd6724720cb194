/* panel.h - a simulated panel: one row per subject and period it lived,
 * ordered by subject, then period (the structure behind lcm.h's lcm_panel).
 * Columnar: one array of n per column, so the simulation fills it and the
 * writers and lcm_panel_column read it without assembling rows. */
#ifndef LCM_PANEL_H
#define LCM_PANEL_H

#include "lcm_internal.h"
#include "vars.h"

/* The parts of a simulation, timed apart (bench_simulate prints them):
 * buffers (backend memory taken and given back), initial states, the
 * periods' steps (copies, kernels, waiting for them), recording on the
 * host threads (host backends), checking flags, the batches' cells home
 * into the panel, compacting into panel order. */
#define LCM_SIM_PHASES 7
extern const char *const lcm_sim_phase_names[LCM_SIM_PHASES];
enum { LCM_SIM_BUFFERS, LCM_SIM_INITIAL, LCM_SIM_STEPS, LCM_SIM_RECORD, LCM_SIM_CHECKS, LCM_SIM_HOME, LCM_SIM_COMPACT };

struct lcm_panel {
    const ir_model *m;
    ir_vars vars;
    int precision;            /* of the solve that made it: CSV prints float32 values shorter */
    lcm_index n;              /* rows */
    unsigned long long *subject;
    int *period, *regime;
    double *value;
    double **x;               /* [vars.nstates] columns of n: states by slot, NaN where the regime lacks one */
    double **act;             /* [vars.nactions + nchoice] columns of n: the actions by slot, then the hidden
                               * columns of choice values (below) */
    int nchoice;              /* hidden columns after the actions, written by a simulation asked for the choice
                               * probabilities of a regime with taste shocks that solves by EGM: each choice's best
                               * Q, then the taste scale (lcm_keep_choices, prelude.h); in no output */
    lcm_index stride;         /* value, x and act are one block, a column every stride reals (>= n): the
                               * simulation records into it column after column (lcm_record_args) */
    size_t rows_held;         /* rows the subject, period and regime columns hold (>= n) */
    size_t reals_held;        /* reals the block holds */
    int keep;                 /* sim_panel_truncate keeps the memory (a panel of lcm_simulate_again) */
    int ntargets;
    char **target_names;
    double *targets;          /* [ntargets * n], column after column, NaN where the regime lacks the function */
    size_t targets_held;      /* reals the targets' block holds (a renewed panel may get its predecessor's) */
    double seconds;
    double phase_seconds[LCM_SIM_PHASES]; /* where `seconds` went, by lcm_sim_phase_names */
    int threads;              /* host threads for its per-row work (writing CSV): 0, OpenMP's default */
    const lcm_model *owner;   /* held by lcm_simulate (sim_panel_hold_model), or NULL */
};

/* Takes a hold on the model whose IR the panel reads (core_model_retain),
 * given up when the panel is freed: what lcm_simulate returns outlives a
 * freed model. */
void sim_panel_hold_model(lcm_panel *p, const lcm_model *model);

/* An empty panel of n rows for model m, with nchoice hidden columns
 * (columns allocated, not cleared: the caller writes every cell it keeps). */
lcm_panel *sim_panel_new(const ir_model *m, int precision, lcm_index n, int nchoice);
/* As sim_panel_new, in the memory of `old` (an earlier panel, which this
 * one replaces; NULL: new memory) where its columns hold enough, and
 * keeping its memory on truncation, for the next renewal: the panels of
 * an estimation loop write their pages once, not fresh ones each time.
 * targets: the new panel will get target columns (sim_panel_add_targets),
 * which may then take the old ones' block. */
lcm_panel *sim_panel_renew(lcm_panel *old, const ir_model *m, int precision, lcm_index n, int nchoice, int targets);
/* Keeps the first n rows (n <= p->n), giving the rest of each column back
 * (unless p->keep: then the columns stay where they are, a stride apart). */
void sim_panel_truncate(lcm_panel *p, lcm_index n);
/* The bytes of memory the panel holds. */
size_t sim_panel_bytes(const lcm_panel *p);

/* Evaluates the DAG functions named by `spec` ("a,b" or "all") on every row
 * of p, with the solution's parameters and V (for functions of E_next_V),
 * and the choice probabilities it names: by the interpreter, or from the
 * hidden columns for a regime solved by EGM. */
int sim_panel_add_targets(lcm_panel *p, const lcm_solution *sol, const char *spec, lcm_err *err);
/* Appends a target column `name` (not one of p's) and returns its n cells,
 * for the caller to fill (the Euler errors, euler.c). */
double *sim_panel_add_column(lcm_panel *p, const char *name);
/* The target columns `spec` asks for (its names, each once; "all": every
 * function and choice probability), 0 when it names none; and in
 * *choice_slots the hidden columns (lcm_panel.nchoice) a simulation asked
 * for it writes: the most choices of a regime with taste shocks solved by
 * EGM whose choice probabilities spec names, plus one (the scale), or 0.
 * (spec checked with sim_targets_check.) */
int sim_targets_shape(const ir_model *m, const char *spec, int *choice_slots);
/* Whether spec names target columns of model m ("all", or function and
 * choice-probability names, each once): 0 or LCM_E_USAGE.  NULL or "":
 * none, fine.  Simulations check it before they start. */
int sim_targets_check(const ir_model *m, const char *spec, lcm_err *err);

#endif
