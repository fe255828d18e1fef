"""Thrusters: their torque and force, the fuel they burn, the minimum impulse bit, and the modulators.

Conventions (docs/PHYSICS.md, "Thrusters")
-------------------------------------------
* Thruster ``i`` sits at ``r_i`` (body axes, m) and pushes the body along the unit direction
  ``d_i`` with the force ``F_i`` (N) while it fires; ``level_i`` in [0, 1] is the share of a step
  it fires (1 on, 0 off, between: a pulse shorter than the step, averaged over it).
* The force on the body is ``F = sum_i level_i F_i d_i`` and the torque about the centre of mass
  ``c`` is ``T = sum_i (r_i - c) x level_i F_i d_i`` (Wie, *Space Vehicle Dynamics and Control*,
  ch. 6; Sidi, *Spacecraft Dynamics and Control*, ch. 7).
* The fuel burnt by on-times ``t_i`` is ``m = sum_i F_i t_i / (Isp_i g0)``, ``g0 = 9.80665 m/s^2``:
  the definition of the specific impulse, impulse per weight of propellant at standard gravity
  (Sutton and Biblarz, *Rocket Propulsion Elements*, ch. 2).
* A thruster cannot fire for less than its minimum impulse bit ``I_min`` (N s): an on-time below
  ``I_min / F_i`` is not fired at all (:func:`minimum_on_times`).

Modulators turn a continuous command into on/off firings:

* the Schmitt trigger (a relay with a dead band and hysteresis): off until ``|u| >= U_on``, then
  on (``+-U_m``) until ``|u| <= U_off``, ``U_off < U_on``, hysteresis ``h = U_on - U_off``
  (Wie, ch. 6; Sidi, ch. 7);
* PWPF, pulse-width pulse-frequency: a first-order lag ``K_m / (tau_m s + 1)`` on the error
  between the command and the trigger's output, into the Schmitt trigger (Wie, ch. 6; Krovel,
  "Optimal tuning of PWPF modulator for attitude control", 2005).  With a constant command ``r``
  the on-time, off-time and duty cycle are (:func:`pwpf_static`)::

      T_on  = -tau_m ln(1 - h / (U_on - K_m (r - U_m)))
      T_off = -tau_m ln(1 - h / (K_m r - U_on + h))
      duty  = T_on / (T_on + T_off)

  it fires at all only above the dead zone ``r > U_on / K_m``.  Rules of thumb (Krovel 2005,
  after Song and Agrawal): ``2 <= K_m <= 7``, ``0.1 <= tau_m <= 1`` s, ``U_on > 0.3``,
  ``U_off < 0.8 U_on`` with the command normalised to ``U_m = 1`` (:data:`PWPF_RULES`).

Everything is written for :func:`sim.core.jit.jitable`: floats and small arrays, loops.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import vmul3_QQ
from sim.core.control import quaternion_error
from sim.core.jit import jitable

__all__ = ["G0", "PWPF_RULES", "LAYOUTS", "MODULATIONS", "cube_layout", "axis_levels", "modulate_axes",
           "wheel_momentum", "fire_period", "deadband_step", "torque_matrix", "thruster_wrench", "fuel_used",
           "minimum_on_times", "schmitt", "pwpf_step", "pwpf_static", "deadband_pulse", "limit_cycle",
           "unloading_torque"]

#: Standard gravity (m/s^2), the g0 of the specific impulse (3rd CGPM, 1901).
G0 = 9.80665

#: PWPF's parameters and the ranges of the rules of thumb (Krovel 2005), command normalised to U_m = 1.
PWPF_RULES = {"km": (2.0, 7.0), "tau_m": (0.1, 1.0), "u_on_min": 0.3, "u_off_over_u_on_max": 0.8}

#: The built-in thruster sets (:func:`cube_layout`); otherwise positions and directions are given.
LAYOUTS = ("none", "cube")
#: How a torque command becomes firings: a Schmitt trigger or PWPF per axis at each control period, or Wie's
#: dead-band controller of the attitude error firing one control period's pulse (:func:`modulate_axes`).
MODULATIONS = ("schmitt", "pwpf", "deadband")


def cube_layout(arm: float = 1.0) -> tuple:
    """Twelve thrusters in couples on a cube of half-side ``arm`` (m): ``(positions, directions)``, each (12, 3).

    Per signed axis one couple: two thrusters at opposite corners' edges pushing opposite ways, so
    each couple makes a pure torque ``2 arm F`` about its axis and no net force (Wie, ch. 6:
    thrusters in pairs for pure couples).  Order: +x, -x, +y, -y, +z, -z, two each.
    """
    a = float(arm)
    pos, dirs = [], []
    for k in range(3):
        i, j = (k + 1) % 3, (k + 2) % 3  # torque about k from r along i and F along j: (r x F)_k = r_i F_j
        for sign in (1.0, -1.0):
            for side in (1.0, -1.0):
                r, d = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
                r[i], d[j] = side * a, side * sign
                pos.append(r)
                dirs.append(d)
    return np.array(pos), np.array(dirs)


@jitable
def wheel_momentum(axes, inertia, speeds):
    """The wheels' momentum relative to the body, body axes: ``h_w = sum_i a_i J_s,i W_i`` (N m s; the
    momentum the thrusters unload, as the torquers' dumping reads it, :mod:`sim.gnc.magnetic`)."""
    h = np.zeros(3)
    for i in range(inertia.shape[0]):
        for k in range(3):
            h[k] += axes[i, k] * inertia[i] * speeds[i]
    return h


