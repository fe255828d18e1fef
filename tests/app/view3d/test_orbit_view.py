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
from app.view3d.layout import SCENE_BACKGROUND
from app.view3d.orbit import REDRAW_PIXELS, SCENE_PER_KM, TRIAD_LENGTH, OrbitView, ecef_to_eci_matrix
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
    qtbot.waitUntil(widget.scene.isValid)
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


# ------------------------------------------------- what hides what (issue 43, item 8)
def _frame(view):
    """A grabbed frame of the orbit view: ``(height, width, 3)`` int RGB, rows top-down."""
    return view.render_image().astype(int)


def _pixels(scene, points, size):
    """Where the camera draws scene ``points`` (n, 3): ``(n, 2)`` pixels (x right, y down) in a ``size`` frame,
    by the scene's own projection and view matrices."""
    width, height = size
    mvp = scene.projectionMatrix((0, 0, width, height), (0, 0, width, height)) * scene.viewMatrix()
    out = []
    for p in np.atleast_2d(points):
        q = mvp.map(QtGui.QVector4D(*(float(c) for c in p), 1.0))
        out.append(((q.x() / q.w() + 1.0) * 0.5 * width, (1.0 - q.y() / q.w()) * 0.5 * height))
    return np.array(out)


def _limb(scene, size):
    """The Earth's outline in a frame of ``size`` with the camera aimed at its centre: a circle's radius, pixels
    (pyqtgraph's field of view is horizontal)."""
    focal = 0.5 * size[0] / math.tan(math.radians(0.5 * scene.opts["fov"]))
    return focal * math.tan(math.asin(scene.radius / float(scene.opts["distance"])))


def _from_centre(size):
    """Each pixel's distance from the frame's centre (its middle point), ``(height, width)``."""
    rows, cols = np.mgrid[0:size[1], 0:size[0]]
    return np.hypot(cols + 0.5 - 0.5 * size[0], rows + 0.5 - 0.5 * size[1])


def _look_along(scene, d, distance):
    """Put the camera at ``distance`` along the unit vector ``d`` from the Earth's centre, aimed at it."""
    scene.look_from((0.0, 0.0, 0.0), distance, math.degrees(math.asin(d[2])), math.degrees(math.atan2(d[1], d[0])))


def _sun_shown(frame):
    """The pixels of the Sun's colour (its disc and its ray)."""
    from app.view3d.orbit import SUN_COLOR

    return np.all(np.abs(frame - np.round(255 * np.asarray(SUN_COLOR[:3]))) <= 8, axis=-1)


@pytest.fixture
def nadir_world(orbit_view):
    """nadir_pointing's world (beta -74 deg) in the orbit view, with only the Earth, the Sun and the shadow."""
    settings, snapshot = _run("nadir_pointing", seconds=0.0)
    orbit_view.new_run(settings)
    orbit_view.show_snapshot(snapshot)
    scene = orbit_view.scene
    for item in (scene.craft, scene.lvlh, scene.track):  # the track's sunlit colour is near the Sun's
        item.setVisible(False)
    sun = np.asarray(snapshot.world.sun, dtype=float)
    return orbit_view, sun / np.linalg.norm(sun)


