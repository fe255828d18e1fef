"""The window's ensemble in a process of its own, so that its numpy work never shares a GIL with the GUI.

Why: a 10,000-body step in the window's simulation thread costs several
times what it costs one core alone, because its some sixty numpy calls per
step each give up and take back the GIL against the GUI thread
(docs/PERFORMANCE.md, "10,000 bodies live").  The same step in another
process, beside the same window, keeps about its cost alone.

How: :meth:`EnsembleEngine.ensemble` is the :class:`~sim.run.runner.Runner`'s
``ensembles`` factory.  It returns a :class:`RemoteEnsemble` with the face
the runner uses (``set``, ``control``, ``reset``, ``step``, ``frame``), whose
:class:`~sim.ensemble.Ensemble` lives in the engine's process
(:func:`serve`).  ``step`` only counts; every other call is one request
that carries the number of steps the runner has taken, and the process
first steps its ensemble to that count, then does what was asked and
answers.  An input therefore reaches the bodies at the same step boundary
as in the runner's own thread, and the frames are the same bit for bit
(tests/app/flight/test_engine.py).  The runner asks for one frame per batch, so the
process steps a batch of about ten steps at a time while the simulation
thread waits on a pipe, holding no GIL.

A frame's arrays do not go through the pipe: pickled, 400 kB at 10,000
bodies overflowed the socket's buffer, and the window's process read it in
chunks, each taking the GIL back from the GUI thread (docs/PERFORMANCE.md).  The process writes them into a shared
buffer (:class:`FrameBuffer`: a memory file whose descriptor it is given
when it starts) and answers only the time and the info record; the window
copies them out before its next request.

An error in the process (a setting the ensemble refuses) is raised again in
the runner's thread, as the in-thread ensemble would raise it; a process
that died raises :class:`EngineError`, which the window shows as a fault
until a reset, and the next ensemble starts a new process.  The process
ends with the engine (:meth:`EnsembleEngine.close`), or by itself when the
window's process is gone (its end of the pipe closes).  No Qt here.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import socket
import subprocess
import sys
import tempfile
import threading
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np

from sim import EnsembleSpec, EnsembleFrame, frozen_copy, live_ensemble, Settings

__all__ = ["EnsembleEngine", "RemoteEnsemble", "EngineError", "FrameBuffer", "serve", "main"]

#: Seconds to wait for the process's answer to a request before it counts as hung (stopped with SIGSTOP,
#: or stuck): then it is killed, and the request fails as for a process that died (the fault shown, the
#: next ensemble starts a new one), so the simulation thread never waits for ever.
ANSWER_TIMEOUT = 10.0
#: Seconds to wait for the process to end on :meth:`EnsembleEngine.close` before it is killed.
CLOSE_TIMEOUT = 2.0


class EngineError(RuntimeError):
    """The ensemble's process is gone (it died, or was closed); the message says what the runner was doing."""


