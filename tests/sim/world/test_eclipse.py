"""Eclipses (issue 31): the conical shadow against closed forms."""

import math

import numpy as np
import pytest

from sim.core.ops import COLUMN
from sim.world.eclipse import R_SUN_KM, sunlit_fraction
from sim.world.orbit import R_EARTH_KM, KeplerOrbit
from sim.world.sun import AU_KM

SUN = (AU_KM, 0.0, 0.0)


def test_sunlit_behind_and_beside_the_earth():
    assert sunlit_fraction((0.0, 7000.0, 0.0), SUN) == 1.0
    assert sunlit_fraction((7000.0, 0.0, 0.0), SUN) == 1.0
    assert sunlit_fraction((-7000.0, 0.0, 0.0), SUN) == 0.0
    # deep in the Earth's shadow cone's tip region the umbra ends (about 1.38 million km)
    assert sunlit_fraction((-2.0e6, 0.0, 0.0), SUN) > 0.0


def test_penumbra_fraction_is_the_discs_overlap():
    """At a point where the Earth's limb covers half the Sun's disc in angle (c = b): the overlap of two discs
    of apparent radii a, b at centre distance c, by the closed form of circle-circle intersection."""
    r = np.array([-7000.0, 0.0, 0.0])
    b = math.asin(R_EARTH_KM / 7000.0)
    # move sideways until the Sun's centre sits on the Earth's limb
    y = 7000.0 * math.sin(b)
    x = -7000.0 * math.cos(b)
    r = (x, y, 0.0)
    d = math.dist(SUN, r)
    a = math.asin(R_SUN_KM / d)
    c = math.acos(-np.dot(r, np.subtract(SUN, r)) / (np.linalg.norm(r) * d))
    # the lens area by Weisstein's formula (MathWorld, "Circle-Circle Intersection"), flat discs
    lens = (a * a * math.acos((c * c + a * a - b * b) / (2 * c * a)) + b * b * math.acos((c * c + b * b - a * a) / (2 * c * b))
            - 0.5 * math.sqrt((-c + a + b) * (c + a - b) * (c - a + b) * (c + a + b)))
    assert sunlit_fraction(r, SUN) == pytest.approx(1.0 - lens / (math.pi * a * a), abs=1e-9)
    assert 0.4 < sunlit_fraction(r, SUN) < 0.6


@pytest.mark.parametrize("beta_deg", [0.0, 30.0, 60.0])
def test_eclipse_duration_against_the_cylindrical_closed_form(beta_deg):
    """A circular orbit at beta: the time with less than half the disc is the cylinder's closed form
    T/pi acos(sqrt(h^2 + 2 R h) / (r cos beta)) (e.g. Wertz, Space Mission Engineering (2011), 9-?; the
    half-disc boundary of the cone sits on the cylinder to within the penumbra's asymmetry, a few seconds)."""
    beta = math.radians(beta_deg)
    a = R_EARTH_KM + 500.0
    orbit = KeplerOrbit(a, 0.0, beta, math.pi / 2, 0.0, 0.0)
    t = np.arange(0.0, orbit.period, 0.5)
    r, _ = KeplerOrbit(a, 0.0, beta, math.pi / 2, 0.0, 0.0, ops=COLUMN).state(t)
    f = sunlit_fraction(r, SUN, COLUMN)
    h = a - R_EARTH_KM
    want = orbit.period / math.pi * math.acos(math.sqrt(h * h + 2 * R_EARTH_KM * h) / (a * math.cos(beta)))
    assert np.sum(f < 0.5) * 0.5 == pytest.approx(want, abs=3.0)
    assert np.sum(f == 0.0) * 0.5 < want < np.sum(f < 1.0) * 0.5   # umbra inside, penumbra outside


def test_no_eclipse_above_the_critical_beta():
    a = R_EARTH_KM + 500.0
    crit = math.acos(math.sqrt(500.0 ** 2 + 2 * R_EARTH_KM * 500.0) / a)
    beta = crit + math.radians(1.0)
    orbit = KeplerOrbit(a, 0.0, beta, math.pi / 2, 0.0, 0.0, ops=COLUMN)
    r, _ = orbit.state(np.arange(0.0, 5700.0, 1.0))
    assert np.all(sunlit_fraction(r, SUN, COLUMN) == 1.0)


def test_columns_agree_with_floats():
    rs = [(-7000.0, 100.0 * k, 0.0) for k in range(-40, 41, 4)]
    col = sunlit_fraction(tuple(np.array(x) for x in zip(*rs)), SUN, COLUMN)
    for k, r in enumerate(rs):
        assert abs(col[k] - sunlit_fraction(r, SUN)) < 1e-12
