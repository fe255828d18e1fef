"""The orbit view (issue 31): where it draws the spacecraft, its axes, the Earth and its continents.

References: the snapshot's own r_km (the drawing is a plain scaling), scipy's
Rotation for the body axes, astropy's ITRS -> GCRS for the Earth's turn (GMST
with precession), and the map of the world itself: the Sahara is land, the
Atlantic is sea, and a mirrored map would swap Libya and the sea off Western Sahara.
"""

import math

import numpy as np
import pytest
from pyqtgraph.Qt import QtGui
from scipy.spatial.transform import Rotation

from app.view3d.earth import land_map, sphere_triangles
from app.view3d.orbit import SCENE_PER_KM, OrbitView, ecef_to_eci_matrix
from sim.model.simulation import Simulation
from sim.run.scenario import load
from sim.world.frames import geodetic_to_ecef

pytestmark = pytest.mark.gl


def _run(scenario="sun_pointing", seconds=600.0):
    settings = load(scenario).settings
    sim = Simulation(settings)
    sim.step(int(seconds / settings.dt))
    return settings, sim.snapshot()


@pytest.fixture
def orbit_view(qtbot):
    from tests.conftest import gl_available, no_gl

    if not gl_available() or QtGui.QGuiApplication.platformName() != "xcb":
        no_gl("the orbit view")  # fails, or skips and is counted under ATTITUDE_SIM_NO_GL=1
    widget = OrbitView()
    qtbot.addWidget(widget)
    widget.resize(480, 480)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(widget.scene.isValid, timeout=10_000)
    return widget


def _mapped(item, point):
    """Where ``item`` draws a point of its own coordinates, scene units (its transform and its parents')."""
    m = np.array(item.viewTransform().data()).reshape(4, 4).T  # QMatrix4x4.data() is column major
    return (m @ np.r_[point, 1.0])[:3]


def test_the_spacecraft_is_drawn_at_the_snapshots_position_with_its_body_axes(orbit_view):
    settings, snapshot = _run()
    orbit_view.new_run(settings)
    orbit_view.show_snapshot(snapshot)
    scene = orbit_view.scene
    r = np.array(snapshot.world.r_km) * SCENE_PER_KM
    np.testing.assert_allclose(scene.craft_position(), r, rtol=1e-6)
    np.testing.assert_allclose(_mapped(scene.craft, (0.0, 0.0, 0.0)), r, rtol=1e-6)
    # the body axes in ECI are the rows of C(Q): scipy's matrix of Hoffmann's Q (scalar last) is C
    c = Rotation.from_quat(snapshot.attitude).as_matrix()
    for k in range(3):
        np.testing.assert_allclose(_mapped(scene.craft, np.eye(3)[k]) - r, c[k], atol=1e-5)
    # the LVLH triad: z to nadir, y against the orbit normal
    nadir = -r / np.linalg.norm(r)
    np.testing.assert_allclose(_mapped(scene.lvlh, (0.0, 0.0, 1.0)) - r, nadir, atol=1e-5)
    normal = np.cross(snapshot.world.r_km, snapshot.world.v_kms)
    np.testing.assert_allclose(_mapped(scene.lvlh, (0.0, 1.0, 0.0)) - r, -normal / np.linalg.norm(normal), atol=1e-5)
    np.testing.assert_allclose(scene.track_points[-1], r, rtol=1e-6)


def test_the_earth_turns_by_gmst_and_precession_as_astropy_says():
    import astropy.units as u
    from astropy.coordinates import GCRS, ITRS, CartesianRepresentation
    from astropy.time import Time

    import tests.astropy_offline  # noqa: F401

    settings, snapshot = _run(seconds=3000.0)
    ws = snapshot.world
    turn = ecef_to_eci_matrix(ws.days_utc, ws.gmst)
    t = Time(2451545.0, ws.days_utc, format="jd", scale="utc")
    t.delta_ut1_utc = 0.0
    for axis in np.eye(3):
        want = ITRS(CartesianRepresentation(*axis, unit=u.km), obstime=t).transform_to(GCRS(obstime=t))
        want = want.cartesian.xyz.value
        # nutation and polar motion neglected (sim.world.frames): under 20 arcsec
        assert math.degrees(math.acos(min(1.0, turn[:, 0 if axis[0] else 1 if axis[1] else 2] @ want / np.linalg.norm(want)))) < 0.01


