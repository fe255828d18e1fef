"""A slider tick's cost on each side: the GUI thread (slider to the runner's queue) and the simulation thread
(the queued input applied at the step boundary).

The torque slider of the control panel (:class:`app.controls.ControlPanel`) wired, as the window wires it, to
a :class:`app.worker.SimulationWorker` whose thread is not started, so the two sides are timed apart:

* GUI thread: ``slider.set_value`` (what a drag does) until the input is in the runner's queue;
* simulation thread: the runner applying that queued input before the next step
  (``Runner._apply_inputs``), for the default scenario (the aircraft alone) and for one with two
  comparison bodies (``tennis_racket``), with and without a 1,000-body ensemble in the same thread.

CPU time of this process, medians over many ticks (issue 29: "a slider tick's cost on each side is measured
before and after").  ``python -m bench.controls`` prints the rows; no display is needed (Qt offscreen).
"""

from __future__ import annotations

import os
import statistics
import time

_clock = time.perf_counter


def _panel(worker):
    """The control panel wired to ``worker`` as the window wires it (its wheels check aside)."""
    from app.controls import ControlPanel
    from app.worker import SPEED_RANGE
    try:
        return ControlPanel(worker.send, SPEED_RANGE)
    except (TypeError, AttributeError):  # the code before issue 29: two callables into the worker
        return ControlPanel(lambda k, v: worker.submit_all(((k, v),)), SPEED_RANGE, submit_all=worker.submit_all)


def _drain(runner):
    while not runner._inbox.empty():
        runner._inbox.get_nowait()


def slider_tick(scenario: str = "default", ticks: int = 400, ensemble: int = 0) -> tuple:
    """``(gui_us, sim_us)``: median microseconds of one torque-slider tick on each side."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.worker import SimulationWorker
    from sim.ensemble import EnsembleSpec
    from sim.run.runner import ENSEMBLE, Runner
    from sim.run.scenario import load

    QApplication.instance() or QApplication([])
    runner = Runner(load(scenario))
    if ensemble:
        runner.submit(ENSEMBLE, EnsembleSpec(bodies=ensemble, seed=1))
        runner.advance(1)
    worker = SimulationWorker(runner)  # not started: this thread plays both sides
    panel = _panel(worker)
    panel.show_settings(runner.sim.settings, fresh=True)
    slider = panel.torque.sliders[0]
    gui, sim = [], []
    for i in range(ticks):
        value = (i % 50 + 1) * 0.1 * (1 if i % 2 else -1)
        start = _clock()
        slider.set_value(value)
        middle = _clock()
        runner._apply_inputs([])
        end = _clock()
        gui.append(middle - start)
        sim.append(end - middle)
        if i % 20 == 0:
            runner.advance(1)  # the model catches up now and then, as the thread would
            panel.show_settings(runner.sim.settings)
    _drain(runner)
    return statistics.median(gui) * 1e6, statistics.median(sim) * 1e6


def rows(quick: bool = False) -> list:
    """``(what, measured, budget, ok, note)`` rows for the report."""
    ticks = 100 if quick else 400
    out = []
    for scenario, ensemble, label in (("default", 0, "aircraft"), ("tennis_racket", 0, "3 bodies"),
                                      ("default", 1000, "aircraft + 1,000-body ensemble in the thread")):
        gui, sim = slider_tick(scenario, ticks, ensemble)
        out.append((f"slider tick, GUI thread ({label})", f"{gui:.0f} us", "", None, ""))
        out.append((f"slider tick, simulation thread ({label})", f"{sim:.0f} us", "", None, ""))
    return out


def main() -> None:
    for what, measured, *_ in rows():
        print(f"{what:70s} {measured}")


if __name__ == "__main__":
    main()
