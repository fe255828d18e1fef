"""A chunk's columns (sim.sweep.chunk): the documented names per wheel and for an estimator, and the
estimation window that opens at the run's half whatever the trajectory sampling, against an Ensemble
flown by hand (Ensemble.start_estimate_window at step steps // 2)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim.ensemble import Ensemble
from sim.run.scenario import load
from sim.sweep.chunk import COLUMNS, columns, run_chunk, sample_times


@pytest.mark.parametrize("wheels", [1, 3, 4])
def test_each_wheel_has_its_column_wheel1_to_wheelN(wheels):
    names = columns(wheels=wheels)
    assert names[:len(COLUMNS)] == COLUMNS
    assert names[len(COLUMNS):] == tuple(f"wheel{i}" for i in range(1, wheels + 1))


def test_an_estimator_adds_the_estimate_and_nees_columns():
    names = columns(estimator=True)
    for name in ("qe1", "qe2", "qe3", "qe4", "est_err_deg", "est_rms_deg", "nees", "nees_mean"):
        assert name in names, name
    assert "nees" not in columns(estimator=False)


@pytest.mark.parametrize("traj_every", [0, 3, 7])
def test_the_estimate_window_opens_at_the_half_whatever_the_sampling(traj_every):
    scenario = load("mekf_monte_carlo")
    spec = replace(scenario.ensemble, bodies=3)
    steps = 20
    got = run_chunk(scenario.settings, spec, (), steps, 0, 3, traj_every=traj_every)
    ens = Ensemble(scenario.settings, spec)
    ens.step(steps // 2)
    ens.start_estimate_window()
    ens.step(steps - steps // 2)
    want = ens.estimation_metrics()
    for key in ("est_rms_deg", "nees_mean"):
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)


def test_a_trajectory_samples_every_nth_step_and_the_last_once():
    # 0, every, 2 every, ... up to the run's last step, which is always there and never twice
    assert sample_times(12, 4).tolist() == [0, 4, 8, 12]
    assert sample_times(10, 4).tolist() == [0, 4, 8, 10]
    assert sample_times(5, 10).tolist() == [0, 5]
    assert sample_times(0, 3).tolist() == [0]
