"""Every built-in scenario in the window at its own speed: real-time factor and frames per second of each view
(issues 42 and 45: "every built-in scenario at its own speed at 58 fps or more").

``python -m bench.gui_scenarios [--before DIR] [--seconds S] [--only a,b] [--profile]`` (needs a display:
``xvfb-run -a -s "-screen 0 1600x1000x24" ...`` or ``DISPLAY=:N`` of a running Xvfb).  Each scenario is opened
in a fresh process (:data:`CHILD`) at 1280x800, at the speed its file sets (1x when it sets none), its pause
at the end switched off, and measured for ``--seconds`` of wall time after a 3 s warm-up and after every kernel the run
started loading is loaded (a kernel compiled in the background holds the interpreter lock):

- the real-time factor (simulated seconds over wall seconds) beside the speed asked;
- frames per second of the 3D attitude view (counted at its ``frameSwapped``), and repaints per second of the
  plot tab in view (paint events of its graphics view's viewport); the frame timer's ticks a second and those of
  them that gave the 3D view nothing new to draw ("still": the bodies not turned, no new state and the display
  time at the latest; a frame lost whatever the machine's speed);
- the frame timer's ticks lost a second (an interval between two ticks of about ``k`` timer intervals lost
  ``k - 1``: Qt's precise timer catches a late tick up when it is late by less than an interval and drops it
  when later), beside the ticks a second whose cycle (tick to tick) took the GUI thread more CPU than the
  interval, a stretch of the window's own making whatever the load ("lost (own)"); the intervals' histogram
  (``gaps``, ms: under 17, 17-24, 24-32, 32-48, over 48) and the longest are printed with each run, and how the
  GUI thread spent the intervals that lost a tick (1.5 intervals or longer; its ``/proc`` schedstat): running,
  waiting for a core, or neither (blocked: on llvmpipe's rasteriser threads, an X round trip, the interpreter
  lock; or idle);
- frames per second of the orbit view ("—" where the scenario has no orbit view), counted as the frames
  *presented* on time: the display frames (the attitude view's) less those in which the orbit view was late.
  The orbit view draws a new picture only when it would move by half a pixel or more
  (``app.view3d.orbit.REDRAW_PIXELS``; the view is drawn without antialiasing, so a smaller move shows
  nothing), so its count of swaps is how often its picture changed (1 a second at 1x), not what a user
  sees.  A picture is due when ``OrbitView.show_snapshot`` moved the spacecraft (``craft_position``); a
  due picture is late when it was not swapped before the next one was due (due pictures minus the orbit
  view's swaps, at least 0).  A view too slow to draw each due picture on time loses one frame for each
  picture it merged.  The orbit view's own swaps a second are given beside (``orbit_drawn``).  What a
  user sees is the same as with a redraw at every frame: ``python -m bench.orbit_smoothness`` records
  both (docs/PERFORMANCE.md, "The window's frame rates (issue 42, this stop)");
- the CPU of the GUI thread and of the simulation thread (cores, from ``/proc/self/task``): what the frames
  cost beside what the stepping takes, since the two share the interpreter lock; and the GUI thread's CPU a
  cycle of the frame timer (tick to tick: the frame's slot, the views' paints and Qt's own work), median, p90
  and p99, printed with each run: what a frame costs, far less sensitive to the machine's load than the frame
  rate.

With ``--before DIR`` (an exported older tree: ``git archive REV | tar -x -C DIR``) each scenario runs in the
old tree and in this one in turn, interleaved, so both see the same load.  A DIR holding only ``app/`` (the
window's code of REV) runs on the sim of ``$PYTHONPATH``: the same kernels, loaded from the disk cache.  ``--profile`` prints the GUI
thread's cProfile (top by own time) for each run.  The child uses only what both trees have
(``open_window``, ``Flight.set_pause_at_end``, the views' ``frameSwapped``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

#: The measuring child: argv = scenario, seconds, warm-up seconds, "profile" or "", speed or "" (the
#: scenario's own), a dict of changes to its settings (Python literal).
CHILD = r"""
import cProfile, io, json, os, pstats, sys, threading, time
from PySide6.QtCore import QEvent, QObject
from app.window import application, open_window
from sim.run.scenario import load