@jitable
def axis_levels(out, groups):
    """Each thruster's level for the per-axis outputs ``out`` (-1, 0, +1 each): the sum of the signed axes'
    thruster groups (``groups`` (6, n): rows +x, -x, +y, -y, +z, -z), at most 1."""
    n = groups.shape[1]
    level = np.zeros(n)
    for k in range(3):
        if out[k] != 0.0:
            row = 2 * k if out[k] > 0.0 else 2 * k + 1
            for i in range(n):
                level[i] += groups[row, i]
    for i in range(n):
        if level[i] > 1.0:
            level[i] = 1.0
    return level


@jitable
def modulate_axes(mode, torque, authority, out, filt, u_on, u_off, km, tau_m, period):
    """One control period of the per-axis modulator: the outputs (-1, 0, +1) and PWPF's filter states.

    The command about each axis is normalised by the thrusters' authority that way,
    ``u_k = T_k / a_k`` (``authority`` (6,): +x, -x, ...), so ``U_m = 1``; ``mode`` 0 is the
    Schmitt trigger (:func:`schmitt`), 1 PWPF (:func:`pwpf_step`, its lag solved over ``period``).
    ``out`` and ``filt`` are updated in place.
    """
    for k in range(3):
        a = authority[2 * k] if torque[k] >= 0.0 else authority[2 * k + 1]
        u = torque[k] / a
        if mode == 0:
            out[k] = schmitt(u, out[k], u_on, u_off, 1.0)
        else:
            filt[k], out[k] = pwpf_step(u, filt[k], out[k], km, tau_m, u_on, u_off, 1.0, period)
    return out


@jitable
def fire_period(mode, command, authority, out, filt, u_on, u_off, km, tau_m, period, groups, pos, dirs, force,
                impulse_bit):
    """One control period of the thrusters: ``(level, torque, force)``.

    ``mode`` 0 (Schmitt) or 1 (PWPF) modulates ``command`` per axis (:func:`modulate_axes`, ``out`` and
    ``filt`` updated in place); 2 takes the outputs ``out`` as they are (the dead-band controller's).  The
    outputs fire their axes' groups (:func:`axis_levels`), a firing of one period below the minimum impulse
    bit is not made (:func:`minimum_on_times`), and the levels' wrench about the centre of mass is
    :func:`thruster_wrench`.
    """
    if mode != 2:
        modulate_axes(mode, command, authority, out, filt, u_on, u_off, km, tau_m, period)
    level = axis_levels(out, groups)
    if impulse_bit.max() > 0.0:
        level = minimum_on_times(level * period, force, impulse_bit) / period
    torque, total = thruster_wrench(pos, dirs, force, level, np.zeros(3))
    return level, torque, total


