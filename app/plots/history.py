"""A bounded store of every simulated sample, for the live plots and CSV export.

Pure numpy, no Qt.  Samples arrive as rows in :data:`~sim.model.rows.HISTORY_COLUMNS`
order (:attr:`sim.run.runner.Batch.rows`).  The most recent ``capacity`` samples are
kept at full resolution; older samples are thinned into a bounded archive, so
memory stays constant however long the simulation runs.

Memory layout
-------------
The recent samples live in a *mirrored* ring buffer of shape
``(ncols, 2 * capacity)``: the sample with global index ``g`` is written at
positions ``g % capacity`` and ``g % capacity + capacity``.  Any run of up to
``capacity`` consecutive samples is then one contiguous slice, so
:meth:`History.column` and :meth:`History.window` return views (no copy per
frame), and a view of ``L`` samples stays intact for the next
``capacity - L`` appended samples.

Sizing
------
The window sizes the ring from the time step and the plotted window
(:func:`capacity_for`): 20 s at dt = 1 ms take 22,064 samples, 11.6 MB for
the 33 columns mirrored (a run without reaction wheels; 8 + 2 per wheel more
with them), where a fixed 2**18 samples of 30 columns took 126 MB.  When dt
gets smaller the window grows the ring (:meth:`History.resize`, keeping
every sample), so the plotted window is always held in full.

The archive holds every ``stride``-th sample of what left the ring
(sample ``g`` with ``g % stride == 0``).  When it is full, every other archived
sample is dropped and ``stride`` doubles, so it always spans the whole run from
``t = 0`` with between half and all of its ``archive_capacity`` rows.
"""

from __future__ import annotations

import math
import os

import numpy as np

from sim import write_whole, COLUMNS, HISTORY_COLUMNS

__all__ = ["History", "DEFAULT_CAPACITY", "DEFAULT_ARCHIVE_CAPACITY", "MAX_CAPACITY", "capacity_for",
           "write_table_csv"]

#: Full-resolution samples kept when no capacity is given (2**15 = 32,768):
#: 20 s at dt = 1 ms with room to spare, 17.3 MB with the 33 history columns mirrored.
DEFAULT_CAPACITY = 2**15

#: Most samples :func:`capacity_for` asks for (2**18 = 262,144, 138 MB with
#: 33 columns): a 20 s window in full down to dt = 84 us.
MAX_CAPACITY = 2**18

#: Rows of the thinned archive of older samples (2**14 rows, 4.3 MB with 33 columns).
DEFAULT_ARCHIVE_CAPACITY = 2**14


def capacity_for(dt: float | None, seconds: float, limit: int = MAX_CAPACITY) -> int:
    """Samples that hold ``seconds`` of simulated time at step ``dt``, with 10 % to spare.

    A window of ``seconds`` needs ``floor(seconds / dt) + 1`` samples; this
    gives ``ceil(1.1 * seconds / dt) + 64``, at least 256 and at most
    ``limit`` (below ``dt = 1.1 * seconds / limit`` the window is cut to the
    last ``limit`` samples).  ``dt`` None or not a positive number: ``limit``.

    Examples
    --------
    >>> capacity_for(0.001, 20.0), capacity_for(0.1, 20.0), capacity_for(1e-6, 20.0)
    (22064, 284, 262144)
    """
    if dt is None or not (math.isfinite(dt) and dt > 0):
        return int(limit)
    return int(min(limit, max(256, math.ceil(1.1 * seconds / dt) + 64)))


