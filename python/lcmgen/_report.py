"""A report with pictures: one self-contained HTML page of a solution and,
optionally, a simulated panel (``python -m lcmgen report``, docs/python.md).

    python -m lcmgen report MODEL.lua V.h5 panel.csv -o report.html

The page holds life-cycle profiles of the panel by age (mean and quartiles
of every continuous state, action and target; shares of every discrete one,
by label; by regime where there are several), V by the liquid state at a few
ages for the discrete combinations picked, and the model's summary.  Beside
it: ``<stem>_files/`` (every figure as PNG or SVG, for papers) and
``<stem>.json`` (every plotted series, x and y).  All of it is written into a
temporary folder and moved into place at the end: a failure leaves nothing.

matplotlib draws (``pip install lcmgen[report]``), on Figure objects of its
own (pyplot's global state and the session's backend are left alone).
"""
import argparse
import base64
import html
import io
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile

import numpy as np

from . import _core
from ._errors import InputError, LcmError, LcmIOError, UsageError
from ._model import Model, load
from ._solver import Solution, load_solution

# panel columns that are not variables of the model
_FIXED = ("subject_id", "period", "age", "regime", "value")
# lcm keeps V (and EGM's marginal value) in a solution, not the choices
POLICY_NOTE = "policy: not stored in the solution"
MAX_CURVES = 12
_SAMPLE_ROWS = 20000
_NAN_TEXT = ["nan", "-nan", "NaN"]
_QUARTILES = (0.25, 0.5, 0.75)


# ---- inputs ------------------------------------------------------------------------------------------------------

def _model_discrete(model):
    """{name: labels} of the model's discrete states and actions; {name: kind} of every variable."""
    labels, kinds = {}, {}
    for r in range(len(model.regimes)):
        for s in model.states(r):
            kinds[s.name] = "state"
            if s.labels is not None:
                labels.setdefault(s.name, list(s.labels))
        for a in model.actions(r):
            kinds.setdefault(a.name, "action")
            if a.labels is not None:
                labels.setdefault(a.name, list(a.labels))
    return labels, kinds


def read_panel(model, path, *, discrete=()):
    """A panel written by ``lcm simulate --csv`` (or Panel.save) as a
    DataFrame: discrete columns as labels (str), the others as float."""
    import pandas as pd
    path = os.fspath(path)
    if path.endswith((".h5", ".hdf5")):
        raise UsageError(f"panel '{path}': reading an HDF5 panel is not yet supported by lcmgen; write the panel as "
                         "CSV (lcm simulate ... --csv panel.csv, or Panel.save('panel.csv')) and give that")
    if not os.path.exists(path):
        raise LcmIOError(f"panel '{path}' does not exist")
    if not path.endswith(".csv"):
        raise UsageError(f"panel '{path}': give the CSV that lcm simulate --csv writes (a .csv file)")
    labels, kinds = _model_discrete(model)
    # A first look at some rows, as text: which columns hold labels, and which are targets (a missing
    # cell is empty for a state or an action, "nan" for a target; the columns come in the order
    # states, actions, targets).  Labels stay as written ("NA", "None" are labels too).
    try:
        sample = pd.read_csv(path, nrows=_SAMPLE_ROWS, dtype=str, keep_default_na=False, na_filter=False)
    except Exception as e:  # noqa: BLE001 (pandas raises many kinds)
        raise InputError(f"panel '{path}': not a CSV panel ({e})") from None
    header = list(sample.columns)
    text, first_target, missing = set(), None, set()
    for i, c in enumerate(header):
        cells = sample[c]
        nan_text = cells.isin(_NAN_TEXT)
        if (cells == "").any():
            missing.add(c)
        if c == "regime" or c in labels or c in discrete:
            text.add(c)
            continue
        if c in _FIXED:
            continue
        number = pd.to_numeric(cells.where(~nan_text & (cells != ""), "0"), errors="coerce")
        if number.isna().any():
            text.add(c)
        elif nan_text.any() and first_target is None:
            first_target = i
    na = {c: ([""] if c in text else ["", *_NAN_TEXT]) for c in header}
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=na, dtype={c: str for c in text})
    except Exception as e:  # noqa: BLE001
        raise InputError(f"panel '{path}': cannot read it as a panel CSV ({e})") from None
    df.attrs["lcm_kinds"] = {
        c: kinds.get(c) or ("target" if first_target is not None and i >= first_target else
                            "action" if first_target is not None or c in missing else "action or target")
        for i, c in enumerate(header) if c not in _FIXED}
    return df


