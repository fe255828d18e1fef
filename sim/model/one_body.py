"""What only one body flies (issue 45): a CMG cluster with thrusters unloading it (:mod:`sim.model.cmg_step`).

An ensemble flies CMG clusters (each body's gimbal angles a row, :class:`sim.ensemble.cmg_bodies.CmgColumns`)
and thrusters (each body's drive a row, :class:`sim.model.thruster_drive.DriveColumns`), but not both on one
body: the ensemble's thrusters fire on the torque law or unload wheels, never a cluster.

:func:`check_no_ensemble` is the one refusal, called where an ensemble is made
(:class:`sim.ensemble.Ensemble`), where typed inputs reach one (:meth:`sim.ensemble.Ensemble.apply`, before
anything takes effect) and where one is asked for (:meth:`sim.run.runner.Runner.send`).
"""

from __future__ import annotations

from sim.io.limits import SettingsError
from sim.model.controls import SettingChange

__all__ = ["check_no_ensemble"]


def check_no_ensemble(settings, *inputs) -> None:
    """SettingsError in one line when ``settings``, with the :class:`~sim.model.controls.SettingChange` among
    the typed ``inputs`` applied, have a CMG cluster and thrusters: an ensemble flies those one body at a time."""
    new = {item.key: item.value for item in inputs if isinstance(item, SettingChange)}
    if new.get("cmg", settings.cmg) != "none" and new.get("thrusters", settings.thrusters) != "none":
        raise SettingsError("cmg: an ensemble flies no CMG clusters with thrusters (one body at a time: "
                            "attitude-sim run)")
