"""The thrusters fired inside the compiled spacecraft step (issue 45), bit for bit against the Python step.

:func:`sim.model.advance_craft.advance_craft` runs the drive's step (:func:`sim.model.thruster_drive.drive_step`:
the dead band, or the Schmitt trigger or PWPF at each control period, the firings, the on-times) at the start
of each step and adds the held torque to the external torque, in :meth:`sim.model.loads.LoadModel.external`'s
order; ``Simulation._step_python`` is the step of before (:meth:`ThrusterDrive.step` from Python, then the
integrator).  Both run the same text, so the state, the rows (levels, force, fuel) and the drive's own state
(its step count, the modulators' outputs and filters, the pulses left, the on-times) must agree to the bit,
on the three thruster scenarios, under every integrator the kernel holds, with a world, through a change of
the thrusters' settings mid-run and up to a fault.
"""

import math

import numpy as np
import pytest

from sim.core import advance as plain
from sim.model import advance_craft as craft
from sim.model import thruster_drive
from sim.model.simulation import Simulation, SimulationFault
from sim.run.scenario import load

#: A body the thrusters fly through PWPF (no wheels): slewing 40 deg about a skew axis.
PWPF = dict(thrusters="cube", thruster_modulation="pwpf", thruster_period=0.05, controller="quaternion",
            dampers_on=True, command_deg=(40.0, -20.0, 30.0), slerp_time=0.0, dt=0.01,
            inertia=(1.2, 1.7, 2.1, 0.15, -0.25, 0.1), thruster_force=0.2)


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    plain.advance.wait()  # the kernels now; else a process loads them only after their WARM_AFTER steps
    craft.advance_craft.wait()
    thruster_drive.load()


@pytest.fixture
def calls(monkeypatch):
    """The kernel's calls and the steps they took (each test asserts the kernel flew the body it compares)."""
    seen = []
    kernel = craft.advance_craft
    assert craft.advance_craft.ready  # (asked before the kernel is wrapped: it reads the kernel's own state)

    def counted(*args):
        result = kernel(*args)
        seen.append(result[1])  # (status, steps, ...)
        return result

    counted.wanted = kernel.wanted  # the warm-up rule, asked by the Simulation before it calls
    counted.ready = False  # Simulation.row by the formula's Python text: these calls are the steps'
    monkeypatch.setattr(craft, "advance_craft", counted)
    return seen


def _bits(values):
    return np.asarray(values, dtype=float).view(np.uint64)


def _same(a, b):
    """The same state, rows and drive to the bit."""
    assert np.array_equal(_bits((*a.q, *a._w, a._correction, a.t)), _bits((*b.q, *b._w, b._correction, b.t)))
    assert np.array_equal(_bits(a.row()), _bits(b.row()))
    assert np.array_equal(_bits(a._thr.x), _bits(b._thr.x))


def _pair(settings=None, **changes):
    a, b = Simulation(settings, **changes), Simulation(settings, **changes)
    assert a._packed() is None and a._craft_packed() is not None, "these settings should step as a craft"
    return a, b


@pytest.mark.parametrize("name, steps", [("thruster_limit_cycle", 3000), ("pwpf_slew", 2000),
                                         ("thruster_unloading", 800)])
def test_the_scenarios_bit_for_bit(calls, name, steps):
    a, b = _pair(load(name).settings)
    for chunk in (1, 17, 50, steps - 68):  # one step, a few, the rest: the drive goes out and back in
        a.step(chunk)
        b._step_python(chunk)
        _same(a, b)
    assert sum(calls) == steps and max(calls) > 1  # many steps in one call: the firings inside the kernel
    fuel = a.columns().index("fuel_kg")
    assert a.row()[fuel] > 0.0  # the thrusters fired


@pytest.mark.parametrize("integrator", ["half-quat", "rk4", "rkmk4", "full-quat"])
def test_every_integrator_bit_for_bit(calls, integrator):
    a, b = _pair(integrator=integrator, **PWPF)
    a.step(600)
    b._step_python(600)
    _same(a, b)
    assert sum(calls) == 600
    assert a.row()[a.columns().index("fuel_kg")] > 0.0


