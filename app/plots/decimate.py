"""Min/max decimation of plot data to the pixel columns of a plot (pure numpy).

A 20 s plot window at dt = 1 ms holds 20,000 samples per curve, but a plot
a few hundred pixels wide can show at most one vertical stroke per pixel
column.  :func:`envelope` reduces a curve to the minimum and maximum of
each run of ``factor`` consecutive samples ("peak" decimation): every
extreme survives, so a one-sample spike is still drawn, and a curve of
20,000 samples becomes about a thousand points before it reaches
pyqtgraph's ``setData``.

The runs are aligned to the samples' *global* index (their position since
the history began), and :func:`factor_for` returns powers of two: while a
plot scrolls, a run holds the same samples from one frame to the next, so
the drawn curve does not shimmer as the window moves.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["envelope", "factor_for"]


def factor_for(samples: int, columns: float) -> int:
    """Samples per run so that ``samples`` fit in about ``columns`` runs.

    Parameters
    ----------
    samples : int
        Samples in the plot window.
    columns : float
        Pixel columns available (the plot's width).

    Returns
    -------
    int
        A power of two, at least 1: between ``columns`` and ``2 * columns``
        runs result (or every sample when they already fit).
    """
    if columns < 1 or samples <= 2 * columns:
        return 1
    return 1 << max(0, math.ceil(math.log2(samples / columns)) - 1)


def envelope(x, ys, first_index: int, factor: int, wraps=None):
    """Reduce curves to the minimum and maximum of each run of ``factor`` samples.

    Parameters
    ----------
    x : ndarray, shape (n,)
        Abscissae (time), non-decreasing.
    ys : ndarray, shape (k, n)
        Ordinates of ``k`` curves sharing ``x``.
    first_index : int
        Global index of ``x[0]``; runs start at global indices that are
        multiples of ``factor`` (the first and last run may be shorter).
    factor : int
        Samples per run (>= 1); 1 keeps every sample.
    wraps : array_like of bool, shape (k,), optional
        Per curve: an angle in (-180, 180] degrees.  Such a curve is broken
        (NaN) inside a run that crosses +-180 and where consecutive points
        jump by more than 180, so no stroke crosses the plot where it wraps.

    Returns
    -------
    x2 : ndarray, shape (m,)
        ``x[0]``, each run's first abscissa twice (a vertical stroke per
        run), then ``x[-1]``; ``x`` itself when ``factor`` is 1.
    ys2 : ndarray, shape (k, m)
        Per curve: the first sample, each run's minimum then maximum (NaN
        samples ignored; a run of NaN only stays NaN), then the last sample,
        so the drawn curve starts and ends at the exact first and latest
        values; a copy of ``ys`` when ``factor`` is 1.
    """
    x = np.asarray(x, dtype=float)
    ys = np.array(ys, dtype=float, ndmin=2)
    wraps = np.zeros(len(ys), bool) if wraps is None else np.asarray(wraps, bool)
    if factor <= 1 or len(x) == 0:
        x2, ys2 = x, ys
    else:
        head = (-int(first_index)) % factor
        starts = np.arange(head, len(x), factor)
        if head:
            starts = np.concatenate(([0], starts))
        x2 = np.concatenate((x[:1], np.repeat(x[starts], 2), x[-1:]))
        with np.errstate(invalid="ignore"):
            low = np.fmin.reduceat(ys, starts, axis=1)
            high = np.fmax.reduceat(ys, starts, axis=1)
            crossed = (high - low > 180.0) & wraps[:, None]
        low[crossed] = np.nan
        high[crossed] = np.nan
        ys2 = np.concatenate((ys[:, :1], np.stack((low, high), axis=2).reshape(len(ys), -1), ys[:, -1:]),
                             axis=1)
    if wraps.any():
        with np.errstate(invalid="ignore"):
            jumps = np.abs(np.diff(ys2[wraps], axis=1)) > 180.0
        gapped = ys2[wraps]
        gapped[:, 1:][jumps] = np.nan
        ys2[wraps] = gapped
    return x2, ys2
