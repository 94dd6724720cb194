"""A catalogue of bad input from Python: each raises lcmgen's exception of
the right class (exactly that class) with a message that says what is
wrong, and leaves the process and the solver working.

The test_fixed_* cases hold defects this suite found to their fixes.
"""
import subprocess
import sys
import textwrap
import threading
import types

import numpy as np
import pandas as pd
import pytest

import lcmgen
from conftest import LCM_BIN, MODELS

NAN = float("nan")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad-input")
    e = types.SimpleNamespace(tmp=tmp)
    e.m = lcmgen.load(MODELS / "tiny.lua")
    e.p = lcmgen.read_params(MODELS / "tiny.params.lua")
    e.s = e.m.solver(backend="cpu")
    e.sol = e.s.solve(e.p)
    e.V0 = e.sol.V(0, "alive").copy()
    e.ic = e.m.initial(MODELS / "tiny.initial.csv")
    e.panel = e.s.simulate(e.sol, e.ic, seed=1)
    e.space = e.m.param_space(["discount_factor", "risk_aversion"], base=e.p)
    # another model: mortality (array parameters, Markov regimes)
    e.mm = lcmgen.load(MODELS / "mortality.lua")
    e.pm = lcmgen.read_params(MODELS / "mortality.params.lua")
    e.sm = e.mm.solver(backend="cpu")
    e.solm = e.sm.solve(e.pm)
    e.icm = e.mm.initial(MODELS / "mortality.initial.csv")
    # solution files: mortality's, and tiny's
    e.mortality_h5 = tmp / "mortality.h5"
    e.solm.save(e.mortality_h5)
    e.tiny_h5 = tmp / "tiny.h5"
    e.sol.save(e.tiny_h5)
    e.tiny_csv = tmp / "tiny.csv"
    e.sol.save(e.tiny_csv)
    # a float32 solver and solution of tiny
    e.s32 = e.m.solver(backend="cpu", precision=32)
    e.sol32 = e.s32.solve(e.p)
    # a closed solver
    e.closed = e.m.solver(backend="cpu")
    e.closed.close()
    # a panel emptied by a failed simulate(out=)
    e.empty_panel = e.s.simulate(e.sol, e.ic, seed=1)
    with pytest.raises(lcmgen.InputError):
        e.s.simulate(e.sol32, e.ic, out=e.empty_panel)
    # files
    (tmp / "model.txt").write_text("return 1\n")
    (tmp / "syntax.lua").write_text("local lcm = require('lcm')\nreturn lcm.model{ {{ \n")
    (tmp / "raises.lua").write_text("error('boom in the model file')\n")
    (tmp / "nothing.lua").write_text("-- returns nothing\n")
    (tmp / "params_syntax.lua").write_text("return { discount_factor = }\n")
    (tmp / "params_number.lua").write_text("return 5\n")
    (tmp / "empty_dir").mkdir()
    gen = tmp / "tiny_generated"
    proc = subprocess.run([str(LCM_BIN.parent / "lcmgen"), str(MODELS / "tiny.lua"), "-o", str(gen)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    e.generated = gen
    yield e
    for s in (e.s, e.sm, e.s32):
        s.close()


def tiny_initial(**columns):
    base = {"regime": ["alive", "alive"], "age": [0.0, 0.0], "wealth": [2.0, 3.0]}
    base.update(columns)
    return {k: v for k, v in base.items() if v is not None}


# (id, call(env), exception class, key phrase of the message)
CATALOGUE = [
    # ---- parameters: types
    ("params-a-string", lambda e: e.s.solve("discount_factor=0.9"), lcmgen.ParamsError,
     "params: str 'discount_factor=0.9' is not a number, list or dict"),
    ("params-None", lambda e: e.s.solve(None), lcmgen.ParamsError, "params: NoneType None is not a number"),
    ("params-a-list", lambda e: e.s.solve([0.9, 0.04, 2.0]), lcmgen.ParamsError, "parameters must be a table"),
    ("params-bare-ndarray", lambda e: e.s.solve(np.array([0.9, 0.04, 2.0])), lcmgen.UsageError,
     "a bare numpy array"),
    ("param-value-string", lambda e: e.s.solve({**e.p, "discount_factor": "0.9"}), lcmgen.ParamsError,
     "parameter 'discount_factor': str '0.9' is not a number"),
    ("param-value-bool", lambda e: e.s.solve({**e.p, "discount_factor": True}), lcmgen.ParamsError,
     "parameter 'discount_factor': bool True is not a number"),
    ("param-value-numpy-bool", lambda e: e.s.solve({**e.p, "discount_factor": np.bool_(False)}),
     lcmgen.ParamsError, "parameter 'discount_factor': bool"),
    ("param-value-None", lambda e: e.s.solve({**e.p, "discount_factor": None}), lcmgen.ParamsError,
     "parameter 'discount_factor': NoneType None is not a number"),
    ("param-key-not-a-string", lambda e: e.s.solve({**e.p, 3: 1.0}), lcmgen.ParamsError, "key 3 is not a string"),
    ("param-series-value-string",
     lambda e: e.s.solve(pd.Series({"discount_factor": 0.9, "interest_rate": 0.04, "risk_aversion": "2"})),
     lcmgen.ParamsError, "parameter 'risk_aversion': str '2' is not a number"),
    # ---- parameters: names
    ("param-unknown", lambda e: e.s.solve({**e.p, "bogus": 1.0}), lcmgen.ParamsError,
     "unknown parameter 'bogus': no model function uses it"),
    ("param-unknown-in-series", lambda e: e.s.solve(pd.Series({**e.p, "bogus": 1.0})), lcmgen.ParamsError,
     "unknown parameter 'bogus'"),
    ("param-missing", lambda e: e.s.solve({k: v for k, v in e.p.items() if k != "discount_factor"}),
     lcmgen.ParamsError, "missing parameter: discount_factor"),
    ("param-fixed-but-given",
     lambda e: lcmgen.load(MODELS / "tiny.lua", fix={"interest_rate": 0.04}).solver(backend="cpu").solve(e.p),
     lcmgen.ParamsError, "is fixed in the model"),
    ("param-space-unknown", lambda e: e.m.param_space(["bogus"], base=e.p), lcmgen.ParamsError,
     "param_space: the model has no parameter 'bogus'"),
    ("param-space-not-a-path", lambda e: e.m.param_space(["a..b"], base=e.p), lcmgen.ParamsError,
     "is not a parameter path"),
    # ---- parameters: array shapes (mortality: wage by health, survival by period and health)
    ("array-too-long", lambda e: e.sm.solve({**e.pm, "wage": [8.0, 12.0, 3.0]}), lcmgen.ParamsError,
     "parameter 'wage' (working.income): dimension 1 (health) has 3 entries, the model needs 2"),
    ("array-too-short", lambda e: e.sm.solve({**e.pm, "survival": e.pm["survival"][:2]}), lcmgen.ParamsError,
     "parameter 'survival' (working.survival_probability): dimension 1 (period) has 2 entries, the model needs 7"),
    ("array-given-a-number", lambda e: e.sm.solve({**e.pm, "wage": 8.0}), lcmgen.ParamsError,
     "expected an array (2 values by health), found a number"),
    ("array-unknown-label", lambda e: e.sm.solve({**e.pm, "wage": {"bad": 8.0, "great": 12.0}}),
     lcmgen.ParamsError, "'great' is not a category of health"),
    ("resolved-wrong-length", lambda e: e.s.solve(np.zeros(2).view(lcmgen.Resolved)), lcmgen.UsageError,
     "a resolved parameter vector of 2 numbers; the model's has 3"),
    ("from-vector-wrong-length", lambda e: e.space.from_vector([0.9]), lcmgen.ParamsError,
     "a vector of shape (1,); this space has 2 entries"),
    # ---- parameters: NaN
    ("nan-param", lambda e: e.s.solve({**e.p, "discount_factor": NAN}), lcmgen.ParamsError,
     "parameter 'discount_factor' (alive.H) is NaN"),
    ("inf-param-nan-V", lambda e: e.s.solve({**e.p, "discount_factor": float("inf")}), lcmgen.NumericError,
     "regime 'alive', period 1 (age 1): V is NaN"),
    ("nan-in-array-param", lambda e: e.sm.solve({**e.pm, "wage": {"bad": NAN, "good": 12.0}}),
     lcmgen.ParamsError, "parameter 'wage' (working.income) is NaN"),
    ("nan-in-series", lambda e: e.s.solve(pd.Series({**e.p, "risk_aversion": NAN})), lcmgen.ParamsError,
     "parameter 'risk_aversion' (alive.utility) is NaN"),
    ("nan-from-vector", lambda e: e.s.solve(e.space.from_vector([0.9, NAN])), lcmgen.ParamsError,
     "param_space: risk_aversion is not a finite number (nan)"),
    ("inf-from-vector", lambda e: e.s.solve(e.space.from_vector([np.inf, 2.0])), lcmgen.ParamsError,
     "param_space: discount_factor is not a finite number (inf)"),
    ("nan-in-resolved-vector", lambda e: e.s.solve(np.full(3, NAN).view(lcmgen.Resolved)), lcmgen.ParamsError,
     "is NaN (buffer slot"),
    ("nan-via-model-resolve", lambda e: e.s.solve(e.m.resolve({**e.p, "risk_aversion": NAN})), lcmgen.ParamsError,
     "parameter 'risk_aversion' (alive.utility) is NaN"),
    # ---- params files
    ("params-file-missing", lambda e: lcmgen.read_params(e.tmp / "nope.params.lua"), lcmgen.LcmIOError,
     "does not exist"),
    ("params-file-syntax", lambda e: lcmgen.read_params(e.tmp / "params_syntax.lua"), lcmgen.ParamsError,
     "params_syntax.lua:1: unexpected symbol"),
    ("params-file-not-a-table", lambda e: lcmgen.read_params(e.tmp / "params_number.lua"), lcmgen.ParamsError,
     "a params file must return a table, it returned number"),
    # ---- simulate: arguments
    ("seed-a-float", lambda e: e.s.simulate(e.sol, e.ic, seed=1.5), lcmgen.UsageError,
     "seed must be an integer from 0 to 2**64-1, not 1.5"),
    ("seed-an-integral-float", lambda e: e.s.simulate(e.sol, e.ic, seed=1.0), lcmgen.UsageError,
     "seed must be an integer"),
    ("seed-negative", lambda e: e.s.simulate(e.sol, e.ic, seed=-1), lcmgen.UsageError,
     "seed must be an integer from 0 to 2**64-1, not -1"),
    ("seed-2**64", lambda e: e.s.simulate(e.sol, e.ic, seed=2 ** 64), lcmgen.UsageError,
     "seed must be an integer from 0 to 2**64-1"),
    ("seed-a-bool", lambda e: e.s.simulate(e.sol, e.ic, seed=True), lcmgen.UsageError, "seed must be an integer"),
    ("seed-a-string", lambda e: e.s.simulate(e.sol, e.ic, seed="1"), lcmgen.UsageError, "seed must be an integer"),
    ("solution-a-string", lambda e: e.s.simulate("V.h5", e.ic), lcmgen.UsageError,
     "simulate: solution is a str, not an lcmgen Solution"),
    ("solution-a-panel", lambda e: e.s.simulate(e.panel, e.ic), lcmgen.UsageError,
     "simulate: solution is a Panel, not an lcmgen Solution"),
    ("solution-of-another-model", lambda e: e.s.simulate(e.solm, e.ic), lcmgen.InputError,
     "the solution was computed for another model"),
    ("solution-of-tiny-to-mortality", lambda e: e.sm.simulate(e.sol, e.icm), lcmgen.InputError,
     "the solution was computed for another model"),
    ("solution-of-another-precision", lambda e: e.s.simulate(e.sol32, e.ic), lcmgen.InputError,
     "the solution is float32 but the solver computes in float64"),
    ("initial-of-another-model", lambda e: e.s.simulate(e.sol, e.icm), lcmgen.InputError,
     "the initial conditions were read for another model"),
    ("out-a-string", lambda e: e.s.simulate(e.sol, e.ic, out="panel.csv"), lcmgen.UsageError,
     "simulate: out is a str, not an lcmgen Panel"),
    ("out-a-solution", lambda e: e.s.simulate(e.sol, e.ic, out=e.sol), lcmgen.UsageError,
     "simulate: out is a Solution, not an lcmgen Panel"),
    ("targets-unknown", lambda e: e.s.simulate(e.sol, e.ic, targets="nope"), lcmgen.UsageError,
     "the model has no function 'nope'"),
    ("targets-unknown-in-list", lambda e: e.s.simulate(e.sol, e.ic, targets=["utility", "nope"]),
     lcmgen.UsageError, "the model has no function 'nope'"),
    # ---- initial conditions
    ("initial-a-number", lambda e: e.s.simulate(e.sol, 5), lcmgen.InputError,
     "initial conditions: a int; give a pandas DataFrame, a dict of columns or a file path"),
    ("initial-a-list", lambda e: e.m.initial([["alive", 0, 2.0]]), lcmgen.InputError, "a list; give a pandas"),
    ("initial-columns-of-different-lengths", lambda e: e.m.initial(tiny_initial(age=[0.0])), lcmgen.InputError,
     "column 'age' has 1 values but the first has 2"),
    ("initial-numpy-columns-of-different-lengths",
     lambda e: e.m.initial(tiny_initial(wealth=np.array([1.0, 2.0, 3.0]))), lcmgen.InputError,
     "column 'wealth' has 3 values but the first has 2"),
    ("initial-dataframe-duplicate-column",
     lambda e: e.m.initial(pd.DataFrame([["alive", 0, 1.0, 2.0]], columns=["regime", "age", "wealth", "wealth"])),
     lcmgen.InputError, "column 'wealth' appears twice"),
    ("initial-2d-column", lambda e: e.m.initial(tiny_initial(age=np.zeros((2, 1)))), lcmgen.InputError,
     "column 'age' is not one-dimensional"),
    ("initial-scalar-column", lambda e: e.m.initial({"regime": "alive", "age": 0.0, "wealth": 1.0}),
     lcmgen.InputError, "column 'age' is a float, not a column of values"),
    ("initial-missing-column", lambda e: e.m.initial(tiny_initial(wealth=None)), lcmgen.InputError,
     "column 'wealth' is missing"),
    ("initial-unknown-column", lambda e: e.m.initial(tiny_initial(income=[1.0, 2.0])), lcmgen.InputError,
     "column 'income' is not a state of the model"),
    ("initial-unknown-regime", lambda e: e.m.initial(tiny_initial(regime=["alive", "zombie"])), lcmgen.InputError,
     "'zombie' is not a regime (alive, dead"),
    ("initial-regime-id-out-of-range", lambda e: e.m.initial(tiny_initial(regime=[0.0, 5.0])), lcmgen.InputError,
     "5 is not a regime"),
    ("initial-unknown-age", lambda e: e.m.initial(tiny_initial(age=[0.0, 7.0])), lcmgen.InputError,
     "age 7 is not an age of the model (0, 1, 2)"),
    ("initial-nan-state", lambda e: e.m.initial(tiny_initial(wealth=[2.0, NAN])), lcmgen.InputError,
     "column 'wealth': subject 1: no value (NaN"),
    ("initial-bool-cell", lambda e: e.m.initial(tiny_initial(wealth=[2.0, True])), lcmgen.InputError,
     "True is neither a number nor a label"),
    ("initial-dict-cell", lambda e: e.m.initial(tiny_initial(wealth=[2.0, {}])), lcmgen.InputError,
     "{} is neither a number nor a label"),
    ("initial-no-subjects", lambda e: e.m.initial({"regime": [], "age": [], "wealth": []}), lcmgen.InputError,
     "no subjects"),
    ("initial-file-missing", lambda e: e.m.initial(e.tmp / "nope.csv"), lcmgen.LcmIOError, "cannot open"),
    # ---- solvers
    ("precision-a-string", lambda e: e.m.solver(precision="64"), lcmgen.UsageError,
     "solver: precision must be an integer, not '64'"),
    ("precision-16", lambda e: e.m.solver(precision=16), lcmgen.UsageError, "precision must be 64 or 32, not 16"),
    ("precision-a-float", lambda e: e.m.solver(precision=64.0), lcmgen.UsageError,
     "precision must be an integer"),
    ("threads-negative", lambda e: e.m.solver(threads=-1), lcmgen.UsageError,
     "threads must be 0 (all cores) to 4096, not -1"),
    ("threads-too-many", lambda e: e.m.solver(threads=100000), lcmgen.UsageError, "threads must be 0 (all cores)"),
    ("threads-a-bool", lambda e: e.m.solver(threads=True), lcmgen.UsageError, "threads must be an integer"),
    ("threads-past-a-c-int", lambda e: e.m.solver(threads=2 ** 70), lcmgen.UsageError,
     f"solver: threads must be from {-2 ** 31} to {2 ** 31 - 1}, not {2 ** 70}"),
    ("device-past-the-cli-range", lambda e: e.m.solver(device=5000), lcmgen.UsageError,
     "solver: device must be from 0 to 1023, not 5000"),
    ("devices-negative", lambda e: e.m.solver(devices=-1), lcmgen.UsageError,
     "solver: devices must be from 0 to 4096, not -1"),
    ("backend-unknown", lambda e: e.m.solver(backend="tpu"), lcmgen.UsageError,
     "backend 'tpu': not one of auto, cpu, cuda, interp"),
    ("backend-uppercase", lambda e: e.m.solver(backend="CPU"), lcmgen.UsageError, "backend 'CPU'"),
    ("log-level-unknown", lambda e: e.m.solver(log_level="loud"), lcmgen.UsageError,
     "log level 'loud': not one of off, warning, info, progress, debug"),
    ("closed-solver-solve", lambda e: e.closed.solve(e.p), lcmgen.UsageError, "the solver is closed"),
    ("closed-solver-simulate", lambda e: e.closed.simulate(e.sol, e.ic), lcmgen.UsageError,
     "the solver is closed"),
    ("closed-solver-solve-resolved", lambda e: e.closed.solve(e.m.resolve(e.p)), lcmgen.UsageError,
     "the solver is closed"),
    # ---- solutions
    ("V-unknown-regime", lambda e: e.sol.V(0, "zombie"), lcmgen.UsageError,
     "model 'tiny' has no regime 'zombie' (its regimes: alive, dead)"),
    ("V-regime-index-out-of-range", lambda e: e.sol.V(0, 2), lcmgen.UsageError,
     "regime 2: not a regime name or an index below 2"),
    ("V-regime-negative-index", lambda e: e.sol.V(0, -1), lcmgen.UsageError, "regime -1: not a regime name"),
    ("V-period-too-large", lambda e: e.sol.V(3, "alive"), lcmgen.UsageError,
     "period 3: not an integer from 0 to 2"),
    ("V-period-negative", lambda e: e.sol.V(-1, "alive"), lcmgen.UsageError, "period -1: not an integer"),
    ("V-period-a-float", lambda e: e.sol.V(0.0, "alive"), lcmgen.UsageError, "period 0.0: not an integer"),
    ("V-period-a-string", lambda e: e.sol.V("0", "alive"), lcmgen.UsageError, "period '0': not an integer"),
    ("axes-period-out-of-range", lambda e: e.sol.axes(9, "alive"), lcmgen.UsageError, "period 9: not an integer"),
    ("load-solution-of-another-model", lambda e: lcmgen.load_solution(e.m, e.mortality_h5), lcmgen.InputError,
     "was computed for another model or another version of model 'tiny'"),
    ("load-solution-of-tiny-for-mortality", lambda e: lcmgen.load_solution(e.mm, e.tiny_h5), lcmgen.InputError,
     "another version of model 'mortality'"),
    ("load-solution-other-options",
     lambda e: lcmgen.load_solution(lcmgen.load(MODELS / "mortality.lua", options={"n_periods": 6}), e.mortality_h5),
     lcmgen.InputError, "other -D or --fix values?"),
    ("load-solution-a-csv", lambda e: lcmgen.load_solution(e.m, e.tiny_csv), lcmgen.InputError,
     "is not an HDF5 file"),
    ("load-solution-missing-file", lambda e: lcmgen.load_solution(e.m, e.tmp / "nope.h5"), lcmgen.LcmIOError,
     "cannot open"),
    ("load-solution-model-not-a-model", lambda e: lcmgen.load_solution(str(MODELS / "tiny.lua"), e.tiny_h5),
     lcmgen.UsageError, "load_solution: model is a str, not an lcmgen Model"),
    ("solution-save-into-missing-dir", lambda e: e.sol.save(e.tmp / "no" / "V.h5"), lcmgen.LcmIOError,
     "cannot create"),
    # ---- panels
    ("panel-unknown-column", lambda e: e.panel.column("nope"), lcmgen.UsageError,
     "the panel has no column 'nope' (columns: subject_id, period, age, regime, value, wealth, consumption)"),
    ("panel-save-into-missing-dir", lambda e: e.panel.save(e.tmp / "no" / "panel.csv"), lcmgen.LcmIOError,
     "cannot create"),
    ("empty-panel-columns", lambda e: e.empty_panel.columns, lcmgen.UsageError, "the panel holds nothing"),
    ("empty-panel-column", lambda e: e.empty_panel.column("wealth"), lcmgen.UsageError, "the panel holds nothing"),
    ("empty-panel-to-pandas", lambda e: e.empty_panel.to_pandas(), lcmgen.UsageError, "the panel holds nothing"),
    ("empty-panel-save", lambda e: e.empty_panel.save(e.tmp / "empty.csv"), lcmgen.UsageError,
     "the panel holds nothing"),
    # ---- models
    ("model-missing-lua", lambda e: lcmgen.load(e.tmp / "nope.lua"), lcmgen.LcmIOError,
     "model file '{tmp}/nope.lua' does not exist"),
    ("model-missing-other", lambda e: lcmgen.load(e.tmp / "nope"), lcmgen.LcmIOError, "does not exist"),
    ("model-a-txt-file", lambda e: lcmgen.load(e.tmp / "model.txt"), lcmgen.UsageError,
     "is neither a .lua file nor a directory made by lcmgen"),
    ("model-lua-syntax-error", lambda e: lcmgen.load(e.tmp / "syntax.lua"), lcmgen.ModelError,
     "syntax.lua:3: unexpected symbol near <eof>"),
    ("model-raises", lambda e: lcmgen.load(e.tmp / "raises.lua"), lcmgen.ModelError,
     "raises.lua:1: boom in the model file"),
    ("model-returns-nothing", lambda e: lcmgen.load(e.tmp / "nothing.lua"), lcmgen.ModelError,
     "the model file must return lcm.model{...}"),
    ("model-option-not-read", lambda e: lcmgen.load(MODELS / "tiny.lua", options={"wealth_points": 5}),
     lcmgen.ModelError, "option 'wealth_points' (-D wealth_points=5) is not read by the model"),
    ("model-option-bad-value", lambda e: lcmgen.load(MODELS / "precautionary_savings.lua",
                                                      options={"shock": "bogus"}),
     lcmgen.ModelError, "option shock must be rouwenhorst, tauchen or normal_gh, not 'bogus'"),
    ("model-fix-unknown", lambda e: lcmgen.load(MODELS / "tiny.lua", fix={"bogus": 1.0}), lcmgen.ModelError,
     "--fix bogus is not a parameter of any model function"),
    ("model-fix-nan", lambda e: lcmgen.load(MODELS / "tiny.lua", fix={"interest_rate": NAN}), lcmgen.UsageError,
     "--fix interest_rate=nan: the value must be a finite number"),
    ("dir-with-options", lambda e: lcmgen.load(e.generated, options={"n_periods": 3}), lcmgen.UsageError,
     "options and fix apply when the model is a .lua file"),
    ("dir-with-fix", lambda e: lcmgen.load(e.generated, fix={"interest_rate": 0.04}), lcmgen.UsageError,
     "options and fix apply when the model is a .lua file"),
    ("dir-without-manifest", lambda e: lcmgen.load(e.tmp / "empty_dir"), lcmgen.LcmIOError,
     "has no manifest.lcm"),
]


@pytest.mark.parametrize("call, exc, phrase", [pytest.param(c, x, p, id=i) for i, c, x, p in CATALOGUE])
def test_bad_input(env, call, exc, phrase):
    phrase = phrase.replace("{tmp}", str(env.tmp))
    with pytest.raises(lcmgen.LcmError) as info:
        call(env)
    err = info.value
    assert type(err) is exc, f"{type(err).__name__}: {err}"
    assert phrase in str(err), str(err)
    assert err.message == str(err) and err.status == exc.status
    # the process goes on, and the solver still solves (and to the same V)
    assert np.array_equal(env.s.solve(env.p).V(0, "alive"), env.V0)


def test_exception_classes_and_statuses():
    expected = {lcmgen.UsageError: 2, lcmgen.ModelError: 3, lcmgen.ParamsError: 4, lcmgen.LcmIOError: 5,
                lcmgen.CompileError: 6, lcmgen.NumericError: 7, lcmgen.InputError: 8, lcmgen.DeviceError: 9,
                lcmgen.LcmMemoryError: 10}
    for cls, status in expected.items():
        assert issubclass(cls, lcmgen.LcmError) and cls.status == status
    # the Python families they also belong to, for callers that catch those
    assert issubclass(lcmgen.UsageError, ValueError) and issubclass(lcmgen.ParamsError, ValueError)
    assert issubclass(lcmgen.InputError, ValueError) and issubclass(lcmgen.LcmIOError, OSError)
    assert issubclass(lcmgen.LcmMemoryError, MemoryError) and issubclass(lcmgen.NumericError, ArithmeticError)


def test_catalogue_covers_every_kind():
    kinds = {x for _, _, x, _ in CATALOGUE}
    assert {lcmgen.UsageError, lcmgen.ParamsError, lcmgen.InputError, lcmgen.LcmIOError, lcmgen.ModelError} <= kinds
    assert len({i for i, _, _, _ in CATALOGUE}) == len(CATALOGUE)  # unique ids


def test_generated_directory_loads_without_options(env):
    """The control of dir-with-options: the same directory loads and solves."""
    m = lcmgen.load(env.generated)
    with m.solver(backend="cpu") as s:
        assert np.array_equal(s.solve(env.p).V(0, "alive"), env.V0)


def test_failed_simulate_out_empties_the_panel_and_it_can_be_refilled(env):
    panel = env.s.simulate(env.sol, env.ic, seed=1)
    with pytest.raises(lcmgen.InputError, match="float32"):
        env.s.simulate(env.sol32, env.ic, out=panel)
    assert repr(panel) == "<lcmgen.Panel: empty>"
    with pytest.raises(lcmgen.UsageError, match="the panel holds nothing"):
        panel.to_arrow()
    assert env.s.simulate(env.sol, env.ic, seed=1, out=panel) is panel
    assert panel.rows == env.panel.rows
    assert np.array_equal(panel.column("wealth"), env.panel.column("wealth"), equal_nan=True)


def test_solution_and_panel_survive_closing_their_solver(env):
    s = env.m.solver(backend="cpu")
    sol = s.solve(env.p)
    panel = s.simulate(sol, env.ic, seed=1)
    s.close()
    assert s.closed and repr(s).endswith("closed>")
    assert np.array_equal(sol.V(0, "alive"), env.V0)
    assert np.array_equal(panel.column("wealth"), env.panel.column("wealth"), equal_nan=True)
    # and another solver of the model simulates the solution
    again = env.s.simulate(sol, env.ic, seed=1)
    assert np.array_equal(again.column("value"), env.panel.column("value"))


def test_errors_leave_no_leaks_or_crash(tmp_path):
    """The C-facing failures in a child process: it exits normally, and
    nanobind finds no instance leaked by an error path at shutdown."""
    script = textwrap.dedent(f"""
        import gc, lcmgen, numpy as np
        M = {str(MODELS)!r}
        m = lcmgen.load(M + "/tiny.lua"); p = lcmgen.read_params(M + "/tiny.params.lua")
        s = m.solver(backend="cpu"); sol = s.solve(p); ic = m.initial(M + "/tiny.initial.csv")
        mm = lcmgen.load(M + "/mortality.lua"); pm = lcmgen.read_params(M + "/mortality.params.lua")
        sm = mm.solver(backend="cpu"); solm = sm.solve(pm)
        s32 = m.solver(backend="cpu", precision=32); sol32 = s32.solve(p)
        calls = [lambda: s.solve({{**p, "discount_factor": float("nan")}}),
                 lambda: s.solve({{**p, "bogus": 1.0}}),
                 lambda: s.simulate(solm, ic),
                 lambda: s.simulate(sol32, ic),
                 lambda: s.simulate(sol, ic, targets="nope"),
                 lambda: lcmgen.load_solution(mm, {str(tmp_path / "tiny.h5")!r}),
                 lambda: m.initial({{"regime": ["zombie"], "age": [0.0], "wealth": [1.0]}}),
                 lambda: m.initial({str(tmp_path / "nope.csv")!r}),
                 lambda: m.solver(backend="tpu"),
                 lambda: m.solver(precision=16),
                 lambda: lcmgen.load({str(tmp_path / "nope.lua")!r}),
                 lambda: s.simulate(sol32, ic, out=s.simulate(sol, ic)),
                 lambda: s.solve(np.zeros(2).view(lcmgen.Resolved))]
        sol.save({str(tmp_path / "tiny.h5")!r})
        raised = 0
        for _ in range(3):
            for c in calls:
                try:
                    c()
                except lcmgen.LcmError:
                    raised += 1
        assert raised == 3 * len(calls), raised
        for x in (s, sm, s32):
            x.close()
        del m, mm, s, sm, s32, sol, solm, sol32, ic, calls, c
        gc.collect()
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
    assert "leaked" not in proc.stderr, proc.stderr


# ---- one thread at a time ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def slow():
    """precautionary_savings on a 3000 x 3000 grid: a solve of a second or
    more on one thread, long enough to catch it running; a solution and one
    subject to simulate, the probe."""
    m = lcmgen.load(MODELS / "precautionary_savings.lua", options={"wealth_points": 3000, "consumption_points": 3000})
    s = m.solver(backend="cpu", threads=1)
    p = lcmgen.read_params(MODELS / "precautionary_savings.params.lua")
    sol = s.solve(p)
    ic = m.initial({"regime": ["alive"], "age": [20.0], "wealth": [3.0]})
    yield types.SimpleNamespace(m=m, s=s, p=p, sol=sol, ic=ic)
    s.close()


def _while_solving(slow, then=None):
    """Solves on a worker thread; while it runs, this thread probes the
    solver (a one-subject simulation) until the probe is refused with
    UsageError, then calls then() (while the solve still runs) and returns
    (the probe's error, then()'s UsageError or None).  A probe that gets the
    solver first delays the worker, which retries: the worker's solve is
    never the call refused."""
    s, p = slow.s, slow.p
    started = threading.Event()
    out = {"refused": 0}

    def work():
        started.set()
        while True:
            try:
                out["solution"] = s.solve(p)
                return
            except lcmgen.UsageError as exc:  # the probe held the solver for a moment
                out["refused"] += 1
                if out["refused"] > 1000 or "in use by another thread" not in str(exc):
                    out["error"] = exc
                    return
            except Exception as exc:  # noqa: BLE001 - reported below
                out["error"] = exc
                return

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    probe_error = then_error = None
    while t.is_alive():
        try:
            s.simulate(slow.sol, slow.ic, seed=1)
        except lcmgen.UsageError as exc:
            probe_error = exc
            if then is not None:
                try:
                    then()
                except lcmgen.UsageError as exc2:
                    then_error = exc2
            break
        t.join(0.002)
    solving = t.is_alive()  # still solving after the probes: the refusals happened during the solve
    t.join()
    assert "error" not in out, out.get("error")
    assert out["solution"].V(0, "alive").shape == (5, 3000)
    assert probe_error is None or solving or then is None
    return probe_error, then_error


def test_second_thread_is_refused_while_solving(slow):
    s, p = slow.s, slow.p
    caught, _ = _while_solving(slow)
    assert isinstance(caught, lcmgen.UsageError), "the main thread never saw the solver busy"
    assert "in use by another thread" in str(caught)
    assert "give each thread a solver of its own" in str(caught)
    # the main thread ran while the worker solved: the solve released the GIL.
    # Once the worker is done, the solver serves the main thread again.
    assert s.solve(p).V(0, "alive").shape == (5, 3000)


def test_close_from_another_thread_while_solving_is_refused(slow):
    s, p = slow.s, slow.p
    caught, refused_close = _while_solving(slow, then=s.close)
    assert isinstance(caught, lcmgen.UsageError)
    assert isinstance(refused_close, lcmgen.UsageError), "close() during another thread's solve was not refused"
    assert "in use by another thread" in str(refused_close)
    assert not s.closed
    assert s.solve(p).V(0, "alive").shape == (5, 3000)


def test_two_threads_at_once_one_is_refused(slow):
    """Two threads start a solve on one solver at the same moment: exactly
    one solves, the other gets UsageError (neither crashes, no data race)."""
    s, p = slow.s, slow.p
    barrier = threading.Barrier(2)
    results = [None, None]

    def work(i):
        barrier.wait()
        try:
            results[i] = s.solve(p)
        except lcmgen.UsageError as exc:
            results[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kinds = sorted(type(r).__name__ for r in results)
    assert kinds == ["Solution", "UsageError"], results
    err = next(r for r in results if isinstance(r, lcmgen.UsageError))
    assert "in use by another thread" in str(err)


# ---- defects this suite found, held to their fixes ----------------------------------------------

def test_fixed_negative_batch_size_is_refused(env):
    try:
        env.s.simulate(env.sol, env.ic, batch_size=-1)
    except lcmgen.UsageError as exc:
        assert "batch" in str(exc)
        return
    raise AssertionError("batch_size=-1 was accepted")


def test_fixed_huge_batch_size_is_refused(env):
    # past a C long long: lcm's UsageError, not nanobind's TypeError
    try:
        env.s.simulate(env.sol, env.ic, batch_size=2 ** 70)
    except lcmgen.UsageError as exc:
        assert "batch_size must be a positive number of subjects" in str(exc)
        return
    raise AssertionError("batch_size=2**70 was accepted")


def test_fixed_close_is_idempotent(env):
    with env.m.solver(backend="cpu") as s:
        s.solve(env.p)
        s.close()
    s.close()
    assert s.closed


def test_fixed_initial_without_columns(env):
    for data in (pd.DataFrame(), {}):
        with pytest.raises(lcmgen.LcmError) as info:
            env.m.initial(data)
        assert type(info.value) is lcmgen.InputError, repr(info.value)
        assert "is NULL" not in str(info.value)


def test_fixed_subject_numbering_agrees(env):
    with pytest.raises(lcmgen.InputError) as python_side:
        env.m.initial(tiny_initial(wealth=[True, 2.0]))  # the first subject, checked in Python
    with pytest.raises(lcmgen.InputError) as library_side:
        env.m.initial(tiny_initial(wealth=[NAN, 2.0]))  # the first subject, checked by liblcm
    assert "subject 0:" in str(library_side.value)
    assert "subject 0:" in str(python_side.value), str(python_side.value)