class History:
    """Recent samples at full resolution plus a thinned archive of older ones.

    Parameters
    ----------
    columns : sequence of str
        Column names, in the order of the rows given to :meth:`append`
        (default :data:`~sim.model.rows.HISTORY_COLUMNS`).  Must contain ``"t"``,
        the simulated time in s, non-decreasing between :meth:`clear` calls.
    capacity : int
        Samples kept at full resolution (default :data:`DEFAULT_CAPACITY`).
    archive_capacity : int
        Rows of the archive of older samples, at least 2
        (default :data:`DEFAULT_ARCHIVE_CAPACITY`).

    Examples
    --------
    >>> h = History(columns=("t", "x"), capacity=4)
    >>> h.append(np.array([[0.0, 1.0], [0.1, 2.0], [0.2, 3.0]]))
    >>> len(h), h.count, h.column("x").tolist()
    (3, 3, [1.0, 2.0, 3.0])
    """

    def __init__(self, columns=HISTORY_COLUMNS, capacity: int = DEFAULT_CAPACITY,
                 archive_capacity: int = DEFAULT_ARCHIVE_CAPACITY):
        self.columns = tuple(columns)
        if "t" not in self.columns:
            raise ValueError("columns: must contain 't'")
        if len(set(self.columns)) != len(self.columns):
            raise ValueError("columns: names must be unique")
        if capacity < 1:
            raise ValueError(f"capacity: must be >= 1, got {capacity}")
        if archive_capacity < 2:
            raise ValueError(f"archive_capacity: must be >= 2, got {archive_capacity}")
        self._index = {name: i for i, name in enumerate(self.columns)}
        self._capacity = int(capacity)
        self._ring = np.empty((len(self.columns), 2 * self._capacity))
        self._archive = np.empty((len(self.columns), int(archive_capacity)))
        self.clear()

    # ------------------------------------------------------------ properties
    @property
    def capacity(self) -> int:
        """Samples kept at full resolution."""
        return self._capacity

    @property
    def count(self) -> int:
        """Samples appended since construction or the last :meth:`clear`."""
        return self._count

    @property
    def stride(self) -> int:
        """The archive keeps every ``stride``-th sample."""
        return self._stride

    @property
    def nbytes(self) -> int:
        """Bytes of sample storage; fixed at construction."""
        return self._ring.nbytes + self._archive.nbytes

    def __len__(self) -> int:
        """Samples held at full resolution: ``min(count, capacity)`` unless :meth:`resize` grew it since."""
        return self._held

    # --------------------------------------------------------------- writing
    def resize(self, capacity: int) -> None:
        """Keep ``capacity`` samples at full resolution from now on.

        Growing keeps every sample held.  Shrinking keeps the last
        ``capacity`` of them; the older ones go to the archive, as if
        they had left the ring by appending.  Views returned before keep
        their values (the ring is reallocated).
        """
        capacity = int(capacity)
        if capacity < 1:
            raise ValueError(f"capacity: must be >= 1, got {capacity}")
        if capacity == self._capacity:
            return
        held = len(self)
        recent = self._recent(held)
        dropped = max(0, held - capacity)
        self._to_archive(recent[:, :dropped], self._count - held)
        kept = np.array(recent[:, dropped:])
        self._capacity = capacity
        self._ring = np.empty((len(self.columns), 2 * capacity))
        self._count -= held - dropped
        self._held = 0
        self._write(kept)

    def reserve(self, capacity: int) -> bool:
        """Grow to at least ``capacity`` samples, keeping every sample held; True when it grew.

        Held samples are never lost this way: the window calls it with
        :func:`capacity_for` of the current dt before appending, so a
        smaller dt can never push samples of the plotted window out.
        """
        if capacity <= self._capacity:
            return False
        self.resize(capacity)
        return True

    def reshape(self, columns) -> None:
        """Hold other columns from now on (a run with another number of wheels): every sample is forgotten.

        Storage is reallocated for the new columns at the same capacities.
        """
        columns = tuple(columns)
        if columns == self.columns:
            self.clear()
            return
        if "t" not in columns or len(set(columns)) != len(columns):
            raise ValueError("columns: must contain 't', names unique")
        self.columns = columns
        self._index = {name: i for i, name in enumerate(columns)}
        self._ring = np.empty((len(columns), 2 * self._capacity))
        self._archive = np.empty((len(columns), self._archive.shape[1]))
        self.clear()

    def clear(self) -> None:
        """Forget every sample (after a reset); storage is kept; :attr:`generation` counts one more."""
        self.generation = getattr(self, "generation", -1) + 1  # which run the samples are of (the plots' ranges)
        self._count = 0
        self._held = 0
        self._archived = 0
        self._stride = 1

    def append(self, rows) -> None:
        """Append samples.

        Parameters
        ----------
        rows : array_like, shape (n, len(columns))
            One sample per row, oldest first; ``n`` may be 0 or exceed
            :attr:`capacity` (the oldest then go straight to the archive).

        Raises
        ------
        ValueError
            If ``rows`` is not two-dimensional with one value per column.
        """
        rows = np.asarray(rows, dtype=float)
        if rows.ndim != 2 or rows.shape[1] != len(self.columns):
            raise ValueError(f"rows: expected shape (n, {len(self.columns)}), got {rows.shape}")
        n = len(rows)
        if n == 0:
            return
        held = len(self)
        dropped_held = min(held, max(0, held + n - self._capacity))
        skipped = max(0, n - self._capacity)
        self._to_archive(self._recent(held)[:, :dropped_held], self._count - held)
        self._held -= dropped_held
        self._to_archive(rows[:skipped].T, self._count)
        self._count += skipped
        self._write(rows[skipped:].T)

    def _write(self, block) -> None:
        """Write ``block`` (shape (ncols, m), m <= capacity) to both halves of the ring."""
        m = block.shape[1]
        start = self._count % self._capacity
        first = min(m, self._capacity - start)
        for offset in (0, self._capacity):
            self._ring[:, offset + start:offset + start + first] = block[:, :first]
            self._ring[:, offset:offset + m - first] = block[:, first:]
        self._count += m
        self._held += m

    def _to_archive(self, block, g0: int) -> None:
        """Keep the samples of ``block`` (shape (ncols, m), global indices from ``g0``) on the stride."""
        if block.shape[1] == 0:
            return
        picked = block[:, (-g0) % self._stride::self._stride]
        while self._archived + picked.shape[1] > self._archive.shape[1]:
            self._thin_archive()
            picked = block[:, (-g0) % self._stride::self._stride]
        end = self._archived + picked.shape[1]
        self._archive[:, self._archived:end] = picked
        self._archived = end

    def _thin_archive(self) -> None:
        """Drop every other archived sample and double the stride."""
        kept = (self._archived + 1) // 2
        self._archive[:, :kept] = self._archive[:, :self._archived:2]
        self._archived = kept
        self._stride *= 2

    # --------------------------------------------------------------- reading
    def _recent(self, n: int):
        """View of the last ``n`` (<= len(self)) samples, shape (ncols, n)."""
        end = self._count % self._capacity + self._capacity
        view = self._ring[:, end - n:end]
        view.flags.writeable = False
        return view

    def _column_index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"unknown column {name!r}; known: {', '.join(self.columns)}") from None

    def column(self, name: str) -> np.ndarray:
        """The full-resolution samples of one column, oldest first.

        Returns
        -------
        ndarray, shape (len(self),)
            A read-only contiguous view; it stays valid until
            ``capacity - len(self)`` more samples have been appended.
        """
        return self._recent(len(self))[self._column_index(name)]

    def window(self, seconds: float, names=None) -> tuple[np.ndarray, dict]:
        """The samples of the last ``seconds`` of simulated time.

        Parameters
        ----------
        seconds : float
            Width of the window, s: the samples with ``t >= t_last - seconds``
            (as far as they are held at full resolution).
        names : iterable of str, optional
            Columns to return (default: all).

        Returns
        -------
        t : ndarray, shape (m,)
            Times, s, oldest first.
        columns : dict
            Name -> values of shape (m,), aligned with ``t``.

        All arrays are read-only views, valid until ``capacity - m`` more
        samples have been appended.
        """
        recent = self._recent(len(self))
        t = recent[self._index["t"]]
        start = int(np.searchsorted(t, t[-1] - seconds, side="left")) if len(t) else 0
        names = self.columns if names is None else names
        return t[start:], {name: recent[self._column_index(name), start:] for name in names}

    def last(self, n: int, names) -> np.ndarray:
        """The last ``n`` samples of several columns as one array (a copy).

        Parameters
        ----------
        n : int
            Samples, at most ``len(self)``.
        names : sequence of str
            Columns, in the order of the result's rows.

        Returns
        -------
        ndarray, shape (len(names), n)
        """
        if not 0 <= n <= len(self):
            raise ValueError(f"n: must be in [0, {len(self)}], got {n}")
        return self._recent(n)[[self._column_index(name) for name in names]]

    def archive(self, name: str) -> np.ndarray:
        """Every :attr:`stride`-th sample of one column that left the full-resolution store.

        Together with :meth:`column` this spans the whole run at bounded
        resolution: the archive ends before the recent samples begin.

        Returns
        -------
        ndarray
            A read-only view, oldest first; valid until the next :meth:`append`.
        """
        view = self._archive[self._column_index(name), :self._archived]
        view.flags.writeable = False
        return view

    def to_csv(self, path, columns=COLUMNS) -> str:
        """Write the full-resolution samples as CSV with a header line (see :func:`write_table_csv`).

        Parameters
        ----------
        path : str or os.PathLike
            Output file, overwritten.
        columns : sequence of str
            Columns to write, in order (default :data:`~sim.model.rows.COLUMNS`,
            the columns of ``attitude-sim run``).

        Returns
        -------
        str
            ``path``.
        """
        return write_table_csv(path, columns, self.table(columns))

    def table(self, columns=COLUMNS) -> np.ndarray:
        """A copy of the full-resolution samples of ``columns``, shape (len(columns), len(self)).

        Being a copy, it stays valid while more samples are appended (what a
        background export writes).
        """
        return self.last(len(self), columns)


