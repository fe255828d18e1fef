"""The rigid body: its inertia tensor, energy and angular momentum.

Inertia products carry Hoffmann's signs (FillJ33 in Appendix A)::

    J = [[ Jxx, -Jxy, -Jxz],
         [-Jxy,  Jyy, -Jyz],
         [-Jxz, -Jyz,  Jzz]]      (kg m^2, body axes)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from sim.core.energy import body_momentum, kinetic_energy
from sim.core.integrators import euler_rhs
from sim.core.ops import FLOAT

__all__ = ["Body", "HOFFMANN_INERTIA", "inertia_tensor", "MIN_MOMENT", "MAX_MOMENT"]

#: Hoffmann's aircraft (Appendix A): Jxx, Jyy, Jzz, Jxy, Jxz, Jyz.
HOFFMANN_INERTIA = (0.6, 1.0, 1.5, 0.0, 0.2, 0.0)
#: Smallest principal moment accepted, kg m^2: a 1 g bead at 3 mm from the
#: axis; below it the rates from any accepted torque (up to 1e6 N m) run away
#: in one step.  The settings layer's range (:data:`sim.io.limits.LIMITS`, "inertia") is the same
#: (tests/sim/core/test_core_room.py); core imports no limits.
MIN_MOMENT = 1e-8
#: Largest principal moment (and product) accepted, kg m^2: about a thousand
#: times a supertanker's roll inertia; beyond it ``1/2 w^T J w`` and ``J w``
#: overflow for accepted rates long before anything physical happens.
MAX_MOMENT = 1e12


def inertia_tensor(jxx, jyy, jzz, jxy=0.0, jxz=0.0, jyz=0.0) -> np.ndarray:
    """Inertia tensor with Hoffmann's sign convention on the products (Appendix A, FillJ33).

    Raises
    ------
    ValueError
        If a component is not finite or beyond :data:`MAX_MOMENT`, the tensor
        is not positive definite, a principal moment lies outside
        [:data:`MIN_MOMENT`, :data:`MAX_MOMENT`], or the principal moments
        break the triangle inequality
        ``I1 <= I2 + I3`` (no real mass distribution has such a tensor).
    """
    comps = dict(Jxx=jxx, Jyy=jyy, Jzz=jzz, Jxy=jxy, Jxz=jxz, Jyz=jyz)
    for name, value in comps.items():
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"inertia {name}={value!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"inertia {name}={value} is not finite")
        if abs(value) > MAX_MOMENT:
            raise ValueError(f"inertia {name}={value:g} kg m^2 is beyond the physical range "
                             f"(|J| <= {MAX_MOMENT:g} kg m^2)")
        comps[name] = value
    j = np.array(
        [
            [comps["Jxx"], -comps["Jxy"], -comps["Jxz"]],
            [-comps["Jxy"], comps["Jyy"], -comps["Jyz"]],
            [-comps["Jxz"], -comps["Jyz"], comps["Jzz"]],
        ]
    )
    principal = np.linalg.eigvalsh(j)
    if principal[0] <= 0.0:
        raise ValueError(
            "inertia tensor is not positive definite "
            f"(principal moments {', '.join(f'{m:.6g}' for m in principal)})"
        )
    i1, i2, i3 = principal
    if i1 < MIN_MOMENT or i3 > MAX_MOMENT:
        raise ValueError(
            f"inertia tensor is outside the physical range: principal moments "
            f"{i1:.6g}, {i2:.6g}, {i3:.6g} kg m^2 must lie in [{MIN_MOMENT:g}, {MAX_MOMENT:g}] "
            "(a smaller body spins up without bound in one step; a larger one overflows "
            "its energy and momentum)")
    if i3 > (i1 + i2) * (1.0 + 1e-12):
        raise ValueError(
            "inertia tensor is not physical: the principal moments "
            f"{i1:.6g}, {i2:.6g}, {i3:.6g} break the triangle inequality "
            f"({i3:.6g} > {i1:.6g} + {i2:.6g})"
        )
    return j


@dataclass(frozen=True)
class Body:
    """A rigid body with a constant inertia tensor in body axes.

    Parameters
    ----------
    components : tuple of 6 floats
        ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)`` in Hoffmann's sign convention.
        The default is Hoffmann's aircraft, ``(0.6, 1, 1.5, 0, 0.2, 0)``.
    """

    components: tuple = HOFFMANN_INERTIA
    J: np.ndarray = field(init=False, repr=False, compare=False)
    J_inv: np.ndarray = field(init=False, repr=False, compare=False)
    #: Row-major floats of J and J^-1 for the pure-Python hot path.
    j_rows: tuple = field(init=False, repr=False, compare=False)
    j_inv_rows: tuple = field(init=False, repr=False, compare=False)
    #: The principal moments, ascending (3 floats), and the principal axes in body
    #: coordinates, axis ``i`` at ``axis_rows[3i:3i+3]`` (what :func:`sim.core.integrators.splitting` turns about).
    moment_rows: tuple = field(init=False, repr=False, compare=False)
    axis_rows: tuple = field(init=False, repr=False, compare=False)
    #: The integrators run on one body's floats (:mod:`sim.core.ops`).
    ops: ClassVar = FLOAT

    def __post_init__(self):
        comps = tuple(self.components)
        if len(comps) != 6:
            raise ValueError(
                f"inertia needs 6 values Jxx,Jyy,Jzz,Jxy,Jxz,Jyz, got {len(comps)}"
            )
        j = inertia_tensor(*comps)
        j_inv = np.linalg.inv(j)
        object.__setattr__(self, "components", tuple(float(c) for c in comps))
        object.__setattr__(self, "J", j)
        object.__setattr__(self, "J_inv", j_inv)
        object.__setattr__(self, "j_rows", tuple(float(x) for x in j.ravel()))
        object.__setattr__(self, "j_inv_rows", tuple(float(x) for x in j_inv.ravel()))
        moments, axes = np.linalg.eigh(j)
        object.__setattr__(self, "moment_rows", tuple(float(x) for x in moments))
        object.__setattr__(self, "axis_rows", tuple(float(x) for x in axes.T.ravel()))

    @property
    def principal_moments(self) -> np.ndarray:
        """Principal moments of inertia, ascending."""
        return np.linalg.eigvalsh(self.J)

    @property
    def principal_axes(self) -> np.ndarray:
        """Principal axes as columns (body coordinates), matching :attr:`principal_moments`."""
        return np.linalg.eigh(self.J)[1]

    def energy(self, w) -> float:
        """Rotational kinetic energy ``T = 1/2 w^T J w``, Hoffmann (5.1) (:func:`sim.core.energy.kinetic_energy`)."""
        return float(kinetic_energy(_floats(w, 3), self.j_rows))

    def angular_momentum(self, w) -> np.ndarray:
        """Angular momentum in body axes ``L = J w``, Hoffmann (4.2) (:func:`sim.core.energy.body_momentum`)."""
        return np.array(body_momentum(_floats(w, 3), self.j_rows))

    def euler_rhs(self, w, torque) -> np.ndarray:
        """Angular acceleration ``dw/dt = J^-1 (T - w x J w)``, Hoffmann (4.3), Appendix A.

        :func:`sim.core.integrators.euler_rhs` on arrays.
        """
        return np.array(euler_rhs(_floats(w, 3), _floats(torque, 3), self.j_rows, self.j_inv_rows))


def _floats(v, n: int) -> tuple:
    """An array-like of ``n`` numbers as a tuple of floats."""
    a = np.asarray(v, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"expected {n} numbers, got shape {a.shape}")
    return tuple(float(x) for x in a)
