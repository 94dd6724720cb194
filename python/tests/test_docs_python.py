"""docs/python.md runs as written: its ```python blocks, in order, in one
namespace, from a folder that looks like the repository root (models/ and
an empty results/).  A block after <!-- doc-test: skip (why) --> is not run."""
import contextlib
import io
import os
import re

from conftest import REPO


def python_blocks(text):
    blocks = []
    for m in re.finditer(r"(<!-- doc-test: skip[^>]*-->\s*)?```python\n(.*?)```", text, re.S):
        if not m.group(1):
            blocks.append(m.group(2))
    return blocks


def test_python_guide_runs(tmp_path, monkeypatch):
    blocks = python_blocks((REPO / "docs" / "python.md").read_text())
    assert len(blocks) >= 8, "the guide's examples were not found"
    os.symlink(REPO / "models", tmp_path / "models")
    (tmp_path / "results").mkdir()
    monkeypatch.chdir(tmp_path)
    namespace, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "docs/python.md", "exec"), namespace)
    printed = out.getvalue()
    assert "iskhakov_2017" in printed and "(100,) float64 False" in printed
    assert "discount_factor" in printed  # the NaN parameter's message names it
    assert (tmp_path / "results" / "py_V.h5").exists()


def test_readme_python_runs(monkeypatch):
    """The README's Python block, from the repository root."""
    blocks = python_blocks((REPO / "README.md").read_text())
    assert len(blocks) == 1
    monkeypatch.chdir(REPO)
    namespace = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert namespace["V"].shape == (100,) and namespace["panel"].rows > 0
