// core.cpp - lcmgen._core: the Python binding of liblcm (lcm.h), one thin
// layer.  Each class owns one handle of the C API and frees it with itself;
// arrays it hands out (V, panel columns) are views of the handle's memory
// that keep the owning Python object alive, so they never dangle.  Every
// failing call becomes the lcmgen exception of its lcm_status (raised by
// lcmgen/_errors.py, which owns the mapping).  Solves and simulations run
// without the GIL; a solver serves one thread at a time (lcm.h), so a
// second thread gets an exception, not a data race.  All the conveniences
// (pandas, parameter spaces, xarray) are plain Python in lcmgen/.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "lcm.h"
#include "lcmgen.h"     // a .lua model is generated in the process, as `lcm` does
#include "params.h"     // lcm_pvalue's fields: a params file read back into Python
#include "params_lua.h" // params files written in Lua
#include "lua_sandbox.h"
}

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// Raises lcmgen's exception for a failed call (the message lcm prints).
[[noreturn]] void raise_err(const lcm_err &err)
{
    nb::object errors = nb::module_::import_("lcmgen._errors");
    nb::object exc = errors.attr("from_status")(err.code, std::string(err.msg));
    PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
    throw nb::python_error();
}

[[noreturn]] void raise_usage(const std::string &msg)
{
    lcm_err err{LCM_E_USAGE, {0}};
    snprintf(err.msg, sizeof err.msg, "%s", msg.c_str());
    raise_err(err);
}

void check(int rc, const lcm_err &err)
{
    if (rc) raise_err(err);
}

// A Python string as C's: one that holds a NUL would end there, and the
// rest of it would be dropped in silence ("alive\0junk" read as "alive").
const char *text(const std::string &s)
{
    size_t at = s.find('\0');
    if (at == std::string::npos) return s.c_str();
    std::string shown = s.substr(0, at) + "\\0" + s.substr(at + 1, 40);
    raise_usage("'" + shown + "': a name, label or path with a NUL character, which lcm cannot take");
}

// ---- parameters: Python values <-> lcm_pvalue trees ------------------------
// lcmgen/_params.py hands over plain values: dicts of str, lists, floats.
lcm_pvalue *to_pvalue(nb::handle v, const std::string &path)
{
    if (nb::isinstance<nb::dict>(v)) {
        lcm_pvalue *t = lcm_pv_table();
        for (auto [key, item] : nb::borrow<nb::dict>(v)) {
            std::string k = nb::cast<std::string>(key);
            lcm_pv_put(t, text(k), to_pvalue(item, path.empty() ? k : path + "." + k));
        }
        return t;
    }
    if (nb::isinstance<nb::list>(v)) {
        lcm_pvalue *l = lcm_pv_list();
        size_t i = 0;
        for (nb::handle item : nb::borrow<nb::list>(v))
            lcm_pv_append(l, to_pvalue(item, path + "[" + std::to_string(++i) + "]"));
        return l;
    }
    if (nb::isinstance<nb::float_>(v)) return lcm_pv_num(nb::cast<double>(v));
    raise_usage("parameter '" + path + "': not a number, list or table");
}

struct pvalue_holder {
    lcm_pvalue *p;
    ~pvalue_holder() { lcm_pv_free(p); }
};

nb::object from_pvalue(const lcm_pvalue *v)
{
    if (v->kind == LCM_PV_NUM) return nb::float_(v->num);
    if (v->kind == LCM_PV_LIST) {
        nb::list l;
        for (int i = 0; i < v->n; ++i) l.append(from_pvalue(v->items[i]));
        return l;
    }
    nb::dict d;
    for (int i = 0; i < v->n; ++i) d[v->keys[i]] = from_pvalue(v->items[i]);
    return d;
}

nb::object read_params(const std::string &path)
{
    lcm_err err{};
    lcm_pvalue *root = nullptr;
    check(cli_params_read_lua(text(path), &root, nullptr, nullptr, &err), err);
    pvalue_holder hold{root};
    return from_pvalue(root);
}

