"""``attitude-sim sweep``: an ensemble of bodies through a scenario, summary table and CSV.

The settings flags are ``run``'s (:func:`app.cli.options.add_settings_flags`,
the same validation through :func:`app.cli.options.scenario_from_args`); the ensemble flags
override the scenario's ``[ensemble]`` table.  Small sweeps run in this
process; larger ones on a Dask local cluster of this machine's cores, or on
an existing cluster (``--scheduler``).  Bad input exits 2 with one line.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace

import numpy as np

from app.cli.flags import NUMERIC, add_numeric
from app.cli.options import (PROG, UsageError, add_settings_flags, check_outputs, flush_notes, note, open_output,
                             say, scenario_from_args, scenario_inputs)
from app.cli.cluster import dask_client
from app.cli.output import OutputError, catch_interrupts, reason
from sim import (
    EnsembleSpec, check_orbit_spread, BODY_STEP_SECONDS, ROUGH_BODY_STEP_SECONDS, ROUGH_SETUP_SECONDS, LIMITS,
    RunTooLong, as_integer, check_cost, check_workers, usable_cores, SettingsError, damper_warning, stability_warning,
)
from sim.sweep import MAX_TRAJECTORY_BYTES, Sweep, SweepFailed
from sim import sweep_summary as summary

__all__ = ["add_parser", "add_ensemble_flags", "ENSEMBLE_FLAGS", "spec_from_args", "cmd_sweep", "parse_gains_grid",
           "format_summary", "histogram"]

#: The scenario a sweep starts from unless --scenario says otherwise.
DEFAULT_SCENARIO = "ensemble_controller"
#: Most bodies accepted (the same limit as a scenario's, sim.io.limits.LIMITS).
MAX_BODIES = LIMITS["bodies"].high
#: Most gain values on one axis of --gains-grid.
MAX_GRID_AXIS = LIMITS["gains_grid_values"].high
#: Below this many body-steps (seconds on one core at sim.io.costs.BODY_STEP_SECONDS) a sweep runs in this process by default.
SERIAL_BODY_STEPS = 100_000_000
#: Most body-steps accepted (about a day on one core at sim.io.costs.BODY_STEP_SECONDS a body-step).
MAX_BODY_STEPS = LIMITS["body_steps"].high
#: Seconds to wait for a --scheduler to answer (connection and Dask's handshake) and to have a worker.
CONNECT_TIMEOUT = 10.0
#: Below this rough upper bound of a sweep's wall time its costs are not measured (s).
_MEASURE_ABOVE = 60.0
#: Rows of the CSV formatted and written at a time (whole lines: see sim.io.files.Output).
CSV_ROWS = 2000
#: Rows of the by-gains table printed (all are in --out).
MAX_GAINS_ROWS = 20
#: Trajectory samples kept by default (--traj-every chosen to give about this many).
DEFAULT_SAMPLES = 500

_EPILOG = """\
gains grid: three axes separated by commas, each a list of values separated by
colons or an evenly spaced range LOW..HIGH/COUNT; body i takes the
(i mod combinations)-th combination of the cartesian product, the third gain
varying fastest. Examples: --gains-grid 2:6:10,10,12 (3 combinations),
--gains-grid 2..10/5,5..15/3,12 (15 combinations).

