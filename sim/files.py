"""Input and output files handled defensively: regular files only, bounded size and line
length on reading; whole files or none on writing.

Scenario files and recordings are read whole.  A device (``/dev/zero``), a
FIFO or a directory given in their place must be refused at once with the
reason, never read for ever; an enormous file or line is refused before it
fills memory.  The file is opened non-blocking, so opening a FIFO does not
wait for a writer, and checked with ``fstat`` on the open descriptor.
"""

from __future__ import annotations

import contextlib
import os
import stat

__all__ = ["FileRefused", "read_regular", "kind_of", "write_whole", "PartialFile"]


class FileRefused(ValueError):
    """The path is not a readable regular file of bounded size; the message says why."""


def kind_of(mode: int) -> str:
    """What a ``st_mode`` describes, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(path, max_bytes: int, max_line: int, what: str) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``max_bytes``.

    Parameters
    ----------
    path : path-like
    max_bytes : int
        Largest file accepted.
    max_line : int
        Longest line accepted (bytes, without the newline).
    what : str
        What the file should be ("scenario file", "recording"), for messages.

    Raises
    ------
    FileRefused
        With a message naming the path and the reason (missing, a directory,
        a device or FIFO, unreadable, too large, a line too long).
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise FileRefused(f"{name}: no such {what}") from None
    except IsADirectoryError:
        raise FileRefused(f"{name}: is a directory, not a {what}") from None
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read ({exc.strerror})") from None
    except ValueError:  # a NUL byte in the name
        raise FileRefused(f"{name!r}: not a valid file name (it holds a NUL byte)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{name}: is {kind_of(info.st_mode)}, not a {what} (a regular file)")
        if info.st_size > max_bytes:
            raise FileRefused(f"{name}: {info.st_size:,} bytes is too large for a {what} "
                              f"(at most {max_bytes:,})")
        chunks, size = [], 0
        while True:  # read to the end, but never past the cap (the file may grow)
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise FileRefused(f"{name}: more than {max_bytes:,} bytes is too large for a {what}")
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    pos, size = 0, len(data)
    while size - pos > max_line:  # look for a newline within max_line bytes of each line start
        nl = data.find(b"\n", pos, pos + max_line + 1)
        if nl < 0:
            number = data.count(b"\n", 0, pos) + 1
            raise FileRefused(f"{name}, line {number}: longer than a {what} line may be "
                              f"(at most {max_line:,} bytes)")
        pos = nl + 1
    return data


class PartialFile:
    """A file written under a temporary name beside its target, moved over the target only when complete.

    ``path`` never holds part of a file: readers see the old file or the
    whole new one, and a failed write leaves the old file as it was.  The
    writer (this process, or another one such as an encoder) writes
    :attr:`partial` (``path + ".part"``, in the same folder, so the move
    is one atomic rename); :meth:`commit` moves it over :attr:`path`,
    :meth:`discard` removes it.  As a context manager: commit on success,
    discard on any exception (which is raised again).

    Attributes
    ----------
    path : str
        The target.
    partial : str
        The temporary file beside it.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self.partial = f"{self.path}.part"

    def commit(self) -> None:
        """Move the complete :attr:`partial` over :attr:`path` (OSError when it cannot be)."""
        os.replace(self.partial, self.path)

    def discard(self) -> None:
        """Remove :attr:`partial` if it exists; never raises."""
        with contextlib.suppress(OSError):
            os.remove(self.partial)

    def __enter__(self) -> "PartialFile":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            try:
                self.commit()
            except BaseException:
                self.discard()
                raise
        else:
            self.discard()


@contextlib.contextmanager
def write_whole(path, newline=None):
    """Open ``path + ".part"`` for text; on success move it over ``path``, on error remove it.

    ``path`` never holds part of a file: readers see the old file or the whole
    new one.  An OSError (or any other exception) leaves no ``.part`` behind
    and is raised again (:class:`PartialFile`).
    """
    with PartialFile(path) as part:
        with open(part.partial, "w", encoding="utf-8", newline=newline) as out:
            yield out