// ---- models ------------------------------------------------------------------
struct Model {
    lcm_model *m = nullptr;
    std::vector<std::string> warnings; // the generator's, for Python's warnings
    ~Model() { lcm_model_free(m); }
};

// Options (-D) or fixed parameters (--fix), checked as lcmgen's command line
// checks them (lcmgen.c: names, parameter paths, values): one owner of the rules.
struct Options {
    std::vector<ir_option> v;
    Options(const std::vector<std::pair<std::string, std::string>> &in, bool fix)
    {
        for (auto &[k, val] : in) {
            std::string arg = std::string(text(k)) + "=" + text(val);
            ir_option o;
            lcm_err err{};
            if ((fix ? lcmgen_parse_fix : lcmgen_parse_define)(arg.c_str(), &o, &err)) raise_err(err);
            v.push_back(o);
        }
    }
    ~Options()
    {
        for (auto &o : v) free(o.name), free(o.value);
    }
    Options(const Options &) = delete;
    Options &operator=(const Options &) = delete;
};

Model *open_model(const std::string &path, bool is_dir, const std::vector<std::pair<std::string, std::string>> &defines,
                  const std::vector<std::pair<std::string, std::string>> &fixes, bool trusted)
{
    // the strings first, before anything is allocated: they may raise
    const char *file = text(path);
    Options d(defines, false), f(fixes, true);
    auto *model = new Model;
    lcm_err err{};
    int rc;
    if (is_dir) {
        rc = lcm_model_open_dir(file, &model->m, &err);
    } else {
        lcmgen_inputs in = {d.v.data(), (int)d.v.size(), f.v.data(), (int)f.v.size()};
        lcmgen_output gen;
        // with the GIL held throughout: the sandbox's trust is one switch for the process, and another
        // thread's load must not find it on while an untrusted model runs
        gen_sandbox_set_trusted(trusted);
        rc = lcmgen_generate(file, &in, &gen, &err);
        gen_sandbox_set_trusted(0);
        if (!rc) {
            for (int i = 0; i < gen.nwarnings; ++i) model->warnings.emplace_back(gen.warnings[i]);
            rc = lcm_model_from_text(gen.manifest, gen.source, &model->m, &err);
            lcmgen_output_free(&gen);
        }
    }
    if (rc) {
        delete model;
        raise_err(err);
    }
    return model;
}

nb::list model_params(const Model &m)
{
    nb::list out;
    for (int i = 0; i < lcm_model_params(m.m); ++i) {
        const char *regime, *func, *name;
        size_t offset, size;
        int fixed;
        lcm_model_param(m.m, i, &regime, &func, &name, &offset, &size, &fixed);
        out.append(nb::make_tuple(regime ? regime : "", func ? func : "", name, offset, size, (bool)fixed));
    }
    return out;
}

// The states (or actions) of a regime: (name, points, labels or None).
nb::list model_vars(const Model &m, int regime, bool actions)
{
    auto count = actions ? lcm_model_regime_actions : lcm_model_regime_states;
    auto describe = actions ? lcm_model_action : lcm_model_state;
    auto label = actions ? lcm_model_action_label : lcm_model_state_label;
    nb::list out;
    for (int k = 0; k < count(m.m, regime); ++k) {
        int points, discrete;
        const char *name = describe(m.m, regime, k, &points, &discrete);
        nb::object labels = nb::none();
        if (discrete) {
            nb::list l;
            for (int c = 0; c < points; ++c) l.append(label(m.m, regime, k, c));
            labels = l;
        }
        out.append(nb::make_tuple(name, points, labels));
    }
    return out;
}

std::vector<double> resolve_params(const Model &m, nb::handle params)
{
    lcm_pvalue *tree = to_pvalue(params, "");
    pvalue_holder hold{tree};
    std::vector<double> buf(lcm_model_params_size(m.m));
    lcm_err err{};
    check(lcm_model_resolve_params(m.m, tree, buf.data(), &err), err);
    return buf;
}

