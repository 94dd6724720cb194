/* lcm.h - liblcm, the C API of the lcm runtime.
 *
 * The `lcm` command is a thin client of this API; an estimation loop in C
 * uses it the same way: open a generated model once, create a solver once
 * (that compiles or loads the kernels), then solve again and again with new
 * parameters, which recompiles nothing.
 *
 *   lcm_model *model;   lcm_model_open_dir("build/model", &model, &err);
 *   lcm_solver *solver; lcm_solver_new(model, NULL, &solver, &err);
 *   lcm_pvalue *params = lcm_pv_table();
 *   lcm_pv_set_path(params, "discount_factor", lcm_pv_num(0.98), &err); ...
 *   lcm_solution *sol;  lcm_solve(solver, params, &sol, &err);
 *   double v = lcm_solution_value(sol, period, regime, state_index);
 *
 * Every function that can fail returns 0 or an lcm_status and fills err.
 */
#ifndef LCM_H
#define LCM_H

#include "initial.h"
#include "ir.h"
#include "kernel_abi.h"
#include "log.h"
#include "params.h"

typedef struct lcm_model lcm_model;
typedef struct lcm_solver lcm_solver;
typedef struct lcm_solution lcm_solution;

/* ---- models ------------------------------------------------------------- */
/* A directory written by lcmgen (manifest.lcm + kernels.c). */
int lcm_model_open_dir(const char *dir, lcm_model **out, lcm_err *err);
/* A model generated in memory (what `lcm` does with a .lua file). */
int lcm_model_from_text(const char *manifest, const char *source, lcm_model **out, lcm_err *err);
const ir_model *lcm_model_ir(const lcm_model *m);
const char *lcm_model_source(const lcm_model *m);
void lcm_model_free(lcm_model *m);

/* ---- solvers ------------------------------------------------------------ */
typedef enum lcm_backend_kind {
    LCM_BACKEND_AUTO = 0, /* cuda when a device is present, else cpu */
    LCM_BACKEND_CPU,
    LCM_BACKEND_CUDA,
    LCM_BACKEND_INTERP    /* the IR interpreter: slow reference */
} lcm_backend_kind;

typedef struct lcm_solver_options {
    lcm_backend_kind backend;
    int precision;          /* 64 (default) or 32 */
    int threads;            /* cpu backend; 0 = all cores */
    int device;             /* cuda backend: the GPU's index (the first, with devices > 1) */
    int devices;            /* workers in this process, each solving a block of the sharded
                               states (0 = 1); cuda: one GPU each, from device on */
    const char *cache_dir;  /* NULL = $LCM_CACHE_DIR or ~/.cache/lcm */
    const char *log_path;   /* a failed check writes a snapshot here (NULL: none) */
    int log_keep;           /* snapshots kept in log_path, newest first (0 = 3) */
} lcm_solver_options;

/* Parses "auto|cpu|cuda|interp"; -1 if unknown. */
int lcm_backend_by_name(const char *name);

/* Compiles the model's kernels for a backend (or loads them from the cache). */
int lcm_solver_new(const lcm_model *model, const lcm_solver_options *opts, lcm_solver **out, lcm_err *err);
const char *lcm_solver_backend(const lcm_solver *s);
int lcm_solver_precision(const lcm_solver *s);
/* 1 when creating the solver compiled the kernels, 0 when they came from the cache. */
int lcm_solver_compiled(const lcm_solver *s);
double lcm_solver_compile_seconds(const lcm_solver *s);
/* Peak bytes of device memory the solver used (0 for host backends). */
size_t lcm_solver_device_peak(const lcm_solver *s);
/* Bytes of the continuation tables of the worker with the most (scratch
 * that batch_size bounds; 0 before the first solve or without tables). */
size_t lcm_solver_table_bytes(const lcm_solver *s);
void lcm_solver_free(lcm_solver *s);

/* Compiles the model's GPU kernels for an architecture (90 for sm_90) into
 * the cache, without a GPU (e.g. on a login node before a GPU job).
 * *compiled is 0 when they were cached already; *target says what was built. */
