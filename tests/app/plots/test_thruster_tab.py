"""The Thrusters tab (issue 45) against the run's history: the phase plane's curves are each axis's angle error
and rate as recorded (the dead band's limit cycle a closed loop between the walls), the fuel curve the run's
fuel in grams; the tab is there only with thrusters."""

import math

import numpy as np
import pytest

from app.plots.history import History
from app.plots.turns import REFRESH_EVERY
from app.plots.thrusters import ThrusterTab
from sim.run.runner import Runner
from sim.run.scenario import Scenario, load

STEPS = 4000  # 40 s at dt 0.01 s: each axis has turned at a wall at least once (z at 8.7 s, x 17.5 s, y 20.9 s)


@pytest.fixture
def tab(qtbot):
    settings = load("thruster_limit_cycle").settings
    runner = Runner(Scenario(name="limit cycle", settings=settings))
    history = History(columns=runner.columns, capacity=2**13)
    tab = ThrusterTab(history)
    qtbot.addWidget(tab)
    tab.resize(600, 800)
    tab.show()
    qtbot.waitExposed(tab)
    tab.window_seconds = 60.0
    assert tab.show_settings(settings)
    history.append(np.asarray(runner.advance(STEPS).rows))
    tab.refresh()
    return tab, history, settings


def test_the_phase_plane_draws_each_axis_error_against_its_rate(tab):
    tab, history, settings = tab
    for curve, (angle, rate, inertia) in zip(tab.curves, (("phi_deg", "wx", 100.0), ("theta_deg", "wy", 120.0),
                                                          ("psi_deg", "wz", 50.0))):
        x, y = curve.getData()
        assert len(x) == len(history)
        # the command stays at zero (the attitude at t = 0): the error is the angle itself (wrapped to +-180)
        assert np.allclose(x, history.column(angle), rtol=0, atol=1e-12)
        assert np.array_equal(y, np.degrees(history.column(rate)))
        # the limit cycle of the closed form: +-w = T t / (2 J) (within 2 %: the axes couple, w x J w), and the
        # wall at 1 deg reached
        w = math.degrees(2.0 * 0.1 / (2.0 * inertia))
        assert y.max() == pytest.approx(w, rel=0.02) and y.min() == pytest.approx(-w, rel=0.02)
        assert np.abs(x).max() == pytest.approx(1.0, abs=0.01)
    walls = sorted(wall.value() for wall in tab.walls)
    assert walls == [-1.0, 1.0] and all(wall.isVisible() for wall in tab.walls)


def test_the_fuel_curve_is_the_runs_fuel_in_grams(tab):
    tab, history, _ = tab
    x, y = tab.plots.plot("fuel").listDataItems()[0].getData()
    fuel = 1e3 * history.column("fuel_kg")
    assert np.nanmax(y) == pytest.approx(fuel.max(), rel=1e-12) and fuel.max() > 0.0
    _, firing = tab.plots.plot("firing").listDataItems()[0].getData()
    assert np.nanmax(firing) == 2.0  # one couple at a time: two thrusters at full level


def test_no_thrusters_no_tab(qtbot):
    tab = ThrusterTab(History(columns=("t",), capacity=16))
    qtbot.addWidget(tab)
    assert not tab.show_settings(load("default").settings)
    assert not any(wall.isVisible() for wall in tab.walls)


def test_each_frame_draws_a_share_the_phase_plane_taking_its_turn_after_the_plots(tab):
    """The time plots and the phase plane take turns over REFRESH_EVERY display frames, each drawn once and at
    most ceil(3 / REFRESH_EVERY) of them a frame; before, every third frame drew them all (the long frame that
    loses a tick of the frame timer: docs/PERFORMANCE.md, "The window's frame rates (issue 42, stop 51)")."""
    tab, history, settings = tab
    runner = Runner(Scenario(name="limit cycle", settings=settings))
    rows = np.asarray(runner.advance(STEPS + 50).rows)[STEPS:]
    history.append(rows)
    names, count = tab.plots.plot_names(), history.count
    drawn = []
    for frame in range(REFRESH_EVERY):
        was = {name for name in names if tab.plots.curve_points(name) == count}
        phase = len(tab.curves[0].getData()[0])
        tab.refresh_due(frame)
        now = {name for name in names if tab.plots.curve_points(name) == count}
        drawn.append(sorted(now - was) + (["phase"] if len(tab.curves[0].getData()[0]) != phase else []))
    assert sorted(sum(drawn, [])) == sorted(list(names) + ["phase"])
    assert max(len(share) for share in drawn) == math.ceil((len(names) + 1) / REFRESH_EVERY)