import ast, dataclasses
GAP_BINS = (0, 17, 24, 32, 48, 1e9)   # ms: the histogram of the intervals between frame-timer ticks
name, seconds, warm, profile = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "profile"
speed, changes = (float(sys.argv[5]) if sys.argv[5] else None), ast.literal_eval(sys.argv[6])
app = application()
scenario = load(name)
if changes:
    scenario = dataclasses.replace(scenario, settings=scenario.settings.replace(**changes))
window = open_window(scenario, remember_geometry=False, speed=speed)   # None: the scenario's own speed
window.resize(1280, 800)
window.flight.set_pause_at_end(False, 0.0)                  # run on past the scenario's end
counts = {"attitude": 0, "orbit": 0, "plots": 0, "due": 0, "ticks": 0, "still": 0}
window.viewer.frameSwapped.connect(lambda: counts.__setitem__("attitude", counts["attitude"] + 1))
turned = [None]

cycles = []   # (wall, GUI thread CPU, its schedstat: ns run, ns waiting for a core) at each tick

def tick():   # after the frame loop's own slot: did this tick turn the bodies (give the 3D view a new picture)?
    counts["ticks"] += 1
    now = getattr(window.frames, "_turned", None)
    counts["still"] += now == turned[0]
    turned[0] = now
    with open("/proc/thread-self/schedstat") as f:
        ran, waited = f.read().split()[:2]
    cycles.append((time.perf_counter(), time.thread_time(), int(ran), int(waited)))

window.loop.timer.timeout.connect(tick)
window.orbit_view.frameSwapped.connect(lambda: counts.__setitem__("orbit", counts["orbit"] + 1))
show_snapshot = window.orbit_view.show_snapshot

def counted_snapshot(snapshot):   # a due picture: the orbit view moved the spacecraft
    before = window.orbit_view.scene.craft_position()
    show_snapshot(snapshot)
    if (window.orbit_view.scene.craft_position() != before).any():
        counts["due"] += 1

window.orbit_view.show_snapshot = counted_snapshot

