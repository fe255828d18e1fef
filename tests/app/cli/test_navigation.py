"""The navigation loop (issue 33): sensors per step, the estimator, the estimate columns, flying on the estimate,
and the claims of the scenarios mekf, sun_mag_triad and fly_on_estimate.

References: the estimation error is recomputed from the CSV's q and qe with scipy's Rotation; the eclipse from
the run's own sunlit column; the angle between the Sun and the field from ppigrf (IGRF-14, the oracle).
"""

import csv
import io
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.cli import main
from csv_runs import run_refused
from sim import api
from sim.model.navigation import ESTIMATE_COLUMNS, Navigation
from sim.model.settings import Settings
from sim.model.simulation import Simulation

MEKF = dict(estimator="mekf", gyro=(1e-4, 1e-6, 1e-3), star_tracker=(20.0, 1.0), dt=0.1, rates=(0.01, -0.005, 0.02),
            body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), integrator="rk4")


def _table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return {name: np.array([float(r[k]) for r in rows[1:]]) for k, name in enumerate(rows[0])}


def _matrix(q):
    """Hoffmann's C(Q) (inertial -> body, scalar last) from scipy: Rotation.from_quat(Q).as_matrix() (tests/oracle.py)."""
    return Rotation.from_quat(q).as_matrix()


def _run_csv(capsys, *argv):
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_estimate_columns_only_with_an_estimator_and_consistent(capsys):
    code, out, _ = _run_csv(capsys, "--duration", "1", "--dt", "0.1")
    assert code == 0 and not set(ESTIMATE_COLUMNS) & set(_table(out))
    code, out, _ = _run_csv(capsys, "--scenario", "mekf", "--duration", "30", "--every", "3")
    assert code == 0
    d = _table(out)
    header = out.splitlines()[0].split(",")
    assert header[-len(ESTIMATE_COLUMNS):] == list(ESTIMATE_COLUMNS)
    q = np.column_stack([d[f"q{i}"] for i in range(1, 5)])
    qe = np.column_stack([d[f"qe{i}"] for i in range(1, 5)])
    # Q_true = δQ(a) . Q_est, i.e. C_true = exp(-[a×]) C_est: a is the rotation vector of C_est C_true^T
    a = Rotation.from_matrix(_matrix(qe) @ _matrix(q).transpose(0, 2, 1)).as_rotvec(degrees=True)
    err = np.column_stack([d["err_x_deg"], d["err_y_deg"], d["err_z_deg"]])
    assert np.allclose(err, a, atol=1e-9)
    assert np.allclose(np.linalg.norm(qe, axis=1), 1.0, atol=1e-12)
    assert np.all(d["sig3_x_deg"] > 0) and np.all(np.isfinite(d["nees"]))


def test_a_passive_estimator_leaves_the_flight_alone():
    """With fly_on truth the estimator only watches: the true trajectory is the one without it, bit for bit."""
    plain = dict(MEKF, estimator="truth", controller="quaternion", dampers_on=True)
    a, b = Simulation(**plain), Simulation(**dict(MEKF, controller="quaternion", dampers_on=True))
    a.step(300)
    b.step(300)
    assert a.q == b.q and a.w == b.w


def test_one_body_equals_member_i_of_a_column():
    """Body i's draws are the same alone and as member i of a column of filters (sim.gnc.sensors' seeding)."""
    s = Settings(**MEKF)
    q = np.tile([0.1, -0.2, 0.3, 0.9273618495495704], (4, 1))
    w = np.tile([0.01, -0.005, 0.02], (4, 1))
    column = Navigation(s, range(4), q, w)
    alone = Navigation(s, [2], q[2:3], w[2:3])
    for k in range(50):
        for nav in (column, alone):
            nav.sample(0.1 * k, 0.1, q[: len(nav.bodies)], None)
            nav.propagate(w[: len(nav.bodies)], w[: len(nav.bodies)], 0.1)
    assert np.array_equal(column.q[2], alone.q[0])
    assert np.array_equal(column.values(q)[2], alone.values(q[2:3])[0])
    assert not np.array_equal(column.q[1], column.q[2])


