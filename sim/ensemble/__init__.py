"""Ensembles: N rigid bodies integrated at once, one column per body.

The vectorised twin of :class:`sim.model.simulation.Simulation`.  Quaternions are
scalar last, Hoffmann's convention (see :mod:`sim`); body ``j`` is column
``j`` of ``q`` (4, N) and ``w`` (3, N).  Every body runs the same formulas
as the single-body path, written once over :mod:`sim.core.ops`
(:mod:`sim.core.integrators`, :mod:`sim.core.control`, :mod:`sim.core.norm`,
:mod:`sim.core.angles`, :mod:`sim.core.interpolation`, :mod:`sim.core.energy`), so
``Simulation(ens.body_settings(j))`` given the same inputs follows column
``j`` bit for bit.  One exception, at the level of an ulp: the Euler
controller and its command angles go through numpy's ``arctan2``,
``hypot`` and ``sin``, which may round differently from ``math``'s in the
last place (:mod:`sim.core.ops`).

Initial conditions (:class:`EnsembleSpec`) depend only on ``(seed, body
index)``: any split of the bodies into chunks (``start``/``count``) gives the
same bodies and, stepped alike, bit-identical results.

What differs between bodies: the initial attitude, the initial rates, the
inertia and the controller gains.  Everything else (torque, dampers,
controller, limiter, integrator, norm handling, dt, commands) is shared and
set with :meth:`Ensemble.set` as on a :class:`Simulation`.

Modules: :mod:`~sim.ensemble.spec` (the spec and its validation),
:mod:`~sim.ensemble.sampling` (the counter-based draws),
:mod:`~sim.ensemble.engine` (state, set/step, faults),
:mod:`~sim.ensemble.environment` (the world, the torquers and the navigation loop per step),
:mod:`~sim.ensemble.kernels` (the fused half-quat step and torque),
:mod:`~sim.ensemble.compiled` (the body loop compiled, on every core),
:mod:`~sim.ensemble.orbit_loop` (the same on an orbit: each body's world and spacecraft step compiled),
:mod:`~sim.ensemble.metrics` (per-body results, the NEES band),
:mod:`~sim.ensemble.info` (an immutable record of an ensemble for another thread).
"""

from sim.ensemble.engine import Ensemble
from sim.ensemble.sampling import uniform_quaternions
from sim.ensemble.spec import ATTITUDES, EnsembleSpec

__all__ = ["Ensemble", "EnsembleSpec", "ATTITUDES", "uniform_quaternions"]
