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
 *
 * The contract of every function below, unless it says otherwise:
 *   - NULL: a function that returns a status needs every pointer argument
 *     except those marked LCM_NULLABLE (the options structs, meaning all
 *     defaults, and a few more); given NULL for one it needs, it does nothing
 *     and returns LCM_E_USAGE with "lcm_solve: 'out' is NULL" in err (err
 *     itself NULL: the message is a warning on stderr).  A getter given a
 *     NULL handle returns its "nothing": NULL, 0, -1 for a look-up by name,
 *     NaN for a double.  The free functions take NULL.  Never a crash;
 *   - err is the caller's lcm_err: a call that succeeds leaves it as it was;
 *   - models are counted: a solver, solution or panel holds its model, so
 *     lcm_model_free may come first, and the model goes with the last of
 *     them (initial conditions hold none: they keep only its checksum);
 *   - one thread at a time uses a solver (and what it returns); threads
 *     that solve at once each use a solver of their own, of the same model
 *     or not.  The log level is one for the process;
 *   - the checks that lcm can make before it takes memory (the size of a
 *     solve or a panel against what the process may use) fail with
 *     LCM_E_MEMORY; a later allocation that the system refuses ends the
 *     process with exit status LCM_E_MEMORY and a message on stderr.
 *
 * This header is the whole public API and is self-contained: installed
 * (`cmake --install`), it is the only header of liblcm.so; models come from
 * lcmgen (a build step), so the library needs neither Lua nor the generator.
 * Link with `pkg-config --cflags --libs lcm` or CMake's
 * `find_package(lcm)` + `lcm::lcm` (docs/user-guide.md, "Using liblcm").
 */
#ifndef LCM_H
#define LCM_H

#include <stddef.h>

/* The project's version: CMakeLists.txt reads it from here. */
#define LCM_VERSION_MAJOR 0
#define LCM_VERSION_MINOR 4
#define LCM_VERSION_PATCH 0
#define LCM_VERSION_STRING "0.4.0"

/* A pointer argument that may be NULL (what NULL means is said there); the
 * others of a function that returns a status may not (above).  Marks the
 * header for readers and for tests/unit/test_api_null.c, which calls every
 * LCM_API function with NULL in each pointer argument. */
#define LCM_NULLABLE

/* What liblcm.so exports; everything else in it is hidden. */
#if defined(__GNUC__)
#define LCM_API __attribute__((visibility("default")))
#else
#define LCM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked at run time ("0.4.0"). */
LCM_API const char *lcm_version(void);

/* ---- errors ------------------------------------------------------------- */
/* A failing function returns one of these (also the `lcm` command's exit
 * code) and fills the caller's lcm_err with one human-readable message. */
typedef enum lcm_status {
    LCM_OK = 0,
    LCM_E_USAGE = 2,    /* command line */
    LCM_E_MODEL = 3,    /* the model file: Lua errors, DSL misuse, bad grids */
    LCM_E_PARAMS = 4,   /* parameter files and --set overrides */
    LCM_E_IO = 5,       /* reading or writing files */
    LCM_E_COMPILE = 6,  /* compiling generated code */
    LCM_E_NUMERIC = 7,  /* the solve found NaN, bad probabilities, ... */
    LCM_E_INPUT = 8,    /* initial conditions and other data inputs */
    LCM_E_DEVICE = 9,   /* GPU / device failures */
    LCM_E_MEMORY = 10,  /* an allocation the problem needs does not fit */
    LCM_E_CANCELLED = 11, /* the progress callback asked to stop (lcm_solver_options.progress) */
    LCM_E_INTERNAL = 70 /* a bug in lcmgen */
} lcm_status;

#define LCM_ERR_MSG_MAX 4096

typedef struct lcm_err {
    int code;
    char msg[LCM_ERR_MSG_MAX];
} lcm_err;

/* State indices and counts (the kernels' index type). */
typedef long long lcm_index;

