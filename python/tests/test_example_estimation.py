"""examples/python-estimation runs as its README says: estimate.py --size
small recovers the parameters its data were simulated at (exit 0 and the
"recovered" line), and policy_plot.py writes its figure (a PNG with
matplotlib, else the figure's data as CSV).

The scripts run as subprocesses of this Python (sys.executable) from the
repository root (LCM_REPO, default two folders up), with the session's
solver cache (conftest's LCM_CACHE_DIR): the small model is compiled once
here and taken from the cache by the second script.  OMP_WAIT_POLICY=passive
(unless set): the small model's many short parallel regions run several
times slower when OpenMP's waiting threads spin on cores that other tests
keep busy.
"""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(os.environ.get("LCM_REPO", pathlib.Path(__file__).resolve().parents[2]))
EXAMPLE = REPO / "examples" / "python-estimation"


def _run(*args, timeout):
    env = dict(os.environ, LCM_REPO=str(REPO))
    env.setdefault("OMP_WAIT_POLICY", "passive")
    proc = subprocess.run([sys.executable, *map(str, args)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{args[0]} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_estimate_small_recovers_the_truth():
    pytest.importorskip("optimagic")     # the [estimation] extra (the [test] extra has it)
    out = _run(EXAMPLE / "estimate.py", "--size", "small", timeout=110)
    lines = out.splitlines()
    assert any(line.startswith("recovered:") for line in lines), out
    assert not any(line.startswith("NOT recovered") for line in lines), out
    for name in ("discount_factor.mean", "health_consumption_penalty"):
        assert any(line.startswith(name) for line in lines), out
    assert "evaluations in" in out, out


def test_policy_plot_writes_its_figure(tmp_path):
    out = _run(EXAMPLE / "policy_plot.py", tmp_path, timeout=110)
    try:
        import matplotlib  # noqa: F401
        expected = [tmp_path / "policy_plot.png"]
    except ImportError:
        expected = [tmp_path / "policy_plot.csv", tmp_path / "policy_plot_V.csv"]
        assert "matplotlib is not installed" in out, out
    for path in expected:
        assert path.is_file() and path.stat().st_size > 0, f"{path} was not written\n{out}"
