"""The readouts: a known state gives known text, in the right order, units and rounding.

Every expected string here is written by hand, not produced by the code:
a Snapshot with a distinct value in every component, so that printing two
of them in swapped places (psi and phi, T and 4T) changes the text.  The
angles and the energy are also checked against an attitude and a kinetic
energy built independently of ``sim`` (scipy's Rotation, 1/2 w^T J w by hand).
"""

import dataclasses
import re

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel
from scipy.spatial.transform import Rotation

from app.controls.torque import torque_unit
from app.window.readouts import GIMBAL_LOCK_TEXT, Readouts, readout_texts, show_text
from sim.model.simulation import Simulation
from sim.model.rows import Snapshot

NUMBER = re.compile(r"[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?")

#: A state where every readout component differs from the others.
SNAPSHOT = Snapshot(
    t=12.3456, step=12346,
    q=(0.123456, -0.234567, 0.345678, 0.9),
    w=(1.5, -0.25, -0.0004),
    p=(0.0, 0.0, 0.0, 0.0),
    angles_deg=(123.456, -45.678, -7.891),          # (psi, theta, phi)
    norm=1.234e-9, norm_correction=-1.234e-9,
    multiplier=12.3456789,
    energy=0.123456789,                              # 4T = 0.493827156
    h=(0.0, 0.0, 0.0),
    torque=(2.0, -0.004, -3.456),
    qc=(0.0, 0.0, 0.0, 1.0), command_deg=(0.0, 0.0, 0.0), q_dot_p=0.0,
    attitude=(0.123456, -0.234567, 0.345678, 0.9),
)

#: What the readouts of SNAPSHOT say, by hand (torque in N m).
EXPECTED = {
    "t": "    12.346 s",                               # 10.3f: right-aligned in 10 characters
    "q": "(+0.12346, -0.23457, +0.34568, +0.90000)",
    "norm": "+1.23e-09",
    "angles": "(+123.46,  -45.68,   -7.89) °",          # psi, theta, phi, 7 wide
    "w": "(+1.500, -0.250, +0.000) rad/s",            # -0.0004 rounds to +0.000, never -0.000
    "torque": "(+2.00, +0.00, -3.46) N m",             # -0.004 rounds to +0.00
    "multiplier": "12.346",
    "four_t": "0.49383 J",
    "energy": "0.12346 J",
}


def numbers(text: str) -> list[float]:
    """The numbers in a readout's text, in order."""
    return [float(s) for s in NUMBER.findall(text)]


def test_a_known_state_reads_as_written_by_hand():
    assert readout_texts(SNAPSHOT) == EXPECTED


@pytest.mark.parametrize("limit, torque, expected", [
    (10.0, (2.0, -0.004, -3.456), "(+2.00, +0.00, -3.46) N m"),
    (1.0, (2.0, -0.004, -3.456), "(+2.00, +0.00, -3.46) N m"),
    (0.01, (2.1e-3, -4e-6, -3.456e-3), "(+2.10, +0.00, -3.46) mN m"),
    (1e-4, (2.1e-6, -4e-9, -3.456e-6), "(+2.10, +0.00, -3.46) µN m"),
    # issue 43: the unit is the value's, not the sliders' (detumble read "+0.00 mN m" for torques of µN m)
    (0.01, (2.1e-6, -4e-9, -3.456e-6), "(+2.10, +0.00, -3.46) µN m"),
    (10.0, (2.1e-3, -4e-6, -3.456e-3), "(+2.10, +0.00, -3.46) mN m"),
    (1e-4, (2.0, -0.004, -3.456), "(+2.00, +0.00, -3.46) N m"),
    (1e-3, (0.0, 9.99e-4, 0.0), "(+0.00, +999.00, +0.00) µN m"),
    # a zero torque reads in the body's unit
    (0.01, (0.0, 0.0, -0.0), "(+0.00, +0.00, +0.00) mN m"),
    (10.0, (0.0, 0.0, 0.0), "(+0.00, +0.00, +0.00) N m"),
])
def test_torque_is_shown_in_the_unit_of_its_value_with_the_same_decimals_per_axis(limit, torque, expected):
    snapshot = dataclasses.replace(SNAPSHOT, torque=torque)
    assert readout_texts(snapshot, torque_unit(limit))["torque"] == expected


