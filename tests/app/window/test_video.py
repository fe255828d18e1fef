"""Videos (issue 23): ``attitude-sim video``, the encoder, and File > Record video in the window.

Every video written is decoded again with imageio (its ffmpeg plugin for
MP4, Pillow for GIF): the frame count is duration x fps, the frame size is
the one asked for, consecutive frames differ while the body moves, and the
same command twice gives the same frames.  Failures are forced with a fake
ffmpeg (imageio-ffmpeg runs the program named by ``IMAGEIO_FFMPEG_EXE``):
one that fails half-way (a full disk), one that reads slowly (an encoder
that falls behind).
"""

import contextlib
import io
import os
import subprocess
import sys
import textwrap
import time

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest

from app.cli import main
from app.encoder import VideoEncoder
from app.ffmpeg import EncoderError, check_output, parse_size
from app.worker import SimulationWorker
from sim.io.limits import SettingsError
from sim.run.runner import Runner
from sim.run.scenario import load

CLI = [sys.executable, "-m", "app.cli"]
REAL_FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


def _frames(path) -> np.ndarray:
    """Every frame of a video file as ``(n, height, width, 3)`` uint8, decoded by imageio."""
    frames = iio.imread(path)
    return frames[..., :3] if frames.shape[-1] == 4 else frames


def _synthetic(n, width=96, height=64, bottom_up=False):
    """``n`` RGBA frames: a dark background and an orange square moving right by 2 pixels a frame."""
    for k in range(n):
        frame = np.zeros((height, width, 4), np.uint8)
        frame[..., :3] = (40, 44, 56)
        frame[..., 3] = 255
        frame[8:24, 4 + 2 * k:20 + 2 * k, :3] = (255, 128, 0)
        yield frame[::-1].copy() if bottom_up else frame


def _square_left(picture) -> int:
    """Column of the orange square's left edge in an RGB picture (rows 8-23)."""
    orange = (picture[..., 0] > 200) & (picture[..., 1] > 90) & (picture[..., 1] < 170) & (picture[..., 2] < 60)
    return int(np.flatnonzero(orange[16])[0])


@pytest.fixture
def fake_ffmpeg(tmp_path, monkeypatch):
    """``fake_ffmpeg("fail" | "slow", delay=...)``: imageio-ffmpeg runs a stand-in for ffmpeg from now on.

    As the encoder (frames on its standard input), ``fail`` reads a little
    of the frames, writes a few bytes to its output and exits 1 saying the
    disk is full; ``slow`` hands each MiB of frames to the real ffmpeg
    after ``delay`` seconds (an encoder that falls behind).  Any other use
    (decoding, the GIF's palette passes) runs the real ffmpeg.
    """
    def install(mode, delay=0.05):
        script = tmp_path / f"ffmpeg_{mode}.py"
        script.write_text(textwrap.dedent(f"""\
            #!{sys.executable}
            import os, subprocess, sys, time
            if "pipe:0" not in sys.argv:  # not the encoder (imageio decoding, the GIF's palette): the real one
                os.execv({REAL_FFMPEG!r}, [{REAL_FFMPEG!r}, *sys.argv[1:]])
            if {mode!r} == "fail":
                sys.stdin.buffer.read(100_000)
                with open(sys.argv[-1], "wb") as out:
                    out.write(b"half a video")
                print("Error writing trailer: No space left on device", file=sys.stderr)
                sys.exit(1)
            proc = subprocess.Popen([{REAL_FFMPEG!r}, *sys.argv[1:]], stdin=subprocess.PIPE)
            while True:
                chunk = sys.stdin.buffer.read(1 << 20)
                if not chunk:
                    break
                time.sleep({delay})
                proc.stdin.write(chunk)
            proc.stdin.close()
            sys.exit(proc.wait())
            """))
        script.chmod(0o755)
        monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(script))
        return script
    return install


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err.strip()