/* ---- logging ------------------------------------------------------------ */
/* Messages go to stderr; the level says only how much is printed (what the
 * numerical checks do is the solver's option, lcm_solver_options.checks).
 * The library itself prints only warnings at info, the default. */
typedef enum lcm_log_level {
    LCM_LOG_OFF = 0,
    LCM_LOG_WARNING = 1,
    LCM_LOG_INFO = 2,
    LCM_LOG_PROGRESS = 3,
    LCM_LOG_DEBUG = 4
} lcm_log_level;

/* A level outside the enum (-1 from lcm_log_level_by_name) changes nothing. */
LCM_API void lcm_set_log_level(lcm_log_level level);
LCM_API lcm_log_level lcm_get_log_level(void);
/* Parses "off|warning|info|progress|debug"; returns -1 if unknown (or NULL). */
LCM_API int lcm_log_level_by_name(const char *name);

typedef struct lcm_model lcm_model;
typedef struct lcm_solver lcm_solver;
typedef struct lcm_solution lcm_solution;

/* ---- models ------------------------------------------------------------- */
/* A directory written by lcmgen (manifest.lcm + kernels.c). */
LCM_API int lcm_model_open_dir(const char *dir, lcm_model **out, lcm_err *err);
/* A model generated in memory (what `lcm` does with a .lua file). */
LCM_API int lcm_model_from_text(const char *manifest, const char *source, lcm_model **out, lcm_err *err);
/* The generated kernel source (kernels.c). */
LCM_API const char *lcm_model_source(const lcm_model *m);
/* Gives up the caller's hold: the model is freed now, or with the last
 * solver, solution or panel made from it. */
LCM_API void lcm_model_free(lcm_model *m);
LCM_API const char *lcm_model_name(const lcm_model *m);
/* Periods, and the age of each (period 0 .. periods-1; NaN beyond). */
LCM_API int lcm_model_periods(const lcm_model *m);
LCM_API double lcm_model_age(const lcm_model *m, int period);
/* Regimes: ids 0 .. regimes-1, their names (NULL beyond), a name's id (-1 if none). */
LCM_API int lcm_model_regimes(const lcm_model *m);
LCM_API const char *lcm_model_regime_name(const lcm_model *m, int regime);
LCM_API int lcm_model_regime_by_name(const lcm_model *m, const char *name);
/* Grid points of a regime's state space: the length of its V (0 beyond). */
LCM_API lcm_index lcm_model_states(const lcm_model *m, int regime);
/* Kernels of the generated code (the length of lcm_solver_profile's arrays). */
LCM_API int lcm_model_kernels(const lcm_model *m);
/* A regime's states, the axes of its V in their order (row-major: the last
 * state varies fastest): how many (0 for a regime out of range), and
 * state k's name, with its number of points and whether it is discrete
 * (NULL, 0 and 0 out of range).  A discrete state's point `code` has a
 * label (NULL out of range or for a continuous state); a continuous one's
 * points depend on the parameters: lcm_solution_state_points. */
LCM_API int lcm_model_regime_states(const lcm_model *m, int regime);
LCM_API const char *lcm_model_state(const lcm_model *m, int regime, int k, LCM_NULLABLE int *points,
                                    LCM_NULLABLE int *discrete);
LCM_API const char *lcm_model_state_label(const lcm_model *m, int regime, int k, int code);
/* The same for a regime's actions (in the model's order: discrete first);
 * a continuous action's points come from the model's grid. */
LCM_API int lcm_model_regime_actions(const lcm_model *m, int regime);
LCM_API const char *lcm_model_action(const lcm_model *m, int regime, int k, LCM_NULLABLE int *points,
                                     LCM_NULLABLE int *discrete);
LCM_API const char *lcm_model_action_label(const lcm_model *m, int regime, int k, int code);

