"""A sweep's defaults: a chunk's kept trajectory stays within 256 MiB (2**28 bytes), and messages about a
cluster name it "the Dask cluster" when the caller gives no address."""

from __future__ import annotations

import pytest

from sim.run.scenario import loads
from sim.sweep import Sweep, SweepFailed

SCENARIO = """
[scenario]
title = "defaults test"
caption = "long, sampled at every step"
duration = 100.0

[settings]
dt = 0.01

[ensemble]
bodies = 2000
seed = 1
rate_spread = 0.3
"""


def test_a_chunk_keeps_as_many_trajectories_as_fit_in_256_mib():
    scenario = loads(SCENARIO, name="defaults_test")
    sweep = Sweep(scenario, scenario.ensemble, traj_every=1)
    per_body = (10_000 + 1) * 7 * 8  # steps 0..10000 each kept, q and w: 7 float64
    size = sweep.chunk_size(1)
    assert size * per_body <= 2 ** 28 < (size + 1) * per_body  # 479 bodies of 560056 bytes
    assert size == 479


class _LostClient:
    """A client whose scheduler connection is gone: asking for its threads raises an OSError."""

    def nthreads(self, callback_timeout=None):
        raise ConnectionResetError("reset by peer")


def test_a_lost_cluster_is_named_the_dask_cluster_by_default():
    scenario = loads(SCENARIO.replace("duration = 100.0", "duration = 0.1"), name="defaults_test")
    with pytest.raises(SweepFailed) as caught:
        Sweep(scenario, scenario.ensemble).run(_LostClient())
    assert str(caught.value) == "the connection to the Dask cluster was lost (ConnectionResetError: reset by peer)"
