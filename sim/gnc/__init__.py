"""Guidance, navigation and control beyond the torque model: pointing modes, magnetic control laws,
sensors and attitude determination.

Pure physics over :mod:`sim.core` and :mod:`sim.world`.
"""
