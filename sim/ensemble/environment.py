"""What the ensemble's bodies meet and sense besides their own dynamics, once per step: the world of
:mod:`sim.model.world` (orbit, Sun, field, the torquers of :class:`~sim.gnc.magnetic.MagneticControl`, a
pointing mode's command) and the navigation loop of :class:`~sim.model.navigation.Navigation` (sensors, the
estimator, flying on the estimate).

:class:`Surroundings` is a part of :class:`sim.ensemble.Ensemble` (its base besides
:class:`~sim.model.stepping.Stepper`): the same per-step calls as
:class:`~sim.model.simulation.Simulation` makes, on columns.  The navigation
is Simulation's own (:meth:`Navigation.start_step
<sim.model.navigation.Navigation.start_step>` before the step,
:meth:`~sim.model.navigation.Navigation.end_step` after it, the torque law
held at the estimate by :class:`~sim.model.navigation.HeldTorque`); body
``j`` of the ensemble draws its sensors as body ``index[j]`` (its global
index, so any split into chunks flies the same bodies), and flies as
``Simulation(ens.body_settings(j), sensor_body=int(ens.index[j]))`` bit for
bit.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.ops import COLUMN
from sim.gnc.pointing import axis_error
from sim.io.limits import SettingsError
from sim.ensemble.nav_steps import NavSteps
from sim.ensemble.sampling import estimator_refused
from sim.model.controls import SettingChange
from sim.model.navigation import Navigation, navigation_key
from sim.model.one_body import check_no_ensemble
from sim.model.world import World
from sim.world.orbit import R_EARTH_KM, KeplerOrbit
from sim.world.time import Epoch, parse_epoch

__all__ = ["Surroundings", "ESTIMATION_METRICS", "bodies_world"]

_DEG = 180.0 / math.pi
#: The per-body metrics of an ensemble with an estimator (:meth:`Surroundings.estimation_metrics`).
ESTIMATION_METRICS = ("qe1", "qe2", "qe3", "qe4", "est_err_deg", "est_rms_deg", "nees", "nees_mean")


class Surroundings(NavSteps):
    """The world and the navigation of an :class:`~sim.ensemble.Ensemble` (a mixin: it reads the ensemble's
    ``_settings``, ``spec``, ``index``, ``n``, ``q``, ``w``, ``_t``, ``_dt``, ``_k``, ``_torque``, ``_load``)."""

    _nav = None
    _nav_key = None

    # ------------------------------------------------------------ navigation
    def _refused(self, *inputs) -> None:
        """SettingsError in one line, before anything takes effect (:meth:`Ensemble.apply <sim.ensemble.Ensemble>`),
        when the typed ``inputs`` ask for what an ensemble does not fly: CMGs with thrusters
        (:func:`sim.model.one_body.check_no_ensemble`), or an estimator where the spec spreads the orbits or epochs
        (each body's own Sun and field are not sampled for the sensors)."""
        check_no_ensemble(self._settings, *inputs)
        new = {item.key: item.value for item in inputs if isinstance(item, SettingChange)}
        why = estimator_refused(new.get("estimator", self._settings.estimator), self.spec)
        if why:
            raise SettingsError(f"estimator: {why}")

    def _configure_navigation(self) -> None:
        """The sensors and estimator, and what the torque law reads, as :meth:`Simulation._configure_navigation
        <sim.model.simulation.Simulation>`: a change of the sensors or the filter starts them again from now."""
        s = self._settings
        key = navigation_key(s)
        if key != self._nav_key:
            self._nav_key = key
            self._nav = None if s.estimator == "truth" else Navigation(s, self.index, self.q.T, self.w.T)
            self.start_estimate_window()
        self._fly_law()

    @property
    def navigation(self) -> Navigation | None:
        """The bodies' sensors and estimator (:class:`sim.model.navigation.Navigation`, row ``j`` body ``j``),
        or None (estimator truth)."""
        return self._nav

    def start_estimate_window(self) -> None:
        """Start the window of ``est_rms_deg`` and ``nees_mean`` again from now (the sweep starts it half-way
        through its run, after the filter has converged); :meth:`reset` starts it at t = 0."""
        self._nav_sums = np.zeros((2, self.n))  # sum of |error|^2 (rad^2) and of the NEES over the window's steps
        self._nav_steps = 0

    def _navigate_before(self) -> None:
        """Before the step: the sensors due in ``[t, t + dt)`` and the torque at the estimate of ``t``."""
        held = self._law if self._law is not self._torque else None
        self._nav.start_step(self._t, self._dt, self.q.T, self._world_state, held)

    def _navigate_after(self, w0, dt: float) -> None:
        """After the step (``w0``: the rates before it, (3, n)): the gyro propagates the filter, and the window's
        sums take the error and the NEES of the new state."""
        nav = self._nav
        nav.end_step(w0.T, self.w.T, dt)
        err, score = nav.scores(self.attitude.T)
        self._nav_sums[0] += err[:, 0] * err[:, 0] + err[:, 1] * err[:, 1] + err[:, 2] * err[:, 2]  # x, y, z: the
        # kernel's order (sim.ensemble.nav_bodies.score_of)
        self._nav_sums[1] += score
        self._nav_steps += 1

    def estimation_metrics(self) -> dict:
        """Each body's estimate now (``qe1..qe4``), its error ``est_err_deg`` (the angle of the attitude error,
        deg), the RMS of that angle ``est_rms_deg`` and the mean NEES ``nees_mean`` over the window's steps
        (:meth:`start_estimate_window`; nan before a step), and the NEES now ``nees`` (of :data:`DOF
        <sim.model.navigation.DOF>` dimensions: chi-square distributed for a consistent filter); {} without an
        estimator."""
        nav = self._nav
        if nav is None:
            return {}
        err, score = nav.scores(self.attitude.T)
        m = self._nav_steps
        with np.errstate(invalid="ignore", divide="ignore"):
            rms = np.sqrt(self._nav_sums[0] / m) * _DEG if m else np.full(self.n, np.nan)
            mean = self._nav_sums[1] / m if m else np.full(self.n, np.nan)
        out = dict(zip(ESTIMATION_METRICS[:4], nav.q.T.copy()))
        out.update(est_err_deg=np.sqrt(np.einsum("ij,ij->i", err, err)) * _DEG, est_rms_deg=rms, nees=score,
                   nees_mean=mean)
        return out

    # ------------------------------------------------------------ the world
    def _update_world(self) -> None:
        """The world at the present time, as :meth:`Simulation._update_world <sim.model.simulation.Simulation>`:
        the orbit's state for the gravity gradient, a moving pointing mode's command and rate feed-forward."""
        ws = self._world_state = self._world.state(self._t)
        self._load.set_world(ws)
        if ws.b_eci is not None:  # the field, the torquers' command and the body's dipole, per body
            bdot = self._magnetic.bdot  # its state before this step's sample: sim.ensemble.orbit_loop samples again
            self._bdot_before = None if bdot is None else (self._k, list(bdot.state), list(bdot.u))
            self._b_body, self._dipole_cmd, self._load.dipole = self._magnetic(
                self._t, tuple(self.attitude), ws.b_eci, tuple(self._x[8:]))
        if ws.qc is not None:
            # one command for all (floats: a shared command), or one per body (4, n); its sign kept from
            # step to step as Simulation's (CommandInterpolator.follow)
            self._cmd.follow(ws.qc if self._orbits is None else tuple(np.broadcast_arrays(*ws.qc, self.index)[:4]))
            self._torque.rate_ref = ws.wc
            self._sync_command()

    @property
    def world(self):
        """The world at the present step (:class:`~sim.model.world.WorldState`; its values floats when the
        bodies share one orbit, else rows), or None without an orbit."""
        return self._world_state

    @property
    def b_body(self) -> np.ndarray | None:
        """The field in body axes at the present step (3, n), T, as :attr:`Simulation.b_body
        <sim.model.simulation.Simulation.b_body>`; None without a field."""
        return None if self._b_body is None else np.array(np.broadcast_arrays(*self._b_body, self.index)[:3])

    @property
    def dipole(self) -> np.ndarray | None:
        """The torquers' commanded dipole at the present step (3, n), A m^2, body axes, as :attr:`Simulation.dipole
        <sim.model.simulation.Simulation.dipole>`; None without a field."""
        if self._dipole_cmd is None:
            return None
        return np.array(np.broadcast_arrays(*self._dipole_cmd, self.index)[:3], dtype=float)

    def disturbance_torques(self) -> dict | None:
        """The environment's torques one by one at the present state (N m, body axes, each (3, n); zeros for what
        is off): ``gg``, ``srp``, ``drag``, ``mag``, as :class:`~sim.model.simulation.Snapshot`'s ``t_gg`` ..
        ``t_mag`` (:meth:`sim.model.loads.LoadModel.parts`); None without a field, SRP or drag."""
        if not self._settings.torques_on or self._world_state is None:
            return None
        parts = self._load.parts(tuple(self.q), self._t)
        return {k: np.array(np.broadcast_arrays(*p, self.index)[:3], dtype=float)
                for k, p in zip(("gg", "srp", "drag", "mag"), parts)}

    def pointing_error_deg(self) -> np.ndarray | None:
        """Each body's pointing-axis error (deg), as :meth:`Simulation.pointing_error
        <sim.model.simulation.Simulation.pointing_error>` (None without an orbit)."""
        ws = self._world_state
        if ws is None:
            return None
        error = axis_error(tuple(self.attitude), self._settings.pointing_axis, ws.reference, tuple(self._qc), COLUMN)
        return np.degrees(np.broadcast_to(error, self.index.shape))


def bodies_world(settings, orbits) -> World:
    """The bodies' world: the settings' own on floats (shared), or with ``orbits`` (a
    :class:`~sim.ensemble.sampling.OrbitSample`) one per body on rows, built from each body's numbers
    exactly as :class:`~sim.model.world.World` builds them from ``Simulation(body_settings(j))``'s."""
    if orbits is None:
        return World(settings)
    el = orbits.elements
    rad = [[math.radians(float(x)) for x in el[k]] for k in range(2, 6)]  # math.radians, as World does
    orbit = KeplerOrbit(R_EARTH_KM + el[0], el[1].copy(), *(np.array(r) for r in rad), j2=settings.j2, ops=COLUMN)
    epochs = [parse_epoch(text) for text in orbits.epochs]
    epoch = Epoch(settings.epoch, np.array([e.jd_day for e in epochs]), np.array([e.jd_frac for e in epochs]),
                  epochs[0].year)
    return World(settings, COLUMN, orbit=orbit, epoch=epoch)
