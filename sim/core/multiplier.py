"""The Lagrange multiplier of the quaternion norm constraint (Sherif et al.).

Sherif's Euler parameters ``p`` and matrix ``L`` (with ``w = 2 L dp/dt``,
Sherif (17)) map to Hoffmann's ``Q`` and the first three rows of ``V(Q)``
(Hoffmann (3.25)); the identities Sherif's derivation uses, ``L L^T = I``,
``L^T L = I4 - p p^T`` and ``L p = 0`` (Sherif (10)-(12)), hold for ``V``
too (Hoffmann (3.27), (3.33)).  Form III of the equations of motion,
Sherif (29)::

    4 L^T J L p'' + 8 L'^T J L p' + p lambda = 2 L^T n      (+ c p)

has the non-zero multiplier Sherif (30), ``lambda = -8 p^T L'^T J L p'``,
which for exact motion equals ``4T = 2 w^T J w``.  The constraint force is
``p lambda``.  Adding ``c p`` to the generalized force shifts ``lambda`` by
``c`` and leaves the motion unchanged (Sherif section 4).
"""

from __future__ import annotations

import numpy as np

from sim.core.algebra import dot_VV, matvec_MV, norm2_Q, vmul3_QQ
from sim.core.jit import jitable
from sim.core.quaternion import v_matrix

__all__ = ["multiplier", "augmented_system", "solve_augmented"]


@jitable
def multiplier(q, p, jr, shift: float = 0.0) -> float:
    """Lagrange multiplier of Form III, Sherif (30), from ``(Q, P = dQ/dt)``.

    Premultiplying Sherif (29) by ``p^T`` (``L p = 0``) gives
    ``|p|^2 lambda = -8 (L' p)^T J (L p') + c |p|^2``; with ``L' = V(P)``
    rows 1-3 this is evaluated exactly for any ``|Q|``.

    Parameters
    ----------
    q, p : sequence of 4 floats
        Quaternion (scalar last) and its time derivative, from the
        integrator's own state.
    jr : sequence of 9 floats
        Inertia tensor, row major (:attr:`sim.core.body.Body.j_rows`).
    shift : float
        ``c`` in a generalized force ``2 L^T n + c p``.
    """
    # a = V(Q) P (rows 1-3); V(P) Q = -V(Q) P identically (polarised (3.33)).
    a = vmul3_QQ(q, p)
    b = vmul3_QQ(p, q)
    return -8.0 * dot_VV(b, matvec_MV(jr, a)) / norm2_Q(q) + shift


def augmented_system(q, p, J, torque, shift: float = 0.0):
    """Augmented matrix and right-hand side of Form III, Sherif (39).

    ``[[4 L^T J L, p], [p^T, 0]] [p''; lambda] = [-8 L'^T J L p' + 2 L^T n + c p; -p'^T p']``

    Returns
    -------
    A : ndarray, shape (5, 5)
    b : ndarray, shape (5,)
    """
    q = np.asarray(q, dtype=float)
    p = np.asarray(p, dtype=float)
    J = np.asarray(J, dtype=float)
    L = v_matrix(q)[:3]
    Ldot = v_matrix(p)[:3]
    A = np.zeros((5, 5))
    A[:4, :4] = 4.0 * L.T @ J @ L
    A[:4, 4] = q
    A[4, :4] = q
    b = np.empty(5)
    b[:4] = -8.0 * Ldot.T @ J @ L @ p + 2.0 * L.T @ np.asarray(torque, dtype=float) + shift * q
    b[4] = -float(p @ p)
    return A, b


def solve_augmented(q, p, J, torque, shift: float = 0.0):
    """Solve Sherif (39) for ``(p'', lambda)`` with a dense linear solve.

    The reference that :func:`multiplier` and the ``lagrange`` Full-Quat form
    are checked against.
    """
    A, b = augmented_system(q, p, J, torque, shift)
    x = np.linalg.solve(A, b)
    return x[:4], float(x[4])
