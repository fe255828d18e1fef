"""The spacecraft's world: time, frames, the orbit, the Sun and eclipses, the magnetic field, the
atmosphere and the torques of the environment (gravity gradient, surfaces).

Pure physics over :mod:`sim.core`: numpy, the standard library and the data packages named in each module.
"""
