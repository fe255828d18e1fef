"""Benchmarks: `make bench` (python -m bench) prints one table and writes docs/PERFORMANCE.md."""
