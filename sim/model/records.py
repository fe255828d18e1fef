"""What a :class:`~sim.model.simulation.Simulation` writes of itself: its :class:`~sim.model.rows.Snapshot`, its
CSV columns and its rows in :func:`sim.model.rows.history_columns` order (a mixin over the simulation's state and
its ``_derived`` quantities; the row layout is :mod:`sim.model.rows`'s).
"""

from __future__ import annotations

import math

from sim.core.equations import qdot
from sim.core.row_formula import DEG, plain_row
from sim.model.rows import Snapshot, columns_of, field_values, history_row, orbit_values

__all__ = ["Records"]

_DEG = math.degrees(1.0)


class Records:
    """The records of a :class:`~sim.model.simulation.Simulation` (module docstring)."""

    def snapshot(self) -> Snapshot:
        """An immutable record of the current state and the derived quantities."""
        r = self._craft_row()
        if r is not None:
            return self._craft_snapshot(r.tolist())
        p, angles, norm, mult, energy, h, torque, command, q_dot_p, more = self._derived()
        if self._world_state is not None:
            more = dict(more or {}, world=self._world_state, pointing_error_deg=self.pointing_error() * _DEG,
                        **self._issue32())
        if self._nav is not None:
            more = dict(more or {}, estimate=self._estimate(), sensors=tuple(float(x) for x in self._nav.available[0]))
        return Snapshot(t=self._t, step=self._k, q=self._q, w=self._w[:3], p=p, angles_deg=angles, norm=norm,
                        norm_correction=self._correction, multiplier=mult, energy=energy, h=h,
                        torque=torque, qc=self._cmd.written, command_deg=command, q_dot_p=q_dot_p,
                        attitude=self.attitude, thrusters=() if self._thr is None else self._thr.values(),
                        **(more or {}))

    def _craft_snapshot(self, r: list) -> Snapshot:
        """The :class:`Snapshot` of the row ``r`` of :func:`sim.model.craft_row.craft_row` (its values by column)."""
        s, n = self._settings, len(self._w) - 3
        j = 24 + 2 * n
        e = len(r) - (0 if self._nav is None else 7)  # the end of the command's angles (the sensors' timeline after)
        more = {}
        if n:
            more = dict(wheel_speeds=tuple(r[24:24 + n]), wheel_torques=tuple(r[24 + n:j]),
                        body_h=tuple(r[e - 9:e - 6]), command_torque=tuple(r[e - 6:e - 3]))
        elif self._load.active:
            more["command_torque"] = self._law(self._q, self._w)
        if self._world_state is not None:
            more.update(world=self._world_state, pointing_error_deg=r[j + 10])
            j += 11
        if s.magnetic_on:
            more.update(b_body=tuple(r[j:j + 3]), dipole=tuple(r[j + 3:j + 6]))
            j += 6
        if s.torques_on:
            more.update(t_gg=tuple(r[j:j + 3]), t_srp=tuple(r[j + 3:j + 6]), t_drag=tuple(r[j + 6:j + 9]),
                        t_mag=tuple(r[j + 9:j + 12]))
            j += 12
        if self._nav is not None:  # the estimate and the sensors as the Python snapshot reads them
            more.update(estimate=self._estimate(), sensors=tuple(float(x) for x in self._nav.available[0]))
            j += 17
        if self._thr is not None:
            more["thrusters"] = self._thr.values()
            j += len(more["thrusters"])
        if self._load.gravity_gradient:
            more["orbit_angles_deg"] = tuple(r[j + 3:j + 6])
        if n:
            more["locked_energy"] = r[j + 1] / 4.0  # the row's 4T, exactly
        p = self._p if self._p is not None else qdot(self._q, self._w[:3])
        return Snapshot(t=self._t, step=self._k, q=self._q, w=self._w[:3], p=p, angles_deg=tuple(r[8:11]), norm=r[11],
                        norm_correction=self._correction, multiplier=r[12], energy=r[13], h=tuple(r[14:17]),
                        torque=tuple(r[17:20]), qc=tuple(r[20:24]), command_deg=tuple(r[e - 3:e]), q_dot_p=r[j + 2],
                        attitude=self.attitude, **more)

    def _issue32(self) -> dict:
        """The Snapshot's field, dipole and torques one by one (empty when off)."""
        out = {}
        if self._b_body is not None:
            out["b_body"], out["dipole"] = self._b_body, self._dipole_cmd
        if self._settings.torques_on:
            out["t_gg"], out["t_srp"], out["t_drag"], out["t_mag"] = self._load.parts(self._q, self._t)
        return out

    def _estimate(self) -> tuple:
        """The :data:`sim.model.navigation.ESTIMATE_COLUMNS` values now."""
        return tuple(float(x) for x in self._nav.values(self.attitude)[0])

    def columns(self) -> tuple:
        """The CSV columns of this simulation's rows (:func:`columns_of` its settings)."""
        return columns_of(self._settings)

    def row(self) -> tuple:
        """``snapshot().row()`` without the :class:`Snapshot`: the values in :func:`history_columns` order.

        What :class:`~sim.run.runner.Runner` records after every step.  A spacecraft the craft kernel steps, without
        CMGs, takes :func:`sim.model.craft_row.craft_row` (compiled once loaded), and a body without wheels, world,
        load, sensors, CMGs or thrusters :func:`sim.core.row_formula.plain_row`: the formulas the compiled loops
        write their rows with (:meth:`~sim.model.simulation.Simulation.step_rows`), the same bits.
        """
        r = self._craft_row()  # a spacecraft the compiled loop writes the rows of: its formula
        if r is not None:
            return tuple(r.tolist())
        if (self._world_state is None and self._nav is None and self._thr is None and self._cmg is None
                and not self._load.active and len(self._w) == 3):
            q, w, cmd = self._q, self._w, self._cmd
            a = cmd.angles
            return plain_row(self._t, q, w, self._p if self._p is not None else qdot(q, w), self._correction,
                             self._unit, self._rigid.j_rows, self._law(q, w), cmd.written,
                             (a[0] * DEG, a[1] * DEG, a[2] * DEG))
        _, angles, norm, mult, energy, h, torque, command, q_dot_p, more = self._derived()
        ws = self._world_state
        orbit = ()
        if ws is not None:
            more32 = self._issue32()
            parts = more32.get("t_gg")
            orbit = orbit_values(ws, self.pointing_error() * _DEG) + field_values(
                more32.get("b_body"), more32.get("dipole"),
                None if parts is None else (parts, more32["t_srp"], more32["t_drag"], more32["t_mag"]))
        nav = self._nav
        estimate = sensors = ()
        thrusters = () if self._thr is None else self._thr.values()
        if nav is not None:
            estimate = self._estimate()
            sensors = nav.history_values(estimate)
        if more is None:
            return history_row(self._t, self._q, self._w, angles, norm, mult, energy, h, torque, self._cmd.written,
                        self._correction, q_dot_p, command, 4.0 * energy, orbit=orbit, estimate=estimate,
                        sensors=sensors, thrusters=thrusters)
        locked = more.get("locked_energy")
        return history_row(self._t, self._q, self._w[:3], angles, norm, mult, energy, h, torque, self._cmd.written,
                    self._correction, q_dot_p, command, 4.0 * (energy if locked is None else locked),
                    more.get("wheel_speeds", ()), more.get("wheel_torques", ()), more.get("orbit_angles_deg"),
                    more.get("command_torque"), more.get("body_h"), orbit, estimate, sensors, more.get("cmg", ()),
                    thrusters)
