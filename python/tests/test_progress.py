"""Progress from Python: liblcm's progress callback, cancelling, the bar."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import lcmgen
from conftest import MODELS


@pytest.fixture(scope="module")
def isk():
    m = lcmgen.load(MODELS / "iskhakov_2017.lua")
    return m, lcmgen.read_params(MODELS / "iskhakov_2017.params.lua")


def test_every_period_of_a_solve_is_reported(isk):
    m, p = isk
    seen = []
    sol = m.solver(backend="cpu", progress=seen.append).solve(p)
    assert [q.period for q in seen] == list(range(m.periods - 1, -1, -1))
    assert [q.done for q in seen] == list(range(1, m.periods + 1))
    assert {q.what for q in seen} == {"solve"} and {q.total for q in seen} == {m.periods}
    assert [q.age for q in seen] == list(m.ages[::-1])
    assert all(b.seconds >= a.seconds for a, b in zip(seen, seen[1:]))
    assert np.array_equal(sol.V(0, 0), m.solver(backend="cpu").solve(p).V(0, 0))


def test_a_simulation_reports_its_subjects(isk):
    m, p = isk
    seen = []
    s = m.solver(backend="cpu", progress=seen.append)
    sol = s.solve(p)
    seen.clear()
    panel = s.simulate(sol, pd.read_csv(MODELS / "iskhakov_2017.initial.csv"), seed=1)
    assert seen and {q.what for q in seen} == {"simulate"}
    assert seen[-1].done == seen[-1].total and seen[-1].subjects == panel.column("subject_id").max() + 1


def test_false_cancels_and_the_solver_goes_on(isk):
    m, p = isk
    s = m.solver(backend="cpu", progress=lambda q: q.done < 2)
    with pytest.raises(lcmgen.CancelledError, match="cancelled by its progress callback") as info:
        s.solve(p)
    assert info.value.status == 11
    full = m.solver(backend="cpu").solve(p)
    s2 = m.solver(backend="cpu", progress=lambda q: None)
    assert np.array_equal(s2.solve(p).V(0, "working_life"), full.V(0, "working_life"))


def test_the_callbacks_exception_is_the_solves(isk):
    m, p = isk

    def boom(q):
        raise KeyError("from the callback")

    s = m.solver(backend="cpu", progress=boom)
    with pytest.raises(KeyError, match="from the callback"):
        s.solve(p)
    s.close()


def test_the_bar_draws_and_clears(isk, capfd):
    m, p = isk
    m.solver(backend="cpu", progress=True).solve(p)
    err = capfd.readouterr().err
    assert ("step 6 of 6" in err) or ("it/s" in err or "step/s" in err)


def test_a_bad_progress_is_refused(isk):
    with pytest.raises(lcmgen.UsageError, match="progress must be"):
        isk[0].solver(backend="cpu", progress=5)


def test_a_callback_referring_to_its_solver_is_freed():
    """A cycle through the binding's solver (its callback) is collected: no leak report at exit."""
    code = ("import lcmgen, sys\n"
            f"m = lcmgen.load({str(MODELS / 'tiny.lua')!r})\n"
            "s = m.solver(backend='cpu', progress=lambda q: s.backend)\n"
            f"s.solve(lcmgen.read_params({str(MODELS / 'tiny.params.lua')!r}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "leaked" not in out.stderr, out.stderr
