/* kernel_abi.h - the interface between the runtime and generated kernels.
 *
 * Included by the runtime (C11) and pasted at the top of every generated
 * source, which compiles as C11 (CPU backend) and CUDA C++ (NVRTC).  Keep it
 * free of includes and of anything either language lacks.
 */
#ifndef LCM_KERNEL_ABI_H
#define LCM_KERNEL_ABI_H

#define LCM_ABI_VERSION 16
#define LCM_MAX_REGIMES 64
#define LCM_MAX_SPLAYED 8 /* splayed states per regime (ir/shard.h) */
#define LCM_EGM_BLOCK 16  /* segments of an EGM table's bounded block (ir/precompute.h) */
/* The bounded blocks of a row of an EGM table on `points` savings points. */
#define LCM_EGM_BLOCKS(points) (((points) - 1 + LCM_EGM_BLOCK - 1) / LCM_EGM_BLOCK)
#define LCM_EV_AXES 8 /* the axes an expected-V table sums over in one target (ir/precompute.h) */
#define LCM_MAX_STAGES 4 /* stages of a kernel's staged solve (ir/eliminate.h) */
/* A stage's entry (ir/eliminate.h): its best value, the action that gives
 * it, and a code byte: bit 0 some action of the entry is feasible, bits 1
 * to 7 the check flags 2 to 8 (lcm_flag_bit) that failed at its feasible
 * pairs, raised where a feasible pair of the kernel reads the entry. */
#define LCM_STAGE_FEASIBLE 1u
#define LCM_STAGE_CODE(bad) ((unsigned char)(((bad) >> 2) << 1))
#define LCM_STAGE_BAD(code) ((unsigned)((code) >> 1) << 2)

typedef long long lcm_index;

/* Validation flags, set inside the kernels (atomics, no extra pass). */
enum lcm_flag_bit {
    LCM_FLAG_NAN = 0,     /* NaN in V (a NaN Q at a feasible action) */
    LCM_FLAG_INF,         /* +inf in V */
    LCM_FLAG_REGIME_PROB, /* regime probabilities negative or not summing to 1 */
    LCM_FLAG_STATE_PROB,  /* Markov state probabilities negative or not summing to 1 */
    LCM_FLAG_INACTIVE,    /* positive probability of a regime inactive next period */
    LCM_FLAG_CODE,        /* a next discrete state is not a code of its grid */
    LCM_FLAG_INFEASIBLE,  /* no feasible action at a state */
    LCM_FLAG_CE,          /* Epstein-Zin: a negative next V or a risk aversion that is not finite */
    LCM_FLAG_TASTE_SCALE, /* a taste-shock scale negative or not finite */
    LCM_NFLAGS            /* at most 9: a stage's code byte holds flags 2 to 8 (LCM_STAGE_CODE) */
};

typedef struct lcm_flags {
    unsigned int bits;
    unsigned int pad_;
    lcm_index first[LCM_NFLAGS]; /* smallest state index showing each flag */
} lcm_flags;

typedef struct lcm_kernel_args {
    const void *params;                   /* real[]: parameter slots */
    const void *grids;                    /* real[]: points of continuous grids (ir/grid.h) */
    const void *v_next[LCM_MAX_REGIMES];  /* real[]: V_{t+1} by regime id, or 0 */
    void *v_out;                          /* real[]: V_t of this regime */
    lcm_flags *flags;
    double age;
    int period;
    int checks;                           /* 0: skip probability checks */
    /* which states a launch solves (ir/shard.h): the worker's block
     * [shard_lo, shard_hi) of the sharded states' combined index (an EGM
     * regime's endogenous grid makes the rows of that block only), and the
     * chunk of each splayed state */
    lcm_index shard_lo, shard_hi;
    int chunk[LCM_MAX_SPLAYED];
    /* the launch's continuation table and its off-grid bytes
     * (ir/precompute.h), or 0: the kernel evaluates the continuation inline;
     * for a regime that solves by EGM, its endogenous grid */
    void *cont;
    unsigned char *cont_code;
    /* the expected next V of the kernel's targets with shock processes
     * (ir/precompute.h, "ev"), which its table's entries, the body's
     * inline continuation and the simulation read; 0: sum over the nodes */
    void *ev;
    /* the staged solve (ir/eliminate.h): each stage's table (its entries'
     * best values, and their code bytes), made before the kernel by the
     * table's passes; 0: the body makes its state's rows itself (a
     * simulation, LCM_NO_TABLES) */
    void *stage[LCM_MAX_STAGES];
    unsigned char *stage_code[LCM_MAX_STAGES];
    /* simulation on a host (cont 0): a body whose kernel has a continuation
     * table keeps its state's row of it, each entry computed inline where
     * first read (gen/emit.c, "the state's row") */
    int cont_lazy;
    /* EGM: the marginal value of the liquid state, d V / d x, of next
     * period by regime id (EGM regimes), and of this one (0: not kept) */
    const void *m_next[LCM_MAX_REGIMES];
    void *m_out;
    /* GPU: real[nterms] (ir_kernel), the launch's action terms, which the
     * backend fills with <symbol>_terms before each launch of the kernel or
     * its simulation step; a host backend's kernel fills its own (0 here) */
    void *terms;
} lcm_kernel_args;