int lcm_precompile_cuda(const lcm_model *m, int arch, int precision, const char *cache_dir, int *compiled,
                        double *seconds, char **target, lcm_err *err);

/* Backward induction over all periods. */
int lcm_solve(lcm_solver *s, const lcm_pvalue *params, lcm_solution **out, lcm_err *err);
/* The same with an already resolved parameter buffer (lcm_params_resolve). */
int lcm_solve_resolved(lcm_solver *s, const double *params, lcm_solution **out, lcm_err *err);

/* ---- solutions ------------------------------------------------------------ */
/* V of a regime at a period, or NULL when the regime is inactive then.
 * Elements are float64 or float32 (lcm_solution_precision); *n = states. */
const void *lcm_solution_V(const lcm_solution *s, int period, int regime, lcm_index *n);
double lcm_solution_value(const lcm_solution *s, int period, int regime, lcm_index state);
int lcm_solution_precision(const lcm_solution *s);
double lcm_solution_seconds(const lcm_solution *s);
const ir_model *lcm_solution_model(const lcm_solution *s);
/* HDF5: /V/period_<t>/<regime>, the grids, labels and transition matrices
 * in /axes/<regime>, the ages, parameters and names at the root
 * (docs/user-guide.md, "Reading results"). */
int lcm_solution_write_h5(const lcm_solution *s, const char *path, lcm_err *err);
/* Long-form CSV: period,age,regime,<states...>,V */
int lcm_solution_write_csv(const lcm_solution *s, const char *path, lcm_err *err);
void lcm_solution_free(lcm_solution *s);
/* Reads a solution written by lcm_solution_write_h5 for model m, which must
 * be the model that wrote it (same generated source). */
int lcm_solution_read_h5(const ir_model *m, const char *path, lcm_solution **out, lcm_err *err);
/* The parameter buffer the solution was computed with (m->params_size doubles). */
const double *lcm_solution_params(const lcm_solution *s);

/* ---- simulation ----------------------------------------------------------- */
typedef struct lcm_panel lcm_panel;

typedef struct lcm_sim_options {
    unsigned long long seed;       /* the draws' key (default 0) */
    lcm_index subject_batch_size;  /* subjects stepped per launch: bounds working memory; 0 = all */
    const char *targets;           /* extra columns: DAG function names "utility,consumption", "all", or NULL */
} lcm_sim_options;

/* Simulates the subjects of `ic` forward from their start ages with the
 * solution `sol` (computed by this solver's model and precision; its
 * parameters are used).  Each subject's action is the argmax of Q at its
 * exact state; the next regime and stochastic states are drawn with
 * Philox4x32-10 keyed by (seed, subject, period, purpose), so the panel is
 * the same for every batch size.  Rows are ordered by subject, then period. */
int lcm_simulate(lcm_solver *s, const lcm_solution *sol, const lcm_initial *ic, const lcm_sim_options *opts,
                 lcm_panel **out, lcm_err *err);
/* Whether simulating the subjects of `ic` fits in the memory this process
 * may use (and each worker's device): 0, or LCM_E_MEMORY with the figures.
 * lcm_simulate checks it first; calling it before a solve refuses a panel
 * too large without solving. */
int lcm_simulate_fits(const lcm_solver *s, const lcm_initial *ic, const lcm_sim_options *opts, lcm_err *err);
lcm_index lcm_panel_rows(const lcm_panel *p);
/* Copies a column into out[rows]: subject_id, period, age, regime (ids),
 * value, a state, an action or a target (codes for discrete variables, NaN
 * where a row's regime lacks the variable).  Returns 0, or an error naming
 * the columns there are. */
int lcm_panel_column(const lcm_panel *p, const char *name, double *out, lcm_err *err);
double lcm_panel_seconds(const lcm_panel *p);
/* HDF5: one dataset per column at the root; CSV:
 * subject_id,period,age,regime,value,<states>,<actions>,<targets> with labels
 * for categorical variables and empty cells where a regime lacks one. */
int lcm_panel_write_h5(const lcm_panel *p, const char *path, lcm_err *err);
int lcm_panel_write_csv(const lcm_panel *p, const char *path, lcm_err *err);
void lcm_panel_free(lcm_panel *p);


#endif
