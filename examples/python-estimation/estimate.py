"""Mahler & Yum (2024) estimated by simulated moments, from Python.

Two structural parameters of models/mahler_yum_2024.lua are estimated:

- ``discount_factor.mean``: the mean discount factor of the two discount
  types (their factors are mean -/+ std, std held at the published 0.0284,
  as models/mahler_yum_2024/inputs.lua makes ``discount_factor_by_type``);
  it moves wealth at every age;
- ``health_consumption_penalty``: the utility weight of consumption in bad
  health; it moves the healthy-lifestyle effort at every age.

The "data" are a panel simulated at the published estimates (the truth:
0.94275 and 0.87150) from initial conditions drawn as
models/mahler_yum_2024.initial.lua draws them, with a data seed.  The
moments, by ten-year age group (25-34, ..., 85-94) of the living: mean
wealth, mean effort and (before 65) the share working; each residual is the
simulated moment minus the data's, divided by the data moment's standard
error.  ``om.minimize`` minimises their sum of squares with optimagic's
least-squares derivative-free optimiser POUNDERS (``@om.mark.least_squares``)
from a start away from the truth.

Every evaluation solves the model with the new parameters through one
compiled solver (compiled once, or taken from the cache) and simulates the
same subjects with the same simulation seed (common random numbers: the
criterion moves only with the parameters), into the memory of the previous
panel (``simulate(out=)``).  The simulation seed and the subjects differ
from the data's, so the estimate carries simulation noise, as a real one
does.

Because actions are chosen on grids, simulated moments are step functions
of the parameters: a derivative-free trust-region method that starts with a
wide region suits them; finite-difference gradients do not.

Recovery: the script prints "recovered: ..." and exits 0 when every
estimate lies within TOLERANCE of the truth, else "NOT recovered: ..." and
exits 1 (2 on an lcm error, such as --backend cuda without a GPU):

    discount_factor.mean         0.005
    health_consumption_penalty   0.02

At --size small (2,000 subjects) the default seeds give errors of +0.0005
and -0.0053; over 19 pairs of seeds (--seed, --data-seed) the largest were
0.0033 and 0.0058.  The simulation noise and the criterion's plateaus, not
the optimiser's precision, set the tolerance.

    python estimate.py --size small          # reduced grids: ~5 s on 2 cores (CI runs this)
    python estimate.py --size medium         # larger grids, 5,000 subjects: ~20 s on 2 cores
    python estimate.py --size full           # the paper's grids, 20,000 subjects: minutes per
                                             # evaluation on a CPU; a GPU (--backend cuda)

Run from anywhere: the model is found relative to this file (or LCM_REPO).
"""
import argparse
import os
import pathlib
import sys
import time

import numpy as np
import pandas as pd

import lcmgen

REPO = pathlib.Path(os.environ.get("LCM_REPO", pathlib.Path(__file__).resolve().parents[2]))
MODEL = REPO / "models" / "mahler_yum_2024.lua"
PARAMS = REPO / "models" / "mahler_yum_2024.params.lua"
TYPES = REPO / "models" / "mahler_yum_2024" / "init_distr_2b2t2h.txt"

# grid sizes (the model's lcm.option values) and subjects per size
SIZES = {
    "small": dict(options=dict(wealth_points=10, effort_points=5, shock_points=3, cost_points=2), subjects=2000),
    "medium": dict(options=dict(wealth_points=25, effort_points=10, shock_points=3, cost_points=3), subjects=5000),
    "full": dict(options=dict(wealth_points=50, effort_points=40, shock_points=5, cost_points=5), subjects=20000),
}

# the published estimates (models/mahler_yum_2024/estimates.lua)
DISCOUNT_STD = 0.0283688760224992
TRUTH = pd.Series({"discount_factor.mean": 0.942749393405227, "health_consumption_penalty": 0.871503495423925})
START = pd.Series({"discount_factor.mean": 0.915, "health_consumption_penalty": 0.80})
LOWER = pd.Series({"discount_factor.mean": 0.88, "health_consumption_penalty": 0.60})
UPPER = pd.Series({"discount_factor.mean": 0.97, "health_consumption_penalty": 1.00})
TOLERANCE = pd.Series({"discount_factor.mean": 0.005, "health_consumption_penalty": 0.02})

# POUNDERS starts with a trust region of 0.02 around the start, and stops when
# its model's gradient times the radius is below 0.001 of the criterion: at
# that scale the criterion is a step function (choices on grids) with
# simulation noise, and further evaluations only walk its plateaus
POUNDERS_OPTIONS = {"trustregion_initial_radius": 0.02, "convergence_gtol_rel": 1e-3}