// ---- solutions -------------------------------------------------------------
struct Solution {
    lcm_solution *s = nullptr;
    nb::object model; // the Python Model it was solved or read for (the C solution holds the C model itself)
    ~Solution() { lcm_solution_free(s); }
};

// V of a regime at a period as a read-only view (its owner: this Solution).
nb::object solution_V(nb::handle self, int period, int regime, const std::vector<size_t> &shape)
{
    Solution &sol = nb::cast<Solution &>(self);
    lcm_index n;
    const void *v = lcm_solution_V(sol.s, period, regime, &n);
    if (!v) return nb::none();
    size_t cells = 1;
    for (size_t d : shape) cells *= d;
    if (cells != (size_t)n) raise_usage("V: a shape of " + std::to_string(cells) + " states; the regime has " +
                                        std::to_string(n));
    nb::dlpack::dtype dt = lcm_solution_precision(sol.s) == 32 ? nb::dtype<float>() : nb::dtype<double>();
    nb::ndarray<nb::numpy, nb::ro> a(v, shape.size(), shape.data(), self, nullptr, dt);
    return nb::cast(a, nb::rv_policy::reference);
}

nb::object solution_points(nb::handle self, int period, int regime, int k, size_t points)
{
    Solution &sol = nb::cast<Solution &>(self);
    const double *x = lcm_solution_state_points(sol.s, period, regime, k);
    if (!x) return nb::none();
    int have;
    lcm_model_state(nb::cast<Model &>(sol.model).m, regime, k, &have, nullptr);
    if (points != (size_t)have) raise_usage("points: the state has " + std::to_string(have));
    nb::ndarray<nb::numpy, const double> a(x, {points}, self);
    return nb::cast(a, nb::rv_policy::reference);
}

// ---- initial conditions --------------------------------------------------------
struct Initial {
    lcm_initial *ic = nullptr;
    ~Initial() { lcm_initial_free(ic); }
};

// columns: (name, float64 array or None, list of str/None or None), each of n cells.
Initial *initial_from_columns(const Model &m, const std::string &source, nb::list columns, size_t n)
{
    size_t ncols = columns.size();
    std::vector<std::string> names(ncols);
    std::vector<std::vector<std::string>> texts(ncols);
    std::vector<std::vector<const char *>> cells(ncols);
    std::vector<const double *> nums(ncols, nullptr);
    std::vector<const char *const *> text_cols(ncols, nullptr);
    std::vector<const char *> name_ptrs(ncols + 1); // never empty: data() is not NULL without columns
    for (size_t i = 0; i < ncols; ++i) {
        nb::tuple t = nb::borrow<nb::tuple>(columns[i]);
        names[i] = nb::cast<std::string>(t[0]);
        name_ptrs[i] = text(names[i]);
        if (!t[1].is_none()) { // the Python caller holds the array through the call
            auto a = nb::cast<nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>>(t[1]);
            if (a.shape(0) != n) raise_usage(source + ": column '" + names[i] + "' has a different length");
            nums[i] = a.data();
        }
        if (t[2].is_none()) continue;
        nb::list l = nb::borrow<nb::list>(t[2]);
        if (l.size() != n) raise_usage(source + ": column '" + names[i] + "' has a different length");
        texts[i].reserve(n); // no reallocation: the cells point into these strings
        for (nb::handle cell : l) {
            if (cell.is_none()) cells[i].push_back(nullptr);
            else cells[i].push_back(text(texts[i].emplace_back(nb::cast<std::string>(cell))));
        }
        text_cols[i] = cells[i].data();
    }
    auto *init = new Initial;
    lcm_err err{};
    if (lcm_initial_from_arrays(m.m, text(source), (int)ncols, name_ptrs.data(), nums.data(), text_cols.data(),
                                (lcm_index)n, &init->ic, &err)) {
        delete init;
        raise_err(err);
    }
    return init;
}

