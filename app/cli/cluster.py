"""The Dask side of ``attitude-sim sweep``: the scheduler probe and the cluster's lifecycle.

:func:`probe_scheduler` speaks Dask's protocol once, with a deadline, before
``distributed.Client`` is trusted with an address; :func:`dask_client` yields
a client of an existing cluster or of a local one it starts and closes whole
(a Ctrl-C while it starts takes effect once it has started).  Dask's own log
lines are silenced (:func:`quiet_dask`): the sweep says what went wrong in
one line.  The deadlines are :mod:`sim.io.costs`'.
"""

from __future__ import annotations

import contextlib
import logging

from app.cli.options import UsageError
from app.cli.output import deferred_interrupts
from sim import CLUSTER_LOST_SECONDS
from sim.sweep import SweepFailed

__all__ = ["probe_scheduler", "quiet_dask", "dask_client"]


def probe_scheduler(address: str, seconds: float) -> None:
    """Refuse an address where no Dask scheduler answers, within ``seconds`` (the handshake included).

    ``distributed.Client`` waits for ever for a server that accepts the
    connection and never answers its handshake, and reads a server that
    answers something else as the length of a frame (an allocation of
    exabytes).  This probe speaks Dask's protocol once, with a deadline on
    the whole exchange, and asks the server what it is.
    """
    import asyncio

    from distributed.comm import connect

    async def identity():
        comm = await connect(address, timeout=seconds)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    flag = f"--scheduler {address}"
    _reachable(address, seconds, flag)
    deadline = seconds + 5.0  # the connection's own timeout first (nothing listens: "cannot connect")
    try:
        info = asyncio.run(asyncio.wait_for(identity(), deadline))
    except TimeoutError:
        raise UsageError(f"{flag}: no Dask scheduler answered within {deadline:g} s (something accepted the "
                         "connection but never completed Dask's handshake)") from None
    except OSError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{flag}: cannot connect ({text})") from None
    except (ValueError, TypeError) as exc:  # not an address Dask understands
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{flag}: cannot connect ({text})") from None
    except Exception as exc:
        raise UsageError(f"{flag}: not a Dask scheduler (what answered does not speak Dask's protocol: "
                         f"{type(exc).__name__})") from None
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        raise UsageError(f"{flag}: not a Dask scheduler (it answered as {kind or 'something else'})")


def _reachable(address: str, seconds: float, flag: str) -> None:
    """A plain TCP connection first: where nothing listens, say so at once (Dask retries until its timeout)."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme != "tcp":
            return  # tls://, inproc://: Dask's own connection says what is wrong
        host, port = parse_host_port(location)
        with socket.create_connection((host, port), timeout=seconds):
            pass
    except (ValueError, TypeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{flag}: cannot connect ({text})") from None
    except OSError as exc:
        raise UsageError(f"{flag}: cannot connect ({exc.strerror or exc})") from None


def quiet_dask() -> None:
    """Dask's own log lines (connection errors, a lost worker) never reach stderr: the sweep says it in one.

    distributed gives several of its loggers their own level when it is
    imported, so each is silenced, not only the parent.
    """
    import distributed  # noqa: F401 - its logging set-up first, then silence it

    for name in list(logging.root.manager.loggerDict):
        if name.split(".")[0] in ("distributed", "tornado", "asyncio", "bokeh"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    for name in ("distributed", "tornado", "asyncio", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int, timeout: float):
    """Yields (client or None, a description of where the sweep runs).

    ``scheduler``: an existing cluster's address (``--scheduler``), probed
    first (:func:`probe_scheduler`) and given ``timeout`` seconds to connect
    and to show a worker; else a local cluster of ``workers`` processes (0:
    none, the sweep runs in this process), closed whole when the block ends.
    """
    if scheduler is not None:
        quiet_dask()
        probe_scheduler(scheduler, timeout)
        from distributed import Client

        try:
            client = Client(scheduler, timeout=timeout)
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UsageError(f"--scheduler {scheduler}: cannot connect ({text})") from None
        with client:
            try:
                client.wait_for_workers(1, timeout=timeout)
            except TimeoutError:
                raise UsageError(f"--scheduler {scheduler}: the cluster has no worker") from None
            yield client, f"the Dask cluster at {scheduler}"
        return
    if workers == 0:
        yield None, "this process"
        return
    quiet_dask()
    import dask
    from distributed import Client, LocalCluster

    # dashboard_address=":0": the HTTP server on a free port (None still tries 8787 and warns when taken).
    # Ctrl-C while the cluster starts takes effect once it has started, so it is closed whole.
    with dask.config.set({"distributed.scheduler.no-workers-timeout": f"{CLUSTER_LOST_SECONDS:g}s"}), contextlib.ExitStack() as stack:
        with deferred_interrupts():
            try:
                cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                           dashboard_address=":0",
                                                           silence_logs=logging.CRITICAL + 1))
                client = stack.enter_context(Client(cluster))
            except Exception as exc:
                text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                raise SweepFailed(f"a Dask local cluster of {workers} worker processes could not start "
                                  f"({type(exc).__name__}{': ' + text if text else ''})") from None
        yield client, f"a Dask local cluster of {workers} worker process{'es' if workers > 1 else ''}"
