"""Issue 35, class 6: the API's user torque and arguments (sim.api, sim.model.loads).

A user torque returns exactly three finite real numbers or the run stops
with UserTorqueError (docs/API.md); it is never called before the run (cost
estimates fly copies without it); under elimination it reads Q / |Q|; the
arguments ``duration`` and ``every`` are checked as the docs say.
"""

import math

import numpy as np
import pytest

from sim import api
from sim.io.limits import SettingsError
from sim.model.loads import UserTorqueError


def _const(value):
    return lambda t, q, w: value


@pytest.mark.parametrize("value", ["123", b"123", bytearray(b"123"), {1.0, 2.0, 3.0}, {"x": 1, "y": 2, "z": 3},
                                   (10 ** 400, 0, 0), (1j, 0, 0), (True, 0, 0), ("1", 0, 0), (1.0, 2.0),
                                   (0, 0, 0, 0), np.zeros(4), np.zeros((3, 1)), np.array(["1", "2", "3"]),
                                   (math.inf, 0, 0), (math.nan, 0, 0), None, 3.0],
                         ids=lambda value: " ".join(repr(value).split()))  # one line: no id pytest escapes
def test_anything_but_three_finite_real_numbers_stops_the_run(value):
    with pytest.raises(UserTorqueError, match="user torque"):
        api.run("default", duration=0.01, user_torque=_const(value))


def test_a_generator_is_refused_not_consumed():
    with pytest.raises(UserTorqueError, match="a generator"):
        api.run("default", duration=0.01, user_torque=lambda t, q, w: (x for x in (1.0, 0.0, 0.0)))


@pytest.mark.parametrize("value", [(0, 0, 0), [0.0, 0.0, 1e-3], np.array([0.0, 0.0, 1e-3]),
                                   (np.float32(1e-3), np.int64(0), 0.0), np.zeros(3, dtype=np.int32)],
                         ids=repr)
def test_three_real_numbers_of_any_usual_type_apply(value):
    r = api.run("default", duration=0.01, user_torque=_const(value))
    assert len(r["t"]) == 11


def test_the_users_arithmetic_error_is_named_as_the_functions():
    with pytest.raises(UserTorqueError, match="raised ZeroDivisionError"):
        api.run("default", duration=0.01, user_torque=lambda t, q, w: (1 / 0, 0, 0))


@pytest.mark.slow
def test_user_torque_is_never_called_before_the_run_nor_on_copies():
    calls = []

    def one_shot(t, q, w):  # a stateful function: a thruster that fires once, at its first call
        calls.append(t)
        return (1e-3, 0.0, 0.0) if len(calls) == 1 else (0.0, 0.0, 0.0)

    scenario = api.as_scenario("default")
    p = api.plan(scenario, 200.0, 1000, user_torque=one_shot)  # 200,000 steps: its cost is measured
    assert p.seconds > 0 and calls == []
    api.run(scenario, duration=200.0, every=1000, user_torque=one_shot)
    assert calls[0] == 0.0 and all(b >= a for a, b in zip(calls, calls[1:])), "time never goes backwards"


@pytest.mark.parametrize("integrator", ["half-quat", "rk4", "full-quat", "rkmk4"])
def test_under_elimination_user_torque_receives_the_unit_quaternion(integrator):
    norms = []

    def f(t, q, w):
        norms.append(math.sqrt(sum(x * x for x in q)))
        return (0.0, 0.0, 0.0)

    # a coarse step lets the carried |Q| drift far from 1 (elimination never corrects it)
    r = api.run("default", duration=2.0, dt=0.2, integrator=integrator, norm="elimination", rates=(3.0, 2.0, 1.0),
                dampers=(0.0, 0.0, 0.0), user_torque=f)
    assert norms and max(abs(n - 1.0) for n in norms) < 1e-12
    if integrator == "half-quat":
        assert abs(r["norm"][-1] - 1.0) > 1e-3, "the carried Q did drift: the test can tell"


def test_duration_as_text_is_a_clear_error():
    with pytest.raises(SettingsError, match="duration: expected a number of seconds, got the text '0.01'"):
        api.run("default", duration="0.01")
    with pytest.raises(SettingsError, match="duration"):
        list(api.stream(api.as_scenario("default"), "0.01"))


def test_every_as_a_numpy_integer_is_accepted():
    r = api.run("default", duration=0.01, every=np.int64(2))
    assert list(np.round(r["t"], 6)) == [0.0, 0.002, 0.004, 0.006, 0.008, 0.01]


@pytest.mark.parametrize("every", [0, -1, 1.5, 2.0, True, "2"])
def test_every_below_one_or_not_whole_is_refused_by_run_and_stream(every):
    with pytest.raises(SettingsError, match="every: must be an integer >= 1"):
        api.run("default", duration=0.01, every=every)
    with pytest.raises(SettingsError, match="every: must be an integer >= 1"):
        api.stream(api.as_scenario("default"), 0.01, every=every)


@pytest.mark.parametrize("t, message", [(math.nan, "input time: nan is not a finite number"),
                                        (-1.0, "input time: must be >= 0 s"),
                                        ("1", "input time: expected a number of seconds")])
def test_record_names_a_bad_input_time_as_the_input_time(tmp_path, t, message):
    with pytest.raises(SettingsError, match=message):
        api.record("default", tmp_path / "r.jsonl", 0.01, inputs=[(t, "rates", (1.0, 0.0, 0.0))])