# ------------------------------------------------------------------ the encoder (no screen)
@pytest.mark.parametrize("suffix", ["mp4", "gif"])
def test_encoded_frames_decode_to_what_was_given(tmp_path, suffix):
    path = tmp_path / f"square.{suffix}"
    with VideoEncoder(path, (96, 64), 30, bottom_up=True) as encoder:
        for frame in _synthetic(45, bottom_up=True):  # given bottom-up, as OpenGL reads them
            assert encoder.put(frame)
        result = encoder.close()
    assert (result.frames, result.dropped, result.seconds) == (45, 0, 1.5)
    assert result.bytes == path.stat().st_size > 0
    frames = _frames(path)
    assert frames.shape == (45, 64, 96, 3)
    # the square is where it was drawn, upright, frame after frame (lossy codecs: within a pixel)
    lefts = [_square_left(frame) for frame in frames]
    assert np.abs(np.array(lefts) - (4 + 2 * np.arange(45))).max() <= 1
    background = frames[0, 50, 50].astype(int)
    assert np.abs(background - (40, 44, 56)).max() <= 6
    assert not any(p.name.endswith((".part", ".mkv", ".png")) for p in tmp_path.iterdir())


def test_an_mp4_is_h264_yuv420p_that_browsers_play(tmp_path):
    path = tmp_path / "v.mp4"
    with VideoEncoder(path, (96, 64), 60) as encoder:
        for frame in _synthetic(12):
            encoder.put(frame)
        encoder.close()
    probe = subprocess.run([REAL_FFMPEG, "-hide_banner", "-i", str(path)], capture_output=True, text=True)
    stream = next(line for line in probe.stderr.splitlines() if "Video:" in line)
    assert "h264" in stream and "yuv420p" in stream and "96x64" in stream and "60 fps" in stream
    head = path.read_bytes()[:64 * 1024]
    assert head.find(b"moov") < head.find(b"mdat") or b"mdat" not in head  # +faststart: the index first


def test_frames_of_another_size_are_scaled_to_the_video(tmp_path):
    path = tmp_path / "half.mp4"
    with VideoEncoder(path, (48, 32), 30, frame_size=(96, 64)) as encoder:
        for frame in _synthetic(3):
            encoder.put(frame)
        encoder.close()
    assert _frames(path).shape == (3, 32, 48, 3)


@pytest.mark.parametrize("path, size, fps, message", [
    ("v.avi", (64, 64), 30, "a video is written as .mp4 (H.264) or .gif"),
    ("v.mp4", (65, 64), 30, "an MP4 (H.264, yuv420p) needs an even width and height, e.g. 66x64"),
    ("v.gif", (65, 64), 60, "a GIF takes 30 frames per second"),
    ("nowhere/v.mp4", (64, 64), 30, "no such folder"),
    (".", (64, 64), 30, "a video is written as .mp4"),
])
def test_bad_outputs_are_refused_before_any_work(tmp_path, path, size, fps, message):
    with pytest.raises(EncoderError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        check_output(tmp_path / path, size, fps)
    assert list(tmp_path.iterdir()) == []


def test_a_directory_is_no_video_file(tmp_path):
    (tmp_path / "d.mp4").mkdir()
    with pytest.raises(EncoderError, match=r"d\.mp4: is a directory, not a video file"):
        check_output(tmp_path / "d.mp4", (64, 64), 30)


@pytest.mark.parametrize("text, expected", [("1280x720", (1280, 720)), (" 320 X 180 ", (320, 180))])
def test_sizes(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text, message", [
    ("1280", "expected WIDTHxHEIGHT"), ("axb", "width: must be an integer"),
    ("8x8", r"width: must be an integer in \[16, 3,840\]"), ("1280x5000", r"height: must be an integer in \[16, 2,160\]")])
def test_bad_sizes(text, message):
    with pytest.raises(SettingsError, match=message):
        parse_size(text)


