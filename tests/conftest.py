"""Test configuration: property tests are deterministic (the same examples on every run).

Set ``HYPOTHESIS_PROFILE=explore`` to search fresh random examples locally.
"""

import gc
import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_finish(session):
    """Move what collection imported (numpy, scipy, sympy, torch, ...) out of the garbage collector's
    sight: it is never garbage, and every full collection during the run would walk it again."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def figures(monkeypatch):
    """Every matplotlib figure saved during the test, in order (the real save still writes the file).

    Pictures are tested by what they draw: a test reads ``figures[-1].axes`` (artists, data,
    colours).  ``Figure.savefig`` is matplotlib's public method, not a tropattn internal.
    """
    from matplotlib.figure import Figure
    kept, real = [], Figure.savefig

    def savefig(fig, *args, **kwargs):
        kept.append(fig)
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return kept


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of two one-thread worker processes, one per test module (skipped without dask)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as lc:
        yield lc
