"""The ``attitude-sim`` command line.

``attitude-sim`` (no arguments) or ``attitude-sim gui`` opens the window;
``run`` integrates headless and writes CSV or npz; ``scenarios`` lists the
built-ins; ``replay`` reproduces a recording.  Bad input exits 2 with one
line on stderr, never a traceback; a write error exits 1 and Ctrl-C 130,
each with one line giving the simulated time reached (app/output.py).
``run`` and ``replay`` are :mod:`sim.api`'s functions with a writer.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import replace

from app import sweep_cli
from app.output import OpenError, OutputError, Sink, catch_interrupts, write_csv, write_npz
from sim import api
from sim.control import CONTROLLERS
from sim.integrators import FULL_QUAT_FORMS, INTEGRATORS
from sim.norm import NORM_MODES
from sim.recording import RecordingError, load_recording
from sim.scenario import MAX_DURATION, Event, ScenarioError, builtin_names, load
from sim.settings import SettingsError, carried_to, damper_warning, stability_warning, validate
from sim.simulation import SimulationFault

__all__ = ["main", "build_parser"]

PROG = "attitude-sim"
#: Longest --after accepted, s (a screenshot, not a soak).
MAX_AFTER = 3600.0


class UsageError(Exception):
    """Bad input on the command line: one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message
        raise UsageError(message)


EXAMPLES = """examples:
  attitude-sim                                   open the window (default scenario)
  attitude-sim gui --scenario gimbal_lock        the window with a built-in scenario
  attitude-sim run --scenario hoffmann           Hoffmann's experiment as CSV on stdout
  attitude-sim run --integrator rk4 --rates 1,0.2,-0.5 --dampers 0,0,0 --duration 20 \\
      --every 100 --out tumble.csv               a torque-free tumble, every 100th step
  attitude-sim run --duration 3600 --format npz --out hour.npz
  attitude-sim replay session.jsonl --out states.csv
"""

