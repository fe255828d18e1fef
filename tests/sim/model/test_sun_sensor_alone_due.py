"""sim.model.craft_nav.start_inputs of a craft whose only vector sensor is a Sun sensor (no magnetometer): its
samples fall due at its own rate, the instants k / rate in [t, t + dt) counted by hand, each taking the Sun
stream's next index, the magnetometer's stream untouched."""

import numpy as np
import pytest

from sim.gnc.sensing import CFG, CFG_SIZE, INP
from sim.model.craft_nav import CTL, CTL_SIZE, start_inputs


def _nav():
    ctl, cfg = np.zeros(CTL_SIZE), np.zeros(CFG_SIZE)
    ctl[CTL["vector_rate"][0]] = 10.0  # 10 Hz: samples at 0, 0.1, 0.2, ... s
    ctl[CTL["k_sun"][0]], ctl[CTL["k_mag"][0]] = 3.0, 7.0
    cfg[CFG["sun"][0]] = 1.0  # a Sun sensor, no magnetometer (cfg "mag" 0), no world (in the Sun)
    return ctl, cfg


@pytest.mark.parametrize("t, dt, due", [(0.0, 0.1, True), (0.05, 0.01, False), (0.19, 0.02, True),
                                        (0.21, 0.05, False)])
def test_sun_sensor_without_magnetometer_samples_at_its_rate(t, dt, due):
    ctl, cfg = _nav()
    inp = start_inputs((ctl, cfg), t, dt, np.zeros(1))
    assert inp[INP["vector_due"][0]] == (1.0 if due else 0.0)
    assert ctl[CTL["k_sun"][0]] == (4.0 if due else 3.0)  # the Sun stream's index moved on once
    assert ctl[CTL["k_mag"][0]] == 7.0  # the magnetometer's never
    if due:
        assert inp[INP["k_sun"][0]] == 3.0