@pytest.mark.parametrize("field, value, name, expected", [
    ("t", 0.0, "t", "     0.000 s"),
    ("t", 0.0004, "t", "     0.000 s"),
    ("t", 1234567.8916, "t", "1234567.892 s"),          # wider than 10: never cut
    ("norm", -4.5e-16, "norm", "-4.50e-16"),
    ("norm", 0.0, "norm", "+0.00e+00"),
    ("norm", 2.0e-3, "norm", "+2.00e-03"),
    ("multiplier", -0.000123456789, "multiplier", "-0.00012346"),
    ("multiplier", 123456.7, "multiplier", "1.2346e+05"),
    ("energy", 2.0, "energy", "2 J"),
    ("energy", 2.0, "four_t", "8 J"),
    ("energy", 123456.7, "energy", "1.2346e+05 J"),
    ("energy", 123456.7, "four_t", "4.9383e+05 J"),
    ("angles_deg", (-0.004, 180.0, -179.996), "angles", "(  +0.00, +180.00, -180.00) °"),
    ("q", (-0.000004, 0.0, -1.0, 0.000005001), "q", "(+0.00000, +0.00000, -1.00000, +0.00001)"),
])
def test_rounding_edges(field, value, name, expected):
    assert readout_texts(dataclasses.replace(SNAPSHOT, **{field: value}))[name] == expected


def test_the_widget_shows_each_text_beside_its_name(qtbot):
    readouts = Readouts()
    qtbot.addWidget(readouts)
    readouts.torque_unit = torque_unit(0.01)
    readouts.show_snapshot(dataclasses.replace(SNAPSHOT, torque=(2.1e-3, -4e-6, -3.456e-3)))
    titles = {"t": "t", "q": "Q", "angles": "ψ θ φ", "w": "ω", "torque": "τ",
              "norm": "|Q| − 1", "multiplier": "λ", "four_t": "4T", "energy": "T"}
    expected = dict(EXPECTED, torque="(+2.10, +0.00, -3.46) mN m")
    layout = readouts.layout()
    for name, title in titles.items():
        value = readouts.findChild(QLabel, f"readout_{name}")
        assert value.text() == expected[name], name
        row, col, _, _ = layout.getItemPosition(layout.indexOf(value.parentWidget()))
        assert layout.itemAtPosition(row, col - 1).widget().text() == title, name
    assert readouts.gimbal_lock.isHidden()


