/* progress.c - see progress.h. */
#include "progress.h"

#include <string.h>

#include "comm.h"
#include "base.h"

int solve_progress_begin(lcm_progress_run *run, lcm_progress_fn fn, void *user, lcm_progress_kind what,
                       const ir_model *m, long long total)
{
    memset(run, 0, sizeof *run);
    run->fn = core_comm_rank() == 0 ? fn : NULL;
    run->user = user;
    run->ages = m->ages;
    run->info.what = what;
    run->info.model = m->name;
    run->info.periods = m->nperiods;
    run->info.total = total;
    run->t0 = base_now_seconds();
    return run->fn != NULL;
}

int solve_progress_tell(lcm_progress_run *run, int period, lcm_err *err)
{
    if (!run || !run->fn) return 0;
    lcm_progress_info *p = &run->info;
    if (p->done < p->total) ++p->done; /* never past the total the caller was promised */
    p->period = period;
    p->age = run->ages[period];
    p->seconds = base_now_seconds() - run->t0;
    lcm_progress_info told = *p; /* the callback gets a copy: what it does to it changes nothing here */
    if (!run->fn(&told, run->user)) return 0;
    int solve = p->what == LCM_PROGRESS_SOLVE;
    if (solve)
        return base_fail(err, LCM_E_CANCELLED, "the solve of model '%s' was cancelled by its progress callback after "
                        "period %d (step %lld of %lld): no solution", p->model, period, p->done, p->total);
    return base_fail(err, LCM_E_CANCELLED, "the simulation of model '%s' was cancelled by its progress callback after "
                    "period %d of subjects %lld to %lld (step %lld of %lld): no panel", p->model, period,
                    (long long)p->batch_first, (long long)(p->batch_first + p->batch_size - 1), p->done, p->total);
}
