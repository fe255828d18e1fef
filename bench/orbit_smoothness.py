"""What the orbit view shows a user, frame by frame: is the spacecraft's motion smooth when the view is redrawn
only once its picture moved by half a pixel (``app.view3d.orbit.REDRAW_PIXELS``) rather than every frame?

``python -m bench.orbit_smoothness [--only a,b] [--seconds S]`` (needs a display: ``xvfb-run -a -s "-screen 0
1600x1000x24" ...``).  Each scenario runs in a fresh window process (1280x800, its own speed) twice: as the window
draws it ("lazy": the rule above) and with ``REDRAW_PIXELS = 0`` ("eager": a new picture whenever the state
moved).  The orbit view keeps a copy of each frame it puts on screen (``GLWindow.keep_frames``); at every
display frame (the attitude view's ``frameSwapped``) the picture on screen is read and the spacecraft's body
axes are found by their colours (``app.view3d.layout.AXIS_COLORS``, drawn without antialiasing).  Against the
simulated time of that frame:

- *off a smooth path*: the rms and the largest distance (pixels) of the axes' centroid from a degree-5
  polynomial in simulated time fitted to the whole record: the stutter a user would see, pixel rounding
  included (a smooth motion drawn on whole pixels is off by up to about half a pixel);
- *frames changed*: the share of display frames whose picture of the axes differs from the previous one,
  and the largest step between two frames (pixels).

Lazy and eager at the same figures mean the rule costs a user nothing to see.  Results: docs/PERFORMANCE.md,
"The window's frame rates (issue 42, this stop)".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]

#: The recording child: argv = scenario, "lazy" or "eager", seconds.
CHILD = r"""
import json, sys, time
import numpy as np
import app.view3d.orbit as orbit
from app.view3d.layout import AXIS_COLORS
from app.window import application, open_window
from sim.core import jit
from sim.run.scenario import load
name, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
if mode == "eager":
    orbit.REDRAW_PIXELS = 0.0
app = application()
window = open_window(load(name), remember_geometry=False)
window.resize(1280, 800)
window.flight.set_pause_at_end(False, 0.0)
scene = window.orbit_view.scene
scene.keep_frames(True)
colors = np.round(np.asarray(AXIS_COLORS)[:, :3] * 255)
record, on = [], [False]

def frame():
    pixels = scene.kept_frame() if on[0] else None
    if pixels is None or window.loop.last is None:
        return
    x0 = y0 = 0
    if record:                                         # near the last place: a small crop, so frames stay cheap
        x0, y0 = max(int(record[-1][1]) - 60, 0), max(int(record[-1][2]) - 60, 0)
        pixels = pixels[y0:y0 + 121, x0:x0 + 121]
    rgb = pixels[..., :3].astype(np.int16)
    mask = np.zeros(rgb.shape[:2], dtype=bool)
    for c in colors:                                   # each axis's colour, within 12 levels a channel
        mask |= (np.abs(rgb - c) <= 12).all(axis=-1)
    ys, xs = np.nonzero(mask)
    if len(xs):
        record.append((window.loop.last.t, float(xs.mean()) + x0, float(ys.mean()) + y0, int(len(xs)),
                       hash(np.packbits(mask).tobytes()) + hash((int(xs.min()) + x0, int(ys.min()) + y0))))

window.viewer.frameSwapped.connect(frame)

def spin(until):
    while time.perf_counter() < until:
        app.processEvents()
        time.sleep(0.0005)

spin(time.perf_counter() + 3.0)
jit.wait_all()
spin(time.perf_counter() + 1.0)
on[0] = True
start = time.perf_counter()
spin(start + seconds)
print("RECORD " + json.dumps({"wall": time.perf_counter() - start, "frames": record}), flush=True)
"""


def record(name: str, mode: str, seconds: float) -> dict:
    """One recording of scenario ``name`` in ``mode`` ("lazy" or "eager") in a fresh window process."""
    env = dict(os.environ, PYTHONPATH=str(HERE))
    proc = subprocess.run([sys.executable, "-c", CHILD, name, mode, str(seconds)], capture_output=True, text=True,
                          env=env, cwd=str(HERE), timeout=seconds + 120)
    for line in proc.stdout.splitlines():
        if line.startswith("RECORD "):
            return json.loads(line[7:])
    raise RuntimeError(f"{name} {mode}: the window process failed (exit {proc.returncode}): {proc.stderr[-800:]}")


def smoothness(rec: dict) -> dict:
    """The figures of one recording (module docstring)."""
    a = np.asarray([r[:3] for r in rec["frames"]], dtype=float)
    signature = [r[4] for r in rec["frames"]]
    t, x, y = a[:, 0] - a[0, 0], a[:, 1], a[:, 2]
    scale = max(t[-1], 1e-9)
    off = np.hypot(*(c - np.polyval(np.polyfit(t / scale, c, 5), t / scale) for c in (x, y)))
    steps = np.hypot(np.diff(x), np.diff(y))
    changed = sum(1 for p, q, s in zip(signature, signature[1:], steps) if p != q or s > 0.0)
    return {"fps": len(t) / rec["wall"], "sim": t[-1], "moved": float(np.hypot(x[-1] - x[0], y[-1] - y[0])),
            "rms": float(np.sqrt(np.mean(off ** 2))), "max": float(off.max()),
            "changed": changed / max(len(t) - 1, 1), "step": float(steps.max()) if len(steps) else 0.0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.orbit_smoothness", description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="sun_pointing,target_tracking,detumble_sweep",
                        help="comma-separated scenario names (default: sun_pointing,target_tracking,detumble_sweep)")
    parser.add_argument("--seconds", type=float, default=8.0, help="wall seconds recorded per run (8)")
    args = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        print("python -m bench.orbit_smoothness: needs a display (xvfb-run)", file=sys.stderr)
        return 2
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print("| scenario | redraw | display fps | simulated s | moved px | off a smooth path, rms / max px "
          "| frames changed | largest step px |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.only.split(","):
        for mode in ("lazy", "eager"):
            s = smoothness(record(name, mode, args.seconds))
            print(f"| `{name}` | {mode} | {s['fps']:.0f} | {s['sim']:.0f} | {s['moved']:.1f} | {s['rms']:.2f} / "
                  f"{s['max']:.2f} | {100 * s['changed']:.0f} % | {s['step']:.2f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
