"""The shared mechanisms behind issue 24's classes, tested in this process against independent references.

The real processes are in tests/project/test_hostile_cases.py; here each mechanism
is pinned on its own: the one writer (sim.io.files.Output), the one cost gate
(sim.io.limits.check_cost) and what the machine has, the gains grid computed
arithmetically (against itertools.product), the by-gains summary (against
numpy's percentile per group), the parser's negative values, duplicate
labels and recording versions, and the meshes read in other units or
inside out (against the closed form of a box).
"""

import itertools
import math
import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from app.cli import main
from app.cli.options import LineParser
from sim import api
from sim.ensemble import EnsembleSpec
from sim.ensemble.sampling import grid_gains
from sim.io.files import Output, OutputRefused, check_outputs, same_file, whole_path, write_whole
from sim.io.limits import LIMITS, RunTooLong, available_memory, check_cost, check_workers, usable_cores
from sim.run.recording import RecordingError, load_recording
from sim.run.scenario import Scenario, ScenarioError, loads
from sim.model.settings import Settings, SettingsError
from sim.model.shape import ShapeError, load
from sim.sweep.chunk import SweepResult
from sim.sweep.summary import _by_gains, summary

OLD = b"the old file\n"


# ------------------------------------------------------------------ 1. the one writer
@pytest.mark.parametrize("binary", [False, True])
def test_write_whole_moves_into_place_or_leaves_the_old_file(tmp_path, binary):
    path = tmp_path / "x.out"
    path.write_bytes(OLD)
    os.chmod(path, 0o640)
    with pytest.raises(RuntimeError):
        with write_whole(path, binary=binary) as f:
            f.write(b"half" if binary else "half")
            raise RuntimeError("the run failed half-way")
    assert path.read_bytes() == OLD and sorted(p.name for p in tmp_path.iterdir()) == ["x.out"]
    with write_whole(path, binary=binary) as f:
        f.write(b"new\n" if binary else "new\n")
    assert path.read_bytes() == b"new\n"
    assert oct(path.stat().st_mode & 0o777) == oct(0o640), "the target's permissions are kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.out"]


def test_output_writes_through_a_link_and_refuses_what_it_cannot_write(tmp_path):
    target = tmp_path / "real.csv"
    target.write_bytes(OLD)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    with Output(link, "--out") as out:
        out.write(b"a,b\n")
    assert link.is_symlink() and target.read_bytes() == b"a,b\n"
    for path, words in ((tmp_path, "is a directory"), (tmp_path / "no" / "x.csv", "No such file"),
                        ("a\0b", "NUL byte")):
        with pytest.raises(OutputRefused, match=words):
            Output(path, "--out")
    assert issubclass(OutputRefused, OSError), "a caller that reports write errors reports this one too"


