"""A mechanical Cardan gimbal rig that shows yaw, pitch and roll as three rings.

The aircraft angle sequence is z-y-x (yaw psi, pitch theta, roll phi), each a
coordinate rotation, so that ``x_body = Tx(phi) @ Ty(theta) @ Tz(psi) @ x_ned``.
Ring ``i`` carries the frame reached after the first ``i`` rotations:

* outer ring, blue: ``T1 = Tz(psi)``, turns about the inertial down axis;
* middle ring, yellow: ``T2 = Ty(theta) @ T1``, turns about the outer ring's
  y axis;
* inner ring, orange: ``T3 = Tx(phi) @ T2`` (the body frame), turns about the
  middle ring's x axis and carries a small aircraft.

At ``theta = +-90 deg`` the inner roll axis lines up with the outer yaw axis:
the rig has lost a degree of freedom (gimbal lock), which is visible as the
outer and inner pins standing on one vertical line.

The pure functions (:func:`rot_x`, :func:`rot_y`, :func:`rot_z`,
:func:`ring_matrices`, :func:`gimbal_axes`) need no OpenGL.  Scene coordinates
follow the 3D view (see :mod:`app.view3d.layout`): ``x_scene = SCENE_FROM_NED @ x_ned``.
"""

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph.Qt import QtGui

from app.view3d.glitems import LineItem, MeshItem

SCENE_FROM_NED = np.diag([1.0, -1.0, -1.0])
"""Fixed proper rotation from NED (z down) to the pyqtgraph scene (z up)."""

RING_RADII = (5.0, 4.2, 3.4)
"""Mean radii of the outer, middle and inner rings."""
RING_COLORS = ((0.25, 0.45, 0.95, 1.0), (0.95, 0.82, 0.15, 1.0), (1.0, 0.50, 0.10, 1.0))
"""RGBA colours of the outer (blue), middle (yellow) and inner (orange) rings."""
RING_PLANES = ((1, 2), (0, 1), (0, 2))
"""Frame axes spanning each ring: outer y-z, middle x-y, inner x-z."""
RING_SECTION = (0.24, 0.36)
"""Radial thickness and axial width of the ring bands."""
RING_SEGMENTS = 40
PIN_COLOR = (0.92, 0.92, 0.92, 1.0)
STAND_COLOR = (0.6, 0.62, 0.66, 1.0)
MARKER_SCALE = 0.42
"""Scale of the aircraft marker inside the inner ring (the mesh is ~10 long)."""


def rot_x(angle):
    """Return the coordinate rotation ``Tx(angle)`` about the x axis.

    Parameters
    ----------
    angle : float
        Angle in radians.

    Returns
    -------
    numpy.ndarray
        ``[[1, 0, 0], [0, c, s], [0, -s, c]]``.
    """
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])


def rot_y(angle):
    """Return the coordinate rotation ``Ty(angle)`` about the y axis.

    Parameters
    ----------
    angle : float
        Angle in radians.

    Returns
    -------
    numpy.ndarray
        ``[[c, 0, -s], [0, 1, 0], [s, 0, c]]``.
    """
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])


def rot_z(angle):
    """Return the coordinate rotation ``Tz(angle)`` about the z axis.

    Parameters
    ----------
    angle : float
        Angle in radians.

    Returns
    -------
    numpy.ndarray
        ``[[c, s, 0], [-s, c, 0], [0, 0, 1]]``.
    """
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])


def ring_matrices(psi, theta, phi):
    """Return the frames carried by the outer, middle and inner rings.

    Parameters
    ----------
    psi, theta, phi : float
        Yaw, pitch and roll in radians.

    Returns
    -------
    tuple of numpy.ndarray
        ``(T1, T2, T3)``, each mapping NED coordinates to ring coordinates:
        ``Tz(psi)``, ``Ty(theta) Tz(psi)`` and ``Tx(phi) Ty(theta) Tz(psi)``.
    """
    outer = rot_z(psi)
    middle = rot_y(theta) @ outer
    return outer, middle, rot_x(phi) @ middle