@pytest.mark.parametrize("suffix", ["mp4", "gif"])
def test_an_encoder_that_fails_leaves_no_partial_file_and_the_old_file_intact(tmp_path, fake_ffmpeg, suffix):
    path = tmp_path / f"v.{suffix}"
    path.write_bytes(b"the old video")
    fake_ffmpeg("fail")
    encoder = VideoEncoder(path, (96, 64), 30)
    with pytest.raises(EncoderError, match=rf"cannot write {path}: the encoder .*No space left on device"):
        for frame in _synthetic(40):
            encoder.put(frame)
        encoder.close()
    encoder.abort()
    assert path.read_bytes() == b"the old video"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ffmpeg_fail.py", f"v.{suffix}"]


def test_an_interrupted_encoding_writes_nothing(tmp_path):
    path = tmp_path / "v.mp4"
    path.write_bytes(b"the old video")
    with pytest.raises(KeyboardInterrupt), VideoEncoder(path, (96, 64), 30) as encoder:
        for frame in _synthetic(5):
            encoder.put(frame)
        raise KeyboardInterrupt
    assert path.read_bytes() == b"the old video" and [p.name for p in tmp_path.iterdir()] == ["v.mp4"]


def test_a_live_encoder_drops_frames_when_behind_and_keeps_the_timeline(tmp_path, fake_ffmpeg):
    fake_ffmpeg("slow", delay=0.05)  # 0.05 s for each MiB (10 frames): the encoder falls behind
    path = tmp_path / "live.mp4"
    encoder = VideoEncoder(path, (416, 64), 30, drop=True)
    given = [encoder.put(frame, slot=k) for k, frame in enumerate(_synthetic(200, width=416))]
    assert given.count(False) == encoder.dropped > 0  # put never waited: dropped instead
    result = encoder.close()
    assert result.dropped == given.count(False)
    assert result.frames == 200 and result.repeated >= result.dropped  # every slot is in the video
    frames = _frames(path)
    assert len(frames) == 200
    lefts = np.array([_square_left(frame) for frame in frames])
    assert np.all(np.diff(lefts) >= 0)  # a dropped frame shows the one before it, never a later one


def test_live_slots_that_were_skipped_show_the_frame_before(tmp_path):
    path = tmp_path / "gaps.mp4"
    frames = list(_synthetic(6))
    with VideoEncoder(path, (96, 64), 30, drop=True) as encoder:
        for slot, frame in zip((0, 1, 4, 5), frames):  # slots 2 and 3: no picture was taken
            encoder.put(frame, slot)
        result = encoder.close()
    assert (result.frames, result.repeated) == (6, 2)
    lefts = [_square_left(frame) for frame in _frames(path)]
    assert np.abs(np.array(lefts) - [4, 6, 6, 6, 8, 10]).max() <= 1


# ------------------------------------------------------------------ the unpaced worker
def test_an_unpaced_worker_steps_to_each_frame_time_in_the_callers_thread():
    worker = SimulationWorker(Runner(load("gimbal_lock")), paced=False)
    worker.start()
    assert not worker.thread.is_alive()
    times = []
    for k in range(1, 31):
        worker.advance_to(k / 30)
        times.append(worker.drain()[-1].last.t)
    # dt = 1 ms: frame k shows the first step at or after k/30 s
    assert np.array_equal(np.round(np.array(times) * 1000), np.ceil(np.arange(1, 31) / 30 * 1000 - 1e-6))
    assert worker.steps_taken == 1000
    worker.submit("dt", 0.004)
    worker.advance_to(1.1)  # the new step is followed: 25 steps of 4 ms
    assert worker.steps_taken == 1025 and abs(worker.drain()[-1].last.t - 1.1) < 1e-9
    assert worker.stop()