@pytest.mark.parametrize("beyond", [None, 4.0])
def test_the_earth_hides_the_sun_behind_it(nadir_world, beyond):
    # The camera on the anti-Sun line (the Earth covers the Sun's direction), or turned until the Sun's disc lies
    # `beyond` pixels outside the Earth's limb: nothing of the Sun may show inside the Earth's outline (a disc
    # drawn without the depth test shows there whole). From the Sun's side its disc shows: the test can fail.
    from app.view3d.orbit import SUN_LENGTH

    view, sun = nadir_world
    scene = view.scene
    distance = 6.0 * scene.radius
    side = np.cross(sun, (0.0, 0.0, 1.0))
    side /= np.linalg.norm(side)
    size = (view.scene.deviceWidth(), view.scene.deviceHeight())
    disc = SUN_LENGTH * scene.radius * sun

    def camera(alpha):
        """The camera ``alpha`` rad off the anti-Sun line; the disc's distance from the frame's centre, pixels."""
        _look_along(scene, -math.cos(alpha) * sun + math.sin(alpha) * side, distance)
        return float(np.hypot(*(_pixels(scene, disc, size)[0] - 0.5 * np.asarray(size))))

    camera(0.0)
    limb = _limb(scene, size)
    low, high = 0.0, 1.5  # from 6 R the disc clears the limb some 0.8 rad off the anti-Sun line
    if beyond is not None:  # bisect for the disc's centre `beyond` px outside the limb
        for _ in range(40):
            middle = 0.5 * (low + high)
            low, high = (middle, high) if camera(middle) < limb + beyond else (low, middle)
    camera(low)
    frame = _frame(view)
    inside = _from_centre(size) < limb - 2.0
    yellow = _sun_shown(frame)
    assert yellow[inside].sum() == 0
    if beyond is not None:
        assert yellow[~inside].sum() > 0  # the visible part of the disc, beyond the limb
    _look_along(scene, sun, distance)  # from the Sun's side: the disc in front of the Earth
    front = _sun_shown(_frame(view))
    x, y = np.round(_pixels(scene, disc, size)[0]).astype(int)
    assert front[y - 3:y + 4, x - 3:x + 4].all()


def test_the_shadow_is_one_translucent_layer_with_the_cylinders_outline(nadir_world):
    # Seen from the side, the shadow (a tube of 0.99 R behind the Earth, away from the Sun) darkens the background
    # once, by its alpha, everywhere inside the tube's outline and nowhere outside it: its far, inner face drawn as
    # well (no culling) darkens part of the outline twice, offset inside it.
    from scipy.spatial import ConvexHull

    from app.view3d.layout import SCENE_BACKGROUND
    from app.view3d.orbit import SHADOW_COLOR, SHADOW_LENGTH, SHADOW_START

    view, sun = nadir_world
    scene = view.scene
    scene.sun_ray.setVisible(False)
    radius, axis = 0.99 * scene.radius, -sun
    side = np.cross(sun, (0.0, 0.0, 1.0))
    side /= np.linalg.norm(side)
    up = np.cross(axis, side)
    _look_along(scene, (side + 0.3 * up) / np.linalg.norm(side + 0.3 * up), 8.0 * scene.radius)
    size = (scene.deviceWidth(), scene.deviceHeight())
    frame = _frame(view)
    angles = np.linspace(0.0, 2.0 * math.pi, 48, endpoint=False)  # the tube's own 48 corners per ring

    def ring(along):
        """The tube's ring ``along`` Earth radii behind the centre, in pixels."""
        centre = along * scene.radius * axis
        return _pixels(scene, centre + radius * (np.cos(angles)[:, None] * side + np.sin(angles)[:, None] * up), size)

    def within(points, margin):
        """Pixels (their centres) inside the convex outline of ``points`` by ``margin`` px (outside: negative)."""
        hull = ConvexHull(points)
        rows, cols = np.mgrid[0:size[1], 0:size[0]]
        p = np.stack([cols + 0.5, rows + 0.5], axis=-1)
        return np.all(p @ hull.equations[:, :2].T + hull.equations[:, 2] <= -margin, axis=-1)

    start, end = SHADOW_START, SHADOW_START + SHADOW_LENGTH
    earth = _from_centre(size) < _limb(scene, size) + 2.0
    # inside: the tube's middle, away from its open ends (through an end one sees only the culled inner face)
    body = within(np.vstack([ring(start + 0.3), ring(end - 0.3)]), 2.0) & ~earth
    for cap in (start, end):
        body &= ~within(ring(cap), -2.0)
    outside = ~within(np.vstack([ring(start), ring(end)]), -2.0) & ~earth
    background = np.asarray(SCENE_BACKGROUND, dtype=float)
    alpha = SHADOW_COLOR[3]
    one_layer = (1.0 - alpha) * background + alpha * 255 * np.asarray(SHADOW_COLOR[:3])
    assert body.sum() > 2000  # a large piece of the tube seen from its side
    assert np.abs(frame[body] - one_layer).max() <= 3, np.unique(frame[body], axis=0)[:8]
    assert np.abs(frame[outside] - background).max() <= 1


