"""Solver.euler_errors (docs/solvers.md, "Euler errors"): the table of the
lcm command's --euler as a DataFrame, the panel's column euler_error, and
the refusals, as UsageError.  Iskhakov et al. (2017) by DC-EGM holds the
Euler equation to rounding (log utility, a policy linear in wealth), grid
search on its 500-point consumption grid to about 1%."""
import numpy as np
import pytest

import lcmgen
from conftest import MODELS

ISK = MODELS / "iskhakov_2017.lua"


def solved(solver):
    model = lcmgen.load(ISK, options={"solver": solver})
    sv = model.solver(backend="cpu")
    sol = sv.solve(lcmgen.read_params(MODELS / "iskhakov_2017.params.lua"))
    return sv, sol


@pytest.mark.parametrize("solver, lo, hi", [("grid", -2.5, -1.5), ("egm", -16, -14)])
def test_grid_and_panel(solver, lo, hi):
    sv, sol = solved(solver)
    panel = sv.simulate(sol, MODELS / "iskhakov_2017.initial.csv")
    table = sv.euler_errors(sol, panel)
    assert list(table.columns) == ["points", "constrained", "mean", "p5", "p50", "p95"]
    for where in ("grid", "panel"):
        row = table.loc[(where, "all")]
        assert row["points"] > 500
        assert lo < row["mean"] < hi, (where, row["mean"])
        assert row["p5"] <= row["p50"] <= row["p95"]
        parts = table.loc[where].drop(index="all")
        assert set(parts.index) == {"working_life", "retirement"}
        assert parts["points"].sum() == row["points"]
    column = panel.column("euler_error")
    counted = column[~np.isnan(column)]
    assert counted.size == table.loc[("panel", "all"), "points"]
    assert abs(counted.mean() - table.loc[("panel", "all"), "mean"]) < 1e-12


def test_grid_only_and_refusals():
    sv, sol = solved("egm")
    table = sv.euler_errors(sol, cutoff=1.0)
    assert list(table.index.get_level_values(0).unique()) == ["grid"]
    with pytest.raises(lcmgen.UsageError, match="cutoff"):
        sv.euler_errors(sol, cutoff=-1.0)
    with pytest.raises(lcmgen.UsageError, match="not an lcmgen Solution"):
        sv.euler_errors("V.h5")
    durables = lcmgen.load(MODELS / "durables.lua", options={"n_periods": 2, "a_points": 4, "p_points": 3,
                                                             "n_points": 3, "psi_points": 1, "xi_points": 1,
                                                             "c_points": 3, "d_points": 3})
    dsv = durables.solver(backend="cpu")
    dsol = dsv.solve(lcmgen.read_params(MODELS / "durables.params.lua"))
    with pytest.raises(lcmgen.UsageError, match="no regime with a consumption-saving margin.*'alive'"):
        dsv.euler_errors(dsol)
