"""The compiled advance (sim/core/advance.py) bit for bit against the Python step it replaces, faults alike.

:meth:`Simulation.step` runs :func:`sim.core.advance.advance` where :func:`sim.core.advance.covers`
the settings; ``Simulation._step_python`` is the step of before (the integrators, the torque model and
the norm modes called from Python).  Both read the same formulas (jitable), so the states must agree
to the bit (float64 bit patterns, signed zeros included) after many steps, through every branch the
compiled step holds: half-quat and rk4, each norm mode, dampers, the quaternion controller with and
without the shortest path and each axis, the limiter, a command torque, a general inertia tensor.
A fault (a non-finite state, a runaway norm, ``|Q|^2`` out of range with elimination) stops at the
last good state with the message of the Python step.
"""

import itertools
import math

import numpy as np
import pytest

from sim.core import advance as compiled
from sim.model.simulation import Simulation, SimulationFault

GENERAL = (1.2, 1.7, 2.1, 0.15, -0.25, 0.1)   # every product of inertia non-zero


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    compiled.advance.wait()  # else a process loads it only after sim.core.advance.WARM_AFTER steps in Python


def _bits(state):
    return np.asarray(state, dtype=float).view(np.uint64)


def _state(sim):
    return (*sim.q, *sim._w, sim._correction, sim.t, sim.steps)


def _pair(**settings):
    a, b = Simulation(**settings), Simulation(**settings)
    assert a._packed() is not None, "these settings should step compiled"
    return a, b


def _case_settings():
    base = dict(angles_deg=(30.0, -20.0, 45.0), rates=(1.0, 0.2, -0.5), dt=0.01)
    for integrator, norm, (dampers, controller, limiter), inertia in itertools.product(
            ("half-quat", "rk4"), ("hoffmann", "renormalize", "none", "elimination"),
            ((False, "none", False), (True, "none", False), (True, "quaternion", True), (False, "quaternion", False)),
            (None, GENERAL)):
        s = dict(base, integrator=integrator, norm=norm, dampers_on=dampers, controller=controller,
                 limiter_on=limiter, command_deg=(170.0, 10.0, -30.0), slerp_time=0.0, torque=(0.3, -0.2, 0.1))
        if inertia is not None:
            s["inertia"] = inertia
        if norm == "none":
            s["dt"] = 0.001  # half-quat's norm would run away within 300 steps of 10 ms
        yield s


@pytest.mark.parametrize("settings", list(_case_settings()), ids=lambda s: "-".join(
    str(s[k]) for k in ("integrator", "norm", "dampers_on", "controller", "limiter_on")) + ("-general" if "inertia"
                                                                                          in s else ""))
def test_compiled_steps_bit_for_bit(settings):
    a, b = _pair(**settings)
    a.step(300)
    b._step_python(300)
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))
    assert a.row() == b.row()


@pytest.mark.parametrize("axes,shortest", [((True, False, True), True), ((False, True, False), False)])
def test_controller_axes_and_long_way_bit_for_bit(axes, shortest):
    s = dict(controller="quaternion", axes=axes, shortest_path=shortest, command_deg=(179.0, 0.0, 0.0),
             slerp_time=0.0, dampers_on=True, rates=(0.5, -0.3, 0.2))
    a, b = _pair(**s)
    for _ in range(5):  # several calls: the state goes out and back in
        a.step(97)
        b._step_python(97)
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))


def test_a_control_between_calls_is_read():
    a, b = _pair(rates=(0.2, 0.1, 0.0))
    a.step(50)
    b._step_python(50)
    for sim in (a, b):
        sim.control("torque", (1.0, -2.0, 0.5))
    a.step(50)
    b._step_python(50)
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))
    assert a.w != (0.2, 0.1, 0.0)


def test_dt_change_between_calls():
    a, b = _pair(rates=(1.0, 0.2, -0.5))
    for sim in (a, b):
        sim.set("dt", 0.004)
    a.step(100)
    b._step_python(100)
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))
    assert a.t == pytest.approx(0.4)


def test_covers_the_settings_it_says():
    assert Simulation()._packed() is not None                     # the default aircraft
    assert Simulation(integrator="full-quat")._packed() is None
    assert Simulation(controller="euler")._packed() is None
    assert Simulation(user_torque=lambda t, q, w: (0.0, 0.0, 0.0))._packed() is None
    sim = Simulation(controller="quaternion", slerp_time=2.0)
    sim.set("command_deg", (90.0, 0.0, 0.0))
    assert sim._packed() is None                                   # a SLERP in progress steps in Python
    sim.step(2001)
    assert sim._packed() is not None                               # and after it, compiled


