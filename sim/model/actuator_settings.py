"""Control moment gyros and thrusters as a user gives them, checked: the settings layer's share of
:mod:`sim.core.cmg`, :mod:`sim.core.thrusters` and :mod:`sim.gnc.thruster_mapping` (issue 45).

:mod:`sim.core` builds what it is given; the checks live here, each with a one-line
:class:`~sim.io.limits.SettingsError` naming the setting, the value and why: a rotor momentum
that is not positive, axes that are not axes, a cluster that is singular at its design angles
(it could not make torque about one direction from the start), thrusters that cannot make
torque about an axis the controller needs.

The CMG part lives in :mod:`sim.model.cmg_settings` (wired: the ``cmg*`` settings; re-exported
here), so that the settings do not import the thrusters' mapping and its scipy.  The thrusters'
checks are not yet wired: these are the checks that wiring will call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.core import thrusters as th
from sim.gnc.thruster_mapping import torque_authority
from sim.io.limits import SettingsError
from sim.model.cmg_settings import SINGULAR_M, CmgCluster, cmg_cluster, per_item, unit_rows

__all__ = ["CmgCluster", "ThrusterSet", "cmg_cluster", "thruster_set", "SINGULAR_M"]

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
    missing = [axis for axis in torque_authority(th.torque_matrix(pos, dirs, forces, np.asarray(cm, float)))
               if axis in needed.split()]
    if missing:
        raise SettingsError(f"thrusters: no firing makes torque about {', '.join(missing)} "
                            "(the controller needs it; add or turn thrusters)")
    return ThrusterSet(pos, dirs, forces, isps, mib)