Initial *initial_read(const Model &m, const std::string &path)
{
    const char *file = text(path); // before anything is allocated: it may raise
    auto *init = new Initial;
    lcm_err err{};
    if (lcm_initial_read(m.m, file, &init->ic, &err)) {
        delete init;
        raise_err(err);
    }
    return init;
}

// ---- panels ----------------------------------------------------------------------
struct Panel {
    lcm_panel *p = nullptr;
    std::atomic<int> views{0};      // column views alive: simulate(out=) may not move memory they see
    std::atomic<bool> renewing{false}; // simulate(out=) is refilling it (without the GIL)
    ~Panel() { lcm_panel_free(p); }
};

// The panel's handle for reading, or an exception while another thread refills it.
const lcm_panel *readable(const Panel &panel)
{
    if (panel.renewing) raise_usage("the panel is being refilled (simulate(out=)) or extended (euler_errors) in "
                                    "another thread");
    return panel.p;
}

// A panel taken for writing (simulate(out=) refills it, euler_errors adds a
// column) while the GIL is released: one writer at a time, and no column
// views alive, whose memory the writer may move.  `what` names the argument.
struct PanelClaim {
    Panel *p;
    PanelClaim(Panel *panel, const char *what, const char *grows) : p(nullptr)
    {
        if (!panel) return;
        if (panel->views)
            raise_usage(std::string(what) + ": " + std::to_string(panel->views.load()) + " column array(s) of that "
                        "panel are still alive (its column() views, or an Arrow table, polars or duckdb frame made "
                        "from it), and " + grows + "; let them go (del) first");
        bool idle = false;
        if (!panel->renewing.compare_exchange_strong(idle, true))
            raise_usage(std::string(what) + ": another thread is simulating into that panel or computing its Euler "
                        "errors");
        p = panel;
    }
    ~PanelClaim()
    {
        if (p) p->renewing = false;
    }
    PanelClaim(const PanelClaim &) = delete;
    PanelClaim &operator=(const PanelClaim &) = delete;
};

// A column in the panel's memory (value, states, actions, targets), or None.
nb::object panel_view(nb::handle self, const std::string &name)
{
    Panel &panel = nb::cast<Panel &>(self);
    const double *col = lcm_panel_column_data(readable(panel), text(name));
    if (!col) return nb::none();
    // the owner counts the view: a capsule holding the Panel, which it lets go when the array goes
    panel.views++;
    auto *held = new nb::object(nb::borrow(self));
    nb::capsule owner(held, [](void *p) noexcept {
        auto *o = static_cast<nb::object *>(p);
        nb::inst_ptr<Panel>(*o)->views--;
        delete o;
    });
    nb::ndarray<nb::numpy, const double> a(col, {(size_t)lcm_panel_rows(panel.p)}, owner);
    return nb::cast(a, nb::rv_policy::reference);
}

nb::ndarray<nb::numpy, double> panel_column(const Panel &panel, const std::string &name)
{
    size_t n = (size_t)lcm_panel_rows(readable(panel));
    double *out = new double[n ? n : 1];
    nb::capsule owner(out, [](void *p) noexcept { delete[] static_cast<double *>(p); });
    lcm_err err{};
    if (lcm_panel_column(panel.p, text(name), out, &err)) raise_err(err); // the capsule frees out
    return nb::ndarray<nb::numpy, double>(out, {n}, owner);
}

nb::list panel_columns(const Panel &panel)
{
    nb::list out;
    for (int i = 0; i < lcm_panel_columns(readable(panel)); ++i) out.append(lcm_panel_column_name(panel.p, i));
    return out;
}

nb::object panel_labels(const Panel &panel, const std::string &name)
{
    if (!lcm_panel_column_label(readable(panel), text(name), 0)) return nb::none();
    nb::list out;
    for (int c = 0; const char *l = lcm_panel_column_label(panel.p, text(name), c); ++c) out.append(l);
    return out;
}

