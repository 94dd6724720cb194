"""Solvers and solutions: backward induction and V without copies."""
import os

import numpy as np

from . import _core
from ._errors import UsageError
from ._model import Model
from ._panel import Panel, output_kind
from ._params import Resolved, to_tree


class Solver:
    """A model's compiled kernels on one backend: solve, then simulate, as
    often as an estimation needs, recompiling nothing.  A solver serves one
    thread at a time (a second thread's call raises UsageError); threads
    that solve at once each take a solver of their own (docs/python.md)."""

    def __init__(self, core, model):
        self._core = core
        self.model = model

    backend = property(lambda self: self._core.backend, doc="cpu, cuda or interp")
    precision = property(lambda self: self._core.precision, doc="64 or 32")
    compiled = property(lambda self: self._core.compiled,
                        doc="True when making the solver compiled the kernels, False when they came from the cache")
    compile_seconds = property(lambda self: self._core.compile_seconds)
    closed = property(lambda self: self._core.closed)

    def solve(self, params):
        """Solves the model by backward induction: params is a nested dict
        (as a params file), a pandas Series labelled by parameter paths, or
        a vector from ParamSpace.from_vector / Model.resolve."""
        if isinstance(params, Resolved):
            if params.model is not None and not self.model.same_as(params.model):
                raise UsageError(f"solve: a parameter vector of model '{params.model.name}' ({params.model.path}), "
                                 f"not of this solver's model '{self.model.name}' ({self.model.path}); resolve it "
                                 "with this model (Model.resolve, Model.param_space)")
            core = self._core.solve_resolved(np.ascontiguousarray(params, dtype=np.float64))
        elif isinstance(params, np.ndarray):
            raise UsageError("solve: a bare numpy array; make parameter vectors with Model.param_space(names, "
                             "base).from_vector(x), which knows where each number goes")
        else:
            core = self._core.solve_tree(to_tree(params))
        return Solution(core, self.model)

    def simulate(self, solution, initial, *, seed=0, targets=None, batch_size=0, out=None):
        """Simulates subjects forward from `initial` (a DataFrame, a dict of
        columns, a file, or Model.initial(...)) with the solution's policy.
        targets: extra columns ("utility,consumption", a list, or "all").
        out: a Panel of an earlier simulation, whose memory the new one
        takes (no fresh pages each time); it is returned, refilled."""
        if not isinstance(solution, Solution):
            raise UsageError(f"simulate: solution is a {type(solution).__name__}, not an lcmgen Solution")
        ic = self.model.initial(initial)
        if out is not None and not isinstance(out, Panel):
            raise UsageError(f"simulate: out is a {type(out).__name__}, not an lcmgen Panel")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 64:
            raise UsageError(f"simulate: seed must be an integer from 0 to 2**64-1, not {seed!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or \
                not 0 <= batch_size < 2 ** 63:
            raise UsageError(f"simulate: batch_size must be a positive number of subjects, or 0 for all, not "
                             f"{batch_size!r}")
        if isinstance(targets, (list, tuple)) and all(isinstance(t, str) for t in targets):
            targets = ",".join(t.strip() for t in targets)
        elif isinstance(targets, str):
            targets = ",".join(t.strip() for t in targets.split(","))
        elif not isinstance(targets, (str, type(None))):
            raise UsageError(f"simulate: targets must be a string or a list of names, not {targets!r}")
        core = self._core.simulate(solution._core, ic._core, int(seed), targets or "", int(batch_size),
                                   None if out is None else out._core)
        if out is not None:
            out.model = self.model  # refilled by this solver's model
            return out
        return Panel(core, self.model)

    def euler_errors(self, solution, panel=None, *, cutoff=0.02):
        """The Euler errors of a solution in its regimes with a consumption-saving
        margin (docs/solvers.md, "Euler errors"): log10 |c - c~| / c at the
        points whose savings exceed the borrowing limit by more than `cutoff`,
        on the solution's grid, and along `panel` (a Panel simulated with it,
        which gets the column euler_error) when given.  A DataFrame indexed by
        (where, regime): where "grid" or "panel", regime "all" or a regime's
        name; columns points, constrained, mean, p5, p50, p95."""
        import pandas as pd

        if not isinstance(solution, Solution):
            raise UsageError(f"euler_errors: solution is a {type(solution).__name__}, not an lcmgen Solution")
        if panel is not None and not isinstance(panel, Panel):
            raise UsageError(f"euler_errors: panel is a {type(panel).__name__}, not an lcmgen Panel")
        if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float, np.integer, np.floating)):
            raise UsageError(f"euler_errors: cutoff must be a number of 0 or more, not {cutoff!r}")
        got = self._core.euler(solution._core, None if panel is None else panel._core, float(cutoff))
        rows, index = [], []
        for where in ("grid", "panel"):
            for name, *stats in got.get(where, []):
                index.append((where, name or "all"))
                rows.append(stats)
        return pd.DataFrame(rows, columns=["points", "constrained", "mean", "p5", "p50", "p95"],
                            index=pd.MultiIndex.from_tuples(index, names=["where", "regime"]))

    def close(self):
        """Frees the compiled kernels now (also done when the solver is collected)."""
        self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else f"{self.backend}, float{self.precision}"
        return f"<lcmgen.Solver of {self.model.name!r}: {state}>"


