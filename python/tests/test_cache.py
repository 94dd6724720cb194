"""A second process reuses the compiled solver: the cache lcm and lcmgen share."""
import subprocess
import sys

from conftest import MODELS, run_lcm

PROBE = """
import sys, lcmgen
solver = lcmgen.load(sys.argv[1]).solver(backend="cpu", cache_dir=sys.argv[2])
print("compiled" if solver.compiled else "cached", solver.compile_seconds)
"""


def probe(model, cache):
    out = subprocess.run([sys.executable, "-c", PROBE, str(model), str(cache)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()[0]


def test_second_process_compiles_nothing(tmp_path):
    cache = tmp_path / "cache"
    assert probe(MODELS / "tiny.lua", cache) == "compiled"
    assert probe(MODELS / "tiny.lua", cache) == "cached"


def test_command_line_reuses_what_python_compiled(tmp_path, lcm_bin, monkeypatch):
    cache = tmp_path / "cache"
    assert probe(MODELS / "tiny.lua", cache) == "compiled"
    monkeypatch.setenv("LCM_CACHE_DIR", str(cache))
    done = run_lcm("solve", MODELS / "tiny.lua", "--params", MODELS / "tiny.params.lua", "--backend", "cpu",
                   "--log-level", "progress", "--out", tmp_path / "V.h5")
    assert done.returncode == 0, done.stderr
    assert "from the cache" in done.stderr, done.stderr
