"""Independent references shared by the tests: scipy's Rotation and solve_ivp as oracles.

Hoffmann's Q (scalar last, inertial -> body coordinate transformation) is the
conjugate of scipy's quaternion of the body's attitude (checked in
tests/sim/core/test_quaternion.py against the Cayley matrix).
"""

import numpy as np
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation


def scipy_rotation(q):
    """scipy Rotation for Hoffmann's Q (body -> inertial attitude)."""
    q = np.asarray(q, dtype=float)
    return Rotation.from_quat(np.array([-q[0], -q[1], -q[2], q[3]]))


def attitude_error(p, q):
    """Angle (rad) of the rotation between attitudes p and q, from scipy."""
    return float((scipy_rotation(p).inv() * scipy_rotation(q)).magnitude())


def unit(v):
    """``v`` scaled to unit length."""
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def hamilton(a, b):
    """Hamilton product of two quaternions, scalar last, written from scratch."""
    av, a4 = np.asarray(a[:3], dtype=float), float(a[3])
    bv, b4 = np.asarray(b[:3], dtype=float), float(b[3])
    return np.append(a4 * bv + b4 * av + np.cross(av, bv), a4 * b4 - av @ bv)


def solve_attitude(t_end, w0, q0, J, torque=(0.0, 0.0, 0.0)):
    """(w, Q) at ``t_end`` by scipy's solve_ivp (DOP853, rtol = atol = 1e-12).

    Euler's equations ``J dw/dt = T - w x J w`` with a constant body torque
    and the kinematics ``dQ/dt = -1/2 (w, 0) (x) Q`` (Q is the conjugate of
    scipy's body -> inertial quaternion r, and dr/dt = 1/2 r (x) (w, 0)).
    """
    J = np.asarray(J, dtype=float)
    j_inv = np.linalg.inv(J)
    torque = np.asarray(torque, dtype=float)

    def rhs(t, y):
        w, q = y[:3], y[3:]
        return np.concatenate([j_inv @ (torque - np.cross(w, J @ w)), -0.5 * hamilton(np.append(w, 0.0), q)])

    sol = solve_ivp(rhs, (0.0, t_end), np.concatenate([w0, q0]), method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    return sol.y[:3, -1], sol.y[3:, -1]


def wgs84_site(lat_deg, lon_deg):
    """A ground site on the WGS-84 ellipsoid: its ECEF position (km) and its local up (the ellipsoid's
    normal), from the geodetic latitude and longitude (NIMA TR8350.2, eq. 4-14; a = 6378.137 km,
    f = 1/298.257223563), written here apart from sim.world.frames."""
    lat, lon = np.radians(lat_deg), np.radians(lon_deg)
    a, f = 6378.137, 1.0 / 298.257223563
    e2 = f * (2.0 - f)
    n = a / np.sqrt(1.0 - e2 * np.sin(lat) ** 2)
    site = np.array([n * np.cos(lat) * np.cos(lon), n * np.cos(lat) * np.sin(lon), n * (1.0 - e2) * np.sin(lat)])
    up = np.array([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    return site, up


def seen_from(r_ecef_km, site, up):
    """Elevation (rad) of a point seen from a site: the angle of the line of sight above the local horizon."""
    d = np.asarray(r_ecef_km, dtype=float) - site
    return float(np.arcsin(d @ up / np.linalg.norm(d)))


def fly_with_own_runs(settings, spec, steps):
    """An ensemble flown ``steps`` steps, and beside it each body's own run (a Simulation of its
    ``body_settings``): the reference every ensemble body must equal bit for bit."""
    from sim.ensemble import Ensemble
    from sim.model.simulation import Simulation

    ens = Ensemble(settings, spec)
    sims = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    ens.step(steps)
    for sim in sims:
        sim.step(steps)
    return ens, sims
