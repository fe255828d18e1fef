"""The compiled spacecraft step (sim/model/advance_craft.py) bit for bit against the Python step it replaces.

:meth:`Simulation.step` runs :func:`sim.model.advance_craft.advance_craft` for a spacecraft (wheels, an orbit,
environment torques, torquers, a pointing mode, a SLERP in progress); ``Simulation._step_python`` is the
step of before (the integrators, :class:`sim.model.loads.LoadModel` and the written wheel formulas called
from Python).  Both read the same formulas, so the states must agree to the bit (float64 bit patterns)
after thousands of steps on the built-in spacecraft scenarios and through every branch the kernel holds;
the numbers from the compiled orbit, Sun and field (libm's sin, cos, atan2 in compiled code) included.
"""

import math
import os
import pathlib
import random
import subprocess
import sys

import numpy as np
import pytest

from sim.core import advance as compiled
from sim.model import advance_craft as craft
from sim.model.craft_nav import NO_NAV
from sim.core.ops import FLOAT
from sim.core.wheel_program import gyrostat_rates, motor_torques, program
from sim.core.wheels import wheel_set
from sim.model.loads import gyrostat_of
from sim.core.body import Body
from sim.model.settings import Settings
from sim.model.simulation import Simulation, SimulationFault
from sim.run.scenario import load

GENERAL = (1.2, 1.7, 2.1, 0.15, -0.25, 0.1)   # every product of inertia non-zero


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    compiled.advance.wait()  # both kernels; else a process loads each after its WARM_AFTER steps
    craft.advance_craft.wait()


def _bits(state):
    return np.asarray(state, dtype=float).view(np.uint64)


def _state(sim):
    return (*sim.q, *sim._w, sim._correction, sim.t, sim.steps)


def _pair(settings=None, **changes):
    a, b = Simulation(settings, **changes), Simulation(settings, **changes)
    assert a._packed() is None and a._craft_packed() is not None, "these settings should step as a craft"
    return a, b


def _same(a, b):
    assert np.array_equal(_bits(_state(a)), _bits(_state(b)))
    assert a.row() == b.row()


#: The spacecraft scenarios and the steps compared (a Python step of momentum_dumping costs about 0.3-1.5 ms).
SCENARIOS = {"sun_pointing": 3000, "detumble": 3000, "reaction_wheels": 3000, "momentum_dumping": 2000,
             "disturbances": 2000, "nadir_pointing": 3000}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_bit_for_bit(name):
    a, b = _pair(load(name).settings)
    n = SCENARIOS[name]
    for chunk in (1, 17, n - 18):  # one step, a few, the rest: the state goes out and back in
        a.step(chunk)
        b._step_python(chunk)
        _same(a, b)


def test_reaction_wheels_through_its_events_bit_for_bit():
    """The scenario's two commands (a SLERP over 20 s, then a jump with new gains and dampers) at their times."""
    s = load("reaction_wheels").settings
    a, b = _pair(s)
    fastest = 0.0
    for sim, step in ((a, a.step), (b, b._step_python)):
        step(50)                                    # t = 1 s
        sim.set("command_deg", (90.0, 0.0, 0.0))
        step(1950)                                  # t = 40 s, a SLERP in progress, one step a call
        sim.update({"slerp_time": 0.0, "gains": (9.2, 2.0, 9.7), "dampers": (21.7, 4.7, 22.8),
                    "command_deg": (-60.0, 50.0, 120.0)})
        for _ in range(20):                         # the wheels run into their speed limit
            step(100)
            fastest = max(fastest, *(abs(x) for x in sim.wheel_speeds))
    _same(a, b)
    assert fastest >= 350.0  # the speed limit was reached: its branch ran


