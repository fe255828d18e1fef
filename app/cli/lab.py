"""``attitude-sim lab``: the drift lab, every integrator and norm mode through a long tumble, as a report.

Runs :func:`sim.lab.run_lab` with a tqdm progress bar on a terminal and
writes ``LAB.md`` (the table, the flip periods, the run's cost) and the PNG
plots (:mod:`app.plots.lab`, imported once the flags were checked: the one
import of Qt from the command line besides the window's) into ``--out``.
Every file is written beside its final name first and moved into place
only when all are complete, so a run that fails or is interrupted leaves
the previous report as it was.
"""

from __future__ import annotations

import math
import os
import platform
import sys
import tempfile

from app.cli.flags import NUMERIC
from app.cli.options import UsageError, say
from sim import lab, kind_of

__all__ = ["add_parser", "cmd_lab", "report", "REPORT_NAME"]

#: The report's file name inside ``--out``.
REPORT_NAME = "LAB.md"


def add_parser(subparsers) -> None:
    """Add ``lab`` to ``subparsers``."""
    p = subparsers.add_parser(
        "lab", help="the drift lab: every integrator and norm mode, long runs against the closed form",
        description="Every integrator (each full-quat form) with every norm mode through the torque-free "
        "tumble of Hoffmann's aircraft against its closed form (Jacobi elliptic functions): energy, "
        "momentum and norm drift, attitude error, measured order, cost per step; and the T-handle's and "
        "the phone's flip period against 4 K(m)/lambda. Writes LAB.md and PNG plots.")
    NUMERIC["--steps"].add(p, default=str(lab.STEPS), dt=f"{lab.DT:g}", steps=f"{lab.STEPS:,}")
    p.add_argument("--out", metavar="DIR", default="lab",
                   help=f"folder for {REPORT_NAME} and the plots (default: lab); `--out docs` "
                   "renews the project's docs/LAB.md")
    p.set_defaults(handler=cmd_lab)


def cmd_lab(args) -> int:
    steps = NUMERIC["--steps"].read(args.steps)
    out = os.path.abspath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {args.out}: exists and is not a folder")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot create the folder ({exc.strerror})") from None
    if not os.access(out, os.W_OK):
        raise UsageError(f"--out {args.out}: the folder is not writable")
    combos = lab.combinations()
    lab.check_cost(steps, combos)  # the one estimate (sim.io.limits.check_cost), before any run
    from app.plots.lab import PLOTS, write_plots  # Qt (offscreen), only now that the flags are checked

    names = (*PLOTS, REPORT_NAME)
    for name in names:  # every name the report takes, before the runs: nothing in the way (a folder LAB.md)
        target = os.path.join(out, name)
        if os.path.lexists(target) and not os.path.isfile(target):
            raise UsageError(f"--out {args.out}: {name} is in the way ({kind_of(os.lstat(target).st_mode)}, "
                             "not a file the report can replace)")
    bar = _bar(steps * len(combos))
    try:
        result = lab.run_lab(steps, combos, bar)
    finally:
        bar.close()
    with tempfile.TemporaryDirectory(dir=out, prefix=".lab-") as tmp:
        write_plots(result, tmp)
        with open(os.path.join(tmp, REPORT_NAME), "w", encoding="utf-8") as f:
            f.write(report(result, list(PLOTS)))
        _move_all(tmp, out, names)
    say(f"wrote {os.path.join(args.out, REPORT_NAME)} and {len(PLOTS)} plots: {len(combos)} combinations x "
        f"{steps:,} steps in {_duration(result.wall_s)} ({_duration(result.cpu_s)} of CPU)")
    return 0


def _move_all(tmp: str, out: str, names) -> None:
    """Move every file ``names`` from ``tmp`` into ``out``, all or none: the old ones come back on a failure."""
    moved = []  # (target, the old file's place in tmp or None)
    try:
        for name in names:
            target = os.path.join(out, name)
            old = None
            if os.path.isdir(target) and not os.path.islink(target):
                raise IsADirectoryError(21, "Is a directory", target)  # never moved away (nor removed with tmp)
            if os.path.lexists(target):
                old = os.path.join(tmp, name + ".old")
                os.replace(target, old)
            moved.append((target, old))
            os.replace(os.path.join(tmp, name), target)
    except OSError:
        for target, old in reversed(moved):
            try:
                if old is not None:
                    os.replace(old, target)
                elif os.path.lexists(target):
                    os.remove(target)
            except OSError:
                pass
        raise


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _bar(total: int):
    """A tqdm bar on stderr when it is a terminal, else nothing."""
    if sys.stderr is None or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="step", unit_scale=True, mininterval=0.5, file=sys.stderr, desc="lab")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min"