/* ---- parameters ---------------------------------------------------------- */
/* Parameter values as a params file writes them: a tree of numbers, lists
 * and tables keyed by name (docs/model-language.md, "Parameter levels"). */
typedef struct lcm_pvalue lcm_pvalue;

LCM_API lcm_pvalue *lcm_pv_num(double x);
LCM_API lcm_pvalue *lcm_pv_list(void);
LCM_API lcm_pvalue *lcm_pv_table(void);
/* Appends item to a list (made by lcm_pv_list); the list owns it.  An
 * item belongs to one place in one tree.  What it refuses, since it returns
 * nothing, the tree remembers, and resolving it (lcm_solve,
 * lcm_model_resolve_params) fails with LCM_E_PARAMS saying why: another kind
 * of node or NULL for the list (item is freed), a NULL item, an item that
 * belongs to a table or list already, the list itself or a node above it (a
 * cycle: these stay where they are), a tree nested more than 100 deep (item
 * is freed).  The same holds for lcm_pv_put, also given a NULL key. */
LCM_API void lcm_pv_append(LCM_NULLABLE lcm_pvalue *list, LCM_NULLABLE lcm_pvalue *item);
/* Sets table[key] = item (replacing and freeing an old value; putting the
 * same item again changes nothing); table is made by lcm_pv_table and owns
 * item. */
LCM_API void lcm_pv_put(LCM_NULLABLE lcm_pvalue *table, LCM_NULLABLE const char *key, LCM_NULLABLE lcm_pvalue *item);
/* table[key], or NULL (also when table or key is NULL or table is not a
 * table). */
LCM_API lcm_pvalue *lcm_pv_get(const lcm_pvalue *table, const char *key);
/* Frees a tree from its root; an item of a table or list is freed with its
 * tree (given one, it does nothing). */
LCM_API void lcm_pv_free(lcm_pvalue *v);
/* Sets a dotted path ("working.labor_income.wage"), creating tables; root
 * owns item afterwards, and on failure item is freed (unless it belongs to
 * a tree: an item of another table, root itself or one of its tables, which
 * is LCM_E_USAGE). */
LCM_API int lcm_pv_set_path(lcm_pvalue *root, const char *path, lcm_pvalue *item, lcm_err *err);

/* The flat parameter buffer the kernels read: lcm_model_params_size
 * doubles, one slot per parameter as one function of one regime sees it
 * (a name several functions read has several slots: set each of them). */
LCM_API size_t lcm_model_params_size(const lcm_model *m);
LCM_API int lcm_model_params(const lcm_model *m);
/* Slot i (0 .. lcm_model_params(m)-1): its regime, function and name, its
 * offset and number of doubles in the buffer (arrays row-major), and
 * whether the model fixes its value.  Any out-pointer may be NULL; a NULL
 * model or an i out of range gives NULL and 0. */
LCM_API void lcm_model_param(const lcm_model *m, int i, LCM_NULLABLE const char **regime,
                             LCM_NULLABLE const char **func, LCM_NULLABLE const char **name,
                             LCM_NULLABLE size_t *offset, LCM_NULLABLE size_t *size, LCM_NULLABLE int *fixed);
/* Resolves a tree into buf[lcm_model_params_size(m)] (fixed slots from the
 * model): an estimation loop can then change the slots it estimates in
 * place and call lcm_solve_resolved. */
LCM_API int lcm_model_resolve_params(const lcm_model *m, const lcm_pvalue *root, double *buf, lcm_err *err);

/* ---- solvers ------------------------------------------------------------ */
typedef enum lcm_backend_kind {
    LCM_BACKEND_AUTO = 0, /* cuda when a device is present, else cpu */
    LCM_BACKEND_CPU,
    LCM_BACKEND_CUDA,
    LCM_BACKEND_INTERP    /* the IR interpreter: slow reference */
} lcm_backend_kind;

