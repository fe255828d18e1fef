"""History rows written by the compiled advance (issue 42): the same bits as the Python row after each step.

A spacecraft (wheels, orbit, field, environment torques) without sensors, thrusters or CMGs has its rows written
by :func:`sim.model.advance_craft.advance_craft` (:func:`sim.model.craft_row.craft_row`, compiled), the Python row
the same formula's Python source: compared bit for bit over many field samples (10 s) on every such built-in
scenario, and against closed forms (scipy's rotations, the gravity gradient's 3 mu/r^3 c x Jc, m x B, the
gyrostat's energy and momentum, the wheels' reaction) so that a formula wrong in both alike fails too.

:meth:`Simulation.step_rows` takes ``n`` steps and fills a row after each: where :func:`sim.core.advance.covers`
the body the compiled loop writes them (:func:`sim.core.row_formula.plain_row`), everywhere else one step and
one :meth:`Simulation.row` at a time.  The reference is a second body stepped one step at a time whose rows are
its :meth:`Snapshot.row` (the layout of :func:`sim.model.rows.history_row`, written independently of
``plain_row``'s), compared as float64 bit patterns.  The angle, momentum and energy columns are checked against
scipy and the conservation laws as well, so a formula wrong in both paths alike would fail too.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import advance as compiled
from sim.model import advance_craft as craft
from sim.model.rows import history_columns_of
from sim.model.simulation import Simulation, SimulationFault
from sim.run.scenario import builtin_names, load

GENERAL = (1.2, 1.7, 2.1, 0.15, -0.25, 0.1)   # every product of inertia non-zero

#: Plain bodies the compiled loop covers: each integrator, each norm mode, the torque law's branches.
COVERED = {
    "default": {},
    "rk4, torque-free": {"integrator": "rk4", "rates": (1.0, 0.2, -0.5), "dampers_on": False},
    "rk4, general inertia, controller": {"integrator": "rk4", "inertia": GENERAL, "controller": "quaternion",
                                         "command_deg": (170.0, -20.0, 50.0), "slerp_time": 0.0, "limiter_on": True,
                                         "shortest_path": True},
    "elimination": {"norm": "elimination", "rates": (1.0, 2.0, 3.0), "dampers_on": False},
    "renormalize, command torque": {"norm": "renormalize", "torque": (0.1, -0.2, 0.05), "rates": (0.3, 0.0, 1.0)},
}
#: Bodies the compiled loop does not cover: their rows go through the Python row, one step at a time.
NOT_COVERED = {
    "full-quat with P": {"integrator": "full-quat", "rates": (1.0, 0.2, -0.5)},
}


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    compiled.advance.wait()  # else a process loads it only after sim.core.advance.WARM_AFTER steps in Python
    craft.advance_craft.wait()


def _bits(a):
    return np.asarray(a, dtype=float).view(np.uint64)


def _reference(sim, n):
    rows = []
    for _ in range(n):
        sim.step(1)
        rows.append(sim.snapshot().row())
    return np.array(rows)


def _batch(sim, n):
    out = np.full((n, len(history_columns_of(sim.settings))), np.nan)
    sim.step_rows(n, out)
    return out


@pytest.mark.parametrize("name", list(COVERED))
def test_compiled_rows_are_the_python_rows_bit_for_bit(name):
    a, b = Simulation(**COVERED[name]), Simulation(**COVERED[name])
    assert a._packed(10**6) is not None, "these settings should step compiled"
    rows = _batch(a, 1500)
    assert np.array_equal(_bits(rows), _bits(_reference(b, 1500)))
    assert np.array_equal(_bits(a.q), _bits(b.q)) and a.steps == b.steps == 1500


@pytest.mark.parametrize("name", list(NOT_COVERED))
def test_rows_of_bodies_the_loop_does_not_cover_are_the_python_rows(name):
    a, b = Simulation(**NOT_COVERED[name]), Simulation(**NOT_COVERED[name])
    assert np.array_equal(_bits(_batch(a, 300)), _bits(_reference(b, 300)))


@pytest.mark.parametrize("name", builtin_names())
def test_rows_of_every_builtin_scenario_are_the_python_rows(name):
    settings = load(name).settings
    a, b = Simulation(settings), Simulation(settings)
    n = max(3, min(200, round(2.0 / settings.dt)))
    assert np.array_equal(_bits(_batch(a, n)), _bits(_reference(b, n)))


def test_row_k_is_the_state_after_step_k_plus_one():
    """Not the state before the step: the time column and the state of each row are those after the step."""
    settings = COVERED["rk4, torque-free"]
    a, b = Simulation(**settings), Simulation(**settings)
    rows = _batch(a, 50)
    cols = history_columns_of(a.settings)
    t, q1 = cols.index("t"), cols.index("q1")
    for k in range(50):
        b.step(1)
        assert rows[k, t] == b.t == (k + 1) * b.settings.dt
        assert tuple(rows[k, q1:q1 + 4]) == b.q


def test_compiled_rows_against_scipy_and_the_conservation_laws():
    """Torque-free rk4 with a general inertia: the angle columns are scipy's (Hoffmann's Q is the conjugate of
    scipy's ZYX quaternion, docs/NOTES), the energy is 1/2 w J w, the inertial momentum keeps its first value."""
    sim = Simulation(integrator="rk4", inertia=GENERAL, rates=(1.0, 0.2, -0.5), dampers_on=False, dt=0.001)
    assert sim._packed(10**6) is not None
    rows = _batch(sim, 2000)
    c = {name: i for i, name in enumerate(history_columns_of(sim.settings))}
    q = rows[:, [c["q1"], c["q2"], c["q3"], c["q4"]]]
    conj = q * np.array((-1.0, -1.0, -1.0, 1.0))
    zyx = np.degrees(Rotation.from_quat(conj).as_euler("ZYX"))
    assert np.allclose(rows[:, [c["psi_deg"], c["theta_deg"], c["phi_deg"]]], zyx, rtol=0, atol=1e-9)
    jxx, jyy, jzz, jxy, jxz, jyz = GENERAL
    j = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    w = rows[:, [c["wx"], c["wy"], c["wz"]]]
    assert np.allclose(rows[:, c["energy"]], 0.5 * np.einsum("ni,ij,nj->n", w, j, w), rtol=1e-13, atol=0)
    h = rows[:, [c["hx"], c["hy"], c["hz"]]]
    h_ref = Rotation.from_quat(conj).apply(w @ j)  # C^T J w, C^T the body-to-inertial rotation
    assert np.allclose(h, h_ref, rtol=0, atol=1e-12)
    assert np.allclose(h, h[0], rtol=0, atol=1e-9)   # conserved without torque
    assert np.allclose(rows[:, c["four_t"]], 4.0 * rows[:, c["energy"]], rtol=0, atol=0)
    assert np.all(rows[:, [c["tx"], c["ty"], c["tz"]]] == 0.0)


