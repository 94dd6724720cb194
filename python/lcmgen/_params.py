"""Parameters from Python: nested dicts, labelled pandas Series and flat
vectors for optimizers.

lcm's parameters form a tree, as in a params file: a name at the top, or
per regime (``{"working": {"wage": 20}}``) or per function.  The binding
takes plain trees (dicts of str, lists, floats); :func:`to_tree` makes one
of what Python users hold.  :class:`ParamSpace` maps a few named
parameters to a flat float64 vector and back, over a fully resolved
parameter buffer, so an optimizer's loop solves without building a tree.
"""
import numbers

import numpy as np

from ._errors import ParamsError


def to_tree(params, path=""):
    """A plain tree (dict, list, float) of a dict, Series, array or number."""
    if _is_series(params):
        return _series_tree(params)
    if isinstance(params, dict):
        out = {}
        for key, value in params.items():
            if not isinstance(key, str):
                where = f"parameter '{path}'" if path else "params"
                raise ParamsError(f"{where}: key {key!r} is not a string")
            out[key] = to_tree(value, f"{path}.{key}" if path else key)
        return out
    if isinstance(params, np.ndarray):
        return to_tree(params.tolist(), path)
    if isinstance(params, (list, tuple)):
        return [to_tree(v, f"{path}[{i + 1}]") for i, v in enumerate(params)]
    if isinstance(params, (bool, np.bool_)) or not isinstance(params, numbers.Real):
        where = f"parameter '{path}'" if path else "params"
        raise ParamsError(f"{where}: {type(params).__name__} {params!r} is not a number, list or dict")
    return float(params)


def _is_series(x):
    return type(x).__name__ == "Series" and hasattr(x, "index") and hasattr(x, "items")


def _series_tree(series):
    """A Series labelled by paths ("wage", "working.wage") or a MultiIndex."""
    tree = {}
    for label, value in series.items():
        keys = _label_keys(label)
        path = ".".join(keys)
        node = tree
        for k in keys[:-1]:
            node = node.setdefault(k, {})
            if not isinstance(node, dict):
                raise ParamsError(f"parameter '{path}': '{k}' is a value and a table")
        if keys[-1] in node:
            what = "a table" if isinstance(node[keys[-1]], dict) else "given twice"
            raise ParamsError(f"parameter '{path}': {what} in the Series")
        node[keys[-1]] = to_tree(value, path)
    return tree


def _label_keys(label):
    """The path of a Series label: "a.b.c", or a MultiIndex tuple whose empty levels (shorter paths) are left out."""
    if not isinstance(label, tuple):
        return str(label).split(".")
    keys = []
    for k in label:
        if k is None or k == "" or (isinstance(k, float) and k != k):
            continue
        if not isinstance(k, str):
            raise ParamsError(f"parameter {label!r}: level {k!r} is not a name; array parameters go in whole, as a "
                              "list or array, not element by element")
        keys.append(k)
    return keys


class Resolved(np.ndarray):
    """The model's whole parameter buffer (what the kernels read), made by
    :meth:`ParamSpace.from_vector` or :meth:`Model.resolve`: solving it
    builds no tree.  It knows its model (``model``; copies and views keep
    it, a pickle does not): another model's solver refuses it, since its
    numbers would land in other parameters' places."""

    @classmethod
    def of(cls, model, values):
        out = np.asarray(values, dtype=np.float64).view(cls)
        out.model = model
        return out

    def __array_finalize__(self, obj):
        self.model = getattr(obj, "model", None)


class ParamSpace:
    """A flat vector of some parameters of a model, the rest fixed at `base`.

    ``names`` are parameter paths as in a params file: ``"name"`` (every
    function that reads it), ``"regime.name"`` or ``"regime.function.name"``.
    An array parameter takes as many entries as it has numbers (row-major).
    """

    def __init__(self, model, names, base):
        if isinstance(names, str):
            names = [names]
        self.model = model
        self.names = list(names)
        self._base = model.resolve(base)
        slots = model._slots()
        self._groups = []
        labels, covered = [], set()
        for name in self.names:
            parts = name.split(".") if isinstance(name, str) else None
            if not parts or len(parts) > 3 or not all(parts):
                raise ParamsError(f"param_space: {name!r} is not a parameter path (name, regime.name or "
                                  "regime.function.name)")
            hit = [s for s in slots if s.name == parts[-1]
                   and (len(parts) < 2 or s.regime == parts[0]) and (len(parts) < 3 or s.func == parts[1])]
            if not hit:
                known = sorted({s.name for s in slots if not s.fixed})
                raise ParamsError(f"param_space: the model has no parameter '{name}' (its parameters: "
                                  f"{', '.join(known)})")
            fixed = [s for s in hit if s.fixed]
            if fixed:
                raise ParamsError(f"param_space: '{name}' is fixed in the model (fixed_params or --fix): its value "
                                  "is a constant of the kernels")
            sizes = {s.size for s in hit}
            if len(sizes) != 1:
                raise ParamsError(f"param_space: '{name}' has different sizes where it is read; name it per "
                                  "regime or function")
            size = sizes.pop()
            offsets = [s.offset for s in hit]
            values = [self._base[o:o + size] for o in offsets]
            if any(not np.array_equal(values[0], v, equal_nan=True) for v in values[1:]):
                raise ParamsError(f"param_space: '{name}' has different values in the base where it is read; name "
                                  "it per regime or function (regime.name, regime.function.name)")
            if covered & set(offsets):
                raise ParamsError(f"param_space: '{name}' names a parameter an earlier name already covers")
            covered |= set(offsets)
            self._groups.append((offsets, size))
            labels += [name] if size == 1 else [f"{name}[{i}]" for i in range(size)]
        self.labels = labels
        self.size = len(labels)

    def to_vector(self, params=None):
        """The vector's values in `params` (a tree; default: the base)."""
        buf = self._base if params is None else self.model.resolve(params)
        return np.concatenate([buf[offsets[0]:offsets[0] + size] for offsets, size in self._groups]) \
            if self._groups else np.zeros(0)

    def from_vector(self, x):
        """The base buffer with the vector's values in place (a :class:`Resolved`)."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (self.size,):
            raise ParamsError(f"param_space: a vector of shape {x.shape}; this space has {self.size} entries "
                              f"({', '.join(self.labels)})")
        bad = [self.labels[i] for i in np.flatnonzero(~np.isfinite(x))]
        if bad:
            raise ParamsError(f"param_space: {', '.join(bad)} is not a finite number ({x[~np.isfinite(x)][0]})")
        buf = self._base.copy().view(Resolved)
        at = 0
        for offsets, size in self._groups:
            for off in offsets:
                buf[off:off + size] = x[at:at + size]
            at += size
        return buf

    def to_series(self, x=None):
        """A pandas Series of the vector, labelled by parameter (optimagic's params)."""
        import pandas as pd
        return pd.Series(self.to_vector() if x is None else np.asarray(x, dtype=np.float64), index=self.labels,
                         name="value")

    def __repr__(self):
        return f"ParamSpace({self.model.name!r}, {self.names!r}, size={self.size})"
