"""Python and the lcm command agree byte for byte on every bundled model.

For each models/X.lua with models/X.params.lua (found by globbing, so a new
bundled model is covered without editing this file):

- V: the solution of ``Solver.solve`` equals the one ``lcm solve --out``
  writes (read back with lcmgen.load_solution), array by array, every period
  and regime, bit for bit;
- files: ``Solution.save`` writes the same .h5 and .csv bytes as
  ``lcm solve --out/--csv``;
- panels: ``Solver.simulate`` with the same seed writes the same .csv and .h5
  bytes as ``lcm simulate --csv/--out`` (also with ``--targets all`` and a
  subject batch size), and ``Panel.to_pandas()`` (and to_arrow, the Arrow
  stream, to_parquet) holds the values pandas reads from the command's CSV,
  exactly.

Initial conditions: X.initial.csv.  A model whose initial conditions are
only a Lua file (mahler_yum_2024.initial.lua; the command reads it, Python
cannot) gets a CSV of the subjects the command drew from it
(Case.initial_from_lua), checked to give the same panel.  A model with
neither would be compared on V and the solution files only.

Both sides run on the cpu backend in float64 and share the session's solver
cache (conftest.py), so each model compiles once.
"""
import filecmp

import numpy as np
import pandas as pd
import pytest

import lcmgen
from conftest import MODELS, run_lcm

SEED = 11
BATCH = 333  # subjects per batch: several batches, the last one partial

# Options per model.  mahler_yum_2024 at the paper's size (1.6 million states,
# 6,000 actions) takes minutes; it runs at the reduced sizes the integration
# test uses (tests/integration/test_mahler_yum.sh), a few seconds; durables
# (hours at the paper's grids) at tests/integration/test_durables.sh's.
OPTIONS = {
    "mahler_yum_2024": {"wealth_points": 6, "effort_points": 3, "shock_points": 3, "cost_points": 2},
    "durables": {"n_periods": 3, "a_points": 8, "p_points": 5, "n_points": 6, "psi_points": 3, "xi_points": 3,
                 "c_points": 9, "d_points": 7},
}

# Cases beyond X.lua + X.params.lua: bundled params files of a model's
# variants (the option each needs is in the params file's header).
VARIANTS = [
    ("iskhakov_2017_taste_shocks", "iskhakov_2017", {"taste_shocks": True}),
]


def _cases():
    cases = []
    for model in sorted(MODELS.glob("*.lua")):
        name = model.name[:-len(".lua")]
        if name.endswith(".params") or name.endswith(".initial"):
            continue
        params = MODELS / f"{name}.params.lua"
        if params.exists():
            cases.append((name, name, OPTIONS.get(name, {})))
    for case, model, options in VARIANTS:
        cases.append((case, model, options))
    return cases


CASES = _cases()

LUA_SUBJECTS = 40  # subjects drawn by an X.initial.lua file (mahler_yum_2024's)


def _initial_csv(model_name):
    """X.initial.csv, or None (see Case.initial_from_lua)."""
    csv = MODELS / f"{model_name}.initial.csv"
    return csv if csv.exists() else None


