"""Sweeps: an ensemble of bodies run through a scenario in chunks, serially or on Dask.

A sweep splits the bodies ``0 .. spec.bodies - 1`` into chunks of
consecutive global indices; each chunk is an
:class:`~sim.ensemble.Ensemble` ``(settings, spec, start=, count=)`` flown
through the scenario's duration, with the scenario's time-tagged events
applied at the same steps as :meth:`sim.run.runner.Runner.run` applies them to
one body.  Every body's sample depends only on ``(spec.seed, index)``, so the
columns are bit-identical whatever the chunk size and wherever a chunk runs:
in this process (``client=None``) or on the workers of a
``dask.distributed`` cluster.

The result holds one value per body and column (:data:`COLUMNS` order: the
index, the initial state, the final state and the metrics), ordered by
global index, and optionally every k-th sample of every body's ``Q`` and
``w``.  No Qt here, and no process pool of our own: parallelism is Dask's.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble.environment import ESTIMATION_METRICS
from sim.ensemble.metrics import nees_band
from sim.model.navigation import DOF
from sim.ensemble.sampling import combination
from sim.model.events import EventCursor
from sim.io.costs import BYTES_PER_BODY, LOST_SECONDS, POLL_SECONDS, WORKER_BYTES
from sim.io.limits import LIMITS, least_seconds
from sim.run.context import check_inputs
from sim.run.scenario import Scenario
from sim.model.settings import Settings

__all__ = ["Sweep", "SweepResult", "SweepFailed", "COLUMNS", "ORBIT_COLUMNS", "MAGNETIC_COLUMNS", "SPREAD_COLUMNS",
           "ESTIMATION_COLUMNS",
           "columns", "run_chunk", "chunks", "summary",
           "MAX_TRAJECTORY_BYTES"]

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
            estimator: bool = False) -> tuple:
    """The columns of a sweep of bodies with ``wheels`` reaction wheels: :data:`COLUMNS`, then each
    wheel's final speed relative to its body, ``wheel1..N`` (rad/s), then :data:`ORBIT_COLUMNS` with an
    ``orbit``, :data:`MAGNETIC_COLUMNS` with a ``magnetic`` field, :data:`ESTIMATION_COLUMNS` with an
    ``estimator`` and :data:`SPREAD_COLUMNS` with orbits or epochs ``spread`` per body."""
    return (COLUMNS + tuple(f"wheel{i}" for i in range(1, wheels + 1)) + (ORBIT_COLUMNS if orbit else ())
            + (MAGNETIC_COLUMNS if magnetic else ()) + (ESTIMATION_COLUMNS if estimator else ())
            + (SPREAD_COLUMNS if spread else ()))


# Ensemble.initial() keys (rows of an array) -> column names.
_INITIAL = {"q0": COLUMNS[1:5], "angles_deg0": COLUMNS[5:8], "rates0": COLUMNS[8:11],
            "inertia": COLUMNS[11:17], "gains": COLUMNS[17:20]}
_METRICS = COLUMNS[27:]

#: A trajectory file larger than this is refused up front (bytes; :data:`sim.io.limits.LIMITS`).
MAX_TRAJECTORY_BYTES = LIMITS["trajectory_bytes"].high


class SweepFailed(RuntimeError):
    """A sweep on Dask ended without its results: the message names the cluster and what went wrong."""

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
        ens.step(m)
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


class Sweep:
    """A scenario flown by ``spec.bodies`` bodies, in chunks.

    Parameters
    ----------
    scenario : Scenario
        Settings, events and duration (comparison bodies are not flown).  An
        event that does not fit a body raises SettingsError here
        (:func:`sim.run.runner.check_inputs`), as a run refuses it.
    spec : EnsembleSpec
        How the bodies differ (bodies, seed, attitudes, spreads, gains grid,
        settling threshold).
    chunk : int, optional
        Bodies per chunk (default: all in one chunk when serial; on Dask one
        chunk per worker, two when each still holds :attr:`MIN_CHUNK`
        bodies; at most :attr:`MAX_CHUNK`).
    traj_every : int
        Keep every k-th step of every body's Q and w (0: none).

    Examples
    --------
    >>> from sim.run.scenario import load
    >>> result = Sweep(load("ensemble_controller"), EnsembleSpec(bodies=8)).run()  # doctest: +SKIP
    """

    #: Largest default chunk: bounds a worker's memory.
    MAX_CHUNK = 50_000
    #: Below about this many bodies per chunk the step's fixed cost per numpy call shows (docs/PERFORMANCE.md).
    MIN_CHUNK = 4_000

    def __init__(self, scenario: Scenario, spec: EnsembleSpec, *, chunk: int | None = None,
                 traj_every: int = 0):
        check_inputs(scenario)  # its events against its bodies (SettingsError), before any chunk flies
        self.scenario = scenario
        self.spec = spec
        self.steps = round(scenario.duration / scenario.settings.dt)
        if chunk is not None and chunk < 1:
            raise ValueError(f"chunk must be >= 1, got {chunk}")
        if traj_every < 0:
            raise ValueError(f"traj_every must be >= 0, got {traj_every}")
        self.chunk = chunk
        self.traj_every = traj_every

    @property
    def body_steps(self) -> int:
        """The work of the whole sweep: bodies x steps."""
        return self.spec.bodies * self.steps

    def trajectory_bytes(self) -> int:
        """Size of the trajectory arrays (q and w, float64) the sweep would keep."""
        if not self.traj_every:
            return 0
        return len(sample_times(self.steps, self.traj_every)) * 7 * 8 * self.spec.bodies

    def chunk_size(self, workers: int) -> int:
        """Bodies per chunk on ``workers`` workers (0 or 1: in this process)."""
        workers = max(1, workers)
        size = self.chunk
        if size is None:
            # Two chunks per worker balance a loaded cluster; one per worker when two would
            # make the columns too short to amortise numpy's per-call cost (see MIN_CHUNK).
            parts = workers if workers <= 1 or self.spec.bodies < 2 * workers * self.MIN_CHUNK else 2 * workers
            size = min(self.MAX_CHUNK, max(1, math.ceil(self.spec.bodies / parts)))
            if self.traj_every:  # a chunk's samples travel back whole: keep them to about 256 MiB
                per_body = self.trajectory_bytes() / self.spec.bodies
                size = max(1, min(size, int((256 << 20) / per_body)))
        return min(size, self.spec.bodies)

    def _chunks(self, workers: int) -> list[tuple[int, int]]:
        return chunks(self.spec.bodies, self.chunk_size(workers))

    # ------------------------------------------------------------------ costs
    def memory(self, workers: int = 0, local: bool = True) -> int:
        """Bytes the sweep holds at once on this machine, estimated before it runs.

        The results (one float per body and column, twice while the chunks
        are assembled), the trajectories (likewise), the chunks flown at
        once (in this process, or one per worker when the workers run on
        this machine, ``local``) and the worker processes themselves.
        """
        bodies = self.spec.bodies
        s = self.scenario.settings
        names = columns(s.wheel_count, s.has_orbit, self.spec.spreads_orbits, s.magnetic_on, s.estimator != "truth")
        result = 2 * (len(names) * 8 * bodies + self.trajectory_bytes())
        chunk = self.chunk_size(workers)
        flying = chunk * BYTES_PER_BODY + self.trajectory_bytes() * chunk // bodies
        if workers == 0:
            return result + flying
        return result + (workers * (WORKER_BYTES + 2 * flying) if local else 0)

    def costs(self) -> tuple:
        """``(seconds per body set up, seconds per body-step)``, measured on a few bodies of this sweep.

        Each the least of three timings (:func:`sim.io.limits.least_seconds`),
        on the sweep's own settings and spec, so the controller, the
        integrator and the dispersions in force are what is timed.
        """
        count = min(self.spec.bodies, 400)
        made = []
        setup = least_seconds(lambda: made.append(Ensemble(self.scenario.settings, self.spec, start=0,
                                                           count=count))) / count
        ens, n = made[-1], 8
        with np.errstate(all="ignore"):
            step = least_seconds(lambda: ens.step(n)) / (n * count)
        return setup, step

    def seconds(self, workers: int = 0) -> float:
        """Estimated wall time: bodies set up and body-steps flown, at the measured costs, over the workers."""
        setup, step = self.costs()
        return (self.spec.bodies * setup + self.body_steps * step) / max(1, workers)

    def _args(self):
        s = self.scenario
        return s.settings, self.spec, s.events, self.steps

    def run(self, client=None, progress=None, *, where: str = "the Dask cluster",
            deadline: float | None = None) -> SweepResult:
        """Run every chunk and assemble the columns in index order.

        Parameters
        ----------
        client : distributed.Client, optional
            Run the chunks on this Dask cluster's workers; in this process if None.
        progress : callable, optional
            ``progress(body_steps)`` as the work goes on (sums to :attr:`body_steps`).
        where : str
            How messages name the cluster ("the Dask cluster at tcp://...").
        deadline : float, optional
            Seconds the results may take on Dask (default: no limit).

        Raises
        ------
        SweepFailed
            On Dask: the cluster lost every worker for :data:`LOST_SECONDS`,
            the scheduler stopped answering, a chunk failed (a worker died
            running it more often than Dask retries), or the deadline passed.
            Dask runs the chunks of a lost worker again on the others.
        """
        if client is None:
            parts = [run_chunk(*self._args(), start, count, self.traj_every, progress)
                     for start, count in self._chunks(1)]
        else:
            parts = self._run_dask(client, progress, where, deadline)
        return _assemble(parts, bool(self.traj_every))

    def _run_dask(self, client, progress, where, deadline) -> list[dict]:
        workers = max(1, sum(_ask(client.nthreads, where).values()))
        report = topic = None
        if progress is not None:
            import uuid

            topic = f"attitude-sim-sweep-{uuid.uuid4().hex}"
            client.subscribe_topic(topic, lambda event: progress(event[1]))
            report = _WorkerReport(topic)
        futures = [client.submit(run_chunk, *self._args(), start, count, self.traj_every, report, pure=False)
                   for start, count in self._chunks(workers)]
        try:
            return _gather(client, futures, where, deadline)
        finally:
            if topic is not None:
                try:
                    client.unsubscribe_topic(topic)
                except Exception:
                    pass


def _ask(call, where, seconds: float = 10.0):
    """A call to the scheduler with a deadline; SweepFailed when it does not answer."""
    try:
        return call(callback_timeout=seconds)
    except (TimeoutError, OSError) as exc:
        raise SweepFailed(f"the scheduler of {where} stopped answering ({_why(exc)})") from None


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _gather(client, futures, where, deadline) -> list[dict]:
    """The chunks' results as they complete, each check bounded in time (see :meth:`Sweep.run`)."""
    from distributed import wait

    total = len(futures)
    pending, parts = set(futures), []
    end = None if deadline is None else time.monotonic() + deadline
    lonely_since = None
    try:
        while pending:
            try:
                done, pending = wait(pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            for future in done:
                if future.status == "error":
                    raise SweepFailed(f"a chunk failed on {where} ({_why(future.exception(timeout=10))}); "
                                      f"{len(parts)} of {total} chunks were done")
                if future.status == "cancelled":
                    raise SweepFailed(f"the chunks were cancelled on {where} (the scheduler lost this client); "
                                      f"{len(parts)} of {total} chunks were done")
                parts.append(future.result(timeout=60))
            if not pending:
                break
            if not done:
                if not _ask(client.nthreads, where):
                    lonely_since = lonely_since or time.monotonic()
                    if time.monotonic() - lonely_since > LOST_SECONDS:
                        raise SweepFailed(f"{where} has had no worker for {LOST_SECONDS:g} s (its "
                                          f"workers died or left); {len(parts)} of {total} chunks were done")
                else:
                    lonely_since = None
            if end is not None and time.monotonic() > end:
                raise SweepFailed(f"no result from {where} within {deadline:,.0f} s, several times the estimate; "
                                  f"{len(parts)} of {total} chunks were done")
    except SweepFailed:
        try:
            client.cancel(list(pending))
        except Exception:
            pass
        raise
    except Exception as exc:
        why = ("the scheduler went away and the chunks with it" if "Cancelled" in type(exc).__name__
               else _why(exc))
        raise SweepFailed(f"the connection to {where} was lost ({why}); {len(parts)} of {total} chunks "
                          "were done") from None
    return parts


class _WorkerReport:
    """Progress from a Dask worker: an event on the client's topic (picklable)."""

    def __init__(self, topic: str):
        self.topic = topic

    def __call__(self, body_steps: int) -> None:
        from distributed import get_worker

        get_worker().log_event(self.topic, body_steps)


def _assemble(parts: list[dict], trajectories: bool) -> SweepResult:
    parts = sorted(parts, key=lambda p: int(p["index"][0]))
    columns = {name: np.concatenate([p[name] for p in parts]) for name in parts[0] if not name.startswith("_")}
    if not trajectories:
        return SweepResult(columns)
    return SweepResult(columns, t=parts[0]["_t"], q=np.concatenate([p["_q"] for p in parts], axis=2),
                       w=np.concatenate([p["_w"] for p in parts], axis=2))


def _by_gains(grid, index, settling) -> list:
    """One row per combination flown, in grid order: ``(gains, bodies, settled, median, max)``.

    Body ``i`` flew combination ``i mod C``; the bodies are grouped by that
    number (sorted), never by walking all C combinations (up to 10^9).  The
    median is numpy's ``percentile(method="nearest")`` of each group: the
    sorted group's element at ``(n - 1) / 2``, rounded half to even.
    """
    if not len(index):
        return []
    total = len(grid[0]) * len(grid[1]) * len(grid[2])
    number = np.asarray(index, dtype=np.int64) % total
    order = np.lexsort((settling, number))
    number, t = number[order], settling[order]
    starts = np.flatnonzero(np.r_[True, number[1:] != number[:-1]])
    ends = np.r_[starts[1:], len(number)]
    counts = ends - starts
    settled = np.add.reduceat(np.isfinite(t).astype(np.int64), starts)
    median = t[starts + np.around((counts - 1) * 0.5).astype(np.int64)]
    top = t[ends - 1]
    positions = combination(grid, number[starts])
    axes = [np.asarray(axis, dtype=float) for axis in grid]
    gains = zip(*(axis[k] for axis, k in zip(axes, positions)))
    return [(tuple(float(g) for g in combo), int(n), int(s), float(m), float(x))
            for combo, n, s, m, x in zip(gains, counts, settled, median, top)]


def _never_as_inf(settling: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(settling), np.inf, settling)


def summary(result: SweepResult, spec: EnsembleSpec, worst: int = 5, estimator: str = "truth") -> dict:
    """The figures of the summary table, computed from the columns.

    Returns a dict: ``bodies``, ``faulted`` (count), ``flying`` (bodies not
    faulted), ``percentiles`` (the levels), ``settling_time`` and
    ``final_error_deg`` and ``travelled_deg`` (their percentiles over the
    bodies that did not fault, nearest rank, a never-settled body counting
    as ``inf``), ``point_err_deg`` (likewise with an orbit, else None),
    ``detumble_time`` (likewise with a magnetic field, else None; a body
    never under the rate counting as ``inf``), ``detumble_p95`` (its 95th
    percentile) and ``detumbled`` (count under the rate at some time),
    ``settled`` (count within ``spec.settle_deg`` at the end), ``unwinding``
    (count with ``travelled_deg > 180``), ``worst`` (global indices of the
    ``worst`` bodies: never settled first, by final error, then the longest
    settling times); with a gains grid, ``by_gains``: one tuple
    ``(gains, bodies, settled, median settling time, max settling time)``
    per combination flown, in grid order, over the bodies that did not fault.  With an ``estimator`` (the
    settings' ``estimator`` the sweep flew, :data:`sim.model.navigation.ESTIMATORS`) also
    ``est_err_deg``, ``est_rms_deg`` and ``nees_mean`` (their percentiles likewise) and ``nees_check``: the
    average of the final NEES over the bodies that did not fault (``mean``) against the 95 % band of a
    consistent filter (``low``, ``high``: :func:`sim.ensemble.metrics.nees_band` of ``dof``, 6 for the MEKF's
    attitude and bias, 3 for TRIAD's and QUEST's attitude), ``inside`` (bool); else all four None.
    """
    c = result.columns
    faulted = c["faulted"]
    pointing = c.get("point_err_deg")
    detumble = c.get("detumble_time")
    ok = ~faulted
    settling = _never_as_inf(c["settling_time"])
    error = c["final_error_deg"]
    levels = (0, 50, 90, 99, 100)

    def pct(x):
        if not x.size:
            return [math.nan] * len(levels)
        return [float(v) for v in np.percentile(x, levels, method="nearest")]

    def pct95(x):
        return float(np.percentile(x, 95, method="nearest")) if x.size else math.nan

    # Worst first: faulted bodies, then never settled (largest error first), then slowest to settle.
    order = np.lexsort((-error, -settling, ok))
    by_gains = _by_gains(spec.gains_grid, c["index"][ok], settling[ok]) if spec.gains_grid else []
    return {"bodies": result.bodies, "faulted": int(faulted.sum()), "flying": int(ok.sum()),
            "percentiles": levels, "settling_time": pct(settling[ok]), "final_error_deg": pct(error[ok]),
            "travelled_deg": pct(c["travelled_deg"][ok]),
            "point_err_deg": None if pointing is None else pct(pointing[ok]),
            "detumble_time": None if detumble is None else pct(_never_as_inf(detumble[ok])),
            "detumbled": None if detumble is None else int(np.isfinite(detumble[ok]).sum()),
            "detumble_p95": None if detumble is None else pct95(_never_as_inf(detumble[ok])),
            "settled": int(np.isfinite(settling[ok]).sum()),
            "unwinding": int((c["travelled_deg"] > 180.0).sum()),
            "worst": [int(c["index"][i]) for i in order[:worst]], "by_gains": by_gains,
            **_estimation(c, ok, pct, estimator)}


def _estimation(c, ok, pct, estimator) -> dict:
    """The summary's estimation figures (:func:`summary`)."""
    if "nees" not in c or estimator not in DOF:
        return dict.fromkeys(("est_err_deg", "est_rms_deg", "nees_mean", "nees_check"))
    dof = DOF[estimator]
    out = {key: pct(c[key][ok]) for key in ("est_err_deg", "est_rms_deg", "nees_mean")}
    flying = int(ok.sum())
    mean = float(np.mean(c["nees"][ok])) if flying else math.nan
    low, high = nees_band(dof, flying) if flying else (math.nan, math.nan)
    out["nees_check"] = {"mean": mean, "low": low, "high": high, "dof": dof, "bodies": flying,
                         "inside": bool(low <= mean <= high)}
    return out