class FrameBuffer:
    """A frame's arrays in a memory file both processes map: ``q`` (4, n), the command (4, columns), the faults (n).

    The window's side makes the file (:meth:`create`: a memfd on Linux, an
    unlinked temporary file elsewhere) and gives its descriptor to the
    engine's process when it starts; each side maps it for the ensemble's
    bodies (:meth:`fit`, which makes the file larger when it must).  Only
    one side touches it at a time: the process writes while it answers a
    frame request, the window copies before it sends the next request.
    """

    def __init__(self, fd: int):
        self.fd = fd
        self._map = None
        self._n = 0

    @classmethod
    def create(cls) -> FrameBuffer:
        """A new, empty memory file (anonymous: nothing is left behind when both sides close it)."""
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("attitude-sim ensemble frame")
        else:
            fd, path = tempfile.mkstemp(prefix="attitude-sim-frame-")
            os.unlink(path)
        return cls(fd)

    @staticmethod
    def nbytes(n: int) -> int:
        """Bytes for ``n`` bodies: ``q`` and a command column per body (8 doubles), a fault flag."""
        return 65 * n

    def fit(self, n: int) -> None:
        """Map the buffer for ``n`` bodies (the file made larger first when it is too small)."""
        if os.fstat(self.fd).st_size < self.nbytes(n):
            os.ftruncate(self.fd, self.nbytes(n))
        if self._map is not None:
            self._map.close()
        self._map, self._n = mmap.mmap(self.fd, self.nbytes(n)), n

    def _arrays(self, columns: int) -> tuple:
        """Views of ``q``, the command and the faults in the mapped file (copy them before the next request)."""
        n = self._n
        return (np.frombuffer(self._map, np.float64, 4 * n, 0).reshape(4, n),
                np.frombuffer(self._map, np.float64, 4 * columns, 32 * n).reshape(4, columns),
                np.frombuffer(self._map, np.bool_, n, 64 * n))

    def write(self, frame: EnsembleFrame) -> int:
        """Write ``frame``'s arrays; returns its command's number of columns (1: shared, n: one per body)."""
        q, qc, faulted = self._arrays(frame.qc.shape[1])
        q[:], qc[:], faulted[:] = frame.q, frame.qc, frame.faulted
        return frame.qc.shape[1]

    def read(self, columns: int) -> tuple:
        """Read-only copies of ``q``, the command (``columns`` columns) and the faults."""
        return tuple(frozen_copy(array) for array in self._arrays(columns))

    def close(self) -> None:
        """Unmap the buffer and close its descriptor (the other side keeps its own)."""
        if self._map is not None:
            self._map.close()
            self._map = None
        os.close(self.fd)


def serve(conn, buffer: FrameBuffer) -> None:
    """The engine process: one :class:`~sim.ensemble.Ensemble` at a time, driven by ``conn``'s requests.

    Each request is ``(operation, ident, steps, *arguments)``; ``steps`` is
    how many steps the runner had taken when it asked, and the ensemble is
    stepped up to it first.  Operations: ``new`` (settings, spec: replaces
    the ensemble), ``set`` (key, value), ``control`` (key, value: a
    validated control), ``reset``, ``frame`` (writes the state into
    ``buffer`` and answers its time, its command's columns and its info
    record, the latter only when it is a new one), ``close``.
    Every request is answered ``("ok", result)`` or ``("error", exception)``.
    Ends on ``close`` or when the other end of the pipe is gone.
    """
    ensemble, ident, taken, sent_info = None, None, 0, None
    while True:
        try:
            operation, asked, steps, *arguments = conn.recv()
        except (EOFError, OSError):
            return
        if operation == "close":
            try:
                conn.send(("ok", None))
            except OSError:  # the window did not wait for the answer
                pass
            return
        try:
            if operation == "new":
                ensemble, ident, taken, sent_info = live_ensemble(*arguments), asked, 0, None
                buffer.fit(ensemble.n)
                result = ensemble.n
            else:
                if asked != ident:
                    raise EngineError(f"{operation}: ensemble {asked} was replaced by ensemble {ident}")
                if steps > taken:
                    ensemble.step(steps - taken)
                    taken = steps
                result = None
                if operation == "set":
                    ensemble.set(*arguments)
                elif operation == "control":
                    ensemble.control(*arguments)
                elif operation == "reset":
                    ensemble.reset()
                elif operation == "frame":
                    frame = ensemble.frame()
                    result = (frame.t, buffer.write(frame), frame.info if frame.info is not sent_info else None)
                    sent_info = frame.info
                else:
                    raise EngineError(f"unknown request {operation!r}")
            answer = ("ok", result)
        except Exception as exc:
            answer = ("error", exc)
        try:
            conn.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:  # never left without an answer
            conn.send(("error", EngineError(f"{operation}: the answer cannot be sent to the window: {exc}")))
        except OSError:  # the window gave up on this process (a deadline passed while it was stopped): end quietly
            return


def main() -> None:
    """The engine process's entry: :func:`serve` on the socket and buffer whose descriptors are in ``sys.argv``."""
    serve(Connection(int(sys.argv[1])), FrameBuffer(int(sys.argv[2])))


