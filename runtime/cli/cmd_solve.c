/* cmd_solve.c - `lcm solve`: backward induction to HDF5 and/or CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "comm.h"
#include "output.h"
#include "params_lua.h"
#include "progress_line.h"

static const char usage[] =
    "usage: lcm solve MODEL.lua|DIR [--params P.lua] [-D name=value]... [--trust-model] [--set name=value]...\n"
    "                 [--fix path[=value]]... [--precision 64|32] [--backend auto|cpu|cuda|interp] [--device N] [--devices N]\n"
    "                 [--threads N]\n"
    "                 [--checks raise|warn|off] [--log-level off|warning|info|progress|debug]\n"
    "                 [--log-path DIR [--log-keep N]]\n"
    "                 [--progress|--no-progress]\n"
    "                 [--out SOLUTION.h5] [--csv V.csv]\n"
    "\n"
    "Solves the model by backward induction and writes V of every regime and period:\n"
    "  --out     HDF5, one dataset /V/period_<t>/<regime> with grid points as attributes\n"
    "  --csv     long form: period,age,regime,<states...>,V (--csv -: to standard output)\n"
    "            both written all or none, never over an input (docs/user-guide.md, section 5)\n"
    "  --params  a Lua file returning the parameters (see lcm params-template)\n"
    "  --set     overrides one parameter: --set discount_factor=0.95 --set alive.wage={1,2}\n"
    "  --fix     bakes a parameter into the solver as a constant (its value from the parameters, or\n"
    "            --fix sigma=2); a solver is compiled and cached per fixed value (docs/tuning.md)\n"
    "  --backend auto (the default) solves on the GPU when one is usable, else on the CPU\n"
    "  --devices N  shard the states with distributed = true over N workers (GPUs from --device on);\n"
    "               under mpirun -np R, over R x N workers (docs/tuning.md)\n"
    "  --checks     what a failed numerical check (NaN V, bad probabilities) does: raise (default)\n"
    "               an error at the first failing period; warn: a warning, the solve completes;\n"
    "               off: no checks.  The same at every --log-level\n"
    "  --log-level  what is printed: info (default): warnings, one line on success; warning:\n"
    "               warnings only; progress: + time per period; debug: + V's range per period\n"
    "               and regime; off: no messages\n"
    "  --log-path   a failed check writes a snapshot (model, parameters, V, report) into DIR,\n"
    "               which keeps the newest --log-keep (default 3)\n"
    "  --progress   a line that shows the period solved, the time taken and left, rewritten in\n"
    "               place while the solve runs longer than a second: shown by default when stderr\n"
    "               is a terminal and the level is info or more; --no-progress: never\n"
    "  --euler      prints the Euler errors of the solution on its grid, in the regimes with a\n"
    "               consumption-saving margin: log10 |c - c~| / c where savings exceed the borrowing\n"
    "               limit by more than --euler-cutoff (default 0.02) (docs/solvers.md)\n";

/* Both outputs or neither (output.h); the CSV last, as it may be standard
 * output, which cannot be held back. */
static int write_outputs(const lcm_solution *sol, const char *out, const char *csv, lcm_err *err)
{
    io_outputs_begin();
    int rc = out ? lcm_solution_write_h5(sol, out, err) : 0;
    if (!rc && csv) rc = lcm_solution_write_csv(sol, csv, err);
    return io_outputs_end(rc, err);
}