// ---- solvers -------------------------------------------------------------------------
struct Solver {
    lcm_solver *s = nullptr;
    nb::object model;              // the Python Model
    nb::object progress;           // the Python callback, or None
    nb::object progress_error;     // what it raised: the solve's exception, not LCM_E_CANCELLED's
    std::atomic<bool> busy{false}; // one thread at a time (lcm.h)
    ~Solver() { lcm_solver_free(s); }
};

// A solver's Python references (its model, a user's callback, which may well refer back to the
// solver) for the cycle collector: without these slots such a cycle would never be freed.
int solver_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    if (!nb::inst_ready(self)) return 0;
    Solver *sv = nb::inst_ptr<Solver>(self);
    Py_VISIT(sv->model.ptr());
    Py_VISIT(sv->progress.ptr());
    Py_VISIT(sv->progress_error.ptr());
    return 0;
}

int solver_clear(PyObject *self)
{
    Solver *sv = nb::inst_ptr<Solver>(self);
    sv->model.reset(), sv->progress.reset(), sv->progress_error.reset();
    return 0;
}

PyType_Slot solver_slots[] = {{Py_tp_traverse, (void *)solver_traverse}, {Py_tp_clear, (void *)solver_clear}, {0, nullptr}};

// liblcm's progress callback: hands the step to the Python callable (on the thread that solves, which
// holds no GIL then); its False cancels, and so does an exception, which the solve then raises.
int progress_to_python(const lcm_progress_info *p, void *user)
{
    auto *sv = static_cast<Solver *>(user);
    nb::gil_scoped_acquire locked;
    try {
        nb::object r = sv->progress(
            "what"_a = p->what == LCM_PROGRESS_SOLVE ? "solve" : "simulate", "model"_a = p->model,
            "period"_a = p->period, "age"_a = p->age, "periods"_a = p->periods, "done"_a = p->done,
            "total"_a = p->total, "subjects"_a = p->subjects, "batch_first"_a = p->batch_first,
            "batch_size"_a = p->batch_size, "seconds"_a = p->seconds);
        return r.is(nb::bool_(false)) ? 1 : 0;
    } catch (nb::python_error &e) {
        sv->progress_error = nb::borrow(e.value());
        return 1;
    }
}

// After a failed solve or simulation: the callback's own exception where it raised one.
[[noreturn]] void raise_solver_err(Solver &sv, const lcm_err &err)
{
    if (err.code == LCM_E_CANCELLED && sv.progress_error.is_valid() && !sv.progress_error.is_none()) {
        nb::object e = sv.progress_error;
        sv.progress_error = nb::none();
        PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(e.ptr())), e.ptr());
        throw nb::python_error();
    }
    raise_err(err);
}

// Holds a solver for one call, or raises when another thread holds it.
struct Claim {
    Solver &sv;
    explicit Claim(Solver &s) : sv(s)
    {
        if (!sv.s) raise_usage("the solver is closed");
        bool expected = false;
        if (!sv.busy.compare_exchange_strong(expected, true))
            raise_usage("the solver is in use by another thread: a solver serves one thread at a time; give each "
                        "thread a solver of its own (Model.solver())");
    }
    ~Claim() { sv.busy = false; }
};

Solver *solver_new(nb::object model, const std::string &backend, int precision, int threads, int device, int devices,
                   const std::string &cache_dir, bool cache_required, nb::object progress, const std::string &checks)
{
    Model &m = nb::cast<Model &>(model);
    int kind = lcm_backend_by_name(text(backend));
    if (kind < 0) raise_usage("backend '" + backend + "': not one of auto, cpu, cuda, interp");
    int policy = lcm_check_policy_by_name(text(checks));
    if (policy < 0) raise_usage("checks '" + checks + "': not one of raise, warn, off");
    lcm_solver_options o = {};
    o.backend = (lcm_backend_kind)kind;
    o.precision = precision, o.threads = threads, o.device = device, o.devices = devices;
    o.cache_dir = cache_dir.empty() ? nullptr : text(cache_dir);
    o.cache_required = cache_required;
    o.checks = (lcm_check_policy)policy;
    auto *sv = new Solver; // on the heap, where the callback finds it (progress_user)
    sv->model = model;
    sv->progress = progress;
    if (!progress.is_none()) o.progress = progress_to_python, o.progress_user = sv;
    lcm_err err{};
    int rc;
    {
        nb::gil_scoped_release unlocked; // compiling takes seconds
        rc = lcm_solver_new(m.m, &o, &sv->s, &err);
    }
    if (rc) {
        delete sv;
        raise_err(err);
    }
    return sv;
}

