/* lcm_best_of (templates/prelude.h), the fold of the CPU's staged action
 * loop, against the per-action update it replaces (`if (q > best || best_a
 * < 0)` over the feasible actions in order, NaN Q flagged and skipped):
 * the same best to the bit, the same action and the same NaN flag, over
 * random chunks of Q drawn from values that tie, infinities, signed zeros
 * and NaN, random feasibility, and a running best from before the chunk.
 * Compiled with OpenMP, as the kernels are (its simd reductions). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_abi.h"
#include "prelude.h"
#include "random.h" /* defines what prelude.h declares (lcm_gumbel) */
#include "check.h"

static void sequential(const real *q, const lcm_feas *ok, int n, lcm_index base, real *best, lcm_index *best_a,
                       int *nan_q)
{
    for (int i = 0; i < n; ++i) {
        if (!ok[i]) continue;
        if (q[i] != q[i]) *nan_q = 1;
        else if (q[i] > *best || *best_a < 0) *best = q[i], *best_a = base + i;
    }
}

static uint64_t state = 88172645463325252ull;
static unsigned next(void) /* xorshift64: the same cases on every run */
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (unsigned)(state >> 11);
}

int main(void)
{
    const real values[] = {-LCM_INF, LCM_INF, NAN, 0.0, -0.0, 1.0, 1.0, 2.5, -3.0, -1e300, 1e-300};
    const int nvalues = (int)(sizeof values / sizeof *values);
    real q[600];
    lcm_feas ok[600];
    int cases = 0;
    for (int trial = 0; trial < 200000; ++trial) {
        /* mostly up to 64 (the vector passes' share and the remainder
         * folded by the update), sometimes a staged loop's longest chunks */
        int n = 1 + (int)(next() % (trial % 8 ? 64u : 600u)), feasible_share = (int)(next() % 5); /* 0: none feasible .. 4: all */
        for (int i = 0; i < n; ++i) {
            q[i] = values[next() % (unsigned)nvalues];
            ok[i] = (lcm_feas)((int)(next() % 4) < feasible_share);
        }
        real b0 = values[next() % (unsigned)nvalues];
        if (b0 != b0) b0 = -LCM_INF; /* a running best is never NaN */
        lcm_index a0 = next() % 3 == 0 ? -1 : 7;
        if (a0 < 0) b0 = -LCM_INF;
        real bs = b0, bf = b0;
        lcm_index as = a0, af = a0;
        int ns = 0, nf = 0;
        sequential(q, ok, n, 100, &bs, &as, &ns);
        lcm_best_of(q, ok, n, 100, &bf, &af, &nf);
        CHECK_MSG(as == af && ns == nf && memcmp(&bs, &bf, sizeof bs) == 0,
                  "trial %d (n %d): sequential %g at %lld (NaN %d), lcm_best_of %g at %lld (NaN %d)", trial, n,
                  (double)bs, (long long)as, ns, (double)bf, (long long)af, nf);
        ++cases;
        if (check_failures > 10) break;
    }
    printf("lcm_best_of: %d random chunks, the per-action update's result in each\n", cases);
    return check_failures != 0;
}