def _normalize(model, df, source, discrete=(), panel_labels=None):
    """(DataFrame, {column: (kind, "discrete"|"continuous", labels or None)}): the panel checked against
    the model, discrete columns as str labels (NaN where missing), the others as float64."""
    import pandas as pd
    labels, kinds = _model_discrete(model)
    kinds = dict(df.attrs.get("lcm_kinds", {}), **kinds)
    model_name = model.name
    other = "is it a panel of another model, or of this one with other options?"
    for c in ("age", "regime"):
        if c not in df.columns:
            raise InputError(f"{source}: no column '{c}': not a panel written by lcm simulate")
    for r, regime in enumerate(model.regimes):
        for s in model.states(r):
            if s.name not in df.columns:
                raise InputError(f"{source}: no column '{s.name}', a state of regime '{regime}' of model "
                                 f"'{model_name}': {other}")
    out = {}
    regime = df["regime"]
    if isinstance(regime.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(regime):
        regime = regime.astype(object).where(regime.notna(), None)
        bad = sorted({str(x) for x in regime.dropna().unique()} - set(model.regimes))
        if bad:
            raise InputError(f"{source}: regime '{bad[0]}' is not a regime of model '{model_name}' (its regimes: "
                             f"{', '.join(model.regimes)}): {other}")
        out["regime"] = regime.astype(str)
    else:   # codes
        codes = regime.to_numpy(dtype=np.float64)
        if np.any((codes < 0) | (codes >= len(model.regimes)) | (codes != np.round(codes))):
            raise InputError(f"{source}: column 'regime' holds codes that are not regimes of model '{model_name}'")
        out["regime"] = pd.Series(np.array(model.regimes, dtype=object)[codes.astype(int)], index=df.index)
    ages = pd.to_numeric(df["age"], errors="coerce").to_numpy(dtype=np.float64)
    known = np.isin(ages, model.ages)
    if not known.all():
        bad = ages[~known][0]
        raise InputError(f"{source}: age {bad:g} is not an age of model '{model_name}' (ages {model.ages[0]:g} to "
                         f"{model.ages[-1]:g}): {other}")
    out["age"] = pd.Series(ages, index=df.index)
    meta = {}
    for c in df.columns:
        if c in ("age", "regime"):
            continue
        col = df[c]
        if c in ("subject_id", "period", "value"):
            out[c] = pd.to_numeric(col, errors="coerce")
            continue
        is_cat = isinstance(col.dtype, pd.CategoricalDtype)
        known_labels = labels.get(c)
        if panel_labels is not None and panel_labels.get(c) is not None:
            known_labels = list(panel_labels[c])
        if known_labels is not None or c in discrete or is_cat or not pd.api.types.is_numeric_dtype(col):
            values, order = _as_labels(c, col, known_labels, source)
            if known_labels is not None:
                bad = sorted(set(values.dropna().unique()) - set(known_labels))
                if bad:
                    raise InputError(f"{source}: column '{c}' holds '{bad[0]}', not a label of '{c}' in model "
                                     f"'{model_name}' (its labels: {', '.join(known_labels[:12])}"
                                     f"{', ...' if len(known_labels) > 12 else ''}): {other}")
            out[c] = values
            # a labelled column that is not a state is an action (targets are numbers)
            meta[c] = (kinds.get(c, "action" if panel_labels is not None else "action or target"), "discrete", order)
        else:
            out[c] = col.astype(np.float64)
            meta[c] = (kinds.get(c, "action or target"), "continuous", None)
    return pd.DataFrame(out, index=df.index), meta


def _as_labels(name, col, known, source):
    """A column as str labels (None where missing, object dtype) and the labels' order."""
    import pandas as pd
    order = None
    if isinstance(col.dtype, pd.CategoricalDtype):
        order = [str(x) for x in col.cat.categories]
        values = pd.Series(np.array(order + [None], dtype=object)[col.cat.codes.to_numpy()], index=col.index)
    elif pd.api.types.is_numeric_dtype(col):
        x = col.to_numpy(dtype=np.float64)
        ok = ~np.isnan(x)
        uniq = np.unique(x[ok])
        if known is not None:   # codes (Panel.to_pandas(categorical=False))
            if np.any((uniq < 0) | (uniq >= len(known)) | (uniq != np.round(uniq))):
                raise InputError(f"{source}: column '{name}' holds numbers that are not codes of its labels "
                                 f"({', '.join(known[:12])})")
            names = {v: known[int(v)] for v in uniq}
        else:
            names = {v: (f"{v:.0f}" if v == round(v) else repr(float(v))) for v in uniq}
        values = pd.Series(x, index=col.index).map(names).astype(object)
        values = values.where(pd.Series(ok, index=col.index), None)
    else:
        values = col.astype(object).where(col.notna(), None)
        if not all(isinstance(v, str) for v in values.dropna().unique()):
            values = values.map(lambda v: None if v is None else str(v))
    if known is not None:
        order = list(known)
    if order is None:
        seen = list(dict.fromkeys(values.dropna()))
        try:
            order = sorted(seen, key=float)
        except ValueError:
            order = seen
    return values.astype(object), order


# ---- the numbers ---------------------------------------------------------------------------------------------------

def _floats(a):
    return [None if (v is None or not math.isfinite(v)) else float(v) for v in np.asarray(a, dtype=np.float64)]


def _profiles(df, names, regimes):
    """{column: series}: per regime that has the column (and pooled, where several have it), by age: the
    mean and the quartiles of the rows where it is defined."""
    out = {n: [] for n in names}
    if not names:
        return out
    stats = {}
    for regime in list(regimes) + ["all"]:
        part = df if regime == "all" else df[df["regime"] == regime]
        if not len(part):
            continue
        g = part.groupby("age", sort=True)[list(names)]
        stats[regime] = (g.count(), g.mean(), g.quantile(list(_QUARTILES)))
    for n in names:
        have = [r for r in regimes if r in stats and stats[r][0][n].sum() > 0]
        for regime in have + (["all"] if len(have) > 1 else []):
            count, mean, q = stats[regime]
            ages = count.index[count[n].to_numpy() > 0]
            x = _floats(ages)
            out[n].append({"regime": regime, "stat": "mean", "x": x, "y": _floats(mean.loc[ages, n].to_numpy())})
            for p in _QUARTILES:
                out[n].append({"regime": regime, "stat": f"q{int(p * 100)}", "x": x,
                               "y": _floats(q.xs(p, level=-1).loc[ages, n].to_numpy())})
    return out


def _share_series(df, name, order, regimes):
    """Per regime that has the column (regimes None: all rows together), by age: each label's share
    of the rows where the column is defined."""
    keys = ["age", name] if regimes is None else ["regime", "age", name]
    counts = df.groupby(keys, sort=True).size()
    series = []
    present = set() if regimes is None else set(counts.index.get_level_values("regime"))
    for regime in ([None] if regimes is None else [r for r in regimes if r in present]):
        part = counts if regime is None else counts.xs(regime, level="regime")
        table = part.unstack(fill_value=0).reindex(columns=order, fill_value=0)
        shares = table.div(table.sum(axis=1), axis=0)
        for label in order:
            series.append({"regime": regime if regime is not None else "all", "label": label,
                           "x": _floats(shares.index), "y": _floats(shares[label].to_numpy()),
                           "count": [int(v) for v in table[label].to_numpy()]})
    return series


# ---- figures -------------------------------------------------------------------------------------------------------

def _new_figure(width=5.6, height=3.6, ncols=1):
    from matplotlib.figure import Figure
    return Figure(figsize=(width * ncols if ncols > 1 else width, height), layout="constrained")


def _colors(n):
    from matplotlib import colormaps
    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    return [colormaps["viridis"](i / max(n - 1, 1)) for i in range(n)]


def _profile_figure(name, kind, series, several):
    fig = _new_figure()
    ax = fig.add_subplot()
    regimes = list(dict.fromkeys(s["regime"] for s in series))
    colors = dict(zip([r for r in regimes if r != "all"], _colors(len(regimes))))
    colors["all"] = "black"
    for regime in regimes:
        by = {s["stat"]: s for s in series if s["regime"] == regime}
        x = np.array(by["mean"]["x"], dtype=float)
        low = np.array([np.nan if v is None else v for v in by["q25"]["y"]], dtype=float)
        high = np.array([np.nan if v is None else v for v in by["q75"]["y"]], dtype=float)
        mean = np.array([np.nan if v is None else v for v in by["mean"]["y"]], dtype=float)
        label = ("all regimes" if regime == "all" else regime) if several else "mean"
        if regime != "all":
            ax.fill_between(x, low, high, color=colors[regime], alpha=0.18, linewidth=0)
        ax.plot(x, mean, marker="." if len(x) < 40 else None, color=colors[regime],
                linestyle="--" if regime == "all" else "-", label=label)
    ax.set(xlabel="age", ylabel=name, title=f"{name} ({kind}): mean, band from 1st to 3rd quartile")
    ax.title.set_fontsize(9)
    if several:
        ax.legend(fontsize=8)
    return fig


def _share_figure(name, kind, series, order):
    regimes = list(dict.fromkeys(s["regime"] for s in series))
    fig = _new_figure(width=4.6 if len(regimes) > 1 else 5.6, ncols=len(regimes))
    axes = fig.subplots(1, len(regimes), squeeze=False)[0]
    colors = _colors(len(order))
    for ax, regime in zip(axes, regimes):
        rows = [s for s in series if s["regime"] == regime]
        x = np.array(rows[0]["x"], dtype=float)
        ys = [np.array([0.0 if v is None else v for v in s["y"]]) for s in rows]
        ax.stackplot(x, ys, colors=colors, labels=[s["label"] for s in rows], linewidth=0)
        ax.set(xlabel="age", ylabel="share", ylim=(0, 1), xlim=(x.min(), x.max()) if len(x) > 1 else None,
               title=f"{name} ({kind})" + (f", {regime}" if regime != "all" else ""))
        ax.title.set_fontsize(9)
    _label_legend(fig, axes[-1], order, colors)
    return fig


def _label_legend(fig, ax, order, colors):
    if len(order) <= 10:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        return
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    sm = ScalarMappable(Normalize(0, len(order) - 1), colormaps["viridis"])
    bar = fig.colorbar(sm, ax=ax, fraction=0.06)
    ticks = sorted({0, (len(order) - 1) // 2, len(order) - 1})
    bar.set_ticks(ticks, labels=[order[t] for t in ticks])


def _v_figure(regime, liquid, panels, combos_legend):
    fig = _new_figure(width=4.2, ncols=len(panels))
    axes = fig.subplots(1, len(panels), squeeze=False, sharey=False)[0]
    colors = _colors(max(len(p["curves"]) for p in panels))
    for ax, p in zip(axes, panels):
        for c, curve in zip(colors, p["curves"]):
            y = np.array([np.nan if v is None else v for v in curve["y"]], dtype=float)
            ax.plot(curve["x"], y, color=c, marker="." if len(y) <= 30 else None, label=curve["label"] or "V")
        ax.set(xlabel=liquid, ylabel="V", title=f"{regime}, age {p['age']:g}")
        ax.title.set_fontsize(9)
    if combos_legend:
        axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def _encode(fig, fmt):
    """The figure's bytes in fmt (png, svg), made reproducible (no dates, fixed ids)."""
    import matplotlib
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "lcmgen-report", "svg.fonttype": "path"}):
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, dpi=100, metadata=meta)
    return buf.getvalue()


