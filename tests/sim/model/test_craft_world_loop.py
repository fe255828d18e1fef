"""The spacecraft's world made inside the compiled loop (issue 42), bit for bit with the Python step.

:func:`sim.model.advance_craft.advance_craft` takes many steps a call on a Kepler orbit: after each step it
makes the world (:func:`sim.model.advance_craft.next_world`: the orbit, Sun, shadow, field and density,
the torquers' command with B-dot's sample state, the moving mode's command with its sign continuity and
rate feed-forward) and returns only at a field sample's boundary, a fault, ``n`` or CHUNK.
``Simulation._step_python`` is the step of before, making all of it in Python between steps.  After any
number of steps every reader (the state, the history row, the world record, the field in body axes, the
torquers' dipole, the command and its rate, B-dot's samples) must be the same to the bit.
"""

import numpy as np
import pytest

from sim.core.jit import kernel
from sim.gnc.magnetic import BDOT_STATE, MagneticControl, torquer_command
from sim.core import advance as plain
from sim.model import advance_craft as craft
from sim.model import world as world_module
from sim.model.world_kernel import world_kernel
from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.run.scenario import load


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    plain.advance.wait()
    craft.advance_craft.wait()
    world_kernel.wait()
    assert craft.advance_craft.ready  # asked once here: the counted kernel below has no loader of its own


def _bits(values):
    return np.asarray(values, dtype=float).view(np.uint64)


def _readers(sim):
    """Everything a row, the window or the API reads of the present step, as plain values."""
    bdot = sim._magnetic.bdot
    return (sim.q, sim._w, sim._correction, sim.t, sim.steps, sim.row(), sim.world, sim.b_body, sim.dipole,
            sim._load.dipole, sim._cmd.qc, sim._torque.qc, sim._torque.rate_ref,
            None if bdot is None else (tuple(bdot.state), tuple(bdot.u)))


def _same(a, b):
    ra, rb = _readers(a), _readers(b)
    assert ra == rb
    assert np.array_equal(_bits((*a.q, *a._w, a._correction)), _bits((*b.q, *b._w, b._correction)))


