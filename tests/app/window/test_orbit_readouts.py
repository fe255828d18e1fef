"""The orbit readouts (issue 31): a known world state gives known text; the beta angle against its closed form.

Every expected string is written by hand.  The state: latitude 0.5 rad
(28.648 deg N), longitude -2 rad (114.592 deg W), 512.345 km; the orbit
normal along +z and the Sun 30 deg above the orbit plane, so beta is +30 deg.
"""

import dataclasses
import math

import pytest
from PySide6.QtWidgets import QLabel

from app.window.orbit_readouts import NOT_POINTED, ORBIT_READOUTS, OrbitReadouts, orbit_texts, pointed, shadow_text
from sim.run.scenario import load
from sim.model.world import WorldState
from tests.app.controls.test_readouts import SNAPSHOT

S30, C30 = math.sin(math.radians(30.0)), math.cos(math.radians(30.0))
WORLD = WorldState(t=12.3456, days_utc=8800.5, r_km=(7000.0, 0.0, 0.0), v_kms=(0.0, 7.5, 0.0),
                   sun=(0.0, C30, S30), sun_km=1.496e8, sunlit=1.0, gmst=1.0,
                   lat=0.5, lon=-2.0, alt_km=512.345)
ORBIT = dataclasses.replace(SNAPSHOT, world=WORLD, pointing_error_deg=0.012345)

EXPECTED = {
    "lat": " 28.648° N",
    "lon": "114.592° W",
    "alt": "512.35 km",
    "beta": "+30.00°",
    "shadow": "sunlit",
    "point_err": "0.0123°",
}


def test_a_known_world_reads_as_written_by_hand():
    assert orbit_texts(ORBIT) == EXPECTED


def test_no_world_no_readouts():
    assert orbit_texts(SNAPSHOT) == {}


@pytest.mark.parametrize("sunlit, text", [(1.0, "sunlit"), (0.0, "umbra"), (0.5, "penumbra 50 %"),
                                          (0.999, "penumbra 99 %"), (0.001, "penumbra 1 %")])
def test_shadow(sunlit, text):
    assert shadow_text(sunlit) == text


@pytest.mark.parametrize("lat, lon, text_lat, text_lon", [
    (0.0, 0.0, "  0.000°  ", "  0.000°  "),
    (-math.pi / 2, math.pi, " 90.000° S", "180.000° E"),
    (-1e-9, 1e-9, "  0.000°  ", "  0.000°  "),  # never -0.000
])
def test_hemispheres(lat, lon, text_lat, text_lon):
    texts = orbit_texts(dataclasses.replace(ORBIT, world=dataclasses.replace(WORLD, lat=lat, lon=lon)))
    assert (texts["lat"], texts["lon"]) == (text_lat, text_lon)


@pytest.mark.parametrize("gamma_deg, raan_deg, i_deg", [(0.0, 0.0, 97.4), (90.0, 0.0, 97.4), (200.0, 310.0, 28.5)])
def test_the_beta_readout_is_the_closed_form(gamma_deg, raan_deg, i_deg):
    """A circular orbit of RAAN and inclination with the Sun at ecliptic longitude gamma (Rickman, NASA 2014)."""
    from sim.world.orbit import R_EARTH_KM, KeplerOrbit
    from tests.sim.world.test_beta import closed_form, sun_at

    gamma, raan, i = map(math.radians, (gamma_deg, raan_deg, i_deg))
    r, v = KeplerOrbit(R_EARTH_KM + 500.0, 0.0, i, raan, 0.0, 1.0).state(0.0)
    world = dataclasses.replace(WORLD, r_km=r, v_kms=v, sun=sun_at(gamma))
    assert orbit_texts(dataclasses.replace(ORBIT, world=world))["beta"] == \
        f"{math.degrees(closed_form(gamma, raan, i)) + 0.0:+.2f}°"


def test_the_widget_shows_each_text_beside_its_name_and_hides_without_an_orbit(qtbot):
    readouts = OrbitReadouts()
    qtbot.addWidget(readouts)
    assert readouts.isHidden()  # no orbit yet
    readouts.show_snapshot(ORBIT)
    assert not readouts.isHidden()
    layout = readouts.layout()
    titles = dict(pair for column in ORBIT_READOUTS for pair in column)
    for name, title in titles.items():
        value = readouts.findChild(QLabel, f"readout_{name}")
        assert value.text() == EXPECTED[name], name
        row, col, _, _ = layout.getItemPosition(layout.indexOf(value.parentWidget()))
        assert layout.itemAtPosition(row, col - 1).widget().text() == title, name
    readouts.show_snapshot(SNAPSHOT)
    assert readouts.isHidden()


@pytest.mark.parametrize("name, points", [("detumble", False), ("sun_pointing", True), ("nadir_pointing", True)])
def test_the_pointing_error_reads_only_while_something_points_the_body(name, points):
    # issue 43: detumble (B-dot, no attitude controller) read a "pointing error" of 99 deg, 153 deg, 2.2 deg
    assert pointed(load(name).settings) is points
    assert orbit_texts(ORBIT, pointing=points)["point_err"] == ("0.0123°" if points else NOT_POINTED)


@pytest.mark.gl
def test_the_window_reads_no_pointing_error_in_detumble_and_one_in_sun_pointing(qtbot, main_window):
    win = main_window("detumble")
    shown = win.orbit_readouts.values["point_err"]
    qtbot.waitUntil(lambda: win.orbit_readouts.isVisible() and shown.text() == NOT_POINTED)
    assert win.open_scenario("sun_pointing")
    qtbot.waitUntil(lambda: shown.text().endswith("°") and float(shown.text()[:-1]) > 0.0)