@jitable
def deadband_step(q, qc, w, shortest, left, out, theta_d, t_pulse, dt):
    """The dead-band controller on three axes for one step: the error angle about each body axis,
    ``theta = -2 V(Q) dQ`` (small angles; Hoffmann (9.8)-(9.9), the quaternion controller's ``dQ`` of
    :func:`sim.core.control.quaternion_error`, so ``T = -K theta``), then :func:`deadband_pulse` per axis with
    the body rate ``w``.  ``out`` and ``left`` are updated in place; True when an output changed."""
    v = vmul3_QQ(q, quaternion_error(q, qc, shortest, None))
    changed = False
    for k in range(3):
        o, left[k] = deadband_pulse(-2.0 * v[k], w[k], left[k], theta_d, t_pulse, dt)
        if o != out[k]:
            out[k] = o
            changed = True
    return changed


@jitable
def torque_matrix(pos, dirs, force, cm):
    """``B``, shape (3, n): column ``i`` is the torque ``(r_i - c) x F_i d_i`` of thruster ``i`` firing alone."""
    n = force.shape[0]
    b = np.empty((3, n))
    for i in range(n):
        rx, ry, rz = pos[i, 0] - cm[0], pos[i, 1] - cm[1], pos[i, 2] - cm[2]
        fx, fy, fz = force[i] * dirs[i, 0], force[i] * dirs[i, 1], force[i] * dirs[i, 2]
        b[0, i] = ry * fz - rz * fy
        b[1, i] = rz * fx - rx * fz
        b[2, i] = rx * fy - ry * fx
    return b


@jitable
def thruster_wrench(pos, dirs, force, level, cm):
    """The torque about ``cm`` and the force of thrusters firing at ``level`` (each shape (3,)).

    ``T = sum_i (r_i - c) x level_i F_i d_i``, ``F = sum_i level_i F_i d_i`` (Wie, ch. 6).
    """
    b = torque_matrix(pos, dirs, force, cm)
    torque = np.zeros(3)
    total = np.zeros(3)
    for i in range(force.shape[0]):
        for k in range(3):
            torque[k] += b[k, i] * level[i]
            total[k] += level[i] * force[i] * dirs[i, k]
    return torque, total


@jitable
def fuel_used(force, isp, on_times):
    """Propellant mass (kg) for on-times ``t_i`` (s): ``sum_i F_i t_i / (Isp_i g0)`` (Sutton and Biblarz, ch. 2)."""
    m = 0.0
    for i in range(force.shape[0]):
        m += force[i] * on_times[i] / (isp[i] * G0)
    return m


@jitable
def minimum_on_times(on_times, force, impulse_bit):
    """On-times with those below the minimum impulse bit ``I_min,i / F_i`` set to zero (not fired)."""
    out = on_times.copy()
    for i in range(force.shape[0]):
        if on_times[i] * force[i] < impulse_bit[i]:
            out[i] = 0.0
    return out


@jitable
def schmitt(u, prev, u_on, u_off, u_max):
    """The Schmitt trigger's output (``-u_max``, 0 or ``+u_max``) for input ``u`` and its previous output ``prev``.

    Off, it switches on with the sign of ``u`` when ``|u| >= u_on``; on, it stays on while
    ``u`` (taken with the sign of the output) is above ``u_off`` (Wie, ch. 6).
    """
    if prev > 0.0:
        return u_max if u > u_off else (-u_max if u <= -u_on else 0.0)
    if prev < 0.0:
        return -u_max if u < -u_off else (u_max if u >= u_on else 0.0)
    if u >= u_on:
        return u_max
    if u <= -u_on:
        return -u_max
    return 0.0


