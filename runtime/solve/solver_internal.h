/* solver_internal.h - the structures behind the opaque handles of lcm.h. */
#ifndef LCM_SOLVER_INTERNAL_H
#define LCM_SOLVER_INTERNAL_H

#include <stdatomic.h>

#include "backend.h"
#include "cache.h"
#include "grid.h"
#include "lcm_internal.h"
#include "model.h"
#include "layout.h"
#include "precompute.h"
#include "progress.h"
#include "snapshot.h"
#include "vars.h"

/* One backend solving one block of the sharded states (all states when
 * nothing is sharded): its compiled kernels and the buffers of a solve. */
typedef struct lcm_worker {
    const lcm_model *model;
    lcm_backend *backend;
    lcm_cache cache;
    ir_grid_layout layout;
    double *grids64;     /* the grid buffer of the current solve, float64 (from the parameters) */
    void *grids_host;    /* ... in the backend's precision, staged for upload */
    void *grids;         /* ... in the backend's memory */
    void *P, *P_host;    /* parameters: backend memory, host staging */
    /* buffers of a solve, made by the first solve and reused */
    void *F;             /* flags of every (period, regime) in backend memory */
    lcm_flags *F_host, *F_init;
    void *vbuf[2][IR_MAX_REGIMES]; /* device backends: V_t and V_{t+1} by regime */
    void *mbuf[2][IR_MAX_REGIMES]; /* ... and their marginal values (d V / d x) where kept (ir_marginal_state) */
    void *table[IR_MAX_REGIMES]; /* continuation tables by regime (ir/precompute.h), or NULL */
    long long table_cap[IR_MAX_REGIMES]; /* ... their entries: reals, then as many bytes */
    void *ev[IR_MAX_REGIMES];    /* the expected next V by regime (ir/precompute.h, "ev"), or NULL */
    void *stages[IR_MAX_REGIMES][LCM_MAX_STAGES]; /* each stage's table by regime (ir/eliminate.h), or NULL */
    long long stage_cap[IR_MAX_REGIMES][LCM_MAX_STAGES]; /* ... their entries: reals, then as many bytes */
    char *stage;         /* device backends: pinned copies of every finished V (and marginal value) */
    size_t *stage_off, *mstage_off, stage_bytes;
    int buffers_ready;   /* the buffers above are made */
    /* buffers of a simulation (sim/simulate.c), made by the first and
     * reused by the next while large enough: pinned host memory and device
     * memory are slow to take and give back */
    struct lcm_sim_buffers *sim;
    int captured;        /* the solve is recorded as a graph */
    int captured_checks; /* ... with the checks on (1) or off (0) */
    int checks;          /* the kernels evaluate the checks (the solver's policy is not off) */
    ir_shard shard;
    long long shard_lo, shard_hi; /* its block of the sharded states' combined index */
    ir_pre *pre;         /* each kernel's table plan */
    ir_state_layout *states; /* each regime's strides, chunks and launch map (ir/layout.h) */
    int index, total;    /* among all workers (every process of an MPI job) */
    /* lcm_solver_profile: a stamp before and after each launch, and what
     * each pair of stamps timed (kernel k's body or table); off when NULL */
    struct lcm_profile_mark {
        int kernel, table, stamp;
    } *prof;
    int nprof, profiling;
    size_t prof_cap;
    /* the solve's progress run while this worker tells it each period as
     * it is done (solver.c, tells_live), else NULL */
    lcm_progress_run *progress;
} lcm_worker;

/* A solver: the workers of this process (--devices), one block each of
 * the blocks of every worker of the job (MPI ranks x devices). */
struct lcm_solver {
    const lcm_model *model;
    lcm_worker **workers;
    int nworkers;        /* in this process */
    int total_workers;   /* in the whole job */
    ir_vars vars;
    ir_shard shard;
    int nccl;            /* the workers (GPUs) reduce their flags with NCCL */
    char *log_path;      /* snapshots of failed checks go here (NULL: none) */
    int log_keep;        /* how many snapshots to keep */
    int threads;         /* host threads (--threads; 0: OpenMP's default) for the host's share of a simulation */
    lcm_progress_fn progress; /* told of each step of a solve or simulation (NULL: none) */
    void *progress_user;
    lcm_check_policy checks; /* what a failed check does (settled: never LCM_CHECKS_DEFAULT) */
};

