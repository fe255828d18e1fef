"""The ``attitude-sim`` command line.

``attitude-sim`` (no arguments) or ``attitude-sim gui`` opens the window;
``run`` integrates headless and writes CSV; ``scenarios`` lists the
built-ins; ``replay`` reproduces a recording.  Bad input exits 2 with one
line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace

from app import sweep_cli
from sim.recording import RecordingError, replay
from sim.runner import Runner
from sim.scenario import Event, ScenarioError, builtin_names, load
from sim.settings import SettingsError, stability_warning, validate
from sim.simulation import COLUMNS, SimulationFault

__all__ = ["main", "build_parser"]

PROG = "attitude-sim"


class UsageError(Exception):
    """Bad input on the command line: one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Real-time 3D rigid-body attitude simulator "
                     "(Hoffmann's quaternion methods).")
    sub = parser.add_subparsers(dest="subcommand", parser_class=_Parser)

    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--scenario", default="default", help="built-in name or .toml file")
    gui.add_argument("--screenshot", metavar="FILE.png", help="save a picture of the window and exit")
    gui.add_argument("--after", type=float, default=2.0, metavar="S",
                     help="seconds to run before the screenshot (default 2)")

    run = sub.add_parser("run", help="integrate headless and write CSV rows")
    run.add_argument("--scenario", default="default", help="built-in name or .toml file (default: default)")
    run.add_argument("--integrator", help="half-quat | full-quat | rk4")
    run.add_argument("--full-quat-form", help="hoffmann | raw | lagrange")
    run.add_argument("--norm", help="hoffmann | renormalize | none")
    run.add_argument("--dt", help="step, s")
    run.add_argument("--duration", help="simulated time, s (default: the scenario's)")
    run.add_argument("--inertia", metavar="JXX,JYY,JZZ,JXY,JXZ,JYZ")
    run.add_argument("--angles", metavar="PSI,THETA,PHI", help="initial aircraft angles, degrees")
    run.add_argument("--rates", metavar="WX,WY,WZ", help="initial body rates, rad/s")
    run.add_argument("--torque", metavar="TX,TY,TZ", help="command torque, N m")
    run.add_argument("--torque-until", metavar="S", help="the torque acts while t < S")
    run.add_argument("--dampers", metavar="K1,K2,K3", help="rate damper gains (0 = off)")
    run.add_argument("--controller", help="none | euler | quaternion")
    run.add_argument("--gains", metavar="K1,K2,K3", help="attitude controller gains")
    run.add_argument("--command", metavar="PSI,THETA,PHI", help="command angles, degrees (a change at t = 0)")
    run.add_argument("--slerp-time", metavar="S", help="time of the SLERP to a new command (0 = at once)")
    run.add_argument("--no-shortest-path", action="store_true", help="let the controller turn the long way")
    run.add_argument("--limits", metavar="L1,L2,L3", help="torque limits per axis (switches the limiter on)")
    run.add_argument("--every", type=int, default=1, metavar="N", help="write every N-th step (default 1)")
    run.add_argument("--out", default="-", metavar="FILE.csv", help="output file, - for stdout (default)")

    sub.add_parser("scenarios", help="list the built-in scenarios")

    rep = sub.add_parser("replay", help="replay a recording and write its states as CSV")
    rep.add_argument("recording", help="a .jsonl file recorded from the window")
    rep.add_argument("--out", default="-", metavar="FILE.csv", help="output file, - for stdout")
    rep.add_argument("--every", type=int, default=1, metavar="N", help="write every N-th step")

    sweep_cli.add_parser(sub, run)
    return parser


# Flags that map one-to-one onto a setting.
_DIRECT = {"integrator": "integrator", "full_quat_form": "full_quat_form", "norm": "norm",
           "dt": "dt", "inertia": "inertia", "angles": "angles_deg", "rates": "rates",
           "torque": "torque", "controller": "controller", "gains": "gains",
           "command": "command_deg", "slerp_time": "slerp_time", "limits": "limits"}


