"""The Magnetic tab's wheel-momentum curves against the run's history (issue 40, planted bug 7).

What the tab shows while the torquers dump momentum: the wheels' momentum in body axes,
``h_w = sum_i a_i J_s,i Omega_i`` (N m s), the quantity the dumping law drives toward zero.  Two references
from the recorded history, neither the tab's formula: the sum written here with the pyramid's axes typed
from their definition and each wheel's own J_s; and the total momentum less the body's share, both
recorded in inertial axes, turned to body axes, ``C(Q) (H - H_body)`` with C(Q) from scipy (tests/oracle.py).
Four wheels of four different inertias, so a missing or misplaced J_s cannot pass.
"""

import math

import numpy as np
import pytest

from app.plots.environment import EnvironmentPlots
from app.plots.history import History
from oracle import scipy_rotation
from plot_helpers import curve_data, fed, shown
from sim.run.runner import Runner
from sim.run.scenario import Scenario, load

J_S = (0.01, 0.02, 0.03, 0.05)
C, S = 1.0 / math.sqrt(3.0), math.sqrt(2.0 / 3.0)
PYRAMID = np.array([(S, 0.0, C), (0.0, S, C), (-S, 0.0, C), (0.0, -S, C)])
STEPS = 30           # 15 s at dt = 0.5 s: inside the 20 s window, drawn sample for sample


@pytest.fixture
def tab(qtbot):
    """The tab set up for a run (show_settings, as the window does) and fed its first rows."""
    settings = load("momentum_dumping").settings.replace(wheels="pyramid", wheel_inertia=J_S,
                                                         wheel_speeds=(60.0, -40.0, 25.0, 10.0))
    runner = Runner(Scenario(name="dumping on a pyramid", settings=settings))
    history = History(columns=runner.columns, capacity=2**12)
    panel = shown(qtbot, EnvironmentPlots(history))
    assert panel.show_settings(settings)
    rows = fed(panel, history, runner.advance(STEPS).rows)
    return panel, dict(zip(runner.columns, rows.T))


def test_the_wheel_momentum_curves_are_the_wheels_momentum_of_the_history(tab):
    panel, h = tab
    assert panel.is_visible("wheel_momentum")
    speeds = np.array([h[f"wheel{i}"] for i in range(1, 5)])
    by_hand = (PYRAMID.T * np.array(J_S)) @ speeds                       # (3, samples)
    turned = np.array([scipy_rotation(q).inv().apply(hi - hb) for q, hi, hb in zip(
        np.array([h[f"q{i}"] for i in range(1, 5)]).T,
        np.array([h[f"h{a}"] for a in "xyz"]).T, np.array([h[f"hb{a}"] for a in "xyz"]).T)]).T
    np.testing.assert_allclose(turned, by_hand, rtol=1e-9, atol=1e-12)  # the two references agree
    assert np.abs(by_hand).max() > 0.5                                   # the wheels hold momentum (N m s)
    for k, a in enumerate("xyz"):
        t, y = curve_data(panel, "wheel_momentum", f"h{a}")
        np.testing.assert_array_equal(t, h["t"])
        np.testing.assert_allclose(y, by_hand[k], rtol=1e-12, atol=1e-15)
