"""The estimator's and the thrusters' history columns written by the craft's compiled loop (issue 42).

With an estimator the row of a step carries the estimate after that step's end (the gyro's sample and the MEKF's
propagation) and before the next step's start (the sensors' updates): the loop writes it between the two
(:func:`sim.model.craft_nav.end_step`, :func:`~sim.model.craft_nav.start_step`), the last step of a call's row
being Python's.  The rows of :meth:`Simulation.step_rows` are compared bit for bit with a second body stepped one
step at a time whose rows are its :meth:`Snapshot.row` (the estimate there from
:meth:`sim.model.navigation.Navigation.values`, the thrusters' from
:meth:`sim.model.thruster_drive.ThrusterDrive.values`) and, every few steps, the row formula's Python text
(``Simulation._craft_row(compiled=False)``), and against what does not go through the row's formula:
the navigation's own state read after each step (the estimate, 3 sigma from the covariance by numpy, the error
against scipy's rotations) and the fuel summed from the rows' own levels (Sutton and Biblarz, ch. 2).
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.model import advance_craft as craft
from sim.model.rows import history_columns_of
from sim.model.simulation import Simulation
from sim.run.scenario import load

ESTIMATING = ("fly_on_estimate", "mekf", "sun_mag_triad", "cubesat_year")
THRUSTING = ("pwpf_slew", "thruster_limit_cycle", "thruster_unloading")
G0 = 9.80665


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    craft.advance_craft.wait()


def _bits(a):
    return np.asarray(a, dtype=float).view(np.uint64)


def _columns(sim):
    return {name: i for i, name in enumerate(history_columns_of(sim.settings))}


def _rows(settings, n):
    sim = Simulation(settings)
    assert sim._rows_packed() is not None and craft.advance_craft.wanted(n), "the kernel should write these rows"
    out = np.full((n, len(history_columns_of(settings))), np.nan)
    sim.step_rows(n, out)
    return sim, out


@pytest.mark.parametrize("name", ESTIMATING + THRUSTING)
def test_rows_are_the_snapshot_rows_bit_for_bit_across_blocks_and_samples(name):
    """Long enough for several noise blocks (256 gyro samples) and field samples (10 s)."""
    settings = load(name).settings
    n = max(600, round(120.0 / settings.dt)) if name in ESTIMATING else round(30.0 / settings.dt)
    sim, rows = _rows(settings, n)
    ref = Simulation(settings)
    expected, python = [], []
    for k in range(n):
        ref.step(1)
        expected.append(ref.snapshot().row())
        if k % 7 == 0 or k > n - 20:  # the formula's Python text (Simulation.row calls it before the kernel loads)
            python.append(ref._craft_row(compiled=False))
    assert np.array_equal(_bits(rows), _bits(np.array(expected)))
    assert np.array_equal(_bits(sim.q), _bits(ref.q))
    picked = [k for k in range(n) if k % 7 == 0 or k > n - 20]
    assert np.array_equal(_bits(rows[picked]), _bits(np.array(python)))


@pytest.mark.parametrize("name", ESTIMATING)
def test_the_estimate_columns_are_the_navigations_state_after_each_step(name):
    """qe of row k is the navigation's estimate after step k (its end, before step k+1's sensors), err the small
    rotation from the estimate to the truth (scipy), sig3 three sigma of the covariance's attitude block (numpy),
    nsig3 its negative; the timeline 3 - k (+ 0.6 while the sensor delivers)."""
    settings = load(name).settings
    n = 400
    sim, rows = _rows(settings, n)
    c = _columns(sim)
    ref = Simulation(settings)
    qe = [c[f"qe{i}"] for i in range(1, 5)]
    err = [c[f"err_{a}_deg"] for a in "xyz"]
    sig = [c[f"sig3_{a}_deg"] for a in "xyz"]
    nsig = [c[f"nsig3_{a}_deg"] for a in "xyz"]
    line = [c[f"timeline_{s}"] for s in ("gyro", "star_tracker", "sun_sensors", "magnetometer")]
    for k in range(n):
        ref.step(1)
        nav = ref.navigation
        assert np.array_equal(_bits(rows[k, qe]), _bits(nav.q[0])), k
        p = nav.covariance()[0]
        assert np.allclose(rows[k, sig], np.degrees(3.0 * np.sqrt(np.diag(p))), rtol=1e-14, atol=0), k
        assert np.array_equal(rows[k, nsig], -rows[k, sig])
        # C(Q_true) = exp(-[a x]) C(Q_est), C inertial -> body (Hoffmann's Q: scipy's of the conjugate, C^T)
        truth = Rotation.from_quat(np.array(ref.attitude) * (-1, -1, -1, 1))
        est = Rotation.from_quat(nav.q[0] * (-1, -1, -1, 1))
        a = (est.inv() * truth).as_rotvec()
        assert np.allclose(rows[k, err], np.degrees(a), rtol=0, atol=1e-6 * max(1.0, np.degrees(np.abs(a)).max()))
        levels = np.array([3.0, 2.0, 1.0, 0.0]) + 0.6 * nav.available[0]
        assert np.array_equal(np.isnan(rows[k, line]), np.isnan(levels))
        assert np.allclose(rows[k, line], levels, rtol=0, atol=1e-15, equal_nan=True)
    assert np.nanmax(np.abs(rows[:, err])) > 0.0


@pytest.mark.parametrize("name", THRUSTING)
def test_the_fuel_column_is_the_rows_own_on_times(name):
    """fuel_kg = sum_i F_i t_i / (Isp_i g0), t_i the sum over the rows of level_i dt (each row's level held over
    its step); the force column sum_i level_i F_i d_i."""
    settings = load(name).settings
    n = round(30.0 / settings.dt)
    sim, rows = _rows(settings, n)
    c = _columns(sim)
    t = sim.settings.thruster_set
    k = len(t.force)
    levels = rows[:, [c[f"thr_on{i}"] for i in range(1, k + 1)]]
    assert levels.max() > 0.0, "the thrusters fired"
    fuel = np.cumsum(levels * settings.dt, axis=0) @ (np.asarray(t.force) / (np.asarray(t.isp) * G0))
    assert np.allclose(rows[:, c["fuel_kg"]], fuel, rtol=1e-12, atol=1e-18)
    force = levels @ (np.asarray(t.dirs) * np.asarray(t.force)[:, None])
    assert np.allclose(rows[:, [c["thr_fx"], c["thr_fy"], c["thr_fz"]]], force, rtol=1e-12, atol=1e-15)


def test_the_kernel_writes_all_but_the_last_row_of_each_call(monkeypatch):
    """fly_on_estimate over 300 s: Python makes the row of the last step of each call of the loop (its end is
    Python's), no other."""
    settings = load("fly_on_estimate").settings
    n = round(300.0 / settings.dt)
    calls, rows = [], []

    class Counted:
        def __init__(self, kernel):
            self.kernel = kernel

        def __getattr__(self, name):
            return getattr(self.kernel, name)

        def __call__(self, *args):
            out = self.kernel(*args)
            calls.append(out[1])
            return out

    monkeypatch.setattr(craft, "advance_craft", Counted(craft.advance_craft))
    width = len(history_columns_of(settings))
    monkeypatch.setattr(Simulation, "row", lambda self: rows.append(self.t) or (np.nan,) * width)
    sim = Simulation(settings)
    sim.step_rows(n, np.full((n, width), np.nan))
    assert sum(calls) == n and len(calls) >= 2
    assert 0 < len(rows) <= len(calls) < n / 50
