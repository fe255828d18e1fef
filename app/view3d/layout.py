"""The attitude scene's coordinates and layout: axes, colours, sizes, the camera's home.

Axis map
--------
The simulation works in NED inertial axes (x north, y east, z down) and body
axes (x nose, y right wing, z down).  It hands over the Cayley matrix ``C``
with ``x_body = C @ x_inertial``, so ``C.T`` maps body to inertial
coordinates.  The pyqtgraph scene has z up and is tied to NED by the fixed
proper rotation ``S = diag(1, -1, -1)``::

    x_scene = north,  y_scene = west,  z_scene = up,
    x_scene = S @ x_ned,

so a body-fixed point ``b`` is drawn at ``S @ C.T @ b``
(:func:`app.view3d.gimbal.scene_matrix`).  The body's mesh is stored in
body coordinates and placed by that matrix alone; no Euler angles are
computed to draw it.

The scene is laid out for Hoffmann's aircraft (about :data:`REFERENCE_SIZE`
from its centre to a wing tip).  Any other body scales the layout by its
size over that: camera distance and target, ground grid, north arrow, body
axes and the gimbal rig, so a 10 cm T-handle fills the view as the aircraft
does.
"""

from __future__ import annotations

import numpy as np

from app.view3d.glitems import LineItem

__all__ = ["SCENE_BACKGROUND", "GHOST_COLOR", "AXIS_COLORS", "HOME_ELEVATION_AZIMUTH", "REFERENCE_SIZE",
           "ORBIT_COLORS", "SATURATED_COLOR", "as_rotation", "triad_item", "principal_axes_points",
           "north_marker_points", "wheel_points", "wheel_arrow"]

SCENE_BACKGROUND = (38, 44, 56)
"""Dark blue-grey background of the 3D scenes (RGB 0-255)."""
GHOST_COLOR = (0.55, 0.85, 1.0, 0.25)
"""RGBA of the command ghost."""
GROUND_Z = -8.0
"""Scene height of the ground grid (the aircraft sits at the origin)."""
RIG_OFFSET = (0.0, -14.0, 0.0)
"""Scene position of the gimbal rig (14 units east of the aircraft)."""
TRIAD_LENGTHS = (7.5, 7.5, 4.0)
"""Lengths of the body x, y, z axes drawn through the aircraft."""
AXIS_COLORS = ((1.0, 0.25, 0.2, 1.0), (0.2, 0.9, 0.3, 1.0), (0.3, 0.5, 1.0, 1.0))
"""Colours of the body x (red), y (green) and z (blue) axes."""
NORTH_COLOR = (0.95, 0.95, 0.8, 1.0)
NORTH_MARKER_ORIGIN = (-11.0, RIG_OFFSET[1] / 2 + 1.0, GROUND_Z + 0.02)
"""Tail of the north arrow: in front of the default camera, between grid lines."""
GROUND_GRID_COLOR = (200, 210, 230, 70)
HOME_CENTER = (0.0, RIG_OFFSET[1] / 2, -4.0)
"""Default camera target: between aircraft and rig, a little low."""
HOME_DISTANCE = 32.0
HOME_ELEVATION_AZIMUTH = (26.0, 155.0)
"""Default camera elevation and azimuth in degrees: above and to the south-west,
i.e. behind-left of a level aircraft heading north."""
REFERENCE_SIZE = 5.65
"""Size (largest vertex distance from the origin) the layout above is made for: the aircraft's."""
PRINCIPAL_COLORS = ((1.0, 0.62, 0.2, 1.0), (1.0, 0.35, 0.85, 1.0), (0.35, 0.9, 1.0, 1.0))
"""Colours of the principal axes of the smallest, intermediate and largest moment."""
PRINCIPAL_LENGTH = 1.3
"""Half-length of the drawn principal axes, in units of the body's size."""
ORBIT_COLORS = ((1.0, 0.8, 0.55, 1.0), (0.75, 1.0, 0.6, 1.0), (0.6, 0.85, 1.0, 1.0))
"""Colours of the orbit frame's x (along the velocity), y and z (to nadir): light tints of the body axes'."""
ORBIT_LENGTH = 1.5
"""Length of the drawn orbit-frame axes, in units of the body's size."""
SATURATED_COLOR = (1.0, 0.15, 0.1, 1.0)
"""A reaction wheel at its speed limit."""
WHEEL_OFFSET, WHEEL_RADIUS, WHEEL_ARROW = 0.8, 0.14, 0.45
"""A wheel's ring: its centre along the spin axis and its radius; the longest spin arrow (units of the body's size)."""