Solution *solve_tree(Solver &sv, nb::handle params)
{
    Claim claim(sv);
    lcm_pvalue *tree = to_pvalue(params, "");
    pvalue_holder hold{tree};
    auto *sol = new Solution;
    sol->model = sv.model;
    lcm_err err{};
    int rc;
    {
        nb::gil_scoped_release unlocked;
        rc = lcm_solve(sv.s, tree, &sol->s, &err);
    }
    if (rc) {
        delete sol;
        raise_solver_err(sv, err);
    }
    return sol;
}

Solution *solve_resolved(Solver &sv, nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu> buf)
{
    Claim claim(sv);
    size_t need = lcm_model_params_size(nb::cast<Model &>(sv.model).m);
    if (buf.shape(0) != need)
        raise_usage("a resolved parameter vector of " + std::to_string(buf.shape(0)) + " numbers; the model's has " +
                    std::to_string(need));
    auto *sol = new Solution;
    sol->model = sv.model;
    lcm_err err{};
    int rc;
    {
        nb::gil_scoped_release unlocked;
        rc = lcm_solve_resolved(sv.s, buf.data(), &sol->s, &err);
    }
    if (rc) {
        delete sol;
        raise_solver_err(sv, err);
    }
    return sol;
}

// A new panel, or the panel `out` renewed in its own memory (lcm_simulate_again).
nb::object simulate(nb::object self, nb::object solution, nb::object initial, unsigned long long seed,
                    const std::string &targets, long long batch, nb::object out)
{
    Solver &sv = nb::cast<Solver &>(self);
    Claim claim(sv);
    Solution &sol = nb::cast<Solution &>(solution);
    Initial &ic = nb::cast<Initial &>(initial);
    lcm_sim_options o = {seed, (lcm_index)batch, targets.empty() ? nullptr : text(targets)};
    lcm_err err{};
    int rc;
    if (!out.is_none()) {
        Panel &p = nb::cast<Panel &>(out);
        {
            PanelClaim claimed(&p, "out", "its memory is about to hold the new panel (or simulate without out=)");
            lcm_panel *renewed = p.p; // readers see p.p as it was (and `renewing`) until the GIL is back
            {
                nb::gil_scoped_release unlocked;
                rc = lcm_simulate_again(sv.s, sol.s, ic.ic, &o, &renewed, &err);
            }
            p.p = renewed;
        }
        if (rc) raise_solver_err(sv, err); // p.p is NULL now: the panel holds nothing, its columns say so
        return out;
    }
    auto *p = new Panel;
    {
        nb::gil_scoped_release unlocked;
        rc = lcm_simulate(sv.s, sol.s, ic.ic, &o, &p->p, &err);
    }
    if (rc) {
        delete p;
        raise_solver_err(sv, err);
    }
    return nb::cast(p, nb::rv_policy::take_ownership);
}

