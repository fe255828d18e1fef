"""The Estimation tab's plots (issue 33): what the spacecraft knows against the truth.

Drawn by a :class:`~app.plots.live.PlotPanel` from the history of a run with an
estimator (:data:`sim.model.navigation.ESTIMATE_COLUMNS` and the history's
:data:`sim.model.navigation.AVAILABILITY_COLUMNS`): the estimation error per body
axis inside its ±3σ band from the filter's covariance, the gyro bias estimate
(solid) against the true bias (dashed), the NEES, and a timeline of the
sensors (a line high while the sensor's last sample was available, low while it
was blinded or dark; none for a sensor not on board).
"""

from __future__ import annotations

from app.plots.live import CurveSpec, PlotSpec
from app.plots.style import AMBER, BLUE, GREEN, RED, SILVER, VIOLET

__all__ = ["ESTIMATION_PLOTS", "ESTIMATE_GHOST", "ESTIMATE_COLOR", "ESTIMATE_MAGNIFY", "ESTIMATE_MOST"]

#: The estimate in the 3D view, drawn as its body axes: its name there and its colour (RGBA 0..1, green).
ESTIMATE_GHOST = "(estimate)"
ESTIMATE_COLOR = (0.35, 1.0, 0.45, 0.35)
#: The estimate's axes are turned from the truth by its error times this (an error of 0.05 deg shows as 2.5 deg),
#: and by at most ESTIMATE_MOST degrees (the first seconds' errors of degrees stay readable).
ESTIMATE_MAGNIFY, ESTIMATE_MOST = 50.0, 60.0


#: The sensors' timeline's y axis: each sensor named between its low (not available) and high level
#: (:data:`sim.model.navigation.AVAILABILITY_COLUMNS`: sensor k of ``SENSOR_NAMES`` at 3 - k, 3 - k + 0.6 while
#: available), in short: gyro, star tracker, sun sensors, magnetometer.
TIMELINE_TICKS = tuple((3 - k + 0.3, name) for k, name in enumerate(("gyro", "star trk", "sun", "magnet")))


#: The ±3σ band's lines: solid and dim (a dashed pen over a curve drawn as a min/max envelope per pixel column
#: broke into a white speckle).
BAND = "#8a8f9c"


def _axis(a: str, color: str) -> PlotSpec:
    return PlotSpec(f"err_{a}", f"Error {a}", f"{a} error (deg)", (
        CurveSpec(f"err_{a}_deg", f"δθ{a}", color),
        CurveSpec(f"sig3_{a}_deg", "+3σ", BAND),
        CurveSpec(f"nsig3_{a}_deg", "−3σ", BAND),
    ), floor=1e-6)


ESTIMATION_PLOTS = (
    _axis("x", RED),
    _axis("y", GREEN),
    _axis("z", BLUE),
    PlotSpec("bias", "Gyro bias", "bias (rad/s)", (
        CurveSpec("bias_est_x", "βx est", RED),
        CurveSpec("bias_est_y", "βy est", GREEN),
        CurveSpec("bias_est_z", "βz est", BLUE),
        CurveSpec("bias_x", "βx true", RED, dashed=True),
        CurveSpec("bias_y", "βy true", GREEN, dashed=True),
        CurveSpec("bias_z", "βz true", BLUE, dashed=True),
    ), floor=1e-9),
    PlotSpec("nees", "NEES", "NEES", (
        CurveSpec("nees", "NEES", AMBER),
    )),
    PlotSpec("sensors", "Sensors", "available", (
        CurveSpec("timeline_gyro", "gyro", SILVER),
        CurveSpec("timeline_star_tracker", "star tracker", VIOLET),
        CurveSpec("timeline_sun_sensors", "sun sensors", AMBER),
        CurveSpec("timeline_magnetometer", "magnetometer", BLUE),
    ), ticks=TIMELINE_TICKS),
)
"""The Estimation tab's plots, top to bottom."""
