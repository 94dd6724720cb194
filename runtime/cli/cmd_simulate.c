/* cmd_simulate.c - `lcm simulate` (a panel from initial conditions, solving
 * first unless given a saved solution) and `lcm run` (solve and simulate a
 * model with the parameters and initial conditions bundled next to it). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "comm.h"
#include "files.h"
#include "initial_lua.h"
#include "log.h"
#include "output.h"
#include "params_lua.h"
#include "progress_line.h"

#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)

static const char simulate_usage[] =
    "usage: lcm simulate MODEL.lua|DIR --initial I.csv|I.h5|I.lua [--subjects N] [--params P.lua] [--set name=value]...\n"
    "                    [--solution SOLUTION.h5] [--seed N] [--subject-batch-size K] [--targets f,g|all]\n"
    "                    [-D name=value]... [--fix path[=value]]... [--trust-model] [--precision 64|32] [--backend auto|cpu|cuda|interp] [--device N]\n"
    "                    [--devices N]\n"
    "                    [--threads N] [--checks raise|warn|off] [--log-level off|warning|info|progress|debug]\n"
    "                    [--log-path DIR [--log-keep N]]\n"
    "                    [--progress|--no-progress] [--out PANEL.h5] [--csv PANEL.csv] [--euler [--euler-cutoff A]]\n"
    "\n"
    "Simulates the subjects of the initial conditions (one row each: regime, age and\n"
    "the states of the regime; shock processes may be left out and are drawn) forward\n"
    "with the model's optimal choices:\n"
    "  --initial             CSV, HDF5, or a Lua file returning the columns or a function(n) making them\n"
    "  --subjects            n for an --initial .lua file's function (default " TEXT(LCM_INITIAL_LUA_DEFAULT_SUBJECTS) ")\n"
    "  --solution            a solution written by lcm solve --out (else the model is solved first)\n"
    "  --seed                the draws' key (default 0): same seed, same panel\n"
    "  --subject-batch-size  subjects simulated at once (0 = all): bounds memory, never changes the panel\n"
    "  --targets             extra columns: the model's functions at each row's state and action\n"
    "  --euler               the Euler errors on the solution's grid and along the panel (a column\n"
    "                        euler_error), printed as a table: as for lcm solve --euler\n"
    "  --out / --csv         the panel: subject_id,period,age,regime,value,<states>,<actions>,<targets>\n"
    "                        (--csv -: to standard output); written all or none, never over an input\n"
    "  --checks, --log-level, --log-path, --log-keep  as for lcm solve (the checks cover the simulation too)\n"
    "  --progress / --no-progress  as for lcm solve: a line rewritten in place while the solve and the\n"
    "                        simulation run (periods of the batch of subjects simulated, time taken and left)\n";

static const char run_usage[] =
    "usage: lcm run MODEL.lua [--params P.lua] [--initial I.csv] [--out-dir DIR] [options of lcm simulate]\n"
    "\n"
    "Solves and simulates a model with the files bundled next to it: MODEL.params.lua\n"
    "and MODEL.initial.csv or MODEL.initial.lua (not both; e.g. models/tiny.lua,\n"
    "models/tiny.params.lua, models/tiny.initial.csv).  Writes DIR/MODEL.solution.h5,\n"
    "DIR/MODEL.panel.h5 and DIR/MODEL.panel.csv (DIR defaults to results; made when\n"
    "the outputs are written, so a run that fails leaves none).  On a terminal a\n"
    "progress line shows the solve, then the simulation (--progress, --no-progress:\n"
    "see lcm simulate --help).\n";

typedef struct sim_cli {
    int run; /* lcm run */
    cli_model_opts mo;
    lcm_solver_options so;
    lcm_sim_options sim;
    const char *params_path, *initial, *solution, *out, *csv, *out_dir;
    const char **sets;
    int nsets;
    long long subjects; /* --subjects, 0 when not given */
    cli_euler euler;
} sim_cli;

