"""Writing the rows of ``attitude-sim run`` and ``replay``: CSV or npz, whole lines, honest errors.

Rows are formatted into whole lines and written in chunks straight to the
file descriptor.  When a write fails (disk full, a closed pipe, an I/O
error, a file size limit) the run stops with :class:`OutputError`: one line
saying what happened and at which simulated time, exit code 1; a regular
file is cut back to its last complete line, so every row in it is whole.
Ctrl-C is the same mechanism with exit code 130: the rows computed so far
are written, the file ends with a complete line, and the message gives the
time reached.  While a chunk is being written, Ctrl-C only sets a flag
(the write finishes first).
"""

from __future__ import annotations

import csv
import io
import os
import signal
import stat
import sys
import threading
import time

import numpy as np

__all__ = ["OutputError", "OpenError", "Sink", "stream_csv", "stream_npz", "catch_interrupts"]

#: Rows gathered before a write (about 200 kB of CSV); written at least every FLUSH_SECONDS.
ROWS_PER_CHUNK = 500
FLUSH_SECONDS = 0.25


class OpenError(ValueError):
    """The output cannot be opened (bad input: exit code 2)."""


class OutputError(Exception):
    """Writing stopped: a write error (exit code 1) or Ctrl-C (exit code 130)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


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


class Sink:
    """An output: a path (``-`` for stdout) opened for writing whole chunks.

    A regular file, a device (``/dev/null``, ``/dev/full``) or a FIFO is
    accepted; a directory or an unwritable path raises :class:`OpenError`.
    """

    def __init__(self, path: str):
        self.path = path
        self.name = "stdout" if path == "-" else path
        self._text = None
        self._fd = None
        self._close = False
        if path == "-":
            if sys.stdout is None:
                raise OpenError("stdout is closed; give --out FILE")
            try:
                sys.stdout.flush()
                self._fd = sys.stdout.fileno()
            except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
                self._text = sys.stdout        # a captured stream (tests, notebooks)
        else:
            try:
                self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            except IsADirectoryError:
                raise OpenError(f"--out {path}: is a directory, not a file") from None
            except OSError as exc:
                raise OpenError(f"--out {path}: cannot write ({exc.strerror})") from None
            except ValueError:  # a NUL byte in the name
                raise OpenError(f"--out {path!r}: not a valid file name (it holds a NUL byte)") from None
            self._close = True
        self.regular = self._fd is not None and stat.S_ISREG(os.fstat(self._fd).st_mode)
        #: Bytes written that end with a complete line.
        self.complete = 0

    def write(self, data: bytes) -> None:
        """Write all of ``data``; on an error a regular file is cut back to :attr:`complete`."""
        if self._text is not None:
            self._text.write(data.decode("utf-8"))
            self._text.flush()
            self.complete += len(data)
            return
        view = memoryview(data)
        written = 0
        try:
            while written < len(view):
                written += os.write(self._fd, view[written:])
        except OSError:
            if self.regular:
                try:
                    os.ftruncate(self._fd, self.complete)
                except OSError:
                    pass
            raise
        self.complete += len(data)

    def remove_partial(self) -> bool:
        """Delete a regular output file (a partial npz is useless); True if it was removed."""
        if self.regular and self._close:
            try:
                os.unlink(self.path)
                return True
            except OSError:
                return False
        return False

    def close(self) -> None:
        if self._close and self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None


def _reason(exc: OSError) -> str:
    if isinstance(exc, BrokenPipeError):
        return "broken pipe (the reader went away)"
    return exc.strerror or str(exc)


def stream_csv(rows, names, sink: Sink, interrupts=_INTERRUPTS):
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
                              f"{sink.name}, each complete", 130) from None
        except Exception:  # a numerical fault: the rows before it are written, then it is reported
            flush()
            raise
        flush()
    except OSError as exc:
        t = chunk[0][0] if chunk else 0.0
        last = state["last"]
        upto = (f"the {state['written']} rows up to t={last[0]:.9g} s are complete"
                if last is not None else "no row was written")
        raise OutputError(f"cannot write {sink.name} at t={t:.9g} s: {_reason(exc)}; {upto}", 1) from None
    return state["last"], state["written"]


def stream_npz(rows, names, capacity: int, sink: Sink, interrupts=_INTERRUPTS):
    """Gather ``rows`` into columns and write them with :func:`numpy.savez` to ``sink``.

    Ctrl-C while computing stops the run and writes the rows so far (exit
    code 130).  On a write error a regular file is removed (a cut zip file
    is useless) and :class:`OutputError` says so.  Returns ``(last_row, count)``.
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
    buffer = io.BytesIO()
    np.savez(buffer, **{name: table[:, k] for k, name in enumerate(names)})
    last = tuple(table[-1]) if count else None
    t = f"t={last[0]:.9g} s" if last is not None else "t=0 s (no row yet)"
    try:
        interrupts.writing = True
        try:
            sink.write(buffer.getvalue())
        finally:
            interrupts.writing = False
    except OSError as exc:
        removed = " (the partial file was removed)" if sink.remove_partial() else ""
        raise OutputError(f"cannot write {sink.name} after the run reached {t}: "
                          f"{_reason(exc)}{removed}", 1) from None
    if fault is not None:
        raise fault
    if interrupted or interrupts.pending:
        raise OutputError(f"interrupted at {t}; the {count} rows so far were written to "
                          f"{sink.name}", 130)
    return last, count