def test_the_earth_item_carries_lon_0_on_the_equator_along_ecef_x(orbit_view):
    settings, snapshot = _run(seconds=3000.0)
    orbit_view.new_run(settings)
    orbit_view.show_snapshot(snapshot)
    ws = snapshot.world
    earth = orbit_view.scene.earth
    marker = np.array(geodetic_to_ecef(0.0, 0.0, 0.0)) * SCENE_PER_KM
    drawn = _mapped(earth, marker)
    drawn /= np.linalg.norm(drawn)
    # GMST alone, without precession (0.33 deg in 2024): within half a degree of (cos g, sin g, 0)
    assert math.degrees(math.acos(drawn @ (math.cos(ws.gmst), math.sin(ws.gmst), 0.0))) < 0.5
    np.testing.assert_allclose(drawn, ecef_to_eci_matrix(ws.days_utc, ws.gmst)[:, 0], atol=1e-6)
    np.testing.assert_allclose(earth.sun, ecef_to_eci_matrix(ws.days_utc, ws.gmst).T @ ws.sun, atol=1e-6)


def test_the_baked_map_has_the_continents_in_their_places():
    land = land_map()
    assert land.shape == (360, 720)

    def at(lat, lon):
        return land[int((90 - lat) / 0.5), int((lon + 180) / 0.5)]
    for lat, lon in ((20, 10), (51.5, -0.1), (-25, 135), (40, -100), (-10, -55), (-85, 0)):
        assert at(lat, lon) > 200, (lat, lon)
    for lat, lon in ((0, -30), (0, -150), (-40, 80), (30, -45), (25, -20)):
        assert at(lat, lon) < 50, (lat, lon)
    assert 0.25 < land.mean() / 255 < 0.36  # land is about 29 % of the Earth (lakes and Antarctica count here)


def _centre_pixel(view, lat_deg, lon_deg):
    """Look at the drawn Earth straight down on (lat, lon), the Sun overhead there; the colour at the centre."""
    scene = view.scene
    p = np.array(geodetic_to_ecef(math.radians(lat_deg), math.radians(lon_deg), 0.0))
    p /= np.linalg.norm(p)
    scene.earth.resetTransform()  # ECEF = scene axes
    scene.earth.set_sun(p)
    for item in (scene.shadow, scene.sun_ray, scene.craft, scene.lvlh, scene.track):
        item.setVisible(False)
    elevation = math.degrees(math.asin(p[2]))
    azimuth = math.degrees(math.atan2(p[1], p[0]))
    scene.look_from((0.0, 0.0, 0.0), 3.0 * scene.radius, elevation, azimuth)
    image = view.render_image()
    h, w, _ = image.shape
    return image[h // 2 - 2:h // 2 + 3, w // 2 - 2:w // 2 + 3].reshape(-1, 3).mean(axis=0)


@pytest.mark.parametrize("lat, lon, land", [
    (20.0, 10.0, True),     # the Sahara
    (25.0, 20.0, True),     # Libya
    (25.0, -20.0, False),   # the Atlantic off Western Sahara: Libya's mirror image in longitude
    (0.0, -30.0, False),    # the mid-Atlantic
    (-25.0, 135.0, True),   # Australia
    (-25.0, -135.0, False),  # the South Pacific: Australia's mirror image
])
def test_the_drawn_earth_shows_land_and_sea_where_they_are(orbit_view, lat, lon, land):
    r, g, b = _centre_pixel(orbit_view, lat, lon)
    assert (g > b) == land, (r, g, b)


def test_the_sphere_is_closed_and_round():
    tri = sphere_triangles(2.0, 12, 24)
    assert tri.shape == (6 * 12 * 24, 3)
    np.testing.assert_allclose(np.linalg.norm(tri, axis=1), 2.0)
