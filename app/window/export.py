"""The history written to CSV in a background thread, so the window keeps running.

:class:`CsvExport` copies the samples the history holds when it is made (in
the GUI thread: a few milliseconds), then formats and writes them in its own
thread with :func:`app.plots.history.write_table_csv` and reports through signals, which
Qt delivers in the GUI thread.  The file appears only when complete.
"""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import QObject, Signal

from app.plots.history import write_table_csv
from sim import COLUMNS, columns_of

__all__ = ["CsvExport", "CsvExports"]


class CsvExport(QObject):
    """One CSV export of a :class:`~app.plots.history.History`.

    Parameters
    ----------
    history : History
        Copied at construction (:meth:`History.table`); appending to it
        afterwards does not change the file.
    path : str or os.PathLike
        Output file, overwritten when the export completes.
    columns : sequence of str
        Columns (default: those of ``attitude-sim run``).

    Signals
    -------
    progress(int, int)
        Rows written so far, rows in all.
    finished(str, int)
        The path and the number of rows, once the file is complete.
    failed(str, str)
        The path and why it could not be written (no file is left).
    """

    progress = Signal(int, int)
    finished = Signal(str, int)
    failed = Signal(str, str)

    def __init__(self, history, path, columns=COLUMNS, parent=None):
        super().__init__(parent)
        self.path = os.fspath(path)
        self.columns = tuple(columns)
        self._table = history.table(self.columns)
        t = self._table[self.columns.index("t")] if "t" in self.columns else ()
        #: Simulated times of the first and last row written (s), or None without rows or a "t" column.
        self.span = (float(t[0]), float(t[-1])) if len(t) else None
        self._thread = threading.Thread(target=self._run, name="csv-export", daemon=True)

    @property
    def rows(self) -> int:
        """Rows the file will hold (after the header)."""
        return self._table.shape[1]

    def start(self) -> None:
        """Start writing in the background."""
        self._thread.start()

    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the file is written (or ``timeout`` s); True when done."""
        if self._thread.ident is not None:
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            write_table_csv(self.path, self.columns, self._table, progress=self.progress.emit)
        except OSError as exc:
            self.failed.emit(self.path, exc.strerror or str(exc))
            return
        self.finished.emit(self.path, self.rows)


class CsvExports(QObject):
    """The window's CSV exports: one at a time, their progress and result in its status bar.

    A QObject of the GUI thread, so Qt queues the export thread's signals to its slots.

    Parameters
    ----------
    window : MainWindow
        Its ``history``, ``statusBar()`` and ``show_message``.

    Attributes
    ----------
    latest : CsvExport or None
    """

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.latest: CsvExport | None = None

    def start(self, path) -> CsvExport | None:
        """Write the history as CSV (the columns ``attitude-sim run`` writes for the run's settings:
        :func:`sim.model.rows.columns_of`, with the orbit's and issue 32's) in the background.

        The samples held now are copied and written by a :class:`CsvExport`
        thread; progress and the result show in the status bar.  Returns the
        export (:meth:`CsvExport.wait` for the file), or None while the
        previous one is still writing.
        """
        window = self._window
        if self.latest is not None and self.latest.running():
            window.show_message(f"Still exporting to {self.latest.path}")
            return None
        wanted = columns_of(window.flight.worker.settings)
        held = [name for name in wanted if name in window.history.columns]  # a setting changed since the run began
        export = CsvExport(window.history, path, columns=held, parent=window)
        export.progress.connect(self._progress)
        export.finished.connect(self._finished)
        export.failed.connect(self._failed)
        self.latest = export
        window.statusBar().showMessage(f"Exporting history to {os.path.basename(export.path)}…")
        export.start()
        return export

    def _progress(self, done: int, total: int) -> None:
        name = os.path.basename(self.latest.path)
        self._window.statusBar().showMessage(f"Exporting history to {name}: {100 * done // max(total, 1)} %")

    def _finished(self, path: str, rows: int) -> None:
        span = self.latest.span
        self._window.show_message(f"Saved {path}: {rows:,} samples"
                                  + (f", t = {span[0]:g} to {span[1]:g} s" if span else ""), error=False)

    def _failed(self, path: str, why: str) -> None:
        self._window.show_message(f"{path}: {why}")