@pytest.mark.subprocess
def test_output_cuts_a_failed_chunk_back_to_the_last_whole_one(tmp_path):
    path = tmp_path / "cut.csv"
    code = textwrap.dedent(f"""
        import resource
        from sim.io.files import Output
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        out = Output({str(path)!r}, "--out")
        out.write(b"x" * 599 + b"\\n")
        try:
            out.write(b"y" * 599 + b"\\n")
        except OSError as exc:
            print(exc.errno, out.keep_partial())
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.stdout.split()[0] == "27"  # EFBIG
    kept = proc.stdout.split()[1]
    assert os.path.dirname(kept) == str(tmp_path) and os.path.basename(kept).startswith("cut.csv.")
    assert open(kept, "rb").read() == b"x" * 599 + b"\n"
    assert not path.exists()


def test_whole_path_for_a_library_that_writes_by_name(tmp_path):
    path = tmp_path / "v.mp4"
    path.write_bytes(OLD)
    with pytest.raises(ValueError):
        with whole_path(path, ".mp4") as partial:
            assert os.path.basename(partial).startswith("v.mp4.") and partial.endswith(".part.mp4")
            open(partial, "wb").write(b"half a video")
            raise ValueError("the encoder failed")
    assert path.read_bytes() == OLD and not os.path.exists(partial)
    with whole_path(path, ".mp4") as partial:
        open(partial, "wb").write(b"video")
    assert path.read_bytes() == b"video"


def test_an_output_that_is_an_input_is_refused(tmp_path):
    a = tmp_path / "a.toml"
    a.write_text("x")
    (tmp_path / "l.toml").symlink_to(a)
    assert same_file(a, tmp_path / "l.toml") and not same_file(a, tmp_path / "none")
    with pytest.raises(OutputRefused, match=r"--out .*l.toml: is the run's input \(--scenario\)"):
        check_outputs({"--out": str(tmp_path / "l.toml")}, {"--scenario": str(a)})
    with pytest.raises(OutputRefused, match="the same file"):
        check_outputs({"--out": "x.csv", "--trajectories": "./x.csv"}, {})
    check_outputs({"--out": "-", "--trajectories": None}, {"--scenario": str(a)})


def test_run_moves_its_rows_into_place_only_when_they_are_whole(tmp_path, capsys):
    out = tmp_path / "keep.csv"
    out.write_bytes(OLD)
    assert main(["run", "--body", "t_handle", "--mass", "1e-5", "--out", str(out)]) == 2
    assert out.read_bytes() == OLD
    assert main(["run", "--duration", "0.01", "--out", str(out)]) == 0
    assert out.read_text().count("\n") == 12 and not list(tmp_path.glob("keep.csv.*part"))


# ------------------------------------------------------------------ 2. costs
def test_the_machine_is_read_and_the_gate_refuses_with_the_figures():
    memory = available_memory()
    assert 64 << 20 < memory < 1 << 50
    assert 1 <= usable_cores() <= (os.cpu_count() or 1)
    with pytest.raises(RunTooLong, match=r"the thing would need .* in memory, more than this machine can give"):
        check_cost("the thing", memory=10 * memory)
    with pytest.raises(RunTooLong, match=r"would need"):
        check_cost("the thing", memory=10 * memory, force=True)  # force never buys memory
    with pytest.raises(RunTooLong, match=r"would take about 2 h here \(at most 1 h\); do less"):
        check_cost("the thing", seconds=7200, hint="do less")
    check_cost("the thing", seconds=7200, force=True, memory=1 << 20)


def test_workers_are_bounded_by_the_cores():
    cores = usable_cores()
    assert check_workers(cores) == cores and check_workers(0) == 0
    with pytest.raises(SettingsError, match=rf"on a machine with {cores} core"):
        check_workers(cores + 1)
    with pytest.raises(SettingsError, match="--workers"):
        check_workers(LIMITS["workers"].high + 1, "--workers")


def test_api_refuses_memory_it_cannot_have_even_forced():
    with pytest.raises(api.RunTooLong, match="in memory, more than this machine can give"):
        api.run("default", duration=1e7, every=1, force=True)


def test_the_ith_gain_combination_is_computed_not_built():
    grid = ((1.0, 2.0, 3.0), (4.0, 5.0), (6.0, 7.0, 8.0, 9.0))
    combos = np.array(list(itertools.product(*grid)))
    index = np.arange(0, 97)
    np.testing.assert_array_equal(grid_gains(grid, index), combos[index % len(combos)].T)
    huge = tuple(tuple(float(v) for v in range(1, 1001)) for _ in range(3))  # 10^9 combinations
    index = np.array([0, 1, 999, 1000, 10 ** 6 - 1, 10 ** 9 - 1, 10 ** 9, 9_999_999])
    gains = grid_gains(huge, index)
    expected = [((i % 10 ** 9) // 10 ** 6 + 1, (i % 10 ** 6) // 1000 + 1, i % 1000 + 1) for i in index.tolist()]
    np.testing.assert_array_equal(gains.T, np.array(expected, dtype=float))


def test_the_by_gains_summary_equals_numpys_percentile_per_combination():
    rng = np.random.default_rng(5)
    grid = ((1.0, 2.0, 3.0), (4.0, 5.0), (6.0, 7.0))
    n = 400
    index = rng.permutation(n)
    settling = rng.uniform(0, 5, n)
    settling[rng.random(n) < 0.2] = np.inf        # never settled
    rows = _by_gains(grid, index, settling)
    combos = list(itertools.product(*grid))
    assert [r[0] for r in rows] == combos, "every combination flown, in grid order"
    for combo_number, (_, count, settled, median, top) in enumerate(rows):
        t = settling[index % len(combos) == combo_number]
        assert count == len(t) and settled == np.isfinite(t).sum()
        assert median == np.percentile(t, 50, method="nearest") and top == t.max()


def test_summary_of_a_grid_of_a_billion_combinations_is_quick():
    huge = tuple(tuple(float(v) for v in range(1, 1001)) for _ in range(3))
    spec = EnsembleSpec(bodies=5, gains_grid=huge)
    c = {"index": np.arange(5), "faulted": np.zeros(5, bool), "settling_time": np.arange(5.0),
         "final_error_deg": np.zeros(5), "travelled_deg": np.zeros(5)}
    s = summary(SweepResult(c), spec)
    assert [row[0] for row in s["by_gains"]] == [(1.0, 1.0, float(k)) for k in range(1, 6)]


# ------------------------------------------------------------------ 4. no traceback
def test_deep_nesting_and_missing_vertices_are_one_line_errors(tmp_path):
    with pytest.raises(ScenarioError, match="nested too deeply"):
        loads("[settings]\nangles_deg = " + "[" * 5000 + "]" * 5000 + "\n")
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n")
    with pytest.raises(ShapeError, match="a face names a vertex the file does not have"):
        load(str(bad))


def test_an_inertia_from_a_mesh_is_range_checked_like_an_explicit_one():
    with pytest.raises(SettingsError, match=r"the inertia from the mesh at 1e-05 kg: .*principal moments"):
        Settings(body="t_handle", mass=1e-5)


# ------------------------------------------------------------------ 5. silently wrong output
def test_duplicate_comparison_labels_and_too_many_are_refused_everywhere():
    with pytest.raises(ScenarioError, match=r"line 5: \[\[compare\]\] #2: label 'a' is taken by #1"):
        loads('[settings]\n[[compare]]\nlabel = "a"\nintegrator = "rk4"\n[[compare]]\nlabel = "a"\n')
    with pytest.raises(SettingsError, match="two comparison bodies are labelled 'x'"):
        Scenario(name="api", compare=(("x", {}), ("x", {"integrator": "rk4"})))
    with pytest.raises(SettingsError, match="65 comparison bodies, more than 64"):
        Scenario(name="api", compare=tuple((str(i), {}) for i in range(65)))


@pytest.mark.parametrize("version, words", [(2, "newer than this attitude-sim reads"), ("1", "not a format version"),
                                            (None, "not a format version"), (0, "not a format version"),
                                            (True, "not a format version")])
def test_a_recording_version_is_checked(tmp_path, version, words):
    import json

    head = {"format": "attitude-sim recording", "version": version, "duration": 1.0, "settings": {}}
    if version is None:
        del head["version"]
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(head) + '\n{"end": 1}\n')
    with pytest.raises(RecordingError, match=words):
        load_recording(path)


def test_a_recording_without_its_end_mark_warns(tmp_path):
    import json

    head = {"format": "attitude-sim recording", "version": 1, "duration": 1.0, "settings": {}}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(head) + '\n{"alive": 7}\n{"step": 8, "ke')
    said = []
    assert load_recording(path, warn=said.append)[2] == 7
    assert len(said) == 1 and "no end mark" in said[0] and "step 7" in said[0]
    path.write_text(json.dumps(head) + '\n{"end": 9}\n')
    said.clear()
    load_recording(path, warn=said.append)
    assert said == []


# ------------------------------------------------------------------ 6. friction
@pytest.mark.parametrize("value", ["-90,0,0", "-1e-3,2,3", "-.5,0,0", "-inf,0,0", "-nan,0,0", "-1:2,3,4"])
def test_a_value_that_starts_with_a_minus_is_a_value(value):
    parser = LineParser(prog="t")
    parser.add_argument("--angles")
    parser.add_argument("--every", type=int)
    assert parser.parse_args(["--angles", value]).angles == value
    assert parser.parse_args(["--every", "-3"]).every == -3


def test_numpy_warnings_never_reach_stderr(capsys, tmp_path):
    assert main(["sweep", "--rate-spread", "1000", "--inertia-spread", "50", "--bodies", "50", "--duration", "1",
                 "--dt", "0.1", "--norm", "none", "--workers", "0", "--out", str(tmp_path / "s.csv")]) == 0
    assert "RuntimeWarning" not in capsys.readouterr().err


# ------------------------------------------------------------------ meshes as people export them (issue 23)
def _box(path, scale=1.0, inside_out=False):
    v = [(x * scale, y * scale, z * scale) for x in (-0.5, 0.5) for y in (-0.25, 0.25) for z in (-0.1, 0.1)]
    f = [(1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2), (3, 4, 8), (3, 8, 7), (1, 3, 7),
         (1, 7, 5), (2, 6, 8), (2, 8, 4)]
    f = [face[::-1] for face in f] if inside_out else f
    path.write_text("".join(f"v {a!r} {b!r} {c!r}\n" for a, b, c in v) + "".join("f %d %d %d\n" % t for t in f))
    return str(path)


@pytest.mark.parametrize("units, scale", [("m", 1.0), ("cm", 100.0), ("mm", 1000.0), ("in", 1 / 0.0254)])
@pytest.mark.parametrize("inside_out", [False, True])
def test_a_box_in_any_unit_and_either_winding_has_the_closed_form_inertia(tmp_path, units, scale, inside_out):
    path = _box(tmp_path / f"box_{units}.obj", scale, inside_out)
    props = Settings(body=path, mesh_units=units, mass=3.0).mass_properties
    a, b, c = 1.0, 0.5, 0.2   # a box of 3 kg: J = m (b^2 + c^2) / 12, ...
    expected = (3.0 * (b * b + c * c) / 12, 3.0 * (a * a + c * c) / 12, 3.0 * (a * a + b * b) / 12, 0.0, 0.0, 0.0)
    np.testing.assert_allclose(props.inertia, expected, rtol=1e-9, atol=1e-15)
    assert (props.note is not None) == inside_out
    if inside_out:
        assert "inside out" in props.note and "turned outward" in props.note
        shape = load(path, units)
        normals = np.cross(*(shape.vertices[shape.faces[:, k]] - shape.vertices[shape.faces[:, 0]] for k in (1, 2)))
        centres = shape.vertices[shape.faces].mean(axis=1) - shape.centre
        assert np.all(np.einsum("ij,ij->i", normals, centres) > 0), "the drawn faces face outward too"


def test_mesh_units_is_a_scenario_key_and_is_saved(tmp_path):
    path = _box(tmp_path / "mm.obj", 1000.0)
    scenario = loads(f'[settings]\nbody = "{path}"\nmesh_units = "mm"\n')
    assert scenario.settings.mesh_units == "mm"
    assert math.isclose(scenario.settings.mass_properties.inertia[2], (1 + 0.25) / 12)
    api.save_scenario(scenario, tmp_path / "s.toml")
    assert api.load_scenario(tmp_path / "s.toml").settings == scenario.settings
    with pytest.raises(ScenarioError, match="mesh_units: unknown value 'km'"):
        loads(f'[settings]\nbody = "{path}"\nmesh_units = "km"\n')


def test_resource_limits_are_untouched_by_the_tests():
    assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == resource.RLIM_INFINITY


def test_stop_signals_only_note_a_signal_until_asked_and_restore_the_handlers():
    import signal

    from app.cli.output import Stopped, stop_signals

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with stop_signals() as stop:
        stop()  # nothing yet
        os.kill(os.getpid(), signal.SIGTERM)  # delivered here, in the middle of "a Qt callback": nothing raised
        os.kill(os.getpid(), signal.SIGINT)   # the first one counts
        with pytest.raises(Stopped, match=r"terminated \(SIGTERM\)") as info:
            stop()
    assert info.value.code == 143
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_the_labs_files_move_all_or_none(tmp_path):
    from app.cli.lab import _move_all

    tmp, out = tmp_path / "tmp", tmp_path / "out"
    tmp.mkdir()
    out.mkdir()
    for name in ("a.png", "b.png", "LAB.md"):
        (tmp / name).write_text("new " + name)
    (out / "a.png").write_text("old a")
    (out / "LAB.md").mkdir()  # in the way only at the end: a.png and b.png were moved first
    with pytest.raises(IsADirectoryError):
        _move_all(str(tmp), str(out), ("a.png", "b.png", "LAB.md"))
    assert (out / "a.png").read_text() == "old a" and not (out / "b.png").exists() and (out / "LAB.md").is_dir()
    (out / "LAB.md").rmdir()
    for name in ("a.png", "b.png", "LAB.md"):
        (tmp / name).write_text("new " + name)
    _move_all(str(tmp), str(out), ("a.png", "b.png", "LAB.md"))
    assert [(out / n).read_text() for n in ("a.png", "b.png", "LAB.md")] == ["new a.png", "new b.png", "new LAB.md"]
