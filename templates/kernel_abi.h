/* kernel_abi.h - the interface between the runtime and generated kernels.
 *
 * Included by the runtime (C11) and pasted at the top of every generated
 * source, which compiles as C11 (CPU backend) and CUDA C++ (NVRTC).  Keep it
 * free of includes and of anything either language lacks.
 */
#ifndef LCM_KERNEL_ABI_H
#define LCM_KERNEL_ABI_H

#define LCM_ABI_VERSION 1
#define LCM_MAX_REGIMES 64

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
    LCM_NFLAGS
};

typedef struct lcm_flags {
    unsigned int bits;
    unsigned int pad_;
    lcm_index first[LCM_NFLAGS]; /* smallest state index showing each flag */
} lcm_flags;

typedef struct lcm_kernel_args {
    const void *params;                   /* real[]: parameter slots */
    const void *grids;                    /* real[]: points of continuous grids */
    const void *v_next[LCM_MAX_REGIMES];  /* real[]: V_{t+1} by regime id, or 0 */
    void *v_out;                          /* real[]: V_t of this regime */
    lcm_index *policy;                    /* argmax action per state, or 0 */
    lcm_flags *flags;
    double age;
    int period;
    int checks;                           /* 0: skip probability checks */
} lcm_kernel_args;

#endif
