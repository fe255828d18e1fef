"""Writing the rows of ``attitude-sim run`` and ``replay``: CSV or npz, whole lines, honest errors.

The output is a :class:`sim.io.files.Output`: a file is written beside its
target under a fresh name (``FILE.<random>.part``) and moved over it when the run ends (:func:`finish`
says when), stdout and FIFOs are streams.  Rows are formatted into whole
lines and written in chunks.  When a write fails (disk full, a closed pipe,
an I/O error, a file size limit) the run stops with :class:`OutputError`:
one line saying what happened and at which simulated time, exit code 1; the
temporary file (or stdout redirected to a file) is cut back to its last
complete line, and the target is left as it was.  Ctrl-C is the same
mechanism with exit code 130: the rows computed so far are written, whole,
and moved into place, and the message gives the time reached.  While a
chunk is being written, Ctrl-C only sets a flag (the write finishes first).
"""

from __future__ import annotations

import csv
import io
import signal
import threading
import time

import numpy as np

from sim import Output

__all__ = ["Stopped", "stop_signals", "OutputError", "Output", "stream_csv", "stream_npz", "catch_interrupts", "deferred_interrupts", "finish",
           "reason"]

#: Rows gathered before a write (about 200 kB of CSV); written at least every FLUSH_SECONDS.
ROWS_PER_CHUNK = 500
FLUSH_SECONDS = 0.25


class OutputError(Exception):
    """Writing stopped: a write error (exit code 1) or Ctrl-C (exit code 130); ``rows``: how many were written."""

    def __init__(self, message: str, code: int, rows: int = 0):
        super().__init__(message)
        self.code = code
        self.rows = rows


class _Interrupts:
    """SIGINT raises KeyboardInterrupt, except while a chunk is written: then it is only noted."""

    def __init__(self):
        self.writing = False
        self.pending = False

    def __call__(self, signum, frame):
        if self.writing:
            self.pending = True
        else:
            raise KeyboardInterrupt


_INTERRUPTS = _Interrupts()


class catch_interrupts:
    """Context manager: SIGINT handled by :data:`_INTERRUPTS` (main thread only; a no-op elsewhere)."""

    def __enter__(self):
        self._old = None
        _INTERRUPTS.pending = _INTERRUPTS.writing = False
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, _INTERRUPTS)
        return _INTERRUPTS

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
        return False


class Stopped(Exception):
    """A stop signal (SIGINT or SIGTERM) arrived; :attr:`code` is the shell's exit code for it (130, 143)."""

    def __init__(self, signum: int):
        self.signum = signum
        self.code = 128 + signum
        word = "interrupted" if signum == signal.SIGINT else "terminated"
        super().__init__(f"{word} ({signal.Signals(signum).name})")


