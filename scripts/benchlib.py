"""Timing helpers shared by the benchmark scripts (run them from the repository root)."""

import compileall
import io
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeat=5):
    """(best wall time over ``repeat`` runs, the last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def timed(fn):
    """(result, seconds) of one run."""
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def tree_of(commit) -> Path:
    """The ``tropattn`` package of ``commit`` (``git archive``) in a temporary directory, byte-compiled.

    Put the directory first on ``PYTHONPATH`` (and run from it) to import that tree.  Its
    modules are compiled here, as an installed tree's are, so that a start-up time never
    includes compiling them (``PYTHONDONTWRITEBYTECODE`` would otherwise leave them source).
    """
    tmp = Path(tempfile.mkdtemp(prefix="tropattn-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "tropattn"], capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tf:
        tf.extractall(tmp)
    compileall.compile_dir(str(tmp / "tropattn"), quiet=1)
    return tmp
