"""Output files written defensively: whole files or none, never over one of the run's inputs.

Every output goes through :class:`Output` (or :func:`write_whole` and
:func:`whole_path`, built on it): a file is written beside its target and
moved into place when complete, so no run that fails, is refused or is
killed destroys a file that was there.  :func:`check_outputs` refuses an
output that would overwrite one of the run's inputs.  The read side (regular files only, bounded
size and line length: :func:`sim.io.reading.read_regular`) is :mod:`sim.io.reading`.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile

__all__ = ["OutputRefused", "Output", "PartialFile", "write_whole",
           "whole_path", "same_file", "check_outputs", "fresh_file"]


class OutputRefused(OSError):
    """An output cannot be opened (a directory, a missing folder, no permission): bad input.

    An OSError, as any failure to write a file is, so a caller that reports
    write errors reports this one too; the command line exits 2 for it.
    ``str()`` is the whole message (naming the output); ``strerror`` the
    reason alone ("Is a directory"), as for an OSError.
    """

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.message = message
        self.strerror = reason or message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        # made again from both (a Dask worker's refusal reaches the client pickled); OSError's own
        # reduce passes its args, the message alone, and the reason was lost
        return type(self), (self.message, self.strerror)


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The process's file creation mask, read once at import (reading it means setting it; threads may start later).
_UMASK = _read_umask()


def fresh_file(target: str, suffix: str) -> tuple[int, str]:
    """A new, empty, private file beside ``target``: ``(descriptor, name)``, created exclusively.

    The name is ``<target's name>.<random>`` + ``suffix``, in ``target``'s
    folder (so a move over ``target`` is one rename on one file system),
    made by :func:`tempfile.mkstemp`: ``O_CREAT | O_EXCL | O_NOFOLLOW``, mode
    0600.  Nothing already there (a file, a symbolic or hard link planted
    under a predictable name) is opened, followed or truncated, and two
    writers of one target never share a temporary file.  OSError when the
    folder refuses it.
    """
    folder, base = os.path.split(target)
    return tempfile.mkstemp(suffix=suffix, prefix=base + ".", dir=folder or ".")


def _existing_mode(path: str):
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return None


class _WholeOrNothing:
    """A context manager that commits an output when its block ends well and discards it otherwise."""

    def commit(self) -> None:  # pragma: no cover - each output has its own
        raise NotImplementedError

    def discard(self):  # pragma: no cover
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback) -> bool:
        if kind is None:
            self.commit()
        else:
            self.discard()
        return False


class Output(_WholeOrNothing):
    """Where a file's bytes go: whole or not at all, or a stream written as it comes.

    The one writer of every output (the rows of ``run`` and ``replay``, a
    sweep's CSV and trajectories, npz files, exported CSV and pictures,
    saved scenarios, videos): nothing is ever written into an existing file
    in place.

    * A regular file, or a name that does not exist yet: the bytes go to a
      temporary file beside it, ``path + ".<random>.part"``, created
      exclusively (:func:`fresh_file`: never a file or link already there;
      same folder, so same file system), with the target's permissions (a
      new file's: 0666 less the umask).  Two runs writing one target at
      once each write their own; the last to finish wins, whole.  :meth:`commit` moves it
      over ``path`` in one step (``os.replace``), so ``path`` holds the old
      file or the whole new one, never part of one; :meth:`discard`
      removes it.  A symbolic link is written through: its target is
      replaced.
    * ``-`` (stdout), an existing FIFO, character device or socket: a
      stream, written directly (there is nothing to replace).

    :meth:`write` writes all of a chunk or raises OSError; on a regular
    file (the temporary file, or stdout redirected to a file) a failed
    write is cut back to the end of the last complete chunk, so a chunk of
    whole lines leaves whole lines.

    Parameters
    ----------
    path : str or path-like
        The target, or ``"-"`` for stdout.
    name : str
        How messages name the output (a flag such as ``"--out"``).
    suffix : str
        Added after ``".part"`` to the temporary file's name, for writers
        that choose a format by the name's ending (``".mp4"``).

    Raises
    ------
    OutputRefused
        The target is a directory, its folder is missing or not writable, it
        is a file that may not be written, or stdout is closed.
    """

    def __init__(self, path, name: str = "output", *, suffix: str = ""):
        self.path = "-" if path == "-" else os.fspath(path)
        self.flag = name
        self.suffix = suffix
        self.name = "stdout" if self.path == "-" else self.path
        self.partial = None           # the temporary file, when there is one
        self.target = None            # the file it replaces (links resolved)
        self._fd = None
        self._text = None             # a captured text stream standing in for stdout (tests)
        self._close = False
        self._base = 0
        self.complete = 0             # bytes written that end with a complete chunk
        if self.path == "-":
            if sys.stdout is None:
                raise OutputRefused("stdout is closed; give --out FILE")
            try:
                sys.stdout.flush()
                self._fd = sys.stdout.fileno()
            except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
                self._text = sys.stdout        # a captured stream (tests, notebooks)
        else:
            self._open_file()
        self.regular = self._fd is not None and stat.S_ISREG(os.fstat(self._fd).st_mode)
        if self.regular and self.partial is None:  # stdout redirected to a file: cut back to where we began
            try:
                import fcntl

                appending = fcntl.fcntl(self._fd, fcntl.F_GETFL) & os.O_APPEND
                self._base = os.fstat(self._fd).st_size if appending else os.lseek(self._fd, 0, os.SEEK_CUR)
            except OSError:
                self._base = 0

    def _refuse(self, reason: str, short: str | None = None):
        raise OutputRefused(f"{self.flag} {self.path}: {reason}", short)

    def _open_file(self) -> None:
        if "\0" in self.path:
            raise OutputRefused(f"{self.flag} {self.path!r}: not a valid file name (it holds a NUL byte)")
        if not self.path:
            self._refuse("cannot write (No such file or directory)")
        target = os.path.realpath(self.path)  # write through a symbolic link
        mode = _existing_mode(target)
        if mode is not None and stat.S_ISDIR(mode):
            self._refuse("is a directory, not a file", "Is a directory")
        if mode is not None and not stat.S_ISREG(mode):  # a FIFO, a device, a socket: a stream
            try:
                self._fd = os.open(target, os.O_WRONLY)
            except OSError as exc:
                self._refuse(f"cannot write ({exc.strerror})", exc.strerror)
            self._close = True
            return
        if mode is not None and not os.access(target, os.W_OK):
            self._refuse("cannot write (Permission denied)", "Permission denied")
        try:
            fd, partial = fresh_file(target, ".part" + self.suffix)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            short = reason
            if mode is not None:  # the file exists, but its folder refuses the temporary file
                reason += f"; cannot make {os.path.basename(target)}.*.part beside it"
            self._refuse(f"cannot write ({reason})", short)
        try:
            os.fchmod(fd, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_UMASK)
        except OSError:
            pass
        self._fd, self._close, self.partial, self.target = fd, True, partial, target

    # ------------------------------------------------------------------ writing
    def write(self, data: bytes) -> None:
        """Write all of ``data``; on an error a regular file is cut back to :attr:`complete` and OSError raised."""
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
                    os.ftruncate(self._fd, self._base + self.complete)
                except OSError:
                    pass
            raise
        self.complete += len(data)

    def file(self, binary: bool = True, newline=None):
        """A Python file object writing to this output (for writers that want one: ``numpy.savez``, ``csv``).

        Closing it leaves the output open; call :meth:`commit` after.
        """
        if self._text is not None:
            if binary:
                raise OutputRefused(f"{self.flag}: binary output to a text stream")
            return self._text
        if binary:
            return open(self._fd, "wb", closefd=False)
        return open(self._fd, "w", encoding="utf-8", newline=newline, closefd=False)

    # ------------------------------------------------------------------ ending
    def commit(self) -> None:
        """The output is complete: move the temporary file over the target (OSError when that fails)."""
        if self.partial is not None and self._fd is not None:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                if exc.errno not in (22, 95):  # EINVAL, EOPNOTSUPP: a file system without fsync
                    self.discard()
                    raise
        self._close_fd()
        if self.partial is not None:
            try:
                os.replace(self.partial, self.target)
            except OSError:
                self.discard()
                raise
            self.partial = None

    def discard(self) -> bool:
        """The output failed: remove the temporary file (the target is as it was); True if one was removed."""
        self._close_fd()
        if self.partial is None:
            return False
        try:
            os.remove(self.partial)
        except OSError:
            return False
        finally:
            self.partial = None
        return True

    def keep_partial(self) -> str | None:
        """Close, leaving the temporary file (whole chunks) beside the target untouched; its name, or None."""
        self._close_fd()
        partial, self.partial = self.partial, None
        return partial

    def _close_fd(self) -> None:
        if self._close and self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd = None

    def close(self) -> None:
        """Discard an output that was neither committed nor kept (never raises)."""
        self.discard()


@contextlib.contextmanager
def write_whole(path, newline=None, *, binary: bool = False, name: str = "output"):
    """A file object for ``path`` that is moved into place only when the block ends without an error.

    ``path`` never holds part of a file: readers see the old file or the
    whole new one (:class:`Output`).  An error (an OSError, Ctrl-C, anything)
    leaves no temporary file behind and is raised again.  Text (UTF-8) unless
    ``binary``.
    """
    with Output(path, name) as out:
        with out.file(binary=binary, newline=newline) as f:
            yield f


class PartialFile(_WholeOrNothing):
    """A temporary file beside a target for a writer that writes by name over many calls (an encoder).

    Opened as an :class:`Output` is (the same checks and refusals: a
    directory, a missing folder, no permission), the temporary file
    :attr:`partial` (``target + ".<random>.part" + suffix``, in the target's
    folder, so that the move is one atomic rename) is created empty and
    exclusively (:func:`fresh_file`) and left to the writer, which opens it
    by name (a fresh private name: nothing planted there can be followed);
    :meth:`commit` moves it over :attr:`path`, :meth:`discard` removes it,
    so ``path`` never holds part of a file.  :meth:`stage` makes more such
    files for a writer's intermediates (a GIF's lossless video and palette),
    removed by :meth:`commit` and :meth:`discard` alike.  As a context
    manager (:func:`whole_path`): commit on success, discard on any
    exception (raised again).

    With ``stream_ok``, a target that is a stream (a FIFO, a device) is
    written directly: :attr:`partial` is None and :attr:`path` the stream.

    Raises
    ------
    OutputRefused
        As :class:`Output`; also, without ``stream_ok``, for a target that is
        not a regular file (a stream or a device).
    """

    def __init__(self, path, name: str = "output", suffix: str = "", *, stream_ok: bool = False):
        out = Output(path, name, suffix=suffix)
        self.partial = out.keep_partial()  # the writer opens the temporary file by name itself
        self.path = out.path if self.partial is None else out.target
        self.stages: list[str] = []
        if self.partial is None and not stream_ok:
            out.close()
            raise OutputRefused(f"{name} {path}: not a regular file (a stream or a device)")

    def commit(self) -> None:
        """Move the complete :attr:`partial` over :attr:`path` (OSError when it cannot be; then it is removed)."""
        if self.partial is not None:
            try:
                os.replace(self.partial, self.path)
            except BaseException:
                self.discard()
                raise
            self.partial = None
        self._remove_stages()

    def stage(self, suffix: str) -> str:
        """The name of one more new, empty, private file beside the target (an intermediate; OSError)."""
        fd, name = fresh_file(self.path, ".part" + suffix)
        os.close(fd)
        self.stages.append(name)
        return name

    def discard(self) -> None:
        """Remove :attr:`partial` and the stages if they exist; never raises."""
        if self.partial is not None:
            with contextlib.suppress(OSError):
                os.remove(self.partial)
            self.partial = None
        self._remove_stages()

    def _remove_stages(self) -> None:
        while self.stages:
            with contextlib.suppress(OSError):
                os.remove(self.stages.pop())


@contextlib.contextmanager
def whole_path(path, suffix: str = "", name: str = "output"):
    """A temporary path beside ``path`` for a library that writes by name (an image exporter).

    Yields the temporary name (``path + ".<random>.part" + suffix``, a
    :class:`PartialFile`); when the block ends without an error the file is
    moved over ``path``, else removed.  A stream target (a FIFO, a device)
    is yielded as it is: the library writes to it by name.
    """
    with PartialFile(path, name, suffix, stream_ok=True) as part:
        yield part.path if part.partial is None else part.partial


def same_file(a, b) -> bool:
    """True when paths ``a`` and ``b`` name one existing file (links and relative names resolved)."""
    try:
        x, y = os.stat(a), os.stat(b)
    except (OSError, ValueError, TypeError):
        return False
    return (x.st_dev, x.st_ino) == (y.st_dev, y.st_ino)


def check_outputs(outputs: dict, inputs: dict) -> None:
    """Refuse an output that is one of the run's inputs, or two outputs that are one file.

    Parameters
    ----------
    outputs : dict
        How each output is named in messages (``"--out"``) -> its path (``"-"`` and None skipped).
    inputs : dict
        How each input is named (``"--scenario"``, ``"the body's mesh"``) -> its path (None skipped).

    Raises
    ------
    OutputRefused
        Naming the output and the input it would overwrite.
    """
    named = [(flag, path) for flag, path in outputs.items() if path not in (None, "-")]
    for flag, path in named:
        for what, source in inputs.items():
            if source is not None and same_file(path, source):
                raise OutputRefused(f"{flag} {path}: is the run's input ({what}); writing it would destroy "
                                    "the input: choose another name")
    for i, (flag, path) in enumerate(named):
        for other, second in named[i + 1:]:
            if os.path.realpath(path) == os.path.realpath(second) or same_file(path, second):
                raise OutputRefused(f"{flag} {path} and {other} {second}: the same file; give each its own name")