def as_rotation(matrix):
    """Validate a 3x3 attitude matrix.

    Parameters
    ----------
    matrix : array-like
        A Cayley matrix (inertial to body).

    Returns
    -------
    numpy.ndarray
        The matrix as a float ``(3, 3)`` array (a copy).

    Raises
    ------
    ValueError
        If the shape is not ``(3, 3)`` or an entry is not finite.
    """
    matrix = np.array(matrix, dtype=float)
    if matrix.shape != (3, 3):
        raise ValueError(f"attitude matrix must be 3x3, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("attitude matrix has non-finite entries")
    return matrix


def triad_item(parent, scale=1.0):
    """Create the body axes (x red nose, y green right, z blue down).

    Parameters
    ----------
    parent : pyqtgraph.opengl.GLGraphicsItem.GLGraphicsItem
        Item carrying the body transform.
    scale : float, optional
        Factor on :data:`TRIAD_LENGTHS`.

    Returns
    -------
    app.view3d.glitems.LineItem
        Three segments from the body origin, in body coordinates.
    """
    ends = np.diag(TRIAD_LENGTHS) * scale
    pos = np.zeros((6, 3))
    pos[1::2] = ends
    color = np.repeat(np.asarray(AXIS_COLORS), 2, axis=0)
    return LineItem(pos, color, width=3.0, mode="lines", parentItem=parent)


def principal_axes_points(axes, half_length):
    """Return the principal axes as three segments through the body origin.

    Parameters
    ----------
    axes : array-like
        ``(3, 3)`` unit principal axes as columns (body coordinates), in the
        order of ascending moments (:attr:`sim.core.body.Body.principal_axes`).
    half_length : float
        Length on each side of the origin.

    Returns
    -------
    numpy.ndarray
        ``(6, 3)`` points for a ``'lines'`` plot.
    """
    axes = np.asarray(axes, dtype=float)
    return np.vstack([(-half_length * axes[:, i], half_length * axes[:, i]) for i in range(3)])


def wheel_points(axis, size, fraction, segments=32):
    """A reaction wheel in body coordinates: its ring across ``axis``, and the axle with the spin arrow.

    Parameters
    ----------
    axis : 3 floats
        Unit spin axis (body axes).
    size : float
        The body's size; the ring sits at :data:`WHEEL_OFFSET` times it along
        the axis, of radius :data:`WHEEL_RADIUS` times it.
    fraction : float
        The wheel's speed over its limit: the arrow from the ring's centre
        is ``|fraction|`` of :data:`WHEEL_ARROW` long, along ``axis`` for a
        positive speed, against it for a negative one.

    Returns
    -------
    ring : ndarray, shape (segments + 1, 3)
        A closed ``'line_strip'``.
    lines : ndarray, shape (4, 3)
        The axle (from the centre of the body to the ring) and the arrow, ``'lines'``.
    """
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    helper = np.eye(3)[np.argmin(np.abs(a))]
    u = np.cross(a, helper)
    u /= np.linalg.norm(u)
    v = np.cross(a, u)
    centre = WHEEL_OFFSET * size * a
    angles = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    ring = centre + WHEEL_RADIUS * size * (np.outer(np.cos(angles), u) + np.outer(np.sin(angles), v))
    return ring, wheel_arrow(axis, size, fraction)


def wheel_arrow(axis, size, fraction):
    """The axle and the spin arrow of :func:`wheel_points` alone, shape (4, 3), ``'lines'``: what a change of
    speed moves (the ring stays where it is)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    centre = WHEEL_OFFSET * size * a
    tip = centre + np.sign(fraction) * min(abs(fraction), 1.0) * WHEEL_ARROW * size * a
    return np.array([np.zeros(3), centre, centre, tip])


def north_marker_points(origin, length=7.0):
    """Return line segments of an arrow pointing north with an upright 'N'.

    The arrow lies in the horizontal plane; the letter stands beyond its tip
    and reads correctly when seen from the south.

    Parameters
    ----------
    origin : tuple of float
        Scene position of the arrow's tail.
    length : float, optional
        Arrow length.

    Returns
    -------
    numpy.ndarray
        ``(18, 3)`` scene points for a ``'lines'`` plot.
    """
    head = length - 2.0
    arrow = [(0.0, 0.0), (length, 0.0), (length, 0.0), (head, 1.2), (length, 0.0), (head, -1.2)]
    # The letter stands in the plane x = length + 1; its rightward u is scene -y.
    letter = [(0.0, 0.0), (0.0, 3.0), (0.0, 3.0), (2.0, 0.0), (2.0, 0.0), (2.0, 3.0)]
    points = [(x, y, 0.0) for x, y in arrow] + [(length + 1.0, 1.0 - u, v) for u, v in letter]
    return np.asarray(points) + np.asarray(origin, dtype=float)
