"""An attitude file played back: its attitude at any time, as the batches the window shows.

A :class:`Playback` turns an :class:`~sim.run.aem.AttitudeTrack` (what
:func:`~sim.run.aem.read_aem` read) into :class:`~sim.run.runner.Batch` es,
the same records the simulation thread hands the window: rows in
:func:`~sim.model.rows.history_columns` order for the plots, the last
state as a :class:`~sim.model.rows.Snapshot` for the 3D view and the
readouts, and, beside it, a second attitude (another file, or the live
simulation's) with the rotation angle between the two as
:data:`~sim.run.runner.COMPARE_COLUMNS` rows.  Nothing is integrated.

Between two samples of a file the attitude is the SLERP of the two
(:func:`sim.core.interpolation.slerp`, Hoffmann Appendix C, the short way
round: the rotation at constant rate about one axis that joins them), and
the rates are interpolated linearly; before the first sample and after the
last the end sample holds.  A file's time runs from its first epoch; two
files play side by side at the same time since their first epochs.  The
rates are the file's own when it has them, else those of
:func:`sim.core.quaternion.rates_from_samples` (``w = 2 V(Q) dQ/dt``, dQ/dt
by central differences; :attr:`~sim.run.aem.AttitudeTrack.rates_from` says
which).  What a file does not hold (energy, torque, norm, the command) is
NaN in the rows: the plots draw nothing for it.

The clock (:meth:`Playback.advance`, :meth:`Playback.seek`) is the
playback's own: a speed factor over wall time, paused or playing, and
moved anywhere in the file's span.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import rotation_angle
from sim.core.angles import aircraft_angles
from sim.core.interpolation import slerp
from sim.core.ops import COLUMN
from sim.model.rows import Snapshot, history_columns
from sim.run.aem import AttitudeTrack
from sim.run.runner import COMPARE_COLUMNS, MAIN, Batch

__all__ = ["Playback", "attitudes_at", "history_rows", "angle_between_deg", "default_speed",
           "PLAY_SECONDS", "SIMULATION"]

#: A file plays in about this many seconds of wall time at its default speed (never slower than 1x).
PLAY_SECONDS = 60.0
#: The label of the live simulation when it runs beside a file.
SIMULATION = "simulation"

_COLUMNS = history_columns(0)
_INDEX = {name: i for i, name in enumerate(_COLUMNS)}
_DEG = 180.0 / math.pi
_NAN4 = (math.nan,) * 4
_NAN3 = (math.nan,) * 3


def attitudes_at(track: AttitudeTrack, times) -> tuple[np.ndarray, np.ndarray]:
    """The track's attitudes ``Q`` (n, 4) and rates ``w`` (n, 3) at ``times`` (n,), s from its first epoch.

    SLERP between the two samples around each time, the short way round
    (Hoffmann Appendix C); rates linear between them; the end samples hold
    outside the track.  At a sample's own time its quaternion exactly.
    """
    t, q, w = track.t, track.q, track.w
    times = np.atleast_1d(np.asarray(times, dtype=float))
    i = np.clip(np.searchsorted(t, times, side="right") - 1, 0, len(t) - 2)
    frac = np.clip((times - t[i]) / (t[i + 1] - t[i]), 0.0, 1.0)
    out = q[i].copy()
    out[frac == 1.0] = q[i + 1][frac == 1.0]
    between = np.flatnonzero((frac > 0.0) & (frac < 1.0))
    for k in between:
        out[k] = slerp(q[i[k]], q[i[k] + 1], float(frac[k]))
    rates = w[i] + frac[:, None] * (w[i + 1] - w[i])
    return out, rates


def angle_between_deg(p, q) -> np.ndarray:
    """The rotation angle between attitudes ``p`` (n, 4) and ``q`` (n, 4), degrees in [0, 180]
    (:func:`sim.core.algebra.rotation_angle`, folded: ``Q`` and ``-Q`` agree)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return np.asarray(rotation_angle(tuple(p.T), tuple(q.T), COLUMN)) * _DEG


def history_rows(times, q, w) -> np.ndarray:
    """Rows in :func:`~sim.model.rows.history_columns` order: ``t``, ``Q``, ``w``, the aircraft
    angles (inertial, and in the orbit angles' columns too); NaN for what an attitude file does not hold."""
    times = np.asarray(times, dtype=float)
    rows = np.full((len(times), len(_COLUMNS)), np.nan)
    rows[:, _INDEX["t"]] = times
    for k, name in enumerate(("q1", "q2", "q3", "q4")):
        rows[:, _INDEX[name]] = q[:, k]
    for k, name in enumerate(("wx", "wy", "wz")):
        rows[:, _INDEX[name]] = w[:, k]
    if len(times):
        angles = np.degrees(np.array(aircraft_angles(tuple(q.T), COLUMN))).T
        for k, name in enumerate(("psi_deg", "theta_deg", "phi_deg")):
            rows[:, _INDEX[name]] = angles[:, k]
            rows[:, _INDEX[name.replace("_deg", "o_deg")]] = angles[:, k]
    return rows


