"""The period of a torque-free body's rates in the Compare tab: measured against 4 K(m)/lambda.

References: K(m) from scipy.special.ellipk with lambda and m written out
here from Landau and Lifshitz (Mechanics, section 37), and an rk4 run at a
small step (the flip of the phone and of the T-handle).
"""

import math
import re

import numpy as np
import pytest
from scipy import special

from app.plots.compare import ComparePanel, period_note
from app.plots.feed import PlotFeed
from app.plots.history import History
from sim.core.body import Body
from sim.run.scenario import load
from sim.model.simulation import Simulation
from sim.model.rows import HISTORY_COLUMNS
from sim.core.tumble import PeriodWatch, torque_free


def landau_period(j, w):
    """4 K(m) / lambda for the rates ``w`` of a body of inertia ``j`` (either case of L&L section 37)."""
    moments, axes = np.linalg.eigh(j)
    wp = axes.T @ np.asarray(w, dtype=float)
    two_e, mm = float(moments @ wp ** 2), float(moments ** 2 @ wp ** 2)
    i1, i2, i3 = moments if mm > two_e * moments[1] else moments[::-1]
    lam = math.sqrt((i3 - i2) * (mm - two_e * i1) / (i1 * i2 * i3))
    m = (i2 - i1) * (two_e * i3 - mm) / ((i3 - i2) * (mm - two_e * i1))
    return 4.0 * special.ellipk(m) / lam


def rows_of(name, seconds, dt=1e-3):
    """The main body's history rows of scenario ``name`` flown by rk4 at ``dt``."""
    settings = load(name).settings.replace(integrator="rk4", dt=dt)
    sim = Simulation(settings)
    rows = [sim.row()]
    for _ in range(round(seconds / dt)):
        sim.step()
        rows.append(sim.row())
    return settings, np.array(rows)


@pytest.mark.parametrize("name", ["tennis_racket", "intermediate_axis"])
def test_period_watch_measures_the_flip_against_the_closed_form(name):
    settings, rows = rows_of(name, {"tennis_racket": 17.0, "intermediate_axis": 38.0}[name])
    j = Body(settings.mass_properties.inertia).J
    watch = PeriodWatch(j)
    t, w = rows[:, HISTORY_COLUMNS.index("t")], rows[:, HISTORY_COLUMNS.index("wx"):HISTORY_COLUMNS.index("wx") + 3]
    for start in range(0, len(t), 777):    # in batches, as the window feeds it
        watch.add(t[start:start + 777], w[start:start + 777])
    period, m = watch.closed_form()
    # from the last rates, whose energy and momentum rk4 keeps to ~1e-12 (m near 1 magnifies that)
    assert period == pytest.approx(landau_period(j, settings.rates), rel=1e-9)
    assert 0.999 < m < 1.0
    assert watch.measured == pytest.approx(period, rel=1e-5)
    watch.reset()
    assert watch.measured is None and watch.closed_form() is None


def test_period_watch_needs_a_whole_period_and_a_tumble():
    settings, rows = rows_of("tennis_racket", 4.0)
    watch = PeriodWatch(Body(settings.mass_properties.inertia).J)
    watch.add(rows[:, 0], rows[:, 5:8])
    assert watch.measured is None and watch.closed_form() is not None
    spin = PeriodWatch(np.diag([1.0, 2.0, 3.0]))
    spin.add([0.0, 0.1], [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    assert spin.closed_form() is None                        # a pure spin has no period of its rates


def test_the_note_says_both_numbers_and_only_while_torque_free(qtbot):
    settings, rows = rows_of("tennis_racket", 17.0, dt=2e-3)
    watch = PeriodWatch(Body(settings.mass_properties.inertia).J)
    watch.add(rows[:, 0], rows[:, 5:8])
    text = period_note(watch, torque_free(settings))
    closed = float(re.search(r"<b>([\d.]+)&nbsp;s</b>", text).group(1))
    measured = float(re.search(r"main body: <b>([\d.]+) s", text).group(1))
    assert closed == pytest.approx(landau_period(Body(settings.mass_properties.inertia).J,
                                                              settings.rates), abs=1e-6)
    assert measured == pytest.approx(closed, rel=1e-5)
    assert "Landau" in text and "4&nbsp;K(m)" in text
    assert period_note(watch, torque_free(settings.replace(torque=(0.0, 1e-4, 0.0)))) == ""
    assert period_note(watch, torque_free(settings.replace(dampers_on=True))) == ""
    assert period_note(None, True) == ""
    panel = ComparePanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_note(text)
    assert panel.note.isVisible() and panel.note.text() == text
    panel.set_note("")
    assert not panel.note.isVisible()


def test_the_feed_hands_the_main_rows_to_the_watch_and_a_reset_clears_it(qtbot):
    from app.plots.live import PlotPanel

    settings, rows = rows_of("tennis_racket", 12.0, dt=2e-3)     # three sign changes: 1.9, 5.8, 9.7 s
    history = History()
    plots, compare = PlotPanel(history), ComparePanel()
    qtbot.addWidget(plots)
    qtbot.addWidget(compare)
    feed = PlotFeed(history, plots, compare)
    feed.period = PeriodWatch(Body(settings.mass_properties.inertia).J)

    class Batch:
        def __init__(self, part):
            self.rows, self.compare_rows = part, {}
            self.last = None

    for start in range(0, len(rows), 1000):
        feed.take(Batch(rows[start:start + 1000]), 2e-3)
    assert feed.period.measured == pytest.approx(feed.period.closed_form()[0], rel=1e-5)
    feed.take(Batch(rows[:5]), 2e-3)        # back in time: a reset
    assert feed.period.measured is None


@pytest.mark.gl
def test_the_compare_tab_shows_the_phones_flip_period(qtbot, main_window):
    win = main_window("tennis_racket", speed=10.0)
    note = win.compare.note
    qtbot.waitUntil(lambda: note.isVisible() and "4&nbsp;K(m)" in note.text())
    qtbot.waitUntil(lambda: "relative" in note.text(), timeout=20_000)
    closed = float(re.search(r"<b>([\d.]+)&nbsp;s</b>", note.text()).group(1))
    measured = float(re.search(r"main body: <b>([\d.]+) s", note.text()).group(1))
    settings = load("tennis_racket").settings
    assert closed == pytest.approx(landau_period(Body(settings.mass_properties.inertia).J, settings.rates),
                                   abs=1e-6)
    assert measured == pytest.approx(closed, rel=1e-5)
    win.flight.worker.submit("torque", (0.0, 1e-5, 0.0))
    qtbot.waitUntil(lambda: not note.isVisible())