def scenario_from_args(args):
    """The scenario of ``run``: the chosen scenario with the flags applied."""
    scenario = load(args.scenario)
    changes = {}
    for flag, key in _DIRECT.items():
        value = getattr(args, flag)
        if value is not None:
            changes[key] = _flag_value(flag, key, value)
    if args.dampers is not None:
        changes["dampers"] = _flag_value("dampers", "dampers", args.dampers)
        changes["dampers_on"] = any(k > 0 for k in changes["dampers"])
    if args.limits is not None:
        changes["limiter_on"] = True
    if args.no_shortest_path:
        changes["shortest_path"] = False
    settings = scenario.settings.replace(**changes)
    events = scenario.events
    if args.torque_until is not None:
        until = _flag_value("torque_until", "slerp_time", args.torque_until)  # a time >= 0
        events = tuple(sorted(events + (Event(until, {"torque": (0.0, 0.0, 0.0)}),), key=lambda e: e.at))
    duration = scenario.duration
    if args.duration is not None:
        duration = _positive("--duration", args.duration)
    return replace(scenario, settings=settings, events=events, duration=duration)


def _flag_value(flag, key, text):
    """``text`` validated as setting ``key``; errors name the flag."""
    try:
        return validate(key, text)
    except SettingsError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise UsageError(f"--{flag.replace('_', '-')} {text}: {reason}") from None


def _positive(name, text):
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{name}: expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name}: must be a finite number > 0, got {text!r}")
    return value


def _open_out(path):
    if path == "-":
        return sys.stdout, False
    try:
        return open(path, "w", encoding="utf-8", newline=""), True
    except OSError as exc:
        raise UsageError(f"--out {path}: cannot write ({exc.strerror})") from None


def write_csv(rows, out) -> tuple | None:
    """Write rows (HISTORY_COLUMNS order) as CSV with :data:`COLUMNS`; returns the last row."""
    n = len(COLUMNS)
    write = out.write
    write(",".join(COLUMNS) + "\n")
    last = None
    for row in rows:
        write(",".join(map(repr, row[:n])) + "\n")
        last = row
    return last


def _summary(last) -> str:
    t, q = last[0], last[1:5]
    return (f"t={t:g} s  Q=({', '.join(f'{x:.6f}' for x in q)})  psi,theta,phi="
            f"{last[8]:.2f},{last[9]:.2f},{last[10]:.2f} deg  |Q|-1={last[11]:.2e}  "
            f"T={last[13]:.6g} J  lambda={last[12]:.6g}")


def cmd_run(args) -> int:
    if args.every < 1:
        raise UsageError(f"--every: must be >= 1, got {args.every}")
    scenario = scenario_from_args(args)
    warning = stability_warning(scenario.settings)
    if warning:
        print(warning, file=sys.stderr)
    out, close = _open_out(args.out)
    try:
        last = write_csv(Runner(scenario).run(scenario.duration, args.every), out)
    finally:
        if close:
            out.close()
    if close and last is not None:
        print(_summary(last), file=sys.stderr)
    return 0


def cmd_replay(args) -> int:
    if args.every < 1:
        raise UsageError(f"--every: must be >= 1, got {args.every}")
    runner, steps = replay(args.recording)
    out, close = _open_out(args.out)

    def rows():
        yield runner.sim.row()
        done = 0
        while done < steps:
            batch = runner.advance(min(10_000, steps - done))
            if batch.fault:
                raise SimulationFault(batch.fault, batch.last.t)
            for k, row in enumerate(batch.rows, start=done + 1):
                if k % args.every == 0 or k == steps:
                    yield tuple(row.tolist())
            done += len(batch.rows)

    try:
        write_csv(rows(), out)
    finally:
        if close:
            out.close()
    return 0


def cmd_scenarios(args) -> int:
    for name in builtin_names():
        scenario = load(name)
        print(f"{name:<20} {scenario.title}: {scenario.caption.split('. ')[0].rstrip('.')}.")
    return 0


def cmd_gui(args) -> int:
    load(args.scenario)  # fail early, on the command line, for a bad scenario
    if args.screenshot is not None and not (math.isfinite(args.after) and args.after >= 0):
        raise UsageError(f"--after: must be a time >= 0, got {args.after}")
    from app.window import run_gui  # Qt is imported only for the window

    return run_gui(args.scenario, screenshot=args.screenshot, after=args.after)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    try:
        if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
            argv = ["gui", *argv]
        args = parser.parse_args(argv)
        handler = {"run": cmd_run, "gui": cmd_gui, "scenarios": cmd_scenarios,
                   "replay": cmd_replay, "sweep": sweep_cli.cmd_sweep}[args.subcommand]
        return handler(args)
    except (UsageError, SettingsError, ScenarioError, RecordingError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except SimulationFault as exc:
        print(f"{PROG}: simulation fault: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    from app.cli import main  # the module app.sweep_cli imports, not this __main__ copy of it
    sys.exit(main())
