"""``attitude-sim video``: seconds of video rendered per second of wall time, and where the time goes.

Budget (issue 23): at 1280x720 and 30 fps, at least 1x for the 3D view and
0.5x for the whole window on this 2-core software-OpenGL machine.  Each
figure is the median of runs in fresh processes, each rendering the
gimbal-lock demo (the aircraft, its Euler-controller ghost and the gimbal
rig turning) with :func:`app.window.render.render_video`; the wall time
includes opening the window and finishing the file.  The child also
reports where the time went: stepping the simulation, the window's frame
(plots, readouts), taking the picture (for the view: drawing the scene,
then reading it back, timed apart on the same scene afterwards), putting it
to the encoder (waiting when ffmpeg is behind), and ffmpeg's own CPU time
(it runs in its own process, beside the drawing).

Run through ``make bench`` (which provides the virtual screen), or alone:
``python -m bench --only video``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

_CHILD = """
import json, resource, sys, time
from dataclasses import replace
from OpenGL import GL
from app.window.render import render_video
from app.window.launch import application
from sim.run.scenario import load

what, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
application()
spent = {}
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
result = render_video(replace(load("gimbal_lock"), duration=seconds), out, what=what, timings=spent)
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
spent["ffmpeg_cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
print(json.dumps({"wall": wall, "frames": result.frames, "seconds": result.seconds, "bytes": result.bytes,
                  "spent": spent}))
"""

# Drawing the view's scene at 1280x720 apart from reading it back: render_rgba's two halves.
_SPLIT_CHILD = """
import json, time
import numpy as np
from OpenGL import GL
from PySide6.QtOpenGL import QOpenGLFramebufferObject
from app.window.launch import application
from app.window.main import MainWindow
from sim.run.scenario import load

application()
window = MainWindow(load("gimbal_lock"), remember_geometry=False, paced=False)
window.show()
scene = window.viewer.scene
scene.ensure_context()
w, h = 1280, 720
fbo = QOpenGLFramebufferObject(w, h, QOpenGLFramebufferObject.Attachment.CombinedDepthStencil)
fbo.bind()
GL.glViewport(0, 0, w, h)
pixels = np.empty((h, w, 4), np.uint8)
draw = read = image = 0.0
n = 40
for k in range(n):
    window.flight.worker.advance_to(k / 30)
    window.show_frame()
    scene.makeCurrent()
    fbo.bind()
    t0 = time.perf_counter()
    scene.paint(region=(0, 0, w, h), viewport=(0, 0, w, h))
    GL.glFinish()
    t1 = time.perf_counter()
    GL.glReadPixels(0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels)
    t2 = time.perf_counter()
    fbo.toImage()
    t3 = time.perf_counter()
    draw, read, image = draw + t1 - t0, read + t2 - t1, image + t3 - t2
fbo.release()
print(json.dumps({"draw": draw / n, "read": read / n, "to_image": image / n}))
window.close()
"""


def _child(code: str, *argv) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "xcb"))
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=900, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"bench child failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(what: str, seconds: float, runs: int) -> dict:
    """``runs`` renders of ``seconds`` of the gimbal-lock demo as ``what``; the median run and every factor."""
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(runs):
            results.append(_child(_CHILD, what, str(seconds), os.path.join(folder, f"{what}{i}.mp4")))
    for r in results:
        r["factor"] = r["seconds"] / r["wall"]
    median = sorted(results, key=lambda r: r["factor"])[len(results) // 2]
    median["factors"] = [r["factor"] for r in results]
    return median


def _ms(spent: dict, key: str, frames: int) -> str:
    return f"{1000 * spent.get(key, 0.0) / frames:.1f}"


def run(quick: bool = False) -> list[dict]:
    seconds, runs = (5.0, 1) if quick else (20.0, 3)
    split = _child(_SPLIT_CHILD)
    rows = []
    for what, budget in (("view", 1.0), ("window", 0.5)):
        m = measure(what, seconds, runs)
        spent, frames = m["spent"], m["frames"]
        picture = (f"picture {_ms(spent, 'grab', frames)} (the scene drawn {1000 * split['draw']:.1f}, read back "
                   f"{1000 * split['read']:.2f}; toImage would take {1000 * split['to_image']:.2f})"
                   if what == "view" else f"picture {_ms(spent, 'grab', frames)} (widgets and the views drawn)")
        rows.append({
            "what": f"video of the {what}, 1280x720, 30 fps (gimbal-lock demo, {seconds:g} s): video s per wall s",
            "figure": f"{m['factor']:.2f}x", "budget": f">= {budget:g}x", "ok": m["factor"] >= budget,
            "note": (f"runs {', '.join(f'{f:.2f}' for f in m['factors'])}; {m['wall']:.1f} s wall for {frames} "
                     f"frames, window opening and file finishing included; ms a frame: step "
                     f"{_ms(spent, 'step', frames)}, the window's frame {_ms(spent, 'frame', frames)}, {picture}, "
                     f"waiting for the encoder {_ms(spent, 'encode', frames)}; ffmpeg's own CPU "
                     f"{_ms(spent, 'ffmpeg_cpu', frames)} in its process; {m['bytes'] / 1e6:.1f} MB"),
        })
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
