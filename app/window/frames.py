"""The frame's presentation: what the window draws of a run's settings and of each batch's last state.

:class:`FramePresenter` turns the 3D view's bodies, command ghost, gimbal
rig, wheels and orbit frame to the latest state, and follows the settings
in the views that depend on them (the body's mesh, the wheels' curves and
colours, the orbit-frame angles, the legend, the period watch), each only
when it changed.  :class:`~app.window.main.MainWindow` composes the
widgets and calls it from its frame loop; nothing here computes physics.
"""

from __future__ import annotations

import numpy as np

from app.plots.compare import period_note
from app.plots.cmg import rotor_axes
from app.plots.live import PLOTS, WHEEL_COLORS, CurveSpec, show_wheels
from app.plots.estimation import ESTIMATE_COLOR, ESTIMATE_MAGNIFY
from app.view3d.layout import GHOST_COLOR
from app.view3d.magnetic import dipole_limit
from app.window.orbit_readouts import pointed
from app.window.theme import COMPARE_COLORS, cycle, rgba, swatch
from app.window.tween import Tween
from sim import Body, as_aircraft_angles, cayley, PeriodWatch, torque_free, damper_warning, orbit_frame_column, orbit_quaternion, orbit_rate

__all__ = ["FramePresenter", "MAIN", "ESTIMATE"]

#: The render interpolation's keys of the main body and of its estimate (the comparison bodies': their labels).
MAIN, ESTIMATE = ("main",), ("estimate",)