def test_a_fault_keeps_the_rows_of_the_good_steps():
    settings = {"norm": "none", "rates": (3.0, 1.0, 2.0), "dampers_on": False}
    a, b = Simulation(**settings), Simulation(**settings)
    out = np.full((5000, len(history_columns_of(a.settings))), np.nan)
    with pytest.raises(SimulationFault, match="norm error"):
        a.step_rows(5000, out)
    good = a.steps
    assert 0 < good < 5000 and np.all(np.isnan(out[good:]))
    assert np.array_equal(_bits(out[:good]), _bits(_reference(b, good)))
    assert math.isfinite(a.t)


#: Spacecraft whose rows the craft kernel writes, and the steps each is run (several field samples of 10 s).
CRAFT = [name for name in builtin_names() if Simulation(load(name).settings)._rows_packed() is not None]


def _columns(sim):
    return {name: i for i, name in enumerate(history_columns_of(sim.settings))}


def _craft_batch(name, seconds=60.0, **changes):
    settings = load(name).settings.replace(**changes) if changes else load(name).settings
    a, b = Simulation(settings), Simulation(settings)
    n = max(20, round(seconds / settings.dt))
    assert a._rows_packed() is not None and craft.advance_craft.wanted(n), "the kernel should write these rows"
    return a, _batch(a, n), _reference(b, n), b


def test_the_craft_kernel_writes_the_rows_of_the_spacecraft_scenarios():
    assert {"sun_pointing", "detumble", "nadir_pointing", "momentum_dumping", "target_tracking",
            "disturbances", "gravity_gradient"} <= set(CRAFT)
    assert {"fly_on_estimate", "mekf", "sun_mag_triad", "cubesat_year", "pwpf_slew", "thruster_limit_cycle",
            "thruster_unloading"} <= set(CRAFT)  # the estimator's and the thrusters' columns too
    assert "cmg_fast_slew" not in CRAFT  # per-step Python rows


@pytest.mark.parametrize("name", CRAFT)
def test_craft_kernel_rows_are_the_python_rows_bit_for_bit(name):
    a, rows, ref, b = _craft_batch(name)
    assert np.array_equal(_bits(rows), _bits(ref))
    assert np.array_equal(_bits(rows[-1]), _bits(b._craft_row(compiled=False)))  # the formula as Python
    assert np.array_equal(_bits(a.q), _bits(b.q)) and np.array_equal(_bits(a.wheel_speeds), _bits(b.wheel_speeds))


