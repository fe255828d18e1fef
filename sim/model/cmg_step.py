"""A body flown by a cluster of control moment gyros (issue 45): the step of a
:class:`~sim.model.simulation.Simulation` whose settings have ``cmg = "pyramid"``.

Each step of ``dt``:

1. the torque law (:class:`~sim.core.control.TorqueModel`: command, dampers, controller, limiter)
   gives the wanted body torque ``u`` at the step's start, and the environment its torque
   ``T_ext`` (gravity gradient, disturbance, the user's function, ...); both are held over the
   step (a flight computer's zero-order hold);
2. :func:`sim.core.cmg.cmg_advance` (compiled) asks the steering law for the gimbal rates that
   make ``u`` (``dh/dt = -u - w x h``, Wie ch. 7), limits them, holds them over the step, and
   integrates ``J dw/dt = T_ext - A ddelta/dt - w x (J w + h)``, ``dQ/dt = 1/2 V(Q)^T [w; 0]`` and
   ``ddelta/dt`` by RK4;
3. the norm handling of the settings acts on ``Q``, the command's SLERP and the world move on, as
   in any step of the Simulation.

Where nothing but the torque law acts between steps (:meth:`CmgStep.packed`: the settings
:func:`sim.core.advance.covers` but for the cluster, no world, no SLERP in progress, no user's torque),
:func:`cmg_run` takes many of those steps in one compiled call: the torque law as
:func:`sim.core.advance.step_torque` (the compiled twin of the Python torque law, bit for bit), the step
:func:`sim.core.cmg.cmg_rk4_step`, the norm as :func:`sim.core.advance.normed`, the same checks, any thrusters
fired by :func:`cmg_fire` (unloading the cluster); the same numbers as the step in Python, step for step.  It is
loaded as the other kernels are: a call of :data:`WARM_AFTER` steps or more waits for it, shorter ones count
their steps in Python until the ``WARM_AFTER``-th starts its loading in a thread (the one rule,
:meth:`sim.core.jit.Kernel.wanted`).

:class:`CmgStep` holds the cluster's state (the gimbal angles ``delta``) beside the Simulation's
``(t, Q, w)``; it is the Simulation's own stepping, kept in a module of its own (it reads and writes
the Simulation's state as its step does).  :func:`cmg_readout` gives what the rows report at a state:
the rates the steering law asks there, ``m = det(A A^T)``, the cluster's momentum and the torque it
makes, ``-A ddelta/dt - w x h`` (Wie ch. 7), beside the torque asked.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import advance as plain
from sim.core import cmg
from sim.core import thrusters as th
from sim.core.advance import normed, step_torque
from sim.core.jit import jitable, kernel
from sim.model.cmg_settings import CMG_LAWS
from sim.model.thruster_drive import NO_THRUSTERS, WARM_STEPS, drive_back, drive_kept, drive_step, due

__all__ = ["CmgStep", "cmg_readout", "cmg_columns", "cmg_run", "cmg_fire", "fire_kernel", "WARM_AFTER", "CHUNK"]

#: A call of this many steps or more waits for :func:`cmg_run` to load (:data:`sim.core.advance.WARM_AFTER`).
WARM_AFTER = plain.WARM_AFTER
#: Steps of one :func:`cmg_run` call: Ctrl-C is seen between calls (milliseconds apart).
CHUNK = 100_000


def cmg_columns(n: int) -> tuple:
    """The CSV columns of a cluster of ``n`` CMGs: the gimbal angles ``cmg_delta1..n`` (deg) and rates
    ``cmg_rate1..n`` (rad/s, what the steering law asks at the state), ``cmg_m`` (``det(A A^T) / h0^6``),
    the torque asked ``cmg_tc_x..z`` (the torque law's) and made ``cmg_t_x..z`` (the cluster's on the body), N m."""
    return (tuple(f"cmg_delta{i}" for i in range(1, n + 1)) + tuple(f"cmg_rate{i}" for i in range(1, n + 1))
            + ("cmg_m", "cmg_tc_x", "cmg_tc_y", "cmg_tc_z", "cmg_t_x", "cmg_t_y", "cmg_t_z"))


@kernel
def cmg_readout(h0, g, s0, delta, w, torque_cmd, law, lam0, mu, k, rate_max, t, eps0, omega, out):
    """At gimbal angles ``delta`` and rates ``w``: ``out[:n]`` the rates :func:`sim.core.cmg.steer` asks for the
    torque ``torque_cmd``, ``out[n]`` the measure ``m = det(A A^T)`` (Wie ch. 7), ``out[n+1:n+4]`` the
    cluster's momentum ``h`` and ``out[n+4:n+7]`` the torque it makes on the body, ``-A ddelta/dt - w x h``."""
    n = delta.shape[0]
    rates = cmg.steer(law, h0, g, s0, delta, w, torque_cmd, lam0, mu, k, rate_max, t, eps0, omega)
    a = cmg.jacobian(h0, g, s0, delta)
    h = cmg.cluster_momentum(h0, g, s0, delta)
    for i in range(n):
        out[i] = rates[i]
    out[n] = cmg.singularity_measure(a)
    for c in range(3):
        out[n + 1 + c] = h[c]
    made = np.empty(3)
    made[0] = -(w[1] * h[2] - w[2] * h[1])
    made[1] = -(w[2] * h[0] - w[0] * h[2])
    made[2] = -(w[0] * h[1] - w[1] * h[0])
    for c in range(3):
        for i in range(n):
            made[c] -= a[c, i] * rates[i]
        out[n + 4 + c] = made[c]


