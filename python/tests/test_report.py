"""The report with pictures (python -m lcmgen report, lcmgen._report.make_report).

For Iskhakov et al. (2017) and Mahler & Yum (2024) at reduced size: the
solution and the panel come from the lcm command (lcm solve --out, lcm
simulate --csv); the report is made by ``python -m lcmgen report``; the test
parses the page (html.parser), checks that every promised figure is there
and not empty (a base64 PNG of some size, or an inline SVG) and written
beside it, and that the plotted numbers (report.json) are the panel's own
means, quartiles and shares as pandas computes them, and V as the solution
holds it.  Bad inputs: a clear message naming the file, a non-zero status
and nothing written.
"""
import base64
import html.parser
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pd = pytest.importorskip("pandas")

import lcmgen  # noqa: E402
from conftest import MODELS, run_lcm  # noqa: E402

MY_OPTIONS = dict(wealth_points=10, effort_points=5, shock_points=3, cost_points=2)   # reduced size
MY_DEFINES = [x for k, v in MY_OPTIONS.items() for x in ("-D", f"{k}={v}")]


def report(*args, cwd):
    return subprocess.run([sys.executable, "-m", "lcmgen", "report", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True)


def ok(proc):
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc


class Page(html.parser.HTMLParser):
    """The figures of a page: {id: ("img", src) or ("svg", None)}, and its text."""

    def __init__(self):
        super().__init__()
        self.figures, self.text, self._in = {}, [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self._in = a["id"]
        elif tag == "img" and self._in:
            self.figures[self._in] = ("img", a.get("src", ""))
        elif tag == "svg" and self._in and self._in not in self.figures:
            self.figures[self._in] = ("svg", None)

    def handle_endtag(self, tag):
        if tag == "figure":
            self._in = None

    def handle_data(self, data):
        self.text.append(data)


def parse(path):
    p = Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def check_figures(out, page, data):
    """Every figure of report.json on the page, non-empty, and in the files folder."""
    ids = [f["id"] for f in data["figures"]]
    assert len(ids) == len(set(ids)) and set(page.figures) == set(ids)
    for f in data["figures"]:
        kind, src = page.figures[f["id"]]
        if kind == "img":
            head, _, b64 = src.partition(",")
            assert head == "data:image/png;base64"
            blob = base64.b64decode(b64, validate=True)
            assert blob[:8] == b"\x89PNG\r\n\x1a\n" and len(blob) > 5000, f["id"]
        file = out.parent / f["file"]
        assert file.is_file() and file.stat().st_size > 5000, file
        assert f["series"] and all(len(s["x"]) == len(s["y"]) and s["x"] for s in f["series"]), f["id"]


def read_csv_panel(path, discrete):
    return pd.read_csv(path, dtype={c: str for c in discrete})


def check_numbers(data, df, model, solution):
    """The plotted means, quartiles and shares are the panel's; V is the solution's."""
    checked = {"profile": 0, "shares": 0, "V": 0}
    for f in data["figures"]:
        if f["kind"] == "profile":
            var = f["variable"]
            for s in f["series"]:
                part = df if s["regime"] == "all" else df[df["regime"] == s["regime"]]
                part = part[part[var].notna()]
                g = part.groupby("age")[var]
                want = g.mean() if s["stat"] == "mean" else g.quantile(int(s["stat"][1:]) / 100)
                assert s["x"] == [float(a) for a in want.index], (var, s["regime"])
                np.testing.assert_allclose(s["y"], want.to_numpy(), rtol=1e-12, atol=0, err_msg=f"{var} {s}")
                checked["profile"] += 1
        elif f["kind"] == "shares":
            var = f["variable"]
            for s in f["series"]:
                part = df if s["regime"] == "all" else df[df["regime"] == s["regime"]]
                part = part[part[var].notna()]
                want = part.groupby("age")[var].apply(lambda c: (c == s["label"]).mean())
                assert s["x"] == [float(a) for a in want.index]
                np.testing.assert_allclose(s["y"], want.to_numpy(), rtol=1e-12, atol=0)
                checked["shares"] += 1
        elif f["kind"] == "V":
            for s in f["series"]:
                V = solution.V(s["period"], f["regime"])
                axes = solution.axes(s["period"], f["regime"])
                index = []
                for st in model.states(f["regime"]):
                    if st.name == f["variable"]:
                        index.append(slice(None))
                    elif st.labels is not None:
                        index.append(st.labels.index(s["at"][st.name]))
                    else:
                        pts = np.asarray(axes[st.name])
                        index.append(int(np.argmin(np.abs(pts - float(s["at"][st.name].split()[0])))))
                assert s["x"] == list(axes[f["variable"]])
                assert s["y"] == V[tuple(index)].tolist()
                checked["V"] += 1
    assert all(checked.values()), checked
    return checked


def check_promises(data, page, df, model, discrete, several):
    """A profile of every continuous column, shares of every discrete one, V of every regime with a
    continuous state, the regime shares, the summary and the policy note."""
    kinds = {f["id"]: f for f in data["figures"]}
    for c in df.columns:
        if c in ("subject_id", "period", "age", "regime", "value"):
            continue
        assert (f"shares_{c}" if c in discrete else f"profile_{c}") in kinds, c
    for r, name in enumerate(model.regimes):
        if any(s.labels is None for s in model.states(r)):
            assert f"V_{name}" in kinds
    assert ("regime_shares" in kinds) == several
    text = " ".join(page.text)
    assert "policy: not stored in the solution" in text
    for name in model.regimes:
        assert name in text
    assert {p["name"] for p in data["summary"]["params"]} >= set(model.param_names())
    for p in model.param_names():
        assert p in text


@pytest.fixture(scope="module")
def iskhakov(tmp_path_factory, lcm_bin):
    d = tmp_path_factory.mktemp("report-iskhakov")
    model, params = MODELS / "iskhakov_2017.lua", MODELS / "iskhakov_2017.params.lua"
    ok(run_lcm("solve", model, "--params", params, "--out", d / "V.h5"))
    ok(run_lcm("simulate", model, "--params", params, "--initial", MODELS / "iskhakov_2017.initial.csv",
               "--solution", d / "V.h5", "--targets", "all", "--seed", 3, "--csv", d / "panel.csv"))
    return d


def test_report_iskhakov(iskhakov):
    out = iskhakov / "out" / "report.html"
    out.parent.mkdir()
    proc = ok(report(MODELS / "iskhakov_2017.lua", iskhakov / "V.h5", iskhakov / "panel.csv", "-o", out,
                     cwd=iskhakov))
    assert "wrote" in proc.stderr
    assert sorted(os.listdir(out.parent)) == ["report.html", "report.json", "report_files"]
    data = json.loads((out.parent / "report.json").read_text())
    page = parse(out)
    check_figures(out, page, data)
    model = lcmgen.load(MODELS / "iskhakov_2017.lua")
    solution = lcmgen.load_solution(model, iskhakov / "V.h5")
    df = read_csv_panel(iskhakov / "panel.csv", ["labor_supply"])
    check_promises(data, page, df, model, {"labor_supply"}, several=True)
    check_numbers(data, df, model, solution)
    # ages: first, middle and last active period; wealth against V
    v = {f["regime"]: f for f in data["figures"] if f["kind"] == "V"}
    assert set(v) == {"working_life", "retirement"}
    assert sorted({s["age"] for s in v["working_life"]["series"]}) == [40.0, 60.0, 80.0]
    assert v["working_life"]["variable"] == "wealth"
    kinds = {c["name"]: (c["kind"], c["type"]) for c in data["summary"]["panel"]["columns"]}
    assert kinds["wealth"] == ("state", "continuous") and kinds["labor_supply"] == ("action", "discrete")
    assert kinds["utility"] == ("target", "continuous")
    shares = next(f for f in data["figures"] if f["id"] == "shares_labor_supply")
    assert set(shares["labels"]) == {"work", "retire"}


def test_report_mahler_yum(tmp_path, lcm_bin):
    model_path, params = MODELS / "mahler_yum_2024.lua", MODELS / "mahler_yum_2024.params.lua"
    ok(run_lcm("solve", model_path, *MY_DEFINES, "--params", params, "--out", tmp_path / "V.h5"))
    # its initial conditions are a Lua file: the lcm command draws them
    ok(run_lcm("simulate", model_path, *MY_DEFINES, "--params", params, "--initial",
               MODELS / "mahler_yum_2024.initial.lua", "--subjects", 300, "--solution", tmp_path / "V.h5",
               "--targets", "consumption,utility", "--csv", tmp_path / "panel.csv"))
    out = tmp_path / "my.html"
    ok(report(model_path, tmp_path / "V.h5", tmp_path / "panel.csv", "-o", out, "--discrete", "effort",
              "--pick", "education=low", "education=high", "--options",
              *[f"{k}={v}" for k, v in MY_OPTIONS.items()], cwd=tmp_path))
    data = json.loads((tmp_path / "my.json").read_text())
    page = parse(out)
    check_figures(out, page, data)
    model = lcmgen.load(model_path, options=MY_OPTIONS)
    solution = lcmgen.load_solution(model, tmp_path / "V.h5")
    discrete = {s.name for r in model.regimes for s in model.states(r) if s.labels} | {"labor_supply", "effort"}
    df = read_csv_panel(tmp_path / "panel.csv", discrete)
    check_promises(data, page, df, model, discrete, several=True)
    check_numbers(data, df, model, solution)
    # V against wealth (the finest continuous grid, not the shock's nodes), one curve per education
    v = next(f for f in data["figures"] if f["kind"] == "V")
    assert v["regime"] == "alive" and v["variable"] == "wealth"
    assert sorted({s["age"] for s in v["series"]}) == [25.0, 63.0, 99.0]
    assert sorted({s["label"] for s in v["series"]}) == ["education=high", "education=low"]
    assert v["fixed"]["health"] == "bad" and v["fixed"]["lagged_effort"] == "0"
    effort = next(f for f in data["figures"] if f["id"] == "shares_effort")
    assert effort["labels"] == ["0", "1", "2", "3", "4"]
    assert "V of regime 'dead'" in " ".join(data["notes"])


def test_report_api_panel_svg(iskhakov, tmp_path):
    """make_report with a Panel of the package (its labels) and SVG figures inline."""
    from lcmgen._report import make_report
    model = lcmgen.load(MODELS / "iskhakov_2017.lua")
    solver = model.solver(backend="cpu")
    solution = solver.solve(lcmgen.read_params(MODELS / "iskhakov_2017.params.lua"))
    panel = solver.simulate(solution, pd.read_csv(MODELS / "iskhakov_2017.initial.csv"), seed=3, targets="all")
    with pytest.raises(lcmgen.UsageError, match="drawn against 'wealth'"):
        make_report(model, solution, panel, tmp_path / "r.html", picks={"wealth": 100})
    assert os.listdir(tmp_path) == []
    paths = make_report(model, solution, panel, tmp_path / "r.html", fmt="svg", solver=solver, ages=[50, 70])
    page = parse(tmp_path / "r.html")
    data = json.loads((tmp_path / "r.json").read_text())
    assert paths["files"] == str(tmp_path / "r_files")
    assert page.figures and all(kind == "svg" for kind, _ in page.figures.values())
    for f in data["figures"]:
        assert (tmp_path / f["file"]).read_text().lstrip().startswith("<?xml")
    assert data["summary"]["backend"] == "cpu" and data["summary"]["solve_seconds"] > 0
    # the same numbers as the command's CSV of the same simulation
    df = panel.to_pandas()
    df["labor_supply"] = df["labor_supply"].astype(object)
    df["regime"] = df["regime"].astype(object)
    check_numbers(data, df, model, solution)
    assert sorted({s["age"] for f in data["figures"] if f["kind"] == "V" for s in f["series"]}) == [50.0, 70.0]
    # without a panel: V and the summary, and the page says what is missing
    make_report(model, solution, None, tmp_path / "v.html")
    data = json.loads((tmp_path / "v.json").read_text())
    assert {f["id"] for f in data["figures"]} == {"V_working_life", "V_retirement"}
    check_figures(tmp_path / "v.html", parse(tmp_path / "v.html"), data)
    assert "No panel given" in (tmp_path / "v.html").read_text()


@pytest.fixture(scope="module")
def tiny_panel(tmp_path_factory, lcm_bin):
    d = tmp_path_factory.mktemp("report-tiny")
    ok(run_lcm("simulate", MODELS / "tiny.lua", "--params", MODELS / "tiny.params.lua", "--initial",
               MODELS / "tiny.initial.csv", "--csv", d / "panel.csv"))
    return d / "panel.csv"


@pytest.mark.parametrize("case", ["no solution", "other model's panel", "h5 panel", "bad pick"])
def test_report_bad_input(case, iskhakov, tiny_panel, tmp_path):
    model, solution, panel = MODELS / "iskhakov_2017.lua", iskhakov / "V.h5", iskhakov / "panel.csv"
    extra = []
    if case == "no solution":
        solution = tmp_path / "missing.h5"
        expect = ["solution", "missing.h5"]
    elif case == "other model's panel":
        panel = tiny_panel
        expect = [str(tiny_panel), "iskhakov_2017", "another model"]
    elif case == "h5 panel":
        panel = iskhakov / "V.h5"
        expect = ["V.h5", "not yet supported"]
    else:
        extra = ["--pick", "wealth=rich"]
        expect = ["--pick wealth=rich", "continuous"]
    out = tmp_path / "out"
    out.mkdir()
    proc = report(model, solution, panel, "-o", out / "report.html", *extra, cwd=tmp_path)
    assert proc.returncode != 0
    assert proc.stderr.startswith("lcmgen report: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    for e in expect:
        assert e in proc.stderr, (e, proc.stderr)
    assert os.listdir(out) == []     # no page, no figures, no JSON, no temporary folder


def test_lcm_run_prints_a_command_that_makes_the_report(tmp_path, lcm_bin):
    """`lcm run` ends with the report's command line for its outputs; run as printed, it makes the page."""
    import shlex
    done = run_lcm("run", MODELS / "iskhakov_2017.lua", "--out-dir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    line = [l for l in done.stderr.splitlines() if "python3 -m lcmgen report" in l]
    assert len(line) == 1, done.stderr
    words = shlex.split(line[0].split(": ", 2)[-1])
    assert words[:4] == ["python3", "-m", "lcmgen", "report"]
    made = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "out" / "iskhakov_2017.report.html").stat().st_size > 10000