def _branch_cases():
    base = dict(angles_deg=(30.0, -20.0, 45.0), rates=(0.3, 0.2, -0.25), dt=0.05, controller="quaternion",
                command_deg=(120.0, 10.0, -30.0), slerp_time=0.0, dampers_on=True)
    yield "pyramid-friction-direct-half", dict(base, integrator="half-quat", wheels="pyramid", wheel_friction=1e-3,
                                               wheel_torques=(0.01, -0.02, 0.0, 0.03), wheel_torque_limit=0.05,
                                               wheel_speed_limit=(50.0, 60.0, 70.0, 80.0), wheel_inertia=0.02)
    for form in ("hoffmann", "raw", "lagrange"):
        yield f"full-quat-{form}-wheels", dict(base, integrator="full-quat", full_quat_form=form, wheels="pyramid",
                                                inertia=GENERAL, wheel_friction=1e-3, dt=0.01)
    yield "full-quat-elimination-gravity", dict(base, integrator="full-quat", norm="elimination", dt=0.01,
                                                gravity_gradient=True, disturbance=(1e-3, 0.0, 0.0))
    yield "full-quat-aircraft", dict(base, integrator="full-quat", dt=0.01, controller="none",
                                     torque=(0.1, -0.2, 0.05))
    yield "rkmk4-aircraft", dict(base, integrator="rkmk4", dt=0.01)
    yield "rkmk4-wheels-gravity", dict(base, integrator="rkmk4", wheels="pyramid", gravity_gradient=True,
                                       inertia=GENERAL, rates=(0.0, 0.0, 0.0), command_deg=(0.0, 0.0, 0.0))
    yield "pyramid-rk4-general", dict(base, integrator="rk4", wheels="pyramid", inertia=GENERAL, wheel_inertia=0.01,
                                      wheel_friction=(1e-3, 0.0, 2e-3, 0.0))
    yield "skew-axes-rk4", dict(base, integrator="rk4", wheels=((0.6, 0.8, 0.0), (0.0, 0.6, 0.8), (0.8, 0.0, 0.6),
                                                                (0.6, -0.8, 0.0), (0.0, 0.0, 1.0)))
    yield "two-wheels", dict(base, integrator="rk4", wheels=((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)))
    yield "elimination-limiter", dict(base, integrator="rk4", norm="elimination", wheels="orthogonal",
                                      limiter_on=True, limits=(0.01, 0.02, 0.01))
    yield "norm-none", dict(base, integrator="half-quat", norm="none", dt=0.001, wheels="orthogonal")
    yield "renormalize-axes", dict(base, integrator="rk4", norm="renormalize", axes=(True, False, True),
                                   shortest_path=False, wheels="orthogonal")
    yield "circular-gravity-disturbance", dict(base, integrator="rk4", gravity_gradient=True, altitude_km=400.0,
                                               disturbance=(1e-3, -2e-3, 5e-4), disturbance_period=7.0,
                                               disturbance_axes="inertial", inertia=GENERAL)
    yield "no-wheels-body-disturbance", dict(base, integrator="half-quat", disturbance=(1e-3, 0.0, -1e-3),
                                             torque=(0.01, 0.0, 0.0))
    yield "slerp-disturbance", dict(base, integrator="rk4", slerp_time=3.0, disturbance=(0.0, 1e-3, 0.0))
    yield "dipole-field-bang-bang", dict(base, integrator="rk4", dt=0.5, orbit=(600.0, 0.01, 60.0, 10.0, 20.0, 30.0),
                                         magnetic_field="dipole", magnetorquers=1.0, bdot_law="bang-bang",
                                         controller="none", dampers_on=False, rates=(0.05, -0.04, 0.03))
    yield "msis-drag-velocity-j2", dict(base, integrator="rk4", dt=1.0, orbit=(350.0, 0.001, 51.6, 40.0, 0.0, 0.0),
                                        j2=True, pointing="velocity", wheels="orthogonal", drag=True,
                                        atmosphere="exponential", srp=True, gravity_gradient=True,
                                        body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0))


@pytest.mark.parametrize("settings", [s for _, s in _branch_cases()], ids=[k for k, _ in _branch_cases()])
def test_branches_bit_for_bit(settings):
    a, b = _pair(**settings)
    a.step(400)
    b._step_python(400)
    _same(a, b)


def test_steps_it_leaves_to_python():
    assert Simulation(integrator="full-quat", full_quat_form="kane", wheels="orthogonal")._craft_packed() is None
    assert Simulation(integrator="splitting", gravity_gradient=True)._craft_packed() is None
    sim = Simulation(controller="quaternion", slerp_time=2.0)   # a plain body: sim.core.advance's, Python in a SLERP
    sim.set("command_deg", (90.0, 0.0, 0.0))
    assert sim._packed() is None and sim._craft_packed() is None
    assert Simulation(controller="euler", wheels="orthogonal")._craft_packed() is None
    assert Simulation(wheels="orthogonal", user_torque=lambda t, q, w: (0.0, 0.0, 0.0))._craft_packed() is None
    tle = load("iss_tle").settings if "iss_tle" in _names() else None
    if tle is not None:
        assert Simulation(tle)._craft_packed() is None
    assert craft.covers(Settings(wheels="pyramid", gravity_gradient=True))
    assert not craft.covers(Settings(integrator="splitting"))


def _navigation(sim):
    """What the navigation holds after a step: the estimate, its covariance, the rates, the sensors' timeline, the
    gyro's true bias, the torque held."""
    nav = sim.navigation
    p = nav.filter.p if nav.filter is not None else nav.p_att
    held = sim._law.value if sim._law is not sim._torque else ()
    return np.concatenate([np.ravel(x) for x in (nav.q, p, nav.rates, nav.available, held,
                                                 nav.gyro.true_bias if nav.gyro is not None else ())])