@pytest.fixture
def rendered(monkeypatch):
    """``attitude-sim video``'s renderer with a stand-in window whose unpaced worker is the real one, without
    OpenGL: ``rendered.shown`` is the simulated time each frame drawn showed, ``rendered.put`` the frames the
    encoder was given."""
    from types import SimpleNamespace

    from app.window import render

    shown, put = [], []

    def fake_open(scenario, what, size):
        worker = SimulationWorker(Runner(scenario), paced=False)
        worker.start()

        def show_frame(view_only):
            shown.append(worker.drain()[-1].last.t)

        window = SimpleNamespace(flight=SimpleNamespace(worker=worker), show_frame=show_frame)
        grab = SimpleNamespace(frame_size=size, pixels="rgba", bottom_up=False, take=lambda: len(shown))
        return window, grab

    class FakeEncoder:
        write_seconds = 0.0

        def __init__(self, out, size, fps, **_):
            self.out, self.size, self.fps = out, size, fps

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def put(self, picture):
            put.append(picture)

        def close(self, stop=None):  # the real encoder is asked to stop between its passes
            return SimpleNamespace(path=str(self.out), frames=len(put), seconds=len(put) / self.fps, bytes=0)

    monkeypatch.setattr(render, "_open", fake_open)
    monkeypatch.setattr(render, "_close", lambda window: window.flight.worker.stop())
    monkeypatch.setattr(render, "VideoEncoder", FakeEncoder)
    return SimpleNamespace(shown=shown, put=put)


def test_video_speed_sets_each_frames_simulated_time_without_gl(tmp_path, capsys, rendered):
    # Issue 30, bug 4 (--speed ignored: frame k drawn at k/fps), caught without OpenGL: each frame drawn
    # records the simulated time it shows: the first step (dt = 1 ms) at or after k x speed / fps
    # (docs/CLI.md, video).
    shown, put = rendered.shown, rendered.put
    for speed, fps in ((2, 30), (1, 30), (0.5, 60)):
        shown.clear()
        put.clear()
        assert main(["video", "--scenario", "gimbal_lock", "--duration", "1", "--fps", str(fps), "--speed",
                     str(speed), "--out", str(tmp_path / "v.mp4")]) == 0
        frames = round(fps / speed)    # 1 s of simulated time, speed simulated s per video s
        assert f"wrote {tmp_path / 'v.mp4'}: {frames} frames" in capsys.readouterr().err
        assert put == list(range(1, frames + 1))
        wanted = np.arange(frames) * speed / fps
        assert np.array_equal(np.round(np.array(shown) * 1000), np.ceil(wanted * 1000 - 1e-6))


@pytest.mark.parametrize("name", ["sun_pointing", "detumble"])
def test_an_orbit_scenarios_video_with_its_defaults_is_the_whole_run_at_its_own_speed(tmp_path, capsys,
                                                                                       rendered, name):
    # Issue 43, item 6: "video --scenario sun_pointing --out s.mp4" exited 2 (4,800 s of simulated time
    # over a cap of 3,600 s), and --speed defaulted to 1, not the scenario's own speed
    scenario = load(name)
    assert main(["video", "--scenario", name, "--out", str(tmp_path / "v.mp4")]) == 0
    frames = round(scenario.duration * 30 / scenario.speed)    # sun_pointing: 4,800 s at 100x, 48 s of video
    assert f"wrote {tmp_path / 'v.mp4'}: {frames} frames, {frames / 30:g} s at 30 fps" in capsys.readouterr().err
    shown = np.array(rendered.shown)
    assert len(shown) == frames and shown[0] == 0.0
    # frame k at the first step at or after k x speed / fps: the last within one frame of the scenario's end
    wanted = np.arange(frames) * scenario.speed / 30
    dt = scenario.settings.dt
    assert np.all(shown >= wanted - 1e-9) and np.all(shown < wanted + dt + 1e-9)
    assert scenario.duration - scenario.speed / 30 - 1e-9 <= shown[-1] < scenario.duration


def test_queued_inputs_take_effect_when_no_step_is_due():
    worker = SimulationWorker(Runner(load("default")), paced=False)
    worker.submit("torque", (1.0, 2.0, 3.0))
    worker.advance_to(0.0)
    assert worker.steps_taken == 0 and worker.settings.torque == (1.0, 2.0, 3.0)


