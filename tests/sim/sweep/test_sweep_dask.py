"""A sweep on Dask, judged in this process: how it gathers its chunks and how it ends when the cluster fails.

Two kinds of cluster, neither in a child process (so the mutation run sees sim's code at work):

- a real ``dask.distributed`` cluster whose one worker is a thread of this process
  (``LocalCluster(processes=False)``): the chunks, the progress events and the result, for real;
- a scripted cluster on a scripted clock: each chunk finishes (or fails, or is cancelled, or never ends)
  at a time given by the test, the workers come and go at given times, and ``distributed.wait`` waits
  on that clock.  What :meth:`sim.sweep.Sweep.run` promises for a failing cluster (docs/ARCHITECTURE.md,
  its docstring) is checked against the script: the moment it gives up, what it says, what it cancels.
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import re
import time
from types import SimpleNamespace

import distributed
import pytest

import sim.sweep as sweep_module
from sim.io.costs import LOST_SECONDS, POLL_SECONDS
from sim.sweep import Sweep, SweepFailed
from sweeps import sweep_fixtures

SCENARIO = """
[scenario]
title = "dask sweep test"
caption = "short"
duration = 0.12

[settings]
dt = 0.01
angles_deg = [20.0, -30.0, 40.0]
controller = "quaternion"

[[events]]
at = 0.05
command_deg = [10.0, 0.0, 0.0]

