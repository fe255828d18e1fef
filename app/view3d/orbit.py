"""The orbit view: the Earth, the orbit track, the spacecraft with its axes, the Sun, the shadow, the LVLH triad.

Axis map
--------
The scene's axes are ECI (J2000) in thousands of kilometres
(:data:`SCENE_PER_KM`): ``x_scene = SCENE_PER_KM * r_ECI``, z up to the north
pole.  The map is a plain scaling, so nothing is mirrored: seen from above
the north pole the Earth turns counter-clockwise.  The Earth is drawn in
ECEF (:class:`~app.view3d.earth.EarthItem`) and placed by the matrix whose
columns are the ECEF axes in ECI, ``P^T R3(-GMST)``
(:func:`sim.world.frames.ecef_to_eci`, the inverse of the simulation's
``r_ECEF = R3(GMST) P r_ECI``).

What is drawn, from a :class:`~sim.model.rows.Snapshot` with a world
(:class:`~sim.model.world.WorldState`):

* the Earth, its night side shaded from the Sun's direction, and its shadow:
  a dark translucent cylinder of the Earth's radius behind it, away from the
  Sun (the umbra's cone narrows by only 0.5 deg, so a cylinder is what it
  looks like near the Earth);
* the Sun's direction: a yellow ray from the Earth's centre with a disc at its end;
* the orbit track since the run started (at most :data:`TRACK_POINTS`
  points, the oldest thinned), bright where the spacecraft was sunlit,
  dark in the shadow;
* the spacecraft, exaggerated to :data:`CRAFT_SIZE` scene units, turned by
  its attitude (a body-fixed point ``b`` at ``r + C^T b``: the body axes in
  ECI are the rows of ``C(Q)``), with its body axes (red x, green y, blue z);
* the LVLH triad at the spacecraft (Markley & Crassidis: o1 along the
  velocity, o2 minus the orbit normal, o3 to nadir; :func:`sim.world.frames.lvlh`);
* the ground target in target pointing.

Nothing here computes physics: the positions, the Sun and GMST are the
snapshot's; the frames are :mod:`sim.world.frames`'.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.Qt import QtGui

from app.view3d.earth import EarthItem, cylinder_triangles
from app.view3d.glitems import LineItem, MeshItem, PointsItem
from app.view3d.glwindow import GLWindow, GLWindowView
from app.view3d.layout import AXIS_COLORS, ORBIT_COLORS, SCENE_BACKGROUND
from app.view3d.magnetic import MAGNETIC_LENGTH, MagneticArrows, dipole_limit
from app.view3d.mesh import body_mesh
from sim import (
    cayley, ecef_to_eci, geodetic_to_ecef, lvlh, precession, R_EARTH_KM, DAY, TT_MINUS_UTC, julian_centuries_tt,
)

__all__ = ["OrbitScene", "OrbitView", "SCENE_PER_KM", "CRAFT_SIZE", "TRIAD_LENGTH", "TRACK_POINTS",
           "REDRAW_PIXELS", "ecef_to_eci_matrix"]

SCENE_PER_KM = 1e-3
"""Scene units per kilometre: the scene is ECI in thousands of km."""
CRAFT_SIZE = 0.5
"""The spacecraft's drawn size (its largest vertex distance from its centre), scene units: 500 km, to be seen."""
TRIAD_LENGTH = 1.4
"""Length of the body axes drawn at the spacecraft, scene units."""
LVLH_LENGTH = 1.9
"""Length of the LVLH axes, scene units."""
SUN_LENGTH = 1.8
"""The Sun ray's length, in Earth radii."""
SHADOW_START, SHADOW_LENGTH = 0.9, 2.0
"""Where the drawn shadow starts behind the Earth's centre and how long it is, in Earth radii (the night side
itself is shaded by the Earth's shader; starting the tube nearer would darken it twice)."""
TRACK_POINTS = 4000
"""Most points of the drawn track; beyond, every second old point is dropped."""
TRACK_LIT = (1.0, 0.86, 0.45, 1.0)
TRACK_DARK = (0.5, 0.58, 0.9, 1.0)
"""The track's colour where the spacecraft was sunlit, and in the umbra (the penumbra in between)."""
SUN_COLOR = (1.0, 0.85, 0.2, 1.0)
SHADOW_COLOR = (0.02, 0.02, 0.05, 0.4)
SHADOW_GL = {GL.GL_DEPTH_TEST: True, GL.GL_BLEND: True, GL.GL_CULL_FACE: True,
             "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)}
"""The shadow's drawing: translucent with its inner (back) faces culled, so one dark layer shows whose outline is
the cylinder's (drawing both faces showed the far inner face offset inside it)."""
TARGET_COLOR = (1.0, 0.3, 0.9, 1.0)
HOME_ELEVATION = 22.0
"""The camera's elevation before the first snapshot, degrees."""
HOME_TILT = 0.0
"""The home camera's tilt from the orbit normal towards the Sun, degrees."""
HOME_DISTANCE = 5.0
"""The camera's distance before the first snapshot, in Earth radii."""
HOME_MARGIN = 1.3
"""The home camera shows this many orbit radii from the centre across the view's narrower side."""
REDRAW_PIXELS = 0.5
"""The orbit view is redrawn when its picture would move by this many pixels or more (:meth:`OrbitScene.show_snapshot`)."""


def _arrow_change(a, b) -> float:
    """How much a magnetic arrow's direction changes from vector ``a`` to ``b`` (the change of their unit vectors;
    2 when one is None or zero and the other not, 0 when both are)."""
    na = 0.0 if a is None else float(np.linalg.norm(a))
    nb = 0.0 if b is None else float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0 if na == nb else 2.0
    return float(np.linalg.norm(np.asarray(a, dtype=float) / na - np.asarray(b, dtype=float) / nb)) + abs(na - nb) / max(na, nb)


def ecef_to_eci_matrix(days_utc: float, gmst: float) -> np.ndarray:
    """The ``(3, 3)`` matrix whose columns are the ECEF axes in ECI at a world state's date and GMST.

    ``P^T R3(-GMST)`` by :func:`sim.world.frames.ecef_to_eci` (precession
    from TT = UTC + 69.184 s), applied to the three ECEF axes.
    """
    p = precession(julian_centuries_tt(days_utc + TT_MINUS_UTC / DAY))
    turn = (math.cos(gmst), math.sin(gmst))
    return np.array([ecef_to_eci(axis, turn, p) for axis in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))]).T


