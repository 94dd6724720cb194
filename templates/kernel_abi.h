/* kernel_abi.h - the interface between the runtime and generated kernels.
 *
 * Included by the runtime (C11) and pasted at the top of every generated
 * source, which compiles as C11 (CPU backend) and CUDA C++ (NVRTC).  Keep it
 * free of includes and of anything either language lacks.
 */
#ifndef LCM_KERNEL_ABI_H
#define LCM_KERNEL_ABI_H

#define LCM_ABI_VERSION 8
#define LCM_MAX_REGIMES 64
#define LCM_MAX_SPLAYED 8 /* splayed states per regime (ir/shard.h) */
#define LCM_EGM_BLOCK 32  /* segments of an EGM table's bounded block (ir/precompute.h) */

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
    LCM_NFLAGS
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
    lcm_index *policy;                    /* argmax action per state, or 0 */
    lcm_flags *flags;
    double age;
    int period;
    int checks;                           /* 0: skip probability checks */
    /* which states a launch solves (ir/shard.h): the first value of the
     * sharded states' combined index, and the chunk of each splayed state */
    lcm_index shard_lo;
    int chunk[LCM_MAX_SPLAYED];
    /* the launch's continuation table and its off-grid bytes
     * (ir/precompute.h), or 0: the kernel evaluates the continuation inline;
     * for a regime that solves by EGM, its endogenous grid */
    void *cont;
    unsigned char *cont_code;
    /* EGM: the marginal value of the liquid state, d V / d x, of next
     * period by regime id (EGM regimes), and of this one (0: not kept) */
    const void *m_next[LCM_MAX_REGIMES];
    void *m_out;
} lcm_kernel_args;

/* Simulation: a launch steps the subjects rows[0..n) of one regime at one
 * period (lcm_kernel_args as for the solve of that period; flags are
 * indexed by batch row): each subject's best action at its exact state,
 * then its next regime and next states, computed or drawn.  Arrays are by
 * batch row; states and actions by ir_vars slot (NaN where the regime
 * lacks the variable). */
typedef struct lcm_sim_args {
    const int *rows;                      /* the batch rows of this launch's subjects */
    unsigned long long subject0;          /* the id of batch row 0: row r is subject subject0 + r (the draws' key) */
    const void *x;                        /* real[batch * nstates]: state values (codes for discrete) */
    void *x_next;                         /* real[batch * nstates]: next state values */
    void *value;                          /* real[batch]: V at the state (max Q; smoothed with taste shocks) */
    void *action;                         /* real[batch * nactions]: the chosen action's values */
    int *regime_next;                     /* [batch]: next regime, -1 when the path ends */
    unsigned long long seed;
    int nstates, nactions;                /* slots per row */
    int ends;                             /* the model's last period: every path ends */
} lcm_sim_args;

/* The global id of batch row `row` of a launch: its draws' key. */
#define LCM_SUBJECT(sim, row) ((sim)->subject0 + (unsigned long long)(row))

#endif