def test_with_a_world_and_other_torques_bit_for_bit(calls):
    """A Kepler orbit (the loop makes each step's world: many steps a call), the gravity gradient and a disturbance summed
    before the thrusters' torque, in LoadModel.external's order; reaction wheels unloaded by Schmitt firings."""
    s = load("thruster_unloading").settings.replace(orbit=(600.0, 0.01, 60.0, 10.0, 20.0, 30.0),
                                                    gravity_gradient=True, disturbance=(2e-3, -1e-3, 5e-4),
                                                    disturbance_period=70.0)
    a, b = _pair(s)
    a.step(400)
    b._step_python(400)
    _same(a, b)
    assert sum(calls) == 400 and max(calls) > 1
    assert a.row()[a.columns().index("fuel_kg")] > 0.0


def test_a_change_of_the_thrusters_mid_run_bit_for_bit(calls):
    """A new control period and modulation mid-run: a new drive carrying on the fuel (drive_for)."""
    a, b = _pair(load("pwpf_slew").settings)
    for sim, step in ((a, a.step), (b, b._step_python)):
        step(300)
        sim.update({"thruster_period": 0.03, "thruster_modulation": "schmitt", "command_deg": (-30.0, 10.0, 0.0)})
        step(300)
        sim.set("thruster_modulation", "deadband")
        step(300)
    _same(a, b)
    assert sum(calls) == 900


def _fault(sim, n, python):
    with pytest.raises(SimulationFault) as exc:
        sim._step_python(n) if python else sim.step(n)
    return str(exc.value)


@pytest.mark.parametrize("modulation, period", [("pwpf", 0.01), ("pwpf", 0.03), ("schmitt", 0.07),
                                                ("deadband", 0.05)])
def test_a_fault_leaves_the_drive_as_python_does(calls, modulation, period):
    """The kernel stops at the last good step with the drive as it was before the faulting step began: Python
    takes that step again (and raises), so the drive steps it once, as Python's alone does; whether the
    faulting step fired (every step with a period of one step) or only counted itself."""
    s = dict(PWPF, norm="none", rates=(3.0, 2.0, 1.0), thruster_period=period, thruster_force=5.0,
             thruster_modulation=modulation, command_deg=(170.0, 60.0, -120.0))
    a, b = _pair(**s)
    assert _fault(a, 20_000, python=False) == _fault(b, 20_000, python=True)
    assert 0 < sum(calls) < 20_000
    assert all(math.isfinite(x) for x in (*a.q, *a._w))
    _same(a, b)
    assert a._thr.x[0] == a.steps + 1  # the faulting step's start fired once


@pytest.mark.parametrize("name, steps", [("thruster_limit_cycle", 2500), ("pwpf_slew", 1500),
                                         ("thruster_unloading", 600)])
def test_the_python_step_runs_the_drive_compiled_and_as_python_alike(monkeypatch, name, steps):
    """Where the spacecraft kernel does not step the body (here: told not to), the Python step runs the drive's
    step as Python for the process's first WARM_STEPS thruster steps, then compiled (drive_kernel): one text,
    the same rows, without a seam."""
    monkeypatch.setattr(craft, "covers", lambda s: False)
    settings = load(name).settings

    def rows():
        sim = Simulation(settings)
        assert sim._craft_packed() is None
        out = []
        for _ in range(steps // 50):
            sim.step(50)
            out.append(sim.row())
        return np.array(out)

    assert thruster_drive.drive_kernel.ready  # loaded by the module's fixture, as after WARM_STEPS steps
    compiled = rows()
    asked = []
    monkeypatch.setattr(thruster_drive, "_compiled", lambda: asked.append(1) and False)  # Python, as before it
    python = rows()
    assert asked and steps < thruster_drive.WARM_STEPS
    assert np.array_equal(_bits(compiled), _bits(python))
    assert compiled[:, Simulation(settings).columns().index("fuel_kg")].max() > 0.0  # the drive fired


@pytest.mark.parametrize("name", ["thruster_limit_cycle", "pwpf_slew", "thruster_unloading"])
def test_the_kernel_run_as_python_gives_the_compiled_bits(monkeypatch, name):
    """advance_craft's own text run as Python (as before its load, or with NUMBA_DISABLE_JIT) and compiled."""
    from sim.core.jit import boxed

    settings = load(name).settings
    compiled = Simulation(settings)
    compiled.step(300)
    python_calls = []
    text = craft.advance_craft.py_func

    def as_python(*args):
        python_calls.append(1)
        return boxed(text(*args))

    assert craft.advance_craft.ready
    as_python.wanted = craft.advance_craft.wanted
    as_python.ready = False  # its rows by the formula's Python text too
    monkeypatch.setattr(craft, "advance_craft", as_python)
    python = Simulation(settings)
    python.step(300)
    assert python_calls
    _same(compiled, python)
