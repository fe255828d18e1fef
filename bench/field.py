"""The geomagnetic field's cost per evaluation, and the sampling interval that keeps its error under 0.1 %.

``python -m bench.field``: prints the rows that docs/PERFORMANCE.md ("The
geomagnetic field") quotes.  Not part of ``python -m bench`` yet (issue 32's
integration will add it).

Cost: CPU time (``time.process_time``) of one evaluation on floats (one
body) and per body on columns, IGRF at degree 13 and the dipole.

Sampling: a circular orbit at 500 km, inclination 97.4 deg, over a day; the
ECI field sampled every ``h`` seconds and held (zero-order hold) or
interpolated linearly between samples, against the field at every second.
The error is ``max |B_approx - B| / |B|`` over the day, which bounds the
error of a magnetic torque ``m x B`` relative to ``|m| |B|``.
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np

from sim.core.ops import COLUMN
from sim.world.environment import MU_EARTH
from sim.world.magnetic import dipole_ecef, field_eci, gauss, igrf_ecef

_clock = time.process_time
#: The Earth's rotation rate, rad/s (IERS).
OMEGA_EARTH = 7.292115e-5


def _us(fn, repeats=7, calls=2000) -> float:
    times = []
    for _ in range(repeats):
        start = _clock()
        for _ in range(calls):
            fn()
        times.append((_clock() - start) / calls * 1e6)
    return statistics.median(times)


def cost() -> list[tuple[str, float]]:
    model = gauss(2026.5)
    p = (6.1e6, 1.2e6, 3.3e6)
    rows = [("IGRF degree 13, one body (floats)", _us(lambda: igrf_ecef(p, model))),
            ("dipole, one body (floats)", _us(lambda: dipole_ecef(p, model)))]
    n = 1000
    cols = tuple(np.random.default_rng(0).normal(size=(3, n)) * 7e6)
    rows.append((f"IGRF degree 13, per body of {n} (columns)",
                 _us(lambda: igrf_ecef(cols, model, COLUMN), calls=20) / n))
    rows.append((f"dipole, per body of {n} (columns)", _us(lambda: dipole_ecef(cols, model, COLUMN), calls=200) / n))
    return rows


#: No precession: the sampling error is the field's own change along the orbit.
_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _orbit(t):
    r = 6378.137e3 + 500e3
    n = math.sqrt(MU_EARTH / r**3)
    inc = math.radians(97.4)
    u = n * t
    return (r * np.cos(u), r * np.sin(u) * math.cos(inc), r * np.sin(u) * math.sin(inc)), 2 * math.pi / n


def sampling(steps=(1, 5, 10, 15, 20, 30, 60, 120)) -> list[tuple[float, float, float]]:
    """``(h, zero-order hold error, linear interpolation error)`` per interval ``h`` (s)."""
    model = gauss(2026.5)
    t = np.arange(0.0, 86400.0 + 1.0, 1.0)
    r, _ = _orbit(t)
    b = np.array(field_eci(r, (np.cos(OMEGA_EARTH * t), np.sin(OMEGA_EARTH * t)), _IDENTITY, model, COLUMN))
    mag = np.linalg.norm(b, axis=0)
    out = []
    for h in steps:
        idx = np.arange(0, t.size, h)
        k = np.minimum(t.astype(int) // h, idx.size - 2)
        b0, b1 = b[:, idx[k]], b[:, idx[k + 1]]
        f = (t - t[idx[k]]) / h
        hold = np.max(np.linalg.norm(b0 - b, axis=0) / mag)
        lin = np.max(np.linalg.norm(b0 + f * (b1 - b0) - b, axis=0) / mag)
        out.append((h, hold, lin))
    return out


def main() -> None:
    for name, us in cost():
        print(f"{name:45s} {us:9.3f} us")
    print("h (s)   hold error   linear error   (500 km, 97.4 deg, one day, IGRF 13)")
    for h, hold, lin in sampling():
        print(f"{h:5.0f}   {hold:10.2e}   {lin:12.2e}")


if __name__ == "__main__":
    main()
