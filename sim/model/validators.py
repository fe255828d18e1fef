"""The per-key checks of :class:`sim.model.settings.Settings`: one validator a setting.

Each takes ``(key, value)`` and returns the value normalised (tuples of floats, resolved body names,
parsed epochs, orbits and TLEs) or raises :class:`sim.io.limits.SettingsError` with a message that names
the key.  The checks of several settings together stay with :class:`~sim.model.settings.Settings`;
:func:`sim.model.settings.validate` is the one door to these.
"""

from __future__ import annotations

import importlib.util
import math

from sim.core.body import Body
from sim.core.control import CONTROLLERS
from sim.gnc.magnetic import BDOT_LAWS, Magnetorquers
from sim.gnc.pointing import POINTING_MODES
from sim.model.surface_file import SurfaceFileError
from sim.model.surface_file import read as read_surfaces
from sim.world.environment import DISTURBANCE_AXES
from sim.world.orbit import R_EARTH_KM, OrbitError, check_elements, read_tle
from sim.world.time import EpochError, parse_epoch
from sim.core.integrators import FULL_QUAT_FORMS, INTEGRATORS
from sim.io.limits import LIMITS, SettingsError, as_number, components, listed
from sim.core.norm import NORM_MODES
from sim.model.shape import BUILTINS, MESH_UNITS, ShapeError, load, resolve
from sim.core.wheels import LAYOUTS
from sim.model.navigation import ESTIMATORS, FLY_ON
from sim.model.cmg_settings import CMG_CLUSTERS, CMG_LAWS
from sim.model.actuator_settings import THRUSTER_VALIDATORS

__all__ = ["VALIDATORS"]


def _choice(key, value, options):
    if value not in options:
        raise SettingsError(f"{key}: unknown value {value!r} (choose from {', '.join(options)})")
    return value


def _flag(key, value):
    if not isinstance(value, bool):
        raise SettingsError(f"{key}: expected true or false, got {value!r}")
    return value


def _inertia(key, value):
    if value is None:  # the body's own
        return None
    # finite numbers; the range of the tensor is Body's to state (LIMITS["inertia"], principal moments)
    comps = tuple(as_number(f"{key}[{i}]", v) for i, v in enumerate(components(key, value, 6)))
    try:
        Body(comps)
    except ValueError as exc:
        raise SettingsError(f"{key}: {exc}") from None
    return comps


def _body(key, value):
    try:
        body = resolve(value)
        if body not in BUILTINS:
            load(body)  # a readable mesh of sensible size
        return body
    except ShapeError as exc:
        raise SettingsError(f"{key}: {exc}") from None


def _axes(key, value):
    try:
        parts = list(value)
    except TypeError:
        raise SettingsError(f"{key}: expected three true/false values, got {value!r}") from None
    if len(parts) != 3:
        raise SettingsError(f"{key}: expected three true/false values, got {value!r}")
    return tuple(_flag(f"{key}[{i}]", v) for i, v in enumerate(parts))


def _limited(key, value):
    return LIMITS[key].check(value, key)


def _optional(key, value):
    return None if value is None else LIMITS[key].check(value, key)


def _wheel_list(key, value) -> list:
    """``value`` (a sequence, or ``"a,b,..."`` text) as a list of 1 to MAX_WHEELS parts."""
    parts = listed(key, value, "a number or a list of numbers")
    count = LIMITS["wheel_count"]
    if not int(count.low) <= len(parts) <= int(count.high):
        raise SettingsError(f"{key}: expected 1 to {int(count.high)} values (one per wheel), got {len(parts)}")
    return parts


def _per_wheel(key, value):
    """One number for every wheel, or a tuple of one per wheel (each in the range of ``key``)."""
    if isinstance(value, str) and "," not in value or isinstance(value, (int, float)) or value is None:
        return LIMITS[key].check(value, key)
    values = tuple(LIMITS[key].number(v, f"{key}[{i}]") for i, v in enumerate(_wheel_list(key, value)))
    return values[0] if len(values) == 1 else values