@jitable
def cmg_fire(thr, q, qc, w, h0, g, s0, delta):
    """The thrusters at the start of a CMG step (:func:`sim.model.thruster_drive.drive_step`, ``thr`` a drive's
    arrays, :attr:`~sim.model.thruster_drive.ThrusterDrive.arrays`): at a control period's start
    (:func:`~sim.model.thruster_drive.due`) they fire on the unloading command ``-k h`` of the cluster's momentum
    ``h = h0 sum s_i`` at the gimbal angles ``delta`` (:func:`sim.core.thrusters.unloading_torque`, ``k`` the drive's ``thruster_unloading``: Wie ch. 7,
    momentum unloading; the cluster holds the attitude against their torque and so gives its momentum up); their
    torque ``thr[0][11:14]`` is held over the step as an external torque."""
    x, c = thr[0], thr[1]
    command = (0.0, 0.0, 0.0)
    if due(x, c):
        u = th.unloading_torque(cmg.cluster_momentum(h0, g, s0, delta), c[9])
        command = (u[0], u[1], u[2])
    drive_step(x, c, q, qc, w, command, thr[2], thr[3], thr[4], thr[5], thr[6])


@kernel
def fire_kernel(x, c, groups, pos, dirs, force, impulse_bit, q, qc, w, h0, g, s0, delta):
    """:func:`cmg_fire` compiled, for the Python step (:meth:`CmgStep._step_python`)."""
    cmg_fire((x, c, groups, pos, dirs, force, impulse_bit), q, qc, w, h0, g, s0, delta)


def _fire_sample() -> tuple:
    """Arguments of :func:`fire_kernel` of the types it is compiled for (no thrusters, a pyramid at rest)."""
    q, z = (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0)
    g, s0 = cmg.pyramid()
    return (NO_THRUSTERS[0].copy(), NO_THRUSTERS[1].copy(), *NO_THRUSTERS[2:], q, q, z, 1.0, g, s0, np.zeros(4))


fire_kernel.warms(_fire_sample, WARM_STEPS)


