"""The drift lab: every integrator and norm mode through a long torque-free tumble, against the closed form.

One case, the same for every combination: Hoffmann's aircraft (products of
inertia included), at rest attitude, ``w0 = (1, 0.2, -0.5)`` rad/s, no torque,
``dt = 0.01`` s.  For each combination of integrator (each full-quat form)
and norm mode, :func:`run_drift` takes :data:`STEPS` steps and samples
along the way (log-spaced, so the plots show the early steps and the late
drift alike):

* the energy drift ``T/T0 - 1``;
* the drift of ``|h|``, the momentum's magnitude ``|J w|`` (the same in body
  and inertial axes), ``|h|/|h0| - 1``;
* ``|Q| - 1`` of the quaternion the integrator carries;
* the attitude error: the rotation angle between the attitude the run reads
  (``Q/|Q|``) and the closed form of :class:`sim.core.tumble.FreeTumble`
  (Jacobi's elliptic functions);
* the CPU time per step.

:func:`measure_order` runs :data:`ORDER_DURATION` s at the steps of
:data:`ORDER_DTS` and measures the order from the attitude errors at the
end: ``log2(e(dt) / e(dt/2))``.  :func:`flip_periods` measures the
intermediate-axis flip period of the T-handle and the phone (rk4,
``dt = 1 ms``) against ``4 K(m) / lambda`` (:func:`sim.core.tumble.flip_period`).
:func:`run_lab` does it all; ``attitude-sim lab`` writes the report.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from sim.core.algebra import dot_VV, norm2_Q
from sim.core.body import HOFFMANN_INERTIA, Body
from sim.core.energy import body_momentum
from sim.core.integrators import FULL_QUAT_FORMS, INTEGRATORS
from sim.core.norm import NORM_MODES, unit
from sim.core.quaternion import cayley
from sim.io.limits import check_cost as limits_check_cost
from sim.io.limits import least_seconds
from sim.run.scenario import load
from sim.model.settings import Settings
from sim.model.simulation import Simulation, SimulationFault
from sim.core.tumble import FreeTumble, attitude_error, measured_period

__all__ = ["Combination", "Drift", "LabResult", "Flip", "combinations", "run_drift", "measure_order",
           "flip_periods", "run_lab", "STEPS", "DT", "RATES", "INERTIA", "ORDER_DURATION", "ORDER_DTS",
           "SAMPLES", "FLIP_SCENARIOS", "SERIES"]

#: The tumble: Hoffmann's aircraft (Appendix A), its rates of the integrators scenario.
INERTIA = HOFFMANN_INERTIA
RATES = (1.0, 0.2, -0.5)
#: The step of the long runs, s.
DT = 0.01
#: Steps of each long run (``attitude-sim lab --steps``).
STEPS = 1_000_000
#: About this many samples per long run, log-spaced in the step number.
SAMPLES = 300
#: The order runs: this long (s), at these steps (s).
ORDER_DURATION = 10.0
ORDER_DTS = (0.02, 0.01, 0.005)
#: The scenarios whose main body flips about its intermediate axis: (name, label).
FLIP_SCENARIOS = (("intermediate_axis", "T-handle"), ("tennis_racket", "phone"))
#: The sampled series of a :class:`Drift`, in order.
SERIES = ("t", "energy", "momentum", "norm", "error")


@dataclass(frozen=True)
class Combination:
    """An integrator (with its full-quat form) and a norm mode."""

    integrator: str
    norm: str
    form: str = "hoffmann"

    @property
    def method(self) -> str:
        """The integrator's name, with the form for full-quat (``"full-quat kane"``)."""
        return f"{self.integrator} {self.form}" if self.integrator == "full-quat" else self.integrator

    @property
    def label(self) -> str:
        return f"{self.method} / {self.norm}"

    def settings(self, dt: float) -> Settings:
        """The lab's tumble with this integrator, form and norm mode, torque-free."""
        return Settings(inertia=INERTIA, rates=RATES, dt=dt, integrator=self.integrator, full_quat_form=self.form,
                        norm=self.norm, dampers_on=False, controller="none")