def gimbal_axes(psi, theta, phi):
    """Return the three bearing axes of the rig in NED coordinates.

    Parameters
    ----------
    psi, theta, phi : float
        Yaw, pitch and roll in radians.

    Returns
    -------
    numpy.ndarray
        ``(3, 3)`` unit vectors as rows: the outer ring's yaw axis (its z),
        the middle ring's pitch axis (its y) and the inner ring's roll axis
        (its x).  Rows 0 and 2 are parallel exactly at gimbal lock.
    """
    rings = ring_matrices(psi, theta, phi)
    return np.array([rings[0][2], rings[1][1], rings[2][0]])


def scene_matrix(body_to_ned):
    """Return the scene transform drawing a frame with the given orientation.

    Parameters
    ----------
    body_to_ned : array-like
        ``(3, 3)`` matrix mapping the frame's coordinates to NED, e.g.
        ``C.T`` for a Cayley matrix ``C``.

    Returns
    -------
    PySide6.QtGui.QMatrix4x4
        The rotation ``SCENE_FROM_NED @ body_to_ned`` without translation.
    """
    matrix = np.eye(4)
    matrix[:3, :3] = SCENE_FROM_NED @ np.asarray(body_to_ned, dtype=float)
    return QtGui.QMatrix4x4(*matrix.ravel())


def ring_mesh(radius, plane, section=RING_SECTION, segments=RING_SEGMENTS):
    """Build a ring band with a rectangular cross-section.

    Parameters
    ----------
    radius : float
        Mean radius.
    plane : tuple of int
        The two frame axes (0 x, 1 y, 2 z) spanning the ring plane.
    section : tuple of float, optional
        Radial thickness and axial width.
    segments : int, optional
        Number of segments around the ring.

    Returns
    -------
    pyqtgraph.opengl.MeshData
        Closed mesh in ring-frame (NED-like) coordinates.
    """
    thickness, width = section
    axial = 3 - sum(plane)
    angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
    vertices = np.zeros((segments, len(corners), 3))
    for k, (dr, da) in enumerate(corners):
        r = radius + dr * thickness
        vertices[:, k, plane[0]] = r * np.cos(angle)
        vertices[:, k, plane[1]] = r * np.sin(angle)
        vertices[:, k, axial] = da * width
    faces = _band_faces(segments, len(corners))
    if np.linalg.det(np.eye(3)[[plane[0], plane[1], axial]]) > 0:
        faces = faces[:, ::-1]  # keep the faces wound outward in right-handed planes
    return gl.MeshData(vertexes=vertices.reshape(-1, 3), faces=faces)


def _band_faces(segments, corners):
    """Return the triangles joining consecutive cross-sections of a closed band.

    Parameters
    ----------
    segments : int
        Number of cross-sections around the band.
    corners : int
        Points per cross-section.

    Returns
    -------
    numpy.ndarray
        ``(2 * segments * corners, 3)`` vertex indices, wound inward when
        the sections run counter-clockwise in a right-handed plane.
    """
    i, k = np.meshgrid(np.arange(segments), np.arange(corners), indexing="ij")
    a = i * corners + k
    b = i * corners + (k + 1) % corners
    c = ((i + 1) % segments) * corners + (k + 1) % corners
    d = ((i + 1) % segments) * corners + k
    quads = np.stack((a, b, c, d), axis=-1).reshape(-1, 4)
    return np.vstack((quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]))


def pin_segments(axis, inner, outer):
    """Return two short line segments along ``+axis`` and ``-axis``.

    Parameters
    ----------
    axis : int
        Frame axis (0 x, 1 y, 2 z).
    inner, outer : float
        Start and end distance from the centre.

    Returns
    -------
    numpy.ndarray
        ``(4, 3)`` endpoints for a ``'lines'`` plot.
    """
    points = np.zeros((4, 3))
    points[:, axis] = (inner, outer, -inner, -outer)
    return points


def stand_points(radius, segments=24):
    """Return the fixed yoke holding the outer ring's yaw bearings.

    The yoke is a half circle in the NED x-z plane on the north side, from
    the upper bearing to the lower one, followed by a short post downward.

    Parameters
    ----------
    radius : float
        Distance of the yaw bearings from the centre.
    segments : int, optional
        Number of segments in the half circle.

    Returns
    -------
    numpy.ndarray
        ``(segments + 2, 3)`` NED points for a ``'line_strip'`` plot.
    """
    angle = np.linspace(-0.5 * np.pi, 0.5 * np.pi, segments + 1)
    arc = np.column_stack((radius * np.cos(angle), np.zeros_like(angle), radius * np.sin(angle)))
    post = np.array([[0.0, 0.0, radius + 1.5]])
    return np.vstack((arc, post))