def _g(x: float, digits: int = 2) -> str:
    """A magnitude for the table: ``3.1e-12``, ``0.42``; ``—`` for nan."""
    if x is None or not math.isfinite(x):
        return "—"
    if x == 0.0:
        return "0"
    if 1e-2 <= abs(x) < 1e3:
        return f"{x:.{digits}g}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _row(d) -> str:
    c = d.combination
    steps = f"{d.steps:,}" if d.fault is None else f"{d.steps:,} (fault at t = {d.fault_t:.3g} s)"
    e1, e2 = (d.order_errors[-2:] if len(d.order_errors) >= 2 else (math.nan, math.nan))
    ratio = e1 / e2 if e2 and math.isfinite(e1) and math.isfinite(e2) else math.nan
    order = "—" if not math.isfinite(d.order) else f"{d.order:.2f} ({ratio:.3g})"
    return (f"| {c.method} | {c.norm} | {steps} | {_g(d.worst('energy'))} | {_g(d.worst('momentum'))} | "
            f"{_g(d.worst('norm'))} | {_g(d.final('error'))} | {_g(d.worst('error'))} | {order} | "
            f"{d.cost_us:.1f} |")


def report(result, plots) -> str:
    """The text of ``LAB.md`` for ``result`` (a :class:`sim.lab.LabResult`) and the plot files ``plots``."""
    t_end = result.steps * result.dt
    lines = [
        "# The drift lab",
        "",
        f"<!-- Written by `attitude-sim lab --steps {result.steps}`; run it again to renew this page. -->",
        "",
        "Every integrator (each full-quat form) with every norm mode through the same torque-free tumble,",
        "measured against its closed form. The formulations and the norm modes are explained in",
        "[PHYSICS.md](PHYSICS.md); the symbols follow the [conventions](../README.md#conventions).",
        "",
        "## What was run",
        "",
        "Hoffmann's aircraft (`J = 0.6, 1, 1.5` with `Jxz = 0.2`), no torque, from the level attitude with",
        f"`w0 = {', '.join(f'{w:g}' for w in lab.RATES)}` rad/s, at `dt = {result.dt:g}` s for "
        f"{result.steps:,} steps (t = {t_end:,.0f} s) per combination. Measured at {lab.SAMPLES} "
        "log-spaced steps:",
        "",
        "- **energy**: the largest `|T/T0 − 1|`;",
        "- **|h|**: the largest `| |h|/|h0| − 1 |`, the magnitude of the angular momentum `J w`;",
        "- **|Q| − 1**: the largest `| |Q| − 1 |` of the quaternion the integrator carries;",
        "- **error**: the rotation angle (rad) between the attitude the run reads (`Q/|Q|`) and the closed",
        "  form of the torque-free asymmetric top: the rates are Jacobi's elliptic functions `cn`, `sn`,",
        "  `dn`, the precession angle an elliptic integral of the third kind (Landau and Lifshitz,",
        "  *Mechanics*, section 37; written out in `sim.core.tumble`), both computed by the simulator's own",
        "  `sim.core.elliptic` (the arithmetic-geometric mean and Carlson's integrals, checked against",
        "  scipy in the tests); at the end and the largest;",
        f"- **order**: `log2(e(dt)/e(dt/2))` from the errors after {lab.ORDER_DURATION:g} s at "
        f"dt = {', '.join(f'{x:g}' for x in lab.ORDER_DTS)} s (the ratio in brackets; 2, 4 and 16 for",
        "  orders 1, 2 and 4);",
        "- **µs/step**: CPU time per step of one body (`Simulation.step`, pure Python floats) on the",
        f"  machine that wrote this page ({platform.machine()}, Python {platform.python_version()}).",
        "",
        f"The whole run took {_duration(result.wall_s)} ({_duration(result.cpu_s)} of CPU). A fault is",
        "a run the simulator stopped: a norm that ran away beyond 1e-3 with `none`, or a state that",
        "was no longer finite; its figures are up to the last good state.",
        "",
        "## The plots",
        "",
        "Each plot shows one curve per integrator with Hoffmann's norm controller (the default), except",
        "the norm plot: there `Q` is carried as integrated (`elimination`), so its drift shows freely.",
        "rk4 is dashed: where it lies on rkmk4 the two are the same to the plot's resolution.",
        "",
    ]
    for name in plots:
        lines += [f"![{name[4:-4]}]({name})", ""]
    lines += [
        "## The table",
        "",
        "| integrator | norm | steps | energy | \\|h\\| | \\|Q\\| − 1 | error at end | largest error | order "
        "(ratio) | µs/step |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(d) for d in result.drifts]
    lines += ["", *_findings(result), "", *_flip_section(result)]
    return "\n".join(lines) + "\n"


def _findings(result) -> list:
    """A few sentences read off the table (each states the numbers it rests on)."""
    by = {(d.combination.method, d.combination.norm): d for d in result.drifts}
    out = ["## What the table shows", ""]
    split, rkmk, rk4 = by.get(("splitting", "none")), by.get(("rkmk4", "none")), by.get(("rk4", "none"))
    if split is not None:
        out.append(f"- **splitting** keeps `|h|` to round-off ({_g(split.worst('momentum'))} after "
                   f"{split.steps:,} steps) and `|Q|` too ({_g(split.worst('norm'))}) with no norm handling; "
                   f"its energy error stays bounded ({_g(split.worst('energy'))} at most, no secular drift), "
                   f"its attitude error grows only through the phase of the motion.")
    if rkmk is not None and rk4 is not None:
        out.append(f"- **rkmk4** keeps `|Q| − 1` at round-off ({_g(rkmk.worst('norm'))}) without norm handling, "
                   f"where rk4's drifts to {_g(rk4.worst('norm'))}; both are of order 4 "
                   f"({rkmk.order:.2f} and {rk4.order:.2f}) and drift in energy alike "
                   f"({_g(rkmk.worst('energy'))} and {_g(rk4.worst('energy'))}).")
    elim, hoff = by.get(("half-quat", "elimination")), by.get(("half-quat", "hoffmann"))
    if elim is not None and hoff is not None:
        out.append(f"- **elimination**: half-quat's `|Q|` grows freely ({_g(elim.worst('norm'))}) while the "
                   f"attitude error equals that under Hoffmann's norm controller "
                   f"({_g(elim.final('error'))} and {_g(hoff.final('error'))} rad at the end of each run): "
                   "the attitude read through `Q/|Q|` never depends on `|Q|`.")
    kane, lag = by.get(("full-quat kane", "hoffmann")), by.get(("full-quat lagrange", "hoffmann"))
    if kane is not None and lag is not None:
        out.append(f"- **full-quat kane** and **lagrange** are the same equation on the unit sphere and both "
                   f"first order ({kane.order:.2f}, {lag.order:.2f}); off it (a first-order step leaves it by "
                   f"O(dt)) they differ, so their long runs part (energy {_g(kane.worst('energy'))} and "
                   f"{_g(lag.worst('energy'))}).")
    return out


def _flip_section(result) -> list:
    out = [
        "## The intermediate-axis flip period",
        "",
        "A body spun about its intermediate principal axis turns over and back. In principal axes",
        "`(a, b, c)` (`c` the axis the rate stays near, `b` the intermediate one), with the energy `2T`",
        "and the momentum `H`, the rates are elliptic functions of `u = lambda t` of parameter `m`, and",
        "repeat after",
        "",
        "```",
        "T_flip = 4 K(m) / lambda,   lambda = sqrt((I_c − I_b)(H^2 − 2T I_a) / (I_a I_b I_c)),",
        "                            m = (I_b − I_a)(2T I_c − H^2) / ((I_c − I_b)(H^2 − 2T I_a))",
        "```",
        "",
        "(Landau and Lifshitz, *Mechanics*, 3rd ed., section 37; `K` the complete elliptic integral of the",
        "first kind, here by the arithmetic-geometric mean, `K(m) = pi / (2 AGM(1, sqrt(1 − m)))`). The",
        "body turns over every half period. Measured: the scenario's main body flown by rk4 at",
        "dt = 1 ms for 2.2 periods, the period being twice the mean spacing of the zero crossings of the",
        "rate about the intermediate axis.",
        "",
        "| body | scenario | w0 (rad/s) | m | closed form (s) | measured (s) | relative difference |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in result.flips:
        out.append(f"| {f.body} | `{f.scenario}` | {', '.join(f'{w:g}' for w in f.rates)} | {f.m:.10f} | "
                   f"{f.closed_form:.9f} | {f.measured:.9f} | {_g(f.relative)} |")
    out += ["", "The Compare tab of those scenarios shows the same two numbers live."]
    return out