class _Calls:
    """advance_craft counted: the loop must take many steps a call."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = craft.advance_craft

        def counted(*args):
            self.n += 1
            return real(*args)

        counted.wanted = real.wanted  # the warm-up rule, asked by the Simulation before it calls
        counted.ready = False  # Simulation.row by the formula's Python text: these calls are the steps'
        monkeypatch.setattr(craft, "advance_craft", counted)


def _pair(settings):
    a, b = Simulation(settings), Simulation(settings)
    assert a._packed() is None and a._craft_packed() is not None, "these settings should step as a craft"
    assert a._world is not None and a._world.compilable
    return a, b


#: The world's scenarios and the steps compared: each crosses many field samples (every 10 s) where it has one.
SCENARIOS = {"detumble": 2500, "sun_pointing": 2000, "nadir_pointing": 2000, "momentum_dumping": 600,
             "target_tracking": 2000, "disturbances": 400}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_world_scenarios_bit_for_bit(name, monkeypatch):
    a, b = _pair(load(name).settings)
    calls = _Calls(monkeypatch)
    n = SCENARIOS[name]
    made = []
    real_state = world_module.World.state
    monkeypatch.setattr(world_module.World, "state", lambda w, t: made.append(w) or real_state(w, t))
    for chunk in (1, 1, 17, n - 19):  # the state and the B-dot samples go out and back in between calls
        a.step(chunk)
        b._step_python(chunk)
        _same(a, b)
    assert a._world not in made and len(made) == n  # every world of the loop made in the loop, none by Python
    samples = n * a.settings.dt / world_module.FIELD_SAMPLE if a.settings.magnetic_field == "igrf" else 0.0
    assert calls.n <= 4 + 2 * samples + 2  # many steps a call: at each field sample a return and a call that
    # makes that step's world with the next samples, no more


def _cases():
    base = dict(integrator="rk4", orbit=(520.0, 0.01, 51.6, 30.0, 20.0, 10.0), j2=True, epoch="2024-03-20T03:06:00Z",
                rates=(0.05, -0.04, 0.03), dt=0.5, controller="none", dampers_on=False)
    bdot = dict(magnetorquers=1.0, bdot_period=1.0, bdot_gain=2e4)
    yield "dipole-bang-bang", dict(base, magnetic_field="dipole", bdot_law="bang-bang", **bdot)
    yield "dipole-proportional-elimination", dict(base, magnetic_field="dipole", bdot_law="proportional",
                                                  norm="elimination", residual_dipole=(0.01, -0.02, 0.005), **bdot)
    yield "igrf-proportional-period-3", dict(base, magnetic_field="igrf", bdot_law="proportional",
                                             magnetorquers=0.5, bdot_period=3.0, bdot_gain=5e4, dt=0.2)
    yield "igrf-skewed-rods-dumping", dict(scenario="momentum_dumping", srp=False, drag=False, dt=0.2,
                                           magnetorquer_axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0),
                                                              (0.6, 0.8, 0.0)), residual_dipole=(0.01, 0.0, 0.02))
    yield "msis-drag-srp-eclipse-sun", dict(base, orbit=(520.0, 0.01, 51.6, 30.0, 20.0, 68.0), drag=True,
                                            atmosphere="msis", srp=True, pointing="sun",
                                            wheels="orthogonal", controller="quaternion", dampers_on=True,
                                            body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0))
    yield "target-full-quat", dict(base, integrator="full-quat", pointing="target", target=(40.0, -100.0, 0.2),
                                   wheels="orthogonal", controller="quaternion", dampers_on=True, dt=0.2)
    yield "velocity-rkmk4-exponential", dict(base, integrator="rkmk4", pointing="velocity", drag=True,
                                             atmosphere="exponential", gravity_gradient=True, wheels="orthogonal",
                                             controller="quaternion", dampers_on=True, j2=False)
    yield "nadir-half-quat-shortest-off", dict(base, integrator="half-quat", pointing="nadir", dt=0.1,
                                               controller="quaternion", shortest_path=False, dampers_on=True)


@pytest.mark.parametrize("changes", [c for _, c in _cases()], ids=[k for k, _ in _cases()])
def test_world_branches_bit_for_bit(changes):
    if changes.get("atmosphere") == "msis":
        pytest.importorskip("pymsis")
    changes = dict(changes)
    name = changes.pop("scenario", None)
    a, b = _pair(Settings(**changes) if name is None else load(name).settings.replace(**changes))
    lit = {a.world.sunlit}
    for chunk in (1, 3, 300, 300):
        a.step(chunk)
        b._step_python(chunk)
        _same(a, b)
        lit.add(a.world.sunlit)
    if changes.get("srp"):
        assert 1.0 in lit and 0.0 in lit  # into the Earth's shadow: the SRP's umbra branch ran


def test_a_slerp_in_a_world_steps_one_a_call_and_stays_bit_for_bit(monkeypatch):
    """Inertial pointing with a SLERP under way: Python makes the command and the world between steps."""
    s = load("sun_pointing").settings.replace(pointing="inertial", slerp_time=20.0, magnetic_field="igrf")
    a, b = _pair(s)
    for sim in (a, b):
        sim.set("command_deg", (30.0, 10.0, -20.0))
    calls = _Calls(monkeypatch)
    a.step(300)
    b._step_python(300)
    _same(a, b)
    assert 40 <= calls.n <= 70  # the SLERP's 40 steps one a call, then the loop (two calls every 20 steps)


def test_a_fault_inside_the_loop_as_in_python():
    from sim.model.simulation import SimulationFault
    s = load("sun_pointing").settings.replace(rates=(40.0, 30.0, -20.0), norm="none")
    a, b = _pair(s)
    with pytest.raises(SimulationFault) as ea:
        a.step(20_000)
    with pytest.raises(SimulationFault) as eb:
        b._step_python(20_000)
    assert str(ea.value) == str(eb.value)
    _same(a, b)


@kernel
def _torquers_compiled(t, q, b, speeds, kind, law, period, gain, dumping, state, u, rods, residuals, wheels):
    out = torquer_command(t, (q[0], q[1], q[2], q[3]), (b[0], b[1], b[2]), speeds, kind, law, period, gain, dumping,
                          state, u, rods[:, 0:3], rods[:, 3:6], rods[:, 6], (residuals[0], residuals[1], residuals[2]),
                          (residuals[3], residuals[4], residuals[5]), wheels[:, 0:3], wheels[:, 3], None)
    return out


@pytest.mark.parametrize("changes", [dict(bdot_law="proportional", bdot_gain=3e4),
                                     dict(bdot_law="bang-bang", residual_dipole=(0.01, 0.0, -0.02)),
                                     dict(dumping_gain=0.02, wheels="pyramid")], ids=["proportional", "bang-bang",
                                                                                      "dumping"])
def test_the_torquers_compiled_are_the_python_class(changes):
    """MagneticControl (Python) and torquer_command compiled, the same text: the same bits over random fields,
    with B-dot's samples carried from call to call in both."""
    s = Settings(orbit=(520.0, 0.01, 51.6, 30.0, 20.0, 10.0), magnetic_field="dipole", magnetorquers=0.4, bdot_period=0.3, magnetorquer_axes=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0),
                                                                         (0.0, 0.0, 1.0), (0.6, 0.0, 0.8)), **changes)
    control = MagneticControl(s)
    rods = control.rods.table
    residuals = np.array((*control.rods.residual, *control.residual))
    ws = s.wheel_set
    wheels = np.zeros((0, 4)) if ws is None else np.column_stack((np.array(ws.axes), np.array(ws.inertia)))
    law = 1 if s.bdot_law == "bang-bang" else 0
    state = np.zeros(BDOT_STATE)
    rng = np.random.default_rng(42)
    for k in range(60):
        t = 0.1 * k
        q = tuple(float(x) for x in rng.normal(size=4))
        b = tuple(float(x) for x in rng.normal(scale=3e-5, size=3))
        speeds = tuple(float(x) for x in rng.normal(scale=100.0, size=0 if ws is None else ws.n))
        want = control(t, q, b, speeds)
        got = _torquers_compiled(t, np.array(q), np.array(b), np.array(speeds), control.kind, law,
                                 control.bdot.period if control.bdot else 1.0, control.bdot.gain if control.bdot else 0.0,
                                 control.dumping_gain, state, rods[:, 7], rods,
                                 residuals, wheels)
        assert np.array_equal(_bits([x for v in got for x in v]), _bits([x for v in want for x in v]))
        if control.bdot is not None:
            assert np.array_equal(_bits(state), _bits(control.bdot.state))
            assert np.array_equal(_bits(rods[:, 7]), _bits(control.bdot.u))
    assert any(x != 0.0 for x in want[1])  # the rods acted