@kernel
def cmg_run(state, delta, par, flags, j, j_inv, h0, g, s0, law, lam0, mu, k, rate_max, eps0, omega, t0, steps0, n,
            rates_out, thr):
    """Up to ``n`` steps of :class:`CmgStep` from ``state = (q1..q4, wx, wy, wz, correction)`` and the gimbal angles
    ``delta``, in place, where nothing but the torque law acts between steps: each step the torque law
    :func:`sim.core.advance.step_torque` of ``par`` and ``flags`` (:func:`sim.core.advance.pack`) at the step's start,
    held, one :func:`sim.core.cmg.cmg_rk4_step` at ``t = t0 + (steps0 + i) dt`` (the Simulation's clock), the norm
    mode :func:`sim.core.advance.normed`; with thrusters (``thr`` a drive's arrays, or
    :data:`~sim.model.thruster_drive.NO_THRUSTERS`) :func:`cmg_fire` at each step's start, their torque held over the
    step.  Stops before a step whose state is not finite (that step, the drive put back as it was before it, is the
    Python side's to take again, and to fault); returns the number of good steps."""
    dt = par[34]
    mode = flags[1]
    q = np.empty(4)
    w = np.empty(3)
    d = np.empty(delta.shape[0])
    command = np.empty(3)
    outside = np.zeros(3)
    fires = thr[5].shape[0] > 0
    saved = thr[0].copy()
    qc = (par[6], par[7], par[8], par[9])
    done = 0
    for i in range(n):
        qt = (state[0], state[1], state[2], state[3])
        wt = (state[4], state[5], state[6])
        kept = False
        if fires:
            kept = drive_kept(thr[0], thr[1], saved)
            cmg_fire(thr, qt, qc, wt, h0, g, s0, delta)
            for c in range(3):
                outside[c] = thr[0][11 + c]
        u = step_torque(qt, wt, par, flags)
        for c in range(4):
            q[c] = qt[c]
        for c in range(3):
            w[c] = wt[c]
            command[c] = u[c]
        for c in range(delta.shape[0]):
            d[c] = delta[c]
        finite = cmg.cmg_rk4_step(q, w, d, j, j_inv, h0, g, s0, command, outside, law, lam0, mu, k, rate_max,
                                  t0 + (steps0 + i) * dt, eps0, omega, dt, rates_out)
        qn, correction = normed((q[0], q[1], q[2], q[3]), mode)
        if not finite or not math.isfinite(qn[0] + qn[1] + qn[2] + qn[3] + correction):
            if fires:
                drive_back(thr[0], saved, kept)
            break
        state[0], state[1], state[2], state[3] = qn
        state[4], state[5], state[6] = w[0], w[1], w[2]
        state[7] = correction
        for c in range(delta.shape[0]):
            delta[c] = d[c]
        done += 1
    return done


