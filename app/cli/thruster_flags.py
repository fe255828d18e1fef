"""The thrusters' flags of ``run`` and ``sweep`` (issue 45): one flag a setting, named as the setting.

Each value is checked through :func:`sim.validate` (a bad one is one line naming the flag,
exit 2); the numbers are flags of :data:`app.cli.flags.NUMERIC`, their help ending with the table's range; the combinations (no torque about an axis the controller needs, U_off not below U_on,
thrusters beside wheels without an unloading gain) by the settings record itself.
"""

from __future__ import annotations

from app.cli.flags import add_numeric
from sim import MODULATIONS

__all__ = ["add_thruster_flags", "THRUSTER_FLAGS"]

#: Flag dest -> setting key of the flags that are not numbers (the numbers are :data:`app.cli.flags.NUMERIC`'s,
#: applied through :func:`app.cli.flags.setting_flags`).
THRUSTER_FLAGS = {key: key for key in ("thrusters", "thruster_directions", "thruster_modulation")}


def add_thruster_flags(parser) -> None:
    """The thrusters' group of flags (docs/PHYSICS.md, "Thrusters"; docs/CLI.md)."""
    thr = parser.add_argument_group("thrusters (issue 45; docs/PHYSICS.md, Thrusters)")
    thr.add_argument("--thrusters", metavar="SET", help="none | cube (12 in couples, 1 m from the centre) | "
                     "positions 'x1,y1,z1;x2,y2,z2;...' in m (quoted in a shell) with --thruster-directions")
    thr.add_argument("--thruster-directions", metavar="'X1,Y1,Z1;...'", help="each thruster's push on the body "
                     "(made unit)")
    add_numeric(thr, "--thruster-force", "--thruster-isp", "--thruster-impulse-bit")
    thr.add_argument("--thruster-modulation", choices=MODULATIONS, help="schmitt (default) or pwpf per axis at "
                     "each control period, or deadband (pulses of one period at the dead band's walls)")
    add_numeric(thr, "--thruster-period", "--thruster-on", "--thruster-off", "--pwpf-km", "--pwpf-tau",
                "--thruster-deadband-deg", "--thruster-unloading")
