"""Shared test set-up: the Qt platform, the GL probe and guard, and the children's environment.

pytest-xvfb starts a virtual screen and sets DISPLAY (one per process: under
pytest-xdist each worker has its own); OpenGL then works with the xcb platform
(Mesa llvmpipe).  Whether a GL context can really be made is not guessed from
DISPLAY: a child process makes one, makes it current and reads GL_VERSION
(:func:`gl_probe`), once per session and per set of conditions (a child
that crashes is an answer, not a crash of the run; under xdist the first
worker's answer is shared through a file).  Without GL a GL test FAILS with
one line saying why, unless ``ATTITUDE_SIM_NO_GL=1`` says that this machine
has no GL; then the GL tests skip and the summary says how many
(docs/INSTALL.md, docs/RELIABILITY.md "The suite's time and its GL probe").

A GL test is one marked ``gl``: by hand, or by using a fixture that opens a
GL view (:data:`GL_FIXTURES`).  A test that makes a GL window without the
marker is refused with a line that names the marker (:func:`_refuse_unmarked_gl`),
on every machine, so it cannot reach a GL call where no GL exists.
The tests run with PyOpenGL's error checking on (ATTITUDE_SIM_GL_CHECKS).

Qt is imported only when a collected test needs it, so the GUI-free tests
run in an environment without PySide6, pyqtgraph or PyOpenGL.
"""

import fcntl
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# PyOpenGL's error check after every GL call: off in the application (app/view3d/__init__.py), on in the tests.
os.environ.setdefault("ATTITUDE_SIM_GL_CHECKS", "1")

#: The opt-out for a machine without OpenGL: its GL tests skip (counted in the summary) instead of failing.
NO_GL_VARIABLE = "ATTITUDE_SIM_NO_GL"
NO_GL_REASON = f"no OpenGL and {NO_GL_VARIABLE}=1: GL test left out"

#: Fixtures that open a GL view: a test using one is marked ``gl`` at collection.
GL_FIXTURES = frozenset({"view", "main_window", "orbit_view"})

