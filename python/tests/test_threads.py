"""Threads: solvers solve without the GIL, one thread per solver.

A pool of threads, each with a solver of its own, solves and simulates
different parameters at once and gets, bit for bit, what serial solves get;
one solver shared by threads serves one call at a time and refuses the
others (UsageError), never mixing them up; a panel that one thread refills
(simulate(out=)) refuses the others' reads and refills.  (Speed is bench/'s
business: nothing here times anything.)
"""
import concurrent.futures as cf
import threading

import numpy as np
import pandas as pd
import pytest

import lcmgen
from conftest import MODELS

WORKERS = 4


def all_V(model, solution):
    """Copies of every V: {(period, regime): array}."""
    out = {}
    for t in range(model.periods):
        for r in model.regimes:
            v = solution.V(t, r)
            if v is not None:
                out[t, r] = np.array(v)
    return out


def same_V(a, b):
    return a.keys() == b.keys() and all(a[k].tobytes() == b[k].tobytes() for k in a)


@pytest.fixture(scope="module")
def mortality():
    m = lcmgen.load(MODELS / "mortality.lua")
    base = lcmgen.read_params(MODELS / "mortality.params.lua")
    sets = []
    for i in range(8):
        p = dict(base)
        p["interest_rate"] = 0.01 + 0.005 * i
        p["beta"] = {"impatient": 0.85 + 0.01 * i, "patient": 0.95 + 0.004 * i}
        p["wage"] = {"bad": 8.0 + i, "good": 12.0 + i}
        sets.append(p)
    ic = pd.read_csv(MODELS / "mortality.initial.csv")
    with m.solver(backend="cpu", threads=1) as s:
        serial = [s.solve(p) for p in sets]
        serial_V = [all_V(m, sol) for sol in serial]
        serial_panels = [s.simulate(sol, ic, seed=i).to_pandas() for i, sol in enumerate(serial)]
    return m, sets, serial_V, serial_panels, ic


def test_parameter_sets_differ(mortality):
    """Not vacuous: each parameter set has a V of its own."""
    m, sets, serial_V, serial_panels, _ = mortality
    for i in range(len(sets)):
        for j in range(i):
            assert not same_V(serial_V[i], serial_V[j]), (i, j)
    assert all(len(v) > 0 for v in serial_V)


@pytest.mark.parametrize("threads_per_solver", [1, 0])
def test_pool_of_solvers_equals_serial(mortality, threads_per_solver):
    m, sets, serial_V, serial_panels, ic = mortality
    local = threading.local()
    solvers, lock = [], threading.Lock()

    def solver():
        if not hasattr(local, "solver"):
            local.solver = m.solver(backend="cpu", threads=threads_per_solver)
            with lock:
                solvers.append(local.solver)
        return local.solver

    def job(i):
        s = solver()
        sol = s.solve(sets[i])
        panel = s.simulate(sol, ic, seed=i)
        return threading.get_ident(), all_V(m, sol), panel.to_pandas()

    with cf.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = list(pool.map(job, range(len(sets))))  # in order of sets
    try:
        for i, (_, V, panel) in enumerate(results):
            assert same_V(V, serial_V[i]), f"parameter set {i}"
            pd.testing.assert_frame_equal(panel, serial_panels[i], check_exact=True)
        idents = {r[0] for r in results}
        assert len(solvers) == len(idents) >= 1  # one solver per thread that ran a job
    finally:
        for s in solvers:
            s.close()


def test_pool_with_param_space_vectors(mortality):
    """Resolved vectors (ParamSpace.from_vector), the optimizer's path, in a pool."""
    m, sets, serial_V, _, _ = mortality
    space = m.param_space(["interest_rate", "beta", "wage"], base=sets[0])
    xs = [space.to_vector(p) for p in sets]
    assert space.size == 5 and len({tuple(x) for x in xs}) == len(sets)
    local = threading.local()
    made = []

    def job(x):
        if not hasattr(local, "solver"):
            local.solver = m.solver(backend="cpu", threads=1)
            made.append(local.solver)
        return all_V(m, local.solver.solve(space.from_vector(x)))

    with cf.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = list(pool.map(job, xs))
    for s in made:
        s.close()
    for i, V in enumerate(results):
        assert same_V(V, serial_V[i]), f"vector {i}"


def test_different_models_in_threads_at_once(mortality):
    """Threads that solve different models at once, each its own solver."""
    m, sets, serial_V, _, _ = mortality
    models = {name: lcmgen.load(MODELS / f"{name}.lua") for name in
              ("tiny", "precautionary_savings", "saving_choice")}
    params = {name: lcmgen.read_params(MODELS / f"{name}.params.lua") for name in models}
    expected = {}
    for name, mod in models.items():
        with mod.solver(backend="cpu", threads=1) as s:
            expected[name] = all_V(mod, s.solve(params[name]))
    jobs = [(name, k) for k in range(2) for name in models] + [("mortality", k) for k in range(3)]
    barrier = threading.Barrier(len(jobs))

    def job(spec):
        name, k = spec
        mod = m if name == "mortality" else models[name]
        with mod.solver(backend="cpu", threads=1) as s:
            barrier.wait()  # all of them solve at once
            return all_V(mod, s.solve(sets[k] if name == "mortality" else params[name]))

    with cf.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        results = list(pool.map(job, jobs))
    for (name, k), V in zip(jobs, results):
        assert same_V(V, serial_V[k] if name == "mortality" else expected[name]), (name, k)


