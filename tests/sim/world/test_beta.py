"""The beta angle (issue 31): the Sun over the orbit plane, against the closed form of a circular orbit."""

import math

import numpy as np
import pytest

from sim.core.ops import COLUMN
from sim.world.eclipse import beta_angle
from sim.world.orbit import R_EARTH_KM, KeplerOrbit

EPS = math.radians(23.44)  # the obliquity of the ecliptic


def closed_form(gamma, raan, i, eps=EPS):
    """Rickman (NASA 2014), the beta angle of a circular orbit with the Sun at ecliptic longitude gamma."""
    return math.asin(math.cos(gamma) * math.sin(raan) * math.sin(i)
                     - math.sin(gamma) * math.cos(eps) * math.cos(raan) * math.sin(i)
                     + math.sin(gamma) * math.sin(eps) * math.cos(i))


def sun_at(gamma, eps=EPS):
    """Unit vector to the Sun at ecliptic longitude gamma (ecliptic latitude 0), equatorial axes."""
    return (math.cos(gamma), math.cos(eps) * math.sin(gamma), math.sin(eps) * math.sin(gamma))


@pytest.mark.parametrize("gamma_deg, raan_deg, i_deg, nu_deg", [
    (0.0, 0.0, 97.4, 0.0), (90.0, 0.0, 97.4, 33.0), (90.0, 90.0, 51.6, 200.0), (200.0, 310.0, 28.5, 77.0),
    (45.0, 135.0, 0.0, 10.0), (300.0, 20.0, 179.0, 300.0), (123.0, 250.0, 63.4, 150.0)])
def test_beta_of_a_circular_orbit_is_the_closed_form(gamma_deg, raan_deg, i_deg, nu_deg):
    gamma, raan, i = map(math.radians, (gamma_deg, raan_deg, i_deg))
    r, v = KeplerOrbit(R_EARTH_KM + 500.0, 0.0, i, raan, math.radians(40.0), math.radians(nu_deg)).state(0.0)
    assert beta_angle(r, v, sun_at(gamma)) == pytest.approx(closed_form(gamma, raan, i), abs=1e-12)


def test_beta_is_the_same_all_around_the_orbit_and_on_columns():
    orbit = KeplerOrbit(R_EARTH_KM + 700.0, 0.0, math.radians(97.4), math.radians(60.0), 0.0, 0.0)
    gamma = math.radians(75.0)
    states = [orbit.state(t) for t in np.linspace(0.0, 6000.0, 7)]
    r = tuple(np.array([s[0][k] for s in states]) for k in range(3))
    v = tuple(np.array([s[1][k] for s in states]) for k in range(3))
    beta = beta_angle(r, v, sun_at(gamma), COLUMN)
    np.testing.assert_allclose(beta, closed_form(gamma, math.radians(60.0), math.radians(97.4)), atol=1e-12)


def test_the_sun_in_the_orbit_plane_or_along_its_normal():
    r, v = (7000.0, 0.0, 0.0), (0.0, 7.5, 0.0)  # normal along +z
    assert beta_angle(r, v, (0.0, 1.0, 0.0)) == 0.0
    assert beta_angle(r, v, (0.0, 0.0, 1.0)) == pytest.approx(math.pi / 2)
    assert beta_angle(r, v, (0.0, 0.0, -1.0)) == pytest.approx(-math.pi / 2)