def combinations() -> tuple:
    """Every integrator (each full-quat form) with every norm mode, in the order of the report."""
    out = []
    for integrator in INTEGRATORS:
        for form in (FULL_QUAT_FORMS if integrator == "full-quat" else ("hoffmann",)):
            for norm in NORM_MODES:
                out.append(Combination(integrator, norm, form))
    return tuple(out)


@dataclass
class Drift:
    """What one combination did over its long run (series: :data:`SERIES`, sampled)."""

    combination: Combination
    steps: int
    series: dict
    cost_us: float
    fault: str | None = None
    fault_t: float = math.nan
    order_errors: tuple = ()
    order: float = math.nan

    @property
    def t_end(self) -> float:
        return float(self.series["t"][-1])

    def worst(self, name: str) -> float:
        """The largest magnitude of series ``name`` over the run."""
        return float(np.max(np.abs(self.series[name])))

    def final(self, name: str) -> float:
        return float(self.series[name][-1])


@dataclass(frozen=True)
class Flip:
    """The intermediate-axis flip period of one body: closed form and measured (s)."""

    body: str
    scenario: str
    rates: tuple
    m: float
    closed_form: float
    measured: float

    @property
    def relative(self) -> float:
        return self.measured / self.closed_form - 1.0


@dataclass
class LabResult:
    """Everything :func:`run_lab` measured."""

    drifts: list
    flips: list
    steps: int
    dt: float
    wall_s: float
    cpu_s: float
    extra: dict = field(default_factory=dict)


def sample_steps(steps: int, samples: int = SAMPLES) -> np.ndarray:
    """About ``samples`` step numbers from 0 to ``steps``, log-spaced (every one of the first few), ascending."""
    k = np.unique(np.round(np.geomspace(1, steps, samples)).astype(np.int64))
    return np.concatenate(([0], k))


class _Reference:
    """The closed form's Cayley matrices at the sample times, computed once for every combination."""

    def __init__(self, dt: float, ks):
        self.tumble = FreeTumble(Body(INERTIA).J, RATES)
        self._c = {int(k): self.tumble.cayley(k * dt) for k in ks}

    def __getitem__(self, k):
        return self._c[int(k)]


def _measure(sim: Simulation, h0: float, e0: float, c_ref) -> tuple:
    q = sim.q
    lb = body_momentum(sim.w, sim.body.j_rows)
    h = math.sqrt(dot_VV(lb, lb))
    norm = math.sqrt(norm2_Q(q)) - 1.0
    error = attitude_error(cayley(unit(q)), c_ref)
    return (sim.t, sim.energy() / e0 - 1.0, h / h0 - 1.0, norm, error)


def run_drift(combination: Combination, steps: int = STEPS, dt: float = DT, samples: int = SAMPLES,
              progress=None, reference=None) -> Drift:
    """The long run of one combination (see the module docstring); ``progress.update(n)`` after each chunk.

    A :class:`~sim.model.simulation.SimulationFault` (a runaway norm with ``none``)
    ends the run: the series stop at the last good state and ``fault`` says why.
    """
    ks = sample_steps(steps, samples)
    ref = reference if reference is not None else _Reference(dt, ks)
    sim = Simulation(combination.settings(dt))
    e0 = sim.energy()
    lb = body_momentum(sim.w, sim.body.j_rows)
    h0 = math.sqrt(lb[0] ** 2 + lb[1] ** 2 + lb[2] ** 2)
    rows = [_measure(sim, h0, e0, ref[0])]
    cpu = 0.0
    fault, fault_t = None, math.nan
    done = 0
    for k in ks[1:]:
        n = int(k) - done
        t0 = time.process_time()
        try:
            sim.step(n)
        except SimulationFault as exc:
            cpu += time.process_time() - t0
            fault, fault_t = exc.reason, exc.t
            done = sim.steps
            break
        cpu += time.process_time() - t0
        done = int(k)
        rows.append(_measure(sim, h0, e0, ref[k]))
        if progress is not None:
            progress.update(n)
    if progress is not None and done < steps:
        progress.update(steps - done)
    data = np.array(rows)
    series = {name: data[:, i].copy() for i, name in enumerate(SERIES)}
    return Drift(combination, done, series, 1e6 * cpu / max(done, 1), fault, fault_t)


