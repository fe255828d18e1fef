"""The plots room's panel: a PlotPanel of every live plot over an empty history (tests/plot_helpers.py shows it)."""

import pytest


@pytest.fixture
def history():
    """An empty history of the main body's columns, room for 2**15 samples."""
    from app.plots.history import History

    return History(capacity=2**15)


@pytest.fixture
def panel(qtbot, history):
    """The live plots over ``history``, kept by ``qtbot``, 700 x 800, not shown (a module shows it if it needs)."""
    from app.plots.live import PlotPanel

    widget = PlotPanel(history)
    qtbot.addWidget(widget)
    widget.resize(700, 800)
    return widget
