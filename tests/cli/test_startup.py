"""Start-up: a command imports what it needs (read from ``python -X importtime``; deterministic, not timed)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sympy", "scipy", "networkx", "matplotlib", "torch", "dask", "safetensors", "transformers", "mpmath")


def _imported(*argv):
    """The top-level packages ``python -X importtime -m tropattn ARGV`` imports, and its stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "tropattn", *argv], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    names = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    return {n.split(".")[0] for n in names}, run.stdout


def test_version_imports_no_heavy_module_and_not_numpy():
    tops, out = _imported("--version")
    assert out.startswith("tropattn ")
    assert "tropattn" in tops and "argparse" in tops              # the reading works: it sees the imports
    assert not tops & set(HEAVY + ("numpy",))


@pytest.mark.parametrize("argv", [("regions", "max(0, x)"), ("regions", "--help")])
def test_regions_imports_no_symbolic_graph_or_plot_package(argv):
    tops, out = _imported(*argv)
    assert "regions" in out or "linear regions" in out
    assert not tops & {"sympy", "networkx", "matplotlib", "torch", "dask", "safetensors", "transformers"}


def test_a_one_variable_polynomial_needs_no_qhull():
    """Over a line the upper hull and its cells are exact chains: scipy (Qhull) is not even imported."""
    tops, out = _imported("regions", "max(0, x)")
    assert "linear regions" in out or "regions" in out
    assert "scipy" not in tops and "numpy" in tops