AGE_GROUPS = [(25 + 10 * g, 34 + 10 * g) for g in range(7)]    # 25-34, ..., 85-94
RETIREMENT_AGE = 65


def initial_conditions(n, options, seed):
    """n subjects at 25, drawn as models/mahler_yum_2024.initial.lua draws
    them (the benchmark variant), with numpy's generator instead of Lua's:
    the 16 types (education, discount type, productivity type, health type)
    from the cumulative probabilities of init_distr_2b2t2h.txt, good health
    unless a uniform draw exceeds the type's threshold, the habit at the
    type's initial effort rounded up to the effort grid, the productivity
    shock uniform over the Rouwenhorst nodes, no wealth; the adjustment cost
    is left to the simulation (it draws it from its law)."""
    types = np.loadtxt(TYPES, skiprows=1)          # cumulative probability, P(good health), initial effort
    rng = np.random.default_rng(seed)
    k = np.minimum(np.searchsorted(types[:, 0], rng.random(n), side="right"), len(types) - 1)
    effort_grid = np.arange(options["effort_points"]) / (options["effort_points"] - 1)
    nodes = options["shock_points"]
    bound = np.sqrt(nodes - 1) / np.sqrt(1 - 0.975 ** 2)   # Rouwenhorst, rho 0.975, sigma 1
    low_high = np.array(["low", "high"])
    return pd.DataFrame({
        "regime": "alive",
        "age": 25,
        "wealth": 0.0,
        "education": low_high[k // 8],
        "discount_type": np.array(["small", "large"])[(k % 8) // 4],
        "productivity": low_high[(k % 4) // 2],
        "health_type": low_high[k % 2],
        "health": np.where(rng.random(n) > types[k, 1], "bad", "good"),
        "lagged_effort": np.minimum(np.searchsorted(effort_grid, types[k, 2]), len(effort_grid) - 1),
        "productivity_shock": -bound + 2 * bound / (nodes - 1) * rng.integers(0, nodes, n),
    })


def moments(panel, effort_points):
    """The moments of a panel with their standard errors, as a DataFrame
    (index: moment name; columns value, se).  Reads the panel's columns as
    views and drops them on return, so that the panel can be refilled."""
    alive = panel.column("regime") == panel.labels("regime").index("alive")
    age = panel.column("age")
    wealth = panel.column("wealth")
    effort = panel.column("effort") / (effort_points - 1)
    retired = panel.labels("labor_supply").index("retired")
    working = (panel.column("labor_supply") != retired).astype(float)
    rows = {}
    for lo, hi in AGE_GROUPS:
        sel = alive & (age >= lo) & (age <= hi)
        n = sel.sum()
        columns = [("wealth", wealth), ("effort", effort)] + ([("working", working)] if hi < RETIREMENT_AGE else [])
        for name, x in columns:
            v = x[sel]
            rows[f"{name} {lo}-{hi}"] = (v.mean(), v.std() / np.sqrt(n))
    return pd.DataFrame.from_dict(rows, orient="index", columns=["value", "se"])


class Estimation:
    """What stays fixed over the estimation: the solver, the subjects, the
    seed and the panel whose memory every simulation reuses (common random
    numbers); moments() at the truth makes the data, residuals() the criterion."""

    def __init__(self, solver, space, initial, seed, effort_points):
        self.solver, self.space, self.initial, self.seed = solver, space, initial, seed
        self.effort_points = effort_points
        self.data, self.scale, self.panel = None, None, None
        self.evaluations, self.solve_seconds, self.simulate_seconds = 0, 0.0, 0.0
        self._last = (None, None)     # optimagic evaluates the start twice (a check, then the algorithm's first)

    def buffer(self, params):
        """The model's parameter buffer at structural parameters (a Series):
        the two discount types' factors are mean -/+ std, as in inputs.lua."""
        mean = params["discount_factor.mean"]
        return self.space.from_vector([mean - DISCOUNT_STD, mean + DISCOUNT_STD,
                                       params["health_consumption_penalty"]])

    def moments(self, params):
        """Solves at params, simulates the subjects into the last panel's memory, and takes its moments."""
        t = time.perf_counter()
        solution = self.solver.solve(self.buffer(params))
        t1 = time.perf_counter()
        self.panel = self.solver.simulate(solution, self.initial, seed=self.seed, out=self.panel)
        self.solve_seconds += t1 - t
        self.simulate_seconds += time.perf_counter() - t1
        return moments(self.panel, self.effort_points)

    def set_data(self, data):
        """The data's moments; the residuals are weighted by their standard
        errors (a floor keeps a moment without variance in the data finite)."""
        self.data, self.scale = data, np.maximum(data["se"].to_numpy(), 1e-3)

    def residuals(self, params):
        """The simulated moments minus the data's, in standard errors of the data's."""
        x = np.asarray(params, dtype=float)
        if self._last[0] is not None and np.array_equal(self._last[0], x):
            return self._last[1]
        self.evaluations += 1
        r = (self.moments(params)["value"].to_numpy() - self.data["value"].to_numpy()) / self.scale
        self._last = (x, r)
        return r


def main(argv=None):
    import optimagic as om      # here, so that policy_plot.py imports this module without it
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=SIZES, default="small", help="grid sizes and subjects (default: small)")
    ap.add_argument("--backend", default="auto", help="cpu, cuda or auto (default); interp (the reference interpreter) is slow")
    ap.add_argument("--subjects", type=int, help="subjects simulated (default: by size)")
    ap.add_argument("--data-seed", type=int, default=2024, help="seed of the data panel and its subjects")
    ap.add_argument("--seed", type=int, default=7, help="seed of the estimation's simulations and subjects")
    ap.add_argument("--algorithm", default="pounders", help="an optimagic least-squares algorithm (default pounders)")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (default: all)")
    args = ap.parse_args(argv)

    size = SIZES[args.size]
    options, subjects = size["options"], args.subjects or size["subjects"]
    t0 = time.perf_counter()
    model = lcmgen.load(MODEL, options=options)
    solver = model.solver(backend=args.backend, threads=args.threads)
    compile_seconds = time.perf_counter() - t0
    base = lcmgen.read_params(PARAMS)
    space = model.param_space(["discount_factor_by_type", "health_consumption_penalty"], base=base)
    print(f"Mahler & Yum, size {args.size} ({', '.join(f'{k}={v}' for k, v in options.items())}), "
          f"{subjects} subjects, backend {solver.backend}; model generated and solver "
          f"{'compiled' if solver.compiled else 'taken from the cache'} in {compile_seconds:.1f} s")

    # the data: simulated at the truth from subjects and a seed of their own
    data_initial = model.initial(initial_conditions(subjects, options, seed=args.data_seed))
    data = Estimation(solver, space, data_initial, args.data_seed, options["effort_points"]).moments(TRUTH)
    estimation = Estimation(solver, space, model.initial(initial_conditions(subjects, options, seed=args.seed)),
                            args.seed, options["effort_points"])
    estimation.set_data(data)

    @om.mark.least_squares
    def criterion(params):
        return estimation.residuals(params)

    t = time.perf_counter()
    res = om.minimize(criterion, params=START, algorithm=args.algorithm, bounds=om.Bounds(lower=LOWER, upper=UPPER),
                      algo_options=POUNDERS_OPTIONS if args.algorithm == "pounders" else None)
    seconds = time.perf_counter() - t
    n, solve_seconds, simulate_seconds = estimation.evaluations, estimation.solve_seconds, estimation.simulate_seconds
    estimate = res.params
    # the criterion at the estimate and at the truth, evaluated here (POUNDERS'
    # res.fun is that of its last evaluation, which need not be the estimate)
    at_estimate, at_truth = (float(np.sum(estimation.residuals(x) ** 2)) for x in (estimate, TRUTH))

    table = pd.DataFrame({"true": TRUTH, "start": START, "estimate": estimate, "error": estimate - TRUTH,
                          "tolerance": TOLERANCE})
    with pd.option_context("display.float_format", "{:.5f}".format):
        print(table.to_string())
    print(f"{n} evaluations in {seconds:.1f} s: {seconds / n:.3f} s per evaluation (solve "
          f"{solve_seconds / n:.3f} s, simulate {simulate_seconds / n:.3f} s); "
          f"criterion {at_estimate:.4g} at the estimate, {at_truth:.4g} at the truth ({len(data)} moments)")
    ok = bool((table["error"].abs() <= TOLERANCE).all())
    if ok:
        print("recovered: every estimate within its tolerance of the truth")
        return 0
    print("NOT recovered: " + ", ".join(f"{k} off by {table.loc[k, 'error']:+.5f} (tolerance {TOLERANCE[k]})"
                                       for k in TOLERANCE.index if abs(table.loc[k, "error"]) > TOLERANCE[k]))
    return 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except lcmgen.LcmError as e:      # a bad --backend, no GPU, a failed check: lcm's one-line message
        print(f"estimate.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