def _option_text(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _run(*args):
    proc = run_lcm(*args)
    assert proc.returncode == 0, f"lcm {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}"
    return proc


def test_every_bundled_model_is_covered():
    names = {c[0] for c in CASES}
    # the bundled models with params files when this suite was written; more is fine
    expected = {"tiny", "mortality", "precautionary_savings", "precautionary_savings_health", "saving_choice",
                "iskhakov_2017", "fvv_2018", "mahler_yum_2024"}
    assert expected <= names, f"missing cases: {expected - names}"
    for name, model, _ in CASES:
        assert (MODELS / f"{model}.lua").exists()


class Case:
    """One model: the command's files and Python's objects."""

    def __init__(self, case, model_name, options, tmp):
        self.case, self.model_name, self.options, self.tmp = case, model_name, options, tmp
        self.model_path = MODELS / f"{model_name}.lua"
        self.params_path = MODELS / f"{case}.params.lua"
        self.initial = _initial_csv(model_name)
        self.defines = [a for k, v in options.items() for a in ("-D", f"{k}={_option_text(v)}")]
        common = [self.model_path, *self.defines, "--params", self.params_path, "--backend", "cpu"]
        self.cli_V_h5, self.cli_V_csv = tmp / "cli_V.h5", tmp / "cli_V.csv"
        _run("solve", *common, "--out", self.cli_V_h5, "--csv", self.cli_V_csv)
        self.model = lcmgen.load(self.model_path, options=options)
        self.params = lcmgen.read_params(self.params_path)
        self.solver = self.model.solver(backend="cpu", precision=64)
        self.solution = self.solver.solve(self.params)
        self.common = common
        self.panels = {}
        self.lua_panel = None
        lua_initial = MODELS / f"{model_name}.initial.lua"
        if self.initial is None and lua_initial.exists():
            self.initial = self.initial_from_lua(lua_initial)

    def initial_from_lua(self, lua_initial):
        """Python reads initial conditions from DataFrames, columns, CSV and
        HDF5, not Lua (mahler_yum_2024.initial.lua is a function of n that
        draws them): the command simulates from the Lua file, and the first
        period of its panel (regime, age and the states) becomes a CSV, from
        which Python and the command then simulate alike."""
        self.lua_panel = self.tmp / "lua_panel.csv"
        _run("simulate", *self.common, "--solution", self.cli_V_h5, "--initial", lua_initial,
             "--subjects", LUA_SUBJECTS, "--seed", SEED, "--csv", self.lua_panel)
        labelled = {s.name for r in self.model.regimes for s in self.model.states(r) if s.labels is not None}
        panel = pd.read_csv(self.lua_panel, keep_default_na=False, na_values=[""],
                            dtype={name: str for name in labelled | {"regime"}})
        first = panel[panel["period"] == 0]
        states = []
        for regime in first["regime"].unique():
            states += [s.name for s in self.model.states(regime) if s.name not in states]
        csv = self.tmp / "initial_from_lua.csv"
        first[["regime", "age"] + states].to_csv(csv, index=False)
        return csv

    def cli_panel(self, tag, *extra):
        """lcm simulate from the command's solution: (panel.csv, panel.h5), run once per tag."""
        if tag in self.panels:
            return self.panels[tag]
        csv, h5 = self.tmp / f"cli_panel_{tag}.csv", self.tmp / f"cli_panel_{tag}.h5"
        _run("simulate", *self.common, "--solution", self.cli_V_h5, "--initial", self.initial, "--seed", SEED,
             *extra, "--csv", csv, "--out", h5)
        self.panels[tag] = csv, h5
        return csv, h5


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request, tmp_path_factory):
    name, model, options = request.param
    c = Case(name, model, options, tmp_path_factory.mktemp(f"cli-{name}"))
    yield c
    c.solver.close()


def _needs_panel(case):
    if case.initial is None:
        pytest.skip(f"{case.model_name} has no initial conditions: V compared only")


def test_initial_from_lua_gives_the_lua_panel(case):
    """The CSV made of a Lua initial file's subjects (Case.initial_from_lua)
    holds them exactly: the command simulates the same panel from it."""
    if case.lua_panel is None:
        pytest.skip("initial conditions in a CSV file")
    cli_csv, _ = case.cli_panel("default")
    assert cli_csv.read_bytes() == case.lua_panel.read_bytes()
    assert len(pd.read_csv(case.initial)) == LUA_SUBJECTS


# ---- V -------------------------------------------------------------------------------

def test_V_equals_lcm_solve_bit_for_bit(case):
    cli = lcmgen.load_solution(case.model, case.cli_V_h5)
    m = case.model
    compared = 0
    for r, regime in enumerate(m.regimes):
        shape = tuple(s.points for s in m.states(regime))
        active = 0
        for t in range(m.periods):
            a, b = case.solution.V(t, regime), cli.V(t, regime)
            assert (a is None) == (b is None), f"period {t}, regime {regime}: active in one only"
            if a is None:
                continue
            active += 1
            assert a.shape == b.shape == shape
            assert a.dtype == b.dtype == np.float64
            assert np.array_equal(a, b, equal_nan=True), f"period {t}, regime {regime}: V differs"
            assert a.tobytes() == b.tobytes(), f"period {t}, regime {regime}: V differs in its bits"
            compared += a.size
        assert active > 0, f"regime {regime} is active in no period"
    # not vacuous: the solution has real values somewhere
    assert compared > 0
    some = next(case.solution.V(t, r) for t in range(m.periods) for r in m.regimes
                if case.solution.V(t, r) is not None and case.solution.V(t, r).size > 1)
    assert np.isfinite(some).any() and np.ptp(some[np.isfinite(some)]) > 0


def test_V_grid_points_agree(case):
    cli = lcmgen.load_solution(case.model, case.cli_V_h5)
    for regime in case.model.regimes:
        for t in range(case.model.periods):
            if case.solution.V(t, regime) is None:
                continue
            a, b = case.solution.axes(t, regime), cli.axes(t, regime)
            assert list(a) == list(b) == [s.name for s in case.model.states(regime)]
            for k in a:
                if isinstance(a[k], list):
                    assert a[k] == b[k]
                else:
                    assert np.array_equal(a[k], b[k])


