"""Panels: simulated subjects, one row per subject and period, columnar."""
import os
import tempfile

import numpy as np

from ._errors import LcmIOError, UsageError


def _output_path(path, what):
    """An output file's name as text; one with a NUL character is refused (UsageError)."""
    path = os.fspath(path)
    if "\0" in path:
        raise UsageError(f"{what} file name {path!r}: holds a NUL character")
    return path


def output_kind(path, what, other=""):
    """'csv' or 'h5' by a file name's extension (.csv, .h5, .hdf5), else UsageError."""
    path = _output_path(path, what)
    ext = os.path.splitext(path)[1].lower()
    if ext in (".csv", ".h5", ".hdf5"):
        return "csv" if ext == ".csv" else "h5"
    raise UsageError(f"{what} file '{path}': name it .csv, .h5 or .hdf5{'; ' + other if other else ''}")


def _umask():
    """The process's umask, read without changing it (os.umask would, for a
    moment, in every thread); 0o022 where /proc does not say."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


# columns the panel keeps as integers (copied out as doubles by the library)
_INTEGER_COLUMNS = {"subject_id": np.int64, "period": np.int64}


def _arrow_floats(pa, col):
    """A float64 Arrow array over the column's own memory (no copy), null where it is NaN (a row's
    regime without the variable): the validity bitmap is the one new buffer."""
    missing = np.isnan(col)
    nulls = int(missing.sum())
    validity = pa.py_buffer(np.packbits(~missing, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(pa.float64(), len(col), [validity, pa.py_buffer(col)], null_count=nulls)


class Panel:
    """A simulated panel.  ``column(name)`` is a read-only view into the
    panel's memory (value, states, actions, targets), which keeps the panel
    alive; ``to_pandas()``, ``to_arrow()`` and the Arrow PyCapsule stream
    give tables with categorical columns labelled as in the model."""

    def __init__(self, core, model):
        self._core = core
        self.model = model

    @property
    def rows(self):
        return self._core.rows

    def __len__(self):
        return self.rows

    @property
    def seconds(self):
        return self._core.seconds

    @property
    def columns(self):
        """The column names, in the order of the CSV `lcm simulate` writes."""
        self._check()
        return list(self._core.columns())

    def _check(self):
        if self._core.empty:
            raise UsageError("the panel holds nothing: the simulation into it (out=) failed")

    def column(self, name):
        """A column as a float64 array: codes for discrete variables, NaN
        where a row's regime lacks the variable.  A view (no copy) for value,
        states, actions and targets; subject_id, period, age and regime are
        copied out of the panel's integer columns."""
        self._check()
        view = self._core.view(name)
        return view if view is not None else self._core.column(name)

    def labels(self, name):
        """The labels of a categorical column's codes (regime, discrete variables), or None."""
        self._check()
        return self._core.labels(name)

    def to_pandas(self, categorical=True):
        """A DataFrame; categorical columns (regime, discrete variables) as
        pandas Categoricals with the model's labels (codes if categorical=False)."""
        import pandas as pd
        data = {}
        for name in self.columns:
            col = self.column(name)
            labels = self.labels(name) if categorical else None
            if labels is not None:
                codes = np.where(np.isnan(col), -1, col).astype(np.int64)
                data[name] = pd.Categorical.from_codes(codes, categories=labels)
            elif name in _INTEGER_COLUMNS:
                data[name] = col.astype(_INTEGER_COLUMNS[name])
            else:
                data[name] = np.array(col)
        return pd.DataFrame(data)

    def to_arrow(self):
        """A pyarrow Table (categorical columns as dictionary arrays)."""
        import pyarrow as pa
        arrays = {}
        for name in self.columns:
            col = self.column(name)
            labels = self.labels(name)
            if labels is not None:
                mask = np.isnan(col)
                codes = pa.array(np.where(mask, 0, col).astype(np.int32), mask=mask)
                arrays[name] = pa.DictionaryArray.from_arrays(codes, pa.array(labels, pa.string()))
            elif name in _INTEGER_COLUMNS:
                arrays[name] = pa.array(col.astype(_INTEGER_COLUMNS[name]))
            else:
                arrays[name] = _arrow_floats(pa, col)
        return pa.table(arrays)

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule stream (polars, duckdb, pyarrow read it)."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def to_parquet(self, path):
        """Writes the panel as Parquet: into a temporary file beside `path`,
        renamed onto it when whole, so that a failed write leaves an earlier
        file as it was (as save does)."""
        import pyarrow.parquet as pq
        self._check()
        path = _output_path(path, "panel")
        if os.path.isdir(path):
            raise LcmIOError(f"cannot write '{path}': it is a folder")
        table = self.to_arrow()
        folder = os.path.dirname(os.path.abspath(path))
        try:
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + "-", suffix=".tmp", dir=folder)
        except OSError as e:
            raise LcmIOError(f"cannot write '{path}': {e.strerror}") from None
        try:
            os.fchmod(fd, 0o666 & ~_umask())  # a new file's mode, as open() would give it (mkstemp's is 0600)
            with os.fdopen(fd, "wb") as f:
                pq.write_table(table, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as e:
            os.unlink(tmp)
            raise LcmIOError(f"cannot write '{path}': {e.strerror or e}") from None
        except BaseException:
            os.unlink(tmp)
            raise

    def save(self, path):
        """Writes the panel as `lcm simulate -o` does: .h5 / .hdf5 or .csv."""
        self._check()
        writer = output_kind(path, "panel", "to_parquet(path) writes Parquet")
        (self._core.write_csv if writer == "csv" else self._core.write_h5)(os.fspath(path))

    def __repr__(self):
        if self._core.empty:
            return "<lcmgen.Panel: empty>"
        return f"<lcmgen.Panel of {self.model.name!r}: {self.rows} rows, {len(self.columns)} columns>"
