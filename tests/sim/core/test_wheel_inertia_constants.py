"""Wheel formulas with the inertia written in as constants (sim.core.wheels.WheelSet.formulas(ops, inertia)).

The documented contract of :func:`sim.core.wheels.source`: with ``inertia = (jr, jfi)`` the gyrostat's rhs has
those numbers baked in and does not read its ``jr``/``jfi`` arguments.  Reference: the gyrostat equations solved
with numpy, ``(J - sum J_s a a^T) dw/dt = T - w x H - sum a_i u_i``, ``dW_i/dt = u_i / J_s,i - a_i . dw/dt``.
"""

import numpy as np
import pytest

from sim.core.ops import COLUMN, FLOAT
from sim.core.wheels import free_inertia, grouped, wheel_set
from sim.model.settings import Settings


def _reference_rhs(w, load, j, wheels):
    """dw/dt and dW/dt of the gyrostat, by numpy (H = J w + sum J_s a_i W_i, W the wheel speed relative to the body)."""
    w3, speeds = np.array(w[:3]), np.array(w[3:])
    t, u = np.array(load[:3]), np.array(load[3:])
    a = np.array(wheels.axes)
    js = np.array(wheels.inertia)
    h = j @ w3 + (js * speeds) @ a
    wdot = np.linalg.solve(free_inertia(j, wheels), t - np.cross(w3, h) - u @ a)
    return np.concatenate([wdot, u / js - a @ wdot])


def _craft(j_diag, offdiag=0.0):
    j = np.diag(j_diag).astype(float)
    j[0, 1] = j[1, 0] = offdiag
    return j


@pytest.mark.parametrize("ops", [FLOAT, COLUMN], ids=["float", "column"])
def test_two_inertias_baked_in_give_each_its_own_rhs(ops):
    wheels = wheel_set(Settings(wheels="pyramid", wheel_inertia=(0.01, 0.02, 0.03, 0.04)))
    w = (0.1, -0.2, 0.3, 50.0, -20.0, 10.0, 5.0)
    load = (0.01, -0.02, 0.005, 0.001, -0.002, 0.003, 0.0005)
    for j in (_craft((10.0, 12.0, 15.0), 0.5), _craft((3.0, 4.0, 5.0))):  # the second must not reuse the first's
        jr = tuple(j.ravel().tolist())
        jfi = tuple(np.linalg.inv(free_inertia(j, wheels)).ravel().tolist())
        f = wheels.formulas(ops, inertia=(jr, jfi))
        got = np.array(f.rhs(w, load, None, None), dtype=float)  # the arguments are not read
        np.testing.assert_allclose(got, _reference_rhs(w, load, j, wheels), rtol=1e-12, atol=1e-15)


def test_grouped_shares_one_product_among_equal_and_opposite_constants_each_member_signed_plus_or_minus_one():
    """:func:`grouped`'s documented form: terms whose constants are equal or opposite share one product
    ``c0 (x1 + x2 - x3)``, the sign of each member +1 or -1 against the group's first constant, the groups in
    the order of their first terms.  Here the pyramid's tilt, written by hand, and a lone constant."""
    c = float(np.cos(np.radians(54.7356)))
    terms = [(c, "w0"), (0.25, "w1"), (-c, "w2"), (c, "w3"), (-0.25, "w4")]
    assert grouped(terms) == [(c, (("w0", 1), ("w2", -1), ("w3", 1))), (0.25, (("w1", 1), ("w4", -1)))]
    assert grouped([(-c, "a")]) == [(-c, (("a", 1),))]
    assert grouped([]) == []