[ensemble]
bodies = 6
seed = 3
rate_spread = 0.2
inertia_spread = 5.0
"""

WHERE = "the Dask cluster at tcp://test:8786"


scenario, serial = sweep_fixtures(SCENARIO, "dask_sweep_test", traj_every=5)


def _assert_identical(a, b):
    assert list(a.columns) == list(b.columns)
    for name in a.columns:
        assert a.columns[name].tobytes() == b.columns[name].tobytes(), name
    for name in ("t", "q", "w"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            assert x.tobytes() == y.tobytes(), name


def _words(*words):
    """A regex for these words, in this order, each whole (not glued to other letters)."""
    return re.compile(r".*".join(rf"\b{re.escape(w)}\b" for w in words), re.S)


# ------------------------------------------------------- a real cluster in this process
@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as c:
        yield c


class _Spy:
    """The client, counting the chunks submitted and noting the progress topic."""

    def __init__(self, client):
        self.client, self.submitted, self.topics = client, 0, []

    def __getattr__(self, name):
        return getattr(self.client, name)

    def submit(self, *args, **kwargs):
        self.submitted += 1
        return self.client.submit(*args, **kwargs)

    def subscribe_topic(self, topic, handler):
        self.topics.append(topic)
        return self.client.subscribe_topic(topic, handler)


def _until(condition, seconds=5.0):
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        time.sleep(0.01)
    return condition()


def test_a_dask_sweep_equals_the_serial_one_and_its_progress_adds_up(scenario, serial, client):
    sweep = Sweep(scenario, scenario.ensemble, traj_every=5)
    spy, done = _Spy(client), []
    _assert_identical(sweep.run(spy, progress=done.append, where=WHERE), serial)
    assert spy.submitted == 1, "one worker thread: one chunk (Sweep's chunk parameter)"
    assert _until(lambda: sum(done) == sweep.body_steps), (sum(done), sweep.body_steps)
    assert all(isinstance(n, int) and n > 0 for n in done)
    # Once the sweep has returned, its topic is no longer heard: a late event moves no progress bar.  The
    # scheduler takes the client's messages in order: once it has our "control" subscription (sent after the
    # sweep's unsubscription), it has the unsubscription; and it sends us events in the order they come.
    [topic] = spy.topics
    heard = []
    client.subscribe_topic("test-control", lambda event: heard.append(event[1]))
    try:
        end = time.monotonic() + 5.0
        while not heard and time.monotonic() < end:
            client.log_event("test-control", "ping")
            time.sleep(0.02)
        client.log_event(topic, 10 ** 6)
        client.log_event("test-control", "last")
        assert _until(lambda: "last" in heard)
    finally:
        client.unsubscribe_topic("test-control")
    assert sum(done) == sweep.body_steps


def test_a_dask_sweep_without_progress_in_chunks_of_the_size_asked(scenario, client):
    sweep = Sweep(scenario, scenario.ensemble, chunk=4)
    spy = _Spy(client)
    _assert_identical(sweep.run(spy, where=WHERE), Sweep(scenario, scenario.ensemble).run())
    assert spy.submitted == math.ceil(scenario.ensemble.bodies / 4) and spy.topics == []


# ------------------------------------------------------- a scripted cluster on a scripted clock
class _Hang(BaseException):
    """Stands for a call that would wait for ever (or a loop that never ends); no ``except Exception`` hides it."""


class _Clock:
    def __init__(self):
        self.t = 0.0

    def monotonic(self):
        return self.t


class _Future:
    """Done at ``at`` with ``status``; a "lost" one (its worker died after it was done) is back at ``back``."""

    def __init__(self, clock, at, status, value=None, error=None, back=math.inf):
        self.clock, self.at, self.final, self.value, self.error, self.back = clock, at, status, value, error, back

    @property
    def status(self):
        if self.clock.t < self.at:
            return "pending"
        return "finished" if self.final == "lost" and self.clock.t >= self.back else self.final

    def result(self, timeout=None):
        if self.status == "lost":  # distributed: waits for the chunk to be computed again
            if self.back > self.clock.t + (math.inf if timeout is None else timeout):
                if timeout is None:
                    raise _Hang("waited with no time limit for a lost chunk that never comes back")
                self.clock.t += timeout
                raise TimeoutError()
            self.clock.t = max(self.clock.t, self.back)
        assert self.status == "finished"
        return self.value

    def exception(self, timeout=None):
        assert self.status == "error"
        return self.error


class _Cluster:
    """``plan[i] = (at, status, error)`` for the i-th chunk submitted; ``workers(t)``: the worker threads at t."""

    def __init__(self, plan, workers=lambda t: {"tcp://w1": 1}, answers=math.inf, silence=TimeoutError):
        self.clock, self.plan, self.workers, self.answers = _Clock(), list(plan), workers, answers
        self.silence = silence  # what a call past ``answers`` raises: a timeout, or a closed connection
        self.futures, self.cancelled, self.timeouts, self.empty_at, self.polls = [], [], [], [], 0

    def nthreads(self, callback_timeout=None):
        self.timeouts.append(callback_timeout)
        if callback_timeout is None:
            raise _Hang("asked the scheduler with no time limit")
        if len(self.timeouts) > self.answers:
            raise self.silence("timed out after 10 s\nsecond line")
        now = self.workers(self.clock.t)
        if not now:
            self.empty_at.append(self.clock.t)
        return now

    def submit(self, fn, *args, pure=True):
        at, status, error, *back = self.plan[len(self.futures)]
        value = fn(*args) if status in ("finished", "lost") else None
        self.futures.append(_Future(self.clock, at, status, value, error, *back))
        return self.futures[-1]

    def cancel(self, futures):
        self.cancelled.extend(futures)

    def wait(self, fs, timeout=None, return_when="ALL_COMPLETED"):
        """``distributed.wait`` on the scripted clock (its checks of the arguments included)."""
        self.polls += 1
        if self.polls > 500:
            raise _Hang("the sweep never ends")
        fs = set(fs)
        if return_when not in ("ALL_COMPLETED", "FIRST_COMPLETED"):
            raise NotImplementedError("Only return_when='ALL_COMPLETED' and 'FIRST_COMPLETED' are supported")
        ready = (min if return_when == "FIRST_COMPLETED" else max)(f.at for f in fs)
        if ready > self.clock.t:
            if timeout is None:
                if ready == math.inf:
                    raise _Hang("waited with no time limit for a chunk that never ends")
                self.clock.t = ready
            elif ready <= self.clock.t + timeout:
                self.clock.t = ready
            else:
                self.clock.t += timeout
                raise TimeoutError()
        done = {f for f in fs if f.at <= self.clock.t}
        return done, fs - done


@pytest.fixture
def scripted(monkeypatch):
    def make(plan, **kwargs):
        cluster = _Cluster(plan, **kwargs)
        monkeypatch.setattr(distributed, "wait", cluster.wait)
        monkeypatch.setattr(sweep_module, "time", SimpleNamespace(monotonic=cluster.clock.monotonic))
        return cluster
    return make


def _sweep(scenario, **kwargs):
    return Sweep(scenario, scenario.ensemble, chunk=2, **kwargs)  # 6 bodies: 3 chunks


def test_a_slow_cluster_that_keeps_its_workers_finishes(scenario, serial, scripted):
    # The chunks take far longer than LOST_SECONDS and the polls time out many times: no failure.
    cluster = scripted([(4.5, "finished", None), (3 * LOST_SECONDS, "finished", None),
                        (3 * LOST_SECONDS + 0.5, "finished", None)])
    result = _sweep(scenario, traj_every=5).run(cluster, where=WHERE, deadline=10 * LOST_SECONDS)
    _assert_identical(result, serial)
    assert cluster.clock.t == 3 * LOST_SECONDS + 0.5, "the result is taken as soon as the last chunk is done"
    assert cluster.polls > 3 * LOST_SECONDS / POLL_SECONDS - 2, "every wait is bounded by POLL_SECONDS"
    assert cluster.cancelled == []
    assert all(0 < t < math.inf for t in cluster.timeouts), "every call to the scheduler has a time limit"


def test_a_cluster_that_loses_its_workers_ends_the_sweep(scenario, scripted):
    gone = 3.0
    cluster = scripted([(1.0, "finished", None), (math.inf, "finished", None), (math.inf, "finished", None)],
                       workers=lambda t: {"tcp://w1": 1} if t < gone else {})
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words(WHERE, "no worker", f"{LOST_SECONDS:g} s", "1 of 3 chunks were done").search(message), message
    first_seen_empty = cluster.empty_at[0]
    assert gone <= first_seen_empty <= gone + POLL_SECONDS
    # It gives up at the first check MORE than LOST_SECONDS after the workers were first missed, not before.
    assert LOST_SECONDS < cluster.clock.t - first_seen_empty <= LOST_SECONDS + POLL_SECONDS
    assert set(cluster.cancelled) == set(cluster.futures[1:]), "the chunks still pending are cancelled"


def test_workers_that_come_back_restart_the_count(scenario, scripted):
    # Away twice for 0.8 x LOST_SECONDS, back in between: not lost.
    away = 0.8 * LOST_SECONDS

    def workers(t):
        return {} if (1 <= t < 1 + away) or (3 + away <= t < 3 + 2 * away) else {"tcp://w1": 1}

    end = 4 + 2 * away
    cluster = scripted([(end, "finished", None)] * 3, workers=workers)
    _sweep(scenario).run(cluster, where=WHERE)
    assert cluster.clock.t == end and cluster.empty_at


@pytest.mark.parametrize("error, says, not_said", [
    (ValueError("inertia not positive definite\nTraceback line two"), ("ValueError", "inertia not positive definite"),
     "line two"),
    (RuntimeError(), ("RuntimeError",), "RuntimeError:"),  # no message: the type alone, no dangling colon
])
def test_a_failed_chunk_ends_the_sweep_at_once(scenario, scripted, error, says, not_said):
    cluster = scripted([(1.0, "finished", None), (2.0, "error", error), (math.inf, "finished", None)])
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words("chunk failed", WHERE, *says, "1 of 3 chunks were done").search(message), message
    assert not_said not in message
    assert cluster.clock.t == 2.0, "ended when the chunk failed, without waiting for the others"
    assert cluster.cancelled == [cluster.futures[2]]


def test_cancelled_chunks_end_the_sweep(scenario, scripted):
    cluster = scripted([(1.0, "cancelled", None), (math.inf, "finished", None), (math.inf, "finished", None)])
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words("cancelled", WHERE, "0 of 3 chunks were done").search(message), message
    assert set(cluster.cancelled) == set(cluster.futures[1:])


def test_the_deadline_ends_a_sweep_that_does_not_finish(scenario, scripted):
    deadline = 5.0
    cluster = scripted([(1.0, "finished", None), (math.inf, "finished", None), (math.inf, "finished", None)])
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE, deadline=deadline)
    message = str(failed.value)
    assert _words("no result from", WHERE, "within 5 s", "1 of 3 chunks were done").search(message), message
    assert deadline < cluster.clock.t <= deadline + POLL_SECONDS, "at the first check past the deadline"
    assert set(cluster.cancelled) == set(cluster.futures[1:])


def _cancelled(*reasons):
    """What distributed 2026.8's wait() raises when done futures were cancelled, for these reasons."""
    from distributed.client import CancelledFuturesGroup, FutureCancelledError, FuturesCancelledError

    return FuturesCancelledError([CancelledFuturesGroup([FutureCancelledError(f"chunk-{i}", reason, "a message")],
                                                        reason) for i, reason in enumerate(reasons)])