# ------------------------------------------------------------------ the command line
@pytest.mark.parametrize("argv, message", [
    (["--size", "1279x720"], "--size 1279x720: an MP4 (H.264, yuv420p) needs an even width and height, "
                             "e.g. 1280x720"),
    (["--size", "10x10"], "--size 10x10: width: must be an integer in [16, 3,840], got '10'"),
    (["--size", "big"], "--size big: expected WIDTHxHEIGHT in pixels, e.g. 1280x720, got 'big'"),
    (["--out", "{tmp}/v.avi"], "--out {tmp}/v.avi: a video is written as .mp4 (H.264) or .gif, from the "
                               "file's suffix (got '.avi')"),
    (["--out", "{tmp}/no/v.mp4"], "--out {tmp}/no/v.mp4: no such folder {tmp}/no"),
    (["--out", "{tmp}"], "--out {tmp}: a video is written as .mp4"),
    (["--out", "{tmp}/v.gif", "--fps", "60"], "--fps 60: a GIF takes 30 frames per second"),
    (["--fps", "25"], "argument --fps: invalid choice: 25"),
    (["--speed", "5000"], "--speed: 5000 is too large (at most 1000 x)"),
    (["--duration", "4000"], "--duration 4000 at --speed 1: a video of 4000 s (120,000 frames at 30 fps) is longer "
                             "than the longest video, 3600 s; give a higher --speed or a shorter --duration"),
    (["--what", "plots"], "argument --what: invalid choice: 'plots'"),
    (["--bodies", "0"], "--bodies: must be an integer in [1, 10,000,000], got '0'"),
    (["--scenario", "nonsense"], "nonsense"),
])
def test_bad_video_flags_give_one_line_and_exit_2(tmp_path, capsys, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "v.mp4")]
    code = main(["video", "--duration", "1", *argv])
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and line.startswith("attitude-sim: error: ")
    assert message.replace("{tmp}", str(tmp_path)) in line
    assert [p for p in tmp_path.iterdir() if p.is_file()] == []


def test_a_video_too_long_asks_for_a_speed_or_a_duration(tmp_path, capsys):
    # the video's own length is limited (its frames), not the simulated time it shows
    scenario = tmp_path / "long.toml"
    scenario.write_text("[scenario]\nduration = 7200.0\n")
    assert main(["video", "--scenario", str(scenario), "--out", str(tmp_path / "v.mp4")]) == 2
    assert "the scenario's duration at --speed 1: a video of 7200 s (216,000 frames at 30 fps) is longer than the " \
           "longest video, 3600 s; give a higher --speed or a shorter --duration" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("argv, message", [
    (["--duration", "3600.0001"], "--duration 3600.0001 at --speed 1: a video of 3600.0001 s (108,000 frames at "
                                  "30 fps) is longer than the longest video, 3600 s"),
    # two hours at 2x is an hour of video: within the length, refused for its frames' wall time
    (["--duration", "7200", "--speed", "2", "--fps", "60"], "a video of 216,000 frames at 1280x720"),
    (["--dt", "1e-9", "--duration", "3600"], "3,600,000,000,000 steps would take about"),
    (["--size", "3840x2160", "--duration", "3600"], "a video of 108,000 frames at 3840x2160"),
])
def test_a_video_too_long_or_too_costly_is_refused_before_any_work(tmp_path, capsys, argv, message):
    out = tmp_path / "v.mp4"
    assert main(["video", "--scenario", "gimbal_lock", *argv, "--out", str(out)]) == 2
    assert message in _one_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.subprocess
