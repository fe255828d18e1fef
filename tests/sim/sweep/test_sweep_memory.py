"""The sweep's memory estimate (Sweep.memory, Sweep.trajectory_bytes) and a sweep on an in-process Dask
cluster (threads, so the chunks fly in this process), against the serial sweep bit for bit."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from sim.io.costs import WORKER_BYTES
from sim.run.scenario import loads
from sim.sweep import Sweep

SCENARIO = """
[scenario]
title = "memory test"
caption = "short"
duration = 0.2

[settings]
dt = 0.01
dampers_on = true
controller = "quaternion"

[ensemble]
bodies = 7
seed = 3
rate_spread = 0.3
"""


def _scenario():
    return loads(SCENARIO, name="memory_test")


def test_without_trajectories_no_trajectory_bytes_and_with_them_seven_floats_per_sample():
    scenario = _scenario()
    assert Sweep(scenario, scenario.ensemble).trajectory_bytes() == 0
    # 20 steps sampled every 7: steps 0, 7, 14, 20 (the last kept); q and w are 7 float64 per body
    assert Sweep(scenario, scenario.ensemble, traj_every=7).trajectory_bytes() == 4 * 7 * 8 * 7


@pytest.mark.parametrize("traj_every", [0, 3])
def test_the_estimate_in_this_process_is_whole_bytes_without_a_worker(traj_every):
    scenario = _scenario()
    sweep = Sweep(scenario, scenario.ensemble, chunk=3, traj_every=traj_every)  # 3 of 7 bodies: not a divisor
    here = sweep.memory()
    assert isinstance(here, int) and here > 0
    assert here == sweep.memory(workers=0)  # the default is this process, no worker
    assert sweep.memory(workers=1) - here >= WORKER_BYTES  # a worker process costs its own bytes
    assert here < WORKER_BYTES


def test_a_threaded_dask_cluster_gives_the_serial_results():
    distributed = pytest.importorskip("distributed")
    scenario = _scenario()
    serial = Sweep(scenario, scenario.ensemble, chunk=3).run()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        result = Sweep(scenario, scenario.ensemble, chunk=3).run(client, where="the test cluster")
    assert list(result.columns) == list(serial.columns)
    for name, column in serial.columns.items():
        assert result.columns[name].tobytes() == column.tobytes(), name
    assert np.all(np.isfinite(result.columns["final_error_deg"]))


class _DeadScheduler:
    """A Dask client whose scheduler has gone: every call to it fails as distributed's do (OSError)."""

    def nthreads(self, callback_timeout=None):
        raise OSError("Timed out trying to connect to tcp://10.0.0.9:8786")


def test_a_scheduler_that_stops_answering_fails_the_sweep_naming_where_it_ran():
    from sim.sweep import SweepFailed

    scenario = _scenario()
    with pytest.raises(SweepFailed) as failed:
        Sweep(scenario, scenario.ensemble).run(_DeadScheduler(), where="the cluster at 10.0.0.9")
    assert "the cluster at 10.0.0.9" in str(failed.value) and "OSError" in str(failed.value)