LOST = ("connection to", WHERE, "was lost")
CANCELLED = ("chunks were cancelled on", WHERE)


# a cancel is not always a lost scheduler: its words are distributed's reasons, not a guess
@pytest.mark.parametrize("raised, says, not_said", [
    (OSError("Connection reset by peer\nmore"), (*LOST, "OSError", "Connection reset by peer"), "more"),
    (_cancelled("scheduler-connection-lost"), (*LOST, "the chunks were cancelled: this client lost its "
                                                      "connection to the scheduler"), "restarted"),
    (_cancelled("scheduler-restart"), (*CANCELLED, "the scheduler restarted"), "connection"),
    (_cancelled("unknown", "scheduler-restart"), (*CANCELLED, "reason: unknown; the scheduler restarted"),
     "connection"),
    (concurrent.futures.CancelledError(), (*CANCELLED, "no reason given"), "scheduler"),
], ids=["connection reset", "connection lost", "restart", "two reasons", "bare cancel"])
def test_a_lost_connection_or_a_cancel_ends_the_sweep(scenario, scripted, monkeypatch, raised, says, not_said):
    cluster = scripted([(math.inf, "finished", None)] * 3)

    def wait(*args, **kwargs):
        raise raised

    monkeypatch.setattr(distributed, "wait", wait)
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words(*says, "0 of 3 chunks were done").search(message), message
    assert not_said not in message and "Cancelled" not in message and "\n" not in message
    if isinstance(raised, concurrent.futures.CancelledError):  # what was pending is cancelled too, as far as it answers
        assert set(cluster.cancelled) == set(cluster.futures)


