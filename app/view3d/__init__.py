"""The 3D view: OpenGL scenes of attitude, drawn from the Cayley matrix.

=================================  ============================================================
:mod:`app.view3d.glwindow`         the GL window every scene is (:class:`GLWindow`): context,
                                   camera, offscreen pictures; its widget container
:mod:`app.view3d.attitude`         the attitude scene: body, command ghost, comparison bodies,
                                   references, gimbal rig (:class:`AttitudeScene`)
:mod:`app.view3d.attitude_view`    that scene as a widget (:class:`AttitudeView`)
:mod:`app.view3d.layout`           axes, colours, sizes and camera home of the scene
:mod:`app.view3d.gimbal`           the gimbal rig that shows the Euler angles locking
:mod:`app.view3d.glitems`          lean GL items: lit meshes, lines, points
:mod:`app.view3d.mesh`             a body's mesh for drawing (no Qt)
:mod:`app.view3d.orbit`            the orbit view: Earth, track, Sun, shadow, spacecraft, LVLH
                                   (:class:`OrbitScene`, :class:`OrbitView`)
:mod:`app.view3d.earth`            the Earth: the baked land map, the night side (:class:`EarthItem`)
=================================  ============================================================

GL setup: PyOpenGL checks ``glGetError`` after every GL call (about 200 a
frame here) unless told otherwise before ``OpenGL.GL`` is first imported; its
documentation advises turning the checks off once the drawing code works.
They are off when this package is imported (any of its modules, before
their ``OpenGL.GL``), on with ``ATTITUDE_SIM_GL_CHECKS=1`` (the tests set
it), for work on the drawing.  Importing ``OpenGL`` itself loads no GL
library.
"""

import os

import OpenGL

OpenGL.ERROR_CHECKING = os.environ.get("ATTITUDE_SIM_GL_CHECKS") == "1"