def _snapshot(t: float, q, w) -> Snapshot:
    """A :class:`Snapshot` of a file's attitude (NaN for what the file does not hold)."""
    q = tuple(float(x) for x in q)
    angles = tuple(float(a) * _DEG for a in aircraft_angles(q))
    nan = math.nan
    return Snapshot(t=float(t), step=0, q=q, w=tuple(float(x) for x in w), p=_NAN4, angles_deg=angles, norm=nan,
                    norm_correction=nan, multiplier=nan, energy=nan, h=_NAN3, torque=_NAN3, qc=_NAN4,
                    command_deg=_NAN3, q_dot_p=nan, attitude=q)


def default_speed(track: AttitudeTrack) -> float:
    """The speed factor that plays ``track`` in about :data:`PLAY_SECONDS` (at least 1, real time)."""
    return max(1.0, float(track.t[-1] - track.t[0]) / PLAY_SECONDS)


def _median_step(track: AttitudeTrack) -> float:
    return float(np.median(np.diff(track.t)))


class Playback:
    """An attitude file played on a clock of its own, beside a second file or the live simulation.

    Parameters
    ----------
    track : AttitudeTrack
        What plays (:func:`sim.run.aem.read_aem`).
    name : str
        Its name in the window.
    speed : float, optional
        Speed factor over wall time (default :func:`default_speed`).

    Attributes
    ----------
    second : AttitudeTrack or None
        A second file, played at the same time (:meth:`set_second`).
    second_name : str
        The label of what runs beside: the second file's name, or
        :data:`SIMULATION` (the live simulation, given to :meth:`advance`).
    """

    def __init__(self, track: AttitudeTrack, name: str, speed: float | None = None):
        self.track = track
        self.name = name
        self.speed = default_speed(track) if speed is None else float(speed)
        self.paused = False
        self.second: AttitudeTrack | None = None
        self.second_name = SIMULATION
        self._t = float(track.t[0])
        self._shown: float | None = None  # the time of the last row handed out; None: start anew

    # ----------------------------------------------------------------- clock
    @property
    def t(self) -> float:
        """The time played now, s from the file's first epoch."""
        return self._t

    @property
    def start(self) -> float:
        return float(self.track.t[0])

    @property
    def end(self) -> float:
        return float(self.track.t[-1])

    @property
    def step(self) -> float:
        """A sampling interval for the plots' stores: the file's median step, at most 1/4096 of its span."""
        return min(_median_step(self.track), (self.end - self.start) / 4096.0)

    def seek(self, t: float) -> None:
        """Play from ``t`` (clamped to the file's span); the next batch starts the plots anew."""
        self._t = min(max(float(t), self.start), self.end)
        self._shown = None

    def set_second(self, track: AttitudeTrack | None, name: str = SIMULATION) -> None:
        """Run ``track`` beside (None: the live simulation); the next batch starts the plots anew."""
        self.second = track
        self.second_name = name if track is not None else SIMULATION
        self._shown = None

    @property
    def fresh(self) -> bool:
        """True when the next batch starts the plots anew (after a seek, at the start)."""
        return self._shown is None

    # ---------------------------------------------------------------- batches
    def advance(self, wall_seconds: float, simulation: Snapshot | None = None) -> Batch:
        """Move the clock by ``wall_seconds`` times the speed (not while paused) and return what to show.

        Parameters
        ----------
        wall_seconds : float
            Wall time since the last call, s.
        simulation : Snapshot, optional
            The live simulation's latest state, when it runs beside the file.

        Returns
        -------
        Batch
            ``rows``: the file's samples since the last batch (after a seek:
            from the start of the file) and the interpolated state now;
            ``last``: that state; ``compare`` and ``compare_rows``: the second
            attitude and the angle between the two (under :data:`MAIN`, the
            file, and the second's label), when there is a second.
        """
        if not self.paused:
            self._t = min(self._t + max(0.0, float(wall_seconds)) * self.speed, self.end)
        t = self.track.t
        now = self._t
        if self._shown is None:
            times = t[t < now]
        elif now > self._shown:
            times = t[(t > self._shown) & (t < now)]
        else:
            times = np.empty(0)
        if self._shown is None or now > self._shown:
            times = np.append(times, now)
        q, w = attitudes_at(self.track, times) if len(times) else (np.empty((0, 4)), np.empty((0, 3)))
        rows = history_rows(times, q, w)
        q_now, w_now = attitudes_at(self.track, now)
        last = _snapshot(now, q_now[0], w_now[0])
        compare, compare_rows = {}, {}
        if self.second is not None:
            q2, w2 = attitudes_at(self.second, times)
            q2_now, w2_now = attitudes_at(self.second, now)
            compare[self.second_name] = _snapshot(now, q2_now[0], w2_now[0])
            compare_rows = self._compare_rows(times, q, q2)
        elif simulation is not None:
            compare[SIMULATION] = simulation
            if len(times):  # the simulation as it is now, against the file now
                compare_rows = self._compare_rows(times[-1:], q[-1:], np.array([simulation.attitude]))
        self._shown = now
        return Batch(rows=rows, last=last, compare=compare, compare_rows=compare_rows)

    def _compare_rows(self, times, q, q2) -> dict:
        main = np.full((len(times), len(COMPARE_COLUMNS)), np.nan)
        main[:, 0] = times
        main[:, 1] = 0.0
        other = main.copy()
        other[:, 1] = angle_between_deg(q, q2)
        return {MAIN: main, self.second_name if self.second is not None else SIMULATION: other}