#: The scenarios with sensors and an estimator, the steps compared, and whether the law flies on the estimate.
NAVIGATION = {"fly_on_estimate": 1500, "cubesat_year": 1500, "sun_mag_triad": 1000, "mekf": 1500}


@pytest.mark.parametrize("name", sorted(NAVIGATION))
def test_navigation_scenarios_bit_for_bit(name):
    """Sensors, the estimator and (fly_on = estimate) the torque held at the estimate: the compiled craft step
    (many steps a call, the navigation inside its loop) and the Python step agree to the bit, estimate included."""
    s = load(name).settings
    a, b = Simulation(s), Simulation(s)
    assert a._craft_packed() is not None
    n = NAVIGATION[name]
    for chunk in (1, 17, n - 18):
        a.step(chunk)
        b._step_python(chunk)
        assert np.array_equal(_bits(_state(a)), _bits(_state(b)))
        assert np.array_equal(_bits(a.row()), _bits(b.row()))      # the estimate's columns (nan: no such sensor)
        assert np.array_equal(_bits(_navigation(a)), _bits(_navigation(b)))
    assert (a._law is not a._torque) == (s.fly_on == "estimate")


def test_a_fault_takes_no_sample_twice():
    """A compiled step that faults is taken again in Python to raise the fault: the sensors' draws of that step
    are taken once, as in the Python step (the streams stand where the Python step's stand)."""
    s = load("fly_on_estimate").settings.replace(norm="none", rates=(1.0, 0.6, 0.3))  # the norm runs away at t = 315 s
    a, b = Simulation(s), Simulation(s)
    ma, sa = _fault(a, 10_000, python=False)
    mb, sb = _fault(b, 10_000, python=True)
    assert ma == mb and np.array_equal(_bits(sa), _bits(sb))
    assert np.array_equal(_bits(_navigation(a)), _bits(_navigation(b)))
    for x, y in ((a.navigation.gyro, b.navigation.gyro), (a.navigation.star, b.navigation.star)):
        assert x.streams._next == y.streams._next


def _names():
    from sim.run.scenario import builtin_names
    return builtin_names()


def _fault(sim, n, python):
    with pytest.raises(SimulationFault) as exc:
        sim._step_python(n) if python else sim.step(n)
    return str(exc.value), _state(sim)


@pytest.mark.parametrize("settings", [
    dict(disturbance=(1e-3, 0.0, 0.0), dampers_on=True, dampers=(1000.0, 1000.0, 1000.0), rates=(1.0, 1.0, 1.0),
         dt=1.0),                                                                     # overflows
    dict(wheels="pyramid", norm="none", rates=(3.0, 2.0, 1.0), dt=0.01),              # the norm runs away
    dict(integrator="rk4", gravity_gradient=True, norm="elimination", rates=(1e4, 1e4, 0.0), dt=1.0),
])
def test_faults_as_in_python(settings):
    a, b = _pair(**settings)
    ma, sa = _fault(a, 10_000, python=False)
    mb, sb = _fault(b, 10_000, python=True)
    assert ma == mb
    assert np.array_equal(_bits(sa), _bits(sb))                    # stopped at the same last good state
    assert all(math.isfinite(x) for x in sa)


@pytest.mark.parametrize("layout", ["orthogonal", "pyramid", ((0.6, 0.8, 0.0), (0.0, 0.6, 0.8), (0.8, 0.0, 0.6),
                                                               (0.6, -0.8, 0.0), (0.0, 0.0, 1.0))])
def test_wheel_program_is_the_written_formulas(layout):
    """The tables walked term by term (sim.core.wheel_program, here as Python) give the written formulas'
    numbers (sim.core.wheels.source) bit for bit, limits and friction included."""
    s = Settings(wheels=layout, inertia=GENERAL, wheel_friction=0.003, wheel_torque_limit=0.2, wheel_speed_limit=300.0)
    ws = wheel_set(s)
    body = gyrostat_of(Body(s.mass_properties.inertia), ws)
    direct = tuple(0.01 * (i - 1) for i in range(ws.n))
    tables, groups = program(ws, direct)
    f = body.formulas
    rnd = random.Random(7)
    for _ in range(200):
        w = (rnd.uniform(-1, 1), rnd.uniform(-1, 1), rnd.uniform(-1, 1))
        speeds = tuple(rnd.uniform(-320.0, 320.0) for _ in range(ws.n))
        t = (rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5), rnd.uniform(-0.5, 0.5))
        e = (rnd.uniform(-1e-3, 1e-3), rnd.uniform(-1e-3, 1e-3), rnd.uniform(-1e-3, 1e-3))
        written = f.motor_load(t, speeds, direct, e)
        u = np.zeros(ws.n)
        motor_torques(t, np.array(speeds), True, tables, u)
        assert np.array_equal(_bits(u), _bits(written[3:]))
        d_written = f.rhs((*w, *speeds), written, body.j_rows, body.j_free_inv_rows)
        ds = np.zeros(ws.n)
        a = gyrostat_rates(w, np.array(speeds), e, u, body.j_rows, body.j_free_inv_rows, tables, groups,
                           np.zeros(ws.n), ds)
        assert np.array_equal(_bits((*a, *ds)), _bits(d_written))
    assert f is not None and FLOAT.name == "float"