class Paints(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            counts["plots"] += 1
        return False

paints = Paints()
watched = None

def watch_plots():
    global watched
    from pyqtgraph import GraphicsView
    shown = window.plot_tabs.currentWidget()
    views = shown.findChildren(GraphicsView) if shown is not None else []
    view = views[0].viewport() if views else None
    if view is not watched:
        if watched is not None:
            watched.removeEventFilter(paints)
        if view is not None:
            view.installEventFilter(paints)
        watched = view

def stat(tid):
    with open(f"/proc/self/task/{tid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def spin(until):
    while time.perf_counter() < until:
        app.processEvents()
        time.sleep(0.0005)

spin(time.perf_counter() + warm)
from sim.core import jit
if jit.wait_all() > 0.05:        # the kernels the run started loading (compiling once, from a fresh cache)
    spin(time.perf_counter() + 1.0)
watch_plots()
worker = window.worker
gui, sim_thread = threading.main_thread().native_id, worker.thread.native_id
counts.update(attitude=0, orbit=0, plots=0, due=0, ticks=0, still=0)
cycles.clear()
profiler = cProfile.Profile() if profile else None
def others():
    return sum(stat(t) for t in os.listdir("/proc/self/task") if int(t) not in (gui, sim_thread))
sim0, wall0, gui0, step0, other0 = worker.sim_seconds, time.perf_counter(), stat(gui), stat(sim_thread), others()
if profiler:
    profiler.enable()
spin(wall0 + seconds)
if profiler:
    profiler.disable()
wall = time.perf_counter() - wall0
row = {"scenario": name, "speed": worker.speed, "factor": (worker.sim_seconds - sim0) / wall,
       "attitude": counts["attitude"] / wall, "ticks": counts["ticks"] / wall, "still": counts["still"] / wall,
       "orbit": (max(counts["attitude"] - max(counts["due"] - counts["orbit"], 0), 0) / wall
                 if window.orbit_view.isVisible() else None),
       "orbit_drawn": counts["orbit"] / wall if window.orbit_view.isVisible() else None,
       "plots": counts["plots"] / wall, "tab": window.plot_tabs.tabText(window.plot_tabs.currentIndex()),
       "gui_cpu": (stat(gui) - gui0) / wall, "sim_cpu": (stat(sim_thread) - step0) / wall,
       "other_cpu": (others() - other0) / wall,
       "fault": str(worker.fault) if worker.fault is not None else ""}
interval = window.loop.timer.interval() / 1e3
gaps = [b[0] - a[0] for a, b in zip(cycles, cycles[1:])]
work = [b[1] - a[1] for a, b in zip(cycles, cycles[1:])]
long = [(a, b) for a, b in zip(cycles, cycles[1:]) if b[0] - a[0] >= 1.5 * interval]   # the intervals that lost a tick
long_wall = sum(b[0] - a[0] for a, b in long)
row.update(interval_ms=1e3 * interval, lost=sum(max(round(g / interval) - 1, 0) for g in gaps) / wall,
           over=sum(w > interval for w in work) / wall, gap_max=1e3 * max(gaps, default=0.0),
           cycle_cpu=[1e3 * q for q in (sorted(work)[int(f * (len(work) - 1))] for f in (0.5, 0.9, 0.99))] if work else [],
           gaps=[sum(lo <= 1e3 * g < hi for g in gaps) for lo, hi in zip(GAP_BINS, GAP_BINS[1:])],
           long_split=[sum(b[2] - a[2] for a, b in long) / 1e9 / long_wall if long else 0.0,    # GUI thread running
                       sum(b[3] - a[3] for a, b in long) / 1e9 / long_wall if long else 0.0])   # waiting for a core
print("ROW " + json.dumps(row), flush=True)
if profiler:
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("BENCH_SORT", "tottime")).print_stats(int(os.environ.get("BENCH_TOP", "25")))
    print(out.getvalue(), flush=True)
window.close()
app.processEvents()
"""


def builtin() -> list[str]:
    """The built-in scenarios' names, in order."""
    sys.path.insert(0, str(HERE))
    from sim.run.scenario import builtin_names
    return builtin_names()


def measure(tree: Path, name: str, seconds: float, warm: float = 3.0, profile: bool = False,
            speed: float | None = None, changes: dict | None = None) -> dict:
    """One scenario in the window of ``tree`` (a fresh process): the row printed by :data:`CHILD`; ``speed``
    instead of the scenario's own, ``changes`` to its settings."""
    # a tree without sim/ (only the old app/) runs on this process's sim: numba's disk cache holds a kernel
    # per source file's path, so an old tree with a sim/ of its own would compile every kernel again
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH")) if p))
    for _ in range(2):  # a second try if the child died (a GL crash under load, issue #13)
        proc = subprocess.run([sys.executable, "-c", CHILD, name, str(seconds), str(warm),
                               "profile" if profile else "", "" if speed is None else repr(float(speed)),
                               repr(changes or {})], capture_output=True, text=True, env=env,
                              cwd=str(tree), timeout=seconds + warm + 120)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("ROW ")]
        if lines:
            row = json.loads(lines[0][4:])
            if profile:
                row["profile"] = proc.stdout.split(lines[0], 1)[1]
            return row
    raise RuntimeError(f"{name}: the window process failed (exit {proc.returncode}): {proc.stderr[-800:]}")


def _fps(value) -> str:
    return "—" if value is None else f"{value:.0f}"


def _per_frame(r: dict) -> str:
    """The GUI thread's CPU per frame of the attitude view, ms: what a frame costs whatever the machine's load."""
    return f"{1e3 * r['gui_cpu'] / r['attitude']:.1f} ms" if r["attitude"] else "—"


def _orbit(r: dict) -> str:
    """The orbit view's frames presented a second, and in brackets its own redraws a second."""
    return "—" if r["orbit"] is None else f"{r['orbit']:.0f} ({r['orbit_drawn']:.0f})"


def _ticks(r: dict) -> str:
    """The frame timer's ticks a second, and in brackets those that gave the 3D view nothing new to draw."""
    return f"{r['ticks']:.0f} ({r['still']:.1f})"


def _lost(r: dict) -> str:
    """The frame timer's ticks lost a second, and in brackets the cycles a second that took the GUI thread more
    CPU than the timer's interval (an old row without them: "—")."""
    return f"{r['lost']:.1f} ({r['over']:.1f})" if "lost" in r else "—"


