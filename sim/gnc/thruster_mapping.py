"""The thruster mapping: a commanded torque to non-negative on-times, and which torques a thruster set can make.

A thruster only pushes, so its on-time is never negative and never longer than the control
period ``P``.  With ``B`` the 3 x n matrix of the thrusters' torques at full thrust
(:func:`sim.core.thrusters.torque_matrix`), the duties ``x = t / P`` solve the bounded
least-squares problem::

    minimise |B x - T_cmd|^2 (+ w^2 |D x - F_cmd|^2)   subject to  0 <= x_i <= 1

solved by scipy's ``lsq_linear`` (the bounded-variable least squares of Stark and Parker, 1995),
not by a home-made solver: the exact torque when it can be made, the nearest one that can
otherwise.  The optional second term (``D`` the thrusters' forces) asks for a net force too
(zero for a pure torque), weighted by ``w``.

scipy is imported here and nowhere else in :mod:`sim` (the ``sim-alone`` contract in
pyproject.toml allows this one module): a mapping is a small optimisation solved once a
control period in Python, not inside a compiled step.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import lsq_linear, nnls

__all__ = ["on_times", "torque_authority", "axis_groups"]


def on_times(b, torque, period: float, forces=None, force=None, weight: float = 1.0) -> np.ndarray:
    """On-times (s), each in [0, period], that make ``torque`` on average over ``period``.

    Parameters
    ----------
    b : array_like, shape (3, n)
        The thrusters' torques at full thrust (N m).
    torque : array_like, shape (3,)
        The torque commanded (N m).
    period : float
        The control period (s).
    forces, force : array_like, shape (3, n) and (3,), optional
        The thrusters' forces at full thrust and the net force wanted (N), weighted by ``weight``.
    """
    b = np.asarray(b, dtype=float)
    rhs = np.asarray(torque, dtype=float)
    if forces is not None:
        wanted = np.zeros(3) if force is None else np.asarray(force, dtype=float)
        b = np.vstack([b, weight * np.asarray(forces, dtype=float)])
        rhs = np.concatenate([rhs, weight * wanted])
    duty = lsq_linear(b, rhs, bounds=(0.0, 1.0), method="bvls").x
    return np.clip(duty, 0.0, 1.0) * period


def torque_authority(b, tol: float = 1e-9) -> list[str]:
    """The body axes (``"+x"``, ``"-y"``, ...) about which the thrusters cannot make torque.

    For each signed axis ``e``, scipy's ``nnls`` finds the non-negative combination of the
    columns of ``b`` nearest to ``e``; a residual above ``tol`` (relative) means no firing
    makes torque about that axis.  An empty list: every axis, both ways.
    """
    b = np.asarray(b, dtype=float)
    scale = max(float(np.abs(b).max()), 1e-300)
    missing = []
    for k, axis in enumerate("xyz"):
        for sign in (1.0, -1.0):
            e = np.zeros(3)
            e[k] = sign * scale
            _, residual = nnls(b, e)
            if residual > tol * scale:
                missing.append(("+" if sign > 0 else "-") + axis)
    return missing


def axis_groups(b, forces=None) -> tuple[np.ndarray, np.ndarray]:
    """Per signed axis (+x, -x, +y, -y, +z, -z) the thrusters that make torque about it alone, and how much.

    For each signed axis ``e`` scipy's ``nnls`` finds duties ``x >= 0`` with ``B x = e`` and, when
    the thrusters' ``forces`` (3, n) allow it, no net force ``D x = 0`` (a pure couple, Wie ch. 6;
    else the torque alone).  Scaled so the busiest thruster fires fully, ``x / max(x)`` makes the
    axis's authority ``a = 1 / max(x)`` (N m).  Returns ``groups`` (6, n), each row's largest duty 1
    (zeros for an axis no firing reaches), and ``authority`` (6,) (inf where unreachable: a command
    about it normalises to 0).
    """
    b = np.asarray(b, dtype=float)
    groups = np.zeros((6, b.shape[1]))
    authority = np.full(6, np.inf)
    scale = max(float(np.abs(b).max()), 1e-300)
    stacked = None if forces is None else np.vstack([b, np.asarray(forces, dtype=float) * scale])
    for k in range(3):
        for j, sign in enumerate((1.0, -1.0)):
            e = np.zeros(3)
            e[k] = sign
            x = None
            if stacked is not None:
                x = nnls(stacked, np.concatenate([e, np.zeros(3)]))[0]
            if x is None or np.linalg.norm(b @ x - e) > 1e-9:
                x = nnls(b, e)[0]
            if x.max() > 0.0:
                x = np.where(x < 1e-9 * x.max(), 0.0, x)  # rounding's crumbs fire no thruster
            if np.linalg.norm(b @ x - e) <= 1e-9 and x.max() > 0.0:
                g = x / x.max()
                groups[2 * k + j] = np.where(np.abs(g - 1.0) < 1e-12, 1.0, g)  # a couple's partners both at 1
                authority[2 * k + j] = 1.0 / x.max()
    return groups, authority
