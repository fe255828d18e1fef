"""The CMG tab (issue 45, app/plots/cmg.py) against the run's own history.

The curves are the history's columns, sample for sample (the gimbal angles and rates, m, the torque asked and
made); the envelope plot's point is the cluster's momentum, written here from Wie's closed form of the
pyramid (not the tab's formula), and its outline reaches the published (2 + 2 cos beta) h0 along x and y.
"""

import math

import numpy as np
import pytest

from app.plots.cmg import CmgTab, projection_plane
from app.plots.turns import REFRESH_EVERY
from cmg_oracle import wie_pyramid_momentum
from app.plots.history import History
from sim.run.runner import Runner
from sim.run.scenario import load

STEPS = 300          # 15 s at dt = 0.05 s: inside the 20 s window, drawn sample for sample


def curve_data(panel, plot: str, label: str):
    found = [c for c in panel.plot(plot).listDataItems() if c.name() == label]
    assert len(found) == 1, f"{plot}: one curve called {label!r}, found {len(found)}"
    x, y = found[0].getData()
    return np.asarray(x), np.asarray(y)


@pytest.fixture
def tab(qtbot):
    scenario = load("cmg_singularity")
    runner = Runner(scenario)
    history = History(columns=runner.columns, capacity=2**12)
    tab = CmgTab(history)
    qtbot.addWidget(tab)
    tab.resize(600, 900)
    tab.show()
    qtbot.waitExposed(tab)
    assert tab.show_settings(scenario.settings)
    rows = np.asarray(runner.advance(STEPS).rows)
    history.append(rows)
    tab.refresh()
    return tab, scenario.settings, dict(zip(runner.columns, rows.T))


def test_the_plots_show_the_histories_columns(tab):
    tab, _, h = tab
    panel = tab.panel
    for plot, label, column in (("cmg_angles", "δ1", "cmg_delta1"), ("cmg_angles", "δ3", "cmg_delta3"),
                                ("cmg_rates", "dδ2/dt", "cmg_rate2"), ("cmg_m", "m = det(A Aᵀ)/h0⁶", "cmg_m"),
                                ("cmg_torque", "τx made", "cmg_t_x"), ("cmg_torque", "τx asked", "cmg_tc_x")):
        t, y = curve_data(panel, plot, label)
        np.testing.assert_array_equal(t, h["t"])
        np.testing.assert_array_equal(y, h[column])
    assert np.ptp(h["cmg_delta1"]) > 10.0 and np.ptp(h["cmg_m"]) > 0.1   # the gimbals turned, m moved


def test_the_envelope_point_is_the_clusters_momentum(tab):
    tab, s, h = tab
    b = math.radians(s.cmg_skew)
    c = math.cos(b)
    d = np.radians([h[f"cmg_delta{i}"][-1] for i in range(1, 5)])
    hx, hy, hz = wie_pyramid_momentum(s.cmg_h0, b, d)   # Wie ch. 7
    i, j = tab.plane
    assert i == 0                                    # a roll: x is on the plot, beside the axis of more motion
    x, y = tab.point.getData()
    assert x[-1] == pytest.approx(hx, abs=1e-12) and y[-1] == pytest.approx((hx, hy, hz)[j], abs=1e-12)
    assert hx < -0.5                                 # on its way along -x
    ox, oy = tab.outline.getData()
    # the envelope reaches (2 + 2 cos beta) h0 along x and y and 4 sin(beta) h0 along z (Wie ch. 7)
    reach = [(2 + 2 * c) * s.cmg_h0, (2 + 2 * c) * s.cmg_h0, 4 * math.sin(b) * s.cmg_h0]
    assert np.max(ox) == pytest.approx(reach[i], rel=1e-3)
    assert np.max(oy) == pytest.approx(reach[j], rel=1e-3)


def test_the_projection_plane_follows_the_trail():
    yaw = np.array([[0.0, 0.0, z] for z in np.linspace(0.0, -3.0, 50)])
    assert projection_plane(yaw, 2) in (0, 1)        # a yaw's momentum is along z: z stays on the plot
    roll = np.array([[x, 0.01 * x, 0.2 * x] for x in np.linspace(0.0, -2.0, 50)])
    assert projection_plane(roll, 2) == 1            # x and z kept
    assert projection_plane(roll, 1) == 1
    slight = np.array([[x, 0.3 * x, 0.4 * x] for x in np.linspace(0.0, -2.0, 50)])
    assert projection_plane(slight, 2) == 2          # z spreads less than twice y's: no switch


def test_a_run_without_a_cluster_has_no_tab(qtbot):
    tab = CmgTab(History(columns=("t",), capacity=16))
    qtbot.addWidget(tab)
    assert not tab.show_settings(load("reaction_wheels").settings)