# ---- solution files ----------------------------------------------------------------------

def test_solution_csv_equals_lcm_solve_csv(case, tmp_path):
    case.solution.save(tmp_path / "py.csv")
    text = (tmp_path / "py.csv").read_bytes()
    assert text == case.cli_V_csv.read_bytes()
    assert text.count(b"\n") > 1


def test_solution_h5_equals_lcm_solve_out(case, tmp_path):
    py = tmp_path / "py.h5"
    case.solution.save(py)
    assert filecmp.cmp(py, case.cli_V_h5, shallow=False), "Solution.save('py.h5') differs from lcm solve --out"
    # and read back, it makes the command's CSV again
    back = lcmgen.load_solution(case.model, py)
    back.save(tmp_path / "back.csv")
    assert (tmp_path / "back.csv").read_bytes() == case.cli_V_csv.read_bytes()


# ---- panels ------------------------------------------------------------------------------

def _py_panel(case, **kw):
    return case.solver.simulate(case.solution, case.model.initial(case.initial), seed=SEED, **kw)


def test_panel_csv_and_h5_equal_lcm_simulate(case, tmp_path):
    _needs_panel(case)
    cli_csv, cli_h5 = case.cli_panel("default")
    panel = _py_panel(case)
    panel.save(tmp_path / "py.csv")
    panel.save(tmp_path / "py.h5")
    assert (tmp_path / "py.csv").read_bytes() == cli_csv.read_bytes()
    assert filecmp.cmp(tmp_path / "py.h5", cli_h5, shallow=False), "Panel.save('py.h5') differs from lcm simulate --out"
    assert panel.rows == cli_csv.read_bytes().count(b"\n") - 1 > 0