def _fault(sim, n, python):
    with pytest.raises(SimulationFault) as exc:
        sim._step_python(n) if python else sim.step(n)
    return str(exc.value), _state(sim)


@pytest.mark.parametrize("settings", [
    dict(dampers_on=True, dampers=(1000.0, 1000.0, 1000.0), rates=(1.0, 1.0, 1.0), dt=1.0),  # overflows
    dict(norm="none", rates=(3.0, 2.0, 1.0), dt=0.01),                        # the norm runs away
    dict(norm="elimination", rates=(1e4, 1e4, 0.0), dt=1.0),                  # |Q|^2 overflows
    dict(integrator="rk4", dampers_on=True, dampers=(1000.0, 1000.0, 1000.0), rates=(1.0, -1.0, 1.0), dt=1.0),
])
def test_faults_as_in_python(settings):
    a, b = _pair(**settings)
    ma, sa = _fault(a, 10_000, python=False)
    mb, sb = _fault(b, 10_000, python=True)
    assert ma == mb
    assert np.array_equal(_bits(sa), _bits(sb))                    # stopped at the same last good state
    assert all(math.isfinite(x) for x in sa)


def test_status_codes_of_the_kernel():
    """The kernel itself reports the fault and the good steps, leaving the last good state."""
    sim = Simulation(norm="none", rates=(3.0, 2.0, 1.0), dt=0.01)
    par, flags = sim._packed()
    state = np.array((*sim.q, *sim.w, 0.0))
    status, done = compiled.advance(state, par, flags, 10_000, compiled.NO_ROWS)
    assert status == compiled.NORM_RUNAWAY and 0 < done < 10_000
    assert abs(math.sqrt(sum(x * x for x in state[:4])) - 1.0) <= compiled.NORM_FAULT


def test_a_long_call_runs_in_chunks_bit_for_bit(monkeypatch):
    """A call of more than ``_CHUNK`` steps goes through several calls of the kernel (Ctrl-C is seen between
    them), and the state passes from one to the next whole."""
    import sim.model.simulation as simulation

    calls = []
    kernel = compiled.advance

    def counted(state, par, flags, n, rows):
        calls.append(n)
        return kernel(state, par, flags, n, rows)

    counted.wanted = kernel.wanted  # the warm-up rule Simulation asks (sim.core.jit.Kernel.wanted)
    monkeypatch.setattr(simulation, "_CHUNK", 7)
    monkeypatch.setattr(simulation.compiled, "advance", counted)
    a, b = _pair(controller="quaternion", command_deg=(90.0, 0.0, 0.0), slerp_time=0.0, rates=(0.3, 0.1, 0.0))
    a.step(100)
    b._step_python(100)
    assert calls == [7] * 14 + [2]
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))


@pytest.mark.parametrize("rows", [False, True])
def test_a_call_that_begins_in_a_slerp_goes_compiled_when_it_ends(monkeypatch, rows):
    """One call of many steps that begins while a SLERP is under way steps in Python only until the SLERP ends
    (2 s = 200 steps at dt 0.01 s), then through the kernel, with the same bits and rows as every step in Python
    (it stepped the whole call in Python: 80x a compiled step for a run that began with a command)."""
    import sim.model.simulation as simulation
    from sim.model.rows import history_columns_of

    calls = []
    kernel = compiled.advance

    def counted(state, par, flags, n, out):
        calls.append(n)
        return kernel(state, par, flags, n, out)

    counted.wanted = kernel.wanted
    monkeypatch.setattr(simulation.compiled, "advance", counted)
    settings = dict(controller="quaternion", slerp_time=2.0, dt=0.01, rates=(0.3, 0.1, 0.0), dampers_on=True)
    a, b = Simulation(**settings), Simulation(**settings)
    for sim in (a, b):
        sim.set("command_deg", (90.0, 20.0, 0.0))
    assert a._cmd.path is not None
    n = 1000
    if rows:
        out_a, out_b = (np.full((n, len(history_columns_of(a.settings))), np.nan) for _ in range(2))
        a.step_rows(n, out_a)
        for i in range(n):
            b._step_python(1)
            out_b[i] = b.row()
        assert np.array_equal(_bits(out_a), _bits(out_b))
    else:
        a.step(n)
        b._step_python(n)
    assert calls == [n - 200]                                   # the SLERP's 200 steps in Python, the rest compiled
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))