/* What a progress callback is told (lcm_solver_options.progress): a step
 * of a solve or a simulation is done.  A solve's step is a period (the
 * periods go from the last down to 0); a simulation's, a period of a batch
 * of subjects (lcm_sim_options.subject_batch_size), from period 0 up,
 * batch after batch.  Valid during the call only. */
typedef enum lcm_progress_kind {
    LCM_PROGRESS_SOLVE = 1,   /* lcm_solve, lcm_solve_resolved */
    LCM_PROGRESS_SIMULATE = 2 /* lcm_simulate, lcm_simulate_again */
} lcm_progress_kind;

typedef struct lcm_progress_info {
    lcm_progress_kind what;
    const char *model;       /* the model's name */
    int period;              /* the period just done */
    double age;              /* ... its age */
    int periods;             /* the model's periods */
    long long done, total;   /* steps done (1 .. total) of all the steps of this solve or simulation */
    lcm_index subjects;      /* a simulation's subjects (0 in a solve) */
    lcm_index batch_first;   /* ... the batch being simulated: subjects batch_first .. batch_first + batch_size - 1 */
    lcm_index batch_size;
    double seconds;          /* since the solve or simulation began */
} lcm_progress_info;

/* Called after each step with what is done; returns 0 to go on, non-zero
 * to cancel: the solve or simulation stops there, before the next step,
 * and returns LCM_E_CANCELLED with no solution or panel (*out untouched;
 * lcm_simulate_again frees *panel, as on any failure).  Called on the
 * thread that called lcm_solve or lcm_simulate, and in an MPI job on rank
 * 0 only (the other ranks finish their block, then return LCM_E_CANCELLED
 * with rank 0).  Host backends (cpu, interp) and one cuda worker call it
 * as each step is done (a cuda solve then waits for each period and
 * replays no CUDA graph); several cuda workers (devices > 1) solve at
 * once, and it is called for each period when they are all done. */
typedef int (*lcm_progress_fn)(const lcm_progress_info *p, void *user);

/* What a failed numerical check (a NaN or infinite V, probabilities that
 * are negative or do not sum to 1, ...; docs/debugging.md) does, in a solve
 * and in a simulation of the solver: the log level only says how much is
 * printed, at off not even a warning. */
typedef enum lcm_check_policy {
    LCM_CHECKS_DEFAULT = 0, /* LCM_CHECKS_RAISE */
    LCM_CHECKS_RAISE,       /* an error (LCM_E_NUMERIC) at the first failing period; no solution */
    LCM_CHECKS_WARN,        /* a warning for each failed check; the run completes */
    LCM_CHECKS_OFF          /* the checks are not evaluated */
} lcm_check_policy;

/* Parses "raise|warn|off"; -1 if unknown (or NULL). */
LCM_API int lcm_check_policy_by_name(const char *name);

typedef struct lcm_solver_options {
    lcm_backend_kind backend;
    int precision;          /* 64 (default) or 32 */
    int threads;            /* cpu backend: 1 to LCM_MAX_THREADS; 0 = all cores */
    int device;             /* cuda backend: the GPU's index (the first, with devices > 1) */
    int devices;            /* workers in this process, each solving a block of the sharded
                               states (0 = 1); cuda: one GPU each, from device on */
    const char *cache_dir;  /* NULL = $LCM_CACHE_DIR or ~/.cache/lcm */
    const char *log_path;   /* a failed check writes a snapshot here (NULL or "": none) */
    int log_keep;           /* snapshots kept in log_path, newest first (0 = 3) */
    int cache_required;     /* 1: a compiled solver the cache cannot take is an error
                               (LCM_E_IO), not a warning: what `lcm compile` is for */
    lcm_progress_fn progress; /* told of every solve's and simulation's steps, may cancel them (NULL: none) */
    void *progress_user;    /* handed to progress as it is */
    /* Added in 0.4.0 (a zeroed struct of 0.3.0's fields reads as the default): */
    lcm_check_policy checks; /* what a failed numerical check does in this solver's solves and
                                simulations, whatever the log level (0: LCM_CHECKS_DEFAULT, raise) */
} lcm_solver_options;