#: The probe's child: a GL context made current on the tests' platform, and its GL_VERSION read back.
#: It prints the version, or exits non-zero with the reason (a crash here kills only the child).
_PROBE = """
import sys
from PySide6.QtGui import QGuiApplication, QOffscreenSurface, QOpenGLContext
app = QGuiApplication(sys.argv[:1])
context = QOpenGLContext()
if not context.create():
    sys.exit(f"Qt cannot create an OpenGL context on the {app.platformName()} platform")
surface = QOffscreenSurface()
surface.setFormat(context.format())
surface.create()
if not context.makeCurrent(surface):
    sys.exit("Qt's OpenGL context cannot be made current")
from OpenGL import GL
version = GL.glGetString(GL.GL_VERSION)
if not version:
    sys.exit("the OpenGL context gives no GL_VERSION")
print(version.decode())
"""
_PROBE_TIMEOUT = 120.0  # seconds: a loaded machine takes 0.5 s idle, a few under load
_probed: dict = {}  # conditions -> (ok, detail), for this process


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """Qt's platform: xcb on a display (pytest-xvfb's, set in its own configure hook), offscreen without one.
    Not in pytest-xdist's controller, which runs no test and has no display: its workers inherit its
    environment and start their own displays."""
    xdist_controller = getattr(config.option, "dist", "no") != "no" and not os.environ.get("PYTEST_XDIST_WORKER")
    if "QT_QPA_PLATFORM" not in os.environ and not xdist_controller:
        os.environ["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("DISPLAY") else "offscreen"


def _conditions() -> tuple:
    return tuple(os.environ.get(name, "") for name in
                 ("DISPLAY", "QT_QPA_PLATFORM", "QT_XCB_GL_INTEGRATION", "LIBGL_ALWAYS_SOFTWARE", "GALLIUM_DRIVER"))


def _run_probe() -> tuple[bool, str]:
    """Make a GL context in a child process: (True, GL_VERSION) or (False, why not)."""
    display, platform = os.environ.get("DISPLAY", ""), os.environ.get("QT_QPA_PLATFORM", "")
    if platform != "xcb":
        return False, f"Qt runs on the {platform or 'default'} platform, not xcb on an X display"
    if not display:
        return False, "no X display (DISPLAY is not set)"
    try:
        child = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                               timeout=_PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"the GL probe made no context within {_PROBE_TIMEOUT:g} s"
    if child.returncode == 0 and child.stdout.strip():
        return True, child.stdout.strip().splitlines()[-1]
    lines = [line for line in child.stderr.strip().splitlines() if line.strip()]
    if child.returncode < 0:
        return False, f"the GL probe crashed (signal {-child.returncode})"
    return False, lines[-1] if lines else f"the GL probe exited {child.returncode}"


def gl_probe() -> tuple[bool, str]:
    """Can a GL context be made here? ``(True, GL_VERSION)`` or ``(False, why not)``.

    Asked once per process and conditions (DISPLAY, the Qt platform and the
    variables that switch GL off); under pytest-xdist the workers of one run
    share the first answer through a file named by the run's id, locked while
    the first worker probes.
    """
    key = _conditions()
    if key in _probed:
        return _probed[key]
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")  # set by pytest-xdist in each worker of one run
    if run_id is None or not key[0] or key[1] != "xcb":
        _probed[key] = _run_probe()
        return _probed[key]
    shared_key = json.dumps(key[1:])  # each worker has its own display: the same Xvfb, the same GL
    path = Path(tempfile.gettempdir()) / f"attitude-sim-gl-probe-{run_id}.json"
    with open(path, "a+") as shared:
        fcntl.flock(shared, fcntl.LOCK_EX)
        shared.seek(0)
        answers = json.loads(shared.read() or "{}")
        if shared_key not in answers:
            answers[shared_key] = _run_probe()
            shared.seek(0)
            shared.truncate()
            shared.write(json.dumps(answers))
    _probed[key] = tuple(answers[shared_key])
    return _probed[key]


def gl_available() -> bool:
    """True when a GL context can be made here (:func:`gl_probe`)."""
    return gl_probe()[0]


def gl_opted_out() -> bool:
    return os.environ.get(NO_GL_VARIABLE, "") not in ("", "0")


def no_gl(what: str) -> None:
    """No GL context can be made for ``what``: skip under the opt-out, fail otherwise, in one line."""
    if gl_opted_out():
        pytest.skip(NO_GL_REASON)
    why = gl_probe()[1]
    pytest.fail(f"{what} needs OpenGL and none is here ({why}). On a machine without GL, set "
                f"{NO_GL_VARIABLE}=1 to leave the GL tests out (docs/INSTALL.md).", pytrace=False)


def pytest_itemcollected(item):
    """Mark every test that needs a QApplication (through pytest-qt's qtbot or qapp) as ``qt``,
    so that the GUI-free tests can be chosen with ``-m "not qt"`` (make mutate does), and every
    test that uses a fixture opening a GL view (:data:`GL_FIXTURES`) as ``gl``."""
    fixtures = set(getattr(item, "fixturenames", ()))
    if {"qtbot", "qapp"} & fixtures:
        item.add_marker(pytest.mark.qt)
    if GL_FIXTURES & fixtures:
        item.add_marker(pytest.mark.gl)


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
    _group_shared_fixtures(items)
    seed = config.getoption("--shuffle-seed")
    if seed is not None:  # make stress: a different order of set-ups and tear-downs
        import random

        random.Random(seed).shuffle(items)


def _group_shared_fixtures(items) -> None:
    """Under pytest-xdist (``make test``: ``-n auto --dist loadgroup``) tests are spread over the workers one
    by one, and a fixture of module scope is made again in every worker that runs one of its tests.  A
    test module whose own fixtures are shared (scope module, class, package or session: a long run made
    once) therefore goes whole to one worker (``xdist_group``, named by the module); every other test is
    spread freely.  Without xdist the mark does nothing."""
    for item in items:
        module = getattr(item, "module", None)
        info = getattr(item, "_fixtureinfo", None)
        if module is None or info is None:
            continue
        shared = any(getattr(definitions[-1], "scope", "function") != "function"
                     and getattr(getattr(definitions[-1], "func", None), "__module__", None) == module.__name__
                     for definitions in info.name2fixturedefs.values() if definitions)
        if shared:
            item.add_marker(pytest.mark.xdist_group(module.__name__))


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """After -m and -k chose the tests: Qt is imported only if one of them needs it."""
    if any("qt" in item.keywords or "gl" in item.keywords for item in session.items):
        # Before any QApplication exists, which app.view3d.glwindow needs (shared GL contexts).
        from app.view3d.glwindow import GLWindow
        from gui_waits import floor_waits
        from pytestqt.qtbot import QtBot

        _refuse_unmarked_gl(GLWindow)
        floor_waits(QtBot)


#: True while a test marked ``gl`` runs (set up, call and tear-down), read by the guard below.
_gl_allowed = [False]


def _refuse_unmarked_gl(window_class) -> None:
    """Make every GL window (the one class all 3D scenes are) refuse to be made in a test without the
    ``gl`` marker: such a test would reach a GL call where no GL exists (a segfault, not a failure)."""
    if getattr(window_class, "_refuses_unmarked_tests", False):
        return
    make = window_class.__init__

    def __init__(self, *args, **kwargs):
        if not _gl_allowed[0]:
            raise RuntimeError("this test opens a GL view (a GLWindow) but is not marked gl: mark it "
                               "@pytest.mark.gl, or use the view or main_window fixture (tests/conftest.py)")
        make(self, *args, **kwargs)

    window_class.__init__ = __init__
    window_class._refuses_unmarked_tests = True


def pytest_runtest_setup(item):
    _gl_allowed[0] = "gl" in item.keywords
    if _gl_allowed[0] and not gl_available():
        _gl_allowed[0] = False
        no_gl("this test")


def pytest_terminal_summary(terminalreporter):
    left_out = sum(NO_GL_REASON in str(getattr(report, "longrepr", ""))
                   for report in terminalreporter.stats.get("skipped", []))
    if left_out:
        terminalreporter.write_line(f"{NO_GL_VARIABLE}=1: {left_out} GL tests left out (skipped), not run",
                                    yellow=True, bold=True)
    whys = [match.group(1) for report in terminalreporter.stats.get("error", [])
            if (match := re.search(r"needs OpenGL and none is here \((.*)\)\. On a machine",
                                   str(getattr(report, "longrepr", ""))))]
    if whys:
        terminalreporter.write_line(f"no OpenGL here: {len(whys)} GL tests failed ({whys[0]}); on a machine "
                                    f"without GL, {NO_GL_VARIABLE}=1 leaves them out", red=True, bold=True)


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
    qtbot.waitUntil(widget.scene.isValid)
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
    parser.addoption("--window-cycles", type=int, default=5,
                     help="times every built-in scenario is opened in the window-cycle test (make stress: 20)")
    parser.addoption("--shuffle-seed", type=int, default=None,
                     help="run the tests in an order shuffled with this seed (make stress)")


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    """Release Qt's native windows while the virtual screen still exists; remove the xdist run's GL answer.

    pytest-xvfb stops Xvfb in its own unconfigure hook; native GL windows
    (the 3D view is a QOpenGLWindow) released after that, at interpreter
    exit, crash in the X connection.
    """
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id:  # a worker that asks after this probes again: no harm
        Path(tempfile.gettempdir(), f"attitude-sim-gl-probe-{run_id}.json").unlink(missing_ok=True)
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
