"""Models: lcmgen.load opens a .lua model (generated in this process, as
``lcm`` does) or a directory written by ``lcmgen -o``."""
import hashlib
import html
import os
import warnings
from collections import namedtuple

import numpy as np

from . import _core
from ._errors import InputError, LcmIOError, UsageError
from ._params import ParamSpace, Resolved, to_tree

State = namedtuple("State", "name points labels")
State.__doc__ = "A state of a regime, an axis of its V: labels for a discrete state, else None."
Slot = namedtuple("Slot", "regime func name offset size fixed")


def load(path, *, options=None, fix=None, trusted=False):
    """Opens a model: ``MODEL.lua`` (generated now; the compiled solver
    comes from the cache when the generated code is unchanged) or a
    directory made by ``lcmgen MODEL.lua -o DIR``.

    options: structural options, ``{"name": value}`` (``lcm -D name=value``).
    fix: parameters fixed into the kernels, ``{"path": number}`` (``--fix``).
    trusted: give the model file the whole Lua library (``--trust-model``).
    """
    path = _no_nul(os.fspath(path), "load")
    is_dir = os.path.isdir(path)
    if is_dir and (options or fix):
        raise UsageError(f"options and fix apply when the model is a .lua file; '{path}' was generated already "
                         "(run lcmgen with -D / --fix instead)")
    if not is_dir and not path.endswith(".lua"):
        if not os.path.exists(path):
            raise LcmIOError(f"model '{path}' does not exist")
        raise UsageError(f"model '{path}' is neither a .lua file nor a directory made by lcmgen")
    defines = [(str(k), _option_text(v)) for k, v in (options or {}).items()]
    for k, v in (fix or {}).items():
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise UsageError(f"fix: '{k}' = {v!r} is not a number")
    fixes = [(str(k), repr(float(v))) for k, v in (fix or {}).items()]
    core = _core.open_model(path, is_dir, defines, fixes, bool(trusted))
    for w in core.warnings:
        warnings.warn(w, stacklevel=2)
    return Model(core, path)


