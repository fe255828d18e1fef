"""Runs: scenarios and their files, the Runner that steps bodies and ensembles, recordings and replay."""
