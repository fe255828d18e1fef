"""The attitude scene as a widget: what the window holds and calls.

:class:`AttitudeView` embeds an :class:`~app.view3d.attitude.AttitudeScene`
(a native GL window) and offers its public calls as methods of its own, each
documented on the scene.
"""

from __future__ import annotations

import os

import numpy as np
from pyqtgraph.Qt import QtGui

from app.view3d.attitude import AttitudeScene
from app.view3d.glwindow import GLWindowView
from sim import whole_path

__all__ = ["AttitudeView"]


class AttitudeView(GLWindowView):
    """The attitude scene in a window container.

    Parameters
    ----------
    parent : PySide6.QtWidgets.QWidget, optional
        Parent widget.

    Attributes
    ----------
    scene : AttitudeScene
    frameSwapped : Signal
        A new frame of the scene is on screen.
    """

    def __init__(self, parent=None):
        super().__init__(AttitudeScene(), (200, 150), parent)

    @property
    def aircraft_item(self):
        """app.view3d.glitems.MeshItem: the aircraft (built once, only its transform changes)."""
        return self.scene.aircraft_item

    # ------------------------------------------------------------- attitudes
    def set_attitude(self, cayley):
        """Turn the body (:meth:`AttitudeScene.set_attitude`)."""
        self.scene.set_attitude(cayley)

    def set_command(self, cayley):
        """Show the command ghost at ``cayley``, or hide it with None (:meth:`AttitudeScene.set_command`)."""
        self.scene.set_command(cayley)

    def set_gimbal_angles(self, psi, theta, phi):
        """Turn the gimbal rig, radians (:meth:`AttitudeScene.set_gimbal_angles`)."""
        self.scene.set_gimbal_angles(psi, theta, phi)

    def add_body(self, name, color, axes=False):
        """Add a translucent comparison body, or its axes (:meth:`AttitudeScene.add_body`)."""
        self.scene.add_body(name, color, axes)

    def set_body_attitude(self, name, cayley):
        """Turn a comparison body (:meth:`AttitudeScene.set_body_attitude`)."""
        self.scene.set_body_attitude(name, cayley)

    def remove_body(self, name):
        """Remove a comparison body (:meth:`AttitudeScene.remove_body`)."""
        self.scene.remove_body(name)

    # ---------------------------------------------------------- what is drawn
    def set_body(self, body, inertia=None, units="m"):
        """Draw another body or new principal axes (:meth:`AttitudeScene.set_body`)."""
        self.scene.set_body(body, inertia, units)

    def show_principal_axes(self, visible):
        """Show or hide the principal axes of inertia (:meth:`AttitudeScene.show_principal_axes`)."""
        self.scene.show_principal_axes(visible)

    def show_ghost(self, visible):
        """Allow or suppress the command ghost (:meth:`AttitudeScene.show_ghost`)."""
        self.scene.show_ghost(visible)

    def show_gimbal(self, visible):
        """Show or hide the gimbal rig (:meth:`AttitudeScene.show_gimbal`)."""
        self.scene.show_gimbal(visible)

    def set_wheels(self, axes, colors):
        """Carry reaction wheels on the body (:meth:`AttitudeScene.set_wheels`)."""
        self.scene.set_wheels(axes, colors)

    def set_rotors(self, axes):
        """Turn a CMG cluster's rotors on the body (:meth:`AttitudeScene.set_rotors`)."""
        self.scene.set_rotors(axes)

    def set_wheel_speeds(self, fractions, saturated):
        """Show the wheels' speeds and which are at their limit (:meth:`AttitudeScene.set_wheel_speeds`)."""
        self.scene.set_wheel_speeds(fractions, saturated)

    def set_thrusters(self, positions, directions):
        """Thrusters on the body (:meth:`AttitudeScene.set_thrusters`)."""
        self.scene.set_thrusters(positions, directions)

    def set_firing(self, levels):
        """The thrusters' plumes while they fire (:meth:`app.view3d.plumes.Plumes.show`)."""
        self.scene.plumes.show(levels)

    def set_magnetic(self, b_body, dipole, limit):
        """The field and the dipole command as arrows on the body (:meth:`AttitudeScene.set_magnetic`)."""
        self.scene.set_magnetic(b_body, dipole, limit)

    def set_orbit(self, cayley):
        """The orbit frame's attitude, or None (:meth:`AttitudeScene.set_orbit`)."""
        self.scene.set_orbit(cayley)

    def show_orbit(self, visible):
        """Draw the orbit frame (:meth:`AttitudeScene.show_orbit`)."""
        self.scene.show_orbit(visible)

    def reset_view(self):
        """Back to the home camera (:meth:`AttitudeScene.reset_view`)."""
        self.scene.reset_view()

    # --------------------------------------------------------------- pictures
    def grab_image(self) -> QtGui.QImage:
        """The scene rendered offscreen (:meth:`GLWindow.grab_image`)."""
        return self.scene.grab_image()

    def render_image(self) -> np.ndarray:
        """The scene as an ``(height, width, 3)`` RGB array (:meth:`GLWindow.render_image`)."""
        return self.scene.render_image()

    def export_png(self, path) -> str:
        """Save the scene as drawn now to a PNG file; returns ``path`` (OSError when it cannot be written)."""
        pixels = np.ascontiguousarray(self.render_image())
        height, width, _ = pixels.shape
        image = QtGui.QImage(pixels.data, width, height, 3 * width, QtGui.QImage.Format.Format_RGB888)
        path = os.fspath(path)
        with whole_path(path, ".png") as partial:  # moved into place when complete (sim.io.files)
            if not image.save(partial, "PNG"):
                raise OSError(f"cannot write {path}")
        return path
