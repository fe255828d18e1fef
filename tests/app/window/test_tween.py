"""Render interpolation (app.window.tween): the 3D view's bodies between the last two computed states.

Oracle: scipy's ``Slerp`` (quaternions compared as rotations, so their sign and convention do not matter:
SLERP of conjugates is the conjugate of the SLERP; between batches of several steps, its piecewise SLERP of the
batch ends).  At a computed state the drawn attitude is that state itself, bit for bit; the display time runs at
the speed and is one state and a frame's jitter (``JITTER_SECONDS``) behind at most.
"""

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.window.frames import ESTIMATE, MAIN, FramePresenter
from app.window.tween import JITTER_SECONDS, Tween, drawable
from sim import Runner, as_aircraft_angles, cayley, orbit_quaternion, orbit_rate
from sim.run.scenario import load

DT = 0.1


def _unit(q):
    q = np.asarray(q, dtype=float)
    return q / np.linalg.norm(q)


#: Two attitudes 40 degrees apart about a skew axis (SLERP's sine branch), and two 0.6 degrees apart
#: (Hoffmann's linear branch below 1 degree, renormalised).
Q0 = _unit([0.1, -0.3, 0.2, 0.9])
Q1_FAR = (Rotation.from_quat(Q0) * Rotation.from_rotvec(np.radians(40.0) * _unit([1.0, 2.0, -0.5]))).as_quat()
Q1_NEAR = (Rotation.from_quat(Q0) * Rotation.from_rotvec(np.radians(0.6) * _unit([-1.0, 0.3, 2.0]))).as_quat()


def _angle_between(p, q) -> float:
    """Rotation angle between two quaternions, radians (independent of their signs)."""
    return float((Rotation.from_quat(p).inv() * Rotation.from_quat(q)).magnitude())


def _oracle(q0, q1, fraction):
    return Slerp([0.0, 1.0], Rotation.from_quat([q0, q1]))([fraction]).as_quat()[0]


def _two_states(q0, q1, speed=1.0, t=3.0):
    """A tween fed two consecutive states (t, t + DT), its clock started at wall 0 on the second."""
    tween = Tween()
    tween.take(t, {MAIN: tuple(q0)}, DT)
    tween.advance(0.0, speed)
    tween.take(t + DT, {MAIN: tuple(q1)}, DT)
    return tween


@pytest.mark.parametrize("q1, tolerance", [(Q1_FAR, 1e-12), (Q1_NEAR, 1e-8)])
@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.5, 0.8, 0.97])
def test_drawn_between_two_states_is_their_slerp(q1, tolerance, fraction):
    tween = _two_states(Q0, q1)
    assert tween.advance(fraction * DT, 1.0) == pytest.approx(fraction, abs=1e-12)
    drawn = tween.attitude(MAIN, fraction)
    assert _angle_between(drawn, _oracle(Q0, q1, fraction)) < tolerance
    assert np.linalg.norm(drawn) == pytest.approx(1.0, abs=1e-15)


def test_display_time_runs_at_the_speed():
    # 10x: a step of 0.1 s lasts 10 ms of wall time; 4 ms in, the view is 40 % into it
    tween = _two_states(Q0, Q1_FAR, speed=10.0)
    fraction = tween.advance(0.004, 10.0)
    assert fraction == pytest.approx(0.4, abs=1e-12)
    assert tween.shown == pytest.approx(3.0 + 0.04, abs=1e-12)
    assert _angle_between(tween.attitude(MAIN, fraction), _oracle(Q0, Q1_FAR, 0.4)) < 1e-12


def test_step_boundaries_are_the_computed_states_exactly():
    tween = _two_states(Q0, Q1_FAR)
    assert tween.advance(0.0, 1.0) == 0.0
    assert tween.attitude(MAIN, 0.0) == tuple(Q0)  # the previous state, bit for bit
    assert tween.moving
    assert tween.advance(0.35, 1.0) == 1.0  # past the step's end: held at the latest state
    assert tween.attitude(MAIN, 1.0) == tuple(Q1_FAR)
    assert not tween.moving
    assert tween.shown == 3.0 + DT


