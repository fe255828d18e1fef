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
from sim.model.simulation import COLUMNS

__all__ = ["CsvExport"]


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