#define LCM_MAX_THREADS 4096

/* Parses "auto|cpu|cuda|interp"; -1 if unknown (or NULL). */
LCM_API int lcm_backend_by_name(const char *name);

/* Compiles the model's kernels for a backend (or loads them from the cache). */
LCM_API int lcm_solver_new(const lcm_model *model, LCM_NULLABLE const lcm_solver_options *opts, lcm_solver **out,
                           lcm_err *err);
LCM_API const char *lcm_solver_backend(const lcm_solver *s);
LCM_API int lcm_solver_precision(const lcm_solver *s);
/* 1 when creating the solver compiled the kernels, 0 when they came from the cache. */
LCM_API int lcm_solver_compiled(const lcm_solver *s);
LCM_API double lcm_solver_compile_seconds(const lcm_solver *s);
/* Peak bytes of device memory the solver used (0 for host backends). */
LCM_API size_t lcm_solver_device_peak(const lcm_solver *s);
/* Bytes of the continuation tables of the worker with the most (scratch
 * that batch_size bounds; 0 before the first solve or without tables). */
LCM_API size_t lcm_solver_table_bytes(const lcm_solver *s);
/* Solves once and times each kernel: seconds[k] and table_seconds[k] (k <
 * lcm_model_kernels, in the generated code's order) are the time of kernel
 * k's bodies and of its continuation tables, summed over its periods and
 * launches.  Each launch runs alone between barriers, so the sum exceeds a
 * plain solve where regimes overlap; no graph is replayed.  One worker only
 * (no --devices, no MPI): a usage error otherwise. */
LCM_API int lcm_solver_profile(lcm_solver *sv, const lcm_pvalue *params, double *seconds, double *table_seconds,
                               lcm_err *err);
LCM_API void lcm_solver_free(lcm_solver *s);

/* Compiles the model's GPU kernels for an architecture (90 for sm_90) and a
 * precision (64, 32; 0 = 64) into the cache, without a GPU (e.g. on a login
 * node before a GPU job).  *compiled is 0 when they were cached already;
 * *target (the caller frees it) says what was built.  A cache that cannot
 * take them is an error (LCM_E_IO). */
LCM_API int lcm_precompile_cuda(const lcm_model *m, int arch, int precision, LCM_NULLABLE const char *cache_dir,
                                int *compiled, double *seconds, char **target, lcm_err *err);

/* Backward induction over all periods. */
LCM_API int lcm_solve(lcm_solver *sv, const lcm_pvalue *params, lcm_solution **out, lcm_err *err);
/* The same with a resolved parameter buffer (lcm_model_resolve_params);
 * a NaN in it is LCM_E_PARAMS naming the parameter, as in a tree. */
LCM_API int lcm_solve_resolved(lcm_solver *sv, const double *params, lcm_solution **out, lcm_err *err);

/* ---- solutions ------------------------------------------------------------ */
/* A solution owns its values and holds its model: it may outlive both. */
/* V of a regime at a period, or NULL when the regime is inactive then.
 * Elements are float64 or float32 (lcm_solution_precision); *n = states
 * (n may be NULL). */
LCM_API const void *lcm_solution_V(const lcm_solution *s, int period, int regime, LCM_NULLABLE lcm_index *n);
/* One element of V as a double; NaN outside (an inactive regime, a period,
 * regime or state out of range). */
LCM_API double lcm_solution_value(const lcm_solution *s, int period, int regime, lcm_index state);
LCM_API int lcm_solution_precision(const lcm_solution *s);
LCM_API double lcm_solution_seconds(const lcm_solution *s);
/* HDF5: /V/period_<t>/<regime>, the grids, labels and transition matrices
 * in /axes/<regime>, the ages, parameters and names at the root
 * (docs/user-guide.md, "Reading results"). */