// Euler errors on the solution's grid, and along `panel` (which gets the
// column euler_error) unless it is None: {"grid": [...], "panel": [...]}, each
// a list of (regime name or "" for all, points, constrained, mean, p5, p50, p95).
nb::dict euler(nb::object self, nb::object solution, nb::object panel, double cutoff)
{
    Solver &sv = nb::cast<Solver &>(self);
    Claim claim(sv);
    Solution &sol = nb::cast<Solution &>(solution);
    Panel *p = panel.is_none() ? nullptr : &nb::cast<Panel &>(panel);
    PanelClaim claimed(p, "panel", "its columns are about to grow by euler_error");
    if (p && !p->p) raise_usage("panel: it holds no panel (the simulate(out=) that refilled it failed)");
    const lcm_model *model = nb::cast<Model &>(sv.model).m;
    int n = lcm_model_regimes(model);
    std::vector<lcm_euler_stats> by_grid(n + 1), by_panel(n + 1);
    lcm_euler_stats grid{}, pan{};
    lcm_err err{};
    int rc;
    {
        nb::gil_scoped_release unlocked;
        rc = lcm_euler_grid(sv.s, sol.s, cutoff, &grid, by_grid.data(), &err);
        if (!rc && p) rc = lcm_euler_panel(sv.s, sol.s, p->p, cutoff, &pan, by_panel.data(), &err);
    }
    if (rc) raise_solver_err(sv, err);
    auto rows = [&](const lcm_euler_stats &all, const std::vector<lcm_euler_stats> &by) {
        nb::list out;
        auto row = [&](const char *name, const lcm_euler_stats &st) {
            out.append(nb::make_tuple(std::string(name), (long long)st.points, (long long)st.constrained, st.mean,
                                      st.p5, st.p50, st.p95));
        };
        row("", all);
        for (int r = 0; r < n; ++r)
            if (by[r].points || by[r].constrained) row(lcm_model_regime_name(model, r), by[r]);
        return out;
    };
    nb::dict d;
    d["grid"] = rows(grid, by_grid);
    if (p) d["panel"] = rows(pan, by_panel);
    return d;
}

} // namespace

