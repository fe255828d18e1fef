"""Sweeps: an ensemble of bodies run through a scenario in chunks, serially or on Dask.

A sweep splits the bodies ``0 .. spec.bodies - 1`` into chunks of
consecutive global indices; each chunk is an
:class:`~sim.ensemble.Ensemble` ``(settings, spec, start=, count=)`` flown
through the scenario's duration, with the scenario's time-tagged events
applied at the same steps as :meth:`sim.runner.Runner.run` applies them to
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

import itertools
import math
from dataclasses import dataclass

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.events import EventCursor
from sim.scenario import Scenario
from sim.settings import Settings

__all__ = ["Sweep", "SweepResult", "COLUMNS", "columns", "run_chunk", "chunks", "summary",
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



def columns(wheels: int = 0) -> tuple:
    """The columns of a sweep of bodies with ``wheels`` reaction wheels: :data:`COLUMNS`, then each
    wheel's final speed relative to its body, ``wheel1..N`` (rad/s)."""
    return COLUMNS + tuple(f"wheel{i}" for i in range(1, wheels + 1))


# Ensemble.initial() keys (rows of an array) -> column names.
_INITIAL = {"q0": COLUMNS[1:5], "angles_deg0": COLUMNS[5:8], "rates0": COLUMNS[8:11],
            "inertia": COLUMNS[11:17], "gains": COLUMNS[17:20]}
_METRICS = COLUMNS[27:]

#: A trajectory file larger than this is refused up front (bytes).
MAX_TRAJECTORY_BYTES = 4 * 2**30

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
    :class:`~sim.events.EventCursor` as :meth:`sim.runner.Runner.run`
    applies them to one body (events at ``at <= 0`` before the first step).
    ``report(body_steps)`` (optional) is called as the work goes on.

    Returns a dict with one array per name of :func:`columns` and, when
    ``traj_every > 0``, ``"_t"`` (m,), ``"_q"`` (m, 4, count) and ``"_w"``
    (m, 3, count), sampled at :func:`sample_times`.
    """
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
    while k < steps:
        m = min(steps - k, cursor.steps_to_next(ens.t, ens.settings.dt), report_every - unreported)
        if traj_every:
            m = min(m, traj_every - k % traj_every)
        ens.step(m)
        k += m
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
        Settings, events and duration (comparison bodies are not flown).
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
    >>> from sim.scenario import load
    >>> result = Sweep(load("ensemble_controller"), EnsembleSpec(bodies=8)).run()  # doctest: +SKIP
    """

    #: Largest default chunk: bounds a worker's memory.
    MAX_CHUNK = 50_000
    #: Below about this many bodies per chunk the step's fixed cost per numpy call shows
    #: (measured: 92 ns per body-step at 5,000 bodies, 121 ns at 2,500, 148 ns at 1,250).
    MIN_CHUNK = 4_000

    def __init__(self, scenario: Scenario, spec: EnsembleSpec, *, chunk: int | None = None,
                 traj_every: int = 0):
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

    def _chunks(self, workers: int) -> list[tuple[int, int]]:
        size = self.chunk
        if size is None:
            # Two chunks per worker balance a loaded cluster; one per worker when two would
            # make the columns too short to amortise numpy's per-call cost (see MIN_CHUNK).
            parts = workers if workers <= 1 or self.spec.bodies < 2 * workers * self.MIN_CHUNK else 2 * workers
            size = min(self.MAX_CHUNK, max(1, math.ceil(self.spec.bodies / parts)))
        return chunks(self.spec.bodies, size)

    def _args(self):
        s = self.scenario
        return s.settings, self.spec, s.events, self.steps

    def run(self, client=None, progress=None) -> SweepResult:
        """Run every chunk and assemble the columns in index order.

        Parameters
        ----------
        client : distributed.Client, optional
            Run the chunks on this Dask cluster's workers; in this process if None.
        progress : callable, optional
            ``progress(body_steps)`` as the work goes on (sums to :attr:`body_steps`).
        """
        if client is None:
            parts = [run_chunk(*self._args(), start, count, self.traj_every, progress)
                     for start, count in self._chunks(1)]
        else:
            parts = self._run_dask(client, progress)
        return _assemble(parts, bool(self.traj_every))

    def _run_dask(self, client, progress) -> list[dict]:
        from distributed import as_completed

        workers = max(1, sum(client.nthreads().values()))
        report = topic = None
        if progress is not None:
            import uuid

            topic = f"attitude-sim-sweep-{uuid.uuid4().hex}"
            client.subscribe_topic(topic, lambda event: progress(event[1]))
            report = _WorkerReport(topic)
        futures = [client.submit(run_chunk, *self._args(), start, count, self.traj_every, report, pure=False)
                   for start, count in self._chunks(workers)]
        try:
            parts = [future.result() for future in as_completed(futures)]
        finally:
            if topic is not None:
                client.unsubscribe_topic(topic)
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


def _never_as_inf(settling: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(settling), np.inf, settling)


def summary(result: SweepResult, spec: EnsembleSpec, worst: int = 5) -> dict:
    """The figures of the summary table, computed from the columns.

    Returns a dict: ``bodies``, ``faulted`` (count), ``flying`` (bodies not
    faulted), ``percentiles`` (the levels), ``settling_time`` and
    ``final_error_deg`` and ``travelled_deg`` (their percentiles over the
    bodies that did not fault, nearest rank, a never-settled body counting
    as ``inf``),
    ``settled`` (count within ``spec.settle_deg`` at the end), ``unwinding``
    (count with ``travelled_deg > 180``), ``worst`` (global indices of the
    ``worst`` bodies: never settled first, by final error, then the longest
    settling times); with a gains grid, ``by_gains``: one tuple
    ``(gains, bodies, settled, median settling time, max settling time)``
    per combination flown, in grid order, over the bodies that did not fault.
    """
    c = result.columns
    faulted = c["faulted"]
    ok = ~faulted
    settling = _never_as_inf(c["settling_time"])
    error = c["final_error_deg"]
    levels = (0, 50, 90, 99, 100)

    def pct(x):
        if not x.size:
            return [math.nan] * len(levels)
        return [float(v) for v in np.percentile(x, levels, method="nearest")]

    # Worst first: faulted bodies, then never settled (largest error first), then slowest to settle.
    order = np.lexsort((-error, -settling, ok))
    by_gains = []
    if spec.gains_grid:
        gains = np.array([c["k1"], c["k2"], c["k3"]])
        for combo in itertools.product(*spec.gains_grid):
            mine = ok & (gains == np.array(combo)[:, None]).all(axis=0)
            if mine.any():
                t = settling[mine]
                by_gains.append((combo, int(mine.sum()), int(np.isfinite(t).sum()),
                                 float(np.percentile(t, 50, method="nearest")), float(t.max())))
    return {"bodies": result.bodies, "faulted": int(faulted.sum()), "flying": int(ok.sum()),
            "percentiles": levels, "settling_time": pct(settling[ok]), "final_error_deg": pct(error[ok]),
            "travelled_deg": pct(c["travelled_deg"][ok]),
            "settled": int(np.isfinite(settling[ok]).sum()),
            "unwinding": int((c["travelled_deg"] > 180.0).sum()),
            "worst": [int(c["index"][i]) for i in order[:worst]], "by_gains": by_gains}
