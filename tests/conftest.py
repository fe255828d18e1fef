"""Shared test set-up: the Qt platform, the GL guard and the children's environment.

pytest-xvfb starts a virtual screen and sets DISPLAY; OpenGL then works with
the xcb platform (Mesa llvmpipe).  Without a display Qt runs offscreen, where
no GL context exists: a GL test then FAILS (a GL call there would kill the
process), unless ``ATTITUDE_SIM_NO_GL=1`` says that this machine has no GL;
then the GL tests skip and the summary says how many (docs/INSTALL.md).
The tests run with PyOpenGL's error checking on (ATTITUDE_SIM_GL_CHECKS).

Qt is imported only when a collected test needs it, so the GUI-free tests
run in an environment without PySide6, pyqtgraph or PyOpenGL.
"""

import os
import re

import pytest

# PyOpenGL's error check after every GL call: off in the application (app/view3d/__init__.py), on in the tests.
os.environ.setdefault("ATTITUDE_SIM_GL_CHECKS", "1")

#: The opt-out for a machine without OpenGL: its GL tests skip (counted in the summary) instead of failing.
NO_GL_VARIABLE = "ATTITUDE_SIM_NO_GL"
NO_GL_REASON = f"no OpenGL and {NO_GL_VARIABLE}=1: GL test left out"


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("DISPLAY") else "offscreen"


def gl_available() -> bool:
    """True when Qt runs on a real (virtual) X screen, where a GL context can be made."""
    return bool(os.environ.get("DISPLAY")) and os.environ.get("QT_QPA_PLATFORM") == "xcb"


def gl_opted_out() -> bool:
    return os.environ.get(NO_GL_VARIABLE, "") not in ("", "0")


def no_gl(what: str) -> None:
    """No GL context can be made for ``what``: skip under the opt-out, fail otherwise."""
    if gl_opted_out():
        pytest.skip(NO_GL_REASON)
    pytest.fail(f"{what} needs OpenGL (an X display with QT_QPA_PLATFORM=xcb; pytest-xvfb or xvfb-run gives "
                f"one), and none is here. On a machine without GL, set {NO_GL_VARIABLE}=1 to leave the GL "
                "tests out (docs/INSTALL.md).", pytrace=False)


def pytest_itemcollected(item):
    """Mark every test that needs a QApplication (through pytest-qt's qtbot or qapp) as ``qt``,
    so that the GUI-free tests can be chosen with ``-m "not qt"`` (make mutate does)."""
    if {"qtbot", "qapp"} & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.qt)


def pytest_make_parametrize_id(config, val, argname):
    """A text or bytes parameter's id with each run of characters that pytest would escape
    (newlines, non-ASCII, backslashes) written "_": see the check below."""
    if isinstance(val, (str, bytes)):
        text = val.decode("latin-1") if isinstance(val, bytes) else val
        plain = re.sub(r"[^ -\[\]-~]+", "_", text)  # printable ASCII less the backslash
        if plain != text:
            return plain
    return None


def pytest_collection_modifyitems(config, items):
    # A parameter id with a character that pytest escapes (a newline, a non-ASCII letter, a
    # backslash) is escaped once more each time pytest collects again in the same process, as
    # mutmut's fork server does for every mutant: the id is then "not found", pytest exits 4 and
    # mutmut records a "timeout" (255) without running a test.  One such id once made 211
    # mutants read as killed (docs/RELIABILITY.md, "What a 255 was").
    escaped = [item.nodeid for item in items if "\\" in item.nodeid.partition("[")[2]]
    if escaped:
        raise pytest.UsageError("a test id holds a character that pytest escapes; give it a plain id "
                                "(ids=...): " + ", ".join(escaped))
    seed = config.getoption("--shuffle-seed")
    if seed is not None:  # make stress: a different order of set-ups and tear-downs
        import random

        random.Random(seed).shuffle(items)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """After -m and -k chose the tests: Qt is imported only if one of them needs it."""
    if any("qt" in item.keywords or "gl" in item.keywords for item in session.items):
        # Before any QApplication exists, which app.view3d.glwindow needs (shared GL contexts).
        import app.view3d.glwindow  # noqa: F401


def pytest_runtest_setup(item):
    if "gl" in item.keywords and not gl_available():
        no_gl("this test")


def pytest_terminal_summary(terminalreporter):
    left_out = sum(NO_GL_REASON in str(getattr(report, "longrepr", ""))
                   for report in terminalreporter.stats.get("skipped", []))
    if left_out:
        terminalreporter.write_line(f"{NO_GL_VARIABLE}=1: {left_out} GL tests left out (skipped), not run",
                                    yellow=True, bold=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item):
    """No child process a test starts sees mutmut's ``MUTANT_UNDER_TEST``.

    Under ``make mutate`` the variable names the active mutant, or ``stats`` while
    mutmut records which tests reach which function.  A child Python (a hostile
    case, bench compare, an engine or Dask worker process, ...) inherited it and,
    under ``stats``, could not find mutmut's configuration and exited 1, which
    failed mutmut's stats step on the whole of sim/.  mutmut (3.8 on) keeps its
    own process-local copy of the active mutant and falls back to it when the
    variable is gone, so the tests in this process still run the mutant while
    every child, whatever starts it, runs the unmutated code.
    """
    value = os.environ.get("MUTANT_UNDER_TEST")
    if value is None or not _mutmut_keeps_its_own_copy(value):
        yield
        return
    del os.environ["MUTANT_UNDER_TEST"]
    try:
        yield
    finally:
        os.environ["MUTANT_UNDER_TEST"] = value


def _mutmut_keeps_its_own_copy(value: str) -> bool:
    """True when mutmut's trampoline still sees ``value`` without the environment variable
    (an older mutmut reads only the variable: then it stays, and children inherit it)."""
    try:
        from mutmut.mutation import trampoline
    except ImportError:
        return False
    return getattr(trampoline, "_mutant_under_test", None) == value


@pytest.fixture
def view(qtbot):
    """An :class:`app.view3d.attitude_view.AttitudeView` of 480x360 on screen (fails without OpenGL,
    skips under ATTITUDE_SIM_NO_GL=1)."""
    from pyqtgraph.Qt import QtGui

    from app.view3d.attitude_view import AttitudeView

    if not gl_available() or QtGui.QGuiApplication.platformName() != "xcb":
        no_gl("the 3D view")
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
    """Open the main window on a scenario (``main_window("integrators", speed=10.0)``, or a Scenario), shown and
    running; every window opened is closed (its thread stopped) at the end."""
    from app.window import MainWindow
    from sim.run.scenario import load

    opened = []

    def open_main_window(scenario="default", speed: float = 1.0):
        win = MainWindow(load(scenario) if isinstance(scenario, str) else scenario, remember_geometry=False,
                         speed=speed)
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
