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

The result holds one value per body and column (:data:`sim.sweep.chunk.COLUMNS` order: the
index, the initial state, the final state and the metrics), ordered by
global index, and optionally every k-th sample of every body's ``Q`` and
``w``.  No Qt here, and no process pool of our own: parallelism is Dask's.

Here: :class:`Sweep` (sizing, cost and the run, here or on Dask) and the Dask side (gathering the
chunks, progress from the workers).  :mod:`sim.sweep.chunk` flies one chunk and names the columns;
:mod:`sim.sweep.summary` sums a result up.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import CancelledError

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.io.costs import BYTES_PER_BODY, BYTES_PER_BODY_FACET, LOST_SECONDS, POLL_SECONDS, WORKER_BYTES
from sim.ensemble.sampling import epoch_plus
from sim.io.limits import LIMITS, SettingsError, least_seconds
from sim.model.domain import check_domain
from sim.model.shape import load
from sim.world.time import EpochError
from sim.run.context import check_inputs
from sim.run.scenario import Scenario
from sim.sweep.chunk import SweepResult, chunks, columns, run_chunk, sample_times

__all__ = ["Sweep", "SweepFailed", "MAX_TRAJECTORY_BYTES"]

#: A trajectory file larger than this is refused up front (bytes; :data:`sim.io.limits.LIMITS`).
MAX_TRAJECTORY_BYTES = LIMITS["trajectory_bytes"].high


def _check_spread_domain(scenario: Scenario, spec: EnsembleSpec) -> None:
    """The world's models inside their domains for the earliest and the latest epoch ``epoch_spread`` draws,
    over the whole run (:func:`sim.model.domain.check_domain`); SettingsError naming ``epoch_spread``."""
    if not spec.epoch_spread > 0.0:
        return
    settings = scenario.settings
    for sign in (-1, 1):
        try:
            epoch = epoch_plus(settings.epoch, sign * round(spec.epoch_spread * 1e6))
        except (EpochError, OverflowError):  # past the ephemeris's years: check_orbit_spread says so
            continue
        try:
            check_domain(settings.replace(epoch=epoch), scenario.duration)
        except SettingsError as exc:
            raise SettingsError(f"epoch_spread: {settings.epoch} {'-+'[sign > 0]} {spec.epoch_spread:g} s: "
                                f"{exc}") from None


class SweepFailed(RuntimeError):
    """A sweep on Dask ended without its results: the message names the cluster and what went wrong."""


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
        _check_spread_domain(scenario, spec)
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
    def bytes_per_body(self) -> int:
        """Bytes a flying body holds: :data:`~sim.io.costs.BYTES_PER_BODY`, and with SRP or drag its mesh's
        facets (:data:`~sim.io.costs.BYTES_PER_BODY_FACET` each: the surface torques' per-facet rows)."""
        s = self.scenario.settings
        if not (s.srp or s.drag):
            return BYTES_PER_BODY
        return BYTES_PER_BODY + BYTES_PER_BODY_FACET * len(load(s.body, s.mesh_units).faces)

    def memory(self, workers: int = 0, local: bool = True) -> int:
        """Bytes the sweep holds at once on this machine, estimated before it runs.

        The results (one float per body and column, twice while the chunks
        are assembled), the trajectories (likewise), the chunks flown at
        once (in this process, or one per worker when the workers run on
        this machine, ``local``) and the worker processes themselves.
        """
        bodies = self.spec.bodies
        s = self.scenario.settings
        names = columns(s.wheel_count, s.has_orbit, self.spec.spreads_orbits, s.magnetic_on, s.estimator != "truth",
                        s.thrusters != "none", 0 if s.cmg_set is None else len(s.cmg_set.delta0))
        result = 2 * (len(names) * 8 * bodies + self.trajectory_bytes())
        chunk = self.chunk_size(workers)
        flying = chunk * self.bytes_per_body() + self.trajectory_bytes() * chunk // bodies
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
        step = least_seconds(lambda: ens.step(n)) / (n * count)  # Ensemble.step ignores float errors itself
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
    """A call to the scheduler with a deadline; SweepFailed when it does not answer in time, or when its
    connection closes (killed, or the network: the same words as a loss seen while the chunks run)."""
    try:
        return call(callback_timeout=seconds)
    except TimeoutError as exc:
        raise SweepFailed(f"the scheduler of {where} stopped answering ({_why(exc)})") from None
    except OSError as exc:  # distributed's CommClosedError, a connection reset or refused
        raise SweepFailed(f"the connection to {where} was lost ({_why(exc)})") from None


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


#: What distributed's reasons for cancelling a future mean (distributed.client: ``FutureCancelledError.reason``).
_CANCELLED = {"scheduler-connection-lost": "this client lost its connection to the scheduler",
              "scheduler-restart": "the scheduler restarted"}


def _cancelled_why(exc: BaseException | None) -> str:
    """Why chunks were cancelled, from the reasons distributed gives (``FuturesCancelledError.error_groups``,
    or one future's ``reason``); none given, as a bare CancelledError or a chunk seen cancelled, says so."""
    reasons = [group.reason for group in getattr(exc, "error_groups", ())] or [getattr(exc, "reason", None)]
    words = dict.fromkeys(_CANCELLED.get(r, f"reason: {r}") for r in reasons if r)
    return "; ".join(words) or "no reason given"


def _cancel(client, pending) -> None:
    """The chunks not done cancelled on the cluster, as far as it still answers (the sweep ends anyway)."""
    try:
        client.cancel(list(pending))
    except Exception:
        pass


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
                    raise CancelledError
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
        _cancel(client, pending)
        raise
    except CancelledError as exc:  # distributed 2026.8's wait() raises it (FuturesCancelledError) itself
        _cancel(client, pending)
        why = _cancelled_why(exc)
        if why == _CANCELLED["scheduler-connection-lost"]:  # the scheduler went away (killed, or the network)
            raise SweepFailed(f"the connection to {where} was lost (the chunks were cancelled: {why}); "
                              f"{len(parts)} of {total} chunks were done") from None
        raise SweepFailed(f"the chunks were cancelled on {where} ({why}); {len(parts)} of {total} "
                          "chunks were done") from None
    except Exception as exc:
        raise SweepFailed(f"the connection to {where} was lost ({_why(exc)}); {len(parts)} of {total} chunks "
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