# ---- V -------------------------------------------------------------------------------------------------------------

def _parse_picks(picks):
    """{state: [values]} of a dict ({state: value or [values]}) or of strings "state=value"."""
    out = {}
    if picks is None:
        return out
    items = picks.items() if isinstance(picks, dict) else []
    if not isinstance(picks, dict):
        for p in ([picks] if isinstance(picks, str) else picks):
            name, eq, value = str(p).partition("=")
            if not eq or not name.strip() or not value.strip():
                raise UsageError(f"--pick {p!r}: write state=label (a discrete state) or state=number (a continuous "
                                 "one: the nearest grid point)")
            items.append((name.strip(), value.strip()))
    for name, value in items:
        values = value if isinstance(value, (list, tuple)) else [value]
        out.setdefault(str(name), [])
        out[str(name)] += [str(v) for v in values if str(v) not in out[str(name)]]
    return out


def _liquid(states, chosen):
    continuous = [s for s in states if s.labels is None]
    if chosen is not None:
        for s in continuous:
            if s.name == chosen:
                return s
        return None
    if not continuous:
        return None
    # the liquid state: the continuous one with the finest grid (the first of those): wealth, not a shock
    # process's few nodes; --liquid chooses another
    return max(continuous, key=lambda s: (s.points, -continuous.index(s)))


