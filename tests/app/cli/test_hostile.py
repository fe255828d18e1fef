"""Hostile input on every path (issue 14): no traceback, no hang, no silent endless run.

Classes tried: write errors at any point (disk full, a file size limit cutting
a write in half, a closed pipe, Ctrl-C), special files (devices, FIFOs,
directories) where a file is expected, files and lines too large,
denormal / tiny / huge numbers, and step counts that cannot finish.  The
real-process tests run the installed module with ``python -m app.cli``.
"""

import contextlib
import csv
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli import main
from mutations import mutated
from sim.io.reading import FileRefused, read_regular
from sim.run.recording import Recorder, RecordingError, load_recording
from sim.run.scenario import ScenarioError, load
from sim.model.settings import Settings
from sim.model.rows import COLUMNS

CLI = [sys.executable, "-m", "app.cli"]
ROW = re.compile(r"^-?[0-9][^,]*(,[^,]+){%d}$" % (len(COLUMNS) - 1))


def _cli(*argv, timeout=60, **kw):
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=timeout, **kw)


def _unprivileged(*argv):
    """``(exit code, stderr)`` of the CLI run without root's power over permissions.

    In process for an ordinary user.  When the suite runs as root (as CI
    does), the command runs in a subprocess still as root but with the
    capabilities that bypass file permissions (CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH) dropped by setpriv (util-linux), so the file mode
    applies to it as to any owner: the permission checks are tested, not skipped.
    """
    if os.geteuid() != 0:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(list(argv))
        return code, err.getvalue()
    proc = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search", *CLI, *argv],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stderr


def _one_line(err):
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err.strip()