RUN_EXAMPLES = """examples:
  attitude-sim run --scenario hoffmann --out hoffmann.csv
  attitude-sim run --controller quaternion --command 0,30,0 --duration 12 --every 1000
  attitude-sim run --integrator full-quat --full-quat-form raw --dampers 0,0,0 \\
      --rates 1,0.2,-0.5 --duration 20 --format npz --out raw.npz

Runs estimated to take more than an hour are refused with the step count and
an estimate (--force runs them); Ctrl-C writes the rows so far, whole, and
exits 130; a write error (disk full, closed pipe) exits 1 naming the time.
"""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("attitude-sim")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Real-time 3D rigid-body attitude simulator "
                     "(Hoffmann's quaternion methods).", epilog=EXAMPLES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="subcommand", parser_class=_Parser, metavar="COMMAND")

    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--scenario", default="default", help="built-in name or .toml file")
    gui.add_argument("--screenshot", metavar="FILE.png", help="save a picture of the window and exit")
    gui.add_argument("--after", type=float, default=2.0, metavar="S",
                     help=f"seconds to run before the screenshot (default 2, at most {MAX_AFTER:g})")
    _add_body_flags(gui)

    run = sub.add_parser("run", help="integrate headless and write CSV or npz rows",
                         description="Integrate a scenario headless and write one row per step\n"
                         "(angles in degrees; each flag overrides the scenario).",
                         epilog=RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--scenario", default="default", help="built-in name or .toml file (default: default)")
    run.add_argument("--integrator", choices=tuple(INTEGRATORS), help="the integrator")
    run.add_argument("--full-quat-form", choices=FULL_QUAT_FORMS,
                     help="full-quat's equation: Hoffmann's manipulated (4.15), raw, or with Sherif's term")
    run.add_argument("--norm", choices=tuple(NORM_MODES), help="norm handling")
    run.add_argument("--dt", metavar="S", help="step, s (1e-9 to 1)")
    run.add_argument("--duration", metavar="S", help=f"simulated time, s (default: the scenario's; "
                     f"at most {MAX_DURATION:g}); the run takes round(duration/dt) steps")
    run.add_argument("--inertia", metavar="JXX,JYY,JZZ,JXY,JXZ,JYZ",
                     help="inertia tensor components, kg m^2, Hoffmann's signs on the products")
    _add_body_flags(run)
    run.add_argument("--angles", metavar="PSI,THETA,PHI", help="initial aircraft angles, degrees")
    run.add_argument("--rates", metavar="WX,WY,WZ", help="initial body rates, rad/s")
    run.add_argument("--torque", metavar="TX,TY,TZ", help="command torque, N m")
    run.add_argument("--torque-until", metavar="S", help="the torque acts while t < S")
    run.add_argument("--dampers", metavar="K1,K2,K3", help="rate damper gains (0 = off)")
    run.add_argument("--controller", choices=CONTROLLERS, help="attitude controller")
    run.add_argument("--gains", metavar="K1,K2,K3", help="attitude controller gains")
    run.add_argument("--command", metavar="PSI,THETA,PHI", help="command angles, degrees (a change at t = 0)")
    run.add_argument("--slerp-time", metavar="S", help="time of the SLERP to a new command (0 = at once)")
    run.add_argument("--no-shortest-path", action="store_true", help="let the controller turn the long way")
    run.add_argument("--limits", metavar="L1,L2,L3", help="torque limits per axis (switches the limiter on)")
    _output_flags(run)
    run.add_argument("--force", action="store_true",
                     help="run even when the run is estimated to take more than an hour")

    sub.add_parser("scenarios", help="list the built-in scenarios")

    rep = sub.add_parser("replay", help="replay a recording and write its states as CSV or npz")
    rep.add_argument("recording", help="a .jsonl file recorded from the window")
    _output_flags(rep)
    rep.add_argument("--force", action="store_true",
                     help="replay even when it is estimated to take more than an hour")

    sweep_cli.add_parser(sub, run)
    return parser


def _add_body_flags(parser) -> None:
    parser.add_argument("--body", metavar="NAME|FILE", help="aircraft | t_handle | phone | satellite, or a "
                        "watertight .obj/.stl/.ply/.glb/.gltf mesh (metres); takes the body's inertia")
    parser.add_argument("--mass", metavar="KG", help="total mass for an inertia from the mesh (default: the body's)")


def with_body(scenario, args):
    """The scenario with ``--body`` and ``--mass`` applied; a new body brings its own inertia.

    A new body with its own inertia also takes the scenario's torque,
    dampers, gains and limits scaled to its moments of inertia
    (:func:`sim.settings.carried_to`, as the window's Model tab does), so
    it flies with the scenario's time constants; flags such as
    ``--dampers`` are applied after and win.
    """
    changes = {key: _flag_value(key, key, getattr(args, key)) for key in ("body", "mass")
               if getattr(args, key, None) is not None}
    if "body" in changes:  # the scenario's explicit inertia was for its own body
        inertia = getattr(args, "inertia", None)
        changes["inertia"] = None if inertia is None else _flag_value("inertia", "inertia", inertia)
    if not changes:
        return scenario
    try:
        settings = scenario.settings.replace(**changes)
        if "body" in changes and changes["inertia"] is None and settings.body != scenario.settings.body:
            carried = carried_to(scenario.settings, settings.mass_properties.inertia)
            if any(carried[key] != getattr(settings, key) for key in carried):
                settings = settings.replace(**carried)
                _say(f"note: --body {args.body}: the scenario's torque, dampers, gains and limits are scaled "
                     "to its moments of inertia (the same time constants)")
        return replace(scenario, settings=settings)
    except SettingsError as exc:
        body = getattr(args, "body", None)
        raise UsageError(f"--body {scenario.settings.body if body is None else body}: "
                         f"{str(exc).split(': ', 2)[-1]}") from None


def _output_flags(parser):
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="write every N-th step, and always the first and the last (default 1)")
    parser.add_argument("--format", choices=("csv", "npz"), default=None,
                        help="csv, or npz (numpy.savez: one array per column; smaller and faster); "
                        "default: from the --out suffix, else csv")
    parser.add_argument("--out", default="-", metavar="FILE",
                        help="output file, - for stdout (default)")


# Flags that map one-to-one onto a setting.
_DIRECT = {"integrator": "integrator", "full_quat_form": "full_quat_form", "norm": "norm",
           "dt": "dt", "inertia": "inertia", "angles": "angles_deg", "rates": "rates",
           "torque": "torque", "controller": "controller", "gains": "gains",
           "command": "command_deg", "slerp_time": "slerp_time", "limits": "limits"}