def test_panel_with_all_targets_and_batches_equals_lcm_simulate(case, tmp_path):
    _needs_panel(case)
    cli_csv, _ = case.cli_panel("targets", "--targets", "all", "--subject-batch-size", BATCH)
    panel = _py_panel(case, targets="all", batch_size=BATCH)
    panel.save(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == cli_csv.read_bytes()
    # the batch size never changes the panel (docs/simulation.md)
    whole = _py_panel(case, targets="all")
    whole.save(tmp_path / "whole.csv")
    assert (tmp_path / "whole.csv").read_bytes() == cli_csv.read_bytes()


def test_panel_from_python_initial_forms_equals_lcm_simulate(case, tmp_path):
    """The initial conditions as a DataFrame and as a dict of columns give the
    panel the command makes from the CSV file."""
    _needs_panel(case)
    cli_csv, _ = case.cli_panel("default")
    df = pd.read_csv(case.initial)
    for i, initial in enumerate((df, {c: df[c].tolist() for c in df.columns})):
        panel = case.solver.simulate(case.solution, initial, seed=SEED)
        panel.save(tmp_path / f"py{i}.csv")
        assert (tmp_path / f"py{i}.csv").read_bytes() == cli_csv.read_bytes(), f"initial form {i}"


def _assert_frame_matches_csv(got, expected, panel):
    """A panel as a DataFrame holds exactly the values of the command's CSV."""
    assert list(got.columns) == list(expected.columns) == panel.columns
    assert len(got) == len(expected) == panel.rows
    for name in got.columns:
        g, e = got[name], expected[name]
        if isinstance(g.dtype, pd.CategoricalDtype):
            assert list(g.cat.categories) == panel.labels(name), f"column {name}"
            gv = g.astype(object).where(g.notna(), None).tolist()
            ev = e.astype(object).where(e.notna(), None).tolist()
            assert gv == ev, f"column {name}"
        else:
            assert panel.labels(name) is None, f"column {name} has labels but is not categorical"
            assert g.dtype.kind in "if", f"column {name}: dtype {g.dtype}"
            assert np.array_equal(g.to_numpy(np.float64), e.to_numpy(np.float64), equal_nan=True), f"column {name}"
    assert got["subject_id"].dtype == np.int64 and got["period"].dtype == np.int64


def _csv_frame(csv, panel):
    """The command's CSV as pandas reads it, label columns as text (labels
    such as lagged_effort's 0, 1, 2 would otherwise read as numbers)."""
    labelled = [name for name in panel.columns if panel.labels(name) is not None]
    return pd.read_csv(csv, keep_default_na=False, na_values=[""], dtype={name: str for name in labelled})


def test_panel_to_pandas_equals_the_csv(case):
    _needs_panel(case)
    cli_csv, _ = case.cli_panel("default")
    panel = _py_panel(case)
    _assert_frame_matches_csv(panel.to_pandas(), _csv_frame(cli_csv, panel), panel)


def test_panel_with_targets_to_pandas_equals_the_csv(case):
    _needs_panel(case)
    cli_csv, _ = case.cli_panel("targets", "--targets", "all", "--subject-batch-size", BATCH)
    panel = _py_panel(case, targets="all")
    _assert_frame_matches_csv(panel.to_pandas(), _csv_frame(cli_csv, panel), panel)


def test_panel_arrow_and_parquet_equal_the_csv(case, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    _needs_panel(case)
    cli_csv, _ = case.cli_panel("default")
    panel = _py_panel(case)
    expected = _csv_frame(cli_csv, panel)
    _assert_frame_matches_csv(panel.to_arrow().to_pandas(), expected, panel)
    _assert_frame_matches_csv(pa.table(panel).to_pandas(), expected, panel)  # the PyCapsule stream
    panel.to_parquet(tmp_path / "panel.parquet")
    _assert_frame_matches_csv(pq.read_table(tmp_path / "panel.parquet").to_pandas(), expected, panel)


def test_xarray_holds_V(case):
    ds = case.solution.to_xarray()
    m = case.model
    assert ds.attrs["model"] == m.name
    assert np.array_equal(ds["period"].values, np.arange(m.periods)) and np.array_equal(ds["age"].values, m.ages)
    for regime in m.regimes:
        states = [s.name for s in m.states(regime)]
        if all(case.solution.V(t, regime) is None for t in range(m.periods)):
            assert regime not in ds
            continue
        assert list(ds[regime].dims) == ["period"] + states
        for t in range(m.periods):
            v, x = case.solution.V(t, regime), ds[regime].isel(period=t).values
            if v is None:
                assert np.isnan(x).all()
            else:
                assert np.array_equal(v, x, equal_nan=True), (regime, t)


# Bundled models whose panels draw nothing (no shocks, no stochastic regimes;
# iskhakov_2017 without taste shocks), and those that draw.
DETERMINISTIC = {"tiny", "iskhakov_2017"}
STOCHASTIC = {"mahler_yum_2024", "durables", "mortality", "precautionary_savings", "precautionary_savings_health", "saving_choice", "fvv_2018",
              "iskhakov_2017_taste_shocks"}


def test_seed_matters_and_agrees(case, tmp_path):
    """Not vacuous: another seed gives another panel where the model draws
    (a stochastic next state or regime), and the command agrees on it too."""
    _needs_panel(case)
    cli_csv, _ = case.cli_panel("default")
    other = case.solver.simulate(case.solution, case.model.initial(case.initial), seed=SEED + 1)
    other.save(tmp_path / "other.csv")
    again = _py_panel(case)
    again.save(tmp_path / "again.csv")
    assert (tmp_path / "again.csv").read_bytes() == cli_csv.read_bytes()  # same seed, same panel
    if case.case in DETERMINISTIC:  # no draws: every seed gives the one panel
        assert (tmp_path / "other.csv").read_bytes() == cli_csv.read_bytes()
    elif case.case in STOCHASTIC:
        assert (tmp_path / "other.csv").read_bytes() != cli_csv.read_bytes()


@pytest.mark.parametrize("name", ["mortality", "precautionary_savings"])
def test_float32_agrees_with_lcm_solve_precision_32(name, tmp_path):
    model, params, initial = (MODELS / f"{name}.lua", MODELS / f"{name}.params.lua", MODELS / f"{name}.initial.csv")
    common = [model, "--params", params, "--backend", "cpu", "--precision", 32]
    _run("solve", *common, "--out", tmp_path / "cli.h5", "--csv", tmp_path / "cli.csv")
    _run("simulate", *common, "--solution", tmp_path / "cli.h5", "--initial", initial, "--seed", SEED,
         "--csv", tmp_path / "cli_panel.csv")
    m = lcmgen.load(model)
    with m.solver(backend="cpu", precision=32) as s:
        sol = s.solve(lcmgen.read_params(params))
        cli = lcmgen.load_solution(m, tmp_path / "cli.h5")
        assert sol.precision == cli.precision == 32
        for t in range(m.periods):
            for r in m.regimes:
                a, b = sol.V(t, r), cli.V(t, r)
                assert (a is None) == (b is None)
                if a is not None:
                    assert a.dtype == b.dtype == np.float32 and a.tobytes() == b.tobytes(), (t, r)
        sol.save(tmp_path / "py.csv")
        sol.save(tmp_path / "py.h5")
        assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
        assert filecmp.cmp(tmp_path / "py.h5", tmp_path / "cli.h5", shallow=False)
        s.simulate(sol, initial, seed=SEED).save(tmp_path / "py_panel.csv")
        assert (tmp_path / "py_panel.csv").read_bytes() == (tmp_path / "cli_panel.csv").read_bytes()
