"""What the plot tests share: a panel shown as the window shows it, fed a run's rows, and a curve read back.

:func:`shown` opens a widget on the (virtual) screen at a size and waits until it is
exposed; :func:`fed` appends rows to its history and redraws it, as the window's frame
does; :func:`curve_data` reads what a curve draws, found by its legend name.
"""

import numpy as np


def shown(qtbot, widget, width: int = 700, height: int = 800):
    """``widget`` kept by ``qtbot``, resized to ``width`` x ``height``, shown and exposed."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def fed(widget, history, rows):
    """``rows`` appended to ``history`` and ``widget`` redrawn from it (as the window's frame does); the rows."""
    rows = np.asarray(rows)
    history.append(rows)
    widget.refresh()
    return rows


def curve_data(panel, plot: str, label: str):
    """``(x, y)`` drawn by the curve called ``label`` (its legend name) in plot ``plot``: empty before any data."""
    found = [c for c in panel.plot(plot).listDataItems() if c.name() == label]
    assert len(found) == 1, f"{plot}: one curve called {label!r}, found {len(found)}"
    x, y = found[0].getData()
    return (np.empty(0), np.empty(0)) if x is None else (np.asarray(x), np.asarray(y))