def test_an_unwritable_folder_is_refused_and_nothing_is_written(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    argv = ["video", "--duration", "1", "--out", str(folder / "v.mp4")]
    if os.geteuid() == 0:  # as root, without the power over permissions (as tests/app/cli/test_hostile.py does)
        proc = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search", *CLI, *argv],
                              capture_output=True, text=True, timeout=60)
        code, err = proc.returncode, proc.stderr
    else:
        err_io = io.StringIO()
        with contextlib.redirect_stderr(err_io):
            code = main(argv)
        err = err_io.getvalue()
    assert code == 2
    assert _one_line(err) == f"attitude-sim: error: --out {folder}/v.mp4: cannot write (Permission denied)"
    assert list(folder.iterdir()) == []


@pytest.mark.subprocess
def test_without_a_display_one_line_and_exit_2(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    proc = subprocess.run([*CLI, "video", "--duration", "0.1", "--out", str(tmp_path / "v.mp4")],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2
    line = _one_line(proc.stderr)
    assert line.startswith("attitude-sim: error: QT_QPA_PLATFORM=offscreen has no OpenGL for the 3D view; "
                           "render on a virtual screen: xvfb-run -a attitude-sim video")
    assert list(tmp_path.iterdir()) == []


def _video(tmp_path, capsys, name, *argv):
    path = tmp_path / name
    assert main(["video", *argv, "--out", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"wrote {path}: " in err and "Traceback" not in err
    return _frames(path)


def _differ(a, b) -> float:
    return float(np.abs(a.astype(int) - b.astype(int)).mean())


@pytest.mark.gl
@pytest.mark.parametrize("name, argv, shape", [
    # the view as MP4: one frame per 1/30 s of simulated time
    ("v.mp4", ("--duration", "1", "--what", "view", "--size", "160x90"), (30, 90, 160, 3)),
    # the window as GIF, below its minimum size: drawn larger and scaled down
    ("w.gif", ("--duration", "0.5", "--size", "320x200"), (15, 200, 320, 3)),
])
def test_frames_per_frame_time_moving_and_the_same_twice(qtbot, tmp_path, capsys, name, argv, shape):
    # the phone spins at 4 rad/s from t = 0: every frame differs from the one before
    first = _video(tmp_path, capsys, name, "--scenario", "tennis_racket", *argv)
    assert first.shape == shape
    assert min(_differ(a, b) for a, b in zip(first[:-1], first[1:])) > 0.01
    second = _video(tmp_path, capsys, "again-" + name, "--scenario", "tennis_racket", *argv)
    assert np.array_equal(first, second)


@pytest.mark.gl
def test_the_window_at_the_default_size_and_60_fps(qtbot, tmp_path, capsys):
    frames = _video(tmp_path, capsys, "w.mp4", "--scenario", "gimbal_lock", "--duration", "0.25", "--fps", "60")
    assert frames.shape == (15, 720, 1280, 3)


@pytest.mark.gl
def test_speed_and_the_ensemble_flags(qtbot, tmp_path, capsys):
    frames = _video(tmp_path, capsys, "e.mp4", "--scenario", "ensemble_long_way", "--bodies", "200", "--seed", "3",
                    "--duration", "2", "--speed", "4", "--size", "320x180")
    assert frames.shape == (15, 180, 320, 3)  # 2 s of simulated time at 4x: 0.5 s of video


@pytest.mark.gl
def test_a_failing_encoder_exits_1_and_leaves_the_old_file(qtbot, tmp_path, capsys, fake_ffmpeg):
    path = tmp_path / "v.mp4"
    path.write_bytes(b"the old video")
    fake_ffmpeg("fail")
    code = main(["video", "--duration", "1", "--what", "view", "--size", "320x180", "--out", str(path)])
    line = _one_line(capsys.readouterr().err)
    assert code == 1 and "cannot write" in line and "No space left on device" in line
    assert path.read_bytes() == b"the old video"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ffmpeg_fail.py", "v.mp4"]


# ------------------------------------------------------------------ File > Record video
def _run_for(qtbot, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        qtbot.wait(20)


@pytest.mark.gl
def test_record_the_view_live(main_window, qtbot, tmp_path):
    from PySide6.QtCore import Qt

    win = main_window("tennis_racket")
    path = tmp_path / "live.mp4"
    before = time.perf_counter()
    assert win.video.start(path, "view", 30)
    recording = win.video.recording
    assert win.video.mark.isVisible() and win.video.stop_button.isVisible()
    assert "REC video" in win.video.mark.text()
    _run_for(qtbot, 1.5)
    qtbot.mouseClick(win.video.stop_button, Qt.MouseButton.LeftButton)
    wall = time.perf_counter() - before  # start to stop, as the test saw it (more than 1.5 s under load)
    assert win.video.recording is None and not win.video.mark.isVisible()
    assert recording.wait(30)
    qtbot.waitUntil(lambda: "Saved the video" in win.statusBar().currentMessage())
    frames = _frames(path)
    width, height = recording.size
    assert frames.shape[1:] == (height, width, 3) and width % 2 == 0 and height % 2 == 0
    # one picture a wall-clock slot from start to stop: never more slots than the wall time holds, and at most
    # 0.2 s of them lost at the end (the last tick before the click, on a loaded machine)
    assert wall * 30 - 6 <= len(frames) <= wall * 30 + 1
    assert max(_differ(a, b) for a, b in zip(frames[:-1], frames[1:])) > 0.05


@pytest.mark.gl
def test_a_slow_encoder_drops_frames_never_steps(main_window, qtbot, tmp_path, fake_ffmpeg):
    fake_ffmpeg("slow", delay=0.02)  # a picture of the window is about 5 MiB: 10 a second at most
    win = main_window("tennis_racket")
    qtbot.waitUntil(lambda: len(win.history) > 0)
    steps_before = win.worker.steps_taken
    assert win.video.start(tmp_path / "slow.mp4", "window", 30)
    recording = win.video.recording
    _run_for(qtbot, 1.5)
    win.video.stop()
    assert recording.wait(60)
    qtbot.waitUntil(lambda: "Saved the video" in win.statusBar().currentMessage())
    result = recording.result
    assert result.dropped > 0
    assert f"{result.dropped:,} pictures dropped (the encoder was behind" in win.statusBar().currentMessage()
    assert len(_frames(result.path)) == result.frames
    # the simulation took every step: its rows follow each other one dt apart, none missing
    t = win.history.column("t")
    dt = win.worker.settings.dt
    assert np.allclose(np.diff(t), dt) and win.worker.steps_taken > steps_before
    assert win.worker.fault is None


@pytest.mark.gl
def test_the_mark_and_stop_button_are_left_out_of_the_window_video(main_window, qtbot, tmp_path):
    from PySide6.QtCore import QPoint

    from app.window.video import FrameGrab

    win = main_window("default")
    assert win.video.start(tmp_path / "w.mp4", "window", 30)
    _run_for(qtbot, 0.3)
    mark = win.video.mark
    corner = mark.mapTo(win, QPoint(0, 0))
    box = (slice(corner.y(), corner.y() + mark.height()), slice(corner.x(), corner.x() + mark.width()))

    def marks(picture):  # pixels in the mark's box unlike its first one (the text)
        area = picture[box].reshape(-1, 4)
        return int(np.count_nonzero(np.any(area != area[0], axis=1)))

    size = (win.width(), win.height())
    assert marks(FrameGrab(win, "window", size).take()) > 20  # drawn in the window
    assert marks(FrameGrab(win, "window", size, hide=(mark, win.video.stop_button)).take()) == 0
    assert mark.isVisible()
    win.video.stop()
    assert win.video.finishing.wait(30)


@pytest.mark.gl
def test_the_dialog_marks_a_bad_file_and_stays_open(main_window, qtbot, tmp_path):
    from app.window.video_ui import RecordVideoDialog

    win = main_window("default")
    dialog = RecordVideoDialog(win.dialogs.folders, win.video.sizes(), win)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.path.setText(str(tmp_path / "v.avi"))
    dialog.record.click()
    assert dialog.isVisible() and dialog.error.isVisible()
    assert "a video is written as .mp4 (H.264) or .gif" in dialog.error.text()
    assert dialog.path.property("invalid") == "true"
    dialog.path.setText(str(tmp_path / "v.gif"))  # a GIF: 30 fps only
    assert dialog.fps.currentData() == 30 and not dialog.fps.model().item(1).isEnabled()
    dialog.what.setCurrentIndex(dialog.what.findData("view"))
    dialog.record.click()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert dialog.choice() == (str(tmp_path / "v.gif"), "view", 30)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.gl
def test_the_menu_action_follows_the_recording(main_window, qtbot, tmp_path):
    win = main_window("default")
    action = next(a for a in win.menuBar().actions()[0].menu().actions() if a.text() == "Record vi&deo…")
    assert action.isCheckable() and not action.isChecked()
    assert win.video.start(tmp_path / "m.mp4", "view", 30)
    assert action.isChecked()
    action.trigger()  # unchecking stops
    assert win.video.recording is None and not action.isChecked()
    assert win.video.finishing.wait(30)
    qtbot.waitUntil(lambda: (tmp_path / "m.mp4").exists())


@pytest.mark.gl
def test_closing_the_window_finishes_the_video(main_window, qtbot, tmp_path):
    win = main_window("default")
    assert win.video.start(tmp_path / "c.gif", "view", 30)
    _run_for(qtbot, 0.3)
    win.close()
    assert len(_frames(tmp_path / "c.gif")) >= 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.gif"]


# ------------------------------------------------------------------ the 3D view's pictures
def _rows_drawn(pixels) -> np.ndarray:
    """Rows (top-down) holding something besides the background and the ground grid's thin lines."""
    rgb = pixels[::-1, :, :3].astype(int)
    background = rgb[0, 0]
    busy = np.abs(rgb - background).sum(axis=2) > 120
    return np.flatnonzero(busy.sum(axis=1) > 3)


@pytest.mark.gl
def test_a_wide_video_of_the_view_shows_as_much_above_and_below_as_4_to_3(view):
    scene = view.scene
    narrow = scene.render_rgba(400, 300)
    wide = scene.render_rgba(800, 300, widest=4 / 3)
    cropped = scene.render_rgba(800, 300)  # without: the horizontal field of view stays, the height shrinks
    assert narrow.shape == (300, 400, 4) and wide.shape == (300, 800, 4)
    rows_narrow, rows_wide = _rows_drawn(narrow), _rows_drawn(wide)
    assert abs(rows_narrow[0] - rows_wide[0]) <= 2 and abs(rows_narrow[-1] - rows_wide[-1]) <= 2
    # the same pixels in the middle: the wide picture adds to the sides only; without, it is zoomed in
    middle = np.abs(wide[:, 200:600, :3].astype(int) - narrow[:, :, :3].astype(int)).mean()
    zoomed = np.abs(cropped[:, 200:600, :3].astype(int) - narrow[:, :, :3].astype(int)).mean()
    assert middle < 3 < zoomed
    scene.release_offscreen()


@pytest.mark.gl
def test_kept_frames_are_what_the_view_showed(view, qtbot):
    scene = view.scene
    assert scene.kept_frame() is None
    scene.keep_frames(True)
    with qtbot.waitSignal(view.frameSwapped):
        scene.update()
    kept = scene.kept_frame()
    assert kept is not None and kept.shape == (scene.deviceHeight(), scene.deviceWidth(), 4)
    drawn = scene.render_rgba(scene.deviceWidth(), scene.deviceHeight())
    # the same picture, but for the screen's colour depth (pytest-xvfb's screen has 16 bits: RGB 565)
    assert np.abs(kept.astype(int) - drawn.astype(int)).mean() < 4
    scene.keep_frames(False)
    assert scene.kept_frame() is None