/* Simulation: a launch covers batch rows [0, n) and steps those in its
 * regime that have started (LCM_SIM_STEPS) at one period (lcm_kernel_args
 * as for the solve of that period; flags are indexed by batch row): each
 * subject's best action at its exact state,
 * then its next regime and next states, computed or drawn.  Arrays are by
 * batch row; states and actions by ir_vars slot (NaN where the regime
 * lacks the variable). */
typedef struct lcm_sim_args {
    const int *regime;                    /* [batch]: the rows' regimes (-1: none) */
    const int *start;                     /* [batch]: their start periods */
    int regime_id;                        /* the launch's regime */
    unsigned long long subject0;          /* the id of batch row 0: row r is subject subject0 + r (the draws' key) */
    const void *x;                        /* real[batch * nstates]: state values (codes for discrete) */
    void *x_next;                         /* real[batch * nstates]: next state values */
    void *value;                          /* real[batch]: V at the state (max Q; smoothed with taste shocks) */
    void *action;                         /* real[batch * nactions]: the chosen action's values */
    int *regime_next;                     /* [batch]: next regime, -1 when the path ends */
    unsigned long long seed;
    int nstates, nactions;                /* slots per row */
    int ends;                             /* the model's last period: every path ends */
    int choice_slots;                     /* the last slots of nactions: where a regime with taste shocks that
                                           * solves by EGM keeps each choice's best Q and the scale, for its
                                           * choice probabilities (lcm_keep_choices); 0: none asked for */
} lcm_sim_args;

/* Simulation, after the steps of a period: the record (sim_record.h, one
 * call per batch row; on a GPU the kernel lcm_sim_record, on a host
 * backend the runtime's threads).  Each row that was stepped
 * (regime[row] >= 0, start[row] <= period) gets its panel cell
 * (row * nperiods + period) written: regime, value, the states of its
 * regime (NaN for the other slots: has_state) and the action; it counts
 * one more period lived and moves on: regime = regime_next, x = x_next.  A
 * move into a regime not active next period (active_next) leaves the row
 * where it is and puts the smallest such row in *bad_row.  With `fill`,
 * the cells of rows not stepped get regime -1 and NaN (cells of the
 * backend's own, which all go home); without, they are left alone (the
 * panel itself, where other workers' subjects live).  The real columns
 * are a column every `stride` reals: value, the states by slot, the
 * actions by slot. */
typedef struct lcm_record_args {
    int *regime, *len;                    /* [batch]: current regime (-1: ended or not this worker's), periods lived */
    const int *start, *regime_next;       /* [batch]: start period; from the steps */
    void *x;                              /* real[batch * nstates] */
    const void *x_next;                   /* real[batch * nstates] */
    const void *value, *action;           /* real[batch], real[batch * nactions] */
    const unsigned char *has_state;       /* [nregimes * nstates]: slot q is a state of regime r */
    const unsigned char *active_next;     /* [nregimes]: active in period + 1 */
    int *p_regime;                        /* the batch's first cell of the regime column */
    void *p_real;                         /* ... of the value column (real), the others after it */
    int *bad_row;                         /* [1] */
    lcm_index n, stride;                  /* rows; reals from one real column to the next */
    int period, nperiods, nstates, nactions, fill;
} lcm_record_args;

/* Whether a launch steps batch row `row` at `period`. */
#define LCM_SIM_STEPS(sim, row, period) ((sim)->regime[row] == (sim)->regime_id && (sim)->start[row] <= (period))

/* The global id of batch row `row` of a launch: its draws' key. */
#define LCM_SUBJECT(sim, row) ((sim)->subject0 + (unsigned long long)(row))

#endif
