"""The lab's long run (sim.lab.run_drift): ``final`` is the value at the end of the run."""

import pytest

from sim import lab


def test_final_is_the_last_sample_at_the_end_of_the_run():
    drift = lab.run_drift(lab.Combination("rk4", "hoffmann"), steps=40, samples=8)
    assert len(drift.series["t"]) > 3
    assert drift.final("t") == pytest.approx(40 * lab.DT) == drift.t_end
    # torque-free rk4 over 0.4 s: energy and momentum hold far better than a part in a million at the end
    assert abs(drift.final("energy")) < 1e-9 and abs(drift.final("momentum")) < 1e-9
