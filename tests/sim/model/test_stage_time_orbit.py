"""Fourth order on an orbit (issue 42): the integrator's stages read the orbit at their own times.

The reference is scipy's DOP853 (rtol 1e-12) on the attitude and the orbit together, written here: the
two-body orbit ``r'' = -mu r / |r|^3`` integrated beside Euler's equations with the gravity gradient
``3 mu / |r|^3 c x J c`` (``c`` the unit position in body axes) and ``dQ/dt = -1/2 [w; 0] * Q`` (Hamilton,
scalar last).  An inclined, eccentric orbit (e = 0.1): rk4 meets the reference at dt = 1 s, and its error
falls as dt^4 (the straight line ``r + v (t - t_step)`` inside a step, as before issue 42, made it dt^2).
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.world.orbit import MU_KM

from oracle import attitude_error, hamilton

SAT = (100.0, 120.0, 50.0, 0.0, 0.0, 0.0)
ORBIT = (1500.0, 0.1, 51.6, 30.0, 40.0, 10.0)   # a = R + 1,500 km, e = 0.1: perigee 712 km
T_END = 1200.0


SLOW = (2e-4, -1e-3, -1e-4)      # rad/s: the orbit's gravity gradient dominates the error
FAST = (0.05, -0.08, 0.04)       # rad/s: a tumble whose own truncation error shows rk4's order


def _settings(dt, rates=SLOW):
    return Settings(inertia=SAT, integrator="rk4", dt=dt, angles_deg=(8.0, -12.0, 5.0), rates=rates,
                    gravity_gradient=True, orbit=ORBIT, j2=False)


def _dop853(settings, t_end):
    """(w, Q) at ``t_end``: attitude and two-body orbit integrated together by DOP853, rtol 1e-12."""
    jxx, jyy, jzz, jxy, jxz, jyz = settings.mass_properties.inertia
    J = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    j_inv = np.linalg.inv(J)
    sim = Simulation(settings)
    ws = sim.world

    def rhs(t, y):
        w, q, r, v = y[:3], y[3:7], y[7:10], y[10:]
        rn = np.linalg.norm(r)
        x, yq, z, s = -q[0], -q[1], -q[2], q[3]   # scipy's (body -> inertial) quaternion, unit
        b2i = np.array([[s * s + x * x - yq * yq - z * z, 2 * (x * yq - s * z), 2 * (x * z + s * yq)],
                        [2 * (x * yq + s * z), s * s - x * x + yq * yq - z * z, 2 * (yq * z - s * x)],
                        [2 * (x * z - s * yq), 2 * (yq * z + s * x), s * s - x * x - yq * yq + z * z]]) / (q @ q)
        c = b2i.T @ (r / rn)
        torque = 3.0 * MU_KM / rn**3 * np.cross(c, J @ c)
        return np.concatenate([j_inv @ (torque - np.cross(w, J @ w)), -0.5 * hamilton(np.append(w, 0.0), q),
                               v, -MU_KM * r / rn**3])

    y0 = np.concatenate([settings.rates, sim.q, ws.r_km, ws.v_kms])
    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=1e-12, atol=1e-15, t_eval=[t_end])
    assert sol.success
    return sol.y[:3, -1], sol.y[3:7, -1]


def _rk4_error(settings, w_ref, q_ref):
    sim = Simulation(settings)
    sim.step(round(T_END / settings.dt))
    s = sim.snapshot()
    return attitude_error(s.q, q_ref), np.max(np.abs(np.array(s.w) - w_ref))


def test_rk4_on_an_eccentric_orbit_meets_dop853():
    """A slow tumble, 1,200 steps of 1 s: rounding only (about 1e-13 rad).  The straight line inside a step
    was 3.4e-7 rad off here (8.4e-8 at dt 0.5 s, 2.1e-8 at 0.25 s: second order)."""
    w_ref, q_ref = _dop853(_settings(1.0), T_END)
    angle, rate = _rk4_error(_settings(1.0), w_ref, q_ref)
    assert angle < 2e-12       # rad
    assert rate < 1e-14        # rad/s


@pytest.mark.slow
def test_rk4_on_an_orbit_is_fourth_order():
    """A fast tumble on the same orbit: halving dt divides the error by 16 (dt^4)."""
    w_ref, q_ref = _dop853(_settings(1.0, FAST), T_END)
    errors = [_rk4_error(_settings(dt, FAST), w_ref, q_ref)[0] for dt in (1.0, 0.5, 0.25)]
    orders = [math.log2(a / b) for a, b in zip(errors, errors[1:])]
    assert all(3.8 < p < 4.3 for p in orders), (errors, orders)
