"""STK attitude files (``.a``, AttitudeTimeQuaternions) out.

As STK documents its attitude file format (help.agi.com/stk, "Attitude File
Format (*.a)", importfiles-01): a version line ``stk.v.8.0`` (the last
version of the .a format, STK's "Importing Files" page), a keyword group
``BEGIN Attitude`` ... ``END Attitude`` holding ``NumberOfAttitudePoints``,
``ScenarioEpoch`` (``1 Jan 2000 12:00:00.000000``, UTCG), ``CentralBody
Earth``, ``CoordinateAxes J2000`` and the data after ``AttitudeTimeQuaternions``:
one line per point, ``t q1 q2 q3 q4``, t in seconds from ScenarioEpoch,
``q4`` the scalar.  The data "must represent a transformation from the
reference coordinate frame to the vehicle body frame": the quaternion
carrying J2000's axes onto the body's, the same numbers as CCSDS ADM's
quaternion from A to B (504.0-B-2 F2), so the conjugate of this project's Q
(:mod:`sim.io.conventions`: ``body-to-inertial``, scalar last).  Read back
here only by its tests; no STK was at hand to load it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from sim.run.aem import comment_line

__all__ = ["stk_attitude_text", "STK_VERSION", "stk_epoch"]

#: The .a format's version line (STK: "stk.v.8.0 must be used ... for new Ephemeris and Attitude files").
STK_VERSION = "stk.v.8.0"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def stk_epoch(epoch: datetime) -> str:
    """``epoch`` in STK's UTCG date format: ``1 Jan 2000 12:00:00.000000``."""
    e = epoch.astimezone(UTC)
    return f"{e.day} {_MONTHS[e.month - 1]} {e.year} {e:%H:%M:%S}.{e.microsecond:06d}"


def stk_attitude_text(t, q, epoch: datetime, *, axes: str = "J2000", comment: str = "") -> str:
    """An STK attitude file of this project's quaternions ``q`` (N, 4) at times ``t`` (N,) s after ``epoch``.

    ``q`` are attitudes (unit: :func:`sim.run.aem.attitudes` of a run with norm handling elimination);
    ``comment`` is written as one line (:func:`sim.run.aem.comment_line`).
    """
    t = np.asarray(t, dtype=float)
    values = np.asarray(q, dtype=float) * np.array([-1.0, -1.0, -1.0, 1.0]) + 0.0  # reference -> body (STK)
    lines = [STK_VERSION, "",
             "# Written by attitude-sim: q1 q2 q3 q4 (q4 scalar), J2000 axes to body axes;",
             "# the conjugate of the simulator's Q (Hoffmann, inertial -> body)."]
    if comment:
        lines.append(f"# {comment_line(comment)}")
    lines += ["", "BEGIN Attitude", "",
              f"NumberOfAttitudePoints {len(t)}",
              f"ScenarioEpoch {stk_epoch(epoch)}",
              "BlockingFactor 20",
              "InterpolationOrder 1",
              "CentralBody Earth",
              f"CoordinateAxes {axes}",
              "", "AttitudeTimeQuaternions", ""]
    lines += [f"{ti!r} {a!r} {b!r} {c!r} {d!r}" for ti, (a, b, c, d) in zip(t.tolist(), values.tolist())]
    lines += ["", "END Attitude", ""]
    return "\n".join(lines)
