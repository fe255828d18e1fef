"""Issue 41: one slider value's walk from the widget to the step, traced in the running window.

The walk is the chain of calls that carries the value: in the GUI thread, the stack when the value reaches the
runner (Runner.send, which queues it); in the simulation thread, the stack when it is written where the step
reads it (Stepper._control writes TorqueModel.command), from the runner that takes it off its queue. Each module
of app/ and sim/ on those stacks is one hop (a module calling itself is one). docs/ARCHITECTURE.md, "One slider
value", draws the same walk: at most 8 hops, and no module entered twice.
"""

from __future__ import annotations

import os
import threading
import traceback

import pytest

import sim.model.stepping
import sim.run.runner

pytestmark = pytest.mark.gl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(sim.__file__)))


def _hops(stack) -> list:
    """The modules of app/ and sim/ on ``stack``, outermost first, a run of one module counted once."""
    out = []
    for frame in stack:
        path = os.path.relpath(os.path.abspath(frame.filename), ROOT)
        if path.split(os.sep)[0] in ("app", "sim") and (not out or out[-1] != path):
            out.append(path)
    return out


def test_a_torque_slider_value_walks_at_most_8_hops_and_enters_no_module_twice(main_window, qtbot, monkeypatch):
    win = main_window("default")
    stacks = {}
    send, control = sim.run.runner.Runner.send, sim.model.stepping.Stepper._control

    def traced_send(self, entry):
        if threading.current_thread() is threading.main_thread():
            stacks.setdefault("gui", traceback.extract_stack()[:-1])
        return send(self, entry)

    def traced_control(self, key, value):
        if key == "torque" and value[0] != 0.0:
            stacks.setdefault("sim", traceback.extract_stack()[:-1])
        return control(self, key, value)

    monkeypatch.setattr(sim.run.runner.Runner, "send", traced_send)
    monkeypatch.setattr(sim.model.stepping.Stepper, "_control", traced_control)
    win.controls.torque.sliders[0].set_value(1.0)   # Tx, as the user moves it
    qtbot.waitUntil(lambda: "sim" in stacks and win.worker.settings.torque[0] == 1.0)
    gui, taken = _hops(stacks["gui"]), _hops(stacks["sim"])
    assert gui == ["app/controls/widgets.py", "app/controls/torque.py", "app/controls/panel.py",
                   "app/window/main.py", "app/worker.py"]
    # the simulation thread: the worker's loop steps the runner, which takes the value off its queue
    assert taken[-2:] == ["sim/run/runner.py", "sim/model/stepping.py"]
    walk = [*gui, *taken[-2:], "sim/core/control.py"]   # TorqueModel.command, read by the step's torque law
    assert len(walk) <= 8 and len(set(walk)) == len(walk), walk