class Solution:
    """V of every regime and period; arrays are views into the solution's
    memory (read-only) that keep it alive."""

    def __init__(self, core, model):
        self._core = core
        self.model = model

    @property
    def precision(self):
        return self._core.precision

    @property
    def seconds(self):
        return self._core.seconds

    @property
    def params(self):
        """The parameter buffer it was solved with (Model.resolve's layout): solve() takes it again."""
        return Resolved.of(self.model, self._core.params())

    def V(self, period, regime):
        """V of a regime at a period, shaped by the regime's states (Model.states),
        or None where the regime is not active then.  No copy."""
        r, t = self.model.regime_index(regime), self._period(period)
        shape = [s.points for s in self.model.states(r)]
        return self._core.V(t, r, shape)

    def axes(self, period, regime):
        """The coordinates of V's axes: {state: labels or grid points at that period}, or None
        where the regime is not active then."""
        r, t = self.model.regime_index(regime), self._period(period)
        if self._core.V(t, r, [s.points for s in self.model.states(r)]) is None:
            return None  # as V: the regime is not active then
        return {s.name: (s.labels if s.labels is not None else self._core.points(t, r, k, s.points))
                for k, s in enumerate(self.model.states(r))}

    def _period(self, period):
        if isinstance(period, bool) or not isinstance(period, (int, np.integer)) or \
                not 0 <= period < self.model.periods:
            raise UsageError(f"period {period!r}: not an integer from 0 to {self.model.periods - 1}")
        return int(period)

    def to_xarray(self):
        """An xarray Dataset: one variable per regime, dims (period, states...),
        NaN where the regime is not active; a continuous state's coordinate
        is its grid where it is the same in every period, else its index with
        the points of each period as the coordinate <state>_points.  A state
        whose points differ from another regime's state of the same name is
        the dimension <regime>.<state>."""
        import xarray as xr
        data, seen = {}, {}
        for r, name in enumerate(self.model.regimes):
            states = self.model.states(r)
            shape = [s.points for s in states]
            V = np.full([self.model.periods] + shape, np.nan)
            active = False
            for t in range(self.model.periods):
                v = self._core.V(t, r, shape)
                if v is not None:
                    V[t], active = v, True
            if not active:
                continue
            coords = {"period": np.arange(self.model.periods), "age": ("period", self.model.ages)}
            dims = ["period"]
            for k, s in enumerate(states):
                if s.labels is not None:
                    axis = np.array(s.labels, dtype=object)
                else:
                    rows = np.array([self._core.points(t, r, k, s.points) for t in range(self.model.periods)])
                    by_age = not (rows == rows[0]).all()
                    axis = np.arange(s.points) if by_age else rows[0]
                # a state of another regime by the same name but other points gets a dimension of its own
                dim = s.name if s.name not in seen or np.array_equal(seen[s.name], axis) else f"{name}.{s.name}"
                seen.setdefault(dim, axis)
                coords[dim] = axis
                if s.labels is None and by_age:  # the points of each period, beside the index
                    coords[f"{dim}_points"] = (("period", dim), rows)
                dims.append(dim)
            data[name] = xr.DataArray(V, dims=dims, coords=coords)
        return xr.Dataset(data, attrs={"model": self.model.name})

    def save(self, path):
        """Writes the solution: .h5 / .hdf5 in the layout `lcm solve -o` writes
        (and load_solution reads), .csv in long form."""
        writer = output_kind(path, "solution")
        (self._core.write_csv if writer == "csv" else self._core.write_h5)(os.fspath(path))

    def __repr__(self):
        return f"<lcmgen.Solution of {self.model.name!r}: float{self.precision}, solved in {self.seconds:.3g} s>"


def load_solution(model, path):
    """Reads a solution written by Solution.save or `lcm solve` for `model`
    (the same generated model)."""
    if not isinstance(model, Model):
        raise UsageError(f"load_solution: model is a {type(model).__name__}, not an lcmgen Model")
    return Solution(_core.solution_read(model._core, os.fspath(path)), model)