def _option_text(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


class Model:
    """A generated model: its regimes, ages, states and parameters."""

    def __init__(self, core, path):
        self._core = core
        self.path = path
        self.name = core.name
        self.ages = np.array(core.ages)
        self.regimes = list(core.regimes)
        # a model's variables never change: read once, not at every V(), axes() or initial()
        self._states = [tuple(State(*v) for v in core.states(r)) for r in range(len(self.regimes))]
        self._actions = [tuple(State(*v) for v in core.actions(r)) for r in range(len(self.regimes))]
        self._labels = {}  # a discrete state's labels by name, from the first regime that has it
        for v in (v for vs in self._states for v in vs if v.labels is not None):
            self._labels.setdefault(v.name, v.labels)

    @property
    def periods(self):
        return len(self.ages)

    def same_as(self, other):
        """Whether `other` is this model: the same object, or one generated
        to the same kernels (lcm's test, a digest of kernels.c: another
        version, other grids or options make another model)."""
        return other is self or isinstance(other, Model) and other._identity() == self._identity()

    def _identity(self):
        if getattr(self, "_digest", None) is None:
            self._digest = hashlib.sha256(self._core.source.encode()).hexdigest()
        return self._digest

    def regime_index(self, regime):
        """The index of a regime given by name or index."""
        if isinstance(regime, str):
            try:
                return self.regimes.index(regime)
            except ValueError:
                raise UsageError(f"model '{self.name}' has no regime '{regime}' (its regimes: "
                                 f"{', '.join(self.regimes)})") from None
        if isinstance(regime, (int, np.integer)) and not isinstance(regime, (bool, np.bool_)) \
                and 0 <= regime < len(self.regimes):
            return int(regime)
        raise UsageError(f"regime {regime!r}: not a regime name or an index below {len(self.regimes)}")

    def states(self, regime):
        """The states of a regime, V's axes in order (a list of State)."""
        return list(self._states[self.regime_index(regime)])

    def actions(self, regime):
        """The actions of a regime (a list of State: labels for a discrete one, else None)."""
        return list(self._actions[self.regime_index(regime)])

    def _slots(self):
        return [Slot(*s) for s in self._core.params()]

    def param_names(self):
        """The names of the parameters to give (fixed ones left out), in the model's order."""
        seen = []
        for s in self._slots():
            if not s.fixed and s.name not in seen:
                seen.append(s.name)
        return seen

    def params_template(self):
        """A params dict to fill in: every parameter the model needs, None
        for a number, an array of NaN (its numbers, row-major) for an array."""
        out = {}
        for s in self._slots():
            if not s.fixed and s.name not in out:
                out[s.name] = None if s.size == 1 else np.full(s.size, np.nan)
        return out

    def resolve(self, params):
        """The whole parameter buffer the kernels read, from a params tree."""
        if isinstance(params, Resolved):
            return params
        return Resolved.of(self, self._core.resolve(to_tree(params)))

    def param_space(self, names, base):
        """A flat vector of the parameters `names` (paths), the rest from
        `base` (a params tree): for optimizers (to_vector, from_vector)."""
        return ParamSpace(self, names, base)

    def initial(self, data, *, source="initial conditions"):
        """Initial conditions for simulate: a pandas DataFrame, a dict of
        columns (arrays or lists; labels as strings), or a file (.csv, .h5).
        One subject per row: regime, age and the regime's states."""
        if isinstance(data, Initial):
            return data
        if isinstance(data, (str, os.PathLike)):
            return Initial(self._core.initial_read(_no_nul(os.fspath(data), source)), self)
        if isinstance(data, dict) and any(type(v).__name__ == "Series" for v in data.values()):
            import pandas as pd
            data = pd.DataFrame(data)  # Series meet by their index, as in a DataFrame, not by position
        if type(data).__name__ == "DataFrame":
            if data.columns.duplicated().any():
                raise InputError(f"{source}: column '{data.columns[data.columns.duplicated()][0]}' appears twice")
            columns = {str(c): data[c] for c in data.columns}
        elif isinstance(data, dict):
            columns = data
        else:
            raise InputError(f"{source}: a {type(data).__name__}; give a pandas DataFrame, a dict of columns or a "
                             "file path")
        converted, n = [], None
        labels = self._labels
        for name, values in columns.items():
            num, text = _column_cells(name, values, source)
            _check_codes(name, num, text, labels.get(str(name)), source)
            length = len(num) if num is not None else len(text)
            if n is not None and length != n:
                raise InputError(f"{source}: column '{name}' has {length} values but the first has {n}; each holds "
                                 "one value per subject")
            n = length
            converted.append((str(name), num, text))
        return Initial(self._core.initial_from_columns(source, converted, n or 0), self)

    def solver(self, *, backend="auto", precision=64, threads=0, device=0, devices=0, cache_dir=None,
               log_level=None, cache_required=False, progress=None, checks="raise"):
        """A solver for this model: compiles the kernels, or takes them from
        the cache (~/.cache/lcm or $LCM_CACHE_DIR, shared with the lcm
        command).  One thread uses a solver at a time.  log_level sets the
        process's level (off, warning, info, progress, debug): what is
        printed, nothing more.  checks: what a failed numerical check (a NaN
        V, bad probabilities) does in this solver's solves and simulations,
        at any level: "raise" (default) an LcmError, "warn" a warning and
        the run completes, "off" no checks.  progress:
        True for a bar, or a callable told of every step, which cancels by
        returning False (lcmgen._progress)."""
        from ._progress import make_callback
        from ._solver import Solver
        # device and devices: the lcm command's ranges (runtime/cli/cli.c, devices 0 the default);
        # precision and threads: a C int here, their values the library's to check
        c_int = (-2 ** 31, 2 ** 31 - 1)
        for name, value, lo, hi in (("precision", precision, *c_int), ("threads", threads, *c_int),
                                    ("device", device, 0, 1023), ("devices", devices, 0, 4096)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise UsageError(f"solver: {name} must be an integer, not {value!r}")
            if not lo <= value <= hi:
                raise UsageError(f"solver: {name} must be from {lo} to {hi}, not {value}")
        if checks not in ("raise", "warn", "off"):
            raise UsageError(f"solver: checks must be 'raise', 'warn' or 'off', not {checks!r}")
        if log_level is not None:
            _core.set_log_level(str(log_level))
        core = _core.solver_new(self._core, str(backend), int(precision), int(threads), int(device), int(devices),
                                os.fspath(cache_dir) if cache_dir else "", bool(cache_required),
                                make_callback(progress), checks)
        return Solver(core, self)

    def __repr__(self):
        return (f"<lcmgen.Model {self.name!r}: {len(self.regimes)} regimes ({', '.join(self.regimes)}), "
                f"{self.periods} periods (ages {self.ages[0]:g}-{self.ages[-1]:g})>")

    def _repr_html_(self):
        rows = []
        for r, name in enumerate(self.regimes):
            states = ", ".join(f"{s.name} ({s.points})" for s in self.states(r)) or "none"
            rows.append(f"<tr><td>{html.escape(name)}</td><td>{html.escape(states)}</td>"
                        f"<td>{self._core.state_count(r)}</td></tr>")
        return (f"<b>lcmgen model {html.escape(self.name)}</b>: {self.periods} periods, ages "
                f"{self.ages[0]:g}-{self.ages[-1]:g}<table><tr><th>regime</th><th>states (points)</th>"
                f"<th>state space</th></tr>{''.join(rows)}</table>")


def _column_cells(name, values, source):
    """(float64 array or None, list of str/None or None): numbers, or labels where a cell is text."""
    if type(values).__name__ == "Series":
        values = values.astype(object).where(values.notna(), None).tolist() if values.dtype.kind not in "iuf" \
            else values.to_numpy(dtype=np.float64)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        if values.ndim != 1:
            raise InputError(f"{source}: column '{name}' is not one-dimensional")
        return np.ascontiguousarray(values, dtype=np.float64), None
    try:
        cells = list(values)
    except TypeError:
        raise InputError(f"{source}: column '{name}' is a {type(values).__name__}, not a column of values") from None
    num = np.full(len(cells), np.nan)
    text = [None] * len(cells)
    any_text = False
    for i, c in enumerate(cells):
        if c is None:
            continue
        if isinstance(c, str):
            text[i], any_text = c, True
        elif isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, (bool, np.bool_)):
            num[i] = float(c)
        else:
            raise InputError(f"{source}: column '{name}', subject {i}: {c!r} is neither a number nor a label")
    return num, (text if any_text else None)


def _check_codes(name, num, text, labels, source):
    """A discrete state given by numbers takes them as codes; where its labels are numbers too, but
    not its codes (labels "1", "2", "3"), a column that pandas read as numbers is ambiguous: refused."""
    if labels is None or num is None or text is not None:
        return
    try:
        as_numbers = [float(label) for label in labels]
    except ValueError:
        return
    if as_numbers != list(range(len(labels))) and np.isfinite(num).any():
        raise InputError(f"{source}: column '{name}' holds numbers, and the labels of state '{name}' are numbers "
                         f"too ({', '.join(labels)}), which are not its codes 0 to {len(labels) - 1}: give the "
                         f"labels as text (df['{name}'].astype(str)) or the codes as numbers from 0")


def _no_nul(text, source):
    if "\0" in text:
        raise InputError(f"{source}: {text!r} holds a NUL character")
    return text


class Initial:
    """Initial conditions checked against a model: reuse one in a loop."""

    def __init__(self, core, model):
        self._core = core
        self.model = model

    @property
    def subjects(self):
        return self._core.subjects

    def __repr__(self):
        return f"<lcmgen.Initial: {self.subjects} subjects of model {self.model.name!r}>"