@pytest.mark.parametrize("elevation, azimuth", [(20.0, 30.0), (-60.0, 200.0), (89.0, 0.0)])
def test_the_earth_drawn_without_its_far_half_is_the_same_picture(orbit_view, elevation, azimuth):
    """The Earth's far faces are culled (issue 42: llvmpipe coloured them for nothing): from any side, the
    picture is the one drawn with every face, pixel for pixel, the shadow, the track and the craft with it."""
    settings, snapshot = _run("sun_pointing", seconds=600.0)
    orbit_view.new_run(settings)
    orbit_view.show_snapshot(snapshot)
    scene = orbit_view.scene
    scene.look_from((0.0, 0.0, 0.0), 4.0 * scene.radius, elevation, azimuth)
    culled = _frame(orbit_view)
    scene.earth.cull = False
    try:
        whole = _frame(orbit_view)
    finally:
        scene.earth.cull = True
    earth = (np.abs(culled - np.asarray(SCENE_BACKGROUND)) > 8).any(axis=-1).mean()
    assert earth > 0.05, "the Earth is in view"
    np.testing.assert_array_equal(culled, whole)


def _pixel(scene, point) -> np.ndarray:
    """Where the camera puts a scene point on the view, pixels (pyqtgraph's projection and view matrices)."""
    w, h = scene.width(), scene.height()
    m = scene.projectionMatrix((0, 0, w, h), (0, 0, w, h)) * scene.viewMatrix()
    c = np.array(m.data()).reshape(4, 4).T @ np.r_[point, 1.0]
    return np.array([(c[0] / c[3] + 1.0) * w / 2.0, (c[1] / c[3] + 1.0) * h / 2.0])


def _craft_pixels(scene, snapshot) -> np.ndarray:
    """The pixels of the spacecraft's centre and of its three axes' tips in ``snapshot`` (computed here from the
    snapshot: r, and the rows of C(Q) by scipy)."""
    r = np.array(snapshot.world.r_km) * SCENE_PER_KM
    c = Rotation.from_quat(snapshot.attitude).as_matrix()
    return np.array([_pixel(scene, r)] + [_pixel(scene, r + TRIAD_LENGTH * c[k]) for k in range(3)])


def test_the_orbit_view_is_redrawn_only_when_its_picture_moves_half_a_pixel(orbit_view):
    """sun_pointing's snapshots a step apart (the spacecraft moves a fraction of a pixel): not drawn again until
    the spacecraft or its axes moved by REDRAW_PIXELS on the view; then at the new snapshot's place."""
    settings = load("sun_pointing").settings
    sim = Simulation(settings)
    sim.step(int(600.0 / settings.dt))
    orbit_view.new_run(settings)
    scene = orbit_view.scene
    first = sim.snapshot()
    orbit_view.show_snapshot(first)
    drawn, skipped, redrawn = first, 0, 0
    for _ in range(60):
        sim.step(1)
        snapshot = sim.snapshot()
        orbit_view.show_snapshot(snapshot)
        moved = np.abs(_craft_pixels(scene, snapshot) - _craft_pixels(scene, drawn)).max()
        at = scene.craft_position()
        if np.allclose(at, np.array(drawn.world.r_km) * SCENE_PER_KM, rtol=0, atol=1e-5):  # single precision
            skipped += 1
            assert moved < REDRAW_PIXELS  # what is not drawn would not be seen
        else:
            redrawn += 1
            np.testing.assert_allclose(at, np.array(snapshot.world.r_km) * SCENE_PER_KM, rtol=1e-6)
            drawn = snapshot
    assert skipped > 10 and redrawn > 0
    assert np.allclose(scene.track_points[-1], np.array(sim.snapshot().world.r_km) * SCENE_PER_KM)
