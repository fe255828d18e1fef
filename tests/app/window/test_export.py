"""CSV export in a background thread: the file is complete (or absent), and the
GUI thread's event loop keeps running while it is written."""

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from app.window.export import CsvExport
from app.plots.history import History, write_table_csv
from sim.model.rows import COLUMNS, HISTORY_COLUMNS


def filled(n: int, capacity: int | None = None) -> History:
    """A history of ``n`` samples whose values are awkward floats (repr must round-trip them)."""
    rng = np.random.default_rng(7)
    rows = rng.normal(0.0, 1.0, (n, len(HISTORY_COLUMNS))) * 10.0 ** rng.integers(-15, 6, (n, len(HISTORY_COLUMNS)))
    rows[:, HISTORY_COLUMNS.index("t")] = 1e-3 * np.arange(1, n + 1)
    history = History(capacity=capacity or n)
    history.append(rows)
    return history


def read(path) -> tuple[list[str], np.ndarray]:
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def test_export_writes_every_held_sample_exactly(qtbot, tmp_path):
    history = filled(3000, capacity=2000)  # the oldest 1000 left the full-resolution store
    export = CsvExport(history, tmp_path / "h.csv")
    with qtbot.waitSignal(export.finished, timeout=30_000) as done:
        export.start()
    assert done.args == [str(tmp_path / "h.csv"), 2000]
    header, data = read(tmp_path / "h.csv")
    assert header == list(COLUMNS)
    expected = np.column_stack([history.column(name) for name in COLUMNS])
    np.testing.assert_array_equal(data, expected)  # repr: every float reads back bit for bit
    assert export.span == (history.column("t")[0], history.column("t")[-1])
    assert not list(tmp_path.glob("h.csv*part"))


def test_export_writes_the_samples_held_when_it_was_made(qtbot, tmp_path):
    history = filled(500, capacity=5000)
    export = CsvExport(history, tmp_path / "h.csv")
    t_then = history.column("t").copy()
    history.append(np.ones((100, len(HISTORY_COLUMNS))) * 99.0)  # the simulation goes on meanwhile
    export.start()
    assert export.wait(30)
    _, data = read(tmp_path / "h.csv")
    np.testing.assert_array_equal(data[:, 0], t_then)


def test_event_loop_keeps_running_while_exporting(qtbot, tmp_path):
    history = filled(40_000)  # about a million values: a second or more of formatting
    ticks = []
    timer = QTimer(interval=0)
    timer.timeout.connect(lambda: ticks.append(export.running()))
    progress = []
    export = CsvExport(history, tmp_path / "big.csv")
    export.progress.connect(lambda done, total: progress.append((done, total)))
    timer.start()
    with qtbot.waitSignal(export.finished, timeout=120_000):
        export.start()
    timer.stop()
    # the GUI thread went on handling its timer while the file was being written
    assert sum(ticks) >= 10, f"{sum(ticks)} timer ticks during the export"
    assert len(progress) >= 3 and progress[-1] == (40_000, 40_000)
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)
    with open(tmp_path / "big.csv", encoding="utf-8") as f:
        assert sum(1 for _ in f) == 40_001


def test_failed_export_says_why_and_leaves_no_file(qtbot, tmp_path):
    path = tmp_path / "missing-folder" / "h.csv"
    export = CsvExport(filled(10), path)
    with qtbot.waitSignal(export.failed, timeout=30_000) as failed:
        export.start()
    assert failed.args[0] == str(path) and "No such file" in failed.args[1]
    assert not path.parent.exists()


def test_write_csv_replaces_an_old_file_only_when_complete(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("old\n")
    seen = []

    def progress(done, total):
        seen.append(path.read_text())  # while writing, the old file is still whole

    table = np.arange(12.0).reshape(2, 6)
    write_table_csv(path, ("a", "b"), table, progress=progress, chunk=2)
    assert seen == ["old\n"] * 3
    assert path.read_text().splitlines() == ["a,b"] + [f"{float(i)},{float(i + 6)}" for i in range(6)]


@pytest.mark.gl
def test_window_export_shows_progress_and_result_in_the_status_bar(qtbot, main_window, tmp_path):
    window = main_window()
    qtbot.waitUntil(lambda: window.history.count > 200)
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    export = window.export_csv(tmp_path / "h.csv")
    assert export is not None
    qtbot.waitUntil(lambda: any(m.startswith("Saved") for m in messages), timeout=30_000)
    assert any(m.startswith("Exporting history to h.csv") for m in messages)
    saved = [m for m in messages if m.startswith("Saved")][-1]
    assert f"{export.rows:,} samples" in saved
    _, data = read(tmp_path / "h.csv")
    assert len(data) == export.rows and data[0, 0] == export.span[0] and data[-1, 0] == export.span[1]