def _wheel_values(key, value):
    """None, or a tuple of one number per wheel (each in the range of ``key``)."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = (value,)
    return tuple(LIMITS[key].number(v, f"{key}[{i}]") for i, v in enumerate(_wheel_list(key, value)))


def _cmg_angles(key, value):
    """None (the cluster's design angles, zero), or one gimbal angle per CMG (deg; the count is the cluster's check)."""
    if value is None:
        return None
    parts = [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else listed(
        key, value, "one gimbal angle per CMG (deg)")
    return tuple(LIMITS[key].number(v, f"{key}[{i}]") for i, v in enumerate(parts))


_AXES_HELP = ", ".join(LAYOUTS) + ", or axes x1,y1,z1;x2,y2,z2;..."


def _wheels(key, value):
    """A layout name, or a tuple of unit axes (each given axis divided by its length)."""
    if value is None:
        return "none"
    if isinstance(value, str):
        text = value.strip()
        if text in LAYOUTS:
            return text
        if not any(ch.isdigit() for ch in text):
            raise SettingsError(f"{key}: unknown value {value!r} (choose from {_AXES_HELP})")
        value = [axis for axis in text.split(";") if axis.strip()] or [text]
    try:
        axes = list(value)
    except TypeError:
        raise SettingsError(f"{key}: expected {_AXES_HELP}, got {value!r}") from None
    if axes and all(isinstance(a, (int, float)) for a in axes):
        raise SettingsError(f"{key}: expected a list of axes [[x, y, z], ...], got {value!r}")
    count = LIMITS["wheel_count"]
    if not int(count.low) <= len(axes) <= int(count.high):
        raise SettingsError(f"{key}: {len(axes)} axes (1 to {int(count.high)} wheels)")
    unit = []
    for i, axis in enumerate(axes):
        x, y, z = LIMITS["wheel_axis"].check(axis, f"{key}[{i}]")
        length = math.sqrt(x * x + y * y + z * z)
        if not length > 0.0:
            raise SettingsError(f"{key}[{i}]: axis {i + 1}, ({x:g}, {y:g}, {z:g}), has no direction")
        unit.append((x, y, z) if length == 1.0 else (x / length, y / length, z / length))
    return tuple(unit)


def _epoch(key, value):
    try:
        return parse_epoch(value).text
    except EpochError as exc:
        raise SettingsError(f"{key}: {exc}") from None


def _orbit(key, value):
    """None, or (altitude_km, e, i_deg, raan_deg, argp_deg, nu_deg): e in [0, 1), the perigee above the surface."""
    if value is None:
        return None
    parts = components(key, value, 6)
    alt = LIMITS["orbit_altitude_km"].number(parts[0], f"{key} altitude")
    e = as_number(f"{key} e", parts[1])
    angles = tuple(LIMITS["orbit_angle_deg"].number(v, f"{key} {n}")
                   for v, n in zip(parts[2:], ("i", "raan", "argp", "nu")))
    try:
        check_elements(R_EARTH_KM + alt, e, key)
    except OrbitError as exc:
        raise SettingsError(str(exc)) from None
    return (alt, e, *angles)


def _tle(key, value):
    if value is None:
        return None
    try:
        read_tle(value, key)
    except OrbitError as exc:
        raise SettingsError(str(exc)) from None
    return str(value)


def _target(key, value):
    parts = listed(key, value, "LAT_DEG,LON_DEG[,ALT_KM]")
    if not 2 <= len(parts) <= 3:
        raise SettingsError(f"{key}: expected LAT_DEG,LON_DEG[,ALT_KM], got {value!r}")
    lat, lon, *alt = parts
    return (LIMITS["target_lat_deg"].number(lat, f"{key} latitude"),
            LIMITS["target_lon_deg"].number(lon, f"{key} longitude"),
            LIMITS["target_alt_km"].number(alt[0] if alt else 0.0, f"{key} altitude"))


def _numbers(key, value, names, least, most=None):
    """None, or ``least`` to ``most`` numbers (text ``"a,b"`` or a sequence), each checked by its LIMITS entry."""
    if value is None:
        return None
    most = most or len(names)
    parts = listed(key, value, ",".join(n.upper() for n in names[:least]) + "".join(
        f"[,{n.upper()}]" for n in names[least:most]))
    if not least <= len(parts) <= most:
        raise SettingsError(f"{key}: expected {least}{'' if least == most else f' to {most}'} numbers "
                            f"({', '.join(names[:most])}), got {value!r}")
    limits = {"arw": "gyro_arw", "rrw": "gyro_rrw", "bias0": "gyro_bias", "noise_arcsec": "star_tracker_noise_arcsec",
              "rate_hz": "star_tracker_rate_hz"}
    values = tuple(LIMITS[limits[n]].number(v, f"{key} {n}") for v, n in zip(parts, names))
    return values + (0.0,) * (most - len(values))


def _magnetometer(key, value):
    return None if value is None else LIMITS["magnetometer_noise"].number(value, key)


def _pointing_axis(key, value):
    x, y, z = LIMITS["pointing_axis"].check(value, key)
    n = math.sqrt(x * x + y * y + z * z)
    if not n > 0.0:
        raise SettingsError(f"{key}: ({x:g}, {y:g}, {z:g}) has no direction")
    return (x, y, z) if n == 1.0 else (x / n, y / n, z / n)


def _magnetorquer_axes(key, value):
    """None (body x, y, z), or three or more axes that span space (``"x,y,z;x,y,z;..."`` or a list)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [axis for axis in value.split(";") if axis.strip()]
    try:
        axes = list(value)
    except TypeError:
        raise SettingsError(f"{key}: expected three or more axes [[x, y, z], ...], got {value!r}") from None
    axes = tuple(LIMITS["magnetorquer_axis"].check(a, f"{key}[{i}]") for i, a in enumerate(axes))
    try:
        Magnetorquers(axes, (1.0,) * len(axes))
    except ValueError as exc:
        raise SettingsError(f"{key}: {str(exc).split(': ', 1)[-1]}") from None
    return axes


