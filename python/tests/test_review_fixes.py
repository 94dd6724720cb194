"""What a hostile review of the package found, held to its fixes: silent
wrong results (a parameter vector that moved the base, grids merged across
regimes, numbers taken as codes where labels are numbers, Series matched
by position, NaN instead of Arrow's null) and inputs accepted silently."""
import pathlib

import numpy as np
import pandas as pd
import pytest

import lcmgen
from conftest import MODELS

HERE = pathlib.Path(__file__).parent / "models"  # tworeg.lua: two regimes, one state name, other grids; numlab.lua


@pytest.fixture(scope="module")
def mortality():
    m = lcmgen.load(MODELS / "mortality.lua")
    return m, lcmgen.read_params(MODELS / "mortality.params.lua")


def test_a_name_whose_base_differs_by_regime_is_refused(mortality):
    m, p = mortality
    q = dict(p)
    beta = q.pop("beta")
    assert isinstance(beta, dict)
    q["working"] = {"beta": {"patient": 0.97, "impatient": 0.90}}
    q["retired"] = {"beta": {"patient": 0.95, "impatient": 0.85}}
    with pytest.raises(lcmgen.ParamsError, match="different values in the base"):
        m.param_space(["beta"], q)
    space = m.param_space(["working.beta"], q)  # per regime: the other regime's values stay
    assert np.array_equal(space.from_vector(space.to_vector()), m.resolve(q))


def test_overlapping_names_are_refused(mortality):
    m, p = mortality
    with pytest.raises(lcmgen.ParamsError, match="already covers"):
        m.param_space(["beta", "working.beta"], p)
    with pytest.raises(lcmgen.ParamsError, match="already covers"):
        m.param_space(["beta", "beta"], p)


def test_xarray_keeps_each_regimes_grid():
    m = lcmgen.load(HERE / "tworeg.lua")
    sol = m.solver(backend="cpu", threads=1).solve(lcmgen.read_params(MODELS / "tiny.params.lua"))
    ds = sol.to_xarray()
    assert ds["young"].dims == ("period", "wealth") and ds.sizes["wealth"] == 10
    assert ds["old"].dims == ("period", "old.wealth") and ds.sizes["old.wealth"] == 5
    assert np.array_equal(ds["old"].sel(period=1).values, sol.V(1, "old"))
    assert np.array_equal(ds["old.wealth"].values, sol.axes(1, "old")["wealth"])
    assert sol.axes(0, "old") is None  # not active at age 0, as V


def test_numbers_for_numeric_labels_are_refused():
    m = lcmgen.load(HERE / "numlab.lua")
    df = pd.read_csv(HERE / "numlab.initial.csv")  # size read as the numbers 1, 2, 3: labels, not codes
    with pytest.raises(lcmgen.InputError, match="labels of state 'size' are numbers"):
        m.initial(df)
    as_text = df.assign(size=df["size"].astype(str))
    from_file = m.initial(HERE / "numlab.initial.csv")
    sol = m.solver(backend="cpu", threads=1).solve(lcmgen.read_params(MODELS / "tiny.params.lua"))
    s = m.solver(backend="cpu", threads=1)
    a = s.simulate(sol, as_text, seed=1).to_pandas()
    b = s.simulate(sol, from_file, seed=1).to_pandas()
    pd.testing.assert_frame_equal(a, b)


def test_a_dict_of_series_meets_by_index(mortality):
    m, p = mortality
    s = m.solver(backend="cpu", threads=1)
    sol = s.solve(p)
    base = pd.read_csv(MODELS / "mortality.initial.csv").iloc[:2]
    shuffled = {c: base[c].iloc[::-1] for c in base.columns}  # each Series reversed, its index with it
    shuffled["wealth"] = base["wealth"]  # this one not: by position it would meet the other subject
    order = pd.DataFrame(shuffled).index  # pandas' order of the aligned rows; each row is base's row of its label
    a = s.simulate(sol, base.loc[order], seed=3).to_pandas()
    b = s.simulate(sol, shuffled, seed=3).to_pandas()
    pd.testing.assert_frame_equal(a, b)


def test_arrow_has_nulls_not_nan(mortality):
    pa = pytest.importorskip("pyarrow")
    m, p = mortality
    s = m.solver(backend="cpu", threads=1)
    panel = s.simulate(s.solve(p), MODELS / "mortality.initial.csv", seed=1)
    table = panel.to_arrow()
    df = panel.to_pandas()
    for name in ("wealth", "value"):
        assert table[name].null_count == int(df[name].isna().sum())
        mean = pa.compute.mean(table[name]).as_py()
        assert mean == pytest.approx(df[name].mean(), rel=1e-12)


def test_series_labels_that_are_not_names_are_refused():
    from lcmgen._params import to_tree
    idx = pd.MultiIndex.from_tuples([("survival", 0, "bad"), ("survival", 1, "bad")])
    with pytest.raises(lcmgen.ParamsError, match="not a name"):
        to_tree(pd.Series([0.9, 0.8], index=idx))
    with pytest.raises(lcmgen.ParamsError, match="given twice"):
        to_tree(pd.Series([1.0, 2.0], index=["pension", "pension"]))
    with pytest.raises(lcmgen.ParamsError, match="is a value and a table|a table in the Series"):
        to_tree(pd.Series([1.0, 2.0], index=["pension.x", "pension"]))


@pytest.mark.parametrize("name", ["p.parquet", "V.txt", "noext"])
def test_save_wants_a_known_extension(mortality, tmp_path, name):
    m, p = mortality
    s = m.solver(backend="cpu", threads=1)
    sol = s.solve(p)
    with pytest.raises(lcmgen.UsageError, match=r"name it \.csv, \.h5 or \.hdf5"):
        sol.save(tmp_path / name)
    panel = s.simulate(sol, MODELS / "mortality.initial.csv", seed=1)
    with pytest.raises(lcmgen.UsageError, match="name it"):
        panel.save(tmp_path / name)
    assert not list(tmp_path.iterdir())
    sol.save(tmp_path / "V.HDF5")
    assert (tmp_path / "V.HDF5").read_bytes()[:4] == b"\x89HDF"


def test_a_false_value_cancels(mortality):
    m, p = mortality
    with pytest.raises(lcmgen.CancelledError):
        m.solver(backend="cpu", progress=lambda q: np.False_).solve(p)
    with pytest.raises(lcmgen.CancelledError):
        m.solver(backend="cpu", progress=lambda q: 0).solve(p)
    m.solver(backend="cpu", progress=lambda q: None).solve(p)


def test_small_things(mortality, tmp_path):
    m, p = mortality
    s = m.solver(backend="cpu", threads=1)
    sol = s.solve(p)
    with pytest.raises(lcmgen.UsageError, match="not a regime name"):
        sol.V(0, True)
    assert np.array_equal(s.solve(sol.params).V(0, 0), sol.V(0, 0))  # a solution's parameters solve again
    panel = s.simulate(sol, MODELS / "mortality.initial.csv", seed=1, targets="utility, income")
    assert {"utility", "income"} <= set(panel.columns)
    with pytest.raises(lcmgen.InputError, match="appears twice"):
        df = pd.read_csv(MODELS / "mortality.initial.csv")
        m.initial(pd.concat([df, df["wealth"]], axis=1))
    with pytest.raises(lcmgen.LcmError, match="NUL"):
        sol.save(str(tmp_path / "x.h5") + "\0.csv")