LCM_API int lcm_solution_write_h5(const lcm_solution *s, const char *path, lcm_err *err);
/* Long-form CSV: period,age,regime,<states...>,V */
LCM_API int lcm_solution_write_csv(const lcm_solution *s, const char *path, lcm_err *err);
LCM_API void lcm_solution_free(lcm_solution *s);
/* Reads a solution written by lcm_solution_write_h5 for model m, which must
 * be the model that wrote it (same generated source). */
LCM_API int lcm_solution_read_h5(const lcm_model *m, const char *path, lcm_solution **out, lcm_err *err);
/* The parameter buffer the solution was computed with (lcm_model_params_size doubles). */
LCM_API const double *lcm_solution_params(const lcm_solution *s);
/* The points of continuous state k of a regime at a period, as the solve
 * placed them (grids given by parameters, grids by age: that period's row),
 * lcm_model_state's number of them; NULL for a discrete state or anything
 * out of range.  Lives as long as the solution. */
LCM_API const double *lcm_solution_state_points(const lcm_solution *s, int period, int regime, int k);

/* ---- simulation ----------------------------------------------------------- */
typedef struct lcm_panel lcm_panel;

/* Initial conditions: one subject per row with its start regime, age and
 * states (docs/simulation.md).  Read from .csv, or .h5 / .hdf5, and
 * validated against the model. */
typedef struct lcm_initial lcm_initial;
LCM_API int lcm_initial_read(const lcm_model *m, const char *path, lcm_initial **out, lcm_err *err);
/* Initial conditions from columns of n cells each, validated as a file
 * is, the messages naming `source` (what the caller calls its input):
 * column i is named names[i] (regime, age and states, as in the CSV) and
 * its cell j is the label text[i][j] where text, text[i] and text[i][j]
 * are not NULL (labels of categorical states, regime names), else the
 * number num[i][j] where num and num[i] are not NULL (NaN: no value). */
LCM_API int lcm_initial_from_arrays(const lcm_model *m, const char *source, int ncols, const char *const *names,
                                    LCM_NULLABLE const double *const *num, LCM_NULLABLE const char *const *const *text,
                                    lcm_index n, lcm_initial **out, lcm_err *err);
LCM_API lcm_index lcm_initial_subjects(const lcm_initial *ic);
LCM_API void lcm_initial_free(lcm_initial *ic);

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
LCM_API int lcm_simulate(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic,
                         LCM_NULLABLE const lcm_sim_options *opts, lcm_panel **out, lcm_err *err);
/* lcm_simulate into the memory of *panel, a panel of an earlier
 * simulation (or NULL; panel itself may not be), which the new panel
 * replaces: a loop that
 * simulates thousands of times (an estimation) writes the same pages each
 * time instead of fresh ones, which the system must first find and clear
 * (on a GPU most of a large simulation's time).  The panel keeps the
 * memory of the largest simulation it held.  (In a job of several MPI
 * ranks rank 0 gathers the ranks' rows into a panel of new memory: there
 * nothing is reused.)  On failure *panel is freed and NULL. */
LCM_API int lcm_simulate_again(lcm_solver *sv, const lcm_solution *sol, const lcm_initial *ic,
                               LCM_NULLABLE const lcm_sim_options *opts, lcm_panel **panel, lcm_err *err);
/* Whether simulating the subjects of `ic` fits in the memory this process
 * may use (and each worker's device): 0, or LCM_E_MEMORY with the figures;
 * and whether opts->targets names columns of the model (LCM_E_USAGE).
 * lcm_simulate checks both first; calling it before a solve refuses a
 * panel too large, or an unknown target, without solving. */
LCM_API int lcm_simulate_fits(const lcm_solver *sv, const lcm_initial *ic, LCM_NULLABLE const lcm_sim_options *opts,
                              lcm_err *err);