@pytest.mark.parametrize("name, changes", [("sun_pointing", {"integrator": "half-quat"}),
                                           ("nadir_pointing", {"norm": "elimination"}),
                                           ("momentum_dumping", {"integrator": "rkmk4"}),
                                           ("detumble", {"integrator": "full-quat"})])
def test_craft_kernel_rows_under_other_integrators_and_norms(name, changes):
    _, rows, ref, _ = _craft_batch(name, 30.0, **changes)
    assert np.array_equal(_bits(rows), _bits(ref))


def _to_body(rows, c, v):
    """``C(Q) v`` for each row's Q (Hoffmann's Q: scipy's of the conjugate, body -> inertial)."""
    q = rows[:, [c["q1"], c["q2"], c["q3"], c["q4"]]] * np.array((-1.0, -1.0, -1.0, 1.0))
    return Rotation.from_quat(q).inv().apply(v), Rotation.from_quat(q)


def test_craft_rows_energy_momentum_and_the_wheels_reaction():
    """sun_pointing (three wheels, no environment torque): T = 1/2 w J w + sum Js W (a.w + W/2), the inertial
    momentum C^T (J w + sum a Js W) constant, the applied torque the wheels' reaction -sum a u."""
    sim, rows, _, _ = _craft_batch("sun_pointing")
    c = _columns(sim)
    wheels = sim.settings.wheel_set
    a, js = np.array(wheels.axes), np.array(wheels.inertia)
    jxx, jyy, jzz, jxy, jxz, jyz = sim.settings.inertia
    j = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    w = rows[:, [c["wx"], c["wy"], c["wz"]]]
    big_w = rows[:, [c["wheel1"], c["wheel2"], c["wheel3"]]]
    u = rows[:, [c["ux1"], c["ux2"], c["ux3"]]]
    energy = 0.5 * np.einsum("ni,ij,nj->n", w, j, w) + np.sum(js * big_w * (w @ a.T + 0.5 * big_w), axis=1)
    assert np.allclose(rows[:, c["energy"]], energy, rtol=1e-13, atol=0)
    _, rot = _to_body(rows, c, np.zeros(3))
    h = rot.apply(w @ j + (js * big_w) @ a)
    assert np.allclose(rows[:, [c["hx"], c["hy"], c["hz"]]], h, rtol=0, atol=1e-12)
    assert np.allclose(h, h[0], rtol=0, atol=1e-6)  # no external torque: kept to rk4's error at dt = 0.5 s
    assert np.allclose(rows[:, [c["hbx"], c["hby"], c["hbz"]]], rot.apply(w @ j), rtol=0, atol=1e-12)
    assert np.allclose(rows[:, [c["tx"], c["ty"], c["tz"]]], -(u @ a), rtol=0, atol=1e-15)
    assert np.all(np.abs(u).max(axis=0) > 0)  # the wheels did work
    assert np.allclose(rows[:, c["four_t"]], 2.0 * np.einsum("ni,ij,nj->n", w, j, w), rtol=1e-13, atol=0)


def test_craft_rows_environment_torques_one_by_one():
    """momentum_dumping (gravity gradient, SRP, drag, torquers): t_gg is 3 mu/r^3 c x (J c) at the row's own
    orbit position (c the nadir in body axes), the applied torque the four parts plus the wheels' reaction."""
    sim, rows, _, _ = _craft_batch("momentum_dumping")
    c = _columns(sim)
    r = rows[:, [c["x_km"], c["y_km"], c["z_km"]]] * 1e3
    norm = np.linalg.norm(r, axis=1)
    nadir, _ = _to_body(rows, c, -r / norm[:, None])
    jxx, jyy, jzz, jxy, jxz, jyz = sim.settings.inertia
    j = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    gg = 3.0 * 3.986004418e14 / norm[:, None] ** 3 * np.cross(nadir, nadir @ j)
    cols = lambda k: rows[:, [c[f"t_{k}_x"], c[f"t_{k}_y"], c[f"t_{k}_z"]]]  # noqa: E731
    assert np.allclose(cols("gg"), gg, rtol=1e-9, atol=1e-16)
    for k in ("gg", "srp", "drag", "mag"):
        assert np.abs(cols(k)).max() > 0, k
    b = Simulation(sim.settings)  # the Python step's own parts (sim.model.loads.LoadModel.parts: the Surfaces' srp, drag)
    for k in range(40):
        b.step(1)
        parts = np.array(b._load.parts(b.q, b.t))
        got = np.array([cols(name)[k] for name in ("gg", "srp", "drag", "mag")])
        assert np.allclose(got, parts, rtol=1e-12, atol=1e-14 * np.abs(parts).max()), k
    u = rows[:, [c["ux1"], c["ux2"], c["ux3"]]]
    a = np.array(sim.settings.wheel_set.axes)
    total = cols("gg") + cols("srp") + cols("drag") + cols("mag") - u @ a
    assert np.allclose(rows[:, [c["tx"], c["ty"], c["tz"]]], total, rtol=0, atol=1e-15)