#include "solution.h"
#include "solution_io.h"


/* A snapshot of a failed check (snapshot.h) where this solver keeps them
 * (--log-path), with sol's V arrays marked in include. */
void solve_solver_snapshot(const lcm_solver *sv, const lcm_solution *sol, const unsigned char *include,
                         const char *report);

/* ---- workers (worker.c) ------------------------------------------------------ */
/* A worker on `device` (cuda) solving block `index` of `total` of the
 * model's sharded states (shard, copied). */
int solve_worker_new(const lcm_model *model, const lcm_solver_options *o, const ir_shard *shard, int device, int index,
                   int total, lcm_worker **out, lcm_err *err);
void solve_worker_free(lcm_worker *w);
/* Each half of the pinned staging through which a simulated batch goes
 * into a device and its panel cells come home (sim/simulate.c,
 * solve/memory.c). */
#define LCM_SIM_STAGE_BYTES ((size_t)16 << 20)
/* Queues the passes of kernel k's tables (ir/precompute.h) for `states`
 * states of its regime on a queue, a barrier between passes (a pass reads
 * the ones before); timed alone when profiling.  Only the passes whose
 * buffers a gives (a->ev, a->cont), and with `first` 0 (a later chunk of
 * the splayed states) only those made again for each chunk. */
int solve_worker_table(lcm_worker *w, int k, const lcm_kernel_args *a, long long states, int first, int queue,
                     lcm_err *err);
/* Gives back the simulation buffers a worker keeps (sim/simulate.c). */
void sim_sim_buffers_free(lcm_worker *w);
/* The host and backend bytes of the simulation buffers a worker keeps: the
 * next simulation takes them over or gives them back (solve/memory.c
 * counts them as room). */
void sim_sim_buffers_held(const lcm_worker *w, double *host, double *device);
/* Starts a solve of the worker's block: host backends run it at once,
 * device backends queue it; finish waits and fills sol (V, flags). */
int solve_worker_start(lcm_worker *w, const double *params, lcm_solution **sol, lcm_err *err);
int solve_worker_finish(lcm_worker *w, lcm_solution *sol, lcm_err *err);
/* Reals of regime r's continuation table on this worker (an EGM table's
 * entries and its blocks' bounds included): the most any of its kernels
 * needs (ir/precompute.h, ir_pre_reals), 0 without tables. */
long long solve_worker_table_entries(const lcm_worker *w, int r);
/* Reals of regime r's expected next V on this worker (ir/precompute.h,
 * "ev"): the most any of its kernels needs, in the solve (subjects < 0)
 * or in a simulation of `subjects` subjects (the kernels that read it
 * there, ir_pre_sim_reads_ev); 0 without tables. */
long long solve_worker_ev_entries(const lcm_worker *w, int r, long long subjects);
/* Entries of stage s's table of regime r on this worker (ir/eliminate.h):
 * the most one launch of any of its kernels needs, 0 without tables. */
long long solve_worker_stage_entries(const lcm_worker *w, int r, int s);
/* What regime r's table holds, for messages: "the endogenous grid" or "the
 * continuation table", as the kernel whose table sizes it has; and what
 * makes it smaller. */
const char *solve_worker_table_what(const lcm_worker *w, int r);
const char *solve_worker_table_remedy(const lcm_worker *w, int r);
/* Fills the worker's grid and parameter buffers for a run with params. */
int solve_worker_load(lcm_worker *w, const double *params, lcm_err *err);
/* Prints each period's time of a finished solve (level progress). */
void solve_worker_log_periods(lcm_worker *w);
/* cuda when a device is present and asked for by auto. */
lcm_backend_kind solve_choose_backend(lcm_backend_kind asked);
/* Converts n doubles to a precision (64 or 32) into dst. */
void solve_to_precision(const double *x, size_t n, int precision, void *dst);

#endif
