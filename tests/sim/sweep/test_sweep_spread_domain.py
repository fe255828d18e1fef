"""A sweep whose spread epochs would leave a model's domain is refused before it flies (sim.sweep's
_check_spread_domain): the earliest epoch as well as the latest, each named with its sign."""

from __future__ import annotations

import pytest

from sgp4.api import Satrec

from sim.io.limits import SettingsError
from sim.ensemble import EnsembleSpec
from sim.run.scenario import loads
from sim.sweep import Sweep

L1 = "1 25544U 98067A   24079.54791667  .00016717  00000-0  30057-3 0  9997"
L2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.49815311 44296"
DAY = 86400.0


def _scenario(epoch: str):
    return loads(f"""
[scenario]
duration = 1.0

[settings]
dt = 0.1
epoch = "{epoch}"
tle = \"\"\"ISS (ZARYA)
{L1}
{L2}\"\"\"
""", name="spread_domain")


@pytest.mark.parametrize("epoch, days, fails", [("2019-04-15T13:09:00Z", -1800, "-"), ("2026-12-14T13:09:00Z", 1000, "+")])
def test_the_earliest_and_the_latest_spread_epoch_are_each_checked(epoch, days, fails):
    """The ISS's element set of 2024-03-19 13:09 UTC (day 79.5479): SGP4 itself (the reference) propagates it
    from 1,953 days before to 1,228 days after, no further.  A run ``days`` from it, its epochs spread by 300 days,
    leaves that reach on one side only: refused, naming that side; spread by 100 days it stays inside."""
    sat = Satrec.twoline2rv(L1, L2)
    away = 300 if fails == "+" else -300
    inside, outside = (days - 100, days, days + 100, days - away), days + away
    assert [sat.sgp4_tsince(d * 1440.0)[0] for d in inside] == [0, 0, 0, 0]
    assert sat.sgp4_tsince(outside * 1440.0)[0] != 0
    scenario = _scenario(epoch)
    Sweep(scenario, EnsembleSpec(bodies=2, seed=1, epoch_spread=100.0 * DAY))  # within the TLE's reach
    with pytest.raises(SettingsError) as info:
        Sweep(scenario, EnsembleSpec(bodies=2, seed=1, epoch_spread=300.0 * DAY))
    assert str(info.value).startswith(f"epoch_spread: {epoch} {fails} 2.592e+07 s: tle: cannot be propagated")
