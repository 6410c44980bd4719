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


def test_regions_leaves_html_and_difflib_for_the_output_and_error_paths_that_use_them():
    tops, _ = _imported("regions", "max(0, x)")
    assert not tops & {"html", "difflib"}


_BLAS = """
import os, sys
from tropattn.cli import main
main(sys.argv[1:])
print("threads", os.environ.get("OPENBLAS_NUM_THREADS"), len(os.listdir("/proc/self/task")))
"""


def _blas_threads(*argv, **env):
    """The OPENBLAS_NUM_THREADS that ``main(argv)`` leaves in a fresh process, and its thread count."""
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                             "MKL_NUM_THREADS")}
    base.update(env, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-c", _BLAS, *argv], capture_output=True, text=True, env=base,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    _, value, threads = run.stdout.splitlines()[-1].split()
    return value, int(threads)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the thread count from /proc")
def test_a_small_command_runs_blas_on_one_thread_unless_the_environment_says_otherwise():
    assert _blas_threads("regions", "max(0, x)") == ("1", 1)    # no idle BLAS threads for a polynomial
    assert _blas_threads("bounds", "--dim", "2", "--heads", "2", "--keys", "3")[0] == "1"
    assert _blas_threads("regions", "max(0, x)", OMP_NUM_THREADS="2")[0] == "None"  # the user's choice kept
    assert _blas_threads("count", "no-such-model.json")[0] == "1"     # exact counts: limb products, one thread
    assert _blas_threads("power", "no-such-model.json")[0] == "None"  # other commands: BLAS as set up


def test_main_called_in_a_session_that_imported_numpy_leaves_its_environment_alone(monkeypatch, capsys):
    import numpy  # noqa: F401  (the session's BLAS is already set up)
    from tropattn.cli import main
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert main(["regions", "max(0, x)"]) == 0
    assert "OPENBLAS_NUM_THREADS" not in os.environ
