"""Control moment gyros and thrusters as a user gives them, checked: the settings layer's share of
:mod:`sim.core.cmg`, :mod:`sim.core.thrusters` and :mod:`sim.gnc.thruster_mapping` (issue 45).

:mod:`sim.core` builds what it is given; the checks live here, each with a one-line
:class:`~sim.io.limits.SettingsError` naming the setting, the value and why: a rotor momentum
that is not positive, axes that are not axes, a cluster that is singular at its design angles
(it could not make torque about one direction from the start), thrusters that cannot make
torque about an axis the controller needs.

The CMG part lives in :mod:`sim.model.cmg_settings` (the ``cmg*`` settings; re-exported here).  The
thrusters are wired here (:func:`thrusters_of`, :data:`THRUSTER_VALIDATORS`, :func:`check_thrusters`); the
thrusters' mapping and its scipy are imported only when a body has thrusters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.core import thrusters as th
from sim.io.limits import LIMITS, SettingsError, listed
from sim.model.cmg_settings import SINGULAR_M, CmgCluster, cmg_cluster, per_item, unit_rows

__all__ = ["CmgCluster", "ThrusterSet", "cmg_cluster", "thruster_set", "SINGULAR_M", "thrusters_of",
           "check_thrusters", "THRUSTER_VALIDATORS", "CUBE_ARM"]

#: The half-side of the built-in cube of twelve thrusters (m): about Hoffmann's aircraft's size.
CUBE_ARM = 1.0

@dataclass(frozen=True)
class ThrusterSet:
    """Checked thrusters: positions (m), unit directions, forces (N), Isp (s), minimum impulse bits (N s)."""

    pos: np.ndarray
    dirs: np.ndarray
    force: np.ndarray
    isp: np.ndarray
    impulse_bit: np.ndarray


def thruster_set(positions, directions, force, isp, impulse_bit=0.0, needed="+x -x +y -y +z -z",
                 cm=(0.0, 0.0, 0.0)) -> ThrusterSet:
    """Checked thrusters; SettingsError in one line for a bad value, or when no firing makes torque
    about one of the ``needed`` signed axes (the controller's)."""
    pos = np.asarray(positions, dtype=float)
    dirs = unit_rows("thruster_directions", directions)
    if pos.shape != dirs.shape or not np.all(np.isfinite(pos)):
        raise SettingsError(f"thruster_positions: {len(pos)} finite (x, y, z) positions needed for "
                            f"{len(dirs)} thrusters")
    n = len(dirs)
    forces = per_item("thruster_force", force, n, 0.0, True)
    isps = per_item("thruster_isp", isp, n, 0.0, True)
    mib = per_item("thruster_impulse_bit", impulse_bit, n, 0.0, False)
    from sim.gnc.thruster_mapping import torque_authority  # scipy, loaded only when thrusters are used

    missing = [axis for axis in torque_authority(th.torque_matrix(pos, dirs, forces, np.asarray(cm, float)))
               if axis in needed.split()]
    if missing:
        raise SettingsError(f"thrusters: no firing makes torque about {', '.join(missing)} "
                            "(the controller needs it; add or turn thrusters)")
    return ThrusterSet(pos, dirs, forces, isps, mib)


# ------------------------------------------------------------------ the settings' thrusters (issue 45)
def _thrusters(key, value):
    """``"none"``, ``"cube"`` (:func:`sim.core.thrusters.cube_layout`), or positions ((x, y, z), ...) in m."""
    if value is None:
        return "none"
    if isinstance(value, str):
        text = value.strip()
        if text in th.LAYOUTS:
            return text
        if not any(ch.isdigit() for ch in text):
            raise SettingsError(f"{key}: unknown value {value!r} (choose from {', '.join(th.LAYOUTS)}, or "
                                "positions x1,y1,z1;x2,y2,z2;...)")
        value = [p for p in text.split(";") if p.strip()]
    return _vectors(key, value, "thruster_position")


def _vectors(key, value, limit):
    try:
        rows = list(value)
    except TypeError:
        raise SettingsError(f"{key}: expected a list of (x, y, z) vectors, got {value!r}") from None
    count = LIMITS["thruster_count"]
    if not int(count.low) <= len(rows) <= int(count.high) or all(isinstance(r, (int, float)) for r in rows):
        raise SettingsError(f"{key}: expected 1 to {int(count.high)} (x, y, z) vectors, got {value!r}")
    return tuple(LIMITS[limit].check(r, f"{key}[{i}]") for i, r in enumerate(rows))


def _directions(key, value):
    if value is None:
        return None
    if isinstance(value, str):
        value = [p for p in value.split(";") if p.strip()]
    rows = _vectors(key, value, "thruster_position")
    return tuple(tuple(float(x) for x in r) for r in unit_rows(key, rows))


def _per_thruster(key, value):
    """One number for every thruster, or one per thruster (each in the range of ``key``)."""
    if isinstance(value, (int, float)) or isinstance(value, str) and "," not in value:
        return LIMITS[key].check(value, key)
    values = tuple(LIMITS[key].number(v, f"{key}[{i}]") for i, v in enumerate(listed(key, value, "numbers")))
    return values[0] if len(values) == 1 else values


def _limited(key, value):
    return LIMITS[key].check(value, key)


def _modulation(key, value):
    if value not in th.MODULATIONS:
        raise SettingsError(f"{key}: unknown value {value!r} (choose from {', '.join(th.MODULATIONS)})")
    return value


#: The per-key checks of the thruster settings (merged into :data:`sim.model.validators.VALIDATORS`).
THRUSTER_VALIDATORS = {
    "thrusters": _thrusters, "thruster_directions": _directions, "thruster_force": _per_thruster,
    "thruster_isp": _per_thruster, "thruster_impulse_bit": _per_thruster, "thruster_modulation": _modulation,
    "thruster_period": _limited, "thruster_on": _limited, "thruster_off": _limited, "pwpf_km": _limited,
    "pwpf_tau": _limited, "thruster_deadband_deg": _limited, "thruster_unloading": _limited,
}


def thrusters_of(settings) -> ThrusterSet | None:
    """The checked :class:`ThrusterSet` of ``settings`` (None without thrusters); SettingsError in one line when
    the lists do not fit, or when no firing makes torque about an axis the thrusters must serve: every
    axis the controller drives (``axes``), or all three when they unload wheels."""
    s = settings
    if s.thrusters == "none":
        return None
    if s.thrusters == "cube":
        if s.thruster_directions is not None:
            raise SettingsError("thruster_directions: the cube sets its own; give positions with directions")
        pos, dirs = th.cube_layout(CUBE_ARM)
    else:
        if s.thruster_directions is None:
            raise SettingsError("thruster_directions: give one direction for each thruster position")
        pos, dirs = np.array(s.thrusters, dtype=float), np.array(s.thruster_directions, dtype=float)
        if len(pos) != len(dirs):
            raise SettingsError(f"thruster_directions: {len(dirs)} directions for {len(pos)} thrusters "
                                "(give one each)")
    drives = s.wheels == "none" and s.thruster_unloading == 0.0
    axes = s.axes if drives and s.thruster_modulation != "deadband" else (True, True, True)
    needed = " ".join(f"{sign}{a}" for a, on in zip("xyz", axes) if on for sign in "+-")
    return thruster_set(pos, dirs, s.thruster_force, s.thruster_isp, s.thruster_impulse_bit, needed)


def check_thrusters(settings) -> None:
    """The thruster settings together (each key's range is its validator's): SettingsError, one line."""
    s = settings
    if s.thrusters == "none":
        if s.thruster_unloading > 0.0:
            raise SettingsError("thruster_unloading: needs thrusters (thrusters = cube, or positions and directions)")
        return
    if not s.thruster_off < s.thruster_on:
        raise SettingsError(f"thruster_off: {s.thruster_off:g} is not below thruster_on {s.thruster_on:g} "
                            "(the trigger's hysteresis U_on - U_off must be positive)")
    # what stores momentum for the thrusters to unload (sim.model.thruster_drive; a CMG cluster: sim.model.cmg_step)
    store = "reaction wheels" if s.wheels != "none" else "CMGs" if s.cmg != "none" else None
    if store and not s.thruster_unloading > 0.0:
        raise SettingsError(f"thruster_unloading: with {store} the thrusters unload them; give the "
                            f"unloading gain (1/s), or no {store} for thrusters that fly the controller")
    if not store and s.thruster_unloading > 0.0:
        raise SettingsError("thruster_unloading: unloads the momentum of reaction wheels or CMGs; the body has none")
    if store and s.thruster_modulation == "deadband":
        raise SettingsError(f"thruster_modulation: deadband holds the attitude itself; with {store} "
                            "the thrusters unload them (choose schmitt or pwpf)")
    if s.thruster_period < s.dt:
        raise SettingsError(f"thruster_period: {s.thruster_period:g} s is shorter than the step dt = {s.dt:g} s")
    s.thruster_set  # noqa: B018 - raises SettingsError for lists that do not fit, or a missing axis
