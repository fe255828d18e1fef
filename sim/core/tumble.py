"""The torque-free asymmetric rigid body in closed form: rates, attitude and the intermediate-axis flip period.

The reference the drift lab (:mod:`sim.lab`) measures every integrator
against, and the period the Compare tab shows for the T-handle and the phone.
Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`); the
special functions are :mod:`sim.core.elliptic`'s.

The solution (Landau and Lifshitz, *Mechanics*, 3rd ed., section 37; also
Goldstein, *Classical Mechanics*, section 5.7 for the angles).  In principal
axes ``(a, b, c)`` with moments ``I_a, I_b, I_c``, energy ``2T = sum I w^2`` and
momentum ``H^2 = sum I^2 w^2``, ``c`` being the axis the rate never leaves
(the largest moment when ``H^2 > 2 T I_b``, the smallest otherwise, with
``a`` the other extreme and ``b`` the intermediate axis)::

    w_a = s_a sqrt((2T I_c - H^2) / (I_a (I_c - I_a))) cn(u | m)
    w_b = s_b sqrt((2T I_c - H^2) / (I_b (I_c - I_b))) sn(u | m)
    w_c = s_c sqrt((H^2 - 2T I_a) / (I_c (I_c - I_a))) dn(u | m)
    u = lambda (t - t0) + u0,   lambda = sqrt((I_c - I_b)(H^2 - 2T I_a) / (I_a I_b I_c))
    m = (I_b - I_a)(2T I_c - H^2) / ((I_c - I_b)(H^2 - 2T I_a))

(L&L (37.10)-(37.11) for ``I_1 < I_2 < I_3``, ``M^2 > 2 E I_2``; the other case
by exchanging the suffixes 1 and 3, here with ``(a, b, c) = (3, 2, -1)`` so
the axes stay right-handed.)  The rates repeat after ``4 K(m) / lambda``: over
that period the body turns over about its intermediate axis and back
(:func:`flip_period`).

The attitude: with the inertial Z axis along ``h``, the z-x-z angles of the
body axes ``(a, b, c)`` obey ``cos theta = I_c w_c / H``,
``tan psi = I_a w_a / (I_b w_b)`` and ``dphi/dt = H (I_a w_a^2 + I_b w_b^2) /
(I_a^2 w_a^2 + I_b^2 w_b^2)``, which with ``w_c^2 = C^2 (1 - m sn^2)`` integrates to::

    phi = phi0 + H/I_c (t - t0) + H (2T - H^2/I_c) / (gamma lambda) [Pi(n; am u | m) - Pi(n; am u0 | m)]
    gamma = I_a (2T I_c - H^2) / (I_c - I_a),   n = -I_c^2 C^2 m / gamma  (< 0)

with ``Pi`` the incomplete elliptic integral of the third kind.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.elliptic import ellipf, ellipj, ellipk, ellippi
from sim.core.quaternion import cayley

__all__ = ["FreeTumble", "flip_period", "crossings", "measured_period", "attitude_error", "PeriodWatch",
           "torque_free"]


def _zxz(phi: float, theta: float, psi: float) -> np.ndarray:
    """``R_z(psi) R_x(theta) R_z(phi)``, coordinate rotations: the frame along ``h`` -> body axes (a, b, c)."""
    def rz(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])

    c, s = math.cos(theta), math.sin(theta)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])
    return rz(psi) @ rx @ rz(phi)


class FreeTumble:
    """The exact torque-free motion of a rigid body from ``(q0, w0)``.

    Parameters
    ----------
    j : array_like, shape (3, 3)
        Inertia tensor in body axes (:attr:`sim.core.body.Body.J`, Hoffmann's signs).
    w0 : sequence of 3 floats
        Initial body rates, rad/s.
    q0 : sequence of 4 floats
        Initial attitude (scalar last, inertial -> body; any length).

    Raises
    ------
    ValueError
        For a body with two equal principal moments, a motion at rest or
        spinning exactly about a principal axis, or on the separatrix
        (``m = 1``): their closed forms are other (simpler) functions.
    """

    def __init__(self, j, w0, q0=(0.0, 0.0, 0.0, 1.0)):
        j = np.asarray(j, dtype=float)
        moments, axes = np.linalg.eigh(j)
        if np.linalg.det(axes) < 0.0:
            axes[:, 2] = -axes[:, 2]
        w0 = np.asarray(w0, dtype=float)
        i1, i2, i3 = (float(x) for x in moments)
        if not (i2 - i1 > 1e-9 * i3 and i3 - i2 > 1e-9 * i3):
            raise ValueError(f"principal moments {i1:.6g}, {i2:.6g}, {i3:.6g}: not an asymmetric body")
        wp = axes.T @ w0
        two_t = float(np.dot(moments, wp * wp))
        hh = float(np.dot(moments * moments, wp * wp))
        if hh > two_t * i2:      # the rate stays near the largest axis: (a, b, c) = (1, 2, 3)
            frame = axes
            ia, ib, ic = i1, i2, i3
        else:                    # near the smallest: (a, b, c) = (3, 2, -1), right-handed
            frame = np.column_stack((axes[:, 2], axes[:, 1], -axes[:, 0]))
            ia, ib, ic = i3, i2, i1
        wa0, wb0, wc0 = frame.T @ w0
        self.moments = (ia, ib, ic)
        self.frame = frame
        self.energy = 0.5 * two_t
        self.momentum = math.sqrt(hh)
        big_a = (two_t * ic - hh) / (ia * (ic - ia))
        big_b = (two_t * ic - hh) / (ib * (ic - ib))
        big_c = (hh - two_t * ia) / (ic * (ic - ia))
        lam2 = (ic - ib) * (hh - two_t * ia) / (ia * ib * ic)
        if not (big_a > 0.0 and big_b > 0.0 and big_c > 0.0 and lam2 > 0.0):
            raise ValueError("the body spins about a principal axis (or rests): no tumble to solve")
        self.amplitudes = (math.sqrt(big_a), math.sqrt(big_b), math.sqrt(big_c))
        self.rate = math.sqrt(lam2)
        self.m = (ib - ia) * (two_t * ic - hh) / ((ic - ib) * (hh - two_t * ia))
        if not 0.0 <= self.m < 1.0:
            raise ValueError(f"m = {self.m!r}: the motion lies on the separatrix")
        sc = 1.0 if wc0 >= 0.0 else -1.0
        self.signs = (1.0, sc if ic > ia else -sc, sc)   # dw_b/dt = (I_c - I_a) w_c w_a / I_b
        self.am0 = math.atan2(wb0 / (self.signs[1] * self.amplitudes[1]), wa0 / self.amplitudes[0])
        self.u0 = ellipf(self.am0, self.m)
        ca = self.amplitudes[2]
        self.gamma = ia * (two_t * ic - hh) / (ic - ia)
        self.n = -ic * ic * ca * ca * self.m / self.gamma
        self._pi0 = ellippi(self.n, self.am0, self.m)
        # the body at t = 0 relative to the frame along h, and the inertial frame relative to that
        c0 = np.array(cayley(q0)) / float(np.dot(q0, q0))
        self._h_to_inertial = (frame @ self._along_h(wa0, wb0, wc0, 0.0)).T @ c0

    def _along_h(self, wa, wb, wc, phi) -> np.ndarray:
        ia, ib, ic = self.moments
        h = self.momentum
        theta = math.acos(max(-1.0, min(1.0, ic * wc / h)))
        psi = math.atan2(ia * wa, ib * wb)
        return _zxz(phi, theta, psi)

    def _state(self, t: float):
        sn, cn, dn, am = ellipj(self.rate * t + self.u0, self.m)
        sa, sb, sc = self.signs
        aa, ab, ac = self.amplitudes
        return (sa * aa * cn, sb * ab * sn, sc * ac * dn), am

    def rates(self, t: float) -> np.ndarray:
        """Body rates at time ``t`` (rad/s, body axes)."""
        wp, _ = self._state(t)
        return self.frame @ np.array(wp)

    def cayley(self, t: float) -> np.ndarray:
        """The Cayley matrix (inertial -> body) at time ``t``."""
        (wa, wb, wc), am = self._state(t)
        ia, ib, ic = self.moments
        h, two_t = self.momentum, 2.0 * self.energy
        phi = h / ic * t + h * (two_t - h * h / ic) / (self.gamma * self.rate) * (
            ellippi(self.n, am, self.m) - self._pi0)
        return self.frame @ self._along_h(wa, wb, wc, phi) @ self._h_to_inertial

    def period(self) -> float:
        """``4 K(m) / lambda``: the period of the rates (:func:`flip_period`)."""
        return 4.0 * ellipk(self.m) / self.rate


def flip_period(j, w0) -> float:
    """The period of the torque-free rates, ``4 K(m) / lambda`` (Landau and Lifshitz, *Mechanics*, section 37).

    For a body spun about its intermediate axis with a small wobble (the
    T-handle, the phone) this is the time to turn over and back: the rate
    about the intermediate axis is ``sn``-shaped and changes sign every half
    period.  ``m`` and ``lambda`` as in the module docstring.
    """
    return FreeTumble(j, w0).period()


def crossings(t, x) -> np.ndarray:
    """The times where the samples ``x(t)`` change sign, interpolated linearly between samples."""
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    k = np.nonzero(np.signbit(x[:-1]) != np.signbit(x[1:]))[0]
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])


def measured_period(t, x) -> float | None:
    """The period of an ``sn``-like signal from its zero crossings: twice their mean spacing (None before three)."""
    z = crossings(t, x)
    if len(z) < 3:
        return None
    return 2.0 * float(z[-1] - z[0]) / (len(z) - 1)


def attitude_error(c, c_ref) -> float:
    """The rotation angle (rad) between two attitude matrices: ``atan2(|vee(R - R^T)| / 2, (tr R - 1) / 2)``, ``R = C C_ref^T``.

    Accurate for small and large angles alike (the arccos of the trace alone is not).
    """
    r = np.asarray(c, dtype=float) @ np.asarray(c_ref, dtype=float).T
    s = 0.5 * math.sqrt((r[2, 1] - r[1, 2]) ** 2 + (r[0, 2] - r[2, 0]) ** 2 + (r[1, 0] - r[0, 1]) ** 2)
    return math.atan2(s, 0.5 * (r[0, 0] + r[1, 1] + r[2, 2] - 1.0))


def torque_free(settings) -> bool:
    """True when ``settings`` (a :class:`~sim.model.settings.Settings`) describe a free rigid body.

    No command torque, dampers or controller, no reaction wheels (a gyrostat
    is not a free top), no gravity gradient and no disturbance torque.
    """
    return (not any(settings.torque) and not settings.dampers_on and settings.controller == "none"
            and settings.wheel_count == 0 and not settings.gravity_gradient
            and not any(x != 0.0 for x in settings.disturbance))


class PeriodWatch:
    """The period of a torque-free body's rates, as measured from its samples and in closed form.

    Fed the samples of one body (:meth:`add`), it keeps the zero crossings of
    the rate about the intermediate principal axis (``sn``-shaped for any
    tumble: it changes sign every half period) and the last rates.  The
    closed form :func:`flip_period` depends only on the energy and the
    momentum, constant along a torque-free motion, so it is taken from the
    last rates.  What the Compare tab shows for the T-handle and the phone.

    Parameters
    ----------
    j : array_like, shape (3, 3)
        The body's inertia tensor (body axes, Hoffmann's signs).
    """

    def __init__(self, j):
        self.j = np.array(j, dtype=float)
        moments, axes = np.linalg.eigh(self.j)
        self.axis = axes[:, 1]
        self.reset()

    def reset(self) -> None:
        """Forget every sample (a reset of the run)."""
        self._crossings: list = []
        self._last = None
        self._w = None

    def add(self, t, w) -> None:
        """Samples ``t`` (n,) and rates ``w`` (n, 3), oldest first, after those already added."""
        t = np.asarray(t, dtype=float)
        if len(t) == 0:
            return
        x = np.asarray(w, dtype=float) @ self.axis
        if self._last is not None:
            t = np.concatenate(([self._last[0]], t))
            x = np.concatenate(([self._last[1]], x))
        self._crossings.extend(crossings(t, x).tolist())
        self._last = (float(t[-1]), float(x[-1]))
        self._w = np.asarray(w, dtype=float)[-1].copy()

    @property
    def measured(self) -> float | None:
        """Twice the mean spacing of the crossings so far (None before three, one period)."""
        z = self._crossings
        if len(z) < 3:
            return None
        return 2.0 * (z[-1] - z[0]) / (len(z) - 1)

    def closed_form(self) -> tuple | None:
        """``(period, m)`` of the motion through the last rates, or None (no samples, a spin, a symmetric body)."""
        if self._w is None:
            return None
        try:
            tumble = FreeTumble(self.j, self._w)
        except ValueError:
            return None
        return tumble.period(), tumble.m