static int parse_args(int argc, char **argv, sim_cli *c, int *help, lcm_err *err)
{
    cli_args a = {.argc = argc, .argv = argv, .i = 0, .cmd = c->run ? "run" : "simulate"};
    const char *v;
    int rc = 0, r;
    for (a.i = 1; a.i < argc && !rc; ++a.i) {
        const char *arg = argv[a.i];
        int matched;
        unsigned long long n;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) return *help = 1, 0;
        if ((rc = cli_model_option(&a, &c->mo, &matched, err)) || matched) continue;
        if ((r = cli_value(&a, "--params", &c->params_path, err))) rc = r < 0 ? err->code : 0;
        else if ((r = cli_value(&a, "--initial", &c->initial, err))) rc = r < 0 ? err->code : 0;
        else if (!c->run && (r = cli_value(&a, "--solution", &c->solution, err))) rc = r < 0 ? err->code : 0;
        else if ((r = cli_value(&a, "--targets", &c->sim.targets, err))) rc = r < 0 ? err->code : 0;
        else if (!c->run && (r = cli_value(&a, "--out", &c->out, err))) rc = r < 0 ? err->code : 0;
        else if (!c->run && (r = cli_value(&a, "--csv", &c->csv, err))) rc = r < 0 ? err->code : 0;
        else if (c->run && (r = cli_folder_value(&a, "--out-dir", &c->out_dir, err))) rc = r < 0 ? err->code : 0;
        else if ((r = cli_each_value(&a, "--set", &v, err))) rc = r < 0 ? err->code : (c->sets[c->nsets++] = v, 0);
        else if ((r = cli_value(&a, "--seed", &v, err))) {
            rc = r < 0 ? err->code : cli_count("--seed", v, 0, ULLONG_MAX, &c->sim.seed, err);
        } else if ((r = cli_value(&a, "--subjects", &v, err))) {
            if (!(rc = r < 0 ? err->code : cli_count("--subjects", v, 1, LLONG_MAX, &n, err)))
                c->subjects = (long long)n;
        } else if ((r = cli_value(&a, "--subject-batch-size", &v, err))) {
            if (!(rc = r < 0 ? err->code : cli_count("--subject-batch-size", v, 0, LLONG_MAX, &n, err)))
                c->sim.subject_batch_size = (lcm_index)n;
        }
        else if ((rc = cli_euler_option(&a, &c->euler, &matched, err)) || matched) continue;
        else if ((rc = cli_solver_option(&a, &c->so, &matched, err)) || matched) continue;
        else if (arg[0] == '-')
            rc = base_fail(err, LCM_E_USAGE, "unknown option '%s' (see lcm %s --help)", arg, a.cmd);
        else if (c->mo.model)
            rc = base_fail(err, LCM_E_USAGE, "more than one model given ('%s' and '%s')", c->mo.model, arg);
        else c->mo.model = arg;
    }
    return rc;
}

/* lcm run's initial conditions: MODEL.initial.csv or MODEL.initial.lua
 * beside the model; both is ambiguous. */
static int run_initial(sim_cli *c, const char *dir, const char *stem, char **owned, lcm_err *err)
{
    char *csv = base_xasprintf("%s/%s.initial.csv", dir, stem), *lua = base_xasprintf("%s/%s.initial.lua", dir, stem);
    int has_csv = sys_file_exists(csv), has_lua = sys_file_exists(lua), rc = 0;
    if (has_csv && has_lua)
        rc = base_fail(err, LCM_E_USAGE, "both '%s' and '%s' exist; choose one with --initial", csv, lua);
    else if (!has_csv && !has_lua)
        rc = base_fail(err, LCM_E_IO, "lcm run needs initial conditions: neither '%s' nor '%s' exists (give "
                      "--initial)", csv, lua);
    c->initial = owned[1] = has_lua ? lua : csv;
    free(has_lua ? csv : lua);
    return rc;
}

/* lcm run: MODEL.params.lua, MODEL.initial.csv|lua and DIR/MODEL.* outputs. */
static int run_defaults(sim_cli *c, char **owned, lcm_err *err)
{
    if (!c->mo.model) return 0;
    char *dir = base_path_dirname(c->mo.model), *stem = base_path_stem(c->mo.model);
    const char *out_dir = c->out_dir ? c->out_dir : "results";
    char *name;
    if (!c->params_path && sys_file_exists(name = base_xasprintf("%s/%s.params.lua", dir, stem))) c->params_path = owned[0] = name;
    else if (!c->params_path) free(name);
    int rc = c->initial ? 0 : run_initial(c, dir, stem, owned, err);
    owned[2] = base_xasprintf("%s/%s.solution.h5", out_dir, stem);
    c->out = owned[3] = base_xasprintf("%s/%s.panel.h5", out_dir, stem);
    c->csv = owned[4] = base_xasprintf("%s/%s.panel.csv", out_dir, stem);
    c->out_dir = out_dir;
    free(dir), free(stem);
    if (!rc && !sys_file_exists(c->initial))
        rc = base_fail(err, LCM_E_IO, "lcm run needs initial conditions: '%s' does not exist", c->initial);
    return rc;
}

