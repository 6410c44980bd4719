"""Run every ```python block of docs/tutorial.md in order, in one namespace (the tutorial cannot rot)."""

import re
import time
from pathlib import Path

import pytest

from extras import importable

TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_tutorial_has_the_steps():
    text = TUTORIAL.read_text(encoding="utf-8")
    steps = re.findall(r"^## (\d+)\. ", text, flags=re.M)
    assert steps == [str(i) for i in range(1, 10)]
    assert "docs/real_models.md" in text
    assert len(python_blocks(text)) >= 10


@pytest.mark.slow
def test_tutorial_runs_top_to_bottom(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    pytest.importorskip("sympy")
    monkeypatch.setattr("tempfile.mkdtemp", lambda *a, **k: str(tmp_path))   # pictures go to pytest's tmp dir
    namespace = {"__name__": "tutorial"}
    start = time.perf_counter()
    for i, block in enumerate(python_blocks(TUTORIAL.read_text(encoding="utf-8"))):
        if re.search(r"^import torch", block, flags=re.M) and not importable("torch"):
            continue                                             # step 9 needs the optional torch extra
        exec(compile(block, f"{TUTORIAL.name} block {i + 1}", "exec"), namespace)
    assert time.perf_counter() - start < 120                     # "under two minutes"
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["conic.png", "double_line.png", "minkowski.png",
                                                               "soft.png"]