LCM_API lcm_index lcm_panel_rows(const lcm_panel *p);
/* The panel's columns, in the order of its CSV: lcm_panel_column_name(p, i)
 * for i from 0 to lcm_panel_columns(p) - 1 (NULL outside), a name that
 * lives as long as the panel. */
LCM_API int lcm_panel_columns(const lcm_panel *p);
LCM_API const char *lcm_panel_column_name(const lcm_panel *p, int i);
/* Copies a column into out[rows]: subject_id, period, age, regime (ids),
 * value, a state, an action or a target (codes for discrete variables, NaN
 * where a row's regime lacks the variable).  Returns 0, or an error naming
 * the columns there are. */
LCM_API int lcm_panel_column(const lcm_panel *p, const char *name, double *out, lcm_err *err);
/* A column in the panel's own memory, without a copy: the lcm_panel_rows
 * doubles of value, a state, an action or a target, valid until the panel
 * is freed or renewed (lcm_simulate_again); NULL for an unknown name and
 * for the columns kept otherwise (subject_id, period, age, regime:
 * lcm_panel_column copies them). */
LCM_API const double *lcm_panel_column_data(const lcm_panel *p, const char *name);
/* What code `code` of a categorical column means: the regime's name in
 * regime, the label of a discrete state's or action's point; NULL for any
 * other column or a code out of range. */
LCM_API const char *lcm_panel_column_label(const lcm_panel *p, const char *name, int code);
LCM_API double lcm_panel_seconds(const lcm_panel *p);
/* HDF5: one dataset per column at the root; CSV:
 * subject_id,period,age,regime,value,<states>,<actions>,<targets> with labels
 * for categorical variables and empty cells where a regime lacks one. */
LCM_API int lcm_panel_write_h5(const lcm_panel *p, const char *path, lcm_err *err);
LCM_API int lcm_panel_write_csv(const lcm_panel *p, const char *path, lcm_err *err);
LCM_API void lcm_panel_free(lcm_panel *p);

/* ---- Euler errors ---------------------------------------------------------- */
/* The accuracy of a solution where a regime has a consumption-saving
 * margin (a liquid state x, a continuous action c paid from it, savings
 * a = resources - c: what the endogenous grid method derives; docs/solvers.md,
 * "Euler errors").  At a point of period t, with the action chosen there,
 * c~ solves the Euler equation u_c(c~) = discount * E[dx'/da * M_{t+1}(x')]
 * given the decisions of period t+1 (M = d V / d x = u_c * d resources / d x
 * at the grid's points, between them interpolated in 1 / M), and the error is
 * log10 |c - c~| / c (floored at -16).  A point counts where its savings
 * exceed the borrowing limit (EGM's first savings point, 0 for grid search)
 * by more than `cutoff` and x lives on in the period after; the others of
 * regimes with a margin are `constrained`.  Not with taste shocks. */
typedef struct lcm_euler_stats {
    lcm_index points;          /* the errors summarised */
    lcm_index constrained;     /* points of regimes with a margin that do not count */
    double mean, p5, p50, p95; /* of the errors (log10); NaN without points */
} lcm_euler_stats;
/* At every grid point of every period but the last, of every regime with a
 * margin (its decision there).  by_regime: NULL, or one per regime (those
 * without a margin: no points). */
LCM_API int lcm_euler_grid(lcm_solver *sv, const lcm_solution *sol, double cutoff, lcm_euler_stats *all,
                           LCM_NULLABLE lcm_euler_stats *by_regime, lcm_err *err);
/* At every row of a panel simulated with sol: adds the column
 * `euler_error` (NaN where no error counts) and summarises it as
 * lcm_euler_grid does. */
LCM_API int lcm_euler_panel(lcm_solver *sv, const lcm_solution *sol, lcm_panel *panel, double cutoff,
                            lcm_euler_stats *all, LCM_NULLABLE lcm_euler_stats *by_regime, lcm_err *err);

#ifdef __cplusplus
}
#endif

#endif
