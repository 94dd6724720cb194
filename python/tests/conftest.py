"""Fixtures of the lcmgen package's tests.

The tests import the installed lcmgen (scripts/python-test.sh installs it
into a fresh virtual environment) and compare with the lcm command of the
build tree: LCM_REPO is the repository (default: two folders up), LCM_BIN
the lcm command (default: LCM_REPO/build/bin/lcm).  Compiled solvers go to
one cache for the session, shared by lcmgen and lcm (LCM_CACHE_DIR).
"""
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(os.environ.get("LCM_REPO", pathlib.Path(__file__).resolve().parents[2]))
LCM_BIN = pathlib.Path(os.environ.get("LCM_BIN", REPO / "build" / "bin" / "lcm"))
MODELS = REPO / "models"


@pytest.fixture(scope="session", autouse=True)
def cache_dir(tmp_path_factory):
    """One solver cache for the session (lcmgen and lcm both read LCM_CACHE_DIR)."""
    d = tmp_path_factory.mktemp("lcm-cache")
    old = os.environ.get("LCM_CACHE_DIR")
    os.environ["LCM_CACHE_DIR"] = str(d)
    yield d
    if old is None:
        del os.environ["LCM_CACHE_DIR"]
    else:
        os.environ["LCM_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def lcm_bin():
    if not LCM_BIN.exists():
        pytest.fail(f"the lcm command is not at {LCM_BIN}: build the project first (sh scripts/build.sh) or set LCM_BIN")
    return LCM_BIN


def run_lcm(*args, cwd=None):
    """Runs the lcm command; returns the completed process (check it)."""
    return subprocess.run([str(LCM_BIN), *map(str, args)], cwd=cwd, capture_output=True, text=True)
