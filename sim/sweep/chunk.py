"""One chunk of a sweep: bodies ``start .. start+count-1`` flown through a scenario, and their columns.

:func:`run_chunk` is what :class:`sim.sweep.Sweep` runs, in this process or on a Dask worker; it
returns one array per name of :func:`columns` (:data:`COLUMNS` order: the index, the initial state,
the final state and the metrics).  :func:`chunks` cuts the bodies into chunks, :func:`sample_times`
the steps a trajectory keeps; :class:`SweepResult` holds the chunks' columns assembled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble.cmg_bodies import sweep_columns
from sim.ensemble.environment import ESTIMATION_METRICS
from sim.model.events import EventCursor
from sim.model.settings import Settings
from sim.model.simulation import SimulationFault
from sim.world.orbit import OrbitError

__all__ = ["COLUMNS", "ORBIT_COLUMNS", "MAGNETIC_COLUMNS", "SPREAD_COLUMNS", "ESTIMATION_COLUMNS", "columns", "SweepResult", "chunks",
           "sample_times", "run_chunk"]

#: Columns of a sweep, in order (README, "Ensembles / sweep"): the global
#: index; the initial state (attitude quaternion, aircraft angles in
#: degrees, rates, inertia with Hoffmann's signs, controller gains); the
#: final state; the metrics of :meth:`sim.ensemble.Ensemble.metrics`.
COLUMNS = ("index",
           "q1_0", "q2_0", "q3_0", "q4_0", "psi0_deg", "theta0_deg", "phi0_deg",
           "wx0", "wy0", "wz0", "jxx", "jyy", "jzz", "jxy", "jxz", "jyz", "k1", "k2", "k3",
           "q1", "q2", "q3", "q4", "wx", "wy", "wz",
           "final_error_deg", "settling_time", "peak_torque", "peak_rate", "travelled_deg", "path_deg",
           "energy_drift", "faulted", "fault_t")



#: With an orbit (issue 31), after the wheels: the pointing axis's final error (deg) and the visible
#: fraction of the solar disc at the end (0 to 1), :meth:`sim.ensemble.Ensemble.metrics`.
ORBIT_COLUMNS = ("point_err_deg", "sunlit")
#: With thrusters (issue 45), after the wheels': each body's propellant used (kg, :attr:`sim.ensemble.Ensemble.fuel`).
FUEL_COLUMNS = ("fuel_kg",)
#: With a magnetic field (issue 32), after the orbit's: the time to detumble (s, nan if never),
#: :meth:`sim.ensemble.Ensemble.metrics` (``spec.detumble_deg_s``).
MAGNETIC_COLUMNS = ("detumble_time",)
#: With an estimator (issue 33), after the field's: each body's final estimate ``qe1..qe4``, the angle of its
#: attitude-estimation error at the end (deg), the RMS of that angle and the mean NEES over the second half of the
#: run, and the NEES at the end (:meth:`sim.ensemble.Ensemble.estimation_metrics`).
ESTIMATION_COLUMNS = ESTIMATION_METRICS
#: When the spec spreads orbits or epochs, then: each body's orbit elements (those of ``--orbit``) and
#: its epoch minus the scenario's (s).
SPREAD_COLUMNS = ("alt_km", "e", "i_deg", "raan_deg", "argp_deg", "nu_deg", "epoch_offset_s")


def columns(wheels: int = 0, orbit: bool = False, spread: bool = False, magnetic: bool = False,
            estimator: bool = False, thrusters: bool = False, cmg: int = 0) -> tuple:
    """The columns of a sweep of bodies with ``wheels`` reaction wheels: :data:`COLUMNS`, then each
    wheel's final speed relative to its body, ``wheel1..N`` (rad/s), :data:`FUEL_COLUMNS` with ``thrusters``,
    with ``cmg`` control moment gyros their final angles ``cmg_delta1..N`` (deg), final ``cmg_m`` and least
    ``cmg_m_min`` (:func:`sim.ensemble.cmg_bodies.sweep_columns`), then :data:`ORBIT_COLUMNS` with an
    ``orbit``, :data:`MAGNETIC_COLUMNS` with a ``magnetic`` field, :data:`ESTIMATION_COLUMNS` with an
    ``estimator`` and :data:`SPREAD_COLUMNS` with orbits or epochs ``spread`` per body."""
    return (COLUMNS + tuple(f"wheel{i}" for i in range(1, wheels + 1)) + (FUEL_COLUMNS if thrusters else ())
            + sweep_columns(cmg) + (ORBIT_COLUMNS if orbit else ())
            + (MAGNETIC_COLUMNS if magnetic else ()) + (ESTIMATION_COLUMNS if estimator else ())
            + (SPREAD_COLUMNS if spread else ()))


# Ensemble.initial() keys (rows of an array) -> column names.
_INITIAL = {"q0": COLUMNS[1:5], "angles_deg0": COLUMNS[5:8], "rates0": COLUMNS[8:11],
            "inertia": COLUMNS[11:17], "gains": COLUMNS[17:20]}
_METRICS = COLUMNS[27:]

#: Body-steps between progress reports of one chunk (about 0.1-0.2 s of work).
_REPORT_BODY_STEPS = 2_000_000


@dataclass
class SweepResult:
    """What a sweep produced.

    Attributes
    ----------
    columns : dict of str -> ndarray, shape (bodies,)
        One array per name of :data:`COLUMNS`, ordered by global index
        (``faulted`` is bool, ``index`` int, the rest float).
    t : ndarray, shape (m,) or None
        Times of the trajectory samples (with ``traj_every``).
    q : ndarray, shape (m, 4, bodies) or None
        Every body's attitude quaternion (scalar last, inertial -> body) at ``t``.
    w : ndarray, shape (m, 3, bodies) or None
        Every body's rates (rad/s) at ``t``.
    """

    columns: dict
    t: np.ndarray | None = None
    q: np.ndarray | None = None
    w: np.ndarray | None = None

    @property
    def bodies(self) -> int:
        return len(self.columns["index"])


def chunks(bodies: int, size: int) -> list[tuple[int, int]]:
    """``(start, count)`` of consecutive chunks of at most ``size`` bodies covering ``0 .. bodies-1``."""
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    return [(start, min(size, bodies - start)) for start in range(0, bodies, size)]


def sample_times(steps: int, every: int) -> np.ndarray:
    """Step numbers sampled by a trajectory: 0, every, 2 every, ... and always the last."""
    ks = list(range(0, steps + 1, every))
    if ks[-1] != steps:
        ks.append(steps)
    return np.array(ks)


def run_chunk(settings: Settings, spec: EnsembleSpec, events: tuple, steps: int, start: int,
              count: int, traj_every: int = 0, report=None) -> dict:
    """Fly bodies ``start .. start+count-1`` for ``steps`` steps; their columns (and trajectory).

    The scenario's ``events`` are applied to every body at the first step
    boundary where ``at`` is reached, by the same
    :class:`~sim.model.events.EventCursor` as :meth:`sim.run.runner.Runner.run`
    applies them to one body (events at ``at <= 0`` before the first step).
    ``report(body_steps)`` (optional) is called as the work goes on.  With an estimator the window of
    ``est_rms_deg`` and ``nees_mean`` starts half-way, at step ``steps // 2``.

    Returns a dict with one array per name of :func:`columns` and, when
    ``traj_every > 0``, ``"_t"`` (m,), ``"_q"`` (m, 4, count) and ``"_w"``
    (m, 3, count), sampled at :func:`sample_times`.
    """
    with np.errstate(all="ignore"):  # a body that runs away is a fault in the metrics, not a warning
        return _run_chunk(settings, spec, events, steps, start, count, traj_every, report)


def _run_chunk(settings, spec, events, steps, start, count, traj_every, report) -> dict:
    ens = Ensemble(settings, spec, start=start, count=count)
    initial = ens.initial()
    cursor = EventCursor(events, ens.set)  # as the runner's: the same events at the same steps
    samples_t, samples_q, samples_w = [], [], []

    def sample():
        samples_t.append(ens.t)
        samples_q.append(np.array(ens.q, copy=True))
        samples_w.append(np.array(ens.w, copy=True))

    cursor.apply(ens.t)
    if traj_every:
        sample()
    report_every = max(1, _REPORT_BODY_STEPS // max(count, 1))
    k = unreported = 0
    half = steps // 2
    while k < steps:
        m = min(steps - k, cursor.steps_to_next(ens.t, ens.settings.dt), report_every - unreported)
        if traj_every:
            m = min(m, traj_every - k % traj_every)
        if k < half:
            m = min(m, half - k)
        try:
            ens.step(m)
        except OrbitError as exc:  # the shared TLE decays mid-sweep: a fault of every body (sim.model.domain)
            raise SimulationFault(f"{exc}; every body of the sweep flies this orbit", ens.t) from None
        k += m
        if k == half:
            ens.start_estimate_window()
        unreported += m
        cursor.apply(ens.t)
        if traj_every and (k % traj_every == 0 or k == steps):
            sample()
        if unreported >= report_every or k == steps:
            if report is not None:
                report(unreported * count)
            unreported = 0
    columns = {"index": np.asarray(initial["index"], dtype=np.int64)}
    for key, names in _INITIAL.items():
        rows = np.asarray(initial[key], dtype=float).reshape(len(names), count)
        columns.update(zip(names, rows))
    columns.update(zip(("q1", "q2", "q3", "q4"), np.array(ens.q, dtype=float).reshape(4, count)))
    columns.update(zip(("wx", "wy", "wz"), np.array(ens.w, dtype=float).reshape(3, count)))
    metrics = ens.metrics()
    for name in _METRICS:
        columns[name] = np.asarray(metrics[name], dtype=bool if name == "faulted" else float)
    for i, speeds in enumerate(np.array(ens.wheel_speeds, dtype=float).reshape(-1, count), start=1):
        columns[f"wheel{i}"] = speeds
    if ens.fuel is not None:
        columns["fuel_kg"] = np.asarray(ens.fuel, dtype=float)
    if ens.cmgs is not None:  # issue 45: each body's cluster (sim.ensemble.cmg_bodies)
        columns.update(ens.cmgs.values())
    if "point_err_deg" in metrics:
        for name in ORBIT_COLUMNS:
            columns[name] = np.asarray(metrics[name], dtype=float)
    if settings.magnetic_on:
        columns["detumble_time"] = np.asarray(metrics["detumble_time"], dtype=float)
    for name in ESTIMATION_COLUMNS if "nees" in metrics else ():
        columns[name] = np.asarray(metrics[name], dtype=float)
    if "orbit" in initial:
        columns.update(zip(SPREAD_COLUMNS[:6], np.asarray(initial["orbit"], dtype=float).reshape(6, count)))
        columns["epoch_offset_s"] = np.asarray(initial["epoch_us"], dtype=float) * 1e-6
    if traj_every:
        columns["_t"] = np.array(samples_t)
        columns["_q"] = np.stack(samples_q)
        columns["_w"] = np.stack(samples_w)
    return columns