class GimbalRig:
    """Three nested gimbal rings with bearing pins and an aircraft marker.

    Parameters
    ----------
    marker_mesh : pyqtgraph.opengl.MeshData
        Body mesh in body coordinates (with vertex colours), drawn small
        inside the inner ring.
    marker_scale : float, optional
        Its scale in ring coordinates (default: for the ~10 m aircraft).

    Attributes
    ----------
    items : list of pyqtgraph.opengl.GLGraphicsItem.GLGraphicsItem
        Top-level items to add to a ``GLViewWidget``; everything else is a
        child of these.
    """

    def __init__(self, marker_mesh, marker_scale=MARKER_SCALE):
        self._root = gl.GLGraphicsItem.GLGraphicsItem()
        self._rings = [
            self._make_ring(radius, plane, color)
            for radius, plane, color in zip(RING_RADII, RING_PLANES, RING_COLORS)
        ]
        self._add_pins()
        self._add_stand()
        self._marker = None
        self.set_marker(marker_mesh, marker_scale)
        self.items = [self._root]
        self._angles = None
        self.set_angles(0.0, 0.0, 0.0)

    def _make_ring(self, radius, plane, color):
        """Create one ring item as a child of the root.

        Parameters
        ----------
        radius : float
            Mean radius.
        plane : tuple of int
            Frame axes spanning the ring.
        color : tuple of float
            RGBA colour.

        Returns
        -------
        app.view3d.glitems.MeshItem
            The ring.
        """
        return MeshItem(ring_mesh(radius, plane), color=color, parentItem=self._root)

    def _add_pins(self):
        """Add the bearing pins, each fixed in the ring that turns about it."""
        outer_r, middle_r, inner_r = RING_RADII
        pins = (
            (self._rings[0], pin_segments(2, outer_r - 0.3, outer_r + 0.8)),
            (self._rings[1], pin_segments(1, middle_r - 0.3, outer_r + 0.4)),
            (self._rings[2], pin_segments(0, inner_r - 0.3, middle_r + 0.4)),
        )
        for ring, points in pins:
            LineItem(points, PIN_COLOR, width=4.0, mode="lines", parentItem=ring)

    def _add_stand(self):
        """Add the fixed yoke carrying the yaw bearings."""
        stand = LineItem(stand_points(RING_RADII[0] + 0.8), STAND_COLOR, width=3.0, mode="line_strip",
                         parentItem=self._root)
        stand.setTransform(scene_matrix(np.eye(3)))

    def set_angles(self, psi, theta, phi):
        """Turn the rings to the given Euler angles.

        Parameters
        ----------
        psi, theta, phi : float
            Yaw, pitch and roll in radians (z-y-x sequence).
        """
        angles = (float(psi), float(theta), float(phi))
        if angles == self._angles:
            return
        self._angles = angles
        for ring, frame in zip(self._rings, ring_matrices(*angles)):
            ring.setTransform(scene_matrix(frame.T))

    def set_marker(self, marker_mesh, scale=MARKER_SCALE):
        """Put a new body in the inner ring.

        Parameters
        ----------
        marker_mesh : pyqtgraph.opengl.MeshData
            Body mesh in body coordinates, with vertex colours.
        scale : float, optional
            Scale of the mesh in ring coordinates (the rig's radii are
            :data:`RING_RADII` before :meth:`set_offset` scales it).
        """
        if self._marker is not None:
            self._marker.setParentItem(None)
        self._marker = MeshItem(marker_mesh, parentItem=self._rings[2])
        self._marker.scale(scale, scale, scale)

    def set_offset(self, x, y, z, scale=1.0):
        """Place the rig centre at a scene position and scale the whole rig.

        Parameters
        ----------
        x, y, z : float
            Scene coordinates (z up).
        scale : float, optional
            Size factor for everything in the rig.
        """
        self._root.resetTransform()
        self._root.translate(x, y, z)
        self._root.scale(scale, scale, scale)

    def set_visible(self, visible):
        """Show or hide the whole rig.

        Parameters
        ----------
        visible : bool
            True to show.
        """
        self._root.setVisible(bool(visible))
