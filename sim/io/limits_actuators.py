"""The actuators' entries of :data:`sim.io.limits.LIMITS`: reaction wheels (:mod:`sim.core.wheels`), control
moment gyros (:mod:`sim.core.cmg`, issue 45) and thrusters (:mod:`sim.core.thrusters`, issue 45).

A module of their own beside the one table, which takes them in with ``*actuator_limits(Limit, _MAGNITUDE)``:
:func:`actuator_limits` makes them with the table's own :class:`~sim.io.limits.Limit` (passed in, since
:mod:`sim.io.limits` imports this module), so each is checked and refused as every other limit is.
"""

from __future__ import annotations

__all__ = ["actuator_limits"]


def actuator_limits(limit, magnitude: float) -> tuple:
    """The actuators' :class:`~sim.io.limits.Limit` entries, made by ``limit`` (that class); ``magnitude`` is the
    table's largest magnitude (1e6 today)."""
    return (
        # ---- reaction wheels (sim.core.wheels): each value one number for every wheel or one per wheel
        limit("wheel_count", 1, 32, integer=True),
        limit("wheel_axis", -magnitude, magnitude, size=3),
        # an axial inertia as small as the smallest body's principal moment; the craft's (locked)
        # inertia must exceed the wheels' about their axes (sim.model.settings checks the combination)
        limit("wheel_inertia", 1e-8, 1e12, "kg m^2"),
        limit("wheel_torque_limit", 0.0, magnitude, "N m", low_open=True),
        # 1e5 rad/s is about a million rpm: far beyond any flywheel
        limit("wheel_speed_limit", 0.0, 1e5, "rad/s", low_open=True),
        limit("wheel_friction", 0.0, magnitude, "N m s"),
        limit("wheel_speeds", -1e5, 1e5, "rad/s"),
        limit("wheel_torques", -magnitude, magnitude, "N m"),
        # ---- CMGs (issue 45, sim.core.cmg): h0 (CubeSat 0.01 to ISS 4,760 N m s), SR weight (h0^2) and its fall with m/h0^6
        limit("cmg_h0", 0.0, 1e5, "N m s", low_open=True), limit("cmg_skew", 1.0, 89.0, "deg"),
        limit("cmg_lambda0", 0.0, 1.0), limit("cmg_mu", 0.0, 1e3), limit("cmg_null_gain", 0.0, 1e3, "rad/s"),
        limit("cmg_dither", 0.0, 0.49), limit("cmg_dither_rate", 0.0, 1e3, "rad/s"),
        limit("cmg_rate_limit", 0.0, 100.0, "rad/s", low_open=True), limit("cmg_angles", -360.0, 360.0, "deg"),
        # ---- thrusters (issue 45): 0.01 N cold gas to 1 kN; Schmitt/PWPF thresholds on the command normalised to 1
        limit("thruster_count", 1, 64, integer=True), limit("thruster_position", -1e3, 1e3, "m", size=3),
        limit("thruster_force", 0.0, 1e4, "N", low_open=True), limit("thruster_isp", 0.0, 1e4, "s", low_open=True),
        limit("thruster_impulse_bit", 0.0, 1e3, "N s"), limit("thruster_period", 0.0, 100.0, "s", low_open=True),
        limit("thruster_on", 0.0, 10.0, low_open=True), limit("thruster_off", 0.0, 10.0),
        limit("pwpf_km", 0.0, 100.0, low_open=True), limit("pwpf_tau", 0.0, 100.0, "s", low_open=True),
        limit("thruster_deadband_deg", 0.0, 90.0, "deg", low_open=True), limit("thruster_unloading", 0.0, 1.0, "1/s"),
    )