The summary table goes to stdout (to stderr when --out is -). Without
--workers or --scheduler, sweeps of fewer than 1e8 body-steps run in this
process, larger ones on a Dask local cluster with one worker process per core.
A sweep estimated to take more than an hour is refused with the estimate
(--force runs it); one that needs more memory than the machine has is
refused, forced or not. --out and --trajectories are written beside their
names and moved into place when the sweep is complete: a sweep that fails
or is stopped leaves the files that were there as they were.
"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``sweep`` subcommand; it takes ``run``'s settings flags."""
    parser = subparsers.add_parser(
        "sweep", help="fly many bodies through a scenario; summary table and CSV",
        description="Fly an ensemble of bodies (random attitudes, dispersions, a gains grid) through "
                    "a scenario and summarise settling, errors, unwinding and faults.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_settings_flags(parser, DEFAULT_SCENARIO)
    add_ensemble_flags(parser)
    out = parser.add_argument_group("output and execution")
    out.add_argument("--out", metavar="FILE.csv", help="one row per body (index, initial state, final "
                     "state, metrics); - for stdout")
    out.add_argument("--trajectories", metavar="FILE.npz", help="every k-th step of every body's Q and w")
    out.add_argument("--traj-every", metavar="K", help=f"trajectory step (default: about {DEFAULT_SAMPLES} samples)")
    add_numeric(out, "--workers")
    out.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (tcp://host:port)")
    out.add_argument("--chunk", metavar="N", help="bodies per chunk (default: all in one in this process, "
                     "one or two chunks per worker on Dask)")
    out.add_argument("--force", action="store_true",
                     help="run even when the sweep is estimated to take more than an hour (never beyond the "
                          "machine's memory)")
    parser.set_defaults(handler=cmd_sweep)
    return parser


#: The flags of :func:`add_ensemble_flags` (argparse dests); :func:`spec_from_args` reads them.
ENSEMBLE_FLAGS = ("bodies", "seed", "attitudes", "rate_spread", "inertia_spread", "gains_grid", "settle_deg",
                  "orbit_spread", "epoch_spread", "detumble_deg_s")


def add_ensemble_flags(parser) -> None:
    """The ensemble's flags (``sweep`` and ``video``): each overrides the scenario's ``[ensemble]`` table."""
    group = parser.add_argument_group("ensemble (override the scenario's [ensemble] table)")
    add_numeric(group, "--bodies", "--seed")
    group.add_argument("--attitudes", choices=("random", "grid", "same"),
                       help="initial attitudes: uniform random on SO(3), a deterministic grid, "
                            "or --angles for all")
    add_numeric(group, "--rate-spread", "--inertia-spread")
    group.add_argument("--gains-grid", metavar="K1S,K2S,K3S",
                       help="controller gains to sweep, e.g. 2:6:10,10,12 or 2..10/5,10,12 (see below)")
    add_numeric(group, "--settle-deg", "--detumble-deg-s")
    group.add_argument("--orbit-spread", metavar="ALT_KM,E,I_DEG,RAAN_DEG,ARGP_DEG,NU_DEG",
                       help="one orbit per body: half-widths of uniform spreads about --orbit's elements "
                            "(needs --orbit; e.g. 50,0,2,30,0,180)")
    add_numeric(group, "--epoch-spread")


# ------------------------------------------------------------------ parsing
def _integer(flag: str, text: str, low: int, high: int) -> int:
    try:
        return as_integer(flag, text, low, high)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def _limited(key: str, flag: str, text: str):
    """One number checked against limit ``key`` of :data:`sim.io.limits.LIMITS` (the engine's); errors name ``flag``."""
    try:
        return LIMITS[key].number(text, flag)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def parse_gains_grid(text: str) -> tuple:
    """``--gains-grid`` text as three tuples of gains; UsageError naming what is wrong.

    Three axes separated by commas; an axis is ``v1:v2:...`` or
    ``LOW..HIGH/COUNT`` (COUNT evenly spaced values, both ends included).
    """
    flag = f"--gains-grid {text}"
    axes = text.split(",")
    if len(axes) != 3:
        raise UsageError(f"{flag}: expected three axes separated by commas (K1S,K2S,K3S), got {len(axes)}")
    grid = []
    for i, axis in enumerate(axes, start=1):
        axis = axis.strip()
        if ".." in axis:
            low_high, _, count = axis.partition("/")
            low, _, high = low_high.partition("..")
            if not count:
                raise UsageError(f"{flag}: axis {i}: a range needs a count, LOW..HIGH/COUNT")
            n = _integer(f"{flag}: axis {i} count", count.strip(), 1, MAX_GRID_AXIS)
            lo = _limited("gains", f"{flag}: axis {i} low", low.strip())
            hi = _limited("gains", f"{flag}: axis {i} high", high.strip())
            if hi < lo:
                raise UsageError(f"{flag}: axis {i}: HIGH {hi:g} is below LOW {lo:g}")
            values = tuple(float(v) for v in np.linspace(lo, hi, n))
        else:
            parts = axis.split(":")
            if len(parts) > MAX_GRID_AXIS:
                raise UsageError(f"{flag}: axis {i}: at most {MAX_GRID_AXIS} values")
            values = tuple(_limited("gains", f"{flag}: axis {i} value", p.strip()) for p in parts)
        grid.append(values)
    return tuple(grid)


def spec_from_args(args, base: EnsembleSpec) -> EnsembleSpec:
    """The scenario's ensemble spec (or the defaults) with the flags applied."""
    changes = {}
    for key in ("bodies", "seed", "rate_spread", "inertia_spread", "settle_deg", "detumble_deg_s", "epoch_spread"):
        if getattr(args, key) is not None:
            changes[key] = NUMERIC["--" + key.replace("_", "-")].read(getattr(args, key))
    if args.attitudes is not None:
        changes["attitudes"] = args.attitudes
    if args.gains_grid is not None:
        changes["gains_grid"] = parse_gains_grid(args.gains_grid)
    if args.orbit_spread is not None:
        changes["orbit_spread"] = args.orbit_spread
    try:
        return replace(base, **changes)
    except (SettingsError, ValueError) as exc:
        message = str(exc)
        for key in changes:  # the engine's message names the field: name the flag instead
            if message.startswith(key):
                flag = "--" + key.replace("_", "-")
                raise UsageError(f"{flag} {getattr(args, key)}:{message[len(key):].lstrip(':')}") from None
        raise UsageError(message) from None


# ------------------------------------------------------------------ output
def csv_chunks(columns: dict, rows: int = CSV_ROWS):
    """The sweep's CSV as chunks of whole lines (bytes): the header, then ``rows`` bodies at a time.

    One row per body in :func:`sim.sweep.chunk.columns` order, the order of
    ``columns`` (floats exact, ``faulted`` as 0/1).  Formatted a chunk at a
    time, so ten million bodies never sit in memory as text.
    """
    names = tuple(columns)
    yield (",".join(names) + "\n").encode()
    count = len(columns[names[0]])
    for start in range(0, count, rows):
        cells = []
        for name in names:
            values = columns[name][start:start + rows]
            if values.dtype == bool or values.dtype.kind in "iu":
                cells.append([str(int(v)) for v in values])
            else:
                cells.append([repr(float(v)) for v in values])
        yield "".join(",".join(row) + "\n" for row in zip(*cells)).encode()


def _fmt(x: float, unit: str = "") -> str:
    if math.isinf(x):
        return "never"
    if math.isnan(x):
        return "-"
    return f"{x:.3g}{unit}"


def format_summary(result, spec: EnsembleSpec, scenario, elapsed: float, where: str) -> str:
    """The summary table printed after a sweep (see :func:`sim.sweep.summary.summary`)."""
    s = summary(result, spec, estimator=scenario.settings.estimator)
    settings = scenario.settings
    c = result.columns
    by_index = {int(i): j for j, i in enumerate(c["index"])}
    steps = round(scenario.duration / settings.dt)
    controller = settings.controller + (" controller" if settings.controller != "none" else " (no controller)")
    lines = [
        f"sweep: {s['bodies']:,} bodies ({spec.attitudes} attitudes, seed {spec.seed}), scenario "
        f"{scenario.name}, {scenario.duration:g} s at dt {settings.dt:g} s ({steps:,} steps), "
        f"{settings.integrator}, {controller}, shortest path {'on' if settings.shortest_path else 'off'}; "
        f"{elapsed:.1f} s {where}",
        "",
        f"{'':<22}" + "".join(f"{('min' if p == 0 else 'max' if p == 100 else f'p{p}'):>10}"
                              for p in s["percentiles"]),
        f"{'settling time (s)':<22}" + "".join(f"{_fmt(v):>10}" for v in s["settling_time"]),
        f"{'final error (deg)':<22}" + "".join(f"{_fmt(v):>10}" for v in s["final_error_deg"]),
        f"{'travelled (deg)':<22}" + "".join(f"{_fmt(v):>10}" for v in s["travelled_deg"]),
        *([f"{'pointing error (deg)':<22}" + "".join(f"{_fmt(v):>10}" for v in s["point_err_deg"])]
          if s["point_err_deg"] is not None else []),
        *([f"{'time to detumble (s)':<22}" + "".join(f"{_fmt(v):>10}" for v in s["detumble_time"])]
          if s["detumble_time"] is not None else []),
        *([f"{label:<22}" + "".join(f"{_fmt(v):>10}" for v in s[key])
           for key, label in (("est_err_deg", "estimate error (deg)"), ("est_rms_deg", "est. RMS, 2nd half"),
                              ("nees_mean", "mean NEES, 2nd half"))] if s["nees_check"] is not None else []),
        "",
        f"settled within {spec.settle_deg:g} deg: {s['settled']:,} of {s['flying']:,}"
        + (f" (percentiles over the {s['flying']:,} bodies that did not fault)" if s["faulted"] else ""),
        f"unwinding (travelled > 180 deg): {s['unwinding']:,}",
        *([f"detumbled under {spec.detumble_deg_s:g} deg/s: {s['detumbled']:,} of {s['flying']:,}; time to "
           f"detumble: median {_fmt(s['detumble_time'][1], ' s')}, p95 {_fmt(s['detumble_p95'], ' s')}"]
          if s["detumble_time"] is not None else []),
        *([_nees_line(s["nees_check"], settings.estimator)] if s["nees_check"] is not None else []),
        f"faulted: {s['faulted']:,}",
        "",
    ]
    if s["detumble_time"] is not None:
        lines += [f"time to detumble (s), {s['detumbled']:,} bodies:",
                  *histogram(c["detumble_time"][~c["faulted"]]), ""]
    if s["by_gains"]:
        lines += [f"by gains ({len(s['by_gains']):,} combinations flown):",
                  f"{'k1,k2,k3':>22} {'bodies':>8} {'settled':>8} {'p50 s':>8} {'max s':>8}"]
        lines += [f"{','.join(f'{k:g}' for k in gains):>22} {n:>8,} {settled:>8,} {_fmt(p50):>8} {_fmt(top):>8}"
                  for gains, n, settled, p50, top in s["by_gains"][:MAX_GAINS_ROWS]]
        if len(s["by_gains"]) > MAX_GAINS_ROWS:
            lines.append(f"{'...':>22} (see --out for the other {len(s['by_gains']) - MAX_GAINS_ROWS:,})")
        lines.append("")
    lines += ["worst bodies:",
              f"{'index':>9} {'settling s':>10} {'error deg':>10} {'travelled':>10} {'peak T':>8} "
              f"{'psi0,theta0,phi0 deg':>22} {'k1,k2,k3':>14}  fault"]
    for index in s["worst"]:
        j = by_index[index]
        angles = ",".join(f"{c[k][j]:.1f}" for k in ("psi0_deg", "theta0_deg", "phi0_deg"))
        gains = ",".join(f"{c[k][j]:g}" for k in ("k1", "k2", "k3"))
        fault = f"t={c['fault_t'][j]:.4g} s" if c["faulted"][j] else ""
        row = (f"{index:>9} {_fmt(_inf(c['settling_time'][j])):>10} {c['final_error_deg'][j]:>10.3g} "
               f"{c['travelled_deg'][j]:>10.1f} {c['peak_torque'][j]:>8.3g} {angles:>22} {gains:>14}  {fault}")
        lines.append(row.rstrip())
    return "\n".join(lines)


def histogram(values, bins: int = 10, width: int = 40) -> list:
    """A text histogram of the finite ``values``: ``bins`` equal bins from the least to the greatest, one line
    each (``low - high  count  ####``), the longest bar ``width`` characters."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if not x.size:
        return ["  (none)"]
    counts, edges = np.histogram(x, bins=bins)
    top = max(int(counts.max()), 1)
    return [(f"{edges[i]:>10.4g} - {edges[i + 1]:<10.4g} {int(n):>7,}  " + "#" * round(width * int(n) / top)).rstrip()
            for i, n in enumerate(counts)]


def _nees_line(check: dict, estimator: str) -> str:
    """The NEES consistency check of the summary (:func:`sim.sweep.summary.summary`'s ``nees_check``)."""
    verdict = "inside: consistent" if check["inside"] else "OUTSIDE: not consistent"
    return (f"NEES consistency ({estimator}, {check['dof']} dof): the average of the final NEES over "
            f"{check['bodies']:,} bodies is {check['mean']:.3f}, 95 % chi-square band {check['low']:.3f} .. "
            f"{check['high']:.3f} (Wilson-Hilferty): {verdict}")


def _inf(x: float) -> float:
    return math.inf if math.isnan(x) else x


# ------------------------------------------------------------------ running
def _workers(args, sweep: Sweep) -> int:
    if args.workers is not None:
        try:
            return check_workers(args.workers, "--workers")
        except SettingsError as exc:
            raise UsageError(str(exc)) from None
    cores = usable_cores()
    if cores < 2 or sweep.body_steps < SERIAL_BODY_STEPS:
        return 0
    return cores


def _progress_bar(total: int):
    from tqdm import tqdm

    return tqdm(total=total, unit=" body-steps", unit_scale=True, delay=1.5, file=sys.stderr,
                disable=sys.stderr is None or not sys.stderr.isatty(), desc="sweep", leave=False)


def _sweep_from_args(args):
    """(scenario, spec, Sweep) of the command line, every limit checked up front."""
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers and --scheduler exclude each other (the cluster has its own workers)")
    scenario = scenario_from_args(args)
    spec = spec_from_args(args, scenario.ensemble or EnsembleSpec())
    try:
        check_orbit_spread(scenario.settings, spec)
    except SettingsError as exc:
        message = str(exc)
        key = "epoch_spread" if message.startswith("epoch_spread") else "orbit_spread"
        text = message[len(key):].lstrip(": ") if message.startswith(key) else message
        raise UsageError(f"--{key.replace('_', '-')}: {text}") from None
    chunk = None if args.chunk is None else _integer("--chunk", args.chunk, 1, MAX_BODIES)
    try:
        LIMITS["duration"].number(scenario.duration, "--duration")
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    steps = round(scenario.duration / scenario.settings.dt)
    if steps < 1:
        raise UsageError(f"--duration {scenario.duration:g}: shorter than one step of {scenario.settings.dt:g} s")
    traj_every = 0
    if args.trajectories is not None:
        traj_every = (math.ceil(steps / DEFAULT_SAMPLES) if args.traj_every is None
                      else _integer("--traj-every", args.traj_every, 1, steps))
    elif args.traj_every is not None:
        raise UsageError("--traj-every: needs --trajectories FILE.npz")
    sweep = Sweep(scenario, spec, chunk=chunk, traj_every=traj_every)
    if sweep.body_steps > MAX_BODY_STEPS:
        hours = sweep.body_steps * BODY_STEP_SECONDS / 3600
        raise UsageError(f"{spec.bodies:,} bodies x {steps:,} steps = {sweep.body_steps:.2g} body-steps, "
                             f"more than {MAX_BODY_STEPS:.0e} (about {hours:,.0f} core-hours): "
                             "lower --bodies or --duration, or raise --dt")
    if sweep.trajectory_bytes() > MAX_TRAJECTORY_BYTES:
        raise UsageError(f"--trajectories: {sweep.trajectory_bytes() / 2**30:.1f} GiB of samples (more than "
                             f"{MAX_TRAJECTORY_BYTES / 2**30:g} GiB): raise --traj-every or lower --bodies")
    return scenario, spec, sweep


def _check_costs(args, sweep: Sweep, workers: int):
    """Memory and time estimated before anything runs (:func:`sim.io.limits.check_cost`); returns the seconds (or None)."""
    what = f"a sweep of {sweep.spec.bodies:,} bodies x {sweep.steps:,} steps"
    local = args.scheduler is None
    try:
        check_cost(what, memory=sweep.memory(workers, local),
                   memory_hint="lower --bodies" + (", raise --traj-every" if sweep.traj_every else "")
                   + (" or --workers" if workers > 1 else ""))
        # a rough upper bound first (sim.io.costs): measure only when it matters
        rough = (sweep.spec.bodies * ROUGH_SETUP_SECONDS + sweep.body_steps * ROUGH_BODY_STEP_SECONDS) / max(1, workers)
        if rough < _MEASURE_ABOVE:
            return rough
        seconds = sweep.seconds(workers)
        check_cost(what, seconds=seconds, force=args.force,
                   hint="lower --bodies or --duration, or raise --dt; --force runs it anyway")
        return seconds
    except RunTooLong as exc:
        raise UsageError(str(exc)) from None


def cmd_sweep(args) -> int:
    if args.out != "-" and sys.stdout is None:  # `sweep >&-`: the summary would vanish, and exit 0
        raise UsageError("stdout is closed: the summary table has nowhere to go (give stdout, or --out - to "
                         "put the CSV there and the summary on stderr)")
    scenario, spec, sweep = _sweep_from_args(args)
    outputs = {"--out": args.out, "--trajectories": args.trajectories}
    check_outputs(outputs, scenario_inputs(args, scenario))
    workers = _workers(args, sweep)
    estimate = _check_costs(args, sweep, workers)
    combinations = math.prod(map(len, spec.gains_grid)) if spec.gains_grid else 0
    if combinations > spec.bodies:
        note(f"warning: only {spec.bodies:,} of the {combinations:,} gain combinations are flown")
    for warning in (stability_warning(scenario.settings), damper_warning(scenario.settings)):
        if warning:
            note(warning)
    if scenario.compare:
        note(f"note: the scenario's comparison bodies ({', '.join(label for label, _ in scenario.compare)}) "
            "are not swept: every body flies the main body's settings")
    files = {flag: open_output(path, flag) for flag, path in outputs.items() if path is not None}
    flush_notes()  # every input checked and the outputs open: the notes and warnings now
    try:
        with catch_interrupts():
            start = time.perf_counter()
            try:
                with dask_client(args.scheduler, workers, CONNECT_TIMEOUT) as (client, where), _progress_bar(sweep.body_steps) as bar:
                    deadline = None if client is None else 4 * max(estimate or 0.0, 30.0) + 60.0
                    result = sweep.run(client, progress=bar.update, where=where, deadline=deadline)
            except SweepFailed as exc:
                say(f"{PROG}: error: the sweep failed: {exc}; nothing was written")
                return 1
            elapsed = time.perf_counter() - start
            _write_results(files, result)
    except KeyboardInterrupt:
        say(f"{PROG}: interrupted; nothing was written" + ("" if not files else " (the files named are as they were)"))
        return 130
    finally:
        for out in files.values():
            out.close()  # a file not moved into place is removed: the target stays as it was
    table = format_summary(result, spec, scenario, elapsed, "in " + where if client is None else "on " + where)
    try:
        print(table, file=sys.stderr if args.out == "-" else sys.stdout)
    except (OSError, ValueError, AttributeError):  # a closed stdout: the files are written, say so in one line
        say(f"{PROG}: the sweep's summary could not be printed (stdout closed); its files are written")
        return 1
    return 0


def _write_results(files: dict, result) -> None:
    """Write the CSV and the trajectories; move both into place only when both are complete."""
    try:
        out = files.get("--out")
        if out is not None:
            for chunk in csv_chunks(result.columns):
                out.write(chunk)  # whole lines: a write cut short is cut back to the last complete one
        traj = files.get("--trajectories")
        if traj is not None:
            with traj.file(binary=True) as f:
                np.savez(f, t=result.t, index=result.columns["index"], q=result.q, w=result.w)
        for output in files.values():
            output.commit()
    except OSError as exc:  # disk full, pipe closed, a file size limit: one line, exit 1
        names = ", ".join(output.name for output in files.values() if output.partial is not None)
        for output in files.values():
            output.discard()
        raise OutputError(f"cannot write the sweep's results: {reason(exc)}"
                          + (f"; {names} left as they were" if names else ""), 1) from None
