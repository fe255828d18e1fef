"""The Estimation tab's error plots: the error between its +3 sigma and -3 sigma curves (issue 40, planted bug 6).

What a user reads there: per body axis, the estimation error and a band ``±3 sigma`` around zero from the
filter's covariance, the error inside the band nearly always (a consistent filter).  The band is symmetric:
its lower curve is the mirror of its upper one.  Fed as the window feeds it (a Runner's rows into the
history), from the mekf scenario; the +3 sigma curve against ``attitude-sim run``'s CSV column sig3_*_deg.
"""

import csv
import io

import numpy as np
import pytest

from app.plots.estimation import ESTIMATION_PLOTS
from app.plots.history import History
from app.plots.live import PlotPanel
from plot_helpers import curve_data, fed, shown
from sim.run.runner import Runner
from sim.run.scenario import load

STEPS = 100          # 10 s of the mekf scenario at dt = 0.1 s: inside the 20 s window, drawn sample for sample


@pytest.fixture
def panel(qtbot):
    runner = Runner(load("mekf"))
    history = History(columns=runner.columns, capacity=2**12)
    widget = shown(qtbot, PlotPanel(history, plots=ESTIMATION_PLOTS), 700, 900)
    fed(widget, history, runner.advance(STEPS).rows)
    return widget


def test_each_axis_draws_its_error_inside_a_symmetric_three_sigma_band(panel, capsys):
    from app.cli import main

    assert main(["run", "--scenario", "mekf", "--duration", str(STEPS * 0.1)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    table = {name: np.array([float(r[k]) for r in rows[2:]]) for k, name in enumerate(rows[0])}  # t > 0
    for a in "xyz":
        t, err = curve_data(panel, f"err_{a}", f"δθ{a}")
        _, upper = curve_data(panel, f"err_{a}", "+3σ")
        _, lower = curve_data(panel, f"err_{a}", "−3σ")
        np.testing.assert_array_equal(t, table["t"])
        np.testing.assert_allclose(err, table[f"err_{a}_deg"], rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(upper, table[f"sig3_{a}_deg"], rtol=1e-14, atol=1e-15)
        assert upper.min() > 0.0
        np.testing.assert_array_equal(lower, -upper)                 # the band's lower edge mirrors the upper
        inside = (lower <= err) & (err <= upper)
        assert inside.mean() > 0.95, (a, inside.mean())              # 99.7 % for a consistent filter
