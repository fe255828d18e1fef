"""The machinery of input and output: whole-file writing and safe reading (:mod:`sim.io.files`),
the one table of limits and SettingsError (:mod:`sim.io.limits`)."""
