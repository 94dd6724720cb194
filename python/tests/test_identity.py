"""What a second hostile review of the package found, held to its fixes:
objects of one model taken for another's when only their names agree, a
panel read while another thread writes it, strings cut short at a NUL,
fixed parameters that the command line would refuse, and a Parquet file
lost when its rewrite fails."""
import resource
import threading

import numpy as np
import pytest

import lcmgen
from conftest import MODELS


def tiny_with(tmp_path, points):
    """models/tiny.lua with another wealth grid: the same name, another model."""
    text = (MODELS / "tiny.lua").read_text()
    assert "n_points = 10 }," in text
    path = tmp_path / f"tiny{points}.lua"
    path.write_text(text.replace("n_points = 10 },", f"n_points = {points} }},", 1))
    return path


@pytest.fixture(scope="module")
def tiny():
    model = lcmgen.load(MODELS / "tiny.lua")
    params = lcmgen.read_params(MODELS / "tiny.params.lua")
    solver = model.solver(backend="cpu", threads=1)
    return model, params, solver, solver.solve(params)


def test_the_same_model_loaded_twice_is_the_same(tiny):
    model, params, _, sol = tiny
    again = lcmgen.load(MODELS / "tiny.lua")
    assert again is not model and again.same_as(model) and model.same_as(again)
    # a vector of the one solves with the other's solver to the same V
    other = again.solver(backend="cpu", threads=1).solve(model.resolve(params))
    assert np.array_equal(other.V(0, "alive"), sol.V(0, "alive"))


def test_a_vector_of_another_model_is_refused(tiny, tmp_path):
    model, params, _, _ = tiny
    five = lcmgen.load(tiny_with(tmp_path, 5))
    assert five.name == model.name and not five.same_as(model)
    vector = model.resolve(params)
    assert vector.model is model and vector.copy().model is model and (vector * 1).model is model
    with pytest.raises(lcmgen.UsageError, match="a parameter vector of model 'tiny'.*not of this solver's model"):
        five.solver(backend="cpu", threads=1).solve(vector)
    space = model.param_space(["discount_factor"], params)
    with pytest.raises(lcmgen.UsageError, match="a parameter vector of model"):
        five.solver(backend="cpu", threads=1).solve(space.from_vector([0.9]))


def test_the_report_refuses_a_solution_panel_or_solver_of_another_model(tiny, tmp_path):
    pytest.importorskip("matplotlib")
    model, params, solver, sol = tiny
    fifty = lcmgen.load(tiny_with(tmp_path, 50))
    s50 = fifty.solver(backend="cpu", threads=1)
    sol50 = s50.solve(params)
    p50 = s50.simulate(sol50, MODELS / "tiny.initial.csv", seed=1)
    panel = solver.simulate(sol, MODELS / "tiny.initial.csv", seed=1)
    out = tmp_path / "out"
    out.mkdir()
    for kwargs, what in [({"solution": sol50}, "the solution is of model 'tiny'"),
                         ({"panel": p50}, "panel: simulated with model 'tiny'"),
                         ({"solver": s50}, "solver: not a Solver of model 'tiny'")]:
        args = {"solution": sol, "panel": panel, **kwargs}
        with pytest.raises(lcmgen.UsageError, match=what):
            lcmgen.make_report(model, args["solution"], args["panel"], out / "r.html", solver=kwargs.get("solver"))
    assert list(out.iterdir()) == []


def test_euler_errors_wait_for_no_writer_of_the_panel(tiny):
    """A panel that simulate(out=) refills in another thread is refused, not read half-made."""
    model, params, solver, sol = tiny
    other = model.solver(backend="cpu", threads=1)
    initial = model.initial({"regime": ["alive"] * 20000, "age": [0] * 20000, "wealth": [5.0] * 20000})
    panel = solver.simulate(sol, initial, seed=0)
    stop, errors = threading.Event(), []

    def refill():
        for seed in range(30):
            solver.simulate(sol, initial, seed=seed, out=panel)
        stop.set()

    t = threading.Thread(target=refill)
    t.start()
    refused = 0
    while not stop.is_set():
        try:
            other.euler_errors(sol, panel)
        except lcmgen.UsageError as e:  # a writer at work, or a panel this loop gave its column already
            assert "another thread" in str(e) or "column 'euler_error' already" in str(e), e
            refused += 1
        except lcmgen.LcmError as e:  # anything else is a read of a half-made panel
            errors.append(e)
    t.join()
    assert not errors, errors[:3]
    solver.simulate(sol, initial, seed=0, out=panel)
    assert other.euler_errors(sol, panel) is not None  # with no writer it reads the panel


@pytest.mark.parametrize("call", ["regime", "column", "targets", "panel_column", "option", "fix", "backend",
                                  "params_path"])
def test_a_string_with_a_nul_is_refused(tiny, call, tmp_path):
    model, params, solver, sol = tiny
    initial = model.initial(MODELS / "tiny.initial.csv")
    panel = solver.simulate(sol, initial, seed=1)
    df = panel.to_pandas()[["regime", "age", "wealth"]].head(3)
    with pytest.raises(lcmgen.UsageError, match=r"NUL character"):
        if call == "regime":
            solver.simulate(sol, df.assign(regime="alive\0junk"), seed=1)
        elif call == "column":
            solver.simulate(sol, df.rename(columns={"wealth": "wealth\0x"}), seed=1)
        elif call == "targets":
            solver.simulate(sol, df, seed=1, targets="utility\0junk")
        elif call == "panel_column":
            panel.column("wealth\0x")
        elif call == "option":
            lcmgen.load(MODELS / "iskhakov_2017.lua", options={"n_periods\0x": 3})
        elif call == "fix":
            lcmgen.load(MODELS / "tiny.lua", fix={"discount_factor\0x": 0.9})
        elif call == "backend":
            model.solver(backend="cpu\0x")
        else:
            lcmgen.read_params(str(MODELS / "tiny.params.lua") + "\0x")


@pytest.mark.parametrize("fix, message", [({"": 1.0}, "'' is not a parameter path"),
                                          ({"a..b": 1.0}, "'a..b' is not a parameter path"),
                                          ({"discount_factor": float("inf")}, "must be a finite number")])
def test_fixed_parameters_are_checked_as_the_command_line_checks_them(fix, message):
    with pytest.raises(lcmgen.UsageError, match=message):
        lcmgen.load(MODELS / "tiny.lua", fix=fix)


def test_a_failed_parquet_write_keeps_the_earlier_file(tiny, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    model, params, solver, sol = tiny
    panel = solver.simulate(sol, MODELS / "tiny.initial.csv", seed=1)
    path = tmp_path / "keep.parquet"
    panel.to_parquet(path)
    before = path.read_bytes()
    assert pq.read_table(path).num_rows == panel.rows
    probe = tmp_path / "probe"
    probe.write_bytes(b"")
    assert path.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777  # a new file's mode, not mkstemp's 0600
    probe.unlink()
    big = solver.simulate(sol, model.initial({"regime": ["alive"] * 50000, "age": [0] * 50000,
                                              "wealth": np.linspace(1, 10, 50000)}), seed=2)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 1000, hard))
    try:
        with pytest.raises(lcmgen.LcmIOError, match="cannot write"):
            big.to_parquet(path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.parquet"]  # no temporary left