def test_mekf_scenario_bias_converges_and_the_band_shrinks():
    r = api.run("mekf", duration=300.0)
    t = r["t"]
    bias_err = np.linalg.norm(np.column_stack([r[f"bias_{a}"] - r[f"bias_est_{a}"] for a in "xyz"]), axis=1)
    at = {s: np.searchsorted(t, s - 1e-9) for s in (0, 1, 60, 120, 300)}
    assert bias_err[at[120]] < bias_err[at[0]] / 50.0
    assert bias_err[at[300]] < 3e-5
    sig3 = r["sig3_x_deg"]
    assert sig3[at[0]] == pytest.approx(3.0) and sig3[at[1]] < 0.3 and sig3[at[60]] < 0.03
    assert sig3[at[300]] == pytest.approx(sig3[at[120]], rel=0.02)           # steady
    inside = np.abs(r["err_x_deg"][t > 10]) < r["sig3_x_deg"][t > 10]
    assert inside.mean() > 0.99


@pytest.fixture(scope="module")
def triad_run():
    return api.run("sun_mag_triad")


def _sun_field_angle_deg(r):
    """The angle between the Sun and the field (0..90 deg, their lines), the field from ppigrf (IGRF-14)."""
    import datetime

    import ppigrf
    from sim.world.frames import ecef_to_geodetic, eci_to_ecef, precession  # placing the point only
    from sim.world.time import gmst, julian_centuries_tt, parse_epoch

    epoch = parse_epoch(api.load_scenario("sun_mag_triad").settings.epoch)
    out = []
    for k in range(0, len(r["t"]), 60):
        t = r["t"][k]
        days = epoch.days_utc(t)
        g = gmst(days)
        rot, p = (math.cos(g), math.sin(g)), precession(julian_centuries_tt(epoch.days_tt(t)))
        ecef = eci_to_ecef((r["x_km"][k], r["y_km"][k], r["z_km"][k]), rot, p)
        lat, lon, alt = ecef_to_geodetic(ecef)
        date = datetime.datetime(2000, 1, 1, 12) + datetime.timedelta(days=float(days))
        be, bn, bu = (float(np.ravel(x)[0]) for x in
                      ppigrf.igrf(math.degrees(lon), math.degrees(lat), alt, date))
        # east, north, up (geodetic) -> ECEF -> ECI
        sl, cl, so, co = math.sin(lat), math.cos(lat), math.sin(lon), math.cos(lon)
        b_ecef = (-so * be - sl * co * bn + cl * co * bu, co * be - sl * so * bn + cl * so * bu, cl * bn + sl * bu)
        c, s = rot
        x, y, z = b_ecef
        b = np.array(p).reshape(3, 3).T @ np.array([c * x - s * y, s * x + c * y, z])
        sun = np.array([r["sun_x"][k], r["sun_y"][k], r["sun_z"][k]])
        out.append((k, math.degrees(math.acos(abs(b @ sun) / np.linalg.norm(b)))))
    return out


def test_triad_error_grows_as_the_vectors_align(triad_run):
    r = triad_run
    err = np.sqrt(r["err_x_deg"] ** 2 + r["err_y_deg"] ** 2 + r["err_z_deg"] ** 2)
    wide, narrow = [], []
    for k, angle in _sun_field_angle_deg(r):
        if r["sunlit"][k] == 1.0:
            (wide if angle > 60 else narrow if angle < 20 else []).append(err[k])
    assert len(wide) > 5 and len(narrow) > 5
    assert np.median(narrow) > 3.0 * np.median(wide)
    assert np.median(wide) < 1.0