def write_table_csv(path, columns, table, progress=None, chunk: int = 4096) -> str:
    """Write samples as CSV with a header line, in the format of ``attitude-sim run``.

    Comma separated, one sample per line, values with ``repr`` precision
    (they read back exactly).  The text goes to a fresh file beside ``path``
    (``path.<random>.part``, :mod:`sim.io.files`), moved over ``path`` when complete: ``path`` never holds part of a table.

    Parameters
    ----------
    path : str or os.PathLike
        Output file, overwritten.
    columns : sequence of str
        Header names, one per row of ``table``.
    table : ndarray, shape (len(columns), n)
        The samples, oldest first.
    progress : callable, optional
        Called as ``progress(rows_written, n)`` after every ``chunk`` rows.
    chunk : int
        Rows formatted at a time.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    OSError
        If the file cannot be written (no partial file is left).

    Notes
    -----
    Formatting costs about 1-2 microseconds per value here: about half a
    second for 20,000 samples of 24 columns.
    """
    path = os.fspath(path)
    n = table.shape[1]
    with write_whole(path, newline="") as out:
        out.write(",".join(columns) + "\n")
        for start in range(0, n, chunk):
            rows = table[:, start:start + chunk].T.tolist()
            out.writelines(",".join(map(repr, row)) + "\n" for row in rows)
            if progress is not None:
                progress(min(n, start + chunk), n)
    return path