@jitable
def pwpf_step(r, f, out, km, tau_m, u_on, u_off, u_m, dt):
    """One step of PWPF: the lag ``tau_m df/dt = K_m (r - out) - f`` solved exactly over ``dt``, then the trigger.

    Returns the filter state and the output for the next step (Wie, ch. 6; Krovel 2005).
    """
    target = km * (r - out)
    f_new = target + (f - target) * math.exp(-dt / tau_m)
    return f_new, schmitt(f_new, out, u_on, u_off, u_m)


@jitable
def pwpf_static(r, km, tau_m, u_on, u_off, u_m):
    """PWPF's static characteristic for a constant command ``r > 0``: ``(T_on, T_off, duty)``.

    ``T_on = -tau_m ln(1 - h / (U_on - K_m (r - U_m)))``, ``T_off = -tau_m ln(1 - h / (K_m r - U_on + h))``
    (Krovel 2005; Wie, ch. 6).  In the dead zone (``K_m r <= U_on``) it never fires: ``(0, inf, 0)``;
    at saturation (``K_m (r - U_m) >= U_off``) it stays on: ``(inf, 0, 1)``.
    """
    h = u_on - u_off
    if km * r <= u_on:
        return 0.0, math.inf, 0.0
    if km * (r - u_m) >= u_off:
        return math.inf, 0.0, 1.0
    t_on = -tau_m * math.log(1.0 - h / (u_on - km * (r - u_m)))
    t_off = -tau_m * math.log(1.0 - h / (km * r - u_on + h))
    return t_on, t_off, t_on / (t_on + t_off)


@jitable
def deadband_pulse(theta, rate, left, theta_d, t_pulse, dt):
    """A dead-band controller of one axis firing minimum pulses: ``(command, time left of the pulse)``.

    While a pulse lasts (``left > 0``) it goes on; otherwise, out of the dead band ``|theta| > theta_d``
    and not already coming back, it starts a pulse of ``t_pulse`` against the error.  The command
    is -1, 0 or +1 (a torque sign); ``left`` counts down by ``dt``, and the pulse goes on while more
    than half a step of it is left (a pulse is a whole number of steps, rounded to the nearest).
    """
    if left > 0.5 * dt:
        return (-1.0 if theta > 0.0 else 1.0), left - dt
    if theta > theta_d and rate >= 0.0:
        return -1.0, t_pulse - dt
    if theta < -theta_d and rate <= 0.0:
        return 1.0, t_pulse - dt
    return 0.0, 0.0


@jitable
def unloading_torque(h_wheels, gain):
    """The thrusters' torque that unloads the wheels: ``T = -k h_w`` (body axes, N m).

    With the attitude held by the wheels, the thrusters' external torque goes into the wheels,
    ``dh_w/dt = T``, so ``h_w`` decays as ``exp(-k t)`` while the thrusters can make ``T``
    (Sidi, ch. 7; Wie, ch. 7, momentum unloading).
    """
    out = np.empty(3)
    for k in range(3):
        out[k] = -gain * h_wheels[k]
    return out


def limit_cycle(inertia: float, torque: float, t_pulse: float, theta_d: float) -> dict:
    """The dead-band limit cycle with one minimum pulse at each wall, no disturbance (Wie, ch. 6; Sidi, ch. 7).

    Each pulse turns the rate ``+w`` into ``-w``, so ``2 w = T t_pulse / J``; the body drifts
    across the band at ``w`` and turns round in the pulse, overshooting by ``w t_pulse / 4``::

        w = T t_pulse / (2 J),  amplitude = theta_d + w t_pulse / 4,  period = 4 theta_d / w + 2 t_pulse

    Returns
    -------
    dict
        ``rate`` (rad/s), ``amplitude`` (rad), ``period`` (s), ``pulses_per_period`` (2).
    """
    w = torque * t_pulse / (2.0 * inertia)
    return {"rate": w, "amplitude": theta_d + w * t_pulse / 4.0, "period": 4.0 * theta_d / w + 2.0 * t_pulse,
            "pulses_per_period": 2}