def test_triad_fails_in_eclipse(triad_run):
    r = triad_run
    umbra = np.flatnonzero(r["sunlit"] == 0.0)
    assert len(umbra) > 1800                                             # about 35 min
    qe = np.column_stack([r[f"qe{i}"] for i in range(1, 5)])
    assert np.all(qe[umbra] == qe[umbra[0]])                              # no solution: the last one held
    err = np.sqrt(r["err_x_deg"] ** 2 + r["err_y_deg"] ** 2 + r["err_z_deg"] ** 2)
    assert err[umbra[-1]] > 30.0                                          # the body turned on without it
    assert err[umbra[-1] + 30] < 3.0                                      # back in the Sun


@pytest.fixture(scope="module")
def fly_run():
    sim = Simulation(api.load_scenario("fly_on_estimate").settings)
    rows, blind = [], []
    for _ in range(11400):
        sim.step()
        s = sim.snapshot()
        rows.append((s.t, s.pointing_error_deg, s.world.sunlit, *s.estimate))
        blind.append(s.sensors[1] == 0.0)
    return np.array(rows), np.array(blind)


def test_flying_on_the_estimate_holds_nadir_within_a_few_sigma(fly_run):
    rows, blind = fly_run
    t, point, lit = rows[:, 0], rows[:, 1], rows[:, 2]
    err = rows[:, 7:10]
    sig3 = rows[:, 10:13]
    settled = t > 900
    assert np.any(lit[settled] == 0.0) and np.any(blind[settled])        # through an eclipse, blinded a while
    # the pointing error is the estimation error (the controller holds the estimate on the command) ...
    seeing = settled & ~blind
    assert point[seeing].max() < 0.01
    # ... which the filter's 3 sigma bounds, also while the tracker is blind (the gyro alone)
    inside = np.all(np.abs(err[t > 10]) < sig3[t > 10], axis=1)
    assert inside.mean() > 0.97
    assert point[settled & blind].max() < 3.0 * sig3[settled & blind, :2].max()


def test_flying_on_the_truth_is_better_than_on_the_estimate():
    s = api.load_scenario("fly_on_estimate").settings
    a = Simulation(s.replace(fly_on="truth"))
    b = Simulation(s)
    a.step(2400)
    b.step(2400)
    assert a.pointing_error() < b.pointing_error() or b.pointing_error() < 1e-4
    assert a.q != b.q


@pytest.mark.parametrize("argv, fragment", [
    (["--estimator", "mekf"], "--estimator mekf: mekf needs a gyro"),
    (["--estimator", "triad", "--gyro", "1e-5,1e-7"], "needs two vector sensors"),
    (["--estimator", "quest", "--magnetometer", "1e-7"], "needs an orbit"),
    (["--sun-sensors"], "--sun-sensors: needs an orbit"),
    (["--gyro", "1e-5"], "--gyro 1e-5: expected 2 to 3 numbers"),
    (["--gyro", "-1e-5,0"], "must be > 0"),
    (["--gyro", "1e-5,0,5"], "too large"),
    (["--star-tracker", "5,0"], "must be > 0 Hz"),
    (["--star-tracker", "abc,1"], "expected a number"),
    (["--magnetometer", "0"], "must be > 0 T"),
    (["--fly-on", "estimate"], "needs an estimator"),
    (["--fly-on", "estimate", "--estimator", "mekf", "--star-tracker", "5,1"], "needs a gyro"),
    (["--sensor-seed", "-1"], "--sensor-seed -1"),
    (["--estimator", "ekf"], "invalid choice"),
    (["--scenario", "sun_mag_triad", "--epoch", "2040-01-01"], "IGRF-14 covers"),
])
def test_bad_navigation_flags_exit_2_with_one_line(capsys, argv, fragment):
    run_refused(capsys, argv, fragment)


def test_api_keywords_set_the_sensors():
    r = api.run(duration=2.0, dt=0.1, estimator="quest", sun_sensors=True, magnetometer=1e-7,
                orbit=(500.0, 0.0, 97.4, 0.0, 0.0, 0.0))
    assert "qe1" in r and np.all(np.isnan(r["bias_est_x"]))
    assert np.sqrt(r["err_x_deg"] ** 2 + r["err_y_deg"] ** 2 + r["err_z_deg"] ** 2)[-1] < 3.0
