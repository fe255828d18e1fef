"""The reaction wheels of a :class:`~sim.model.settings.Settings`, checked: the settings layer's share of
:mod:`sim.core.wheels`.

:mod:`sim.core` imports no limits and raises no :class:`~sim.io.limits.SettingsError`
(it builds what it is given); the checks that need the settings as a whole
live here, with the messages a user reads (one line at the command line,
exit 2).
"""

from __future__ import annotations

from sim.core.wheels import WheelSet, layout_axes
from sim.core.wheels import wheel_set as build_wheel_set
from sim.io.limits import SettingsError

__all__ = ["wheel_set"]

#: The lists of one number for every wheel or one per wheel.
PER_WHEEL = ("wheel_inertia", "wheel_torque_limit", "wheel_speed_limit", "wheel_friction")


def wheel_set(settings) -> WheelSet | None:
    """The :class:`~sim.core.wheels.WheelSet` of ``settings`` (None without wheels); SettingsError when the lists
    do not fit the wheels or a start speed is beyond its wheel's speed limit.

    ``wheel_inertia``, ``wheel_torque_limit``, ``wheel_speed_limit`` and
    ``wheel_friction`` are one number for every wheel or one per wheel;
    ``wheel_speeds`` and ``wheel_torques`` one per wheel (or None: zero).
    """
    n = len(layout_axes(settings.wheels))
    if not n:
        return None
    for key in ("wheel_speeds", "wheel_torques"):
        value = getattr(settings, key)
        if value is not None and len(value) != n:
            raise SettingsError(f"{key}: {len(value)} values for {n} wheels (give one per wheel)")
    for key in PER_WHEEL:
        value = getattr(settings, key)
        if not isinstance(value, (int, float)) and len(tuple(value)) != n:
            raise SettingsError(f"{key}: {len(tuple(value))} values for {n} wheels (give one value, or one per wheel)")
    wheels = build_wheel_set(settings)
    if settings.wheel_speeds is not None:
        for i, (speed, most) in enumerate(zip(settings.wheel_speeds, wheels.speed_limit)):
            if abs(speed) > most:
                raise SettingsError(f"wheel_speeds[{i}]: {speed:g} rad/s is beyond the wheel's speed limit "
                                    f"{most:g} rad/s")
    return wheels