/* The initial conditions: a Lua file here, CSV or HDF5 through liblcm. */
static int read_initial(sim_cli *c, const lcm_model *model, lcm_initial **ic, lcm_err *err)
{
    if (base_path_has_extension(c->initial, ".lua")) {
        char **read = NULL;
        int nread = 0;
        int rc = cli_initial_read_lua(core_model_ir(model), c->initial, c->subjects, ic, &read, &nread, err);
        cli_note_read(&c->mo, "a file the initial conditions file reads", read, nread);
        return rc;
    }
    if (c->subjects)
        return base_fail(err, LCM_E_USAGE, "--subjects %lld: '%s' lists its subjects; --subjects is the n of an "
                        "--initial .lua file that returns a function(n)", c->subjects, c->initial);
    return lcm_initial_read(model, c->initial, ic, err);
}

/* The run's files: its outputs (solution_out: lcm run's) and its inputs. */
enum { SIM_FILES = 7 };
static void sim_files(const sim_cli *c, const char *solution_out, cli_file files[SIM_FILES])
{
    const char *out = c->run ? "--out-dir" : "--out", *csv = c->run ? "--out-dir" : "--csv";
    const cli_file all[SIM_FILES] = {{"--out-dir", solution_out, 1, 0}, {out, c->out, 1, 0}, {csv, c->csv, 1, 1},
                                     {"the model", c->mo.model, 0, 0}, {"--params", c->params_path, 0, 0},
                                     {"--initial", c->initial, 0, 0}, {"--solution", c->solution, 0, 0}};
    memcpy(files, all, sizeof all);
}

/* Outputs that replace no input nor each other, and can be created: for lcm
 * run in DIR, which is made only when the outputs are written
 * (write_outputs). */
static int check_outputs(const sim_cli *c, const cli_file files[SIM_FILES], lcm_err *err)
{
    int rc = cli_check_outputs(files, SIM_FILES, err);
    if (!rc && c->run) rc = cli_check_dir_creatable(c->out_dir, err);
    int made_later = c->run && !sys_is_directory(c->out_dir); /* its files can be created once it is */
    for (int i = 0; i < SIM_FILES && !rc && !made_later; ++i)
        if (files[i].output && files[i].path) rc = cli_check_writable(files[i].path, err);
    return rc;
}

/* s for a shell command line: as it is when it needs no quotes, else in single quotes. */
static void shell_word(lcm_sb *b, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./,=+-:@%") == strlen(s)) {
        base_sb_printf(b, " %s", s);
        return;
    }
    base_sb_puts(b, " '");
    for (; *s; ++s) *s == '\'' ? base_sb_puts(b, "'\\''") : base_sb_printf(b, "%c", *s);
    base_sb_puts(b, "'");
}

/* lcm run's last word: the command that draws its results (the Python
 * package's report, docs/python.md section 11), with the model's -D and
 * --fix values, which the report needs to open the solution. */
static void say_report_command(const sim_cli *c, const char *solution)
{
    lcm_sb b;
    base_sb_init(&b);
    base_sb_puts(&b, "a report with pictures of these results (pip install .[report]): python3 -m lcmgen report");
    shell_word(&b, c->mo.model);
    shell_word(&b, solution);
    shell_word(&b, c->csv);
    base_sb_puts(&b, " -o");
    size_t n = strlen(c->csv) - strlen(".panel.csv"); /* lcm run's csv: DIR/STEM.panel.csv */
    char *page = base_xasprintf("%.*s.report.html", (int)n, c->csv);
    shell_word(&b, page);
    for (int i = 0; i < c->mo.ndefines; ++i) {
        char *d = base_xasprintf("%s=%s", c->mo.defines[i].name, c->mo.defines[i].value);
        base_sb_puts(&b, " -D");
        shell_word(&b, d);
        free(d);
    }
    for (int i = 0; i < c->mo.nfixes; ++i) {
        if (!c->mo.fixes[i].value) continue;
        char *f = base_xasprintf("%s=%s", c->mo.fixes[i].name, c->mo.fixes[i].value);
        base_sb_puts(&b, " --fix");
        shell_word(&b, f);
        free(f);
    }
    io_info("%s", b.s);
    free(page);
    base_sb_free(&b);
}

