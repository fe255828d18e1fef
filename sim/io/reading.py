"""Input files read defensively: regular files only, bounded size and line length.

Scenario files, recordings, meshes, surface files, attitude files and TLEs are read whole through
:func:`read_regular`.  A device (``/dev/zero``), a FIFO or a directory given in their place must be
refused at once with the reason, never read for ever; an enormous file or line is refused before it
fills memory.  The file is opened non-blocking, so opening a FIFO does not wait for a writer, and
checked with ``fstat`` on the open descriptor.  :func:`kind_of` names a file's kind in words.  The
write side, whole files or none, is :mod:`sim.io.files`.
"""

from __future__ import annotations

import os
import stat

__all__ = ["FileRefused", "read_regular", "kind_of"]


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


def read_regular(path, max_bytes: int, max_line: int | None, what: str) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``max_bytes``.

    Parameters
    ----------
    path : path-like
    max_bytes : int
        Largest file accepted.
    max_line : int or None
        Longest line accepted (bytes, without the newline); None for a
        binary format, which has no lines.
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
    if max_line is None:
        return data
    pos, size = 0, len(data)
    while size - pos > max_line:  # look for a newline within max_line bytes of each line start
        nl = data.find(b"\n", pos, pos + max_line + 1)
        if nl < 0:
            number = data.count(b"\n", 0, pos) + 1
            raise FileRefused(f"{name}, line {number}: longer than a {what} line may be "
                              f"(at most {max_line:,} bytes)")
        pos = nl + 1
    return data