def scenario_from_args(args):
    """The scenario of ``run``: the chosen scenario with the flags applied."""
    scenario = with_body(load(args.scenario), args)
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
    """Write ``rows`` to ``--out`` as ``fmt``; a progress bar on a terminal for long runs."""
    if fmt == "npz" and args.out == "-" and sys.stdout.isatty():
        raise UsageError("--format npz: binary output to a terminal; give --out FILE.npz")
    names = api.columns(plan.scenario)
    bar = sink = None
    try:
        with catch_interrupts():  # before the file exists: Ctrl-C from then on ends cleanly
            try:
                sink = Sink(args.out)
            except OpenError as exc:
                raise UsageError(str(exc)) from None
            if sys.stderr is not None and sys.stderr.isatty() and plan.is_long():
                from tqdm import tqdm

                bar = tqdm(total=plan.steps, unit="step", unit_scale=True, mininterval=0.5,
                           leave=False, file=sys.stderr)
            rows = rows(bar)
            if fmt == "npz":
                last, _ = write_npz(rows, names, plan.rows, sink)
            else:
                last, _ = write_csv(rows, names, sink)
    finally:
        if bar is not None:
            bar.close()
        if sink is not None:
            sink.close()
    if args.out != "-" and last is not None:
        _say(_summary(last))
    return 0


def _every(args):
    if args.every < 1:
        raise UsageError(f"--every: must be >= 1, got {args.every}")
    return args.every


def cmd_run(args) -> int:
    every = _every(args)
    scenario = scenario_from_args(args)
    for warning in (stability_warning(scenario.settings), damper_warning(scenario.settings)):
        if warning:
            _say(warning)
    if args.mass is not None and scenario.settings.mass_properties.explicit:
        _say("warning: --mass has no effect: the inertia is given explicitly")
    fmt = _format(args)
    plan = _check(lambda: api.plan(scenario, None, every), fmt, args.force)
    return _write(lambda bar: api.stream(scenario, None, every, bar), plan, args, fmt)


def cmd_replay(args) -> int:
    every = _every(args)
    scenario, _, last = load_recording(args.recording)
    fmt = _format(args)
    plan = _check(lambda: api.Plan(scenario, last, every), fmt, args.force)
    return _write(lambda bar: api.replay_stream(args.recording, every, bar), plan, args, fmt)


def cmd_scenarios(args) -> int:
    for name in builtin_names():
        scenario = load(name)
        print(f"{name:<20} {scenario.title}: {scenario.caption.split('. ')[0].rstrip('.')}.")
    return 0


def cmd_gui(args) -> int:
    scenario = with_body(load(args.scenario), args)  # fail early, on the command line
    if args.screenshot is not None and not (math.isfinite(args.after) and 0 <= args.after <= MAX_AFTER):
        raise UsageError(f"--after: must be a time in [0, {MAX_AFTER:g}] s, got {args.after}")
    from app.window import run_gui  # Qt is imported only for the window

    return run_gui(scenario, screenshot=args.screenshot, after=args.after)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    try:
        if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
            argv = ["gui", *argv]
        args = parser.parse_args(argv)
        if args.subcommand is None:
            raise UsageError("a command is needed (gui, run, scenarios, replay)")
        handler = {"run": cmd_run, "gui": cmd_gui, "scenarios": cmd_scenarios,
                   "replay": cmd_replay, "sweep": sweep_cli.cmd_sweep}[args.subcommand]
        return handler(args)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except (UsageError, SettingsError, ScenarioError, RecordingError) as exc:
        _say(f"{PROG}: error: {exc}")
        return 2
    except OutputError as exc:
        _say(f"{PROG}: {'error: ' if exc.code == 1 else ''}{exc}")
        return exc.code
    except SimulationFault as exc:
        _say(f"{PROG}: simulation fault: {exc}")
        return 1
    except BrokenPipeError:  # stdout closed while printing the scenario list
        _silence_stdout()
        _say(f"{PROG}: error: cannot write stdout: broken pipe (the reader went away)")
        return 1
    except KeyboardInterrupt:
        _say(f"{PROG}: interrupted")
        return 130


def _say(text: str) -> None:
    """One line on stderr; nothing when stderr is closed (never onto stdout, the data)."""
    if sys.stderr is not None:
        try:
            print(text, file=sys.stderr)
        except (OSError, ValueError):
            pass


def _silence_stdout():
    """Point stdout at /dev/null, so the flush at exit does not fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    from app.cli import main  # the module app.sweep_cli imports, not this __main__ copy of it
    sys.exit(main())