def test_the_envelope_shows_the_internal_singular_surfaces(tab):
    # the internal surfaces cut by the plot's plane: Wie's impassable (elliptic) singularity at 2 h0 cos(beta) =
    # 1.15 h0 along x among the red dots, hyperbolic (violet) ones too, all inside the envelope (Wie ch. 7)
    tab, s, _ = tab
    i, j = tab.plane
    b = math.radians(s.cmg_skew)
    ex, ey = (np.asarray(a) for a in tab.elliptic.getData())
    hx, hy = (np.asarray(a) for a in tab.hyperbolic.getData())
    assert len(ex) > 100 and len(hx) > 100
    for sign in (1, -1):
        red = np.hypot(ex - sign * 2 * math.cos(b) * s.cmg_h0, ey).min()
        assert red < 0.05 * s.cmg_h0                                               # a red dot there
        assert red < np.hypot(hx - sign * 2 * math.cos(b) * s.cmg_h0, hy).min()   # and nearer than any violet one
    reach = 4 * math.sin(b) * s.cmg_h0
    assert np.hypot(ex, ey).max() < reach and np.hypot(hx, hy).max() < reach


def test_the_trail_kept_between_refreshes_is_the_momentum_of_the_windows_samples(qtbot, monkeypatch):
    """The trail is refreshed as the window slides (each refresh computes only the new samples' momentum):
    every point is the cluster's momentum at one of the window's samples (Wie's closed form), in time order,
    at most about TRAIL_POINTS of them, spread over the whole window, the last one now."""
    monkeypatch.setattr("app.plots.cmg.TRAIL_POINTS", 30)
    scenario = load("cmg_singularity")
    runner = Runner(scenario)
    history = History(columns=runner.columns, capacity=2**12)
    tab = CmgTab(history)
    qtbot.addWidget(tab)
    tab.resize(600, 900)
    tab.show()
    qtbot.waitExposed(tab)
    tab.show_settings(scenario.settings)
    tab.window_seconds = 5.0  # 100 samples at dt = 0.05 s: a stride of 4, the window sliding
    s = scenario.settings
    for chunk in (37, 41, 1, 29, 77, 3, 60):
        history.append(np.asarray(runner.advance(chunk).rows))
        tab.refresh()
        t, cols = history.window(tab.window_seconds, [f"cmg_delta{i}" for i in range(1, 5)])
        d = np.radians([cols[f"cmg_delta{i}"] for i in range(1, 5)])
        truth = np.array([wie_pyramid_momentum(s.cmg_h0, math.radians(s.cmg_skew), d[:, k]) for k in range(len(t))])
        i, j = tab.plane
        x, y = (np.asarray(a) for a in tab.trail.getData())
        assert 2 <= len(x) <= 32
        matched, k = [], -1  # each point the momentum of a later sample of the window than the point before
        for px, py in zip(x, y):
            later = np.flatnonzero(np.hypot(px - truth[k + 1:, i], py - truth[k + 1:, j]) < 1e-12)
            assert len(later), f"a trail point ({px}, {py}) is no later sample's momentum"
            k += 1 + int(later[0])
            matched.append(k)
        assert x[-1] == pytest.approx(truth[-1, i], abs=1e-12) and y[-1] == pytest.approx(truth[-1, j], abs=1e-12)
        assert matched[0] <= len(t) // 30 + 1  # from the window's start


def test_each_frame_draws_a_share_the_envelope_taking_its_turn_after_the_plots(tab):
    """The tab's four plots and its envelope take turns over REFRESH_EVERY display frames: each is drawn once,
    no frame draws more than ceil(5 / REFRESH_EVERY) of them.  The envelope on a cadence of its own (every third
    frame) fell in the frame of the first and fourth plots: that frame drew three, the long frame that lost a
    tick of the frame timer (docs/PERFORMANCE.md, "The window's frame rates (issue 42, stop 51)")."""
    tab, _, h = tab
    history, names = tab.history, tab.panel.plot_names()
    more = np.column_stack([h[c] for c in history.columns])[-80:-40].copy()
    more[:, history.columns.index("t")] += h["t"][-1] - h["t"][-81]   # 40 more samples, on in time
    history.append(more)
    count = history.count
    drawn, point = [], tab.point.getData()
    for frame in range(REFRESH_EVERY):
        was = {name for name in names if tab.panel.curve_points(name) == count}
        tab.refresh_due(frame)
        now = {name for name in names if tab.panel.curve_points(name) == count}
        moved = not np.array_equal(tab.point.getData(), point)
        point = tab.point.getData()
        drawn.append(sorted(now - was) + (["envelope"] if moved else []))
    assert sorted(sum(drawn, [])) == sorted(list(names) + ["envelope"])      # each once
    assert max(len(share) for share in drawn) == math.ceil((len(names) + 1) / REFRESH_EVERY)
    # the point is now the latest sample's momentum, as refresh() draws it
    x, y = tab.point.getData()
    tab.refresh()
    np.testing.assert_array_equal(tab.point.getData(), (x, y))
