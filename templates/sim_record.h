/* sim_record.h - one row of a simulated batch recorded for a period and
 * moved on (the contract is lcm_record_args', kernel_abi.h).  One text for
 * the generated kernels (pasted after the prelude: the CUDA kernel
 * lcm_sim_record below) and the runtime's host backends (sim/simulate.c
 * includes it once per precision).  The includer defines LCM_RECORD_REAL,
 * the batch's reals, and LCM_RECORD_FN, the row function's name; there is
 * no include guard, only the shared helpers are guarded. */
#ifndef LCM_SIM_RECORD_HELPERS
#define LCM_SIM_RECORD_HELPERS

#ifndef LCM_DEVICE
#  include <math.h>
#  define LCM_DEVICE static inline
#endif

/* *at = min(*at, v) among threads. */
#if defined(__CUDACC__)
LCM_DEVICE void lcm_record_min(int *at, int v) { atomicMin(at, v); }
#else
LCM_DEVICE void lcm_record_min(int *at, int v)
{
    int cur = __atomic_load_n(at, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(at, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}
#endif
#endif /* LCM_SIM_RECORD_HELPERS */

LCM_DEVICE void LCM_RECORD_FN(const lcm_record_args *r, lcm_index row)
{
    typedef LCM_RECORD_REAL rreal;
    const int g = r->regime[row];
    const lcm_index at = row * r->nperiods + r->period;
    rreal *col = (rreal *)r->p_real;
    if (g < 0 || r->start[row] > r->period) {
        if (!r->fill) return;
        r->p_regime[at] = -1;
        for (int c = 0; c < 1 + r->nstates + r->nactions; ++c) col[c * r->stride + at] = (rreal)NAN;
        return;
    }
    const rreal *x = (const rreal *)r->x + row * r->nstates;
    r->p_regime[at] = g;
    col[at] = ((const rreal *)r->value)[row];
    for (int q = 0; q < r->nstates; ++q)
        col[(1 + q) * r->stride + at] = r->has_state[g * r->nstates + q] ? x[q] : (rreal)NAN;
    for (int q = 0; q < r->nactions; ++q)
        col[(1 + r->nstates + q) * r->stride + at] = ((const rreal *)r->action)[row * r->nactions + q];
    const int next = r->regime_next[row];
    if (next >= 0 && !r->active_next[next]) {
        lcm_record_min(r->bad_row, (int)row);
        return;
    }
    r->regime[row] = next;
    ++r->len[row];
    if (next >= 0) {
        rreal *xo = (rreal *)r->x + row * r->nstates;
        const rreal *xn = (const rreal *)r->x_next + row * r->nstates;
        for (int q = 0; q < r->nstates; ++q) xo[q] = xn[q];
    }
}

#if defined(__CUDACC__) && defined(LCM_RECORD_KERNEL)
/* The device's record: one thread per batch row. */
LCM_EXTERN __global__ void lcm_sim_record(const lcm_record_args r)
{
    const lcm_index row = (lcm_index)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < r.n) LCM_RECORD_FN(&r, row);
}
#endif
