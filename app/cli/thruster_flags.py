"""The thrusters' flags of ``run`` and ``sweep`` (issue 45): one flag a setting, named as the setting.

Each value is checked through :func:`sim.validate` (a bad one is one line naming the flag,
exit 2); the combinations (no torque about an axis the controller needs, U_off not below U_on,
thrusters beside wheels without an unloading gain) by the settings record itself.
"""

from __future__ import annotations

from sim import LIMITS, MODULATIONS

__all__ = ["add_thruster_flags", "THRUSTER_FLAGS"]

#: Flag dest -> setting key (the flag is the key with dashes).
THRUSTER_FLAGS = {key: key for key in (
    "thrusters", "thruster_directions", "thruster_force", "thruster_isp", "thruster_impulse_bit",
    "thruster_modulation", "thruster_period", "thruster_on", "thruster_off", "pwpf_km", "pwpf_tau",
    "thruster_deadband_deg", "thruster_unloading")}


def add_thruster_flags(parser) -> None:
    """The thrusters' group of flags (docs/PHYSICS.md, "Thrusters"; docs/CLI.md)."""
    thr = parser.add_argument_group("thrusters (issue 45; docs/PHYSICS.md, Thrusters)")
    thr.add_argument("--thrusters", metavar="SET", help="none | cube (12 in couples, 1 m from the centre) | "
                     "positions 'x1,y1,z1;x2,y2,z2;...' in m (quoted in a shell) with --thruster-directions")
    thr.add_argument("--thruster-directions", metavar="'X1,Y1,Z1;...'", help="each thruster's push on the body "
                     "(made unit)")
    thr.add_argument("--thruster-force", metavar="N", help="thrust (one value, or one per thruster), "
                     f"{LIMITS['thruster_force'].describe()} (default 1)")
    thr.add_argument("--thruster-isp", metavar="S", help="specific impulse, "
                     f"{LIMITS['thruster_isp'].describe()} (default 220, hydrazine)")
    thr.add_argument("--thruster-impulse-bit", metavar="N_S", help="minimum impulse bit: shorter firings are not "
                     f"made, {LIMITS['thruster_impulse_bit'].describe()} (default 0)")
    thr.add_argument("--thruster-modulation", choices=MODULATIONS, help="schmitt (default) or pwpf per axis at "
                     "each control period, or deadband (pulses of one period at the dead band's walls)")
    thr.add_argument("--thruster-period", metavar="S", help="the control period, "
                     f"{LIMITS['thruster_period'].describe()} (default 0.1; a whole number of steps)")
    thr.add_argument("--thruster-on", metavar="U_ON", help="the trigger's on threshold, command normalised to 1 "
                     "(default 0.45; rule of thumb above 0.3)")
    thr.add_argument("--thruster-off", metavar="U_OFF", help="the trigger's off threshold, below U_ON (default "
                     "0.15; rule of thumb below 0.8 U_ON)")
    thr.add_argument("--pwpf-km", metavar="K_M", help="PWPF's filter gain (default 4.5; rule of thumb 2 to 7)")
    thr.add_argument("--pwpf-tau", metavar="S", help="PWPF's filter time constant (default 0.35; rule of thumb "
                     "0.1 to 1 s)")
    thr.add_argument("--thruster-deadband-deg", metavar="DEG", help="the dead band of --thruster-modulation "
                     f"deadband, {LIMITS['thruster_deadband_deg'].describe()} (default 1)")
    thr.add_argument("--thruster-unloading", metavar="K", help="with wheels: the thrusters unload them, "
                     f"T = -K h_w, {LIMITS['thruster_unloading'].describe()}")
