"""The colour scale of attitude errors: blue (home) through green and yellow to red (turned round).

Errors span many decades while a controller brings bodies home (180 deg at
the start, 1e-6 deg at the end), so the scale runs over ``log10`` of the
error in degrees, from :data:`LOW_DEG` (and below) to 180 deg.  The same
scale colours the ensemble's points on the sphere and the bars of its
histogram, whose x axis is therefore the colour legend.  Faulted bodies
(diverged, frozen) are grey.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["LOW_DEG", "HIGH_DEG", "STOPS", "FAULT_COLOR", "error_colors", "log_error", "tick_label"]

#: Errors at or below this (degrees) take the first colour.
LOW_DEG = 0.01
#: The largest attitude error, degrees (a half turn).
HIGH_DEG = 180.0
#: (error in degrees, RGB) anchors of the scale, interpolated in log10 of the error.
STOPS = (
    (LOW_DEG, (0.30, 0.62, 1.00)),
    (0.1, (0.25, 0.85, 0.95)),
    (1.0, (0.35, 0.92, 0.45)),
    (10.0, (1.00, 0.88, 0.25)),
    (60.0, (1.00, 0.55, 0.20)),
    (HIGH_DEG, (1.00, 0.25, 0.30)),
)
#: RGBA of a faulted body.
FAULT_COLOR = (0.55, 0.55, 0.58, 1.0)

_X = np.log10([deg for deg, _ in STOPS])
_RGB = np.array([rgb for _, rgb in STOPS]).T  # (3, stops)


def log_error(error_deg) -> np.ndarray:
    """``log10`` of the errors (degrees) clipped to [:data:`LOW_DEG`, :data:`HIGH_DEG`]; nan stays nan."""
    error = np.asarray(error_deg, dtype=float)
    return np.log10(np.clip(error, LOW_DEG, HIGH_DEG))


def error_colors(error_deg, faulted=None, alpha: float = 1.0, out=None) -> np.ndarray:
    """RGBA (float32, shape (n, 4)) of each error on the scale; faulted or non-finite: :data:`FAULT_COLOR`.

    ``out``: a float32 array of shape (n, 4) to write into (the view's, reused every frame).

    Examples
    --------
    >>> error_colors([0.001, 1.0, 180.0])[:, :3].astype(float).round(2).tolist()
    [[0.3, 0.62, 1.0], [0.35, 0.92, 0.45], [1.0, 0.25, 0.3]]
    """
    x = log_error(error_deg)
    colors = np.empty((x.size, 4), dtype=np.float32) if out is None else out
    for channel in range(3):
        colors[:, channel] = np.interp(x, _X, _RGB[channel])
    colors[:, 3] = alpha
    bad = ~np.isfinite(x)
    if faulted is not None:
        bad |= np.asarray(faulted, dtype=bool)
    if bad.any():
        colors[bad] = FAULT_COLOR
    return colors


def tick_label(degrees: float) -> str:
    """A scale label: ``"0.01"``, ``"1"``, ``"180"``, with a degree sign.

    Examples
    --------
    >>> [tick_label(d) for d in (0.01, 0.1, 1, 10, 180)]
    ['≤0.01°', '0.1°', '1°', '10°', '180°']
    """
    text = f"{degrees:g}°"
    return "≤" + text if math.isclose(degrees, LOW_DEG) else text
