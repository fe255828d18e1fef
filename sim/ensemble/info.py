"""What an ensemble is and where its bodies are, as immutable records another thread (or process) may read.

An :class:`~sim.ensemble.Ensemble` belongs to the thread that steps it: a
change of the shared settings, a new nominal body or a reset rewrites its
fields.  :class:`EnsembleInfo` is a snapshot of what does not change while
the bodies fly (the spec, their global indices, their initial samples and
the settings in force), made by the owning thread with
:meth:`EnsembleInfo.of`.  Its arrays are copies marked read-only, so the
window's thread can keep one as long as it likes and rebuild any body's
single-body settings from it (:meth:`EnsembleInfo.body_settings`, what
"Load worst" flies).  :class:`EnsembleFrame` is the state at one instant
(attitudes, command, faults) with the info record it belongs to, made by
:meth:`sim.ensemble.Ensemble.frame`; both pickle, so an ensemble stepped in
another process (:mod:`app.engine`) publishes the very same records.

Only the public face of :class:`~sim.ensemble.Ensemble` is read here
(``spec``, ``settings``, :meth:`~sim.ensemble.Ensemble.initial`), and the
engine is not imported, so the engine builds its own ``body_settings`` from
this record: the formula is written once.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass

import numpy as np

from sim.model.settings import Settings

from sim.ensemble.metrics import nose, rotation_angle_deg
from sim.ensemble.sampling import epoch_plus
from sim.ensemble.spec import EnsembleSpec

__all__ = ["EnsembleInfo", "EnsembleFrame", "frozen_copy"]


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
    orbit : ndarray, shape (6, n), or None
        Each body's orbit elements (``Settings.orbit``) when the spec spreads orbits or epochs, else None.
    epoch_us : ndarray of int64, shape (n,), or None
        Each body's epoch minus the settings', microseconds (with ``orbit``).

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
    orbit: np.ndarray | None = None
    epoch_us: np.ndarray | None = None

    @classmethod
    def of(cls, ensemble) -> EnsembleInfo:
        """The record of ``ensemble`` (a :class:`~sim.ensemble.Ensemble`) now; call it in the thread that owns it."""
        initial = ensemble.initial()
        return cls(spec=ensemble.spec, settings=ensemble.settings,
                   **{key: frozen_copy(initial[key])
                      for key in ("index", "q0", "angles_deg0", "rates0", "inertia", "gains", "orbit", "epoch_us")
                      if key in initial})

    def __setstate__(self, state: dict) -> None:
        """Unpickled (the window's ensemble process sends its records, :mod:`app.engine`): the arrays read-only
        again, as :meth:`of` made them (a pickle does not keep numpy's ``writeable`` flag)."""
        for key, value in state.items():
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
            object.__setattr__(self, key, value)

    @property
    def n(self) -> int:
        """Number of bodies."""
        return len(self.index)

    def body_settings(self, j: int) -> Settings:
        """Local body ``j``'s initial state as single-body :class:`Settings`.

        The shared settings with body ``j``'s initial angles, rates and
        inertia, its gains when the spec has a gains grid (else the
        shared gains), and its orbit and epoch when the spec spreads them.  ``Simulation(info.body_settings(j))`` given the same
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
        if self.orbit is not None:
            changes["orbit"] = tuple(float(a) for a in self.orbit[:, j])
            changes["epoch"] = epoch_plus(self.settings.epoch, int(self.epoch_us[j]))
        return self.settings.replace(**changes)


@dataclass(frozen=True, eq=False)
class EnsembleFrame:
    """The ensemble's state after a batch: read-only copies, safe to read in another thread.

    Nothing in it is shared with the ensemble the simulation thread steps,
    so a frame keeps answering as it did when it was published, whatever
    the ensemble does afterwards (a reset, new settings, another ensemble).

    The runner publishes one with every batch (:meth:`sim.ensemble.Ensemble.frame`) (about a hundred a second in
    the window) and the window draws the latest at most once per display
    frame, so a frame holds only the state (``q``, the command ``qc``, the
    faults): what is drawn from it (:attr:`nose`, :attr:`error_deg`,
    :attr:`travelled_deg`) is computed the first time it is read, in the
    reader's thread, with the ensemble's own formulas
    (:mod:`sim.ensemble.metrics`: the same values as
    :meth:`~sim.ensemble.Ensemble.metrics` gives), and kept.

    Attributes
    ----------
    t : float
        The ensemble's simulated time, s (the main body's).
    q : ndarray, shape (4, n)
        Attitude quaternions, scalar last (inertial -> body).
    qc : ndarray, shape (4, 1) or (4, n)
        The command quaternion after SLERP: one column when every body has
        the same command, else one per body.
    faulted : ndarray of bool, shape (n,)
        Bodies that diverged (frozen at their last good state).
    info : EnsembleInfo
        What the ensemble is: its spec, the bodies' global indices, initial
        samples and settings (:meth:`EnsembleInfo.body_settings` gives body
        ``j``'s own single-body settings).

    Every array, those computed on demand included, is read-only.
    """

    t: float
    q: np.ndarray
    qc: np.ndarray
    faulted: np.ndarray
    info: EnsembleInfo

    @property
    def n(self) -> int:
        """Number of bodies."""
        return self.q.shape[1]

    @functools.cached_property
    def nose(self) -> np.ndarray:
        """Each body's x axis in inertial (NED) axes, shape (3, n) (:func:`sim.ensemble.metrics.nose`)."""
        return _read_only(nose(self.q))

    @functools.cached_property
    def error_deg(self) -> np.ndarray:
        """Rotation angle between each body's attitude and its command, degrees in [0, 180], shape (n,)."""
        return _read_only(rotation_angle_deg(self.q, self.qc, fold=True))

    @functools.cached_property
    def travelled_deg(self) -> np.ndarray:
        """Rotation angle from each body's start to its attitude now, unfolded, shape (n,).

        Degrees in [0, 360]; > 180: it takes the long way (the
        ``travelled_deg`` of :meth:`~sim.ensemble.Ensemble.metrics`).
        """
        return _read_only(rotation_angle_deg(self.info.q0, self.q, fold=False))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array
