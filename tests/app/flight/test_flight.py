"""The flight (app.flight): open, record, replay, reset and the end pause, flown without Qt or a screen.

The worker is driven step by step while paused, so every check is about
exact states: a replay ends bit for bit where the recorded run ended, a
reset goes back to the given attitude at t = 0.
"""

import time

import numpy as np
import pytest

from app.flight import Flight, FlightError, Started
from sim.core.quaternion import from_aircraft_angles
from sim.run.recording import RecordingError, load_recording
from sim.run.scenario import Scenario, load
from sim.run.scenario_writer import save as save_scenario_file
from sim.model.settings import Settings


def wait_for(condition, timeout=5.0):
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise AssertionError("timed out")
        time.sleep(0.005)


class Latest:
    """The latest snapshot the worker published."""

    def __init__(self, worker):
        self.worker = worker
        self.last = None

    def __call__(self):
        batches = self.worker.drain()
        if batches:
            self.last = batches[-1].last
        return self.last


def steps(flight, latest, n):
    """Take ``n`` single steps of the paused worker and wait for the last one to be published."""
    start = latest().step if latest() is not None else None
    for _ in range(n):
        flight.worker.step()
    wait_for(lambda: latest() is not None and latest().step == (start or 0) + n)
    return latest.last


def recorded_steps(path):
    """The last step a recording file holds so far (None while it cannot be read)."""
    try:
        return load_recording(path)[2]
    except RecordingError:
        return None


@pytest.fixture
def flights():
    """Flights started by a test, every one stopped at the end."""
    made = []

    def fly(scenario="default", speed=1.0, paused=True, prepare=None):  # speed None: the scenario's own
        flight = Flight(load(scenario) if isinstance(scenario, str) else scenario, speed)
        if paused:
            flight.worker.pause(True)
        flight.start(prepare)
        made.append(flight)
        return flight

    yield fly
    for flight in made:
        assert flight.stop()


def test_start_prepares_the_first_runner_before_the_worker_runs_it(flights):
    prepared = []
    flight = flights("gimbal_lock", prepare=lambda scenario, runner: prepared.append(
        (scenario.name, runner, runner.total_steps)))
    assert prepared == [("gimbal_lock", flight.worker.runner, 0)]
    assert flight.scenario.name == "gimbal_lock"


def test_open_scenario_hands_the_worker_a_new_run_and_says_so(flights):
    prepared = []
    flight = flights(prepare=lambda scenario, runner: prepared.append(runner))
    first = flight.worker.runner
    started = flight.open_scenario("hoffmann")
    assert isinstance(started, Started)
    assert started.scenario.name == "hoffmann" == flight.scenario.name
    assert flight.worker.runner is prepared[-1] and prepared[-1] is not first
    # what the window shows is a frozen copy taken before the hand-over, not the live runner
    assert started.settings == load("hoffmann").settings and started.reference == prepared[-1].reference
    assert started.notices == (f"Scenario hoffmann: {load('hoffmann').title}",)
    assert flight.pause_at_end is load("hoffmann").pause_at_end


def test_a_scenario_that_cannot_be_loaded_leaves_the_run_alone(flights, tmp_path):
    flight = flights()
    runner = flight.worker.runner
    bad = tmp_path / "bad.toml"
    bad.write_text("[scenario\n")
    for name in ("no_such_scenario", bad):
        with pytest.raises(FlightError):
            flight.open_scenario(name)
    assert flight.worker.runner is runner and flight.scenario.name == "default"


def test_reset_goes_back_to_the_given_attitude_at_t_0(flights):
    flight = flights(Scenario(name="spin", settings=Settings(rates=(0.3, -0.2, 0.5), dampers_on=False)))
    latest = Latest(flight.worker)
    wait_for(lambda: latest() is not None)
    assert steps(flight, latest, 25).t > 0
    flight.reset((30.0, 20.0, -10.0), (0.0, 0.0, 0.0))
    wait_for(lambda: latest().t == 0.0)
    np.testing.assert_allclose(latest.last.angles_deg, (30.0, 20.0, -10.0), atol=1e-9)
    q = from_aircraft_angles(*np.radians((30.0, 20.0, -10.0)))
    np.testing.assert_allclose(np.abs(np.dot(latest.last.q, q)), 1.0, atol=1e-12)


