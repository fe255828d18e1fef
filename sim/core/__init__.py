"""The pure formulas of the rigid body: quaternion algebra, angles, SLERP, integrators, norm modes,
the torque model, the multiplier, energy, reaction wheels, mass properties and the closed forms.

numpy and the standard library only: no files, limits, settings or recording (docs/ARCHITECTURE.md).
Every function runs on floats (one body) and on numpy columns (ensembles) through :mod:`sim.core.ops`.
"""
