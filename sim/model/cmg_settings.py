"""Control moment gyros as a user gives them, checked: the settings layer's share of :mod:`sim.core.cmg` (issue 45).

:mod:`sim.core` builds what it is given; the checks live here, each with a one-line
:class:`~sim.io.limits.SettingsError` naming the setting, the value and why: a rotor momentum
that is not positive, axes that are not axes, a cluster that is singular at its design angles
(it could not make torque about one direction from the start).  :func:`cmg_of` is what
:class:`~sim.model.settings.Settings` calls for its ``cmg*`` fields (the cluster stepped by
:mod:`sim.model.cmg_step`).  The thrusters' checks are :mod:`sim.model.actuator_settings`'s, which
shares :func:`unit_rows` and :func:`per_item`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.core import cmg
from sim.io.limits import SettingsError, as_number

__all__ = ["CmgCluster", "cmg_cluster", "cmg_of", "SINGULAR_M", "CMG_CLUSTERS", "CMG_LAWS", "unit_rows", "per_item"]

#: The clusters a ``cmg`` setting names: none, or Wie's four-CMG pyramid (:func:`sim.core.cmg.pyramid`).
CMG_CLUSTERS = ("none", "pyramid")
#: The steering laws a ``cmg_law`` setting names, by their code in :func:`sim.core.cmg.steer`
#: (:data:`sim.core.cmg.STEERING_LAWS`): Moore-Penrose, singularity-robust, null motion up the
#: gradient of ``m``, Wie's generalized SR.
CMG_LAWS = {"mp": 0, "sr": 1, "null": 2, "gsr": 3}

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


def unit_rows(name: str, rows) -> np.ndarray:
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


def per_item(name: str, value, n: int, low: float, strict: bool) -> np.ndarray:
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
        g = unit_rows("cmg_gimbal_axes", gimbal_axes)
        if spin_axes is None:
            raise SettingsError("cmg_spin_axes: give one spin axis for each gimbal axis")
        s0 = unit_rows("cmg_spin_axes", spin_axes)
        if s0.shape != g.shape:
            raise SettingsError(f"cmg_spin_axes: {len(s0)} axes for {len(g)} gimbals (give one each)")
        dots = np.abs(np.sum(g * s0, axis=1))
        if np.any(dots > 1e-9):
            i = int(np.argmax(dots))
            raise SettingsError(f"cmg_spin_axes: spin axis {i + 1} is not perpendicular to its gimbal axis "
                                f"(cos = {dots[i]:.3g})")
    n = len(g)
    delta0 = np.zeros(n) if angles is None else np.radians(per_item("cmg_angles", angles, n, -math.inf, True))
    if n < 3:
        raise SettingsError(f"cmg_gimbal_axes: {n} CMGs cannot make torque about three axes (give 3 or more)")
    a = cmg.jacobian(h0, g, s0, delta0)
    if cmg.singularity_measure(a) / h0 ** 6 < SINGULAR_M:
        u = np.linalg.svd(a)[0][:, -1]
        raise SettingsError(f"cmg: the cluster is singular at its design angles: no torque about "
                            f"({u[0]:.3f}, {u[1]:.3f}, {u[2]:.3f}) (choose other axes or angles)")
    return CmgCluster(h0, g, s0, delta0)


def cmg_of(settings) -> CmgCluster | None:
    """The checked cluster of a :class:`~sim.model.settings.Settings` (None with ``cmg = "none"``): its
    ``cmg_h0``, ``cmg_skew`` and initial ``cmg_angles`` through :func:`cmg_cluster`."""
    if settings.cmg == "none":
        return None
    return cmg_cluster(settings.cmg_h0, settings.cmg, angles=settings.cmg_angles, skew_deg=settings.cmg_skew)