def _check_whole_rows(path):
    """Every line of a CSV written by ``run`` is a header or a whole row; returns the rows' t."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the file ends with a complete line"
    lines = data.decode().splitlines()
    if not lines:
        return []
    assert lines[0].split(",") == list(COLUMNS)
    for line in lines[1:]:
        assert ROW.match(line), line
    return [float(line.split(",", 1)[0]) for line in lines[1:]]


def _stated_t(err, word="up to"):
    return float(re.search(word + r" t=([0-9.e+-]+) s", err).group(1))


# ------------------------------------------------------------------ write errors
@pytest.mark.subprocess
def test_disk_full_one_line_exit_1():
    proc = _cli("run", "--out", "/dev/full", "--duration", "5")
    assert proc.returncode == 1
    line = _one_line(proc.stderr)
    assert line == ("attitude-sim: error: cannot write /dev/full at t=0 s: No space left on device; "
                    "no row was written")


@pytest.mark.subprocess
def test_disk_full_npz_one_line_exit_1():
    proc = _cli("run", "--out", "/dev/full", "--format", "npz", "--duration", "1")
    assert proc.returncode == 1
    assert "No space left on device" in _one_line(proc.stderr)
    assert "t=1 s" in proc.stderr


@pytest.mark.subprocess
def test_file_size_limit_cuts_back_to_whole_rows(tmp_path):
    # RLIMIT_FSIZE makes the kernel write part of a chunk, then refuse (EFBIG):
    # the file must be cut back to its last complete line.  (Issue 24: the rows go to
    # cut.csv.part, and cut.csv, the target, is left as it was: here, absent.)
    out = tmp_path / "cut.csv"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (120_000, 120_000))

    proc = _cli("run", "--duration", "10", "--out", str(out), preexec_fn=limit)
    assert proc.returncode == 1
    line = _one_line(proc.stderr)
    assert "File too large" in line
    kept = re.search(r" in (\S+\.part); ", line).group(1)
    assert not out.exists() and f"in {kept}; {out} was not touched" in line
    out = Path(kept)
    assert out.parent == tmp_path and out.name.startswith("cut.csv.")
    times = _check_whole_rows(out)
    assert len(times) > 100
    assert _stated_t(line) == pytest.approx(times[-1], rel=1e-9), "the message names the last complete row"
    assert float(re.search(r"at t=([0-9.e+-]+) s", line).group(1)) > times[-1]
    assert out.stat().st_size < 120_000


@pytest.mark.subprocess
def test_broken_pipe_one_line_exit_1():
    # the reader (like `head -1`) goes away after the first line
    proc = subprocess.Popen([*CLI, "run", "--duration", "100"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert first.startswith("t,q1,")
    line = _one_line(err)
    assert "cannot write stdout at t=" in line and "broken pipe" in line


@pytest.mark.subprocess
def test_broken_pipe_through_head():
    proc = subprocess.run(f"{' '.join(CLI)} run --duration 100 | head -1; exit ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout.startswith("t,q1,") and proc.stdout.count("\n") == 1
    assert "broken pipe" in _one_line(proc.stderr)


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` (/proc/PID/stat, fields 14 and 15)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.subprocess
@pytest.mark.parametrize("fmt", ["csv", "npz"])
def test_ctrl_c_finishes_lines_and_names_t(tmp_path, fmt):
    out = tmp_path / f"run.{fmt}"
    proc = subprocess.Popen([*CLI, "run", "--duration", "100000", "--dt", "0.01", "--out", str(out),
                             "--format", fmt, "--force"],  # never refused as too long, however busy the machine
                            stderr=subprocess.PIPE, text=True)
    def partial():  # written beside the target under a fresh name, moved into place at the end (sim.io.files)
        return next(tmp_path.glob(f"run.{fmt}.*.part"), None)

    deadline = time.monotonic() + 60
    # wait until rows are being computed (and, for CSV, written)
    while time.monotonic() < deadline and (partial() is None or (fmt == "csv" and partial().stat().st_size < 50_000)):
        time.sleep(0.05)
    written = partial()
    assert written is not None, "the run never started writing"
    # rows are being computed now (Ctrl-C then writes them): a CSV grows; an npz, written at the end, shows
    # it by the CPU time the process spends after opening its output (it does nothing else meanwhile)
    if fmt == "csv":
        size = written.stat().st_size
        while time.monotonic() < deadline and written.stat().st_size <= size:
            time.sleep(0.01)
    else:
        start = _cpu_seconds(proc.pid)
        while time.monotonic() < deadline and _cpu_seconds(proc.pid) < start + 0.3:
            time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130
    line = _one_line(err)
    assert line.startswith("attitude-sim: interrupted at t=")
    t = _stated_t(line, "interrupted at")
    if fmt == "csv":
        times = _check_whole_rows(out)
        assert times[-1] == pytest.approx(t, rel=1e-9)    # the message rounds to 9 digits
        assert f"{len(times)} rows written" in line
    else:
        import numpy as np

        with np.load(out) as data:
            assert data["t"][-1] == pytest.approx(t, rel=1e-9) and data["t"][0] == 0.0
            assert list(data.files) == list(COLUMNS)


# ------------------------------------------------------------------ special files
@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["device", "fifo", "directory"])
@pytest.mark.parametrize("command", ["run --scenario", "gui --scenario", "replay"])
def test_special_files_refused_at_once(kind, command, fifo, tmp_path, capsys):
    path = {"device": "/dev/zero", "fifo": str(fifo), "directory": str(tmp_path)}[kind]
    what = {"device": "is a character device", "fifo": "is a FIFO", "directory": "is a directory"}[kind]
    code = main([*command.split(), path])          # a hang here would be the bug
    _, err = capsys.readouterr()
    assert code == 2
    assert what in _one_line(err)
    assert "no such" not in err


@pytest.mark.subprocess
def test_scenario_dev_zero_in_a_real_process():
    proc = _cli("run", "--scenario", "/dev/zero", timeout=30)
    assert proc.returncode == 2
    assert _one_line(proc.stderr) == ("attitude-sim: error: /dev/zero: is a character device, "
                                      "not a scenario file (a regular file)")


@pytest.mark.subprocess
def test_replay_dev_zero_does_not_hang():
    proc = _cli("replay", "/dev/zero", timeout=30)
    assert proc.returncode == 2
    assert "is a character device, not a recording" in _one_line(proc.stderr)


def test_missing_files_still_say_missing(tmp_path, capsys):
    assert main(["run", "--scenario", str(tmp_path / "none.toml")]) == 2
    assert "no such scenario file" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert "no such recording" in capsys.readouterr().err


@pytest.mark.parametrize("out, fragment", [
    ("DIR", "is a directory"),
    ("/nonexistent-dir/x.csv", "cannot write (No such file or directory)"),
])
def test_bad_out_paths_exit_2(out, fragment, tmp_path, capsys):
    out = str(tmp_path) if out == "DIR" else out
    assert main(["run", "--duration", "0.01", "--out", out]) == 2
    assert fragment in _one_line(capsys.readouterr().err)


def test_out_to_a_read_only_proc_file(capsys):
    # as a user: cannot open (exit 2); as root the open succeeds and the write fails (exit 1)
    code = main(["run", "--duration", "0.01", "--out", "/proc/version"])
    line = _one_line(capsys.readouterr().err)
    # as root: /proc refuses the file written beside the target (issue 24: never written in place)
    assert (code, True) in ((2, "cannot write (Permission denied)" in line),
                            (2, "cannot make version.*.part beside it" in line))
    # and without root's power over permissions (see _unprivileged): exit 2
    code, err = _unprivileged("run", "--duration", "0.01", "--out", "/proc/version")
    assert code == 2 and "cannot write (Permission denied)" in _one_line(err)


@pytest.mark.subprocess
def test_out_to_a_fifo_streams_to_its_reader(fifo):
    # a FIFO is a fine output (a reader on the other end): not refused
    proc = subprocess.Popen([*CLI, "run", "--duration", "0.01", "--out", str(fifo)],
                            stderr=subprocess.PIPE, text=True)
    with open(fifo) as reader:
        text = reader.read()
    assert proc.wait(timeout=60) == 0
    assert text.startswith("t,q1,") and text.count("\n") == 12


def test_unreadable_scenario(tmp_path):
    # a file of mode 0: its permission refuses it (never skipped as root: see _unprivileged)
    path = tmp_path / "secret.toml"
    path.write_text("[settings]\n")
    path.chmod(0)
    code, err = _unprivileged("run", "--scenario", str(path))
    assert code == 2
    assert "cannot read (Permission denied)" in _one_line(err)


# ------------------------------------------------------------------ sizes
def test_read_regular_caps(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"a\n" * 10)
    assert read_regular(path, 20, 5, "thing") == b"a\n" * 10
    with pytest.raises(FileRefused, match="20 bytes is too large for a thing"):
        read_regular(path, 19, 5, "thing")
    path.write_bytes(b"ab\nabcdef\nab")
    with pytest.raises(FileRefused, match="line 2: longer than a thing line may be"):
        read_regular(path, 100, 5, "thing")
    path.write_bytes(b"abcdef")          # a last line without newline
    with pytest.raises(FileRefused, match="line 1"):
        read_regular(path, 100, 5, "thing")


def test_scenario_too_large_and_line_too_long(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * 200_000)     # 2 MB of comments
    with pytest.raises(ScenarioError, match="too large for a scenario file"):
        load(str(big))
    long = tmp_path / "long.toml"
    long.write_text('[scenario]\ntitle = "' + "x" * 70_000 + '"\n')
    with pytest.raises(ScenarioError, match="line 2: longer than a scenario file line"):
        load(str(long))


def test_recording_too_large_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as f:
        f.truncate(300 << 20)       # sparse: 300 MB on paper, nothing on disk
    with pytest.raises(RecordingError, match="too large for a recording"):
        load_recording(path)


def test_recording_line_too_long(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"[" * (5 << 20) + b"\n")
    with pytest.raises(RecordingError, match="line 1: longer than a recording line"):
        load_recording(path)


# ------------------------------------------------------------------ numbers and step counts
@pytest.mark.parametrize("argv, fragment", [
    (["--dt", "1e-320", "--duration", "1"], "below the smallest step 1e-09 s"),
    (["--dt", "5e-324", "--duration", "1e-300"], "below the smallest step"),
    (["--dt", "1e-10"], "below the smallest step"),
    (["--duration", "1e300"], "steps at dt=0.001 s would take about"),
    (["--duration", "1e300", "--dt", "1e-9"], "more steps at dt=1e-09 s than a float can count"),
    (["--duration", "1e9", "--dt", "1e-6"], "1e+15 steps at dt=1e-06 s would take about"),
    (["--duration", "1e300", "--force"], "beyond 1e+08 s of simulated time"),
    (["--duration", "-0"], "--duration: -0 must be > 0 s"),  # the table's words (sim.io.limits)
    (["--inertia", "1e-300,1e-300,1e-300,0,0,0"], "outside the physical range"),
    (["--inertia", "1e300,1e300,1e300,0,0,0"], "beyond the physical range"),
    (["--inertia", "5e-324,5e-324,5e-324,0,0,0"], "outside the physical range"),
    (["--inertia", "1,1,1,1e300,0,0"], "beyond the physical range"),
    (["--rates", "1e300,0,0"], "too large"),
    (["--torque", "0,0,1e300"], "too large"),
    (["--angles", "1e300,0,0"], "too large"),
    (["--gains", "1e300,1,1"], "too large"),
    (["--slerp-time", "1e300"], "too large"),
    (["--torque-until", "1e300"], "too large"),
    (["--every", "-1"], "--every"),
    (["--every", "1e3"], "invalid int value"),
])
def test_hostile_numbers_exit_2(argv, fragment, capsys):
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert fragment in _one_line(err)


@pytest.mark.parametrize("argv", [
    ["--duration", "1e-300"], ["--duration", "5e-324"],              # shorter than a step: t = 0 only
    ["--limits", "5e-324,5e-324,5e-324", "--torque", "1e6,1e6,1e6", "--duration", "0.01"],
    ["--dampers", "5e-324,0,0", "--rates", "1e4,-1e4,1e4", "--dt", "1e-9", "--duration", "1e-6"],
    ["--inertia", "1e-8,1e-8,1e-8,0,0,0", "--torque", "1e6,0,0", "--dt", "1", "--duration", "3"],
])
def test_hostile_but_valid_numbers_finish_or_fault_cleanly(argv, capsys):
    # accepted values at the edges: the run ends, or a numerical fault exits 1 with t
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    assert "Traceback" not in err
    if code == 1:
        assert _one_line(err).startswith("attitude-sim: simulation fault: t=")
    else:
        lines = out.splitlines()
        assert lines[0].split(",") == list(COLUMNS) and len(lines) >= 2
        assert all(ROW.match(line) for line in lines[1:])


def test_step_count_refused_with_count_and_estimate(capsys):
    code = main(["run", "--duration", "1e6", "--dt", "1e-6"])
    err = capsys.readouterr().err
    assert code == 2
    line = _one_line(err)
    assert "1,000,000,000,000 steps would take about" in line
    assert re.search(r"about [0-9.]+ (years|days)", line)
    assert line.endswith("--force runs it anyway")


def test_npz_memory_refused(capsys):
    code = main(["run", "--duration", "1e5", "--format", "npz", "--out", "/dev/null"])
    assert code == 2
    assert "GiB in memory" in _one_line(capsys.readouterr().err)


def test_gui_after_refused_when_huge(capsys):
    assert main(["gui", "--screenshot", "x.png", "--after", "1e300"]) == 2
    assert "--after" in _one_line(capsys.readouterr().err)


def test_huge_every_gives_first_and_last_row(capsys):
    assert main(["run", "--duration", "0.01", "--every", str(10 ** 30)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 3 and rows[2].startswith("0.01,")


# ------------------------------------------------------------------ recordings
def _header(**settings):
    return {"format": "attitude-sim recording", "version": 1, "name": "x", "title": "", "caption": "",
            "duration": 1.0, "settings": settings, "events": [], "compare": []}


@pytest.mark.parametrize("lines, fragment", [
    ([_header(dt=1e-320)], "below the smallest step"),
    ([_header(inertia=[1e-300, 1e-300, 1e-300, 0, 0, 0])], "outside the physical range"),
    ([{**_header(), "duration": float("nan")}], "bad scenario in header"),
    ([{**_header(), "duration": 1e300}], "bad scenario in header"),
    ([{**_header(), "title": 5}], "bad scenario in header"),
    ([{**_header(), "events": [{"at": float("inf"), "dt": 0.1}]}], "bad scenario in header"),
    ([{**_header(), "compare": [{"label": ["x"]}]}], "bad scenario in header"),
    ([_header(), {"step": "x", "key": "dt", "value": 0.1}], "line 2: step 'x'"),
    ([_header(), {"step": -1, "key": "dt", "value": 0.1}], "line 2: step -1"),
    ([_header(), {"step": 1e300, "key": "dt", "value": 0.1}], "line 2: step 1e+300"),
    ([_header(), {"step": True, "key": "dt", "value": 0.1}], "line 2: step True"),
    ([_header(), {"step": 1, "key": ["dt"], "value": 0.1}], "unknown input"),
    ([_header(), {"alive": 10 ** 13}], "not a step number"),
    ([_header(), {"end": None}], "not a step number"),
    ([_header(), [1, 2, 3]], "unknown record"),
    ([_header(), 7], "unknown record"),
    ([_header(), {"step": 1, "key": "dt", "value": 5e-324}], "below the smallest step"),
])
def test_bad_recordings_refused(lines, fragment, tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"end": 1}\n')
    with pytest.raises(RecordingError, match=re.escape(fragment)):
        load_recording(path)
    assert main(["replay", str(path)]) == 2
    assert fragment in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("text", ["[" * 100_000, "1" * 5000, '{"format": NaN}', "\x00\x01", "\ud800"])
def test_recording_header_garbage(text, tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(text + "\n", errors="surrogatepass")
    with pytest.raises(RecordingError):
        load_recording(path)


def test_recording_deep_nesting_on_a_later_line(tmp_path):
    path = tmp_path / "n.jsonl"
    path.write_text(json.dumps(_header()) + "\n" + "[" * 100_000 + "\n" + '{"end": 1}\n')
    with pytest.raises(RecordingError, match="line 2: not valid JSON"):
        load_recording(path)


def test_replay_of_an_endless_recording_refused_with_estimate(tmp_path, capsys):
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(_header()) + "\n" + json.dumps({"alive": 10 ** 11}) + "\n")
    assert main(["replay", str(path)]) == 2
    assert "100,000,000,000 steps would take about" in _one_line(capsys.readouterr().err)


@pytest.fixture(scope="module")
def valid_recording(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "valid.jsonl"
    recorder = Recorder(path, load("default"))
    recorder.input(3, "torque", (1.0, 2.0, 3.0))
    recorder.input(5, "dt", 0.01)
    recorder.close(10)
    return path.read_bytes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_recordings_only_raise_recording_error(valid_recording, tmp_path, data):
    raw = mutated(valid_recording, data, 6, [b"1e999", b"NaN", b"-", b"[", b'"', b"\n", b"9" * 30])
    path = tmp_path / "m.jsonl"
    path.write_bytes(raw)
    try:
        _, inputs, last = load_recording(path)
    except RecordingError:
        return
    assert 0 <= last <= 10 ** 12 and all(isinstance(step, int) for step, _, _ in inputs)


# ------------------------------------------------------------------ the window's fields
@pytest.mark.parametrize("key, text", [
    ("dt", "1e-320"), ("dt", "5e-324"), ("dt", "1e-10"), ("dt", "1e300"),
    ("inertia", "1e-300, 1e-300, 1e-300, 0, 0, 0"), ("inertia", "1e300, 1e300, 1e300, 0, 0, 0"),
    ("inertia", "5e-324, 5e-324, 5e-324, 0, 0, 0"),
    ("rates", "1e300, 0, 0"), ("slerp_time", "1e300"), ("gains", "5e-324, -5e-324, 1"),
])
def test_gui_field_refuses_hostile_numbers(qtbot, key, text):
    from app.controls.widgets import SettingField

    field = SettingField(key, "hint")
    qtbot.addWidget(field)
    field.show_value(getattr(Settings(), key))
    with qtbot.waitSignal(field.rejected) as blocker:
        field.setText(text)
        field.textEdited.emit(text)
        field.editingFinished.emit()
    assert field.error is not None and field.error.startswith(key)
    assert blocker.args[0].startswith(key)


# ------------------------------------------------------------------ progress
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch, tmp_path):
    from sim import api

    monkeypatch.setattr(api.Plan, "is_long", lambda self, seconds=2.0: True)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["run", "--duration", "2", "--out", str(tmp_path / "a.csv")]) == 0
    assert re.search(r"\d+%\|", terminal.getvalue()), "a tqdm bar on the terminal"
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert main(["run", "--duration", "2", "--out", str(tmp_path / "b.csv")]) == 0
    assert "%|" not in piped.getvalue() and piped.getvalue().count("\n") == 1


def test_csv_is_parsable_and_whole_after_a_normal_run(tmp_path):
    out = tmp_path / "ok.csv"
    assert main(["run", "--duration", "1", "--out", str(out)]) == 0
    times = _check_whole_rows(out)
    assert len(times) == 1001 and times[-1] == 1.0
    rows = list(csv.reader(out.open()))
    assert len(rows) == 1002


# ------------------------------------------------------------------ the window's recorder
def test_recorder_on_a_full_disk_names_the_file(tmp_path):
    with pytest.raises(OSError, match="cannot write the recording /dev/full: No space left on device"):
        Recorder("/dev/full", load("default"))
    recorder = Recorder(tmp_path / "r.jsonl", load("default"))
    recorder._file.close()
    recorder._file = open("/dev/full", "w", encoding="utf-8")   # the disk fills up mid-recording
    with pytest.raises(OSError, match="cannot write the recording"):
        recorder.input(5, "dt", 0.01)
    recorder.close(10)                                           # never raises: the window can go on
    assert recorder._file.closed
    assert load_recording(tmp_path / "r.jsonl")[2] == 0          # what was written still loads


@pytest.mark.parametrize("argv, fragment", [
    (["run", "--scenario", ""], "no scenario given"),
    (["gui", "--scenario", ""], "no scenario given"),
    (["run", "--scenario", "a\x00b"], "unknown scenario 'a\\x00b'"),
    (["run", "--scenario", "x" * 5000], "File name too long"),
    (["run", "--scenario", "x" * 5000 + ".toml"], "File name too long"),
    (["replay", "a\x00b"], "NUL byte"),
    (["replay", "x" * 5000], "File name too long"),
    (["replay", ""], "no recording given"),
    (["run", "--duration", "0.01", "--out", "a\x00b"], "NUL byte"),
    (["run", "--duration", "0.01", "--out", "x" * 5000], "File name too long"),
    (["run", "--duration", "0.01", "--out", ""], "No such file or directory"),
])
def test_hostile_file_names(argv, fragment, capsys):
    assert main(argv) == 2
    assert fragment in _one_line(capsys.readouterr().err)


# ------------------------------------------------------------------ the window's file paths
@pytest.mark.gl
def test_window_refuses_special_files_and_a_full_disk_and_keeps_running(qtbot, main_window, fifo, tmp_path):
    window = main_window("default")
    shown = []
    real_show = window.show_message
    window.show_message = lambda text, error=True: (shown.append((text, error)), real_show(text, error))
    for path, what in (("/dev/zero", "is a character device"), (str(fifo), "is a FIFO"),
                       (str(tmp_path), "is a directory")):
        assert not window.open_scenario(path)
        assert what in shown[-1][0] and shown[-1][1], shown[-1]
        window.replay(path)
        assert what in shown[-1][0] and "not a recording" in shown[-1][0], shown[-1]
    assert not window.start_recording("/dev/full")
    assert "No space left on device" in shown[-1][0]
    assert window.scenario.name == "default"
    t = window.last_snapshot.t
    qtbot.waitUntil(lambda: window.last_snapshot.t > t + 0.1)
    assert window.worker.fault is None


@pytest.mark.parametrize("fmt", ["csv", "npz"])
def test_numerical_fault_keeps_the_rows_before_it(fmt, tmp_path, capsys):
    out = tmp_path / f"fault.{fmt}"
    code = main(["run", "--integrator", "full-quat", "--norm", "none", "--rates", "2,1,0.5",
                 "--dt", "0.01", "--duration", "100", "--out", str(out), "--format", fmt])
    line = _one_line(capsys.readouterr().err)
    assert code == 1 and line.startswith("attitude-sim: simulation fault: t=")
    fault_t = float(re.search(r"t=([0-9.e+-]+) s", line).group(1))
    if fmt == "csv":
        times = _check_whole_rows(out)
    else:
        import numpy as np

        with np.load(out) as data:
            times = list(data["t"])
    assert times[0] == 0.0 and len(times) >= 3                  # the fault comes a few steps in
    assert times[-1] == pytest.approx(fault_t, rel=1e-6)        # every row before it is kept


@pytest.mark.subprocess
@pytest.mark.gl
@pytest.mark.parametrize("target, reason", [("/dev/full", "No space left on device"), ("DIR", "Is a directory")])
def test_gui_screenshot_write_error_one_line_exit_1(target, reason, tmp_path):
    if not os.environ.get("DISPLAY"):
        from tests.conftest import no_gl

        no_gl("the window's screenshot")  # fails, or skips and is counted under ATTITUDE_SIM_NO_GL=1
    target = str(tmp_path) if target == "DIR" else target
    proc = _cli("gui", "--screenshot", target, "--after", "0.2", timeout=120)
    assert proc.returncode == 1
    assert _one_line(proc.stderr) == f"attitude-sim: error: cannot write {target}: {reason}"


@pytest.mark.subprocess
def test_closed_stdout_and_stderr():
    # `attitude-sim run >&-`: one line on stderr, exit 2; `2>&-`: the data still goes to stdout, alone
    proc = subprocess.run(f"{' '.join(CLI)} run --duration 0.01 >&-", shell=True, executable="/bin/bash",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert _one_line(proc.stderr) == "attitude-sim: error: stdout is closed; give --out FILE"
    proc = subprocess.run(f"{' '.join(CLI)} run --duration 0.01 --dt 0.5 2>&-", shell=True,
                          executable="/bin/bash", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0                      # the stability warning has nowhere to go
    assert proc.stdout.startswith("t,q1,") and "warning" not in proc.stdout
    proc = subprocess.run(f"{' '.join(CLI)} run --dt x 2>&-", shell=True, executable="/bin/bash",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
