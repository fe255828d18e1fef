"""Kinetic energy and angular momentum of the rigid body.

Inertia products carry Hoffmann's signs (see :mod:`sim.core.body`); ``jr`` is the
tensor row major (:attr:`sim.core.body.Body.j_rows`).  Arithmetic only: every
function runs on floats (one body) and on numpy rows (the ensemble, with
``jr`` holding one float for all bodies or one row each) and gives
bit-identical results on both.
"""

from __future__ import annotations

__all__ = ["body_momentum", "kinetic_energy", "energy_of", "inertial_momentum"]


def body_momentum(w, jr) -> tuple:
    """Angular momentum in body axes ``L = J w``, Hoffmann (4.2) (``w``: its first three entries)."""
    wx, wy, wz = w[0], w[1], w[2]
    return (jr[0] * wx + jr[1] * wy + jr[2] * wz,
            jr[3] * wx + jr[4] * wy + jr[5] * wz,
            jr[6] * wx + jr[7] * wy + jr[8] * wz)


def energy_of(w, lb):
    """Kinetic energy ``T = 1/2 w^T L`` from the rates and the body momentum ``L = J w``, Hoffmann (5.1)."""
    return 0.5 * (w[0] * lb[0] + w[1] * lb[1] + w[2] * lb[2])


def kinetic_energy(w, jr):
    """Kinetic energy ``T = 1/2 w^T J w``, Hoffmann (5.1)."""
    return energy_of(w, body_momentum(w, jr))


def inertial_momentum(c, lb) -> tuple:
    """Angular momentum in inertial axes ``H = C^T L``, with ``C`` the Cayley matrix, Hoffmann (2.12).

    ``c`` are its nine entries row major (:func:`sim.core.angles.cayley_entries`);
    for a unit ``Q``, ``H`` is constant without external torque.
    """
    c11, c12, c13, c21, c22, c23, c31, c32, c33 = c
    lx, ly, lz = lb
    return (c11 * lx + c21 * ly + c31 * lz,
            c12 * lx + c22 * ly + c32 * lz,
            c13 * lx + c23 * ly + c33 * lz)
