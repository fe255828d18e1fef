"""``attitude-sim run --link``: a headless run paced at 1x with the live link open (docs/LINK.md).

The run flies through the same route as the window: a
:class:`~app.worker.SimulationWorker` (here unpaced, stepped by this
loop to the wall clock) with a :class:`~app.link.LinkServer` attached, so
the client's inputs land on step boundaries through the runner's queue.
Simulated time follows wall time from the start (1x); the run ends after
exactly ``round(duration / dt)`` steps, so with ``--record`` the
recording's replay (``attitude-sim replay``) writes the same rows, byte for
byte.  A client that stops answering never holds the run up.
"""

from __future__ import annotations

import dataclasses
import time

from app.cli.flags import NUMERIC
from app.cli.options import UsageError, note, say
from app.link import DEFAULT_ADDRESS, DEFAULT_RATE, LinkError, LinkServer, exposure
from app.worker import SimulationWorker
from sim import reached, SimulationFault, Recorder, Runner

__all__ = ["add_link_flags", "open_link", "linked_rows", "link_rate", "link_summary"]

#: Longest sleep of the pacing loop, s (it wakes at least this often to look at the clock).
TICK = 0.001


def add_link_flags(parser, record: bool = True) -> None:
    """``--link [ADDR]`` and ``--link-rate HZ`` (``run`` and ``gui``); ``--record`` for ``run``."""
    parser.add_argument("--link", nargs="?", const=DEFAULT_ADDRESS, default=None, metavar="ADDR",
                        help=f"open the live link (docs/LINK.md): states out on ADDR, inputs in on its port + 1 "
                        f"(default {DEFAULT_ADDRESS}, loopback only)" + ("; the run is paced at 1x" if record else ""))
    parser.add_argument("--link-public", action="store_true",
                        help="let --link listen on an address that is not loopback (0.0.0.0: every interface); "
                        "the link has no authentication: anyone who reaches it can fly the body")
    NUMERIC["--link-rate"].add(parser, rate=f"{DEFAULT_RATE:g}")
    if record:
        parser.add_argument("--record", metavar="FILE.jsonl", default=None,
                            help="with --link: record the run's inputs; attitude-sim replay writes the same rows")


def link_rate(args) -> float:
    """``--link-rate`` checked (UsageError), or the default; ``--link-public`` only with ``--link``."""
    if getattr(args, "link_public", False) and args.link is None:
        raise UsageError("--link-public: only with --link")
    if args.link_rate is None:
        return DEFAULT_RATE
    if args.link is None:
        raise UsageError("--link-rate: only with --link")
    return NUMERIC["--link-rate"].read(args.link_rate)


def open_link(args) -> LinkServer:
    """The link of ``--link`` bound (UsageError when the address is bad or taken); not started."""
    rate = link_rate(args)
    try:
        link = LinkServer(args.link, rate, public=args.link_public)
    except LinkError as exc:  # the address's own messages start with it
        message = str(exc)
        named = message.startswith(f"{(args.link or '').strip()}:")
        raise UsageError(f"--link {message}" if named else f"--link {args.link}: {message}") from None
    warning = exposure(link.address)
    if warning:
        note(warning)
    return link


def linked_rows(scenario, every: int, link: LinkServer, record=None):
    """Yield the rows of ``scenario`` flown at 1x with ``link`` attached: as :func:`sim.api.stream`'s.

    The main body's columns only (a scenario's comparison bodies are left
    out, with a note): t = 0, every ``every``-th step, and the last.
    ``record``: a recording path.  The worker and the link are stopped when
    the generator ends (or is closed), and what the link did is said in one line.
    """
    if scenario.compare:
        note(f"note: --link flies the main body only; the scenario's {len(scenario.compare)} comparison "
             "bodies are left out")
        scenario = dataclasses.replace(scenario, compare=())
    runner = Runner(scenario, recorder=Recorder(record, scenario) if record is not None else None)
    n = len(runner.sim.columns())
    worker = SimulationWorker(runner, speed=1.0, paced=False)
    link.attach(worker).start()
    try:
        yield tuple(runner.sim.row()[:n])
        done, last = 0, None
        start = time.perf_counter()
        while not reached(runner.sim.t, scenario.duration):
            worker.advance_to(min(scenario.duration, time.perf_counter() - start))
            for batch in worker.drain():
                for k, row in enumerate(batch.rows, start=done + 1):
                    last = None
                    if k % every == 0:
                        yield tuple(row[:n].tolist())
                    else:
                        last = row
                done += len(batch.rows)
                if batch.fault is not None:
                    raise SimulationFault(batch.fault, batch.last.t)
            if worker.fault is not None:
                raise SimulationFault(worker.fault.message, worker.fault.t)
            wait = runner.sim.t + runner.sim.settings.dt - (time.perf_counter() - start)
            if wait > 0:
                time.sleep(min(wait, TICK))
        if last is not None:
            yield tuple(last[:n].tolist())
    finally:
        worker.stop()
        link.close()
        say(link_summary(link.stats()))


def link_summary(stats) -> str:
    """One line of what the link did: states sent, inputs read, applied, dropped by reason."""
    dropped = ", ".join(f"{count:,} {reason}" for reason, count in stats.dropped.items() if count)
    return (f"link {stats.address}: {stats.sent:,} states sent; {stats.received:,} inputs read, "
            f"{stats.applied:,} applied, {stats.dropped_total:,} dropped" + (f" ({dropped})" if dropped else ""))