def test_the_run_pauses_at_the_scenario_end_and_again_after_a_reset(flights):
    scenario = Scenario(name="short", settings=Settings(dt=0.01), duration=0.3, pause_at_end=True)
    flight = flights(scenario, speed=10.0, paused=False)
    wait_for(lambda: flight.worker.at_end)
    assert flight.worker.paused and abs(flight.worker.runner.sim.t - 0.3) < 1e-9
    flight.worker.drain()
    flight.reset((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    flight.worker.pause(False)
    # every batch the worker published since the reset (kept in its outbox, none missed): at 10x the run goes
    # from 0 to 0.3 s in 30 ms of wall time, which a poll of the live time could sleep through under load
    published = []
    wait_for(lambda: published.extend(b.last.t for b in flight.worker.drain()) or
             any(t < 0.3 - 1e-9 for t in published))
    wait_for(lambda: flight.worker.at_end)
    assert abs(flight.worker.runner.sim.t - 0.3) < 1e-9
    flight.set_pause_at_end(False, 0.3)
    assert not flight.pause_at_end
    flight.worker.pause(False)
    wait_for(lambda: flight.worker.runner.sim.t > 0.35)


@pytest.mark.parametrize("own", [None, 7.0])
def test_a_scenario_opens_at_its_own_speed_and_running_whatever_the_last_one_did(flights, tmp_path, own):
    # the last run was fast and sits paused at its end banner (issue 43: detumble's end, then sun_pointing;
    # fly_on_estimate's 100x, then gimbal_lock)
    last = Scenario(name="fast", settings=Settings(dt=0.01), duration=0.3, pause_at_end=True, speed=100.0)
    flight = flights(last, speed=None, paused=False)
    wait_for(lambda: flight.worker.at_end)
    assert flight.worker.speed == 100.0
    path = tmp_path / "next.toml"
    save_scenario_file(Scenario(name="next", settings=Settings(dt=0.01), duration=50.0, speed=own), path)
    flight.open_scenario(path)
    wait_for(lambda: not flight.worker.paused and flight.worker.runner.sim.t > 0.05)
    assert flight.worker.speed == (1.0 if own is None else own)


def test_a_restart_of_the_scenario_flown_keeps_the_speed_and_the_pause(flights, tmp_path):
    flight = flights("gimbal_lock", speed=3.0)
    latest = Latest(flight.worker)
    flight.start_recording(tmp_path / "run.jsonl", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    steps(flight, latest, 2)  # taken while paused: the restart did not run it
    assert flight.worker.paused and flight.worker.speed == 3.0


def test_a_recording_replays_to_the_state_it_ended_in(flights, tmp_path):
    flight = flights(Scenario(name="tumble", settings=Settings(rates=(1.0, 0.2, -0.5), dampers_on=False)))
    latest = Latest(flight.worker)
    path = tmp_path / "run.jsonl"
    started = flight.start_recording(path, (10.0, 5.0, 0.0), (1.0, 0.2, -0.5))
    assert started.notices == (f"Recording to {path}: the run restarted at t = 0",)
    assert flight.recording == str(path)
    wait_for(lambda: latest() is not None and latest().t == 0.0)
    flight.worker.submit("torque", (0.5, 0.0, -0.25))
    recorded = steps(flight, latest, 40)
    assert flight.stop_recording() == f"Recording saved to {path}"
    assert flight.recording is None and flight.stop_recording() is None
    wait_for(lambda: recorded_steps(path) == 40)  # the worker closes the file at its next command

    started = flight.replay(path)
    assert started.notices == (f"Replaying {path}: 40 steps; it pauses at the end",)
    flight.worker.pause(False)
    wait_for(lambda: flight.worker.paused and latest() is not None and latest().step == 40)
    assert latest.last.t == recorded.t
    assert np.array_equal(latest.last.q, recorded.q) and np.array_equal(latest.last.w, recorded.w)


def test_a_new_run_closes_the_recording_and_says_where_it_is(flights, tmp_path):
    flight = flights()
    path = tmp_path / "a.jsonl"
    flight.start_recording(path, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    started = flight.open_scenario("gimbal_lock")
    assert started.notices[0] == f"Recording saved to {path}"
    assert flight.recording is None
    wait_for(lambda: path.read_text().count("\n") >= 2)  # the header and the close record


def test_recording_where_nothing_can_be_written_says_why(flights, tmp_path):
    flight = flights()
    runner = flight.worker.runner
    with pytest.raises(FlightError, match="cannot record to"):
        flight.start_recording(tmp_path / "missing" / "x.jsonl", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    with pytest.raises(FlightError):
        flight.replay(tmp_path / "missing.jsonl")
    assert flight.worker.runner is runner and flight.recording is None


def test_the_saved_scenario_holds_the_settings_in_force_and_the_reset_state(flights, tmp_path):
    flight = flights("hoffmann")
    flight.worker.submit("gains", (2.0, 3.0, 4.0))
    flight.worker.step()
    wait_for(lambda: flight.worker.settings.gains == (2.0, 3.0, 4.0))
    path = tmp_path / "mine.toml"
    flight.save_scenario(path, (1.0, 2.0, 3.0), (0.1, 0.0, 0.0))
    saved = load(str(path))
    assert saved.settings.gains == (2.0, 3.0, 4.0)
    assert saved.settings.angles_deg == (1.0, 2.0, 3.0) and saved.settings.rates == (0.1, 0.0, 0.0)
    assert saved.events == load("hoffmann").events and saved.duration == load("hoffmann").duration
