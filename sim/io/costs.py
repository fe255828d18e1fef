"""The cost figures of a run and a sweep, in one place: what a body-step costs, what a body holds, how long a
cluster may be without a worker.

Read by :mod:`sim.sweep` (its measured estimate, the deadline of a Dask sweep)
and by :mod:`app.cli.sweep` (its quick bounds before anything runs, the local
cluster's own deadline).  The figures were measured on the machines named in
docs/PERFORMANCE.md; a measured estimate (:meth:`sim.sweep.Sweep.seconds`)
replaces the rough ones where it matters.
"""

from __future__ import annotations

__all__ = ["BODY_STEP_SECONDS", "ROUGH_SETUP_SECONDS", "ROUGH_BODY_STEP_SECONDS", "BYTES_PER_BODY",
           "WORKER_BYTES", "LOST_SECONDS", "CLUSTER_LOST_SECONDS", "POLL_SECONDS",
           "AEM_BYTES_PER_STATE", "AEM_SECONDS_PER_STATE", "BYTES_PER_BODY_FACET"]

#: Seconds of one core per body-step of a large ensemble (a column step at about 5,000 bodies a chunk):
#: what "core-hours" a sweep too large to run is said to need.
BODY_STEP_SECONDS = 75e-9
#: A rough upper bound of a sweep's time, before it is measured: seconds per body set up, and per body-step.
ROUGH_SETUP_SECONDS = 5e-4
ROUGH_BODY_STEP_SECONDS = 2e-6
#: Bytes an ensemble holds per body while it flies: state, initial samples, metrics and numpy's
#: temporaries (measured: 1.0-1.1 kB per body with dispersed inertia and the controller on).
BYTES_PER_BODY = 1536
#: Bytes an ensemble holds per body and facet of the mesh when the surface torques (SRP, drag) are on:
#: the per-facet rows of every body (measured: 439 kB a body on a 5,120-facet sphere, 400 to 1,600 bodies,
#: --srp --drag, docs/PERFORMANCE.md).
BYTES_PER_BODY_FACET = 88
#: Bytes of one Dask worker process with numpy and the simulation loaded (measured: 90-130 MB).
WORKER_BYTES = 160 << 20
#: Seconds a cluster may go without any worker before the sweep ends (a local worker killed is
#: back within about 2 s: its nanny restarts it and Dask runs the chunk again).
LOST_SECONDS = 10.0
#: A local cluster's own deadline for tasks without a worker (Dask's ``no-workers-timeout``): a backstop
#: three times the sweep's, so the sweep's own check (:data:`LOST_SECONDS`) is what the user sees.
CLUSTER_LOST_SECONDS = 3 * LOST_SECONDS
#: Seconds between the checks of a running Dask sweep (results, workers, the deadline).
POLL_SECONDS = 1.0
#: Bytes the AEM import holds per attitude state at its peak (ccsds-ndm-py's parse, the track and the
#: rows; measured: 4.8-5.0 kB a state for 20,000 and 100,000 states, QUATERNION and QUATERNION/ANGVEL alike,
#: docs/PERFORMANCE.md).
AEM_BYTES_PER_STATE = 5_000
#: Seconds of the AEM import per state (measured: 94-119 us a state at 100,000 states).
AEM_SECONDS_PER_STATE = 120e-6
