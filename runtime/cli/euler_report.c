/* euler_report.c - `--euler` of lcm solve, simulate and run: the Euler
 * errors of the solution on its grid (and along the panel) as a table
 * (lcm.h: lcm_euler_grid, lcm_euler_panel; docs/solvers.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "comm.h"

int cli_euler_option(cli_args *a, cli_euler *e, int *matched, lcm_err *err)
{
    const char *v;
    int r;
    *matched = 0;
    if (!strcmp(a->argv[a->i], "--euler")) return *matched = 1, e->on = 1, 0;
    if (!(r = cli_value(a, "--euler-cutoff", &v, err))) return 0;
    *matched = 1;
    if (r < 0) return err->code;
    char *end;
    e->cutoff = base_strtod_decimal(v, &end), e->cutoff_given = 1; /* a decimal number: no sign, no hex */
    if (end == v || *end || !(e->cutoff >= 0 && e->cutoff < INFINITY))
        return base_fail(err, LCM_E_USAGE, "--euler-cutoff '%s': give savings of 0 or more, a decimal number (default %g)",
                         v, CLI_EULER_CUTOFF);
    return 0;
}

int cli_euler_check(const cli_euler *e, lcm_err *err)
{
    if (e->cutoff_given && !e->on) return base_fail(err, LCM_E_USAGE, "--euler-cutoff without --euler");
    if (e->on && core_comm_size() > 1)
        return base_fail(err, LCM_E_USAGE, "--euler: not in an MPI job (yet); run it in one process");
    return 0;
}

static void row(FILE *to, const char *name, const lcm_euler_stats *s)
{
    fprintf(to, "  %-22s %10lld %12lld", name, (long long)s->points, (long long)s->constrained);
    if (s->points) fprintf(to, " %8.3f %8.3f %8.3f %8.3f\n", s->mean, s->p5, s->p50, s->p95);
    else fputs("        -        -        -        -\n", to);
}

/* The table of `what` (grid or panel): all points, then each regime with a margin. */
static void table(FILE *to, const lcm_model *model, const char *what, const lcm_euler_stats *all,
                  const lcm_euler_stats *by)
{
    row(to, what, all);
    for (int r = 0; r < lcm_model_regimes(model); ++r) {
        if (!by[r].points && !by[r].constrained) continue;
        char name[64];
        snprintf(name, sizeof name, "  %s", lcm_model_regime_name(model, r));
        row(to, name, &by[r]);
    }
}

int cli_euler_report(const cli_euler *e, const lcm_model *model, lcm_solver *sv, const lcm_solution *sol,
                     lcm_panel *panel, FILE *to, lcm_err *err)
{
    if (!e->on) return 0;
    double cutoff = e->cutoff_given ? e->cutoff : CLI_EULER_CUTOFF;
    int n = lcm_model_regimes(model);
    lcm_euler_stats grid, pan, *by_grid = base_xcalloc((size_t)n + 1, sizeof *by_grid),
                               *by_panel = base_xcalloc((size_t)n + 1, sizeof *by_panel);
    int rc = lcm_euler_grid(sv, sol, cutoff, &grid, by_grid, err);
    if (!rc && panel) rc = lcm_euler_panel(sv, sol, panel, cutoff, &pan, by_panel, err);
    if (!rc) {
        fprintf(to, "Euler errors of model '%s': log10 |c - c~| / c where savings exceed the limit by more than %g\n",
                lcm_model_name(model), cutoff);
        fprintf(to, "  %-22s %10s %12s %8s %8s %8s %8s\n", "", "points", "constrained", "mean", "p5", "p50", "p95");
        table(to, model, "grid", &grid, by_grid);
        if (panel) table(to, model, "panel", &pan, by_panel);
        fflush(to);
    }
    free(by_grid), free(by_panel);
    return rc;
}