class FramePresenter:
    """The window's views brought to a run's settings and to each batch's last state.

    Parameters
    ----------
    window : MainWindow
        Its ``viewer``, ``plots``, ``momentum``, ``compare``, ``feed``,
        ``readouts``, ``plot_tabs``, ``legend``, ``orbit_action`` and
        ``show_message``.

    Attributes
    ----------
    bodies : tuple of str
        The comparison bodies drawn.
    """

    def __init__(self, window):
        self._window = window
        self.bodies: tuple = ()
        self._wheels_shown = None  # what show_wheels last drew
        self._period_inertia = None  # the inertia the period watch was made for
        self._dipole_limit = (None, 0.0)  # (rods, their largest dipole) for the dipole arrows
        self.tween = Tween()  # the bodies drawn between two computed states (app.window.tween)
        self._angles_deg = (0.0, 0.0, 0.0)  # the latest state's aircraft angles
        self._orbit_rate = None  # the orbit's rate for the orbit frame, None without one
        self._turned = None  # (states taken, display time) last drawn

    # ------------------------------------------------- the world (issues 31, 32)
    def new_world(self, settings) -> None:
        """A new run: the orbit view's track starts again; the Magnetic tab when the run has a field, SRP or
        drag (after the history took the run's columns)."""
        w = self._window
        w.orbit_view.new_run(settings)
        thr = settings.thruster_set  # issue 45: the plumes
        w.viewer.set_thrusters(() if thr is None else thr.pos, () if thr is None else thr.dirs)
        w.plot_tabs.set_tab(w.environment, "Magnetic", w.environment.show_settings(settings))
        w.plot_tabs.set_tab(w.cmg, "CMG", w.cmg.show_settings(settings))
        w.plot_tabs.set_tab(w.thrusters, "Thrusters", w.thrusters.show_settings(settings))
        self.show_world(settings)

    def show_world(self, settings) -> None:
        """The orbit view's settings, whether the pointing error means one, the Magnetic control group's
        recommended gain at the field seen so far."""
        w = self._window
        w.orbit_view.show_settings(settings)
        w.orbit_readouts.pointing = pointed(settings)
        b_rms = None
        if settings.magnetic_on and "bx" in w.history.columns and len(w.history):
            b = np.asarray([w.history.column(c) for c in ("bx", "by", "bz")])
            b_rms = float(np.sqrt((b * b).sum(axis=0).mean())) or None
        w.controls.magnetic.show_recommended(settings, b_rms)

    def refresh_tabs(self, frame) -> None:
        """The Momentum, Magnetic, CMG and Thrusters tabs' plots when shown: their share of display ``frame``, or all (None)."""
        for panel in (self._window.momentum, self._window.environment, self._window.cmg, self._window.thrusters):
            if panel.isVisible():
                if frame is None:
                    panel.refresh()
                else:
                    panel.refresh_due(frame)

    def _rods_limit(self, settings) -> float:
        rods = settings.magnetorquer_set
        if self._dipole_limit[0] is not rods:
            self._dipole_limit = (rods, dipole_limit(settings))
        return self._dipole_limit[1]

    def new_run(self) -> None:
        """A new run: the wheels are drawn again, the bodies from its first state on."""
        self._wheels_shown = None
        self.tween.clear()
        self._turned = None

    def watch_period(self, settings) -> None:
        """Measure the main body's period of the rates against its closed form (the Compare tab's note)."""
        w = self._window
        inertia = settings.mass_properties.inertia
        if w.feed.period is None or self._period_inertia != inertia:
            w.feed.period = PeriodWatch(Body(inertia).J)
            self._period_inertia = inertia
        w.compare.set_note(period_note(w.feed.period, torque_free(settings)))

    def set_bodies(self, labels: tuple) -> None:
        """Draw the comparison bodies ``labels`` (in their colours) instead of those drawn."""
        w = self._window
        for label in self.bodies:
            w.viewer.remove_body(label)
        for label, color in zip(labels, cycle(COMPARE_COLORS, len(labels))):
            w.viewer.add_body(label, color)
        self.bodies = labels

    def show_body(self, settings) -> None:
        """Draw the settings' body (mesh and principal axes) if it changed."""
        w = self._window
        shown = w.viewer.scene.body
        changed = (settings.body, settings.mesh_units) != (shown.body, shown.units)
        try:
            w.viewer.set_body(settings.body, settings.mass_properties.inertia, settings.mesh_units)
        except ValueError as exc:  # the file changed on disk since it was chosen
            w.show_message(str(exc))
            return
        if changed and damper_warning(settings):
            w.show_message(damper_warning(settings))
        elif changed and settings.mass_properties.note:  # a mesh turned outward to be read
            w.show_message(f"Note: {settings.mass_properties.note}", error=False)

    def show_wheels(self, settings, new_run: bool = False) -> None:
        """The wheels on the body and in the Momentum tab, the orbit toggles; only what changed."""
        w = self._window
        wheels, cluster = settings.wheel_set, settings.cmg_set
        key = (None if wheels is None else wheels.key, settings.gravity_gradient,
               None if cluster is None else (settings.cmg_skew, len(cluster.delta0)))
        if key == self._wheels_shown:
            return
        self._wheels_shown = key
        count = 0 if wheels is None else wheels.n
        if wheels is None:
            show_wheels(w.momentum, 0)
        else:
            show_wheels(w.momentum, count, wheels.speed_limit, wheels.torque_limit)
        rotors = () if cluster is None else rotor_axes(cluster, np.degrees(cluster.delta0))  # issue 45: CMGs drawn
        colors = [rgba(c) for c in cycle(WHEEL_COLORS, count or len(rotors))]
        w.viewer.set_wheels(wheels.axes if wheels is not None else rotors, colors)
        w.readouts.speed_limits = () if wheels is None else wheels.speed_limit
        if new_run:
            w.plot_tabs.set_momentum(count > 0 or settings.gravity_gradient
                                     or any(x != 0.0 for x in settings.disturbance))
            w.readouts.allow_orbit(settings.gravity_gradient, on=settings.gravity_gradient)
            w.orbit_action.setChecked(settings.gravity_gradient)
            w.viewer.show_orbit(settings.gravity_gradient)
        else:
            w.readouts.allow_orbit(settings.gravity_gradient)

    def show_orbit_angles(self, relative: bool) -> None:
        """The Angles plot in the orbit frame (roll, pitch, yaw against the local vertical) or in inertial axes."""
        w = self._window
        spec = next(p for p in PLOTS if p.name == "angles")
        if relative:
            curves = tuple(CurveSpec(orbit_frame_column(c.column), f"{c.label} orbit", c.color, wraps=c.wraps)
                           for c in spec.curves if not c.dashed)
        else:
            curves = spec.curves
        w.plots.set_curves("angles", curves)
        w.plots.refresh(["angles"])

    def show_legend(self, settings) -> None:
        """The legend above the 3D view: the command ghost (with a controller), the estimate, the comparison bodies."""
        w = self._window
        entries = [f"{swatch(GHOST_COLOR)} command"] if settings.controller != "none" else []
        entries += ([f"{swatch(ESTIMATE_COLOR)} estimate (axes, error ×{ESTIMATE_MAGNIFY:g})"]
                    if settings.estimator != "truth" else [])
        entries += [f"{swatch(color)} {label}"
                    for label, color in zip(self.bodies, cycle(COMPARE_COLORS, len(self.bodies)))]
        text = "&nbsp;&nbsp;".join(entries)
        if text != w.legend.text():
            w.legend.setText(text)

    def show_bodies(self, batch, settings) -> None:
        """Turn the command ghost, the wheels and the plumes to a batch's last state, and hand the bodies'
        attitudes to the render interpolation (:attr:`tween`; :meth:`turn` draws them)."""
        w = self._window
        last = batch.last
        attitudes = {MAIN: last.attitude}
        attitudes.update((label, snapshot.attitude) for label, snapshot in batch.compare.items()
                         if label in self.bodies)
        if last.estimate is not None and w.estimation.drawn:
            attitudes[ESTIMATE] = last.estimate[:4]
        self.tween.take(last.t, attitudes, settings.dt)
        self._angles_deg = last.angles_deg
        self._orbit_rate = orbit_rate(settings.altitude_km) if settings.gravity_gradient else None
        wheels = settings.wheel_set
        if wheels is not None and len(last.wheel_speeds) == wheels.n:
            w.viewer.set_wheel_speeds([s / m for s, m in zip(last.wheel_speeds, wheels.speed_limit)],
                                      [abs(s) >= m for s, m in zip(last.wheel_speeds, wheels.speed_limit)])
        if last.cmg is not None and settings.cmg_set is not None:  # the rotors turn with their gimbals (issue 45)
            w.viewer.set_rotors(rotor_axes(settings.cmg_set, last.cmg[:len(settings.cmg_set.delta0)]))
        w.viewer.set_firing(last.thrusters[:settings.thruster_count])
        w.viewer.set_command(cayley(last.qc) if settings.controller != "none" else None)
        w.viewer.set_magnetic(last.b_body, last.dipole, self._rods_limit(settings))
        if w.orbit_view.isVisible():
            w.orbit_view.show_snapshot(last)

    def turn(self, wall, speed: float) -> None:
        """Turn the bodies, the gimbal rig and the orbit frame to the display time at wall time ``wall``
        (s, None: the latest state) at ``speed``: between two computed states, a step or a batch apart
        (:mod:`app.window.tween`); nothing when the display time stands at the latest state already drawn."""
        tween = self.tween
        if tween.t1 is None or (wall is not None and not tween.moving and self._turned == (tween.taken, tween.t1)):
            return
        w = self._window
        fraction = tween.advance(wall, speed)
        main = tween.attitude(MAIN, fraction)
        w.viewer.set_attitude(cayley(main))
        angles = np.radians(self._angles_deg) if fraction >= 1.0 else as_aircraft_angles(main)
        w.viewer.set_gimbal_angles(*angles)
        w.viewer.set_orbit(None if self._orbit_rate is None
                           else cayley(orbit_quaternion(tween.shown, self._orbit_rate)))
        for label in self.bodies:
            if label in tween.keys:
                w.viewer.set_body_attitude(label, cayley(tween.attitude(label, fraction)))
        if ESTIMATE in tween.keys:
            w.estimation.draw(main, tween.attitude(ESTIMATE, fraction))
        self._turned = (tween.taken, tween.shown)