def _matrix(rotation=None, translation=(0.0, 0.0, 0.0), scale: float = 1.0) -> QtGui.QMatrix4x4:
    """A scene transform: ``x -> translation + scale * rotation @ x``."""
    m = np.eye(4)
    m[:3, :3] = scale * (np.eye(3) if rotation is None else np.asarray(rotation, dtype=float))
    m[:3, 3] = translation
    return QtGui.QMatrix4x4(*m.ravel())


def _turn_z_to(direction) -> np.ndarray:
    """A rotation taking +z to the unit vector ``direction``."""
    z = np.asarray(direction, dtype=float)
    helper = np.eye(3)[np.argmin(np.abs(z))]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _mesh(triangles) -> gl.MeshData:
    """Mesh data of ``(3 n, 3)`` triangle corners."""
    return gl.MeshData(vertexes=triangles, faces=np.arange(len(triangles)).reshape(-1, 3))


def _segments(lengths, colors) -> tuple[np.ndarray, np.ndarray]:
    """Three segments from the origin along x, y, z of the given lengths, coloured per axis (``'lines'``)."""
    pos = np.zeros((6, 3))
    pos[1::2] = np.diag(lengths)
    return pos, np.repeat(np.asarray(colors, dtype=float), 2, axis=0)


class OrbitScene(GLWindow):
    """The orbit view's GL scene (module docstring); :meth:`new_run`, :meth:`set_body`, :meth:`set_target` and
    :meth:`show_snapshot` drive it."""

    def __init__(self):
        super().__init__(SCENE_BACKGROUND)
        self.radius = R_EARTH_KM * SCENE_PER_KM
        self.earth = EarthItem(self.radius)
        self.addItem(self.earth)
        self.target = PointsItem(np.zeros((1, 3)), np.asarray([TARGET_COLOR]), size=9.0, parentItem=self.earth)
        self.target.setVisible(False)
        tube = cylinder_triangles(0.99 * self.radius, SHADOW_LENGTH * self.radius)
        self.shadow = MeshItem(_mesh(tube), color=SHADOW_COLOR, glOptions=SHADOW_GL)
        self.shadow.setDepthValue(10)
        self.addItem(self.shadow)
        self.sun_ray = LineItem(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, SUN_LENGTH * self.radius]]), SUN_COLOR,
                                width=2.0)
        self.sun_disc = PointsItem(np.array([[0.0, 0.0, SUN_LENGTH * self.radius]]), np.asarray([SUN_COLOR]),
                                   size=18.0, parentItem=self.sun_ray)
        self.addItem(self.sun_ray)
        self.track = LineItem(np.zeros((2, 3)), np.tile(TRACK_LIT, (2, 1)), width=2.0, mode="line_strip")
        self.addItem(self.track)
        self.craft = gl.GLGraphicsItem.GLGraphicsItem()  # at r, turned by C^T: body axes
        self.addItem(self.craft)
        self.body_axes = LineItem(*_segments((TRIAD_LENGTH,) * 3, AXIS_COLORS), width=2.5, parentItem=self.craft)
        self.magnetic = MagneticArrows(self.craft, MAGNETIC_LENGTH * TRIAD_LENGTH)  # the field at r, ECI
        #: The torquers' largest dipole, A m^2 (the dipole arrow's full length), set by OrbitView.show_settings.
        self.dipole_limit = 0.0
        self.lvlh = LineItem(*_segments((LVLH_LENGTH,) * 3, ORBIT_COLORS), width=1.5)
        self.addItem(self.lvlh)
        self._mesh = None
        self._body = None
        self._points = np.empty((0, 3))
        self._lit = np.empty(0)
        self._last_t = None
        self.snapshot = None
        self._drawn = None  # the snapshot last drawn
        self._show_world(False)
        self.opts["fov"] = 45
        self.look_from((0.0, 0.0, 0.0), HOME_DISTANCE * self.radius, HOME_ELEVATION, 30.0)

    # --------------------------------------------------------------- runs
    def new_run(self) -> None:
        """A new run: forget the track; the camera goes home at the first snapshot."""
        self._points = np.empty((0, 3))
        self._lit = np.empty(0)
        self._last_t = None
        self.snapshot = None
        self._drawn = None
        self.track.setVisible(False)
        self._show_world(False)

    def set_body(self, body: str, units: str = "m") -> None:
        """Draw ``body`` (a built-in or a mesh file in ``units``) as the spacecraft; nothing when unchanged.

        Raises
        ------
        sim.model.shape.ShapeError
            If the mesh cannot be read; the spacecraft drawn is unchanged then.
        """
        if (body, units) == self._body:
            return
        mesh = body_mesh(body, units)
        self._body = (body, units)
        item = MeshItem(gl.MeshData(vertexes=mesh.vertices, faces=mesh.faces, vertexColors=mesh.colors),
                        parentItem=self.craft)
        item.setTransform(_matrix(scale=CRAFT_SIZE / mesh.size))
        if self._mesh is not None:
            self._mesh.setParentItem(None)
        self._mesh = item

    def set_target(self, target) -> None:
        """Mark the ground target ``(lat_deg, lon_deg, alt_km)`` on the Earth, or no target (None)."""
        if target is None:
            self.target.setVisible(False)
            return
        lat, lon, alt = target
        p = np.asarray(geodetic_to_ecef(math.radians(lat), math.radians(lon), alt)) * SCENE_PER_KM
        self.target.set_data(p[None, :] * 1.003, np.asarray([TARGET_COLOR]), 9.0)  # just over the surface
        self.target.setVisible(True)

    def _show_world(self, shown: bool) -> None:
        for item in (self.shadow, self.sun_ray, self.craft, self.lvlh):
            item.setVisible(shown)

    # ------------------------------------------------------------ frames
    def show_snapshot(self, snapshot) -> None:
        """Draw the world of ``snapshot`` (nothing but the Earth without one).

        The picture is redrawn only when it would move by :data:`REDRAW_PIXELS` or more since the snapshot
        last drawn (:meth:`pixels_moved`): at 100x a frame moves the spacecraft by about half a pixel, and the
        orbit view is the window's dearest GL drawing.  The track takes every snapshot's point all the same."""
        ws = snapshot.world
        if ws is None:
            self._show_world(False)
            return
        first = self.snapshot is None
        self.snapshot = snapshot
        r = np.asarray(ws.r_km, dtype=float) * SCENE_PER_KM
        self._extend_track(ws.t, r, ws.sunlit)
        if not first and self._drawn is not None and self.pixels_moved(self._drawn, snapshot) < REDRAW_PIXELS:
            return
        self._drawn = snapshot
        self._show_world(True)
        turn = ecef_to_eci_matrix(ws.days_utc, ws.gmst)
        self.earth.setTransform(_matrix(turn))
        sun = np.asarray(ws.sun, dtype=float)
        self.earth.set_sun(turn.T @ sun)
        to_sun = _turn_z_to(sun)
        self.sun_ray.setTransform(_matrix(to_sun))
        self.shadow.setTransform(_matrix(_turn_z_to(-sun), -SHADOW_START * self.radius * sun))
        self.craft.setTransform(_matrix(cayley(snapshot.attitude).T, r))
        self.lvlh.setTransform(_matrix(np.column_stack(lvlh(ws.r_km, ws.v_kms)), r))
        self.magnetic.show(snapshot.b_body, snapshot.dipole, self.dipole_limit)
        self._draw_track()
        if first:
            self.reset_view()

    def pixels_moved(self, drawn, snapshot) -> float:
        """A bound on how far (pixels) anything drawn moves from snapshot ``drawn``'s picture to ``snapshot``'s,
        seen from the camera now: each item's rotation change (Frobenius norm, which bounds the largest
        stretch) times its reach plus its shift, over the pixel size at the spacecraft's nearest distance;
        infinite when a magnetic arrow or the sunlight changes otherwise than slightly."""
        a, b = drawn.world, snapshot.world
        ra, rb = (np.asarray(w.r_km, dtype=float) * SCENE_PER_KM for w in (a, b))
        turn = ecef_to_eci_matrix(a.days_utc, a.gmst) - ecef_to_eci_matrix(b.days_utc, b.gmst)
        sun = np.linalg.norm(np.subtract(a.sun, b.sun))
        craft = np.linalg.norm(np.asarray(cayley(drawn.attitude)) - np.asarray(cayley(snapshot.attitude)))
        frame = np.linalg.norm(np.column_stack(lvlh(a.r_km, a.v_kms)) - np.column_stack(lvlh(b.r_km, b.v_kms)))
        field = _arrow_change(drawn.b_body, snapshot.b_body) + _arrow_change(drawn.dipole, snapshot.dipole)
        at_craft = max(craft * max(CRAFT_SIZE, TRIAD_LENGTH),        # the body and its axes
                       (craft + field) * MAGNETIC_LENGTH * TRIAD_LENGTH,  # the field's and dipole's arrows on it
                       frame * LVLH_LENGTH)                              # the LVLH triad
        moved = max(np.linalg.norm(turn) * self.radius,
                    sun * (SUN_LENGTH + SHADOW_START + SHADOW_LENGTH) * self.radius,
                    np.linalg.norm(rb - ra) + at_craft)
        if abs(a.sunlit - b.sunlit) > 0.01 or self.width() < 2:  # the track's colour; no size known yet
            return math.inf
        nearest = max(self.opts["distance"] - max(np.linalg.norm(ra), np.linalg.norm(rb)) - LVLH_LENGTH,
                      1e-3 * self.opts["distance"])
        return float(moved * self.width() / (2.0 * nearest * math.tan(math.radians(self.opts["fov"]) / 2.0)))

    def _extend_track(self, t: float, r, sunlit: float) -> None:
        if self._last_t is not None and t <= self._last_t:  # a reset or a replay: the track starts again
            self._points, self._lit = np.empty((0, 3)), np.empty(0)
        self._last_t = t
        if len(self._points) >= TRACK_POINTS:
            keep = np.r_[np.arange(0, TRACK_POINTS // 2, 2), np.arange(TRACK_POINTS // 2, len(self._points))]
            self._points, self._lit = self._points[keep], self._lit[keep]
        self._points = np.vstack([self._points, r])
        self._lit = np.append(self._lit, sunlit)

    def _draw_track(self) -> None:
        if len(self._points) >= 2:
            f = self._lit[:, None]
            self.track.set_data(self._points, f * np.asarray(TRACK_LIT) + (1.0 - f) * np.asarray(TRACK_DARK))
            self.track.setVisible(True)

    @property
    def track_points(self) -> np.ndarray:
        """The drawn track's points, scene units (a copy)."""
        return self._points.copy()

    def craft_position(self) -> np.ndarray:
        """Where the spacecraft is drawn: its transform's translation, scene units."""
        column = self.craft.transform().column(3)
        return np.array([column.x(), column.y(), column.z()])

    def reset_view(self) -> None:
        """Look at the whole orbit from the sunny side of its plane, tilted towards the Sun: the orbit round,
        the Sun to one side, the shadow to the other (:data:`HOME_TILT`, :data:`HOME_MARGIN`)."""
        ws = None if self.snapshot is None else self.snapshot.world
        if ws is None:
            self.look_from((0.0, 0.0, 0.0), HOME_DISTANCE * self.radius, HOME_ELEVATION, 30.0)
            return
        r, v, sun = (np.asarray(x, dtype=float) for x in (ws.r_km, ws.v_kms, ws.sun))
        normal = np.cross(r, v)
        normal /= np.linalg.norm(normal)
        if normal @ sun < 0.0:
            normal = -normal
        along = sun - (sun @ normal) * normal
        along = along / np.linalg.norm(along) if np.linalg.norm(along) > 1e-6 else normal
        tilt = math.radians(HOME_TILT)
        d = math.cos(tilt) * normal + math.sin(tilt) * along
        d /= np.linalg.norm(d)
        elevation = max(-80.0, min(80.0, math.degrees(math.asin(max(-1.0, min(1.0, d[2]))))))
        # the field of view is horizontal: in a wide view the orbit must fit the height
        narrow = min(1.0, self.height() / max(self.width(), 1))
        reach = HOME_MARGIN * np.linalg.norm(r) * SCENE_PER_KM / (math.tan(math.radians(self.opts["fov"]) / 2) * narrow)
        self.look_from((0.0, 0.0, 0.0), reach, elevation, math.degrees(math.atan2(d[1], d[0])))


class OrbitView(GLWindowView):
    """The orbit scene in a window container (:class:`OrbitScene`).

    Attributes
    ----------
    scene : OrbitScene
    """

    def __init__(self, parent=None):
        super().__init__(OrbitScene(), (200, 150), parent)
        self.setObjectName("orbit_view")
        self._target = None

    def new_run(self, settings) -> None:
        """A new run with ``settings``: the track starts again (:meth:`OrbitScene.new_run`), then :meth:`show_settings`."""
        self.scene.new_run()
        self.show_settings(settings)

    def show_settings(self, settings) -> None:
        """Shown only with an orbit; the settings' body as the spacecraft, its target in target pointing."""
        self.setVisible(settings.has_orbit)
        try:
            self.scene.set_body(settings.body, settings.mesh_units)
        except ValueError:  # the file changed on disk since it was chosen: the attitude view says so
            pass
        self.scene.dipole_limit = dipole_limit(settings)
        target = settings.target if settings.pointing == "target" else None
        if target != self._target:
            self._target = target
            self.scene.set_target(target)

    def show_snapshot(self, snapshot) -> None:
        """Draw a snapshot's world (:meth:`OrbitScene.show_snapshot`)."""
        self.scene.show_snapshot(snapshot)

    def render_image(self) -> np.ndarray:
        """The scene as an ``(height, width, 3)`` RGB array (:meth:`GLWindow.render_image`)."""
        return self.scene.render_image()