def test_a_scheduler_that_does_not_answer_ends_the_sweep(scenario, scripted):
    cluster = scripted([], answers=0)
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words("scheduler of", WHERE, "stopped answering", "TimeoutError", "timed out after 10 s").search(message)
    assert "second line" not in message and cluster.futures == []
    assert all(0 < t < math.inf for t in cluster.timeouts)


def test_a_scheduler_that_stops_answering_during_the_sweep_ends_it(scenario, scripted):
    cluster = scripted([(1.0, "finished", None), (math.inf, "finished", None), (math.inf, "finished", None)],
                       answers=1)  # the first call (the workers, before the chunks go out) is answered
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words("scheduler of", WHERE, "stopped answering", "TimeoutError").search(message), message
    assert set(cluster.cancelled) == set(cluster.futures[1:])


def test_a_scheduler_whose_connection_closes_during_the_sweep_is_a_lost_connection(scenario, scripted):
    # the scheduler killed while the sweep asks it for its workers: distributed's CommClosedError (an OSError),
    # the words of a connection lost, as when the loss shows in the chunks' wait (not "stopped answering")
    from distributed.comm.core import CommClosedError

    cluster = scripted([(1.0, "finished", None), (math.inf, "finished", None), (math.inf, "finished", None)],
                       answers=1, silence=CommClosedError)
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    message = str(failed.value)
    assert _words("the connection to", WHERE, "was lost", "CommClosedError").search(message), message
    assert "stopped answering" not in message and "\n" not in message
    assert set(cluster.cancelled) == set(cluster.futures[1:])


def test_a_done_chunk_lost_with_its_worker_is_waited_for_but_not_for_ever(scenario, serial, scripted):
    # Dask computes a lost chunk again on another worker: the sweep takes it when it is back ...
    cluster = scripted([(1.0, "finished", None), (2.0, "lost", None, 20.0), (3.0, "finished", None)])
    _assert_identical(_sweep(scenario, traj_every=5).run(cluster, where=WHERE), serial)
    assert cluster.clock.t == 20.0
    # ... and when it never comes back, the sweep ends instead of waiting for ever.
    cluster = scripted([(1.0, "finished", None), (2.0, "lost", None), (math.inf, "finished", None)])
    with pytest.raises(SweepFailed) as failed:
        _sweep(scenario).run(cluster, where=WHERE)
    assert _words(WHERE, "TimeoutError", "1 of 3 chunks were done").search(str(failed.value)), str(failed.value)
