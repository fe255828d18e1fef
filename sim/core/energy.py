"""Kinetic energy and angular momentum of the rigid body.

Inertia products carry Hoffmann's signs (see :mod:`sim.core.body`); ``jr`` is the
tensor row major (:attr:`sim.core.body.Body.j_rows`).  Arithmetic only: every
function runs on floats (one body) and on numpy rows (the ensemble, with
``jr`` holding one float for all bodies or one row each) and gives
bit-identical results on both.
"""

from __future__ import annotations

from sim.core.algebra import dot_VV, matvec_MtV, matvec_MV
from sim.core.jit import jitable

__all__ = ["body_momentum", "kinetic_energy", "energy_of", "inertial_momentum"]


@jitable
def body_momentum(w, jr) -> tuple:
    """Angular momentum in body axes ``L = J w``, Hoffmann (4.2) (``w``: its first three entries)."""
    return matvec_MV(jr, w)


@jitable
def energy_of(w, lb):
    """Kinetic energy ``T = 1/2 w^T L`` from the rates and the body momentum ``L = J w``, Hoffmann (5.1)."""
    return 0.5 * dot_VV(w, lb)


@jitable
def kinetic_energy(w, jr):
    """Kinetic energy ``T = 1/2 w^T J w``, Hoffmann (5.1)."""
    return energy_of(w, body_momentum(w, jr))


@jitable
def inertial_momentum(c, lb) -> tuple:
    """Angular momentum in inertial axes ``H = C^T L``, with ``C`` the Cayley matrix, Hoffmann (2.12).

    ``c`` are its nine entries row major (:func:`sim.core.angles.cayley_entries`);
    for a unit ``Q``, ``H`` is constant without external torque.
    """
    return matvec_MtV(c, lb)
