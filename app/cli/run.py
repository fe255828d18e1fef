"""``attitude-sim run`` and ``replay``: a scenario or a recording integrated headless, rows to CSV or npz.

Both are :mod:`sim.api`'s functions with a writer (:mod:`app.cli.output`):
runs estimated to take more than an hour are refused up front, a long run
on a terminal shows a progress bar, Ctrl-C and write errors end with the
rows so far, whole.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.linked import add_link_flags, link_rate, linked_rows, open_link
from app.cli.options import (UsageError, add_output_flags, add_settings_flags, check_outputs, flush_notes, note,
                             open_output, say, scenario_from_args, scenario_inputs)
from app.cli.output import OutputError, catch_interrupts, finish, stream_csv, stream_npz
from sim import (
    api, NATIVE, Convention, table_converter, aem_text, attitudes, run_epoch, stk_attitude_text, load_recording,
    damper_warning, stability_warning, SimulationFault,
)

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
    add_link_flags(run)
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
    if args.link is None:
        if args.record is not None:
            raise UsageError("--record: only with --link (the window records with File > Record)")
        link_rate(args)  # --link-rate without --link: refused
    outputs = {"--out": args.out, **({"--record": args.record} if args.record is not None else {})}
    check_outputs(outputs, scenario_inputs(args, scenario))
    if args.link is not None:
        link = open_link(args)
        note(f"link: states on {link.address} at {link.rate:g} Hz, inputs on {link.input_address}; "
             f"flying {scenario.duration:g} s at 1x")
        flush_notes()
        return _write(lambda bar: linked_rows(scenario, every, link, args.record), plan, args, fmt)
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


#: The formats chosen by the --out suffix when --format is not given.
SUFFIXES = {".npz": "npz", ".aem": "aem", ".xml": "aem", ".a": "stk"}


def _format(args) -> str:
    fmt = args.format
    if fmt is None:
        fmt = next((f for suffix, f in SUFFIXES.items() if args.out.lower().endswith(suffix)), "csv")
    if fmt in ("aem", "stk") and Convention(args.quaternion, args.direction) != NATIVE:
        raise UsageError(f"--quaternion/--direction apply to csv and npz; an {fmt.upper()} file states its own "
                         "convention (docs/CONVENTIONS.md)")
    if args.with_rates and fmt != "aem":
        raise UsageError("--with-rates: only for an AEM (--format aem or --out FILE.aem)")
    return fmt


def _encoder(fmt, plan, args, names):
    """For aem and stk: ``encode(table) -> bytes``, the whole file from the rows (:mod:`sim.run.aem`, :mod:`sim.run.stk`)."""
    if fmt not in ("aem", "stk"):
        return None
    epoch = run_epoch(plan.scenario)
    qi = [names.index(f"q{i}") for i in range(1, 5)]
    wi = [names.index(c) for c in ("wx", "wy", "wz")]
    xml = args.out.lower().endswith(".xml")
    carried = plan.scenario.settings.norm == "elimination"  # the rows hold the carried Q, the attitude is Q / |Q|

    def encode(table):
        if len(table) < 2:
            raise OSError(f"an attitude file needs two states or more, the run gave {len(table)}")
        t, q = table[:, 0], table[:, qi]
        if carried:
            q = attitudes(q)
        if fmt == "stk":
            return stk_attitude_text(t, q, epoch, comment=f"scenario {plan.scenario.name}").encode("utf-8")
        w = table[:, wi] if args.with_rates else None
        return aem_text(t, q, epoch, w, xml=xml, comment=f"scenario {plan.scenario.name}").encode("utf-8")

    return encode


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
    was (a CSV's complete rows stay in ``FILE.<random>.part``); so does a kill.
    """
    if fmt == "npz" and args.out == "-" and sys.stdout is not None and sys.stdout.isatty():
        raise UsageError("--format npz: binary output to a terminal; give --out FILE.npz")
    names = api.columns(plan.scenario)
    encode = _encoder(fmt, plan, args, names)
    out_names, convert = table_converter(names, Convention(args.quaternion, args.direction))
    bar = sink = None
    try:
        with catch_interrupts():  # before the file exists: Ctrl-C from then on ends cleanly
            if sys.stderr is not None and sys.stderr.isatty() and plan.is_long():
                from tqdm import tqdm

                bar = tqdm(total=plan.steps, unit="step", unit_scale=True, mininterval=0.5,
                           leave=False, file=sys.stderr)
            rows = rows(bar)  # the run is built (and every input checked) before the output opens
            if not Convention(args.quaternion, args.direction).native:
                rows = map(convert, rows)  # at the edge: the quaternion columns in the chosen convention
            sink = open_output(args.out, "--out")
            try:
                if fmt in ("npz", "aem", "stk"):
                    last, _ = stream_npz(rows, out_names, plan.rows, sink, encode=encode)
                else:
                    last, _ = stream_csv(rows, out_names, sink)
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
        native = Convention(args.quaternion, args.direction).native
        say(_summary(last) + ("" if native else f"  (Q written {args.quaternion}, {args.direction})"))
    return 0


def _every(args):
    if args.every < 1:
        raise UsageError(f"--every: must be >= 1, got {args.every}")
    return args.every