def _gaps(r: dict) -> str:
    """The intervals between ticks: the histogram (ms bins) and the longest."""
    if "gaps" not in r:
        return ""
    counts = "/".join(str(n) for n in r["gaps"])
    split = ""
    if "long_split" in r:
        ran, waited = r["long_split"]
        split = (f"; in the intervals that lost a tick the GUI thread ran {100 * ran:.0f} %, waited for a core "
                 f"{100 * waited:.0f} %, neither {100 * (1 - ran - waited):.0f} %")
    cpu = ""
    if r.get("cycle_cpu"):
        cpu = ", GUI thread CPU a cycle (tick to tick) median/p90/p99 " + "/".join(f"{x:.1f}" for x in r["cycle_cpu"]) + " ms"
    return (f"{cpu}, tick intervals <17/17-24/24-32/32-48/>48 ms {counts}, longest {r['gap_max']:.0f} ms, the timer's "
            f"interval at the end {r['interval_ms']:.0f} ms{split}")


def table(rows: list[tuple[str, dict]]) -> str:
    """Markdown: one line per (tree, scenario) run."""
    lines = ["| scenario | tree | speed | real-time factor | attitude view fps | orbit view fps presented (drawn) "
             "| plots repaints/s (tab) | GUI thread, core | simulation thread, core | GUI thread CPU a frame "
             "| timer ticks/s (still) | ticks lost/s (GUI CPU over the interval) | |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for tree, r in rows:
        ok = r["attitude"] >= 58 and (r["orbit"] is None or r["orbit"] >= 58) and r["factor"] >= 0.99 * r["speed"]
        lines.append(f"| `{r['scenario']}` | {tree} | {r['speed']:g}x | {r['factor']:.4g}x | {_fps(r['attitude'])} "
                     f"| {_orbit(r)} | {r['plots']:.0f} ({r['tab']}) | {r['gui_cpu']:.2f} | {r['sim_cpu']:.2f} "
                     f"| {_per_frame(r)} | {_ticks(r)} | {_lost(r)} "
                     f"| {'pass' if ok else '**miss**'}{' fault: ' + r['fault'] if r['fault'] else ''} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gui_scenarios", description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="an exported older tree, measured interleaved with this one")
    parser.add_argument("--seconds", type=float, default=8.0, help="wall seconds measured per scenario (8)")
    parser.add_argument("--only", help="comma-separated scenario names (default: every built-in scenario)")
    parser.add_argument("--profile", action="store_true", help="print the GUI thread's profile of each run")
    parser.add_argument("--speed", type=float, help="this speed instead of each scenario's own")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a change to the settings (VALUE a Python literal), e.g. --set magnetic_field='igrf'")
    args = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        print("python -m bench.gui_scenarios: needs a display (xvfb-run)", file=sys.stderr)
        return 2
    names = args.only.split(",") if args.only else builtin()
    changes = {key: ast.literal_eval(value) for key, value in (item.split("=", 1) for item in args.set)}
    trees = ([("old", args.before.resolve())] if args.before else []) + [("new", HERE)]
    rows = []
    for name in names:
        for label, tree in trees:
            row = measure(tree, name, args.seconds, profile=args.profile, speed=args.speed, changes=changes)
            rows.append((label, row))
            print(f"{label} {name}: {row['factor']:.4g}x of {row['speed']:g}x, attitude {_fps(row['attitude'])} "
                  f"fps, orbit {_orbit(row)} fps, plots {row['plots']:.0f}/s, GUI {row['gui_cpu']:.2f} "
                  f"core ({_per_frame(row)} a frame), simulation {row['sim_cpu']:.2f} core, other threads "
                  f"{row['other_cpu']:.2f} core, timer {_ticks(row)} ticks/s (still), lost {_lost(row)}"
                  f"{_gaps(row)}", flush=True)
            if args.profile:
                print(row["profile"], flush=True)
    print()
    print(table(rows))
    misses = sorted({r["scenario"] for label, r in rows if label == "new" and not (
        r["attitude"] >= 58 and (r["orbit"] is None or r["orbit"] >= 58) and r["factor"] >= 0.99 * r["speed"])})
    print(f"\nmisses (new): {', '.join(misses) if misses else 'none'}")
    if len(rows) > 1:
        new = [r["attitude"] for label, r in rows if label == "new"]
        print(f"median attitude view fps (new): {statistics.median(new):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
