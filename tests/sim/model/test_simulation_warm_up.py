"""A rigid body's steps counted by the one warm-up rule (:meth:`sim.core.jit.Kernel.wanted`).

While the compiled advance (:func:`sim.core.advance.advance`) is not loaded, every step a :class:`Simulation`
takes in Python counts towards its ``warm_after``: ``n`` steps asked, ``n`` counted, so the kernel loads after the
number of steps the rule names and no sooner or later.  The rule is read as with the JIT on (``DISABLED`` off) on a
fresh kernel whose ``warm_after`` is never reached, so nothing is compiled.
"""

import numpy as np

from sim.core import advance as compiled
from sim.core import jit
from sim.model.simulation import Simulation


def test_python_steps_of_a_rigid_body_count_towards_the_kernels_warm_up(monkeypatch):
    fresh = jit.Kernel(compiled.advance.py_func).warms(compiled.advance.sample, 10**9)
    monkeypatch.setattr(jit, "DISABLED", False)
    monkeypatch.setattr(compiled, "advance", fresh)
    sim = Simulation(rates=(0.1, -0.2, 0.3), dt=0.01)
    sim.step(3)
    sim.step(4)
    assert fresh.python_steps == 7 and not fresh.ready and not fresh.loading
    assert np.isclose(sim.snapshot().t, 0.07)
