"""How the bodies of an ensemble differ: :class:`EnsembleSpec` and its validation.

Every number is checked against :data:`sim.io.limits.LIMITS`, the table the
command line and scenario files read too.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.io.limits import LIMITS, SettingsError, components

__all__ = ["EnsembleSpec", "ATTITUDES", "ORBIT_SPREAD"]

#: Initial attitude modes of :class:`EnsembleSpec`.
ATTITUDES = ("random", "grid", "same")
#: The elements of ``orbit_spread`` (those of ``Settings.orbit``) and the limit each half-width takes.
ORBIT_SPREAD = (("alt_km", "orbit_spread_km"), ("e", "orbit_spread_e"), ("i_deg", "orbit_spread_deg"),
                ("raan_deg", "orbit_spread_deg"), ("argp_deg", "orbit_spread_deg"), ("nu_deg", "orbit_spread_deg"))


@dataclass(frozen=True)
class EnsembleSpec:
    """How the N bodies differ from the settings' single body.

    Validated at construction: a bad value raises
    :class:`~sim.model.settings.SettingsError` naming the field.  The ranges are
    those of :data:`sim.io.limits.LIMITS`.

    Attributes
    ----------
    bodies : int
        Number of bodies N (1 to 10,000,000).
    seed : int
        Seed of every random draw (0 to 2^64 - 1).  Body ``i``'s draws depend
        only on ``(seed, i)``: a SplitMix64 hash of the two (and a stream
        number) gives its uniforms.
    attitudes : str
        ``"random"``: uniform on SO(3), Shoemake's method (1992) from three
        uniforms: ``Q = (sqrt(1-u1) sin 2pi u2, sqrt(1-u1) cos 2pi u2,
        sqrt(u1) sin 2pi u3, sqrt(u1) cos 2pi u3)``.  ``"grid"``: the same
        map applied to the additive recurrence ``u_k = frac(1/2 + (i+1) /
        g^k)``, ``g`` the real root of ``x^4 = x + 1`` (Roberts' R3
        low-discrepancy sequence): a deterministic, even cover of SO(3) for
        any N (Shoemake's map carries the uniform measure on the unit cube to
        the uniform measure on SO(3)).  ``"same"``: ``settings.angles_deg``
        for every body.  Sampled attitudes are stored as aircraft angles
        (degrees, Hoffmann (7.21)) and turned into ``Q`` exactly as
        :meth:`Simulation.reset` does.
    rate_spread : float
        rad/s: each initial rate component is ``settings.rates[k] +
        rate_spread * N(0, 1)`` (Box-Muller from two uniforms).
    inertia_spread : float
        Percent, 0 to 50: each component of the inertia in force (``settings.mass_properties``: Jxx, Jyy,
        Jzz, Jxy, Jxz, Jyz) is multiplied by ``1 + spread/100 * U(-1, 1)``;
        a draw whose tensor is not physical (not positive definite, or the
        principal moments break the triangle inequality) is drawn again
        from the body's next stream (up to 16 times, then the nominal
        inertia).
    gains_grid : tuple or None
        ``((k1...), (k2...), (k3...))``: the cartesian product of controller
        gains; body ``i`` takes the ``(i mod len)``-th combination
        (``itertools.product`` order).  None: ``settings.gains`` for all.
    settle_deg : float
        Threshold of the settling-time metric, degrees, in (0, 180].
    detumble_deg_s : float
        Threshold of the time-to-detumble metric, deg/s: the first time
        ``|w|`` is under it (default 0.5 deg/s).
    orbit_spread : tuple or None
        ``(alt_km, e, i_deg, raan_deg, argp_deg, nu_deg)``: half-widths of
        uniform spreads about the settings' orbit elements (``Settings.orbit``),
        one orbit per body: element ``k`` of body ``i`` is ``orbit[k] +
        orbit_spread[k] * (2 u - 1)``, ``u`` the uniform of stream ``112 + k``
        (:func:`sim.ensemble.sampling.sample_orbits`); an angle that leaves
        [-360, 360] is brought back by 360 deg.  None (or all zero): every
        body on the settings' orbit.
    epoch_spread : float
        Seconds: body ``i``'s epoch is the settings' epoch plus ``epoch_spread
        * (2 u - 1)`` (``u`` of stream 118), rounded to the microsecond.
    """

    bodies: int = 1000
    seed: int = 0
    attitudes: str = "random"
    rate_spread: float = 0.0
    inertia_spread: float = 0.0
    gains_grid: tuple | None = None
    settle_deg: float = 1.0
    orbit_spread: tuple | None = None
    epoch_spread: float = 0.0
    detumble_deg_s: float = 0.5

    def __post_init__(self):
        def check(key):  # a frozen dataclass: set the checked value past __setattr__
            object.__setattr__(self, key, LIMITS[key].check(getattr(self, key)))

        check("bodies")
        check("seed")
        if self.attitudes not in ATTITUDES:
            raise SettingsError(f"attitudes: unknown value {self.attitudes!r} (choose from {', '.join(ATTITUDES)})")
        for key in ("rate_spread", "inertia_spread", "settle_deg", "detumble_deg_s"):
            check(key)
        if self.gains_grid is not None:
            object.__setattr__(self, "gains_grid", _gains_grid(self.gains_grid))
        check("epoch_spread")
        if self.orbit_spread is not None:
            object.__setattr__(self, "orbit_spread", _orbit_spread(self.orbit_spread))

    @property
    def spreads_orbits(self) -> bool:
        """True when the bodies' orbits or epochs differ (``orbit_spread`` or ``epoch_spread``)."""
        return self.orbit_spread is not None or self.epoch_spread > 0.0


def _orbit_spread(value) -> tuple | None:
    """Six half-widths ``(alt_km, e, i_deg, raan_deg, argp_deg, nu_deg)`` (a sequence or ``"a,b,..."`` text);
    None when all are zero; SettingsError naming the element."""
    parts = components("orbit_spread", value, 6)
    spread = tuple(LIMITS[limit].number(v, f"orbit_spread {name}") for v, (name, limit) in zip(parts, ORBIT_SPREAD))
    return spread if any(x > 0.0 for x in spread) else None


def _gains_grid(grid) -> tuple:
    """Three tuples of gains (each gain in the range of ``gains``); SettingsError naming the axis."""
    if isinstance(grid, str) or not hasattr(grid, "__len__") or len(grid) != 3:
        raise SettingsError(f"gains_grid: expected three lists of gains (x, y, z), got {grid!r}")
    gain, most = LIMITS["gains"], LIMITS["gains_grid_values"].high
    axes = []
    for k, values in enumerate(grid):
        if isinstance(values, str) or not hasattr(values, "__iter__"):
            values = (values,)
        values = tuple(values)
        if not values:
            raise SettingsError(f"gains_grid[{k}]: needs at least one gain")
        if len(values) > most:
            raise SettingsError(f"gains_grid[{k}]: {len(values):,} gains is too many (at most {most:,} per axis)")
        axes.append(tuple(gain.number(v, f"gains_grid[{k}]") for v in values))
    return tuple(axes)