def test_a_new_widget_reads_torque_in_n_m_and_keeps_the_warning_under_the_readouts(qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    readouts = Readouts(parent)
    assert readouts.parent() is parent and readouts.objectName() == "readouts"  # the style sheet's name
    readouts.show_snapshot(dataclasses.replace(SNAPSHOT, torque=(1.5, 0.0, -2.25)))
    assert readouts.findChild(QLabel, "readout_torque").text() == "(+1.50, +0.00, -2.25) N m"
    warning = readouts.findChild(QLabel, "gimbal_lock_warning")
    assert warning is readouts.gimbal_lock and warning.text() == GIMBAL_LOCK_TEXT
    layout = readouts.layout()
    assert layout.getItemPosition(layout.indexOf(warning)) == (5, 0, 1, 4)  # a row of its own, full width
    assert warning.sizePolicy().retainSizeWhenHidden()  # the 3D view keeps its size when it shows
    names = readouts.findChildren(QLabel, "readout_name")
    assert len(names) == 9
    assert all(n.alignment() == Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter for n in names)


@pytest.mark.parametrize("theta, locked", [(-89.0, True), (87.2, True), (87.0, False), (-45.678, False)])
def test_gimbal_lock_warning_where_cos_theta_is_below_005(qtbot, theta, locked):
    """|cos 87.2 deg| = 0.0488 < 0.05 < 0.0523 = |cos 87 deg|."""
    readouts = Readouts()
    qtbot.addWidget(readouts)
    readouts.show_snapshot(dataclasses.replace(SNAPSHOT, angles_deg=(10.0, theta, 20.0)))
    assert readouts.gimbal_lock.isHidden() != locked


def hoffmann_q(psi_deg, theta_deg, phi_deg):
    """Hoffmann's Q (scalar last, inertial -> body): the conjugate of scipy's ZYX rotation (NOTES.md)."""
    x, y, z, w = Rotation.from_euler("ZYX", [psi_deg, theta_deg, phi_deg], degrees=True).as_quat()
    return np.array([-x, -y, -z, w])


def test_a_simulated_attitude_reads_yaw_pitch_roll_and_its_energy():
    """psi = 30, theta = -20, phi = 70 deg; T = 1/2 w^T J w = 7.5 J for J = diag(2, 3, 4), w = (1, -2, 0.5)."""
    sim = Simulation(inertia=(2.0, 3.0, 4.0, 0.0, 0.0, 0.0), angles_deg=(30.0, -20.0, 70.0),
                     rates=(1.0, -2.0, 0.5))
    snapshot = sim.snapshot()
    q = hoffmann_q(30.0, -20.0, 70.0)
    assert np.allclose(snapshot.q, q, atol=1e-12) or np.allclose(snapshot.q, -q, atol=1e-12)
    texts = readout_texts(snapshot)
    assert texts["angles"] == "( +30.00,  -20.00,  +70.00) °"
    assert texts["w"] == "(+1.000, -2.000, +0.500) rad/s"
    assert texts["energy"] == "7.5 J"
    assert texts["four_t"] == "30 J"
    assert abs(numbers(texts["norm"])[0]) < 1e-12


def test_the_angles_after_a_tumble_are_scipy_yaw_pitch_roll_and_t_is_half_wjw():
    """After 1.5 s of free tumbling with products of inertia: the readout angles are scipy's
    ZYX angles of the conjugate of the simulated Q (in that order), T and 4T match the hand formula."""
    jxx, jyy, jzz, jxy, jxz, jyz = 2.0, 3.0, 4.0, 0.1, 0.2, 0.3
    sim = Simulation(inertia=(jxx, jyy, jzz, jxy, jxz, jyz), angles_deg=(10.0, 20.0, 30.0),
                     rates=(0.7, -1.1, 0.4))
    sim.step(1500)
    snapshot = sim.snapshot()
    q1, q2, q3, q4 = snapshot.q
    psi, theta, phi = Rotation.from_quat([-q1, -q2, -q3, q4]).as_euler("ZYX", degrees=True)
    assert len({round(psi), round(theta), round(phi)}) == 3, "distinct angles, so an order is seen"
    shown = numbers(readout_texts(snapshot)["angles"])
    assert shown == pytest.approx([psi, theta, phi], abs=0.005 + 1e-9)
    # Hoffmann's inertia tensor: minus signs on the products (NOTES.md)
    j = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    w = np.array(snapshot.w)
    energy = 0.5 * w @ j @ w
    texts = readout_texts(snapshot)
    assert texts["energy"].endswith(" J") and texts["four_t"].endswith(" J")
    assert numbers(texts["energy"])[0] == pytest.approx(energy, rel=5e-5)
    assert numbers(texts["four_t"])[0] == pytest.approx(4.0 * energy, rel=5e-5)


def test_the_norm_readout_is_the_norm_minus_one():
    """Q scaled by 1.001: |Q| - 1 = 1.00e-03, not |Q| = 1.001."""
    q = hoffmann_q(30.0, -20.0, 70.0) * 1.001
    snapshot = dataclasses.replace(SNAPSHOT, q=tuple(q), norm=1.0e-3)
    assert readout_texts(snapshot)["norm"] == "+1.00e-03"


def test_the_orbit_frame_readout_of_a_body_held_in_the_orbit_frame_is_its_start_without_gl():
    # A sphere (no gravity-gradient torque) turning with the orbit frame, i.e. at the orbit rate about the
    # orbit normal (orbit axis y, rates C (0, -n, 0) in body axes): relative to the orbit frame, which is
    # the inertial frame at t = 0, it stays at its starting angles; relative to the inertial axes it has
    # turned by n t = 3.3 rad.  The readout's text, made without a window, shows the orbit angles.
    from sim.world.environment import orbit_rate

    start = (20.0, 10.0, -30.0)
    n = orbit_rate(500.0)
    c = Rotation.from_euler("ZYX", start, degrees=True).inv().as_matrix()   # inertial = orbit -> body at t = 0
    sim = Simulation(inertia=(1.0, 1.0, 1.0, 0.0, 0.0, 0.0), gravity_gradient=True, altitude_km=500.0,
                     angles_deg=start, rates=tuple(c @ (0.0, -n, 0.0)), dt=1.0, integrator="rk4")
    sim.step(3000)
    s = sim.snapshot()

    def shown(orbit):
        return [float(v) for v in readout_texts(s, orbit=orbit)["angles"].strip("() °").split(",")]

    np.testing.assert_allclose(shown(True), start, atol=0.006)
    np.testing.assert_allclose(s.orbit_angles_deg, start, atol=1e-9)
    assert np.abs(np.subtract(shown(False), start)).max() > 10.0


# ------------------------------------------------------------------ reaction wheels and the orbit frame
#: SNAPSHOT with three wheels: wheel 2 exactly at its limit (500 rad/s), wheel 1 just under its 400.
WHEELS = dataclasses.replace(SNAPSHOT, wheel_speeds=(399.96, -500.0, 123.44), wheel_torques=(0.0, 0.0, 0.0),
                             h=(0.1234, -2.0, 0.0004))
LIMITS = (400.0, 500.0, 600.0)


@pytest.fixture
def shown(qtbot):
    """A Readouts widget on screen (a label's visibility means something only there)."""
    readouts = Readouts()
    qtbot.addWidget(readouts)
    readouts.show()
    qtbot.waitExposed(readouts)
    return readouts


def test_wheel_rows_appear_under_the_warning_with_their_speeds_and_the_momentum(shown):
    """The first snapshot with wheels adds two rows under the gimbal-lock warning, each a right-aligned name
    (Ω, H) beside a selectable value across the rest of the row; the wheel at its limit is marked and named."""
    from PySide6.QtCore import Qt

    shown.speed_limits = LIMITS
    shown.show_snapshot(WHEELS)
    layout = shown.layout()
    warning_row = layout.getItemPosition(layout.indexOf(shown.gimbal_lock))[0]
    expected = {"wheels": ("Ω", "(+400.0, -500.0!, +123.4) rad/s  at the speed limit: wheel 2"),
                "h": ("H", "(+0.123, -2.000, +0.000) N m s (inertial)")}
    for row, (name, (title, text)) in enumerate(expected.items(), start=warning_row + 1):
        value = shown.findChild(QLabel, f"readout_{name}")
        assert value is not None and value.text() == text, name
        assert layout.getItemPosition(layout.indexOf(value.parentWidget())) == (row, 1, 1, 3), name
        name_label = layout.itemAtPosition(row, 0).widget()
        assert name_label is not value and name_label.text() == title, name
        assert name_label.objectName() == "readout_name"            # the style sheet's name for the names
        assert name_label.alignment() == Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        assert value.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse, "to copy it"
        assert value.isVisible() and name_label.isVisible(), name
    assert len(shown.findChildren(QLabel, "readout_name")) == 11
    assert shown.findChild(QLabel, "readout_torque").text() == EXPECTED["torque"], "the rows above stay"


def test_the_wheel_rows_hide_for_a_body_without_wheels_and_come_back_once(shown):
    shown.speed_limits = LIMITS
    shown.show_snapshot(WHEELS)
    shown.show_snapshot(SNAPSHOT)                    # a new run without wheels
    wheels, h = shown.findChild(QLabel, "readout_wheels"), shown.findChild(QLabel, "readout_h")
    assert not wheels.isVisible() and not h.isVisible()
    assert not [t for t in shown.findChildren(QLabel, "readout_name") if t.isVisible() and t.text() in "ΩH"]
    shown.show_snapshot(dataclasses.replace(WHEELS, wheel_speeds=(1.0, 2.0, 3.0)))
    assert wheels.isVisible() and h.isVisible()
    assert wheels.text() == "(+1.0, +2.0, +3.0) rad/s"
    assert len(shown.findChildren(QLabel, "readout_name")) == 11, "the rows are made once"


def test_the_widget_marks_a_wheel_at_the_limits_it_was_given(shown):
    """Without limits given no wheel is marked; with them, the wheel whose |speed| reaches its own limit."""
    shown.show_snapshot(WHEELS)
    assert "!" not in shown.values["wheels"].text()
    shown.speed_limits = (100.0, 600.0, 600.0)
    shown.show_snapshot(WHEELS)
    assert shown.values["wheels"].text() == "(+400.0!, -500.0, +123.4) rad/s  at the speed limit: wheel 1"


def test_the_orbit_toggle_turns_the_angles_title_and_readout_to_the_orbit_frame(shown):
    """With gravity gradient (allow_orbit(True, on=True), as a new run does) the angles read relative to the
    orbit frame: their title says so, the signal says True, the readout shows the orbit angles; without an
    orbit (allow_orbit(False)) they are the inertial angles again, whatever the box."""
    told = []
    shown.orbit_toggled.connect(told.append)
    snapshot = dataclasses.replace(SNAPSHOT, orbit_angles_deg=(-20.0, 5.5, 170.25))
    shown.show_snapshot(snapshot)
    assert shown.angles_title.text() == "ψ θ φ" and not shown.relative_to_orbit
    shown.allow_orbit(True, on=True)
    assert shown.relative_to_orbit and shown.orbit.isChecked()
    assert "orbit" in shown.angles_title.text() and shown.angles_title.text().startswith("ψ θ φ")
    assert told[-1] is True
    shown.show_snapshot(snapshot)
    assert shown.values["angles"].text() == "( -20.00,   +5.50, +170.25) °"
    shown.allow_orbit(False)
    assert not shown.relative_to_orbit and told[-1] is False
    assert shown.angles_title.text() == "ψ θ φ"
    shown.show_snapshot(snapshot)
    assert shown.values["angles"].text() == EXPECTED["angles"]
    shown.allow_orbit(True)                          # the box is still checked: relative again
    assert shown.relative_to_orbit and told[-1] is True and "orbit" in shown.angles_title.text()
    shown.orbit.setChecked(False)                    # the user unticks it
    assert told[-1] is False and shown.angles_title.text() == "ψ θ φ"


# ------------------------------------------------------------------ second wave: defaults, wheels, the orbit box
def test_without_orbit_asked_the_angles_are_inertial_even_when_the_snapshot_has_orbit_angles():
    """readout_texts' default is the inertial frame: a snapshot of a gravity-gradient run carries orbit angles
    too, and they show only when asked for."""
    snapshot = dataclasses.replace(SNAPSHOT, orbit_angles_deg=(-20.0, 5.5, 170.25))
    assert readout_texts(snapshot)["angles"] == EXPECTED["angles"]
    assert readout_texts(snapshot, orbit=True)["angles"] == "( -20.00,   +5.50, +170.25) °"


def test_two_wheels_at_their_limits_are_both_marked_and_named_and_a_creeping_wheel_reads_plus_zero():
    """Wheels 1 and 3 at (or past) their own limits, wheel 2 turning back at -0.04 rad/s: 0.0 to one
    decimal, shown +0.0 (never -0.0), and the end of the line names both saturated wheels."""
    snapshot = dataclasses.replace(WHEELS, wheel_speeds=(-600.0, -0.04, 250.02))
    text = readout_texts(snapshot, speed_limits=(600.0, 600.0, 250.0))["wheels"]
    assert text == "(-600.0!, +0.0, +250.0!) rad/s  at the speed limit: wheel 1, 3"


def test_a_new_readouts_box_for_the_orbit_frame_is_off_until_an_orbit_exists(qtbot):
    """Before a gravity-gradient run there is no orbit frame: the box is greyed out and, even ticked by hand,
    the angles stay inertial; it is found by its object name (check_*, as the window's other boxes)."""
    from PySide6.QtWidgets import QCheckBox

    readouts = Readouts()
    qtbot.addWidget(readouts)
    box = readouts.findChild(QCheckBox, "check_orbit_angles")
    assert box is readouts.orbit
    assert not box.isEnabled()
    box.setChecked(True)
    assert not readouts.relative_to_orbit
    readouts.show_snapshot(dataclasses.replace(SNAPSHOT, orbit_angles_deg=(-20.0, 5.5, 170.25)))
    assert readouts.values["angles"].text() == EXPECTED["angles"]


def test_the_orbit_box_says_what_it_turns_and_its_tip_defines_the_orbit_frame(qtbot):
    """The box's text is a sentence-case phrase naming the angles and the orbit frame; its tool tip gives the
    orbit frame's axes (z to nadir, x along the velocity), names the Angles plot by its tab title, and says
    it needs gravity gradient."""
    from app.plots.live import PLOTS

    readouts = Readouts()
    qtbot.addWidget(readouts)
    text, tip = readouts.orbit.text(), readouts.orbit.toolTip()
    assert text == text[0].upper() + text[1:].lower() and "angles" in text.lower() and "orbit frame" in text
    assert tip[0].isupper() and tip[1:5].islower()
    for part in ("Yaw, pitch and roll", "local vertical", "z to nadir", "x along the velocity", "readouts",
                 "gravity gradient"):
        assert part in tip, part
    angles_tab = next(spec.title for spec in PLOTS if spec.name == "angles")
    assert f"the {angles_tab} plot" in tip


def test_the_orbit_box_sits_under_the_scalars_above_the_warning(qtbot):
    """The grid: names and values of the vectors in columns 0-1, of the scalars in 2-3 (four rows, 0-3); the
    box takes the scalars' two columns in the row under them (4), beside the torque, and the gimbal-lock
    warning's row (5) stays free for the warning."""
    readouts = Readouts()
    qtbot.addWidget(readouts)
    layout = readouts.layout()
    assert layout.itemAtPosition(3, 2).widget().text() == "T"          # the last scalar's name
    assert layout.getItemPosition(layout.indexOf(readouts.orbit)) == (4, 2, 1, 2)
    assert layout.columnCount() == 4


def test_widening_the_readouts_gives_the_vectors_values_three_parts_and_the_scalars_two(qtbot):
    """Extra width goes to the value columns, 3 : 2 (the vectors are longer than the scalars); the names'
    columns keep their width."""
    readouts = Readouts()
    qtbot.addWidget(readouts)
    readouts.show_snapshot(SNAPSHOT)
    readouts.resize(700, 200)
    readouts.show()
    qtbot.waitExposed(readouts)
    layout = readouts.layout()

    def widths():
        layout.activate()
        return [layout.cellRect(0, c).width() for c in range(layout.columnCount())]

    before = widths()
    readouts.resize(1200, 200)
    after = widths()
    grown = [a - b for a, b in zip(after, before)]
    assert len(grown) == 4 and grown[0] == 0 and grown[2] == 0, grown
    assert grown[1] + grown[3] == 500
    assert grown[1] == pytest.approx(300, abs=2) and grown[3] == pytest.approx(200, abs=2), grown


def test_the_readouts_sit_centred_in_their_frame(qtbot):
    """The grid's insets are symmetric: as much room left as right, above as below (a frame drawn around the
    readouts shows an even border), and a nonzero border on every side so no text touches the frame."""
    readouts = Readouts()
    qtbot.addWidget(readouts)
    readouts.resize(800, 200)
    layout = readouts.layout()
    layout.activate()
    inner, outer = layout.contentsRect(), readouts.rect()
    left, top = inner.left() - outer.left(), inner.top() - outer.top()
    right, bottom = outer.right() - inner.right(), outer.bottom() - inner.bottom()
    assert left == right and top == bottom, (left, top, right, bottom)
    assert min(left, top) > 0


def test_a_new_text_of_the_same_size_lays_nothing_out_and_a_wider_one_is_shown_whole(qtbot):
    """A label's new text asked for the readouts' layout again at every change, and each layout done passed the
    request up to the main window (15 times a second while a run plays; issue 42, stop 53): its cell
    (:class:`~app.window.readouts.SteadyCell`) stops it, and :func:`~app.window.readouts.show_text` asks for the
    layouts above only when the label's size hints changed."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    readouts = Readouts()
    qtbot.addWidget(readouts)
    readouts.show_snapshot(SNAPSHOT)
    readouts.show()
    qtbot.waitExposed(readouts)
    requests = []

    class Count(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.LayoutRequest:
                requests.append(watched)
            return False

    counter = Count()
    readouts.installEventFilter(counter)
    label = readouts.values["t"]
    show_text(label, "     1.230 s")
    qtbot.wait(100)  # laid out for it
    requests.clear()
    for text in ("     3.210 s", "     2.130 s", "     1.230 s"):  # the same glyphs: the same size
        show_text(label, text)
        QApplication.processEvents()
    assert requests == []
    show_text(label, "123456789.123 s")
    qtbot.waitUntil(lambda: bool(requests), timeout=2000)  # wider: laid out again ...
    qtbot.waitUntil(lambda: label.width() >= label.sizeHint().width())  # ... and shown whole