int cmd_solve(int argc, char **argv)
{
    cli_args a = {.argc = argc, .argv = argv, .i = 0, .cmd = "solve"};
    cli_model_opts mo = {0};
    const char *params_path = NULL, *out = NULL, *csv = NULL, *v;
    const char **sets = base_xcalloc((size_t)argc + 1, sizeof *sets);
    int nsets = 0;
    lcm_solver_options so = {.backend = LCM_BACKEND_AUTO, .precision = 64};
    cli_euler euler = {0};
    lcm_err err = {0};
    int rc = 0, r;
    for (a.i = 1; a.i < argc && !rc; ++a.i) {
        const char *arg = argv[a.i];
        int matched;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(usage, stdout);
            free(sets);
            return 0;
        }
        if ((rc = cli_model_option(&a, &mo, &matched, &err)) || matched) continue;
        if ((r = cli_value(&a, "--params", &params_path, &err))) rc = r < 0 ? err.code : 0;
        else if ((r = cli_value(&a, "--out", &out, &err))) rc = r < 0 ? err.code : 0;
        else if ((r = cli_value(&a, "--csv", &csv, &err))) rc = r < 0 ? err.code : 0;
        else if ((r = cli_each_value(&a, "--set", &v, &err))) rc = r < 0 ? err.code : (sets[nsets++] = v, 0);
        else if ((rc = cli_euler_option(&a, &euler, &matched, &err)) || matched) continue;
        else if ((rc = cli_solver_option(&a, &so, &matched, &err)) || matched) continue;
        else if (arg[0] == '-') {
            rc = base_fail(&err, LCM_E_USAGE, "unknown option '%s' (see lcm solve --help)", arg);
        } else if (mo.model) {
            rc = base_fail(&err, LCM_E_USAGE, "more than one model given ('%s' and '%s')", mo.model, arg);
        } else {
            mo.model = arg;
        }
    }
    if (!rc && !mo.model) rc = base_fail(&err, LCM_E_USAGE, "no model given\n%s", usage);
    if (!rc) rc = cli_euler_check(&euler, &err);
    if (!rc && !out && !csv) rc = base_fail(&err, LCM_E_USAGE, "nothing to write: give --out SOLUTION.h5 and/or --csv V.csv");
    const cli_file files[] = {{"--out", out, 1, 0}, {"--csv", csv, 1, 1}, {"the model", mo.model, 0, 0},
                              {"--params", params_path, 0, 0}};
    if (!rc) cli_progress_attach(&so); /* after --log-level */
    if (!rc) rc = cli_check_outputs(files, 4, &err);
    if (!rc && out) rc = cli_check_writable(out, &err);
    if (!rc && csv) rc = cli_check_writable(csv, &err);

    lcm_pvalue *params = NULL;
    if (!rc && params_path) {
        char **read = NULL;
        int nread = 0;
        rc = cli_params_read_lua(params_path, &params, &read, &nread, &err);
        cli_note_read(&mo, "a file the params file reads", read, nread);
    }
    if (!rc && !params) params = lcm_pv_table();
    for (int i = 0; i < nsets && !rc; ++i) rc = cli_params_apply_set(params, sets[i], &err);
    if (!rc) rc = core_params_take_fixes(params, mo.fixes, mo.nfixes, &err);

    lcm_model *model = NULL;
    lcm_solver *solver = NULL;
    lcm_solution *sol = NULL;
    double *buf = NULL;
    if (!rc) rc = cli_open_model(&mo, &model, &err);
    if (!rc) rc = cli_check_loaded(&mo, files, 4, &err);
    if (!rc) { /* the parameters checked before anything is compiled */
        buf = base_xcalloc(core_model_ir(model)->params_size + 1, sizeof *buf);
        rc = core_params_resolve(core_model_ir(model), params, buf, &err);
    }
    rc = core_comm_agree(rc, &err); /* an MPI job: a rank whose inputs fail stops every rank, said once */
    if (!rc) rc = lcm_solver_new(model, &so, &solver, &err);
    if (!rc) rc = lcm_solve_resolved(solver, buf, &sol, &err);
    free(buf);
    FILE *report_to = csv && !strcmp(csv, "-") ? stderr : stdout; /* the CSV may be standard output */
    if (!rc) rc = cli_euler_report(&euler, model, solver, sol, NULL, report_to, &err);
    int writer = core_comm_rank() == 0; /* in an MPI job rank 0 holds the whole V */
    if (!rc && writer) rc = write_outputs(sol, out, csv, &err);
    rc = core_comm_agree(rc, &err);
    if (!rc && writer) {
        char *done = base_xasprintf("solved model '%s' on %s (float%d) in %.3f s", core_model_ir(model)->name,
                               lcm_solver_backend(solver), lcm_solver_precision(solver), lcm_solution_seconds(sol));
        const char *outputs[] = {out, csv};
        cli_report(done, outputs, 2);
        free(done);
    }
    lcm_solution_free(sol);
    lcm_solver_free(solver);
    lcm_model_free(model);
    lcm_pv_free(params);
    cli_model_opts_free(&mo);
    free(sets);
    return rc ? cli_die("solve", &err) : 0;
}