def measure_order(combination: Combination, duration: float = ORDER_DURATION, dts=ORDER_DTS) -> tuple:
    """``(errors, order)``: the attitude error (rad) after ``duration`` s at each step of ``dts``, and
    ``log2`` of the ratio of the last two (nan where a run faulted)."""
    tumble = FreeTumble(Body(INERTIA).J, RATES)
    c_ref = tumble.cayley(duration)
    errors = []
    for dt in dts:
        sim = Simulation(combination.settings(dt))
        try:
            sim.step(round(duration / dt))
            errors.append(attitude_error(cayley(unit(sim.q)), c_ref))
        except SimulationFault:
            errors.append(math.nan)
    e1, e2 = errors[-2], errors[-1]
    order = math.log2(e1 / e2) if e1 > 0.0 and e2 > 0.0 else math.nan
    return tuple(errors), order


def flip_periods(dt: float = 1e-3, periods: float = 2.2) -> list:
    """The T-handle's and the phone's flip period, :data:`FLIP_SCENARIOS` with rk4 at ``dt``, against the closed form.

    The measured period is twice the mean spacing of the zero crossings of
    the rate about the intermediate principal axis (:func:`sim.core.tumble.measured_period`).
    """
    out = []
    for name, label in FLIP_SCENARIOS:
        settings = load(name).settings.replace(integrator="rk4", dt=dt)
        sim = Simulation(settings)
        tumble = FreeTumble(sim.body.J, settings.rates)
        closed = tumble.period()
        b = sim.body.axis_rows[3:6]
        n = round(periods * closed / dt)
        t = np.empty(n + 1)
        x = np.empty(n + 1)
        t[0], x[0] = 0.0, sum(bi * wi for bi, wi in zip(b, settings.rates))
        for k in range(1, n + 1):
            sim.step()
            w = sim.w
            t[k], x[k] = sim.t, dot_VV(b, w)
        out.append(Flip(label, name, tuple(settings.rates), tumble.m, closed, measured_period(t, x)))
    return out


def check_cost(steps: int, combos=None) -> None:
    """Refuse (:class:`sim.io.limits.RunTooLong`) a lab that would take too long, before any of its runs.

    The cost per step of each combination is measured on this machine (the
    least of three timings of 256 steps, :func:`sim.io.limits.least_seconds`)
    and multiplied by ``steps``; the one gate :func:`sim.io.limits.check_cost`
    decides, as for ``run`` and ``sweep``.
    """
    combos = combinations() if combos is None else tuple(combos)
    seconds = 0.0
    for comb in combos:
        sim = Simulation(comb.settings(DT))

        def work(sim=sim):
            try:
                sim.step(256)
            except SimulationFault:
                pass  # a cost is still measured; the run reports the fault

        seconds += least_seconds(work) / 256 * steps
    limits_check_cost(f"the lab's {len(combos)} runs of {steps:,} steps", seconds=seconds,
                      hint="give fewer --steps")


def run_lab(steps: int = STEPS, combos=None, progress=None, samples: int = SAMPLES) -> LabResult:
    """Every combination's long run and order, and the flip periods; ``progress.update(n)`` per chunk of steps."""
    combos = combinations() if combos is None else tuple(combos)
    wall, cpu = time.perf_counter(), time.process_time()
    ks = sample_steps(steps, samples)
    ref = _Reference(DT, ks)
    drifts = []
    for comb in combos:
        drift = run_drift(comb, steps, DT, samples, progress, ref)
        drift.order_errors, drift.order = measure_order(comb)
        drifts.append(drift)
    flips = flip_periods()
    return LabResult(drifts, flips, steps, DT, time.perf_counter() - wall, time.process_time() - cpu)
