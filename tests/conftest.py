"""Shared test set-up: the Qt platform and the GL guard.

pytest-xvfb starts a virtual screen and sets DISPLAY; OpenGL then works with
the xcb platform (Mesa llvmpipe).  Without a display Qt runs offscreen, where
no GL context exists, so GL tests skip (a GL call there kills the process).
The tests run with PyOpenGL's error checking on (ATTITUDE_SIM_GL_CHECKS).
"""

import os

import pytest

# PyOpenGL's error check after every GL call: off in the application (app/view3d/__init__.py), on in the tests.
os.environ.setdefault("ATTITUDE_SIM_GL_CHECKS", "1")

# Imported before any QApplication exists, which app.view3d.glwindow needs (shared GL contexts).
from app.view3d.attitude_view import AttitudeView


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("DISPLAY") else "offscreen"


def gl_available() -> bool:
    """True when Qt runs on a real (virtual) X screen, where a GL context can be made."""
    return bool(os.environ.get("DISPLAY")) and os.environ.get("QT_QPA_PLATFORM") == "xcb"


def pytest_itemcollected(item):
    """Mark every test that needs a QApplication (through pytest-qt's qtbot or qapp) as ``qt``,
    so that the GUI-free tests can be chosen with ``-m "not qt"`` (make mutate does)."""
    if {"qtbot", "qapp"} & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.qt)


def pytest_collection_modifyitems(config, items):
    seed = config.getoption("--shuffle-seed")
    if seed is not None:  # make stress: a different order of set-ups and tear-downs
        import random

        random.Random(seed).shuffle(items)
    if gl_available():
        return
    skip = pytest.mark.skip(reason="no OpenGL: needs a display with the xcb platform (Xvfb)")
    for item in items:
        if "gl" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def view(qtbot):
    """An :class:`app.view3d.attitude_view.AttitudeView` of 480x360 on screen (skips without OpenGL)."""
    from pyqtgraph.Qt import QtGui

    if not gl_available() or QtGui.QGuiApplication.platformName() != "xcb":
        pytest.skip("needs OpenGL: an X display and QT_QPA_PLATFORM=xcb")
    widget = AttitudeView()
    qtbot.addWidget(widget)
    widget.resize(480, 360)
    widget.show()
    qtbot.waitExposed(widget)
    # Exposed is not enough: the embedded QOpenGLWindow makes its context on its first events.
    qtbot.waitUntil(widget.scene.isValid, timeout=10_000)
    return widget


@pytest.fixture
def main_window(qtbot):
    """Open the main window on a scenario (``main_window("integrators", speed=10.0)``), shown and
    running; every window opened is closed (its thread stopped) at the end."""
    from app.window import MainWindow
    from sim.run.scenario import load

    opened = []

    def open_main_window(scenario: str = "default", speed: float = 1.0):
        win = MainWindow(load(scenario), remember_geometry=False, speed=speed)
        opened.append(win)
        win.show()
        qtbot.waitExposed(win)
        qtbot.waitUntil(lambda: win.last_snapshot is not None)
        return win

    yield open_main_window
    from PySide6.QtCore import QCoreApplication, QEvent

    for win in opened:
        win.close()
        # Deleted here, at a known point, not whenever the garbage collector happens to run
        # (possibly inside another widget's paint event in a later test).
        win.deleteLater()
    opened.clear()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def pytest_addoption(parser):
    parser.addoption("--soak-minutes", type=float, default=0.5,
                     help="wall time of the soak test in minutes (make soak: 30)")
    parser.addoption("--shuffle-seed", type=int, default=None,
                     help="run the tests in an order shuffled with this seed (make stress)")


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    """Release Qt's native windows while the virtual screen still exists.

    pytest-xvfb stops Xvfb in its own unconfigure hook; native GL windows
    (the 3D view is a QOpenGLWindow) released after that, at interpreter
    exit, crash in the X connection.
    """
    import sys

    if "PySide6.QtGui" not in sys.modules:
        return
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance()
    if app is None:
        return
    for window in QGuiApplication.allWindows():
        window.destroy()
    app.processEvents()
    # Widgets the tests closed with deleteLater (pytest-qt) are deleted now, while
    # their native windows can still be reached: left to QApplication's destructor at
    # interpreter exit, a 3D view's window container reaches into its released
    # QOpenGLWindow and crashes.
    from PySide6.QtCore import QEvent

    app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    app.processEvents()


@pytest.fixture(autouse=True)
def _collect_qt_garbage(request):
    """After a test that used Qt, free its unreachable objects now, outside any event loop.

    Left to the cyclic garbage collector, a Qt object (a window, a GL window,
    a plot item) is destroyed whenever the collector happens to run: seen
    here inside a later test's event loop, where it crashed the process.
    """
    yield
    if "qtbot" not in request.fixturenames:
        return
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
