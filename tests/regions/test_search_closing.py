"""The search closes the executors it makes from a name (a Dask client here) and leaves the caller's open.

Written to kill the mutants of ``_closing`` in tropattn/regions/_search.py (scripts/mutation.py search);
a separate module because it needs a Dask cluster (one per module).
"""

import pytest

from oracles import brute_force, load_model
from tropattn.backends import DaskExecutor
from tropattn.io import model_from_json
from tropattn.regions import enumerate_regions

OBJ = {"format": "tropattn.model/1", "dim": 1, "ties": "first", "layers": [
    {"heads": [{"keys": [[0], [1], [2]], "offsets": [0, 0, -1], "values": [[0], [0], [-1]]}]},
    {"heads": [{"keys": [[0], [1]], "offsets": [0, -2], "values": [[0], [1]]}]}]}


@pytest.mark.dask
@pytest.mark.slow
def test_a_client_made_for_a_scheduler_address_is_closed_after_the_search(cluster):
    distributed = pytest.importorskip("distributed")
    n = len(brute_force(load_model(OBJ)))
    r = enumerate_regions(model_from_json(OBJ), executor="dask", scheduler=cluster.scheduler_address, progress=False)
    assert r.n_activation == n
    with pytest.raises(ValueError):           # no client is left behind as the default client
        distributed.default_client()
    ex = DaskExecutor(cluster.scheduler_address)
    try:
        assert enumerate_regions(model_from_json(OBJ), executor=ex, progress=False).n_activation == n
        assert distributed.default_client() is ex.client      # the caller's executor stays open
    finally:
        ex.close()