def test_craft_rows_magnetic_torque_is_m_cross_b():
    """detumble (B-dot, no residual dipole): t_mag = m x B of the row's dipole and field columns."""
    sim, rows, _, _ = _craft_batch("detumble")
    c = _columns(sim)
    m = rows[:, [c["mx"], c["my"], c["mz"]]]
    b = rows[:, [c["bx"], c["by"], c["bz"]]]
    assert np.abs(m).max() > 0
    assert np.allclose(rows[:, [c["t_mag_x"], c["t_mag_y"], c["t_mag_z"]]], np.cross(m, b), rtol=0,
                       atol=1e-12 * np.abs(m).max() * np.abs(b).max())


def test_craft_rows_orbit_angles_against_lvlh_and_the_pointing_error():
    """nadir_pointing: psio/thetao/phio are scipy's ZYX angles of the attitude relative to LVLH (z to nadir, x
    toward the velocity, Markley & Crassidis (2.77)); the pointing error is the angle between the pointing axis
    and the nadir in body axes (the mode sends the axis to nadir)."""
    sim, rows, _, _ = _craft_batch("nadir_pointing", 300.0)
    c = _columns(sim)
    r = rows[:, [c["x_km"], c["y_km"], c["z_km"]]]
    v = rows[:, [c["vx_kms"], c["vy_kms"], c["vz_kms"]]]
    z = -r / np.linalg.norm(r, axis=1)[:, None]
    y = np.cross(z, v)
    y /= np.linalg.norm(y, axis=1)[:, None]
    x = np.cross(y, z)
    lvlh = np.stack((x, y, z), axis=1)  # rows: inertial -> LVLH
    _, rot = _to_body(rows, c, np.zeros(3))
    body = rot.inv().as_matrix()  # inertial -> body
    relative = Rotation.from_matrix(np.transpose(body @ np.transpose(lvlh, (0, 2, 1)), (0, 2, 1)))
    zyx = np.degrees(relative.as_euler("ZYX"))
    assert np.allclose(rows[:, [c["psio_deg"], c["thetao_deg"], c["phio_deg"]]], zyx, rtol=0, atol=1e-8)
    nadir = np.einsum("nij,nj->ni", body, z)
    axis = np.array(sim.settings.pointing_axis)
    err = np.degrees(np.arctan2(np.linalg.norm(np.cross(nadir, axis), axis=1), nadir @ axis))
    assert np.allclose(rows[:, c["point_err_deg"]], err, rtol=0, atol=1e-9)


def test_the_kernel_writes_every_row_across_field_samples(monkeypatch):
    """momentum_dumping over 60 s (a field sample every 10 s: the loop returns at each): no row is made in Python,
    the sample boundary's too (the call that makes that step's world writes it)."""
    settings = load("momentum_dumping").settings
    a = Simulation(settings)
    calls = []
    monkeypatch.setattr(Simulation, "row", lambda self: calls.append(self.t) or ())
    _batch(a, round(60.0 / settings.dt))
    assert calls == []


def test_craft_rows_torque_is_minus_each_axis_wheels_motor_torque_over_a_batch():
    """sun_pointing's first 20 steps (its three wheels on the body axes, no environment torque): each axis of the
    applied torque is minus that axis's wheel's motor torque, ``-sum a_i u_i``; the three differ, so a torque
    read from the wrong wheel or with the wrong sign fails."""
    sim = Simulation(load("sun_pointing").settings)  # the batch alone: fast enough for mutmut's budget of tests
    rows = _batch(sim, 20)
    c = _columns(sim)
    a = np.array(sim.settings.wheel_set.axes)
    u = rows[:, [c["ux1"], c["ux2"], c["ux3"]]]
    expected = -(u @ a)
    assert np.allclose(rows[:, [c["tx"], c["ty"], c["tz"]]], expected, rtol=0, atol=1e-15)
    k = np.argmax(np.abs(expected).min(axis=1))   # a row where every axis works
    x, y, z = expected[k]
    assert min(abs(x), abs(y), abs(z), abs(y - z), abs(x - z), abs(x - y)) > 1e-9