class EnsembleEngine:
    """The process that steps the window's ensemble; started by the first ensemble, shared by the next ones.

    Thread-safe: each request holds a lock until it is answered (a frame's
    until its arrays are copied).  One ensemble at a time: a new one
    replaces the last (the window flies one).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._process = None
        self._conn = None
        self._buffer = None
        self._made = 0
        self._pending = None  # (ident, steps) of the frame asked and not yet answered

    @property
    def running(self) -> bool:
        """True while the process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The process's id, None before the first ensemble or after :meth:`close`."""
        return self._process.pid if self._process is not None else None

    def ensemble(self, settings: Settings, spec: EnsembleSpec) -> RemoteEnsemble:
        """A new ensemble in the engine's process (started now if it is not running): the runner's factory.

        Raises what :class:`~sim.ensemble.Ensemble` raises for these
        arguments, or :class:`EngineError` when the process cannot be reached.
        """
        with self._lock:
            if not self.running:
                self._stop_process()
                self._start()
            self._made += 1
            ident = self._made
            n = self._call("new", ident, 0, settings, spec)
            self._buffer.fit(n)
        return RemoteEnsemble(self, ident, n)

    def request(self, operation: str, ident: int, steps: int, *arguments):
        """Send one request to the process and return its answer (raising the process's exception)."""
        with self._lock:
            return self._call(operation, ident, steps, *arguments)

    def ask(self, ident: int, steps: int) -> None:
        """Ask for the frame of ensemble ``ident`` after ``steps`` steps, without waiting: the process steps on."""
        with self._lock:
            self._ask(ident, steps)

    def take(self, ident: int, steps: int, info) -> EnsembleFrame:
        """The frame of ensemble ``ident`` after ``steps`` steps (asked now if it was not); waits for it.

        ``info``: the record of the ensemble's last frame, kept when the
        process sends no new one.
        """
        with self._lock:
            self._ask(ident, steps)
            self._pending = None
            t, columns, new_info = self._answer("frame")
            q, qc, faulted = self._buffer.read(columns)
        return EnsembleFrame(t=t, q=q, qc=qc, faulted=faulted, info=info if new_info is None else new_info)

    def close(self) -> int | None:
        """End the process (waits up to :data:`CLOSE_TIMEOUT`, then kills it); a later ensemble starts a new one.

        Returns its exit code: 0 when it ended as asked, None when none was running.
        """
        with self._lock:
            if self._conn is not None:
                try:
                    self._drop_pending()
                    self._conn.send(("close", 0, 0))
                    self._conn.recv()
                except (EngineError, EOFError, OSError):
                    pass
            return self._stop_process()

    def _ask(self, ident: int, steps: int) -> None:
        """Send a frame request unless that very one is pending (another pending one is dropped first)."""
        if self._pending == (ident, steps):
            return
        self._drop_pending()
        self._send("frame", ident, steps)
        self._pending = (ident, steps)

    def _drop_pending(self) -> None:
        """Receive and drop the answer to a frame request (a change or another frame came first)."""
        if self._pending is not None:
            self._pending = None
            try:
                self._answer("frame")
            except Exception:
                if self._conn is None:
                    raise

    def _call(self, operation: str, ident: int, steps: int, *arguments):
        """One request and its answer (a pending frame is dropped first: it is older); the caller holds the lock."""
        self._drop_pending()
        self._send(operation, ident, steps, *arguments)
        return self._answer(operation)

    def _send(self, operation: str, *request) -> None:
        if self._conn is None:
            raise EngineError(f"{operation}: the ensemble's process was closed")
        try:
            self._conn.send((operation, *request))
        except OSError as exc:
            self._ended(operation, exc)

    def _answer(self, operation: str):
        """The process's answer to the last request (its exception raised here), within :data:`ANSWER_TIMEOUT`."""
        try:
            if not self._conn.poll(ANSWER_TIMEOUT):
                self._hung(operation)
            status, result = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._ended(operation, exc)
        if status == "error":
            raise result
        return result

    def _hung(self, operation: str):
        """No answer within the deadline: the process is killed (a stopped one too) and the request fails."""
        process = self._process
        if process is not None:
            with contextlib.suppress(OSError):
                process.kill()  # SIGKILL ends a stopped process as well: it never answers into a closed pipe
        code = self._stop_process()
        raise EngineError(f"the ensemble's process did not answer {operation!r} within {ANSWER_TIMEOUT:g} s "
                          f"(stopped or hung; killed, exit code {code}); turn the ensemble off and on to start "
                          "it again")

    def _ended(self, operation: str, exc: BaseException):
        code = self._stop_process()
        raise EngineError(f"the ensemble's process ended (exit code {code}) during {operation!r}; "
                          "turn the ensemble off and on to start it again") from exc

    def _start(self) -> None:
        # A fresh interpreter that imports this module only: not multiprocessing's spawn, which runs the
        # parent's main script again in the child (a user's script that opens the window would open a
        # second one), nor a fork of a process whose Qt and OpenGL threads may be mid-call.
        mine, theirs = socket.socketpair()
        buffer = FrameBuffer.create()
        root = str(Path(__file__).resolve().parent.parent)  # where the app and sim packages are
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-c", "from app.engine import main; main()", str(theirs.fileno()), str(buffer.fd)],
                pass_fds=(theirs.fileno(), buffer.fd), stdin=subprocess.DEVNULL, env=env)
        self._conn, self._buffer = Connection(mine.detach()), buffer

    def _stop_process(self) -> int | None:
        """Close the pipe and the buffer and end the process; its exit code (None when there was none)."""
        process, conn, buffer = self._process, self._conn, self._buffer
        self._process = self._conn = self._buffer = self._pending = None
        if conn is not None:
            conn.close()
        if buffer is not None:
            buffer.close()
        if process is None:
            return None
        try:
            return process.wait(CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()


class RemoteEnsemble:
    """An ensemble stepped in the :class:`EnsembleEngine`'s process, with the face :class:`~sim.run.runner.Runner` uses.

    Attributes
    ----------
    n : int
        Number of bodies.
    """

    def __init__(self, engine: EnsembleEngine, ident: int, n: int):
        self._engine = engine
        self._ident = ident
        self._steps = 0     # steps asked of the ensemble since it was made; the process catches up on a request
        self._shown = 0     # the step count at the last call of frame()
        self._asked = None  # the step count of the frame asked and not yet taken
        self._last = None   # the last frame taken, and its step count (None after a change)
        self._last_steps = 0
        self._info = None   # the info record of the last frame taken: a frame without a new one keeps it
        self.n = n

    def step(self, k: int = 1) -> None:
        """Count ``k`` more steps; the process takes them before it answers the next request."""
        self._steps += k

    def set(self, key: str, value) -> None:
        """:meth:`sim.ensemble.Ensemble.set` after the steps counted so far."""
        self._changed()
        self._engine.request("set", self._ident, self._steps, key, value)

    def control(self, key: str, value) -> None:
        """:meth:`sim.model.stepping.Stepper.control` (a control, nothing rebuilt) after the steps counted so far."""
        self._changed()
        self._engine.request("control", self._ident, self._steps, key, value)

    def reset(self) -> None:
        """:meth:`sim.ensemble.Ensemble.reset` after the steps counted so far."""
        self._changed()
        self._engine.request("reset", self._ident, self._steps)

    def _changed(self) -> None:
        # frames from before a change are not shown after it (the engine drops the one asked)
        self._asked, self._last = None, None

    def frame(self) -> EnsembleFrame:
        """The ensemble's frame at the steps counted, or at the last call's (at most one batch behind).

        Pipelined: the frame asked at the last call (the process has had a
        batch's time to make it) is answered, and the frame at the steps
        counted now is asked for without waiting, so the process steps this
        batch while the runner's thread goes on.  The frame is waited for
        when none that recent is at hand: the first one, the first after a
        change (:meth:`set`, :meth:`reset`).  With no step since the last
        call (a pause) the frame is that of the steps counted: the same
        state as :meth:`sim.ensemble.Ensemble.frame` there.
        """
        if self._asked is not None:
            self._take(self._asked)
        if self._last is None or self._last_steps < self._shown:
            self._take(self._steps)
        if self._last_steps < self._steps:
            self._engine.ask(self._ident, self._steps)
            self._asked = self._steps
        self._shown = self._steps
        return self._last

    def _take(self, steps: int) -> None:
        self._last = self._engine.take(self._ident, steps, self._info)
        self._last_steps, self._info, self._asked = steps, self._last.info, None