def test_solutions_are_read_from_other_threads(mortality):
    """A solution made in one thread is read in others (V views are plain
    memory): every thread sees the same values."""
    m, sets, serial_V, _, _ = mortality
    with m.solver(backend="cpu") as s:
        sol = s.solve(sets[3])

    def read(_):
        return all_V(m, sol)

    with cf.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for V in pool.map(read, range(8)):
            assert same_V(V, serial_V[3])


def test_one_solver_shared_by_threads_serves_one_call_at_a_time(mortality):
    """Threads hammer one solver: each call solves its own parameters
    correctly or is refused with UsageError; nothing else happens."""
    m, sets, serial_V, _, _ = mortality
    solved, refused, other = [], [], []
    barrier = threading.Barrier(WORKERS)
    with m.solver(backend="cpu", threads=1) as s:
        def worker(w):
            barrier.wait()
            for k in range(6):
                i = (w + k) % len(sets)
                try:
                    sol = s.solve(sets[i])
                except lcmgen.UsageError as exc:
                    refused.append(str(exc))
                    continue
                except Exception as exc:  # noqa: BLE001
                    other.append(exc)
                    continue
                solved.append((i, all_V(m, sol)))

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(WORKERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert other == []
    assert len(solved) + len(refused) == WORKERS * 6
    assert solved, "no call was served"
    for i, V in solved:
        assert same_V(V, serial_V[i]), f"parameter set {i}"
    assert all("in use by another thread" in msg for msg in refused)


def test_serialised_by_a_lock_every_call_is_served(mortality):
    """The documented pattern when threads must share a solver: a lock."""
    m, sets, serial_V, _, _ = mortality
    lock = threading.Lock()
    with m.solver(backend="cpu", threads=1) as s:
        def job(i):
            with lock:
                return all_V(m, s.solve(sets[i]))

        with cf.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            results = list(pool.map(job, range(len(sets))))
    for i, V in enumerate(results):
        assert same_V(V, serial_V[i])


# ---- simulate(out=panel) in one thread, the panel read in another --------------------------------

@pytest.fixture(scope="module")
def refill():
    """precautionary_savings on a 3000 x 3000 grid and 20,000 subjects: a
    simulation of a second or more on one thread, long enough to read the
    panel while another thread refills it."""
    m = lcmgen.load(MODELS / "precautionary_savings.lua", options={"wealth_points": 3000, "consumption_points": 3000})
    s, s2 = m.solver(backend="cpu", threads=1), m.solver(backend="cpu", threads=1)
    sol = s.solve(lcmgen.read_params(MODELS / "precautionary_savings.params.lua"))
    n = 20000
    ic = m.initial({"regime": ["alive"] * n, "age": np.full(n, 20.0), "wealth": np.linspace(1.0, 20.0, n)})
    yield m, s, s2, sol, ic
    s.close()
    s2.close()


def _during_refill(refill, probes):
    """Refills a panel (simulate(out=), seed 2) on a worker thread; once the
    refill runs, calls each probe on this thread: {name: result or exception}."""
    m, s, s2, sol, ic = refill
    panel = s.simulate(sol, ic, seed=1)
    done = {}

    def work():
        done["panel"] = s.simulate(sol, ic, seed=2, out=panel)

    t = threading.Thread(target=work)
    t.start()
    # the refill has begun when reading the panel is refused (reads are
    # cheap and change nothing, unlike a probe that took the solver first)
    began = False
    while t.is_alive() and not began:
        try:
            panel.columns
        except lcmgen.UsageError:
            began = True
    # then into the middle of it (its first and last moments, while the
    # worker waits for the GIL, differ from the rest: see the BUG test)
    t.join(0.2)
    got = {}
    for name, probe in probes.items():
        try:
            got[name] = probe(panel)
        except Exception as exc:  # noqa: BLE001 - what the probe raised is the result
            got[name] = exc
    refilling = t.is_alive()
    t.join()
    assert done["panel"] is panel
    return panel, got, refilling


def test_refilling_panel_refuses_other_threads(refill, tmp_path):
    m, s, s2, sol, ic = refill
    probes = {"out": lambda p: s2.simulate(sol, ic, seed=3, out=p),
              "columns": lambda p: p.columns, "column": lambda p: p.column("wealth"),
              "labels": lambda p: p.labels("regime"), "save": lambda p: p.save(tmp_path / "p.csv"),
              "to_pandas": lambda p: p.to_pandas()}
    panel, got, refilling = _during_refill(refill, probes)
    assert refilling, "the refill ended before the probes: make it longer"
    assert "another thread is simulating into that panel" in str(got["out"])
    for name in probes:
        assert isinstance(got[name], lcmgen.UsageError), f"{name}: {got[name]!r}"
    assert not (tmp_path / "p.csv").exists()
    # the refill completed undisturbed: the panel is seed 2's
    expected = s2.simulate(sol, ic, seed=2)
    assert panel.rows == expected.rows == 5 * 20000
    for name in expected.columns:
        assert np.array_equal(panel.column(name), expected.column(name), equal_nan=True), name


def test_fixed_refilling_panel_says_so(refill):
    probes = {"columns": lambda p: p.columns, "rows": lambda p: p.rows}
    panel, got, refilling = _during_refill(refill, probes)
    assert refilling
    assert isinstance(got["columns"], lcmgen.UsageError)
    assert "being refilled" in str(got["columns"]), str(got["columns"])  # says: holds nothing, the simulation failed
    assert not (isinstance(got["rows"], int) and got["rows"] == 0), "rows: 0 while it is refilled"
