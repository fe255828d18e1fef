"""The window flies an ensemble of thruster bodies (issue 45): an ensemble is no longer refused thrusters.

The bodies of ``pwpf_slew`` start at rest at random attitudes; only their thrusters turn them (without wheels
the thrusters realise the torque law, sim.model.thruster_drive), so every body moving proves them firing.
"""

import numpy as np
import pytest


@pytest.mark.gl
def test_an_ensemble_of_thruster_bodies_turns_in_the_window(qtbot, main_window):
    win = main_window("pwpf_slew")
    view = win.ensemble
    view.set_bodies(50)
    view.set_on(True)
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == 50)
    q0 = view.frame.info.q0
    assert np.array_equal(view.frame.info.q0, q0) and not view.frame.info.rates0.any()  # at rest
    qtbot.waitUntil(lambda: view.frame.t > 1.0)
    assert np.all(np.abs(view.frame.q - q0).max(axis=0) > 1e-4)