def _select_periods(model, active, ages):
    if ages is None:
        if not active:
            return []
        picked = [active[0], active[len(active) // 2], active[-1]]
        return list(dict.fromkeys(picked))
    out = []
    for a in ages:
        t = int(np.flatnonzero(np.isclose(model.ages, a))[0])
        if t in active and t not in out:
            out.append(t)
    return out


def _value_figures(model, solution, picks, ages, liquid_name):
    """Figure specs of V by the liquid state, per regime, and notes."""
    figures, notes = [], []
    all_states = {s.name: s for r in range(len(model.regimes)) for s in model.states(r)}
    for name, values in picks.items():
        if name not in all_states:
            raise UsageError(f"--pick {name}=...: model '{model.name}' has no state '{name}' (its states: "
                             f"{', '.join(all_states)})")
        s = all_states[name]
        for v in values:
            if s.labels is not None and v not in s.labels:
                raise UsageError(f"--pick {name}={v}: '{v}' is not a label of '{name}' (its labels: "
                                 f"{', '.join(s.labels[:20])}{', ...' if len(s.labels) > 20 else ''})")
            if s.labels is None:
                try:
                    float(v)
                except ValueError:
                    raise UsageError(f"--pick {name}={v}: '{name}' is continuous; give a number (the nearest grid "
                                     "point is taken)") from None
    if liquid_name is not None and not any(s.name == liquid_name and s.labels is None for s in all_states.values()):
        raise UsageError(f"--liquid {liquid_name}: model '{model.name}' has no continuous state '{liquid_name}'")
    if ages is not None:
        for a in ages:
            if not np.isclose(model.ages, a).any():
                raise UsageError(f"--ages: {a:g} is not an age of model '{model.name}' (ages {model.ages[0]:g} to "
                                 f"{model.ages[-1]:g}: {', '.join(f'{x:g}' for x in model.ages[:12])}"
                                 f"{', ...' if model.periods > 12 else ''})")
    for r, regime in enumerate(model.regimes):
        states = model.states(r)
        if not states:
            notes.append(f"V of regime '{regime}': it has no states (V is one number per period)")
            continue
        liquid = _liquid(states, liquid_name)
        if liquid is not None and liquid.name in picks:
            raise UsageError(f"--pick {liquid.name}=...: V of regime '{regime}' is drawn against '{liquid.name}' "
                             "(all its points); pick other states, or --liquid another")
        if liquid is None:
            notes.append(f"V of regime '{regime}': no continuous state"
                         + (f" '{liquid_name}'" if liquid_name else "") + " to plot it against")
            continue
        active = [t for t in range(model.periods) if solution.V(t, r) is not None]
        periods = _select_periods(model, active, ages)
        if not periods:
            notes.append(f"V of regime '{regime}': not active at the ages asked for")
            continue
        # the curves: every combination of the picked values; other discrete states at their first
        # label, other continuous states at their middle grid point (or the one nearest a pick)
        choices = []
        for s in states:
            if s is liquid:
                continue
            if s.labels is not None:
                choices.append([(s, v) for v in picks.get(s.name, [s.labels[0]])])
            else:
                choices.append([(s, v) for v in picks.get(s.name, [None])])
        combos = list(itertools.product(*choices))
        if len(combos) > MAX_CURVES:
            raise UsageError(f"--pick: {len(combos)} combinations of states for regime '{regime}'; at most "
                             f"{MAX_CURVES} curves are drawn, pick fewer")
        varying = {s.name for s in states if len(picks.get(s.name, [])) > 1}
        k_liquid = states.index(liquid)
        panels, fixed_text = [], {}
        for t in periods:
            V = np.asarray(solution.V(t, r))
            axes = solution.axes(t, r)
            curves = []
            for combo in combos:
                index, label, at = [], [], {}
                for k, s in enumerate(states):
                    if k == k_liquid:
                        index.append(slice(None))
                        continue
                    value = dict((c[0].name, c[1]) for c in combo)[s.name]
                    if s.labels is not None:
                        i = s.labels.index(value)
                        text = value
                    else:
                        points = np.asarray(axes[s.name], dtype=np.float64)
                        i = (s.points - 1) // 2 if value is None else int(np.argmin(np.abs(points - float(value))))
                        text = f"{points[i]:.4g}" + (f" (point {i + 1} of {s.points})" if value is None else "")
                    index.append(i)
                    at[s.name] = text
                    if s.name in varying:
                        label.append(f"{s.name}={text}")
                y = V[tuple(index)]
                curves.append({"label": ", ".join(label), "at": at,
                               "x": _floats(axes[liquid.name]), "y": _floats(y)})
                for name, text in at.items():
                    if name not in varying:
                        fixed_text[name] = text
            panels.append({"period": t, "age": float(model.ages[t]), "curves": curves})
        figures.append({"regime": regime, "liquid": liquid.name, "panels": panels, "varying": sorted(varying),
                        "fixed": fixed_text})
    return figures, notes


# ---- the summary ---------------------------------------------------------------------------------------------------

def _summary(model, solution, solver, options, panel_meta, panel_source, df):
    regimes = []
    for r, name in enumerate(model.regimes):
        active = [t for t in range(model.periods) if solution.V(t, r) is not None]
        states = []
        for k, s in enumerate(model.states(r)):
            if s.labels is not None:
                grid = ", ".join(s.labels[:8]) + (f", ... ({s.points} labels)" if s.points > 8 else "")
            else:
                t0 = active[0] if active else 0
                pts = np.asarray(solution.axes(t0, r)[s.name], dtype=np.float64)
                grid = f"{pts.min():.4g} to {pts.max():.4g}"
            states.append({"name": s.name, "points": int(s.points),
                           "kind": "discrete" if s.labels is not None else "continuous", "grid": grid})
        regimes.append({"name": name, "states": states, "state_space": int(np.prod([s["points"] for s in states]))
                        if states else 1,
                        "active_ages": [float(model.ages[t]) for t in active]})
    params = _params_table(model, solution)
    seconds = float(solution.seconds)
    out = {"model": model.name, "path": os.fspath(model.path), "options": dict(options or {}),
           "periods": int(model.periods), "ages": _floats(model.ages), "regimes": regimes, "params": params,
           "precision": int(solution.precision), "solve_seconds": seconds if seconds > 0 else None,
           "backend": None, "compile_seconds": None, "version": _core.version()}
    if solver is not None:
        out["backend"] = solver.backend
        out["compile_seconds"] = float(solver.compile_seconds)
        out["compiled"] = bool(solver.compiled)
    if df is not None:
        out["panel"] = {"source": panel_source, "rows": int(len(df)),
                        "subjects": int(df["subject_id"].nunique()) if "subject_id" in df else None,
                        "columns": [{"name": c, "kind": k, "type": t, "labels": lab}
                                    for c, (k, t, lab) in panel_meta.items()]}
    return out


def _params_table(model, solution):
    """The parameters solved with: one row per name and value (the slots that share both merged)."""
    values = np.asarray(solution.params, dtype=np.float64)
    rows = {}
    for s in model._slots():
        v = values[s.offset:s.offset + s.size]
        key = (s.name, s.fixed, tuple(v.tolist()))
        where = f"{s.regime}.{s.func}"
        if key in rows:
            rows[key]["where"].append(where)
        else:
            rows[key] = {"name": s.name, "fixed": bool(s.fixed), "size": int(s.size), "values": _floats(v),
                         "where": [where]}
    return sorted(rows.values(), key=lambda p: (p["fixed"], p["name"]))


# ---- the page ------------------------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1.5em auto; max-width: 1400px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; } figure img, figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.8em; color: #555; max-width: 60em; }
.note { color: #7a4b00; font-size: 0.9em; }
code { font-size: 0.9em; }
"""


def _esc(x):
    return html.escape(str(x))


def _fmt(v):
    return "" if v is None else f"{v:.6g}"


class _Page:
    def __init__(self, files_dir, files_name, fmt):
        self.files_dir, self.files_name, self.fmt = files_dir, files_name, fmt
        self.parts, self.figures, self.names = [], [], set()

    def add(self, text):
        self.parts.append(text)

    def figure(self, fig, stem, caption, data):
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)
        base, n = stem, 2
        while stem in self.names:
            stem, n = f"{base}_{n}", n + 1
        self.names.add(stem)
        blob = _encode(fig, self.fmt)
        fig.clear()
        name = f"{stem}.{self.fmt}"
        with open(os.path.join(self.files_dir, name), "wb") as f:
            f.write(blob)
        if self.fmt == "svg":
            text = blob.decode("utf-8")
            body = text[text.index("<svg"):]
        else:
            body = (f'<img alt="{_esc(caption)}" src="data:image/png;base64,'
                    f'{base64.b64encode(blob).decode("ascii")}">')
        self.parts.append(f'<figure id="{_esc(stem)}">{body}<figcaption>{_esc(caption)} '
                          f'<code>{_esc(self.files_name)}/{_esc(name)}</code></figcaption></figure>')
        self.figures.append(dict(data, id=stem, file=f"{self.files_name}/{name}", caption=caption))


def _render(page, summary, profiles, shares, regime_shares, values, notes, panel_note, title):
    page.add(f"<h1>{_esc(title)}</h1>")
    s = summary
    page.add(f"<p>Model <b>{_esc(s['model'])}</b> (<code>{_esc(s['path'])}</code>"
             + (", options " + ", ".join(f"<code>{_esc(k)}={_esc(v)}</code>" for k, v in s["options"].items())
                if s["options"] else "")
             + f"): {s['periods']} periods, ages {s['ages'][0]:g} to {s['ages'][-1]:g}; "
             f"solved in float{s['precision']}"
             + (f" on {_esc(s['backend'])}" if s["backend"] else "")
             + (f" in {s['solve_seconds']:.3g} s" if s["solve_seconds"] is not None
                else " (time taken: not recorded in the solution file)")
             + (("; compiling the kernels took " + f"{s['compile_seconds']:.3g} s" if s.get("compiled") else
                 "; the kernels came from the cache") if s["backend"] else "")
             + f". Made by lcmgen {_esc(s['version'])}; the figures are also in <code>{_esc(page.files_name)}/"
               f"</code> ({page.fmt.upper()}), their numbers in the JSON file beside this page.</p>")

    page.add("<h2>Life-cycle profiles</h2>")
    if panel_note:
        page.add(f'<p class="note">{_esc(panel_note)}</p>')
    else:
        p = s["panel"]
        page.add(f"<p>Panel <code>{_esc(p['source'])}</code>: {p['rows']} rows"
                 + (f", {p['subjects']} subjects" if p["subjects"] is not None else "")
                 + ". Means and quartiles by age of the rows where the variable is defined; shares of a discrete "
                   "variable's labels among those rows.</p>")
        page.add('<div class="figs">')
        for item in regime_shares + profiles + shares:
            page.figure(*item)
        page.add("</div>")

    page.add("<h2>V by the liquid state</h2>")
    page.add(f'<p class="note">{_esc(POLICY_NOTE)} (lcm keeps V, not the choices: the panel above shows the '
             "choices made).</p>")
    for n in notes:
        page.add(f'<p class="note">{_esc(n)}</p>')
    page.add('<div class="figs">')
    for item in values:
        page.figure(*item)
    page.add("</div>")

    page.add("<h2>The model</h2><table><tr><th>regime</th><th>active at ages</th><th>states (grid points: "
             "labels or range at the first active age)</th><th>state space</th></tr>")
    for r in s["regimes"]:
        a = r["active_ages"]
        ages = f"{a[0]:g} to {a[-1]:g}" if a else "never"
        states = "<br>".join(f"{_esc(x['name'])} ({x['kind']}, {x['points']}: {_esc(x['grid'])})"
                             for x in r["states"]) or "none"
        page.add(f"<tr><td>{_esc(r['name'])}</td><td>{ages}</td><td>{states}</td><td>{r['state_space']}</td></tr>")
    page.add("</table>")
    if "panel" in s:
        cols = s["panel"]["columns"]
        page.add("<p>Panel columns: " + "; ".join(
            f"{_esc(c['name'])} ({_esc(c['kind'])}, {c['type']})" for c in cols) + ".</p>")
    page.add("<h3>Parameters</h3><table><tr><th>name</th><th>value</th><th>read by (regime.function)</th>"
             "<th></th></tr>")
    for p in s["params"]:
        vals = p["values"]
        shown = ", ".join(_fmt(v) for v in vals[:8]) + (f", ... ({len(vals)} numbers)" if len(vals) > 8 else "")
        where = ", ".join(p["where"][:6]) + (f", ... ({len(p['where'])})" if len(p["where"]) > 6 else "")
        page.add(f"<tr><td>{_esc(p['name'])}</td><td>{_esc(shown)}</td><td>{_esc(where)}</td>"
                 f"<td>{'fixed in the model' if p['fixed'] else ''}</td></tr>")
    page.add("</table>")


def _html(page, title):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(page.parts) + "\n</body></html>\n")


# ---- the whole ---------------------------------------------------------------------------------------------------

def make_report(model, solution, panel=None, out_path="report.html", *, picks=None, ages=None, fmt="png",
                liquid=None, discrete=None, solver=None, title=None, options=None, fix=None):
    """Writes a self-contained HTML report of a solution and, optionally, a panel.

    model: an lcmgen Model, or a model path (opened with ``options`` and ``fix``, as lcmgen.load).
    solution: a Solution, or the path of one (``lcm solve --out``).
    panel: None, an lcmgen Panel, a pandas DataFrame (Panel.to_pandas()) or the path of a CSV panel.
    out_path: the page; beside it ``<stem>_files/`` (every figure as fmt: png or svg) and ``<stem>.json``
        (every plotted series).  Everything is written at the end, or nothing.
    picks: the discrete combinations V is drawn for: {"state": label or [labels]} or ["state=label", ...];
        other discrete states at their first label, other continuous ones at their middle grid point.
    ages: the ages of the V figures (default: each regime's first, middle and last active period).
    liquid: the state V is drawn against (default: the continuous state with the most grid points).
    discrete: panel columns to treat as discrete besides those the model or the panel labels.
    solver: the Solver that solved it (the page then says backend and compile time).
    Returns {"html": path, "json": path, "files": folder}.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("the report needs matplotlib: pip install matplotlib (or lcmgen[report])") from None
    if fmt not in ("png", "svg"):
        raise UsageError(f"format {fmt!r}: png or svg")
    if not isinstance(model, Model):
        model = load(model, options=options, fix=fix)
    if not isinstance(solution, Solution):
        solution = load_solution(model, solution)
    elif not model.same_as(solution.model):
        raise UsageError(f"the solution is of model '{solution.model.name}' ({solution.model.path}), not of "
                         f"'{model.name}' ({model.path}): another model, or the same with other grids or options")
    if solver is not None and not (hasattr(solver, "model") and model.same_as(solver.model)):
        raise UsageError(f"solver: not a Solver of model '{model.name}' ({model.path})")
    discrete = [discrete] if isinstance(discrete, str) else list(discrete or [])
    picks = _parse_picks(picks)
    if ages is not None:
        ages = [float(a) for a in (ages.split(",") if isinstance(ages, str) else ages)]
    out_path = os.path.abspath(os.fspath(out_path))
    folder = os.path.dirname(out_path)
    if not os.path.isdir(folder):
        raise LcmIOError(f"cannot write '{out_path}': the folder '{folder}' does not exist")
    stem = os.path.splitext(os.path.basename(out_path))[0]
    files_name, json_path = f"{stem}_files", os.path.join(folder, f"{stem}.json")
    for p in (out_path, json_path):
        if os.path.isdir(p):
            raise LcmIOError(f"cannot write '{p}': it is a folder")
    if os.path.lexists(os.path.join(folder, files_name)) and not os.path.isdir(os.path.join(folder, files_name)):
        raise LcmIOError(f"cannot write '{os.path.join(folder, files_name)}': it exists and is not a folder")

    # the panel
    df, meta, panel_note, panel_source = None, {}, None, None
    if panel is None:
        panel_note = "No panel given: simulate one (lcm simulate MODEL --initial I.csv --csv panel.csv) for profiles."
    else:
        from ._panel import Panel
        labels_of = None
        if isinstance(panel, Panel):
            if not model.same_as(panel.model):
                raise UsageError(f"panel: simulated with model '{panel.model.name}' ({panel.model.path}), not "
                                 f"'{model.name}' ({model.path}): another model, or the same with other grids or "
                                 "options")
            panel_source = "an lcmgen Panel"
            labels_of = {c: panel.labels(c) for c in panel.columns}
            raw = panel.to_pandas()
        elif isinstance(panel, (str, os.PathLike)):
            panel_source = os.fspath(panel)
            raw = read_panel(model, panel, discrete=discrete)
        elif type(panel).__name__ == "DataFrame":
            panel_source = "a DataFrame"
            raw = panel
        else:
            raise UsageError(f"panel: a {type(panel).__name__}; give an lcmgen Panel, a DataFrame or a CSV path")
        where = f"panel '{panel_source}'" if isinstance(panel, (str, os.PathLike)) else f"panel ({panel_source})"
        df, meta = _normalize(model, raw, where, discrete, labels_of)
        for d in discrete:
            if d not in meta:
                raise UsageError(f"discrete: the panel has no column '{d}' (its variables: {', '.join(meta)})")

    summary = _summary(model, solution, solver, options, meta, panel_source, df)
    v_specs, notes = _value_figures(model, solution, picks, ages, liquid)
    several = len(model.regimes) > 1

    tmp = tempfile.mkdtemp(prefix=f".{stem}-", dir=folder)
    try:
        files_dir = os.path.join(tmp, files_name)
        os.mkdir(files_dir)
        page = _Page(files_dir, files_name, fmt)
        profiles, shares, regime_shares = [], [], []
        if df is not None:
            if several:
                order = list(model.regimes)
                series = _share_series(df, "regime", order, None)
                regime_shares.append((_share_figure("regime", "share of rows", series, order), "regime_shares",
                                      "Share of the panel's rows in each regime by age.",
                                      {"kind": "regime_shares", "variable": "regime", "series": series}))
            continuous = [n for n, m in meta.items() if m[1] == "continuous"]
            computed = _profiles(df, continuous, model.regimes)
            for name, (kind, typ, order) in meta.items():
                if typ == "continuous":
                    series = computed[name]
                    if not series:
                        continue
                    fig = _profile_figure(name, kind, series, several)
                    profiles.append((fig, f"profile_{name}",
                                     f"{name} ({kind}) by age: mean (line) and quartiles (band)"
                                     + (", by regime" if several else "") + ".",
                                     {"kind": "profile", "variable": name, "variable_kind": kind, "series": series}))
                else:
                    series = _share_series(df, name, order, model.regimes)
                    if not series:
                        continue
                    shares.append((_share_figure(name, kind, series, order), f"shares_{name}",
                                   f"{name} ({kind}, discrete): shares of its labels by age"
                                   + (", by regime" if several else "") + ".",
                                   {"kind": "shares", "variable": name, "variable_kind": kind, "labels": order,
                                    "series": series}))
        values = []
        for spec in v_specs:
            fixed = ", ".join(f"{k}={v}" for k, v in spec["fixed"].items())
            caption = (f"V of regime {spec['regime']} by {spec['liquid']} at ages "
                       + ", ".join(f"{p['age']:g}" for p in spec["panels"])
                       + (f"; curves by {', '.join(spec['varying'])}" if spec["varying"] else "")
                       + (f"; other states at {fixed}" if fixed else "") + ". " + POLICY_NOTE + ".")
            fig = _v_figure(spec["regime"], spec["liquid"], spec["panels"], bool(spec["varying"]))
            series = [dict(c, age=p["age"], period=p["period"]) for p in spec["panels"] for c in p["curves"]]
            values.append((fig, f"V_{spec['regime']}", caption,
                           {"kind": "V", "regime": spec["regime"], "variable": spec["liquid"], "fixed": spec["fixed"],
                            "series": series}))
        title = title or f"lcm report: {model.name}"
        _render(page, summary, profiles, shares, regime_shares, values, notes, panel_note, title)
        data = {"title": title, "summary": summary, "policy": POLICY_NOTE, "notes": notes + ([panel_note] if
                panel_note else []), "figures": page.figures}
        with open(os.path.join(tmp, "report.json"), "w") as f:
            json.dump(data, f, indent=1, allow_nan=False)
        with open(os.path.join(tmp, "report.html"), "w", encoding="utf-8") as f:
            f.write(_html(page, title))
        # into place: the figures, the numbers, then the page
        final_files = os.path.join(folder, files_name)
        if os.path.isdir(final_files) and not os.path.islink(final_files):
            os.rename(final_files, os.path.join(tmp, "old_files"))
        elif os.path.lexists(final_files):
            raise LcmIOError(f"cannot write '{final_files}': it exists and is not a folder")
        os.rename(files_dir, final_files)
        os.replace(os.path.join(tmp, "report.json"), json_path)
        os.replace(os.path.join(tmp, "report.html"), out_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"html": out_path, "json": json_path, "files": os.path.join(folder, files_name)}


# ---- python -m lcmgen report ---------------------------------------------------------------------------------------

def _parser():
    p = argparse.ArgumentParser(
        prog="python -m lcmgen report",
        description="A self-contained HTML report of a solution and a simulated panel: life-cycle profiles by age, "
                    "V by the liquid state at a few ages, the model's summary.  Beside the page: STEM_files/ (the "
                    "figures as PNG or SVG) and STEM.json (every plotted series).")
    p.add_argument("model", help="the model: MODEL.lua (as solved) or a directory made by lcmgen -o")
    p.add_argument("solution", help="SOLUTION.h5 written by lcm solve --out (or Solution.save)")
    p.add_argument("panel", nargs="?", help="PANEL.csv written by lcm simulate --csv (optional)")
    p.add_argument("-o", "--out", default="report.html", help="the page (default report.html)")
    p.add_argument("--options", action="append", nargs="+", default=[], metavar="NAME=VALUE",
                   help="the model's options, as lcm -D (they must match the solve's); after the files, or "
                        "one -D NAME=VALUE each")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME=VALUE",
                   help="one option, as lcm -D")
    p.add_argument("--fix", action="append", default=[], metavar="PATH=VALUE",
                   help="a parameter fixed into the kernels, as lcm --fix (with its value)")
    p.add_argument("--trust-model", action="store_true", help="as lcm --trust-model")
    p.add_argument("--pick", action="append", nargs="+", default=[], metavar="STATE=LABEL",
                   help="the values V is drawn for (repeat a state for several curves); other discrete states "
                        "at their first label, other continuous ones at their middle grid point (the lower of two "
                        "middle ones); a continuous STATE=NUMBER takes the grid point nearest it")
    p.add_argument("--ages", help="the ages of the V figures, a,b,c (default: first, middle and last active)")
    p.add_argument("--liquid", help="the state V is drawn against (default: the continuous state with the most "
                                    "grid points)")
    p.add_argument("--discrete", action="append", default=[], metavar="COLUMN[,COLUMN]",
                   help="panel columns to count as discrete (labels that are numbers, e.g. an action "
                        "lcm.categorical(n))")
    p.add_argument("--format", choices=("png", "svg"), default="png", help="the figures' format (default png)")
    p.add_argument("--title", help="the page's title")
    return p


def _pairs(groups, what):
    out = {}
    for item in (x for g in groups for x in g):
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise UsageError(f"{what} {item!r}: write name=value")
        out[name] = value
    return out


def report_main(argv):
    args = _parser().parse_args(argv)
    try:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("the report needs matplotlib: pip install matplotlib (or lcmgen[report])") from None
        options = _pairs(args.options + [[d] for d in args.define], "--options")
        picks = [x for g in args.pick for x in g]
        ages = None
        if args.ages:
            try:
                ages = [float(a) for a in args.ages.split(",") if a.strip()]
            except ValueError:
                raise UsageError(f"--ages {args.ages!r}: numbers separated by commas") from None
        discrete = [c.strip() for d in args.discrete for c in d.split(",") if c.strip()]
        fix = {}
        for k, v in _pairs([args.fix], "--fix").items():
            try:
                fix[k] = float(v)
            except ValueError:
                raise UsageError(f"--fix {k}={v}: the value is not a number") from None
        try:
            model = load(args.model, options=options, fix=fix, trusted=args.trust_model)
        except LcmError as e:
            raise type(e)(_named("model", e.message, args.model), e.status) from None
        try:
            solution = load_solution(model, args.solution)
        except LcmError as e:
            raise type(e)(_named("solution", e.message, args.solution), e.status) from None
        paths = make_report(model, solution, args.panel, args.out, picks=picks, ages=ages, fmt=args.format,
                            liquid=args.liquid, discrete=discrete, title=args.title, options=options)
    except LcmError as e:
        print(f"lcmgen report: error: {e.message}", file=sys.stderr)
        return e.status or 1
    except OSError as e:
        print(f"lcmgen report: error: {e}", file=sys.stderr)
        return 5
    print(f"lcmgen report: wrote {paths['html']} (figures in {paths['files']}, numbers in {paths['json']})",
          file=sys.stderr)
    return 0


def _named(role, message, path):
    """The message, saying which file it is about."""
    return f"{role}: {message}" if os.fspath(path) in message else f"{role} '{path}': {message}"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m lcmgen report MODEL SOLUTION.h5 [PANEL.csv] -o report.html [options]\n\n"
              "commands:\n  report   an HTML report with pictures of a solution and a panel "
              "(python -m lcmgen report --help)", file=sys.stderr if not argv else sys.stdout)
        return 0 if argv else 2
    if argv[0] != "report":
        print(f"python -m lcmgen: unknown command '{argv[0]}' (commands: report)", file=sys.stderr)
        return 2
    return report_main(argv[1:])
