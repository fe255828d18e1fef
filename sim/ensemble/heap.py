"""Keep numpy's temporaries in the heap while an ensemble steps.

A column step written over :mod:`sim.core.ops` (every integrator but the fused
half-quat step, the Euler controller, each new torque term) makes dozens of
temporary arrays a step, each ``8 N`` bytes (80 kB at N = 10,000).  glibc's
``malloc`` serves blocks of that size from ``mmap`` and, once freed, gives
them back to the system, so every step faults the same pages in again:
the single-source step costs about twice as much, rk4 more (measured at
N = 10,000: docs/PERFORMANCE.md, "Figures that were in docstrings").

:func:`keep_temporaries` raises the two thresholds behind that
(``M_MMAP_THRESHOLD`` to 32 MiB, glibc's own ceiling for it, and
``M_TRIM_THRESHOLD`` to 256 MiB) with ``mallopt``, once per process: blocks
below 32 MiB come from the heap and freed heap memory is kept for the next
step, up to 256 MiB above what is in use.  It changes no result, only
where memory comes from.  On a C library without ``mallopt`` (not glibc) it
does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

__all__ = ["keep_temporaries"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 * 1024 * 1024
_TRIM_THRESHOLD = 256 * 1024 * 1024


@functools.cache
def keep_temporaries() -> bool:
    """Ask glibc to keep freed temporaries in the heap (see the module docstring); True when it took effect."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