def test_one_step_and_a_frame_behind_at_most():
    tween = _two_states(Q0, Q1_FAR)
    tween.advance(0.03, 1.0)  # 30 % into the step when the next state comes
    q2 = (Rotation.from_quat(Q1_FAR) * Rotation.from_rotvec([0.0, 0.3, 0.0])).as_quat()
    tween.take(3.0 + 2 * DT, {MAIN: tuple(q2)}, DT)
    fraction = tween.advance(0.03, 1.0)
    # caught up to the previous state less the jitter allowance, not 0.7 steps behind it
    assert tween.shown == pytest.approx(3.0 + DT - JITTER_SECONDS, abs=1e-12)
    assert fraction == pytest.approx(1.0 - JITTER_SECONDS / DT, abs=1e-9)
    assert _angle_between(tween.attitude(MAIN, fraction), _oracle(Q0, Q1_FAR, fraction)) < 1e-12
    fraction = tween.advance(0.08, 1.0)
    assert fraction == pytest.approx(0.5 - JITTER_SECONDS / DT, abs=1e-9)
    assert _angle_between(tween.attitude(MAIN, fraction), _oracle(Q1_FAR, q2, fraction)) < 1e-12


@pytest.mark.parametrize("t_next", [0.0, 3.0 + DT])  # a reset, the same time
def test_states_not_after_the_latest_are_drawn_at_once(t_next):
    tween = _two_states(Q0, Q1_FAR)
    tween.advance(0.02, 1.0)
    tween.take(t_next, {MAIN: tuple(Q0)}, DT)
    assert tween.advance(0.021, 1.0) == 1.0
    assert tween.attitude(MAIN, 1.0) == tuple(Q0)
    assert not tween.moving


def _batch_ends(n):
    """``n`` batch ends of ``sun_pointing`` in the window (dt 0.5 s at 100x, two steps a batch: 1 s apart), the
    body turning 3 degrees a second about a skew axis."""
    axis = _unit([0.3, -1.0, 0.4])
    return [(10.0 + k, (Rotation.from_quat(Q0) * Rotation.from_rotvec(np.radians(3.0 * k) * axis)).as_quat())
            for k in range(n)]


def test_batches_of_several_steps_are_drawn_between_their_ends_at_every_frame():
    """Batches of two steps are due every 10 ms of wall time, two of them 12 ms late (and those after them
    with them: the thread's batches come in order), the frames every 16 ms: from the second frame on the
    display time moves by the frame's 16 ms at the speed at every frame, evenly (the view never stands still
    nor jumps while the simulation keeps up), and the attitude drawn is scipy's piecewise SLERP of the batch
    ends at the display time."""
    speed, ends = 100.0, _batch_ends(70)
    arrivals = []
    for k in range(len(ends)):
        arrivals.append(max(0.01 * k + (0.012 if k in (10, 40) else 0.0), arrivals[-1] if arrivals else 0.0))
    oracle = Slerp([t for t, _ in ends], Rotation.from_quat([q for _, q in ends]))
    tween, shown, taken = Tween(), [], 0
    for frame in range(1, 40):
        wall = 0.016 * frame
        while taken < len(ends) and arrivals[taken] <= wall:
            t, q = ends[taken]
            tween.take(t, {MAIN: tuple(q)}, 0.5)
            taken += 1
        fraction = tween.advance(wall, speed)
        shown.append(tween.shown)
        assert _angle_between(tween.attitude(MAIN, fraction), oracle([tween.shown]).as_quat()[0]) < 1e-12
        assert (tween.t1 - tween.shown) / speed <= 1.0 / speed + JITTER_SECONDS + 1e-12  # wall s behind
    assert [b - a for a, b in zip(shown, shown[1:])] == pytest.approx([0.016 * speed] * (len(shown) - 1), abs=1e-9)


def test_unpaced_frames_show_the_latest_state():
    tween = _two_states(Q0, Q1_FAR)
    assert tween.advance(None, 1.0) == 1.0
    assert tween.attitude(MAIN, 1.0) == tuple(Q1_FAR)


def test_a_body_without_a_previous_state_is_drawn_at_its_latest():
    tween = _two_states(Q0, Q1_FAR)
    tween.take(3.0 + 2 * DT, {MAIN: tuple(Q0), "rk4": tuple(Q1_NEAR)}, DT)
    fraction = tween.advance(0.15, 1.0)
    assert fraction == pytest.approx(0.5, abs=1e-9)
    assert tween.attitude("rk4", fraction) == tuple(Q1_NEAR)


# ------------------------------------------------------------------ the window's presenter draws the tween
class _Viewer:
    """What the presenter asks the 3D view to draw (the last call of each kind)."""

    def __init__(self):
        self.drawn = {}

    def __getattr__(self, name):
        return lambda *args: self.drawn.__setitem__(name, args)


class _Estimation:
    drawn = True

    def __init__(self):
        self.pairs = []

    def draw(self, attitude, estimate):
        self.pairs.append((attitude, estimate))


