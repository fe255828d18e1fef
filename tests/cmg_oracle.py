"""The CMG tests' one setup and their references typed from the books, not from sim/ (issue 45).

``wie_pyramid_momentum`` is the four-CMG pyramid's momentum as Wie prints it (*Space Vehicle Dynamics and
Control*, 2nd ed., ch. 7); ``hoffmann_inertia`` the inertia tensor with Hoffmann's minus signs on the
products; ``CRAFT`` the one craft the core and the wired tests fly (an asymmetric body with products of
inertia, a pyramid with h0 = 2.5 N m s at gimbal angles away from every singular set).
"""

import math

import numpy as np

#: The craft of the CMG tests: ``inertia`` as a Settings gives it (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz; Hoffmann's signs),
#: the rotor momentum ``h0`` (N m s), the start's gimbal angles ``angles`` (deg), body rates ``rates`` (rad/s).
CRAFT = dict(inertia=(40.0, 55.0, 35.0, 1.2, -0.5, 0.8), h0=2.5, angles=(10.0, -20.0, 30.0, 5.0),
             rates=(0.01, -0.02, 0.015))


def hoffmann_inertia(j6) -> np.ndarray:
    """``J = [[Jxx, -Jxy, -Jxz], [-Jxy, Jyy, -Jyz], [-Jxz, -Jyz, Jzz]]`` from ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)``."""
    jxx, jyy, jzz, jxy, jxz, jyz = j6
    return np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])


def wie_pyramid_momentum(h0, beta, d):
    """Wie, ch. 7: the four-CMG pyramid's momentum (body axes) at gimbal angles ``d`` (rad), skew ``beta`` (rad)."""
    c, s = math.cos(beta), math.sin(beta)
    sd, cd = np.sin(d), np.cos(d)
    return h0 * np.array([-c * sd[0] - cd[1] + c * sd[2] + cd[3],
                          cd[0] - c * sd[1] - cd[2] + c * sd[3],
                          s * (sd[0] + sd[1] + sd[2] + sd[3])])
