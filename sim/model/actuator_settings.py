"""Control moment gyros and thrusters as a user gives them, checked: the settings layer's share of
:mod:`sim.core.cmg`, :mod:`sim.core.thrusters` and :mod:`sim.gnc.thruster_mapping` (issue 45).

:mod:`sim.core` builds what it is given; the checks live here, each with a one-line
:class:`~sim.io.limits.SettingsError` naming the setting, the value and why: a rotor momentum
that is not positive, axes that are not axes, a cluster that is singular at its design angles
(it could not make torque about one direction from the start), thrusters that cannot make
torque about an axis the controller needs.

Not yet wired into :class:`~sim.model.settings.Settings`, the command line or the scenarios: these
are the checks that wiring will call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.core import cmg
from sim.core import thrusters as th
from sim.gnc.thruster_mapping import torque_authority
from sim.io.limits import SettingsError, as_number

__all__ = ["CmgCluster", "ThrusterSet", "cmg_cluster", "thruster_set", "SINGULAR_M"]

#: A cluster whose ``m / h0^6`` is below this at its design angles is refused as singular
#: (the pyramid at rest has ``m / h0^6 = 1.19``; on a singular set it is 0 to rounding, ~1e-32).
SINGULAR_M = 1e-9


@dataclass(frozen=True)
class CmgCluster:
    """A checked cluster: rotor momentum ``h0`` (N m s), gimbal axes ``g`` and spin axes at zero ``s0``
    (unit, shape (n, 3)), the design gimbal angles ``delta0`` (rad, shape (n,))."""

    h0: float
    g: np.ndarray
    s0: np.ndarray
    delta0: np.ndarray


@dataclass(frozen=True)
class ThrusterSet:
    """Checked thrusters: positions (m), unit directions, forces (N), Isp (s), minimum impulse bits (N s)."""

    pos: np.ndarray
    dirs: np.ndarray
    force: np.ndarray
    isp: np.ndarray
    impulse_bit: np.ndarray


def _unit_rows(name: str, rows) -> np.ndarray:
    try:
        a = np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        raise SettingsError(f"{name}: {rows!r} is not a list of (x, y, z) vectors") from None
    if a.ndim != 2 or a.shape[1] != 3 or not a.shape[0]:
        raise SettingsError(f"{name}: {rows!r} is not a list of (x, y, z) vectors")
    n = np.linalg.norm(a, axis=1)
    if not np.all(np.isfinite(n)) or np.any(n < 1e-12):
        raise SettingsError(f"{name}: axis {int(np.argmin(n)) + 1} is zero or not finite (give a direction)")
    return a / n[:, None]


def _per_item(name: str, value, n: int, low: float, strict: bool) -> np.ndarray:
    vals = [value] * n if isinstance(value, (int, float, str)) else list(value)
    if len(vals) != n:
        raise SettingsError(f"{name}: {len(vals)} values for {n} (give one value, or one each)")
    out = np.array([as_number(name, v) for v in vals])
    bad = out <= low if strict else out < low
    if np.any(bad):
        i = int(np.argmax(bad))
        raise SettingsError(f"{name}: {out[i]:g} is not {'above' if strict else 'at least'} {low:g}")
    return out


def cmg_cluster(h0, gimbal_axes="pyramid", spin_axes=None, angles=None,
                skew_deg: float = cmg.PYRAMID_SKEW_DEG) -> CmgCluster:
    """A checked CMG cluster; SettingsError in one line for a bad value.

    ``gimbal_axes`` is ``"pyramid"`` (Wie's four-CMG pyramid at ``skew_deg``) or unit axes, with
    ``spin_axes`` (one each, perpendicular to its gimbal axis) the rotors' directions at zero angle.
    """
    h0 = as_number("cmg_h0", h0)
    if not h0 > 0.0:
        raise SettingsError(f"cmg_h0: {h0:g} N m s is not a rotor momentum (give a positive number)")
    if isinstance(gimbal_axes, str):
        if gimbal_axes != "pyramid":
            raise SettingsError(f"cmg_gimbal_axes: {gimbal_axes!r} is not a cluster (pyramid, or a list of axes)")
        skew = as_number("cmg_skew", skew_deg)
        if not 0.0 < skew < 90.0:
            raise SettingsError(f"cmg_skew: {skew:g} deg is not between 0 and 90 (exclusive)")
        g, s0 = cmg.pyramid(skew)
    else:
        g = _unit_rows("cmg_gimbal_axes", gimbal_axes)
        if spin_axes is None:
            raise SettingsError("cmg_spin_axes: give one spin axis for each gimbal axis")
        s0 = _unit_rows("cmg_spin_axes", spin_axes)
        if s0.shape != g.shape:
            raise SettingsError(f"cmg_spin_axes: {len(s0)} axes for {len(g)} gimbals (give one each)")
        dots = np.abs(np.sum(g * s0, axis=1))
        if np.any(dots > 1e-9):
            i = int(np.argmax(dots))
            raise SettingsError(f"cmg_spin_axes: spin axis {i + 1} is not perpendicular to its gimbal axis "
                                f"(cos = {dots[i]:.3g})")
    n = len(g)
    delta0 = np.zeros(n) if angles is None else np.radians(_per_item("cmg_angles", angles, n, -math.inf, True))
    if n < 3:
        raise SettingsError(f"cmg_gimbal_axes: {n} CMGs cannot make torque about three axes (give 3 or more)")
    a = cmg.jacobian(h0, g, s0, delta0)
    if cmg.singularity_measure(a) / h0 ** 6 < SINGULAR_M:
        u = np.linalg.svd(a)[0][:, -1]
        raise SettingsError(f"cmg: the cluster is singular at its design angles: no torque about "
                            f"({u[0]:.3f}, {u[1]:.3f}, {u[2]:.3f}) (choose other axes or angles)")
    return CmgCluster(h0, g, s0, delta0)


def thruster_set(positions, directions, force, isp, impulse_bit=0.0, needed="+x -x +y -y +z -z",
                 cm=(0.0, 0.0, 0.0)) -> ThrusterSet:
    """Checked thrusters; SettingsError in one line for a bad value, or when no firing makes torque
    about one of the ``needed`` signed axes (the controller's)."""
    pos = np.asarray(positions, dtype=float)
    dirs = _unit_rows("thruster_directions", directions)
    if pos.shape != dirs.shape or not np.all(np.isfinite(pos)):
        raise SettingsError(f"thruster_positions: {len(pos)} finite (x, y, z) positions needed for "
                            f"{len(dirs)} thrusters")
    n = len(dirs)
    forces = _per_item("thruster_force", force, n, 0.0, True)
    isps = _per_item("thruster_isp", isp, n, 0.0, True)
    mib = _per_item("thruster_impulse_bit", impulse_bit, n, 0.0, False)
    missing = [axis for axis in torque_authority(th.torque_matrix(pos, dirs, forces, np.asarray(cm, float)))
               if axis in needed.split()]
    if missing:
        raise SettingsError(f"thrusters: no firing makes torque about {', '.join(missing)} "
                            "(the controller needs it; add or turn thrusters)")
    return ThrusterSet(pos, dirs, forces, isps, mib)