NB_MODULE(_core, m)
{
    m.doc() = "liblcm for Python (lcmgen's private layer: use the lcmgen package)";
    // an Arrow table or a column view alive when the interpreter exits holds
    // its Panel (the capsules keep it): nanobind would print a leak report
    // for what is the user's to drop, not a leak of this module
    nb::set_leak_warnings(false);
    m.def("version", [] { return std::string(lcm_version()); });
    m.def("set_log_level", [](const std::string &name) {
        int level = lcm_log_level_by_name(text(name));
        if (level < 0) raise_usage("log level '" + name + "': not one of off, warning, info, progress, debug");
        lcm_set_log_level((lcm_log_level)level);
    });
    m.def("read_params", &read_params, "path"_a);

    nb::class_<Model>(m, "Model")
        .def_prop_ro("name", [](const Model &s) { return std::string(lcm_model_name(s.m)); })
        .def_prop_ro("source", [](const Model &s) { return std::string(lcm_model_source(s.m)); })
        .def_prop_ro("ages", [](const Model &s) {
            std::vector<double> a;
            for (int t = 0; t < lcm_model_periods(s.m); ++t) a.push_back(lcm_model_age(s.m, t));
            return a;
        })
        .def_prop_ro("regimes", [](const Model &s) {
            std::vector<std::string> r;
            for (int i = 0; i < lcm_model_regimes(s.m); ++i) r.emplace_back(lcm_model_regime_name(s.m, i));
            return r;
        })
        .def_ro("warnings", &Model::warnings)
        .def("states", [](const Model &m, int r) { return model_vars(m, r, false); })
        .def("actions", [](const Model &m, int r) { return model_vars(m, r, true); })
        .def("state_count", [](const Model &s, int r) { return (long long)lcm_model_states(s.m, r); })
        .def("params", &model_params)
        .def_prop_ro("params_size", [](const Model &s) { return lcm_model_params_size(s.m); })
        .def("resolve", &resolve_params)
        .def("initial_from_columns", &initial_from_columns)
        .def("initial_read", &initial_read);
    m.def("open_model", &open_model, "path"_a, "is_dir"_a, "defines"_a, "fixes"_a, "trusted"_a);

    nb::class_<Solver>(m, "Solver", nb::type_slots(solver_slots))
        .def_prop_ro("backend", [](const Solver &s) { return std::string(s.s ? lcm_solver_backend(s.s) : "closed"); })
        .def_prop_ro("precision", [](const Solver &s) { return lcm_solver_precision(s.s); })
        .def_prop_ro("compiled", [](const Solver &s) { return (bool)lcm_solver_compiled(s.s); })
        .def_prop_ro("compile_seconds", [](const Solver &s) { return lcm_solver_compile_seconds(s.s); })
        .def_prop_ro("closed", [](const Solver &s) { return !s.s; })
        .def("close", [](Solver &s) {
            if (!s.s) return; // closing twice is nothing (a `with` block after close())
            Claim claim(s);
            lcm_solver_free(s.s);
            s.s = nullptr;
        })
        .def("solve_tree", &solve_tree)
        .def("solve_resolved", &solve_resolved)
        .def("simulate", &simulate, "solution"_a, "initial"_a, "seed"_a, "targets"_a, "batch"_a, "out"_a.none())
        .def("euler", &euler, "solution"_a, "panel"_a.none(), "cutoff"_a);
    m.def("solver_new", &solver_new, "model"_a, "backend"_a, "precision"_a, "threads"_a, "device"_a, "devices"_a,
          "cache_dir"_a, "cache_required"_a, "progress"_a.none(), "checks"_a = "raise");

    nb::class_<Solution>(m, "Solution")
        .def_ro("model", &Solution::model)
        .def_prop_ro("precision", [](const Solution &s) { return lcm_solution_precision(s.s); })
        .def_prop_ro("seconds", [](const Solution &s) { return lcm_solution_seconds(s.s); })
        .def("V", &solution_V)
        .def("points", &solution_points)
        .def("params", [](nb::handle self) {
            Solution &s = nb::cast<Solution &>(self);
            size_t n = lcm_model_params_size(nb::cast<Model &>(s.model).m);
            nb::ndarray<nb::numpy, const double> a(lcm_solution_params(s.s), {n}, self);
            return nb::cast(a, nb::rv_policy::reference);
        })
        .def("write_h5", [](const Solution &s, const std::string &path) {
            lcm_err err{};
            check(lcm_solution_write_h5(s.s, text(path), &err), err);
        })
        .def("write_csv", [](const Solution &s, const std::string &path) {
            lcm_err err{};
            check(lcm_solution_write_csv(s.s, text(path), &err), err);
        });
    m.def("solution_read", [](nb::object model, const std::string &path) {
        const char *file = text(path); // before anything is allocated: it may raise
        auto *sol = new Solution;
        sol->model = model;
        lcm_err err{};
        if (lcm_solution_read_h5(nb::cast<Model &>(model).m, file, &sol->s, &err)) {
            delete sol;
            raise_err(err);
        }
        return sol;
    });

    nb::class_<Initial>(m, "Initial")
        .def_prop_ro("subjects", [](const Initial &i) { return (long long)lcm_initial_subjects(i.ic); });

    nb::class_<Panel>(m, "Panel")
        .def_prop_ro("rows", [](const Panel &p) { return (long long)lcm_panel_rows(readable(p)); })
        .def_prop_ro("seconds", [](const Panel &p) { return lcm_panel_seconds(readable(p)); })
        .def_prop_ro("empty", [](const Panel &p) { return !readable(p); })
        .def_prop_ro("views", [](const Panel &p) { return p.views.load(); })
        .def("columns", &panel_columns)
        .def("view", &panel_view)
        .def("column", &panel_column)
        .def("labels", &panel_labels)
        .def("write_h5", [](const Panel &p, const std::string &path) {
            lcm_err err{};
            check(lcm_panel_write_h5(readable(p), text(path), &err), err);
        })
        .def("write_csv", [](const Panel &p, const std::string &path) {
            lcm_err err{};
            check(lcm_panel_write_csv(readable(p), text(path), &err), err);
        });
}
