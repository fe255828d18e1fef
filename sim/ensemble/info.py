"""What an ensemble is, as an immutable record another thread may read.

An :class:`~sim.ensemble.Ensemble` belongs to the thread that steps it: a
change of the shared settings, a new nominal body or a reset rewrites its
fields.  :class:`EnsembleInfo` is a snapshot of what does not change while
the bodies fly (the spec, their global indices, their initial samples and
the settings in force), made by the owning thread with
:meth:`EnsembleInfo.of`.  Its arrays are copies marked read-only, so the
window's thread can keep one as long as it likes (:class:`sim.runner.EnsembleFrame`
carries one) and rebuild any body's single-body settings from it
(:meth:`EnsembleInfo.body_settings`, what "Load worst" flies).

Only the public face of :class:`~sim.ensemble.Ensemble` is read here
(``spec``, ``settings``, :meth:`~sim.ensemble.Ensemble.initial`), and the
engine is not imported, so the engine builds its own ``body_settings`` from
this record: the formula is written once.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from sim.settings import Settings

from sim.ensemble.spec import EnsembleSpec

__all__ = ["EnsembleInfo", "frozen_copy"]


def frozen_copy(array) -> np.ndarray:
    """A copy of ``array`` that cannot be written (``setflags(write=False)``): safe to hand to another thread."""
    out = np.array(array, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class EnsembleInfo:
    """An ensemble's spec, bodies and initial samples, as they were when the record was made.

    Attributes
    ----------
    spec : sim.ensemble.EnsembleSpec
        How the bodies differ (frozen).
    settings : Settings
        The settings the bodies share, in force when the record was made
        (frozen).
    index : ndarray of int64, shape (n,)
        The bodies' global indices.
    q0 : ndarray, shape (4, n)
        Initial attitude quaternions, scalar last (inertial -> body).
    angles_deg0 : ndarray, shape (3, n)
        Initial aircraft angles (psi, theta, phi), degrees.
    rates0 : ndarray, shape (3, n)
        Initial body rates, rad/s.
    inertia : ndarray, shape (6, n)
        Each body's inertia (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz), Hoffmann's signs.
    gains : ndarray, shape (3, n)
        Each body's controller gains.

    Every array is a read-only copy.
    """

    spec: EnsembleSpec
    settings: Settings
    index: np.ndarray
    q0: np.ndarray
    angles_deg0: np.ndarray
    rates0: np.ndarray
    inertia: np.ndarray
    gains: np.ndarray

    @classmethod
    def of(cls, ensemble) -> EnsembleInfo:
        """The record of ``ensemble`` (a :class:`~sim.ensemble.Ensemble`) now; call it in the thread that owns it."""
        initial = ensemble.initial()
        return cls(spec=ensemble.spec, settings=ensemble.settings,
                   **{key: frozen_copy(initial[key])
                      for key in ("index", "q0", "angles_deg0", "rates0", "inertia", "gains")})

    @property
    def n(self) -> int:
        """Number of bodies."""
        return len(self.index)

    def body_settings(self, j: int) -> Settings:
        """Local body ``j``'s initial state as single-body :class:`Settings`.

        The shared settings with body ``j``'s initial angles, rates and
        inertia, and its gains when the spec has a gains grid (else the
        shared gains).  ``Simulation(info.body_settings(j))`` given the same
        inputs flies exactly column ``j`` of the ensemble.

        Raises
        ------
        IndexError
            When ``j`` is not in ``0 .. n-1``.
        """
        j = operator.index(j)
        if not 0 <= j < self.n:
            raise IndexError(f"body {j} of an ensemble of {self.n}")
        changes = {"angles_deg": tuple(float(a) for a in self.angles_deg0[:, j]),
                   "rates": tuple(float(a) for a in self.rates0[:, j]),
                   "inertia": tuple(float(a) for a in self.inertia[:, j])}
        if self.spec.gains_grid is not None:
            changes["gains"] = tuple(float(a) for a in self.gains[:, j])
        return self.settings.replace(**changes)
