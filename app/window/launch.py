"""Opening the window: the application, the window, its screenshot, and ``attitude-sim gui``.

:func:`run_gui` is what ``attitude-sim gui`` calls (from :mod:`app.cli.gui`,
after the flags were checked without Qt).
"""

from __future__ import annotations

import gc
import os
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.window.main import MainWindow
from app.window.pictures import grab_window, save_png
from app.window.theme import apply_theme
from sim import load_scenario as load

__all__ = ["run_gui", "application", "open_window", "display_problem"]


def application() -> QApplication:
    """The process's ``QApplication``, created if need be, with the window's theme.

    Sets ``QT_QPA_UPDATE_IDLE_TIME=0`` (unless set) before the first window
    asks for an update: by default Qt delivers a window's update request
    5 ms after it is made, so the 3D view would be drawn 5 ms after each
    frame tick, which costs a good part of the frame rate (docs/PERFORMANCE.md).
    """
    os.environ.setdefault("QT_QPA_UPDATE_IDLE_TIME", "0")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("attitude-sim")
    apply_theme(app)
    return app


def open_window(scenario, *, remember_geometry: bool = True, speed: float | None = None, link=None) -> MainWindow:
    """Create and show the main window on :func:`application`, running ``scenario``.

    After the window is built, every object made so far is moved out of the
    garbage collector's sight (``gc.freeze``): the tens of thousands of Qt
    and pyqtgraph objects would otherwise be scanned by each full
    collection, a pause in the frame loop every few seconds.  Garbage
    is collected first, so nothing unreachable is kept for good.  The
    simulation's kernels, loaded a few seconds later by their own thread,
    are frozen the same way by their loader (``sim.core.collector``).
    """
    application()
    window = MainWindow(scenario, remember_geometry=remember_geometry, speed=speed, link=link)
    window.show()
    gc.collect()
    gc.freeze()
    return window


def display_problem() -> str | None:
    """Why the window cannot draw its 3D view here (no display, or a Qt platform without OpenGL), or None."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal")):
        return f"QT_QPA_PLATFORM={platform} has no OpenGL for the 3D view"
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display"
    return None


def run_gui(scenario="default", screenshot=None, after: float = 2.0, link=None, attitude_file=None,
            size=None) -> int:
    """Open the window; with ``screenshot``, save a picture after ``after`` s and exit.

    Parameters
    ----------
    scenario : str or Scenario
        Built-in scenario name, scenario file, or a loaded scenario.
    screenshot : path-like, optional
        PNG file: the whole window including the 3D view, taken after
        ``after`` seconds of wall time with the simulation running.  The
        window then has its default size, whatever was saved.
    after : float
        Seconds before the screenshot.
    link : app.link.LinkServer, optional
        The live link, bound (``--link``): the window attaches and closes it.
    attitude_file : path-like, optional
        A CCSDS attitude file to play beside the simulation (File > Open attitude file).
    size : (int, int), optional
        The window's width and height (``--size``), or as large as its smallest when it cannot be that small.

    Returns
    -------
    int
        Exit code: 0, 1 when the screenshot could not be written, 2 without
        a display (with one line saying to use ``xvfb-run -a``).
    """
    reason = display_problem()
    if reason is not None:
        print(f"attitude-sim: {reason}; run the window on a virtual screen: "
              "xvfb-run -a attitude-sim gui --screenshot out.png", file=sys.stderr)
        if link is not None:
            link.close()
        return 2
    scenario = load(scenario) if isinstance(scenario, str) else scenario
    window = open_window(scenario, remember_geometry=screenshot is None, link=link)
    if size is not None:
        window.resize(*size)
    if attitude_file is not None:
        window.playback.open(attitude_file)
    app = QApplication.instance()
    result = {"code": 0}
    if screenshot is not None:
        def capture():
            try:
                save_png(grab_window(window), screenshot)
            except OSError as exc:  # one line with the reason (not libpng's own message)
                print(f"attitude-sim: error: cannot write {screenshot}: {exc.strerror or exc}", file=sys.stderr)
                result["code"] = 1
            window.close()
        QTimer.singleShot(round(after * 1000), capture)
    app.exec()
    return result["code"]
