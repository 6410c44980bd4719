"""One LocalCluster of two worker processes for every Dask test of the session."""

import pytest


@pytest.fixture(scope="session")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as lc:
        yield lc