def _surfaces(key, value):
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise SettingsError(f"{key}: expected the name of a surfaces file (.toml), got {value!r}")
    try:
        read_surfaces(value)
    except SurfaceFileError as exc:
        raise SettingsError(f"{key}: {exc}") from None
    return value


def _atmosphere(key, value):
    _choice(key, value, ("exponential", "msis"))
    if value == "msis" and importlib.util.find_spec("pymsis") is None:
        raise SettingsError(f"{key}: msis needs the optional package pymsis (pip install 'attitude-sim[msis]')")
    return value


#: Each setting's check: ``VALIDATORS[key](key, value)`` returns the value normalised or raises
#: :class:`SettingsError` (:func:`sim.model.settings.validate` is the one door to it).
VALIDATORS = {
    "inertia": _inertia,
    "body": _body,
    "mass": _optional,
    "mesh_units": lambda k, v: _choice(k, v, tuple(MESH_UNITS)),
    "integrator": lambda k, v: _choice(k, v, tuple(INTEGRATORS)),
    "full_quat_form": lambda k, v: _choice(k, v, FULL_QUAT_FORMS),
    "norm": lambda k, v: _choice(k, v, tuple(NORM_MODES)),
    "dt": _limited,
    "angles_deg": _limited,
    "rates": _limited,
    "torque": _limited,
    "dampers_on": _flag,
    "dampers": _limited,
    "controller": lambda k, v: _choice(k, v, CONTROLLERS),
    "gains": _limited,
    "axes": _axes,
    "shortest_path": _flag,
    "limiter_on": _flag,
    "limits": _limited,
    "slerp_time": _limited,
    "command_deg": _optional,
    "wheels": _wheels,
    "wheel_inertia": _per_wheel,
    "wheel_torque_limit": _per_wheel,
    "wheel_speed_limit": _per_wheel,
    "wheel_friction": _per_wheel,
    "wheel_speeds": _wheel_values,
    "wheel_torques": _wheel_values,
    # control moment gyros (issue 45; the cluster as a whole is sim.model.cmg_settings.cmg_cluster's to check)
    "cmg": lambda k, v: _choice(k, v, CMG_CLUSTERS),
    "cmg_h0": _limited, "cmg_skew": _limited, "cmg_law": lambda k, v: _choice(k, v, tuple(CMG_LAWS)),
    "cmg_lambda0": _limited, "cmg_mu": _limited, "cmg_null_gain": _limited, "cmg_dither": _limited,
    "cmg_dither_rate": _limited, "cmg_rate_limit": _limited, "cmg_angles": _cmg_angles,
    "gravity_gradient": _flag,
    "altitude_km": _limited,
    "disturbance": _limited,
    "disturbance_axes": lambda k, v: _choice(k, v, DISTURBANCE_AXES),
    "disturbance_period": _limited,
    "epoch": _epoch,
    "orbit": _orbit,
    "tle": _tle,
    "j2": _flag,
    "pointing": lambda k, v: _choice(k, v, POINTING_MODES),
    "target": _target,
    "pointing_axis": _pointing_axis,
    "magnetic_field": lambda k, v: _choice(k, v, ("none", "igrf", "dipole")),
    "magnetorquers": _limited,
    "magnetorquer_axes": _magnetorquer_axes,
    "residual_dipole": _limited,
    "bdot_law": lambda k, v: _choice(k, v, ("off", *BDOT_LAWS)),
    "bdot_gain": _limited,
    "bdot_period": _limited,
    "dumping_gain": _limited,
    "srp": _flag,
    "drag": _flag,
    "surfaces": _surfaces,
    "center_of_mass": _optional,
    "atmosphere": _atmosphere,
    "estimator": lambda k, v: _choice(k, v, ESTIMATORS),
    "gyro": lambda k, v: _numbers(k, v, ("arw", "rrw", "bias0"), 2),
    "star_tracker": lambda k, v: _numbers(k, v, ("noise_arcsec", "rate_hz"), 2),
    "sun_sensors": _flag,
    "magnetometer": _magnetometer,
    "fly_on": lambda k, v: _choice(k, v, FLY_ON),
    "sensor_seed": lambda k, v: LIMITS["sensor_seed"].number(v, k),
    "filter_gyro": lambda k, v: _numbers(k, v, ("arw", "rrw"), 2),
    **THRUSTER_VALIDATORS,
}