/* The parameters from --params and --set, or NULL when neither is given. */
static int read_params(sim_cli *c, lcm_pvalue **out, lcm_err *err)
{
    *out = NULL;
    if (!c->params_path && !c->nsets) return 0;
    char **read = NULL;
    int nread = 0;
    int rc = c->params_path ? cli_params_read_lua(c->params_path, out, &read, &nread, err) : 0;
    cli_note_read(&c->mo, "a file the params file reads", read, nread);
    if (!rc && !*out) *out = lcm_pv_table();
    for (int i = 0; i < c->nsets && !rc; ++i) rc = cli_params_apply_set(*out, c->sets[i], err);
    return rc;
}

/* A saved solution must come from these parameters when they are given
 * (given), and in any case from the model's fixed values (fixed_params,
 * --fix): a fixed array or process parameter is data of the manifest, which
 * the solution's code hash does not cover. */
static int check_solution_params(const ir_model *m, const lcm_solution *sol, const double *given, lcm_err *err)
{
    const double *used = lcm_solution_params(sol);
    for (int i = 0; i < m->nparams; ++i) {
        const ir_param *p = &m->params[i];
        if (!given && !p->fixed) continue;
        const double *want = given ? given + p->offset : p->values;
        for (size_t k = 0; k < p->size; ++k) {
            if (!memcmp(&used[p->offset + k], &want[k], sizeof *used)) continue;
            lcm_sb there, here;
            base_sb_init(&there), base_sb_init(&here);
            base_sb_double(&there, used[p->offset + k]), base_sb_double(&here, want[k]);
            if (p->fixed)
                base_fail(err, LCM_E_INPUT, "the solution was computed with other parameters: %s (%s.%s) is %s there "
                         "and fixed at %s here (fixed_params or --fix); solve again with the same --fix values",
                         p->name, p->regime, p->func, there.s, here.s);
            else
                base_fail(err, LCM_E_INPUT, "the solution was computed with other parameters: %s (%s.%s) is %s there "
                         "and %s here; solve again or leave out --params/--set", p->name, p->regime, p->func, there.s,
                         here.s);
            base_sb_free(&there), base_sb_free(&here);
            return err->code;
        }
    }
    return 0;
}

/* The parameter buffer from --params/--set, checked before anything is
 * compiled, and the saved solution of --solution, which must agree. */
static int load_inputs(const sim_cli *c, const lcm_model *model, const lcm_pvalue *params, double **buf,
                       lcm_solution **sol, lcm_err *err)
{
    const ir_model *m = core_model_ir(model);
    *buf = base_xcalloc(m->params_size + 1, sizeof **buf);
    if (!params && !c->solution) return base_fail(err, LCM_E_USAGE, "give --params (or --solution with a saved solution)");
    int rc = params ? core_params_resolve(m, params, *buf, err) : 0;
    if (!rc && c->solution) rc = lcm_solution_read_h5(model, c->solution, sol, err);
    if (!rc && c->solution) rc = check_solution_params(m, *sol, params ? *buf : NULL, err);
    return rc;
}

/* All outputs or none (output.h); the CSV last, as it may be standard
 * output, which cannot be held back. */
static int write_outputs(const sim_cli *c, const lcm_solution *sol, const char *solution_out, const lcm_panel *p,
                         lcm_err *err)
{
    lcm_made_dirs made = {0}; /* removed again when writing fails: a failed run leaves nothing behind */
    int rc = c->run ? sys_make_dirs_listed(c->out_dir, &made, err) : 0;
    if (!rc) {
        io_outputs_begin();
        rc = solution_out ? lcm_solution_write_h5(sol, solution_out, err) : 0;
        if (!rc && c->out) rc = lcm_panel_write_h5(p, c->out, err);
        if (!rc && c->csv) rc = lcm_panel_write_csv(p, c->csv, err);
        rc = io_outputs_end(rc, err);
    }
    if (rc) sys_unmake_dirs(&made);
    else sys_made_dirs_free(&made);
    return rc;
}

