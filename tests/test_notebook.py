"""docs/tutorial.ipynb: generated from docs/tutorial.md (scripts/tutorial_notebook.py), outputs stripped, and it runs."""

import importlib.util
import json
import re
import time
from pathlib import Path

import pytest

from extras import importable

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "tutorial.ipynb"
TUTORIAL = ROOT / "docs" / "tutorial.md"


def generator():
    spec = importlib.util.spec_from_file_location("tutorial_notebook", ROOT / "scripts" / "tutorial_notebook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notebook_is_the_tutorial_regenerated():
    pytest.importorskip("nbformat", reason="the notebook needs nbformat (the test extra)")
    wanted = generator().render(TUTORIAL.read_text(encoding="utf-8"))
    assert NOTEBOOK.read_text(encoding="utf-8") == wanted, "run: python scripts/tutorial_notebook.py"


def test_notebook_outputs_are_stripped():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    assert code and all(cell["outputs"] == [] and cell["execution_count"] is None for cell in code)
    blocks = re.findall(r"^```python\n", TUTORIAL.read_text(encoding="utf-8"), flags=re.M)
    assert len(code) == len(blocks)


@pytest.mark.slow
def test_notebook_executes(tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="executing the notebook needs nbformat (the test extra)")
    nbclient = pytest.importorskip("nbclient", reason="executing the notebook needs nbclient (the test extra)")
    pytest.importorskip("ipykernel", reason="executing the notebook needs ipykernel (the test extra)")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if not importable("torch"):                                   # step 9 needs the optional torch extra
        nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and re.search(r"^import torch", c.source, re.M))]
    # the kernel writes the pictures under pytest's tmp dir (the tutorial's OUT = tempfile.mkdtemp())
    nb.cells.insert(0, nbformat.v4.new_code_cell(f"import tempfile; tempfile.tempdir = {str(tmp_path)!r}"))
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    start = time.perf_counter()
    client.execute()
    assert time.perf_counter() - start < 180
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    shown = {kind for c in nb.cells if c.cell_type == "code" for o in c.outputs for kind in o.get("data", {})}
    assert {"text/latex", "image/svg+xml", "text/html"} <= shown     # the objects draw themselves (docs/display.md)
    assert sorted(p.name for p in tmp_path.rglob("*.png")) == ["conic.png", "double_line.png", "minkowski.png",
                                                                "soft.png"]
