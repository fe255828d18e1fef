"""Orbital elements from a state (sim.world.orbit.state_to_elements, Vallado Algorithm 9) at the apsides.

The state is built here from the elements in closed form (perifocal
position and velocity, p = a (1 - e^2), r = p / (1 + e cos nu),
v = sqrt(mu / p) (-sin nu, e + cos nu), turned by R3(-raan) R1(-i) R3(-argp);
Vallado (2-57)), at the points where the cosines of argp and nu are +-1 and
rounding puts them a few ulps past: the perigee or the apogee on the
ascending node.  Angles are compared on the circle (0 and 2 pi are one angle).
"""

import math

import numpy as np
import pytest

from sim.world.orbit import MU_KM, state_to_elements


def rot(axis, angle):
    c, s = math.cos(angle), math.sin(angle)
    i, j = [k for k in range(3) if k != axis]
    m = np.eye(3)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m


def state(a, e, i, raan, argp, nu, mu=MU_KM):
    p = a * (1.0 - e * e)
    r = p / (1.0 + e * math.cos(nu)) * np.array([math.cos(nu), math.sin(nu), 0.0])
    v = math.sqrt(mu / p) * np.array([-math.sin(nu), e + math.cos(nu), 0.0])
    m = rot(2, raan) @ rot(0, i) @ rot(2, argp)
    return tuple(float(x) for x in m @ r), tuple(float(x) for x in m @ v)


def on_circle(x, y):
    """|x - y| as angles, in [0, pi]."""
    return abs((x - y + math.pi) % (2.0 * math.pi) - math.pi)


def random_orbits(n, seed):
    rng = np.random.default_rng(seed)
    return zip(rng.uniform(7000.0, 40000.0, n), rng.uniform(0.01, 0.7, n), rng.uniform(0.1, 3.0, n),
               rng.uniform(0.0, 2.0 * math.pi, n))


@pytest.mark.parametrize("argp, nu", [(0.0, 0.0), (math.pi, math.pi), (0.0, math.pi), (math.pi, 0.0)],
                         ids=["perigee-on-the-node", "apogee-on-the-node", "apogee", "perigee"])
def test_elements_at_the_apsides(argp, nu):
    for a, e, i, raan in random_orbits(40, seed=1):
        got = state_to_elements(*state(a, e, i, raan, argp, nu))
        assert got[0] == pytest.approx(a, rel=1e-10) and got[1] == pytest.approx(e, rel=1e-9)
        assert got[2] == pytest.approx(i, abs=1e-12) and on_circle(got[3], raan) < 1e-12
        assert on_circle(got[4], argp) < 1e-7 and on_circle(got[5], nu) < 1e-7   # acos near +-1: sqrt of ulps


@pytest.mark.parametrize("nu", [1e-3, 0.3, 1.5, 2.9, 3.5, 5.0, 2.0 * math.pi - 1e-3])
def test_true_anomaly_all_around_in_canonical_units(nu):
    # mu = 1, a ~ 1 (Earth radii and the matching time unit): r . v = r v_r is below 1 all around the orbit
    a, e, i, raan, argp = 1.3, 0.2, 0.9, 2.0, 0.7
    got = state_to_elements(*state(a, e, i, raan, argp, nu, mu=1.0), mu=1.0)
    np.testing.assert_allclose(got[:3], (a, e, i), rtol=1e-12)
    assert on_circle(got[3], raan) < 1e-12 and on_circle(got[4], argp) < 1e-9 and on_circle(got[5], nu) < 1e-9
