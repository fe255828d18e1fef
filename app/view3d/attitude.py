"""The attitude scene: the body, its command ghost, comparison bodies, references and a gimbal rig.

The body is drawn from the Cayley matrix alone, so it passes pitch 90 deg
smoothly, while the gimbal rig beside it (:mod:`app.view3d.gimbal`) turns by
the Euler angles and shows them locking.  A body with reaction wheels
carries them: a ring across each spin axis, in the wheel's colour (that of
its curves in the plots), with an arrow along the axis as long as the
wheel is fast and pointing its way; a wheel at its speed limit turns red
and thick.  With an orbit, its frame (x along the velocity, z to nadir) can
be drawn through the body.  Coordinates, colours and the layout's scale:
:mod:`app.view3d.layout`.  The window turns the bodies, the rig and the orbit frame at its display time:
between two computed states, a step or a batch apart (:mod:`app.window.tween`).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph.Qt import QtGui

from app.view3d.gimbal import MARKER_SCALE, GimbalRig, scene_matrix
from app.view3d.glitems import LineItem, MeshItem
from app.view3d.glwindow import GLWindow
from app.view3d.layout import (GHOST_COLOR, GROUND_GRID_COLOR, GROUND_Z, HOME_CENTER, HOME_DISTANCE,
                               HOME_ELEVATION_AZIMUTH, NORTH_COLOR, NORTH_MARKER_ORIGIN, ORBIT_COLORS, ORBIT_LENGTH,
                               PRINCIPAL_COLORS, PRINCIPAL_LENGTH, REFERENCE_SIZE, RIG_OFFSET, SATURATED_COLOR,
                               SCENE_BACKGROUND, TRIAD_LENGTHS, as_rotation, north_marker_points, principal_axes_points,
                               triad_item, wheel_arrow, wheel_points)
from app.view3d.magnetic import MAGNETIC_LENGTH, MagneticArrows
from app.view3d.mesh import body_mesh
from app.view3d.plumes import Plumes
from sim import Body, DEFAULT_BODY

__all__ = ["AttitudeScene"]


def _meshdata(mesh):
    """pyqtgraph MeshData of an :class:`app.view3d.mesh.BodyMesh`."""
    return gl.MeshData(vertexes=mesh.vertices, faces=mesh.faces, vertexColors=mesh.colors)


#: An extra body drawn as its axes (:meth:`AttitudeScene.add_body`): their length over the body's own triad's.
EXTRA_AXES = 1.3


class AttitudeScene(GLWindow):
    """OpenGL scene of a rigid body's attitude in NED, in a native GL window (:class:`GLWindow`).

    Shows the aircraft with its body axes, a translucent command ghost, extra
    translucent bodies for comparisons, a ground grid with a north marker and
    a gimbal rig beside the aircraft (coordinates: :mod:`app.view3d.layout`).
    Embedded in the window by :class:`~app.view3d.attitude_view.AttitudeView`.
    """

    def __init__(self):
        super().__init__(SCENE_BACKGROUND)
        self._body_mesh = body_mesh(DEFAULT_BODY)
        self._mesh = _meshdata(self._body_mesh)
        self._scale = self._body_mesh.size / REFERENCE_SIZE
        self._orientations = {}
        self._bodies = {}
        self._colors = {}
        self._axes_only = set()  # extra bodies drawn as their axes (add_body(axes=True))
        self._ghost_enabled = True
        self._has_command = False
        self._inertia = None
        self._principal = None
        self._principal_visible = False
        self._references = gl.GLGraphicsItem.GLGraphicsItem()
        self.addItem(self._references)
        self._add_references()
        self._aircraft = MeshItem(self._mesh)
        self.addItem(self._aircraft)
        triad_item(self._aircraft, self._scale)
        self._rig = GimbalRig(self._mesh, MARKER_SCALE * REFERENCE_SIZE / self._body_mesh.size)
        for item in self._rig.items:
            self.addItem(item)
        self._ghost = self._translucent_body(GHOST_COLOR)
        self._ghost.setVisible(False)
        self._wheel_axes, self._wheel_colors, self._wheel_items, self._wheel_state = (), (), [], None
        self.magnetic = MagneticArrows(self._aircraft, MAGNETIC_LENGTH * self._body_mesh.size)
        self.plumes = Plumes(self._aircraft, self._body_mesh.size)  # issue 45: set_thrusters, set_firing
        self._orbit = LineItem(np.zeros((6, 3)), np.repeat(np.asarray(ORBIT_COLORS), 2, axis=0), width=2.0,
                               mode="lines")
        self._orbit.setVisible(False)
        self._orbit_enabled = False
        self._orbit_cayley = None
        self.addItem(self._orbit)
        self._lay_out()
        self.set_attitude(np.eye(3))
        self.reset_view()

    @property
    def aircraft_item(self):
        """app.view3d.glitems.MeshItem: the aircraft (built once, only its transform changes)."""
        return self._aircraft

    def _add_references(self):
        """Add the inertial references: ground grid and north marker (scaled with the body)."""
        grid = gl.GLGridItem(size=QtGui.QVector3D(72, 72, 1), color=GROUND_GRID_COLOR, parentItem=self._references)
        grid.setSpacing(4, 4, 1)
        grid.translate(0.0, RIG_OFFSET[1] / 2, GROUND_Z)
        LineItem(north_marker_points(NORTH_MARKER_ORIGIN), NORTH_COLOR, width=3.0, mode="lines",
                 parentItem=self._references)

    @property
    def body(self):
        """app.view3d.mesh.BodyMesh: the body drawn."""
        return self._body_mesh

    @property
    def layout_scale(self):
        """float: the body's size over the aircraft's; the references, rig and camera scale by it."""
        return self._scale

    def set_body(self, body, inertia=None, units="m"):
        """Draw another body (and its ghosts and rig marker), or new principal axes.

        Nothing happens when both are unchanged.  The layout (grid, north
        arrow, gimbal rig, body axes) scales with the body's size, and the
        camera keeps its direction with distance and target scaled.

        Parameters
        ----------
        body : str
            Built-in name or mesh file (see :mod:`sim.model.shape`).
        inertia : tuple of 6 floats, optional
            Hoffmann's ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)``, for the principal axes.
        units : str
            The length unit of a mesh file's coordinates (:data:`sim.model.shape.MESH_UNITS`).

        Raises
        ------
        sim.model.shape.ShapeError
            If the body's mesh cannot be read; the scene is unchanged then.
        """
        if (body, units) != (self._body_mesh.body, self._body_mesh.units):
            self._replace_mesh(body_mesh(body, units))
        if inertia is not None and tuple(inertia) != self._inertia:
            self._inertia = tuple(inertia)
            self._draw_principal_axes()

    def show_principal_axes(self, visible):
        """Show or hide the body's principal axes of inertia.

        Parameters
        ----------
        visible : bool
            True to show.
        """
        self._principal_visible = bool(visible)
        if self._principal is not None:
            self._principal.setVisible(self._principal_visible)

    def _draw_principal_axes(self):
        if self._principal is not None:
            self._principal.setParentItem(None)
            self._principal = None
        if self._inertia is None:
            return
        axes = Body(self._inertia).principal_axes
        points = principal_axes_points(axes, PRINCIPAL_LENGTH * self._body_mesh.size)
        colors = np.repeat(np.asarray(PRINCIPAL_COLORS), 2, axis=0)
        self._principal = LineItem(points, colors, width=2.5, mode="lines", parentItem=self._aircraft)
        self._principal.setVisible(self._principal_visible)

    def _replace_mesh(self, mesh):
        """Rebuild every item drawing the body from ``mesh`` and scale the layout."""
        ratio = mesh.size / self._body_mesh.size
        self._body_mesh, self._mesh = mesh, _meshdata(mesh)
        self._scale = mesh.size / REFERENCE_SIZE
        aircraft = MeshItem(self._mesh)
        self.addItem(aircraft)
        triad_item(aircraft, self._scale)
        self._swap(self._aircraft, aircraft)
        self._aircraft = aircraft
        ghost = self._translucent_body(GHOST_COLOR)
        ghost.setVisible(self._ghost.visible())
        self._swap(self._ghost, ghost)
        self._ghost = ghost
        for name, item in list(self._bodies.items()):
            replacement = self._extra_body(self._colors[name], name in self._axes_only)
            self._swap(item, replacement)
            self._bodies[name] = replacement
        self._rig.set_marker(self._mesh, MARKER_SCALE * REFERENCE_SIZE / mesh.size)
        self._lay_out()
        self._draw_principal_axes()
        self._draw_wheels()
        self._draw_magnetic()
        self.plumes.remove()
        self.plumes = Plumes(self._aircraft, mesh.size, self.plumes.positions, self.plumes.directions,
                             self.plumes.firing)
        self.opts["distance"] *= ratio
        self.opts["center"] = self.opts["center"] * ratio
        self.update()

    def _swap(self, old, new):
        """Give ``new`` the attitude of ``old`` and take ``old`` out of the scene."""
        cayley = self._orientations.pop(old, None)
        self._orientations.pop(new, None)
        if cayley is not None:
            self._orient(new, cayley)
        self.removeItem(old)

    def _lay_out(self):
        """Scale the references, the orbit frame and the gimbal rig to the body."""
        s = self._scale
        self._references.resetTransform()
        self._references.scale(s, s, s)
        self._rig.set_offset(*(s * np.asarray(RIG_OFFSET)), scale=s)
        ends = np.zeros((6, 3))
        ends[1::2] = np.eye(3) * ORBIT_LENGTH * self._body_mesh.size
        self._orbit.set_data(ends, np.repeat(np.asarray(ORBIT_COLORS), 2, axis=0))

    # ------------------------------------------------------------- wheels
    @property
    def wheel_items(self) -> list:
        """Per wheel, ``(ring, arrow)``: the :class:`LineItem` s drawn on the body."""
        return list(self._wheel_items)

    def set_wheels(self, axes, colors) -> None:
        """Carry reaction wheels along ``axes`` (unit vectors, body axes) drawn in ``colors`` (RGBA); none: ``()``."""
        axes, colors = tuple(tuple(a) for a in axes), tuple(tuple(c) for c in colors)
        if (axes, colors) == (self._wheel_axes, self._wheel_colors):
            return
        self._wheel_axes, self._wheel_colors = axes, colors
        self._draw_wheels()

    def _draw_wheels(self):
        for ring, arrow in self._wheel_items:
            ring.setParentItem(None)
            arrow.setParentItem(None)
        self._wheel_items = []
        for axis, color in zip(self._wheel_axes, self._wheel_colors):
            ring, arrow = wheel_points(axis, self._body_mesh.size, 0.0)
            self._wheel_items.append((
                LineItem(ring, np.tile(color, (len(ring), 1)), width=2.5, mode="line_strip", parentItem=self._aircraft),
                LineItem(arrow, np.tile(color, (len(arrow), 1)), width=2.5, mode="lines", parentItem=self._aircraft)))
        state, self._wheel_state = self._wheel_state, None
        if state is not None and len(state[0]) == len(self._wheel_items):
            self.set_wheel_speeds(*state)

    def set_rotors(self, axes) -> None:
        """Turn the wheels' drawings to spin ``axes`` (unit, body axes): a CMG cluster's rotors as their gimbals
        turn (issue 45), each drawn as a wheel spinning at full speed; the items are updated, not made again."""
        axes = tuple(tuple(float(x) for x in a) for a in axes)
        if len(axes) != len(self._wheel_items) or axes == self._wheel_axes:
            return
        self._wheel_axes = axes
        state, self._wheel_state = self._wheel_state, None
        self.set_wheel_speeds(*(state or ((1.0,) * len(axes), (False,) * len(axes))))

    def set_wheel_speeds(self, fractions, saturated) -> None:
        """Each wheel's speed as a fraction of its limit (signed), and whether it is at its limit.

        The arrow along a wheel's axis grows with ``|fraction|`` and points
        the way it spins (right hand); a saturated wheel is drawn red and thick.  Only what changed is made
        again: the arrow with its speed, the ring with its saturation (every frame, issue 42).
        """
        state = (tuple(float(f) for f in fractions), tuple(bool(s) for s in saturated))
        if state == self._wheel_state:
            return
        drawn, self._wheel_state = self._wheel_state, state
        if drawn is not None and len(drawn[0]) != len(state[0]):
            drawn = None
        for i, ((ring, arrow), axis, color, fraction, full) in enumerate(zip(
                self._wheel_items, self._wheel_axes, self._wheel_colors, *state)):
            was = None if drawn is None else (drawn[0][i], drawn[1][i])
            shade = SATURATED_COLOR if full else color
            ring.width = arrow.width = 5.0 if full else 2.5
            if was is None or was[1] != full:
                ring_points = wheel_points(axis, self._body_mesh.size, fraction)[0]
                ring.set_data(ring_points, np.tile(shade, (len(ring_points), 1)))
            if was != (fraction, full):
                arrow.set_data(wheel_arrow(axis, self._body_mesh.size, fraction), np.tile(shade, (4, 1)))

    def set_thrusters(self, positions, directions) -> None:
        """Thrusters on the body (m, body axes; unit pushes): their plumes drawn while they fire (:class:`Plumes`)."""
        self.plumes.remove()
        self.plumes = Plumes(self._aircraft, self._body_mesh.size, positions, directions)

    # ------------------------------------------------------------- magnetic
    def set_magnetic(self, b_body, dipole, limit) -> None:
        """The field (T) and the torquers' dipole command (A m^2), body axes, as arrows on the body
        (:class:`~app.view3d.magnetic.MagneticArrows`); None hides one."""
        self.magnetic.show(b_body, dipole, limit)

    def _draw_magnetic(self):
        shown, old = self.magnetic.state, self.magnetic
        for item in (old.field, old.dipole):
            item.setParentItem(None)
        self.magnetic = MagneticArrows(self._aircraft, MAGNETIC_LENGTH * self._body_mesh.size)
        if shown is not None:
            self.magnetic.show(*shown)

    # ------------------------------------------------------------- orbit
    def set_orbit(self, cayley) -> None:
        """The orbit frame's attitude (its Cayley matrix, inertial -> orbit), or None without an orbit."""
        self._orbit_cayley = None if cayley is None else as_rotation(cayley)
        if cayley is not None:
            self._orient(self._orbit, cayley)
        self._orbit.setVisible(self._orbit_enabled and cayley is not None)

    def show_orbit(self, visible) -> None:
        """Draw the orbit frame (when there is an orbit): x along the velocity, y, z to nadir."""
        self._orbit_enabled = bool(visible)
        self._orbit.setVisible(self._orbit_enabled and self._orbit_cayley is not None)

    def _translucent_body(self, color):
        """Add a translucent copy of the aircraft in a single colour.

        Parameters
        ----------
        color : tuple of float
            RGBA, alpha giving the translucency.

        Returns
        -------
        app.view3d.glitems.MeshItem
            The new item, drawn after the opaque items.
        """
        item = MeshItem(self._mesh, color=color, glOptions="translucent")
        item.setDepthValue(10)
        self.addItem(item)
        self._orient(item, np.eye(3))
        return item

    def _orient(self, item, cayley):
        """Draw ``item`` (body coordinates) with the given attitude.

        Parameters
        ----------
        item : pyqtgraph.opengl.GLGraphicsItem.GLGraphicsItem
            Item whose vertices are in body coordinates.
        cayley : array-like
            Cayley matrix ``C`` (inertial to body); nothing is done when it
            equals the previous one.
        """
        previous = self._orientations.get(item)
        if previous is not None and np.array_equal(previous, cayley):
            return
        cayley = as_rotation(cayley)
        self._orientations[item] = cayley
        item.setTransform(scene_matrix(cayley.T))

    def set_attitude(self, cayley):
        """Turn the aircraft to a new attitude.

        Cheap enough for every frame: only the item transform changes, and
        nothing at all when ``C`` is unchanged.

        Parameters
        ----------
        cayley : array-like
            ``(3, 3)`` Cayley matrix ``C`` with ``x_body = C @ x_inertial``.

        Raises
        ------
        ValueError
            If ``C`` is not a finite 3x3 matrix.
        """
        self._orient(self._aircraft, cayley)

    def set_command(self, cayley):
        """Show the command attitude as a ghost, or hide the ghost.

        Parameters
        ----------
        cayley : array-like or None
            Commanded Cayley matrix, or None for no command.

        Raises
        ------
        ValueError
            If ``C`` is not a finite 3x3 matrix.
        """
        if cayley is not None:
            self._orient(self._ghost, cayley)
        self._has_command = cayley is not None
        self._ghost.setVisible(self._has_command and self._ghost_enabled)

    def show_ghost(self, visible):
        """Allow or suppress the command ghost.

        Parameters
        ----------
        visible : bool
            False hides the ghost even while a command is set.
        """
        self._ghost_enabled = bool(visible)
        self._ghost.setVisible(self._ghost_enabled and self._has_command)

    def set_gimbal_angles(self, psi, theta, phi):
        """Turn the gimbal rig.

        Parameters
        ----------
        psi, theta, phi : float
            Yaw, pitch and roll in radians (z-y-x sequence).
        """
        self._rig.set_angles(psi, theta, phi)

    def show_gimbal(self, visible):
        """Show or hide the gimbal rig.

        Parameters
        ----------
        visible : bool
            True to show.
        """
        self._rig.set_visible(visible)

    def _extra_body(self, color, axes: bool):
        """A translucent copy of the body, or with ``axes`` its three axes in ``color``, longer than the body's own
        (:data:`EXTRA_AXES`), so that they show beside the body's triad when both attitudes agree."""
        if not axes:
            return self._translucent_body(color)
        item = gl.GLGraphicsItem.GLGraphicsItem()
        self.addItem(item)
        pos = np.zeros((6, 3))
        pos[1::2] = np.diag(TRIAD_LENGTHS) * EXTRA_AXES * self._scale
        LineItem(pos, np.tile(np.asarray(color[:3] + (1.0,)), (6, 1)), width=3.0, mode="lines", parentItem=item)
        self._orient(item, np.eye(3))
        return item

    def add_body(self, name, color, axes: bool = False):
        """Add an extra body: a translucent copy, e.g. the result of another integrator, or its axes.

        Parameters
        ----------
        name : str
            Key for :meth:`set_body_attitude` and :meth:`remove_body`.
        color : tuple of float
            RGBA in [0, 1]; alpha below 1 makes the copy translucent (axes are drawn opaque).
        axes : bool
            Draw the body's three axes alone (the estimate's: no copy sitting on the body in z-fighting
            speckles when the two attitudes agree).

        Raises
        ------
        ValueError
            If a body with this name exists.
        """
        if name in self._bodies:
            raise ValueError(f"body {name!r} already exists")
        self._bodies[name] = self._extra_body(tuple(color), axes)
        self._colors[name] = tuple(color)
        if axes:
            self._axes_only.add(name)

    def set_body_attitude(self, name, cayley):
        """Turn an extra body.

        Parameters
        ----------
        name : str
            Name given to :meth:`add_body`.
        cayley : array-like
            ``(3, 3)`` Cayley matrix of the body.

        Raises
        ------
        KeyError
            If there is no body of this name.
        """
        self._orient(self._bodies[name], cayley)

    def remove_body(self, name):
        """Remove an extra body.

        Parameters
        ----------
        name : str
            Name given to :meth:`add_body`.

        Raises
        ------
        KeyError
            If there is no body of this name.
        """
        item = self._bodies.pop(name)
        del self._colors[name]
        self._axes_only.discard(name)
        del self._orientations[item]
        self.removeItem(item)

    def reset_view(self):
        """Look at aircraft and rig from behind-left of the aircraft, slightly above."""
        s = self._scale
        self.look_from(s * np.asarray(HOME_CENTER), s * HOME_DISTANCE, *HOME_ELEVATION_AZIMUTH)
