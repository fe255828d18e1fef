"""The test set-up itself (tests/conftest.py): GUI-free tests need no Qt, GL tests cannot skip silently,
and no child process inherits mutmut's MUTANT_UNDER_TEST."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The child runs pytest with these packages unimportable, as in a venv without the GUI's libraries.
_BLOCKED = ("PySide6", "shiboken6", "pyqtgraph", "OpenGL", "pytestqt", "pytest_xvfb")

_CHILD = textwrap.dedent("""
    import sys

    class Blocked:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {blocked!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
            return None

    sys.meta_path.insert(0, Blocked())
    import pytest

    code = pytest.main({args!r})
    leaked = sorted({{m.split(".")[0] for m in sys.modules}} & set({blocked!r}))
    print("IMPORTED:", leaked)
    sys.exit(int(code) or bool(leaked))
""")


def _run_child(args: list[str], blocked=_BLOCKED, **env) -> subprocess.CompletedProcess:
    code = _CHILD.format(blocked=blocked, args=args)
    child_env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT), **env}
    child_env.pop("DISPLAY", None)
    child_env.pop("PYTEST_ADDOPTS", None)   # the child runs with these options only (make mutate adds plugins)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=child_env)


def _copy_conftest(folder: Path) -> None:
    """tests/conftest.py into ``folder``, with the module of the GUI waits' deadline it installs."""
    for name in ("conftest.py", "gui_waits.py"):
        (folder / name).write_text((ROOT / "tests" / name).read_text())


def test_gui_free_tests_run_where_qt_cannot_be_imported():
    """pytest tests/sim/core/test_quaternion.py in an environment without PySide6, pyqtgraph or PyOpenGL:
    conftest imports Qt only when a collected test needs it."""
    proc = _run_child(["-q", "-x", "-p", "no:cacheprovider", "tests/sim/core/test_quaternion.py"])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "passed" in proc.stdout and "IMPORTED: []" in proc.stdout


def test_a_gl_test_without_gl_fails_unless_the_opt_out_is_set(tmp_path):
    """Without a display a GL test fails; ATTITUDE_SIM_NO_GL=1 skips it and the summary counts it."""
    _copy_conftest(tmp_path)
    (tmp_path / "test_needs_gl.py").write_text(
        "import pytest\n\n@pytest.mark.gl\ndef test_draws():\n    pass\n\ndef test_plain():\n    pass\n")
    args = ["-q", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnknownMarkWarning", str(tmp_path)]
    failed = _run_child(args, blocked=())
    assert failed.returncode != 0, failed.stdout
    assert "1 error" in failed.stdout and "1 passed" in failed.stdout and "ATTITUDE_SIM_NO_GL=1" in failed.stdout
    skipped = _run_child(args, blocked=(), ATTITUDE_SIM_NO_GL="1")
    assert skipped.returncode == 0, skipped.stdout
    assert "1 passed, 1 skipped" in skipped.stdout
    assert "ATTITUDE_SIM_NO_GL=1: 1 GL tests left out" in skipped.stdout


def test_no_child_process_inherits_mutmuts_variable(monkeypatch, request):
    """make mutate: while a test runs, MUTANT_UNDER_TEST is out of os.environ when mutmut keeps its own
    copy of the active mutant (a child that inherited MUTANT_UNDER_TEST=stats exited 1 and failed mutmut's
    stats step); with an older mutmut, which reads only the variable, it stays."""
    import types

    conftest = _root_conftest(request)
    trampoline = types.ModuleType("mutmut.mutation.trampoline")  # mutmut 3.8's process-local copy
    mutation = types.ModuleType("mutmut.mutation")
    mutation.trampoline = trampoline
    monkeypatch.setitem(sys.modules, "mutmut", types.ModuleType("mutmut"))
    monkeypatch.setitem(sys.modules, "mutmut.mutation", mutation)
    monkeypatch.setitem(sys.modules, "mutmut.mutation.trampoline", trampoline)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    child = [sys.executable, "-c", "import os; print(os.environ.get('MUTANT_UNDER_TEST'))"]

    def child_sees(own_copy):
        trampoline._mutant_under_test = own_copy
        steps = conftest.pytest_runtest_protocol(item=None)
        next(steps)
        seen = subprocess.run(child, capture_output=True, text=True, check=True).stdout.strip()
        try:
            next(steps)
        except StopIteration:
            pass
        assert os.environ["MUTANT_UNDER_TEST"] == "stats"  # back after the test
        return seen

    assert child_sees("stats") == "None"
    assert child_sees(None) == "stats"


_TWICE = textwrap.dedent("""
    import sys

    import pytest

    class Ids:
        def pytest_collection_modifyitems(self, items):
            print("IDS:", sorted(item.nodeid.partition("::")[2] for item in items))

    codes = [int(pytest.main({args!r}, plugins=[Ids()])) for _ in range(2)]
    print("CODES:", codes)
""")


def test_parameter_ids_are_plain_and_the_same_on_each_collection(tmp_path):
    """make mutate: mutmut's fork server collects the tests once, then again for each mutant, in one
    process.  A test id with a character that pytest escapes changed between the two (it is escaped once
    more), pytest then found no such test and exited 4, and mutmut wrote 255 ("timeout", read as a kill)
    for every mutant that test reached.  Text and bytes parameters get plain ids; an id that pytest would
    escape is refused at collection, naming it."""
    _copy_conftest(tmp_path)
    texts = ["two\nlines", "caf\u00e9", b"\xff\x00", "back\\slash", "plain"]
    (tmp_path / "test_texts.py").write_text(
        f"import pytest\n\n@pytest.mark.parametrize('text', {texts!r})\ndef test_text(text):\n    pass\n")
    args = ["--collect-only", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_texts.py")]
    proc = subprocess.run([sys.executable, "-c", _TWICE.format(args=args)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    ids = [line for line in proc.stdout.splitlines() if line.startswith("IDS:")]
    assert "CODES: [0, 0]" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert len(ids) == 2 and ids[0] == ids[1], ids
    assert "\\\\" not in ids[0] and ids[0].isascii() and ids[0].count("test_text[") == 5, ids[0]

    (tmp_path / "test_texts.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [1], ids=lambda n: 'two\\nlines')\n"
        "def test_n(n):\n    pass\n")
    refused = subprocess.run([sys.executable, "-c", _TWICE.format(args=args)], cwd=tmp_path, capture_output=True,
                             text=True, timeout=120, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert "CODES: [4, 4]" in refused.stdout, refused.stdout[-3000:] + refused.stderr[-3000:]
    assert "test_n[two" in refused.stdout + refused.stderr and "plain id" in refused.stdout + refused.stderr


def _root_conftest(request):
    """tests/conftest.py as pytest loaded it (``import conftest`` gives whichever conftest.py of the rooms was
    imported last: tests/app/conftest.py, tests/app/plots/conftest.py...)."""
    path = ROOT / "tests" / "conftest.py"
    for plugin in request.config.pluginmanager.get_plugins():
        if getattr(plugin, "__file__", None) and Path(plugin.__file__) == path:
            return plugin
    raise LookupError(f"{path} is not among pytest's plugins")


def _pytest_child(args: list[str], **env) -> subprocess.CompletedProcess:
    """pytest in a child on this checkout, with its plugins (pytest-xvfb gives it an X display of its own)."""
    child_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    for name in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID", "PYTEST_XDIST_WORKER_COUNT"):
        child_env.pop(name, None)
    return subprocess.run([sys.executable, "-X", "faulthandler", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=300, env=child_env)


#: A GL test through the `view` fixture, and one that opens the main window through `main_window`
#: (not marked gl by hand: the fixture marks it); both segfaulted a run on a display without GL.
_GL_TESTS = ["tests/app/view3d/test_viewer.py::test_reset_view_restores_the_camera",
             "tests/app/controls/test_devices_gui.py::test_the_gamepad_flies_the_aircraft"]


def test_a_display_without_gl_fails_the_gl_tests_in_one_line_and_the_opt_out_skips_them():
    """An X display whose Qt has no GL (QT_XCB_GL_INTEGRATION=none) segfaulted the run (rc 139) inside the
    view fixture, even with ATTITUDE_SIM_NO_GL=1: GL is now probed in a child process, not guessed from
    DISPLAY.  Without the opt-out each GL test errors with the line saying why; with it they are skipped and
    counted."""
    failed = _pytest_child(_GL_TESTS, QT_XCB_GL_INTEGRATION="none")
    assert failed.returncode == 1, failed.stdout[-3000:] + failed.stderr[-3000:]
    assert "2 errors" in failed.stdout and "Fatal Python error" not in failed.stderr
    # Each error's own section starts with the line (the short summary repeats it as wide as the terminal is:
    # a CI with a wide COLUMNS printed it four times), so count the lines that start with it.
    why = ("this test needs OpenGL and none is here (Qt cannot create an OpenGL context on the xcb platform). "
           "On a machine without GL, set ATTITUDE_SIM_NO_GL=1")
    assert sum(line.startswith(why) for line in failed.stdout.splitlines()) == 2, failed.stdout[-3000:]
    assert "no OpenGL here: 2 GL tests failed" in failed.stdout
    skipped = _pytest_child(_GL_TESTS, QT_XCB_GL_INTEGRATION="none", ATTITUDE_SIM_NO_GL="1")
    assert skipped.returncode == 0, skipped.stdout[-3000:] + skipped.stderr[-3000:]
    assert "2 skipped" in skipped.stdout and "ATTITUDE_SIM_NO_GL=1: 2 GL tests left out" in skipped.stdout


def test_the_probe_answers_in_a_child_that_may_crash(monkeypatch, request):
    """The probe reads GL_VERSION where there is GL, and reads a crash of its child as "no GL", not as a
    crash of the run."""
    conftest = _root_conftest(request)

    monkeypatch.setattr(conftest, "_probed", {})
    ok, version = conftest.gl_probe()
    if os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") == "xcb":
        assert ok and re.match(r"\d+\.\d+", version), version    # Mesa here: "4.5 (Compatibility Profile) ..."
    monkeypatch.setattr(conftest, "_probed", {})
    monkeypatch.setattr(conftest, "_PROBE", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    monkeypatch.setenv("DISPLAY", os.environ.get("DISPLAY") or ":0")
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.delenv("PYTEST_XDIST_TESTRUNUID", raising=False)
    assert conftest.gl_probe() == (False, "the GL probe crashed (signal 11)")


def test_a_test_that_opens_a_gl_view_without_the_marker_is_refused(tmp_path):
    """A test that makes a GL window without the gl marker (two such tests opened the main window) fails
    with a line naming the marker, on every machine; on a display without GL it would have segfaulted."""
    _copy_conftest(tmp_path)
    (tmp_path / "test_unmarked.py").write_text(
        "def test_opens_a_view(qtbot):\n"
        "    from app.view3d.attitude_view import AttitudeView\n\n"
        "    qtbot.addWidget(AttitudeView())\n")
    proc = _pytest_child(["-W", "ignore::pytest.PytestUnknownMarkWarning", str(tmp_path)],
                         QT_XCB_GL_INTEGRATION="none")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "this test opens a GL view (a GLWindow) but is not marked gl" in proc.stdout


def test_tests_live_in_rooms_with_unique_basenames():
    """Every test file sits in a room (tests/sim/<room>, tests/app/<room>, tests/project), none flat in tests/,
    and no two share a basename (pytest's prepend import mode names a module by its basename)."""
    tests = ROOT / "tests"
    files = sorted(tests.rglob("test_*.py"))
    assert not [f.name for f in tests.glob("test_*.py")]
    rooms = {f.parent.relative_to(tests).parts[0] for f in files}
    assert rooms == {"sim", "app", "project"}
    names = [f.name for f in files]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


def test_tests_sim_imports_no_qt_and_the_make_test_sim_plugin_blocks_it(tmp_path):
    """tests/sim is collected (every module imported) where Qt cannot be imported, as `make test-sim` runs it
    (-p tests.block_qt); a test importing PySide6 under that plugin fails."""
    args = ["--collect-only", "-q", "-p", "no:cacheprovider", "-p", "tests.block_qt", "tests/sim"]
    proc = _run_child(args)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "IMPORTED: []" in proc.stdout and re.search(r"\d+ tests collected", proc.stdout)
    (tmp_path / "test_imports_qt.py").write_text("def test_qt():\n    import PySide6.QtCore  # noqa: F401\n")
    planted = _run_child(["-q", "-p", "no:cacheprovider", "-p", "tests.block_qt", str(tmp_path)], blocked=())
    assert planted.returncode != 0 and "blocked in make test-sim" in planted.stdout, planted.stdout[-3000:]


def test_every_failing_gui_wait_gets_the_shared_deadline_and_a_non_failing_one_keeps_its_own(qtbot):
    """A wait that asked for 50 ms still sees a condition that comes true after 300 ms (the floor of
    tests/gui_waits.py, installed by tests/conftest.py), and a signal wait told not to fail returns at its own
    deadline: a test may use it to see that a signal did not come."""
    import time

    from gui_waits import FLOOR_MS
    from PySide6.QtCore import QObject, QTimer, Signal

    assert FLOOR_MS >= 10_000
    done = []
    QTimer.singleShot(300, lambda: done.append(True))
    qtbot.waitUntil(lambda: bool(done), timeout=50)

    class Quiet(QObject):
        never = Signal()

    quiet = Quiet()
    start = time.monotonic()
    with qtbot.waitSignal(quiet.never, timeout=100, raising=False) as blocker:
        pass
    assert not blocker.signal_triggered and time.monotonic() - start < 5.0
