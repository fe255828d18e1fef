"""What only one body flies (issue 45): a CMG cluster steps one body at a time (:mod:`sim.model.cmg_step`).
(Thrusters fly in an ensemble: each body's drive is a row, :class:`sim.model.thruster_drive.DriveColumns`.)

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
    the typed ``inputs`` applied, have a CMG cluster: an ensemble flies none."""
    new = {item.key: item.value for item in inputs if isinstance(item, SettingChange)}
    if new.get("cmg", settings.cmg) != "none":
        raise SettingsError("cmg: an ensemble flies no CMG clusters (one body at a time: attitude-sim run)")
