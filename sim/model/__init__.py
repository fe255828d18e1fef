"""A run's model and its stepping: settings, bodies from meshes, the load the integrators call,
events, the Stepper and the single-body Simulation."""
