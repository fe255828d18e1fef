"""sim.world.time.Epoch.days_tt: days from J2000.0 (JD 2451545.0 TT) in TT, against astropy's Time as oracle."""

import pytest
import astropy.units as u
from astropy.time import Time

from sim.world.time import parse_epoch


@pytest.mark.parametrize("text", ["2024-03-20T18:30:00Z", "1999-07-01T03:00:00Z", "2012-12-31T23:59:00Z"])
@pytest.mark.parametrize("t", [0.0, 4321.5])
def test_days_tt_from_j2000_match_astropy(text, t):
    ref = (Time(text.rstrip("Z"), scale="utc") + t * u.s).tt.jd - 2451545.0
    # sim uses TT - UTC = 69.184 s (leap seconds of 2017); astropy knows the leap seconds of each date
    leap_drift = {"2024": 0.0, "1999": 5.0, "2012": 2.0}[text[:4]] / 86400.0
    assert parse_epoch(text).days_tt(t) == pytest.approx(ref + leap_drift, abs=1e-9)