static int simulate_main(int argc, char **argv, int run)
{
    sim_cli c = {.run = run, .so = {.backend = LCM_BACKEND_AUTO, .precision = 64}};
    c.sets = base_xcalloc((size_t)argc + 1, sizeof *c.sets);
    char *owned[5] = {0};
    lcm_err err = {0};
    int help = 0, rc = parse_args(argc, argv, &c, &help, &err);
    const char *cmd = run ? "run" : "simulate";
    if (!rc && help) {
        fputs(run ? run_usage : simulate_usage, stdout);
        free(c.sets);
        cli_model_opts_free(&c.mo);
        return 0;
    }
    if (!rc && !c.mo.model) rc = base_fail(&err, LCM_E_USAGE, "no model given\n%s", run ? run_usage : simulate_usage);
    if (!rc && run) rc = run_defaults(&c, owned, &err);
    if (!rc && !c.initial) rc = base_fail(&err, LCM_E_USAGE, "give the initial conditions: --initial I.csv");
    if (!rc && !c.out && !c.csv) rc = base_fail(&err, LCM_E_USAGE, "nothing to write: give --out PANEL.h5 and/or --csv PANEL.csv");
    if (!rc) rc = cli_euler_check(&c.euler, &err);
    if (!rc) cli_progress_attach(&c.so); /* after --log-level */
    cli_file files[SIM_FILES];
    sim_files(&c, owned[2], files);
    if (!rc) rc = check_outputs(&c, files, &err);

    lcm_pvalue *params = NULL;
    lcm_model *model = NULL;
    lcm_solver *solver = NULL;
    lcm_solution *sol = NULL;
    lcm_initial *ic = NULL;
    lcm_panel *panel = NULL;
    double *buf = NULL;
    if (!rc) rc = read_params(&c, &params, &err);
    if (!rc) rc = core_params_take_fixes(params, c.mo.fixes, c.mo.nfixes, &err);
    if (!rc) rc = cli_open_model(&c.mo, &model, &err);
    if (!rc) rc = cli_check_loaded(&c.mo, files, SIM_FILES, &err);
    if (!rc) rc = load_inputs(&c, model, params, &buf, &sol, &err);
    if (!rc) rc = read_initial(&c, model, &ic, &err);
    if (!rc) rc = cli_check_loaded(&c.mo, files, SIM_FILES, &err); /* and what the initial conditions read */
    rc = core_comm_agree(rc, &err); /* an MPI job: a rank whose inputs fail stops every rank, said once */
    if (!rc) rc = lcm_solver_new(model, &c.so, &solver, &err);
    if (!rc) rc = lcm_simulate_fits(solver, ic, &c.sim, &err); /* before solving */
    if (!rc && !sol) rc = lcm_solve_resolved(solver, buf, &sol, &err);
    if (!rc) rc = lcm_simulate(solver, sol, ic, &c.sim, &panel, &err);
    FILE *report_to = c.csv && !strcmp(c.csv, "-") ? stderr : stdout; /* the CSV may be standard output */
    if (!rc) rc = cli_euler_report(&c.euler, model, solver, sol, panel, report_to, &err);
    int writer = core_comm_rank() == 0; /* in an MPI job rank 0 holds the whole V and panel */
    if (!rc && writer) rc = write_outputs(&c, sol, owned[2], panel, &err);
    rc = core_comm_agree(rc, &err);
    if (!rc && writer) {
        char *done = base_xasprintf("%s %lld subjects of model '%s' on %s (float%d) in %.3f s (%lld panel rows)",
                               run ? "solved and simulated" : "simulated", (long long)ic->n,
                               core_model_ir(model)->name, lcm_solver_backend(solver), lcm_solver_precision(solver),
                               lcm_panel_seconds(panel) + (c.solution ? 0 : lcm_solution_seconds(sol)),
                               (long long)lcm_panel_rows(panel));
        const char *outputs[] = {owned[2], c.out, c.csv};
        cli_report(done, outputs, 3);
        if (run) say_report_command(&c, owned[2]);
        free(done);
    }
    lcm_panel_free(panel);
    lcm_initial_free(ic);
    lcm_solution_free(sol);
    lcm_solver_free(solver);
    lcm_model_free(model);
    lcm_pv_free(params);
    free(buf);
    cli_model_opts_free(&c.mo);
    for (int i = 0; i < 5; ++i) free(owned[i]);
    free(c.sets);
    return rc ? cli_die(cmd, &err) : 0;
}

int cmd_simulate(int argc, char **argv) { return simulate_main(argc, argv, 0); }
int cmd_run(int argc, char **argv) { return simulate_main(argc, argv, 1); }
