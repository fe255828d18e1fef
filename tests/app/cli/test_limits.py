"""One table of limits (sim/io/limits.py): the command line, scenario files, the settings and the engine agree.

A value one entry point accepts is never refused later by another: for every
ensemble flag of ``attitude-sim sweep`` the largest value the table allows
passes the command line and builds the engine's spec, and the next larger
one is refused by the command line itself, with one line naming the flag
(before the table, ``--rate-spread 5000`` passed the command line and then
failed inside the engine).  The same bounds hold in a scenario's
``[ensemble]`` table and in the settings.
"""

import math

import pytest

from app.cli import main
from sim.ensemble import EnsembleSpec
from sim.io.limits import LIMITS, Limit, SettingsError, as_integer
from sim.run.scenario import ScenarioError, loads
from sim.model.settings import Settings, validate

# sweep flag -> (limit key, a value just beyond its high end)
SWEEP_FLAGS = {"--bodies": ("bodies", "10000001"), "--rate-spread": ("rate_spread", "1000.5"),
               "--inertia-spread": ("inertia_spread", "50.01"), "--settle-deg": ("settle_deg", "180.5"),
               "--seed": ("seed", str(2**64))}


@pytest.mark.parametrize("flag", list(SWEEP_FLAGS))
def test_the_sweep_command_line_refuses_exactly_beyond_the_engines_limit(flag, capsys):
    key, beyond = SWEEP_FLAGS[flag]
    assert main(["sweep", "--duration", "0.05", flag, beyond, "--out", "/dev/null"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"attitude-sim: error: {flag}: "), err
    with pytest.raises(SettingsError, match=key):
        EnsembleSpec(**{key: beyond})


@pytest.mark.parametrize("flag", [f for f in SWEEP_FLAGS if f != "--bodies"])
def test_the_sweep_command_line_accepts_the_engines_largest_value(flag, capsys):
    key, _ = SWEEP_FLAGS[flag]
    high = LIMITS[key].high
    text = str(int(high)) if LIMITS[key].integer else repr(high)
    assert main(["sweep", "--duration", "0.01", "--bodies", "2", flag, text, "--out", "/dev/null"]) == 0
    assert getattr(EnsembleSpec(**{key: high}), key) == high


def test_rate_spread_5000_is_refused_by_the_command_line_with_the_engines_range(capsys):
    assert main(["sweep", "--duration", "0.05", "--rate-spread", "5000"]) == 2
    assert capsys.readouterr().err.strip() == (
        "attitude-sim: error: --rate-spread: 5000 is too large (at most 1000 rad/s)")


def test_a_scenario_and_the_command_line_share_the_bodies_limit(capsys):
    high = LIMITS["bodies"].high
    assert EnsembleSpec(bodies=high).bodies == high
    with pytest.raises(ScenarioError, match=r"bodies: must be an integer in \[1, 10,000,000\]"):
        loads(f"[ensemble]\nbodies = {high + 1}\n")
    assert main(["sweep", "--duration", "0.05", "--bodies", str(high + 1)]) == 2
    assert "--bodies: must be an integer in [1, 10,000,000]" in capsys.readouterr().err


def test_a_gains_grid_axis_has_the_same_limits_in_a_scenario_and_on_the_command_line(capsys):
    most = LIMITS["gains_grid_values"].high
    assert len(EnsembleSpec(gains_grid=(tuple(range(most)), (1.0,), (2.0,))).gains_grid[0]) == most
    with pytest.raises(SettingsError, match=r"gains_grid\[0\].*at most 1,000"):
        EnsembleSpec(gains_grid=(tuple(range(most + 1)), (1.0,), (2.0,)))
    assert main(["sweep", "--duration", "0.05", "--gains-grid", f"1..2/{most + 1},3,4"]) == 2
    assert "count" in capsys.readouterr().err
    with pytest.raises(SettingsError, match=r"gains_grid\[1\]: 2e\+06 is too large"):
        EnsembleSpec(gains_grid=((1.0,), (2e6,), (2.0,)))
    assert main(["sweep", "--duration", "0.05", "--gains-grid", "1,2e6,3"]) == 2
    assert "too large (at most 1e+06 N m)" in capsys.readouterr().err


@pytest.mark.parametrize("key", ["dt", "slerp_time", "mass"])
def test_settings_accept_the_table_range_and_refuse_beyond_it(key):
    limit = LIMITS[key]
    smallest = math.nextafter(limit.low, math.inf) if limit.low_open and limit.least is None else limit.lowest
    assert validate(key, limit.high) == limit.high and validate(key, smallest) == smallest
    with pytest.raises(SettingsError, match=f"^{key}: .* is too large"):
        validate(key, math.nextafter(limit.high, math.inf))
    with pytest.raises(SettingsError, match=f"^{key}: "):
        validate(key, math.nextafter(smallest, -math.inf))


@pytest.mark.parametrize("key", ["angles_deg", "rates", "torque", "dampers", "gains", "limits", "command_deg"])
def test_vector_settings_check_each_component_against_the_table(key):
    limit = LIMITS[key]
    assert validate(key, (limit.high, limit.high, limit.high)) == (limit.high,) * 3
    with pytest.raises(SettingsError, match=rf"{key}\[1\]: .* too large"):
        validate(key, (limit.high, limit.high * 2, 0.5))
    assert Settings(**{key: (limit.high,) * 3}) is not None


def test_a_run_flag_is_refused_by_the_settings_words(capsys):
    assert main(["run", "--duration", "0.01", "--dt", "2", "--out", "/dev/null"]) == 2
    assert capsys.readouterr().err.strip() == "attitude-sim: error: --dt 2: 2 is too large (at most 1 s)"


# ------------------------------------------------------------------ the table itself
def test_limit_words():
    lim = Limit("x", 0.0, 5.0, "m", low_open=True)
    assert lim.describe() == "above 0, at most 5 m"
    assert lim.accepts(5.0) and not lim.accepts(0.0) and not lim.accepts(5.000001) and not lim.accepts(math.nan)
    with pytest.raises(SettingsError, match=r"^x: 0 must be > 0 m$"):
        lim.check(0.0)
    with pytest.raises(SettingsError, match=r"^--x: 6 is too large \(at most 5 m\)$"):
        lim.check("6", "--x")
    with pytest.raises(SettingsError, match=r"^x: 'inf' is not a finite number$"):
        lim.check("inf")
    with pytest.raises(SettingsError, match=r"^x: expected a number, got True$"):
        lim.check(True)
    assert LIMITS["dt"].describe() == "1e-09 to 1 s"
    assert LIMITS["bodies"].describe() == "1 to 10,000,000"
    with pytest.raises(SettingsError, match="below the smallest step 1e-09 s"):
        LIMITS["dt"].check(1e-12)


@pytest.mark.parametrize("value, expected", [(3, 3), (3.0, 3), ("3", 3), ("1e3", 1000), (" 7 ", 7)])
def test_integers_from_files_and_command_lines(value, expected):
    assert as_integer("n", value, 0, 1000) == expected


@pytest.mark.parametrize("value", [True, 2.5, "2.5", "x", None, float("nan"), "inf", -1, 1001])
def test_integers_refused(value):
    with pytest.raises(SettingsError, match=r"^n: must be an integer in \[0, 1,000\], got "):
        as_integer("n", value, 0, 1000)


def test_every_limit_is_well_formed():
    for key, limit in LIMITS.items():
        assert limit.key == key and limit.low < limit.high and limit.size in (1, 3, 6)
        assert limit.accepts(limit.high) and not limit.accepts(math.nextafter(limit.high, math.inf))
        if limit.least is not None:
            assert limit.accepts(limit.least) and not limit.accepts(math.nextafter(limit.least, 0.0))
        elif limit.low_open:
            assert not limit.accepts(limit.low)
        else:
            assert limit.accepts(limit.low)


def test_sweep_help_states_the_tables_ranges(capsys):
    assert main(["sweep", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for key in ("bodies", "seed", "rate_spread", "inertia_spread", "settle_deg"):
        assert LIMITS[key].describe() in out, key


# ------------------------------------------------------------------ the flags made from the table (app/cli/flags.py)
def _flags_and_helps() -> dict:
    """Every option of every command of ``attitude-sim``: spelling -> help text (one per spelling)."""
    import argparse

    from app.cli import build_parser

    out = {}
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                for option in command._actions:
                    for spelling in option.option_strings:
                        out.setdefault(spelling, option.help or "")
    return out


def test_each_limit_has_its_flag_or_its_reason():
    from app.cli.flags import NO_FLAG, NUMERIC, PARTS, generated

    flags = _flags_and_helps()
    numeric = {n.key for n in NUMERIC.values()} | {n.key for n in generated().values()}
    for key in LIMITS:
        homes = [key in numeric, key in PARTS, key in NO_FLAG]
        assert sum(homes) == 1, f"{key}: a flag, a part of one or no flag, once: {homes}"
        if key in PARTS:
            assert PARTS[key] in flags, key
    for table in (NUMERIC, generated()):
        for flag, n in table.items():
            assert flag in flags, f"{flag} is in no command"
            # the help states the table's range, the one written in sim/io/limits.py
            assert LIMITS[n.key].describe() in flags[flag], (flag, flags[flag])


def test_a_new_setting_in_the_table_gets_its_flag_by_itself(monkeypatch, capsys):
    from app.cli import flags

    # as if --wheel-friction had never been written: the table's entry alone makes it
    monkeypatch.delitem(flags.NUMERIC, "--wheel-friction")
    assert "--wheel-friction" in flags.generated()
    assert LIMITS["wheel_friction"].describe() in _flags_and_helps()["--wheel-friction"]
    base = ["run", "--wheels", "orthogonal", "--duration", "0.01", "--out", "/dev/null"]
    assert main([*base, "--wheel-friction", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["attitude-sim: error: --wheel-friction -1: -1 must be >= 0 N m s"], err
    from app.cli.options import scenario_from_args
    from app.cli import build_parser

    args = build_parser().parse_args([*base, "--wheel-friction", "0.25"])
    assert scenario_from_args(args).settings.wheel_friction == 0.25


@pytest.mark.parametrize("command, flag, value, refusal", [
    ("run", "--dt", "2", "--dt 2: 2 is too large (at most 1 s)"),
    ("run", "--angles", "1,2,1e5", "--angles 1,2,1e5: 100000 is too large (at most 10000 deg)"),
    ("sweep", "--seed", "-1", "--seed: must be an integer in [0, 18,446,744,073,709,551,615], got '-1'"),
    ("lab", "--steps", "99", "--steps: must be an integer in [100, 100,000,000], got '99'"),
])
def test_a_flag_made_from_the_table_refuses_in_one_line(command, flag, value, refusal, capsys):
    extra = [] if command == "lab" else ["--duration", "0.01"]
    assert main([command, *extra, flag, value, "--out", "/dev/null"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"attitude-sim: error: {refusal}"], err