class stop_signals:
    """Context manager: SIGINT and SIGTERM only set a flag; calling the manager raises :class:`Stopped` then.

    For work that runs inside a library's event loop (the video's Qt
    window): an exception raised from a signal handler lands inside
    whichever callback is running (a paint event), and Qt cannot unwind
    through it (a segmentation fault).  The work calls the manager between
    its pieces (frames) and stops there, whole.  Main thread only (a no-op
    elsewhere); a signal that was ignored when it began stays ignored.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.signum = 0
        self._old = {}

    def _note(self, signum, frame):
        self.signum = self.signum or signum

    def __call__(self) -> None:
        if self.signum:
            raise Stopped(self.signum)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    self._old[sig] = signal.signal(sig, self._note)
        return self

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()
        return False


class deferred_interrupts:
    """Context manager: Ctrl-C inside it (under :class:`catch_interrupts`) is only noted, and raised at its end.

    For what must not be cut in two: a chunk written, a file moved into
    place, a Dask cluster starting (cut there, its processes are left for
    the interpreter's exit to close, which prints their tracebacks).
    """

    def __enter__(self):
        self._was = _INTERRUPTS.writing
        _INTERRUPTS.writing = True
        return _INTERRUPTS

    def __exit__(self, kind, exc, tb):
        _INTERRUPTS.writing = self._was
        if kind is None and _INTERRUPTS.pending and not self._was:
            _INTERRUPTS.pending = False
            raise KeyboardInterrupt
        return False


def reason(exc: OSError) -> str:
    """Why a write failed, in words."""
    if isinstance(exc, BrokenPipeError):
        return "broken pipe (the reader went away)"
    return exc.strerror or str(exc)


def stream_csv(rows, names, sink: Output, interrupts=_INTERRUPTS):
    """Write a header of ``names`` and ``rows`` as CSV to ``sink``; returns ``(last_row, count)``.

    Raises
    ------
    OutputError
        On a write error (code 1) or Ctrl-C (code 130); the message names
        the time of the first row not written and the rows that are.
    """
    header = io.StringIO()
    csv.writer(header, lineterminator="\n").writerow(names)
    state = {"header": header.getvalue(), "written": 0, "last": None}
    chunk = []                     # rows not yet written; append is the only step of the loop
    next_flush = time.monotonic() + FLUSH_SECONDS

    def flush():
        if not chunk and not state["header"]:
            return
        interrupts.writing = True  # Ctrl-C from here on is only noted
        try:
            text = state["header"] + "".join([",".join(map(repr, r)) + "\n" for r in chunk])
            sink.write(text.encode("utf-8"))
            state["header"] = ""
            state["written"] += len(chunk)
            if chunk:
                state["last"] = chunk[-1]
            chunk.clear()
        finally:
            interrupts.writing = False

    try:
        try:
            for row in rows:
                chunk.append(row)
                if len(chunk) >= ROWS_PER_CHUNK or time.monotonic() >= next_flush:
                    flush()
                    next_flush = time.monotonic() + FLUSH_SECONDS
                if interrupts.pending:
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupts.writing = True  # a second Ctrl-C must not cut the last write
            flush()
            last = state["last"]
            t = f"t={last[0]:.9g} s" if last is not None else "t=0 s (no row yet)"
            raise OutputError(f"interrupted at {t}; {state['written']} rows written to "
                              f"{sink.name}, each complete", 130, state["written"]) from None
        except Exception:  # a numerical fault: the rows before it are written, then it is reported
            flush()
            raise
        flush()
    except OSError as exc:
        t = chunk[0][0] if chunk else 0.0
        last = state["last"]
        upto = (f"the {state['written']} rows up to t={last[0]:.9g} s are complete"
                if last is not None else "no row was written")
        if sink.partial is not None:  # a file: the target stays as it was
            if state["written"]:
                upto += f" in {sink.keep_partial()}; {sink.name} was not touched"
            else:
                sink.discard()
        raise OutputError(f"cannot write {sink.name} at t={t:.9g} s: {reason(exc)}; {upto}", 1) from None
    return state["last"], state["written"]


def finish(sink: Output) -> None:
    """Move a run's rows into place: it ended with whole rows (complete, Ctrl-C, a numerical fault).

    Raises OutputError (exit code 1) when the file cannot be moved.
    """
    _INTERRUPTS.writing = True  # a Ctrl-C now must not cut the move in two
    try:
        sink.commit()
    except OSError as exc:
        raise OutputError(f"cannot write {sink.name}: {reason(exc)}", 1) from None
    finally:
        _INTERRUPTS.writing = False


def stream_npz(rows, names, capacity: int, sink: Output, interrupts=_INTERRUPTS, encode=None):
    """Gather ``rows`` into columns and write them with :func:`numpy.savez` to ``sink``.

    With ``encode``, ``encode(table)`` (the rows gathered, shape (rows,
    columns)) gives the bytes written instead: a whole-file format (an AEM,
    an STK attitude file) written the same way.

    Ctrl-C while computing stops the run and writes the rows so far (exit
    code 130).  On a write error the temporary file is removed (a cut zip
    file is useless), the target is left as it was and :class:`OutputError`
    says so.  Returns ``(last_row, count)``.
    """
    table = np.empty((capacity, len(names)))
    count = 0
    interrupted = False
    fault = None
    try:
        for row in rows:
            table[count] = row
            count += 1
    except KeyboardInterrupt:
        interrupted = True
    except Exception as exc:  # a numerical fault: the rows before it are written, then it is reported
        fault = exc
    table = table[:count]
    last = tuple(table[-1]) if count else None
    t = f"t={last[0]:.9g} s" if last is not None else "t=0 s (no row yet)"
    try:
        interrupts.writing = True
        try:
            if encode is not None:
                sink.write(encode(table))
            else:
                with sink.file(binary=True) as f:  # the columns straight from the table: no copy in memory
                    np.savez(f, **{name: table[:, k] for k, name in enumerate(names)})
        finally:
            interrupts.writing = False
    except OSError as exc:
        kept = "" if sink.partial is None else f"; {sink.name} is as it was"
        sink.discard()
        raise OutputError(f"cannot write {sink.name} after the run reached {t}: {reason(exc)}{kept}", 1) from None
    if fault is not None:
        raise fault
    if interrupted or interrupts.pending:
        raise OutputError(f"interrupted at {t}; the {count} rows so far were written to "
                          f"{sink.name}", 130, count)
    return last, count
