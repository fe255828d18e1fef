"""``attitude-sim run`` and ``replay``: a scenario or a recording integrated headless, rows to CSV or npz.

Both are :mod:`sim.api`'s functions with a writer (:mod:`app.cli.output`):
runs estimated to take more than an hour are refused up front, a long run
on a terminal shows a progress bar, Ctrl-C and write errors end with the
rows so far, whole.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.options import (UsageError, add_output_flags, add_settings_flags, check_outputs, flush_notes, note,
                             open_output, say, scenario_from_args, scenario_inputs)
from app.cli.output import OutputError, catch_interrupts, finish, stream_csv, stream_npz
from sim import api
from sim.run.recording import load_recording
from sim.model.settings import damper_warning, stability_warning
from sim.model.simulation import SimulationFault

__all__ = ["add_run_parser", "add_replay_parser", "cmd_run", "cmd_replay", "RUN_EXAMPLES"]

RUN_EXAMPLES = """examples:
  attitude-sim run --scenario hoffmann --out hoffmann.csv
  attitude-sim run --controller quaternion --command 0,30,0 --duration 12 --every 1000
  attitude-sim run --integrator full-quat --full-quat-form raw --dampers 0,0,0 \\
      --rates 1,0.2,-0.5 --duration 20 --format npz --out raw.npz

Runs estimated to take more than an hour are refused with the step count and
an estimate (--force runs them); Ctrl-C writes the rows so far, whole, and
exits 130; a write error (disk full, closed pipe) exits 1 naming the time.
"""


def add_run_parser(subparsers) -> None:
    """Add ``run`` to ``subparsers``."""
    run = subparsers.add_parser("run", help="integrate headless and write CSV or npz rows",
                                description="Integrate a scenario headless and write one row per step\n"
                                "(angles in degrees; each flag overrides the scenario).",
                                epilog=RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_settings_flags(run)
    add_output_flags(run)
    run.add_argument("--force", action="store_true",
                     help="run even when the run is estimated to take more than an hour")
    run.set_defaults(handler=cmd_run)


def add_replay_parser(subparsers) -> None:
    """Add ``replay`` to ``subparsers``."""
    replay = subparsers.add_parser("replay", help="replay a recording and write its states as CSV or npz")
    replay.add_argument("recording", help="a .jsonl file recorded from the window")
    add_output_flags(replay)
    replay.add_argument("--force", action="store_true",
                        help="replay even when it is estimated to take more than an hour")
    replay.set_defaults(handler=cmd_replay)


def cmd_run(args) -> int:
    every = _every(args)
    scenario = scenario_from_args(args)
    for warning in (stability_warning(scenario.settings), damper_warning(scenario.settings)):
        if warning:
            note(warning)
    if args.mass is not None and scenario.settings.mass_properties.explicit:
        note("warning: --mass has no effect: the inertia is given explicitly")
    fmt = _format(args)
    plan = _check(lambda: api.plan(scenario, None, every), fmt, args.force)
    check_outputs({"--out": args.out}, scenario_inputs(args, scenario))
    flush_notes()  # every input checked: the notes and warnings now, the refusals were one line
    return _write(lambda bar: api.stream(scenario, None, every, bar), plan, args, fmt)


def cmd_replay(args) -> int:
    every = _every(args)
    warnings = []
    scenario, _, last = load_recording(args.recording, warn=warnings.append)
    fmt = _format(args)
    plan = _check(lambda: api.Plan(scenario, last, every), fmt, args.force)
    check_outputs({"--out": args.out}, {"the recording": args.recording, **scenario_inputs(None, scenario)})
    for warning in warnings:  # once the replay is accepted: a refusal stays one line
        say(warning)
    flush_notes()
    return _write(lambda bar: api.replay_stream(args.recording, every, bar), plan, args, fmt)


def _summary(last) -> str:
    t, q = last[0], last[1:5]
    return (f"t={t:g} s  Q=({', '.join(f'{x:.6f}' for x in q)})  psi,theta,phi="
            f"{last[8]:.2f},{last[9]:.2f},{last[10]:.2f} deg  |Q|-1={last[11]:.2e}  "
            f"T={last[13]:.6g} J  lambda={last[12]:.6g}")


def _format(args) -> str:
    if args.format is not None:
        return args.format
    return "npz" if args.out.endswith(".npz") else "csv"


def _check(make_plan, fmt, force):
    try:
        return make_plan().check(in_memory=fmt == "npz", force=force, hint="--force runs it anyway")
    except api.RunTooLong as exc:
        raise UsageError(str(exc)) from None


def _write(rows, plan, args, fmt) -> int:
    """Write ``rows`` to ``--out`` as ``fmt``; a progress bar on a terminal for long runs.

    Everything was checked before: the output is opened last.  A file is
    written beside its target and moved into place when the run ends with
    whole rows: complete, stopped by Ctrl-C (with at least one row), or
    stopped by a numerical fault.  A write error leaves the target as it
    was (a CSV's complete rows stay in ``FILE.part``); so does a kill.
    """
    if fmt == "npz" and args.out == "-" and sys.stdout is not None and sys.stdout.isatty():
        raise UsageError("--format npz: binary output to a terminal; give --out FILE.npz")
    names = api.columns(plan.scenario)
    bar = sink = None
    try:
        with catch_interrupts():  # before the file exists: Ctrl-C from then on ends cleanly
            if sys.stderr is not None and sys.stderr.isatty() and plan.is_long():
                from tqdm import tqdm

                bar = tqdm(total=plan.steps, unit="step", unit_scale=True, mininterval=0.5,
                           leave=False, file=sys.stderr)
            rows = rows(bar)  # the run is built (and every input checked) before the output opens
            sink = open_output(args.out, "--out")
            try:
                if fmt == "npz":
                    last, _ = stream_npz(rows, names, plan.rows, sink)
                else:
                    last, _ = stream_csv(rows, names, sink)
            except SimulationFault:
                finish(sink)
                raise
            except OutputError as exc:
                if exc.code == 130 and exc.rows:
                    finish(sink)
                raise
            finish(sink)
    finally:
        if bar is not None:
            bar.close()
        if sink is not None:
            sink.close()
    if args.out != "-" and last is not None:
        say(_summary(last))
    return 0


def _every(args):
    if args.every < 1:
        raise UsageError(f"--every: must be >= 1, got {args.every}")
    return args.every
