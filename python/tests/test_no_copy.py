"""V and panel columns are views of the library's memory, not copies.

Solution.V and Panel.column (value, states, actions, targets) hand out
read-only numpy arrays over the memory of the solution / panel, which they
keep alive; simulate(out=panel) writes the new panel into the old one's
memory, and refuses while views of it are alive.
"""
import ctypes
import gc

import numpy as np
import pandas as pd
import pytest

import lcmgen
from conftest import MODELS

VIEW_COLUMNS = ["value", "income", "wealth", "consumption"]  # precautionary_savings' columns in its memory


def addr(a):
    return a.__array_interface__["data"][0]


@pytest.fixture(scope="module")
def ps():
    """precautionary_savings: a solver, a solution, its initial conditions."""
    m = lcmgen.load(MODELS / "precautionary_savings.lua")
    s = m.solver(backend="cpu")
    sol = s.solve(lcmgen.read_params(MODELS / "precautionary_savings.params.lua"))
    df = pd.read_csv(MODELS / "precautionary_savings.initial.csv")
    yield m, s, sol, df
    s.close()


@pytest.fixture(scope="module")
def mort():
    """mortality: three states (two discrete), a regime without states."""
    m = lcmgen.load(MODELS / "mortality.lua")
    s = m.solver(backend="cpu")
    sol = s.solve(lcmgen.read_params(MODELS / "mortality.params.lua"))
    yield m, s, sol
    s.close()


# ---- V -------------------------------------------------------------------------------------

def test_two_calls_of_V_share_memory(mort):
    m, s, sol = mort
    a, b = sol.V(0, "working"), sol.V(0, "working")
    assert a is not b
    assert addr(a) == addr(b)
    assert np.shares_memory(a, b)
    assert a.shape == (2, 2, 60) and a.flags.c_contiguous
    # other periods and regimes are other memory
    assert not np.shares_memory(a, sol.V(1, "working"))
    assert not np.shares_memory(a, sol.V(0, "retired"))


def test_V_of_the_solution_is_a_view_of_its_memory(mort):
    """Writes into the solution's memory (through a writable alias of the
    same address) show in every view: proof that none is a copy."""
    m, s, sol = mort
    v = sol.V(2, "working")
    w = sol.V(2, "working")
    # a writable numpy alias of the very same bytes
    alias = np.frombuffer((ctypes.c_double * v.size).from_address(addr(v)), dtype=np.float64).reshape(v.shape)
    assert alias.flags.writeable
    keep = v.copy()
    try:
        alias[0, 0, 0] = 12345.5
        assert v[0, 0, 0] == 12345.5 and w[0, 0, 0] == 12345.5
        assert sol.V(2, "working")[0, 0, 0] == 12345.5
    finally:
        alias[...] = keep
    assert np.array_equal(sol.V(2, "working"), keep)