def test_the_kernel_reports_a_fault_and_the_good_steps():
    sim = Simulation(wheels="pyramid", norm="none", rates=(3.0, 2.0, 1.0), dt=0.01)
    par, flags, wheels, groups, table = sim._craft_packed()
    state = np.array((*sim.q, *sim.w, 0.0, 0.0, 0.0, 0.0, 0.0, *sim.wheel_speeds))
    status, done, _ = craft.advance_craft(state, sim._world_values(), par, flags, wheels, groups, table, 10_000,
                                          craft.NO_THRUSTERS, craft.NO_WORLD, craft.NO_WORLD,
                                          np.zeros(craft.MAG_SIZE), craft.NO_RODS, NO_NAV, craft.NO_ROWS)
    assert status == compiled.NORM_RUNAWAY and 0 < done < 10_000
    assert abs(math.sqrt(sum(x * x for x in state[:4])) - 1.0) <= compiled.NORM_FAULT


SHORT = """
from sim.model import advance_craft
from sim.model.simulation import Simulation
sim = Simulation(wheels="orthogonal", controller="quaternion", integrator="rk4")
sim.step(1000)
kernel = advance_craft.advance_craft
assert not kernel.ready and not kernel.loading  # a short run stays in Python: no cache to load
sim.step(advance_craft.WARM_AFTER)          # a long call loads it at once
assert kernel.ready and sim._craft_packed() is not None
print("ok")
"""


@pytest.mark.subprocess
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="the JIT is off: nothing is compiled")
def test_a_short_run_never_loads_the_craft_kernel_a_long_one_does():
    root = pathlib.Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("MUTANT_UNDER_TEST", None)
    proc = subprocess.run([sys.executable, "-c", SHORT], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_compiled_libm_is_pythons_bit_for_bit():
    """The time-dependent formulas the kernel calls go through sin, cos, atan2 and sqrt: numba calls libm's, as
    Python's math does, so compiled and Python give the same bits (over many times and a wide range)."""
    import numba

    from sim.world.environment import disturbance_torque, gravity_gradient_torque
    from sim.world.orbit import mean_elements_state

    @numba.njit
    def compiled_terms(q, t, n, jr, el):
        return (gravity_gradient_torque(q, t, n, jr), disturbance_torque(q, t, (1e-3, -2e-3, 5e-4), 7.3, True),
                mean_elements_state(el[0], el[1], el[2], el[3], el[4], el[5], el[6], el[7], el[8], t))

    rnd = random.Random(11)
    jr = (100.0, 1.5, -2.0, 1.5, 120.0, 0.7, -2.0, 0.7, 50.0)
    el = (6878.137, 0.013, 1.7, 0.4, 2.1, 0.3, -1.1e-6, 8.2e-7, 1.1e-3)
    for _ in range(2000):
        q = tuple(rnd.uniform(-1.0, 1.0) for _ in range(4))
        t = rnd.uniform(0.0, 10.0) * 10.0 ** rnd.randint(0, 7)
        python = (gravity_gradient_torque(q, t, 1.1e-3, jr), disturbance_torque(q, t, (1e-3, -2e-3, 5e-4), 7.3, True),
                  mean_elements_state(*el, t))
        assert np.array_equal(_bits([x for v in python for x in v]),
                              _bits([x for v in compiled_terms(q, t, 1.1e-3, jr, el) for x in v]))


def test_the_craft_kernels_sample_has_numbas_types_of_a_real_call(monkeypatch):
    """The warm-up sample (:func:`sim.model.advance_craft._sample`, what the kernel is compiled for before its
    first call) has, argument by argument, numba's type of the arguments a spacecraft's steps hand the kernel
    (reaction_wheels through :meth:`Simulation._step_craft`): the loaded kernel serves them, no second compile."""
    import numba

    seen = []
    real = craft.advance_craft

    def spy(*args):
        seen.append(tuple(numba.typeof(a) for a in args))
        return real.py_func(*args)

    sim = Simulation(load("reaction_wheels").settings)
    packed = sim._rows_packed()
    assert packed is not None
    monkeypatch.setattr(craft, "advance_craft", spy)
    sim._step_craft(packed, 2)
    sample = tuple(numba.typeof(a) for a in craft._sample())
    assert seen and all(types == sample for types in seen)