class CmgStep:
    """The cluster of a Simulation: its gimbal angles and what its compiled step reads.

    Parameters
    ----------
    settings : Settings
        With a cluster (``settings.cmg_set``): its rotor momentum, axes, initial angles and steering law.
        The SR weight ``lam = cmg_lambda0 h0^2 exp(-cmg_mu m / h0^6)`` and the null motion's gain
        ``cmg_null_gain / h0^6`` are scaled by ``h0`` here, so the settings are the same for any rotor.
    j_rows, j_inv_rows : 9-tuples
        The craft's inertia (rotors as points, Wie ch. 7) and its inverse, row major.
    delta : ndarray or None
        The gimbal angles to carry on from (a change of settings mid-run); None: the initial ones.
    """

    __slots__ = ("h0", "g", "s0", "delta0", "delta", "law", "lam0", "mu", "k", "rate_max", "eps0", "omega",
                 "j", "j_inv", "rates", "_out", "_pack_key")

    def __init__(self, settings, j_rows, j_inv_rows, delta=None):
        c = settings.cmg_set
        self.h0, self.g, self.s0 = float(c.h0), np.ascontiguousarray(c.g), np.ascontiguousarray(c.s0)
        self.delta0 = np.array(c.delta0, dtype=float)
        self.delta = self.delta0.copy() if delta is None or len(delta) != len(c.delta0) else delta
        self.law = CMG_LAWS[settings.cmg_law]
        h6 = self.h0 ** 6
        self.lam0, self.mu = settings.cmg_lambda0 * self.h0 ** 2, settings.cmg_mu / h6
        self.k, self.rate_max = settings.cmg_null_gain / h6, settings.cmg_rate_limit
        self.eps0, self.omega = settings.cmg_dither, settings.cmg_dither_rate
        self.j = np.array(j_rows, dtype=float).reshape(3, 3)
        self.j_inv = np.array(j_inv_rows, dtype=float).reshape(3, 3)
        self.rates = np.zeros(len(self.delta))
        self._out = np.empty(len(self.delta) + 7)
        self._pack_key = None

    def reset(self) -> None:
        """The gimbals back at their initial angles."""
        self.delta = self.delta0.copy()

    def _sample(self) -> tuple:
        """Arguments of :func:`cmg_run` of the types it is called with (no step taken)."""
        par, flags = np.zeros(35), np.zeros(9, dtype=np.int64)
        return (np.zeros(8), self.delta, par, flags, self.j, self.j_inv, self.h0, self.g, self.s0, self.law, self.lam0,
                self.mu, self.k, self.rate_max, self.eps0, self.omega, 0.0, 0, 0, self.rates, NO_THRUSTERS)

    def _warm(self, n: int) -> bool:
        """True when :func:`cmg_run` is to take these ``n`` steps: the warm-up rule of every kernel
        (:meth:`sim.core.jit.Kernel.wanted`: loaded, or loaded now for a call of :data:`WARM_AFTER` steps or more;
        a shorter call counts its steps in Python, the load starting in a thread at the ``WARM_AFTER``-th; with the
        JIT off it runs as Python, the same numbers)."""
        if cmg_run.sample is None:
            cmg_run.warms(self._sample, WARM_AFTER)
        return cmg_run.wanted(n)

    def packed(self, sim, n: int):
        """``(par, flags)`` of :func:`sim.core.advance.pack` when :func:`cmg_run` takes ``n`` steps of ``sim``: its
        settings are :func:`sim.core.advance.covers`'s but for the cluster and its thrusters (so no world and no
        environment's torque), there is no SLERP in progress and no user's torque, and the kernel is warm
        (:meth:`_warm`); None otherwise."""
        s, torque = sim._settings, sim._torque
        if (sim._cmd.path is not None or sim._world is not None or sim._load.user is not None
                or sim._thr is None and (sim._step_torque is not torque or sim._load.active)):
            return None  # (with thrusters the load is active for their torque alone: covers() below rules the rest)
        key = self._pack_key
        if not (key is not None and key[0] is s and key[1] is sim._controls and key[2] is torque.qc
                and key[3] == sim._dt and key[4] is torque):
            packed = None
            if torque.rate_ref is None and plain.covers(s.replace_validated(cmg="none", thrusters="none",
                                                                            thruster_unloading=0.0)):
                packed = plain.pack(torque, sim._rigid.j_rows, sim._rigid.j_inv_rows, sim._dt, "rk4", s.norm)
            self._pack_key = key = (s, sim._controls, torque.qc, sim._dt, torque, packed)
        return key[5] if key[5] is not None and self._warm(n) else None

    def step(self, sim, n: int) -> bool:
        """``n`` steps of the Simulation ``sim`` (see the module docstring): :func:`cmg_run`'s where :meth:`packed`
        says so, else one compiled step a call; False at a state that is no longer finite, the state left at the
        last good step (the Simulation raises its fault)."""
        thr = NO_THRUSTERS if sim._thr is None else sim._thr.arrays
        while n > 0:
            packed = self.packed(sim, n)
            if packed is not None:
                q, w = sim._q, sim._w
                state = np.array((q[0], q[1], q[2], q[3], w[0], w[1], w[2], sim._correction))
                while n > 0:
                    chunk = min(n, CHUNK)
                    done = cmg_run(state, self.delta, packed[0], packed[1], self.j, self.j_inv, self.h0, self.g,
                                   self.s0, self.law, self.lam0, self.mu, self.k, self.rate_max, self.eps0, self.omega,
                                   sim._t0, sim._k - sim._k0, chunk, self.rates, thr)
                    if done:
                        sim._took(state, done)  # the body's state back, as the plain kernel's (Simulation._took)
                    n -= done
                    if done < chunk:
                        break  # the step that was not finite, again below: the Python side's fault
                if sim._thr is not None:
                    sim._load.thrust = sim._thr.torque  # held over the last step (the rows' torque)
                if n == 0:
                    return True
            # one compiled step a call: a SLERP under way only until it ends, then cmg_run again (as Simulation.step)
            taken = self._step_python(sim, n, sim._cmd.path is not None)
            if taken < 0:
                return False
            n -= taken
        return True

    def _step_python(self, sim, n: int, sliding: bool = False) -> int:
        """Up to ``n`` steps, one :func:`sim.core.cmg.cmg_advance` call each (the torque law and the world in Python),
        any thrusters fired first (:func:`fire_kernel`), with ``sliding`` only until the SLERP under way ends; the
        steps taken, or -1 at a state that is no longer finite."""
        dt, torque, load, norm, cmd, thr = sim._dt, sim._torque, sim._load, sim._norm, sim._cmd, sim._thr
        outside = load.active
        zero = np.zeros(3)
        for i in range(n):
            q0, w0, t = sim._q, sim._w, sim._t
            if thr is not None:
                fire_kernel(*thr.arrays, q0, torque.qc, w0, self.h0, self.g, self.s0, self.delta)
                load.thrust = thr.torque
            q, w, delta = np.array(q0), np.array(w0), self.delta.copy()
            command = np.array(torque(q0, w0))
            external = load.external(q0, w0, t) if outside else None
            bad = cmg.cmg_advance(q, w, delta, self.j, self.j_inv, self.h0, self.g, self.s0, command,
                                  zero if external is None else np.array(external), self.law, self.lam0, self.mu,
                                  self.k, self.rate_max, t, self.eps0, self.omega, dt, 1, self.rates)
            qn, correction = norm((float(q[0]), float(q[1]), float(q[2]), float(q[3])))
            if bad >= 0 or not math.isfinite(qn[0] + qn[1] + qn[2] + qn[3] + correction):
                return -1
            sim._q, sim._w, sim._correction = qn, (float(w[0]), float(w[1]), float(w[2])), correction
            self.delta = delta
            sim._k += 1
            sim._t = sim._t0 + (sim._k - sim._k0) * dt
            if cmd.path is not None:
                cmd.update(sim._t)
                sim._sync_command()
            if sim._world is not None:
                sim._update_world()
            if sliding and cmd.path is None:
                return i + 1
        return n

    def readout(self, w, command, t) -> tuple:
        """``(rates, m / h0^6, h, made)`` at the present gimbal angles and body rates ``w`` for the torque asked
        ``command`` (:func:`cmg_readout`): tuples of floats."""
        out, n = self._out, len(self.delta)
        cmg_readout(self.h0, self.g, self.s0, self.delta, np.array(w[:3], dtype=float),
                    np.array(command, dtype=float), self.law, self.lam0, self.mu, self.k, self.rate_max, t,
                    self.eps0, self.omega, out)
        values = out.tolist()
        return tuple(values[:n]), values[n] / self.h0 ** 6, tuple(values[n + 1:n + 4]), tuple(values[n + 4:])

    def derived(self, q, w, law, load, t) -> tuple:
        """``(h, torque, command, values)`` at the state ``(q, w, t)``: the cluster's momentum in body axes, the
        torque on the body (the cluster's plus the external, ``load.external``), the torque law's ``law(q, w)``
        and the :func:`cmg_columns` values."""
        command = law(q, w)
        rates, m, h, made = self.readout(w, command, t)
        external = load.external(q, w, t) if load.active else None
        torque = made if external is None else (made[0] + external[0], made[1] + external[1], made[2] + external[2])
        values = (*(math.degrees(d) for d in self.delta.tolist()), *rates, m, *command, *made)
        return h, torque, tuple(command), values