def _presenter():
    viewer = _Viewer()
    window = SimpleNamespace(viewer=viewer, estimation=_Estimation(),
                             orbit_view=SimpleNamespace(isVisible=lambda: False))
    return FramePresenter(window), viewer, window


def test_presenter_turns_body_rig_and_orbit_frame_to_the_display_time():
    """hoffmann's dt of 0.1 s at 1x: between two single-step batches the body, the gimbal rig, the orbit frame
    and the comparison bodies are drawn at the display time; the computed state at the step's end."""
    runner = Runner(load("hoffmann"))
    settings = runner.sim.settings.replace(gravity_gradient=True)  # the orbit frame too (read, not stepped)
    presenter, viewer, window = _presenter()
    presenter.bodies = ("rk4",)
    first = runner.advance(1)
    presenter.show_bodies(first, settings)
    presenter.turn(10.0, 1.0)
    second = runner.advance(1)
    presenter.show_bodies(second, settings)
    q0, q1 = first.last.attitude, second.last.attitude
    assert _angle_between(q0, q1) > np.radians(5.0)  # a visible turn in one step
    presenter.turn(10.0 + 0.3 * DT, 1.0)
    drawn = _oracle(q0, q1, 0.3)  # scipy normalises the states, whose norms the integrator leaves near 1
    assert np.abs(viewer.drawn["set_attitude"][0] - cayley(drawn)).max() < 1e-8
    assert np.abs(np.asarray(viewer.drawn["set_gimbal_angles"]) - as_aircraft_angles(drawn)).max() < 1e-8
    shown = second.last.t - 0.7 * DT
    expected_orbit = cayley(orbit_quaternion(shown, orbit_rate(settings.altitude_km)))
    assert np.abs(viewer.drawn["set_orbit"][0] - expected_orbit).max() < 1e-12
    label, compared = viewer.drawn["set_body_attitude"]
    rk4 = _oracle(first.compare["rk4"].attitude, second.compare["rk4"].attitude, 0.3)
    assert label == "rk4" and np.abs(compared - cayley(rk4)).max() < 1e-8
    presenter.turn(10.0 + 2 * DT, 1.0)  # the step's end: the computed state itself
    assert np.array_equal(viewer.drawn["set_attitude"][0], cayley(q1))
    assert np.array_equal(viewer.drawn["set_gimbal_angles"], np.radians(second.last.angles_deg))
    assert ESTIMATE not in presenter.tween.keys and not window.estimation.pairs  # hoffmann has no estimator


def test_a_new_state_at_the_time_already_shown_is_drawn():
    """Paused at t = 0, a reset to other angles publishes another state at t = 0: the view shows it."""
    runner = Runner(load("hoffmann"))
    settings = runner.sim.settings
    presenter, viewer, _ = _presenter()
    first = runner.advance(0)
    presenter.show_bodies(first, settings)
    presenter.turn(5.0, 1.0)
    presenter.turn(5.1, 1.0)  # nothing new: nothing drawn again
    turned = SimpleNamespace(last=dataclasses.replace(first.last, attitude=tuple(Q1_FAR)), compare={})
    presenter.show_bodies(turned, settings)
    presenter.turn(5.2, 1.0)
    assert first.last.t == turned.last.t
    assert np.array_equal(viewer.drawn["set_attitude"][0], cayley(Q1_FAR))


def test_a_diverged_runs_last_good_state_is_drawn_as_its_rotation():
    """The last good state of a run that diverged (integrators' half-quat body at t = 885 s: |Q| about 1e191)
    overflows Cayley's squares; the view draws its rotation, q / |q| (scipy's), and a state near |Q| = 1 as
    it is, to the bit."""
    far = (-2.766258925904189e+190, 1.1567963112575672e+191, 1.0118329543001166e+190, -2.07879159474226e+190)
    assert not np.all(np.isfinite(cayley(far)))
    drawn = drawable(far)
    assert np.all(np.isfinite(cayley(drawn)))
    assert Rotation.from_quat(drawn).approx_equal(Rotation.from_quat(np.array(far) / 1e191), atol=1e-12)
    assert math.isclose(math.hypot(*drawn), 1.0, rel_tol=1e-15)
    near = (-0.09799581498287699, -0.051156755408341574, -0.04555094165134092, 0.9928234991372239)
    assert drawable(near) == near
    tween = Tween()
    tween.take(885.25, {"main": far}, 0.01)
    assert np.all(np.isfinite(cayley(tween.attitude("main", 1.0))))