def test_V_is_read_only(mort):
    m, s, sol = mort
    v = sol.V(0, "working")
    assert not v.flags.writeable
    before = v.copy()
    with pytest.raises(ValueError, match="read-only"):
        v[0, 0, 0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        v += 1
    with pytest.raises(ValueError):
        v.flags.writeable = True
    assert np.array_equal(v, before)
    d = sol.V(0, "dead")  # a regime without states: a 0-d view
    assert d.shape == () and not d.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        d[()] = 1.0


def test_V_outlives_its_solution(ps):
    m, s, _, _ = ps
    p = lcmgen.read_params(MODELS / "precautionary_savings.params.lua")
    sol = s.solve(p)
    v = sol.V(0, "alive")
    at, expected = addr(v), v.copy()
    del sol
    gc.collect()
    # more solutions, which would reuse freed memory
    others = [s.solve({**p, "discount_factor": 0.5 + 0.1 * i}) for i in range(3)]
    assert addr(v) == at
    assert np.array_equal(v, expected)
    assert not any(np.array_equal(o.V(0, "alive"), expected) for o in others)


def test_V_outlives_its_solver(ps):
    m, _, _, _ = ps
    s = m.solver(backend="cpu")
    sol = s.solve(lcmgen.read_params(MODELS / "precautionary_savings.params.lua"))
    v = sol.V(1, "alive")
    expected = v.copy()
    s.close()
    del s, sol
    gc.collect()
    assert np.array_equal(v, expected)


def test_V_from_dlpack_shares_memory(mort):
    m, s, sol = mort
    v = sol.V(0, "working")
    d = np.from_dlpack(v)
    assert np.shares_memory(d, v) and addr(d) == addr(v)
    assert d.shape == v.shape and d.dtype == v.dtype
    assert np.array_equal(d, v)
    assert not d.flags.writeable  # DLPack 1.0 carries the read-only flag
    assert v.__dlpack_device__() == (1, 0)  # kDLCPU, device 0


def test_float32_solution_views(ps):
    m, _, _, _ = ps
    with m.solver(backend="cpu", precision=32) as s32:
        sol = s32.solve(lcmgen.read_params(MODELS / "precautionary_savings.params.lua"))
        v = sol.V(0, "alive")
        assert v.dtype == np.float32 and not v.flags.writeable
        assert addr(v) == addr(sol.V(0, "alive"))
        assert np.shares_memory(np.from_dlpack(v), v)


def test_solution_params_is_a_view(ps):
    m, s, sol, _ = ps
    a, b = sol.params, sol.params
    assert np.shares_memory(a, b) and not a.flags.writeable
    assert np.array_equal(a, m.resolve(lcmgen.read_params(MODELS / "precautionary_savings.params.lua")))


# ---- panels ----------------------------------------------------------------------------------

def test_panel_column_views_share_memory(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    assert panel.columns == ["subject_id", "period", "age", "regime"] + VIEW_COLUMNS
    for name in VIEW_COLUMNS:
        a, b = panel.column(name), panel.column(name)
        assert addr(a) == addr(b) and np.shares_memory(a, b), name
        assert a.shape == (panel.rows,) and a.dtype == np.float64
    # the columns are consecutive blocks of one allocation
    first = addr(panel.column("value"))
    for k, name in enumerate(VIEW_COLUMNS):
        assert addr(panel.column(name)) == first + 8 * k * panel.rows


def test_panel_copied_columns_are_copies(ps):
    """subject_id, period, age and regime are kept as integers: column() copies them out."""
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    for name in ("subject_id", "period", "age", "regime"):
        a, b = panel.column(name), panel.column(name)
        assert not np.shares_memory(a, b), name
        assert np.array_equal(a, b)
    assert np.array_equal(panel.column("subject_id"), np.repeat(np.arange(len(df)), panel.rows // len(df)))


def test_panel_column_is_read_only(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    c = panel.column("wealth")
    before = c.copy()
    assert not c.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        c[0] = 3.0
    with pytest.raises(ValueError, match="read-only"):
        c[:] = 0
    assert np.array_equal(c, before, equal_nan=True)
    assert np.array_equal(panel.column("wealth"), before, equal_nan=True)


def test_panel_column_outlives_the_panel(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=5)
    c = panel.column("wealth")
    at, expected = addr(c), c.copy()
    del panel
    gc.collect()
    others = [s.simulate(sol, df, seed=100 + i) for i in range(3)]
    assert addr(c) == at
    assert np.array_equal(c, expected, equal_nan=True)
    assert not any(np.array_equal(o.column("wealth"), expected, equal_nan=True) for o in others)


def test_panel_column_from_dlpack_shares_memory(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    c = panel.column("consumption")
    d = np.from_dlpack(c)
    assert np.shares_memory(c, d) and addr(c) == addr(d)
    assert np.array_equal(c, d, equal_nan=True)


def test_simulate_out_reuses_the_memory(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    first = {n: addr(panel.column(n)) for n in VIEW_COLUMNS}  # the views die at once
    old_wealth = panel.column("wealth").copy()
    fresh = s.simulate(sol, df, seed=2)  # the same simulation without out=
    gc.collect()
    assert panel._core.views == 0
    back = s.simulate(sol, df, seed=2, out=panel)
    assert back is panel
    w = panel.column("wealth")
    assert addr(w) == first["wealth"]  # same size: every column where it was
    assert {n: addr(panel.column(n)) for n in VIEW_COLUMNS} == first
    assert np.array_equal(w, fresh.column("wealth"), equal_nan=True)  # and holds the new panel
    assert not np.array_equal(w, old_wealth, equal_nan=True)
    del w


def test_simulate_out_smaller_panel_stays_in_the_memory(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    rows = panel.rows
    start = addr(panel.column("value"))
    end = start + 8 * rows * len(VIEW_COLUMNS)
    gc.collect()
    s.simulate(sol, df.iloc[:100], seed=3, out=panel)
    assert panel.rows == rows // 10
    assert addr(panel.column("value")) == start
    for n in VIEW_COLUMNS:
        c = panel.column(n)
        assert start <= addr(c) and addr(c) + 8 * c.size <= end, n
    expected = s.simulate(sol, df.iloc[:100], seed=3)
    for n in panel.columns:
        assert np.array_equal(panel.column(n), expected.column(n), equal_nan=True), n


def test_simulate_out_refuses_while_views_live(ps):
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    c = panel.column("wealth")
    v = panel.column("value")
    expected = c.copy()
    with pytest.raises(lcmgen.UsageError, match=r"2 column array\(s\) of that panel are still alive"):
        s.simulate(sol, df, seed=2, out=panel)
    assert np.array_equal(c, expected, equal_nan=True)  # untouched
    del v
    gc.collect()
    with pytest.raises(lcmgen.UsageError, match=r"1 column array\(s\) of that panel are still alive"):
        s.simulate(sol, df, seed=2, out=panel)
    # a view of the view keeps the panel's memory alive too
    sub = c[10:20]
    del c
    gc.collect()
    with pytest.raises(lcmgen.UsageError, match="still alive"):
        s.simulate(sol, df, seed=2, out=panel)
    assert np.array_equal(sub, expected[10:20], equal_nan=True)
    del sub
    gc.collect()
    assert s.simulate(sol, df, seed=2, out=panel) is panel
    # the copied columns are not views: they never block
    ids = panel.column("subject_id")
    assert s.simulate(sol, df, seed=3, out=panel) is panel
    assert np.array_equal(ids, panel.column("subject_id"))


def test_to_pandas_does_not_hold_views(ps):
    """to_pandas copies: the frame lives on after the panel is refilled."""
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    frame = panel.to_pandas()
    gc.collect()
    assert panel._core.views == 0
    s.simulate(sol, df, seed=2, out=panel)
    assert not np.array_equal(frame["wealth"].to_numpy(), panel.column("wealth"), equal_nan=True)
    assert np.array_equal(frame["wealth"].to_numpy(), s.simulate(sol, df, seed=1).column("wealth"), equal_nan=True)


def test_to_arrow_shares_the_float_columns_and_holds_them(ps):
    """to_arrow wraps the float columns without a copy: the table is a view
    too, so simulate(out=) waits for it like for any column array."""
    m, s, sol, df = ps
    panel = s.simulate(sol, df, seed=1)
    table = panel.to_arrow()
    w = table["wealth"].chunk(0)
    assert w.null_count > 0  # rows of a regime without wealth: nulls, by a validity bitmap beside the shared data
    assert w.buffers()[1].address == addr(panel.column("wealth"))
    with pytest.raises(lcmgen.UsageError, match="still alive"):
        s.simulate(sol, df, seed=2, out=panel)
    del table, w
    gc.collect()
    assert panel._core.views == 0
    assert s.simulate(sol, df, seed=2, out=panel) is panel


def test_fixed_out_panel_of_another_model_takes_the_new_model(ps):
    m, s, sol, df = ps
    tiny = lcmgen.load(MODELS / "tiny.lua")
    with tiny.solver(backend="cpu") as ts:
        tsol = ts.solve(lcmgen.read_params(MODELS / "tiny.params.lua"))
        panel = ts.simulate(tsol, MODELS / "tiny.initial.csv", seed=1)
        gc.collect()
    back = s.simulate(sol, df, seed=1, out=panel)
    assert back is panel
    assert panel.columns == ["subject_id", "period", "age", "regime"] + VIEW_COLUMNS  # the new panel's
    assert panel.model is m, f"panel.model is {panel.model!r}"
