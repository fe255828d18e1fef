"""The built-in bodies and mesh files in the window: the 3D view, the Model tab, bad files.

Marked ``gl``: they need Xvfb and the xcb platform and skip elsewhere.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from PySide6.QtWidgets import QWidget

from app.view3d.layout import REFERENCE_SIZE
from sim.model.shape import BUILTINS, mass_properties
from gui_waits import advanced_twice

pytestmark = pytest.mark.gl

BOX_OBJ = """v -0.5 -0.25 -0.1
v -0.5 -0.25 0.1
v -0.5 0.25 -0.1
v -0.5 0.25 0.1
v 0.5 -0.25 -0.1
v 0.5 -0.25 0.1
v 0.5 0.25 -0.1
v 0.5 0.25 0.1
f 1 2 4
f 1 4 3
f 5 7 8
f 5 8 6
f 1 5 6
f 1 6 2
f 3 4 8
f 3 8 7
f 1 3 7
f 1 7 5
f 2 6 8
f 2 8 4
"""


def changed_fraction(image, reference, tolerance=40):
    """Share of pixels whose RGB differs from ``reference`` by more than ``tolerance``."""
    diff = np.abs(image.astype(int) - np.asarray(reference, dtype=int)).sum(axis=-1)
    return float((diff > tolerance).mean())


def body_pixels(view):
    """The picture with the body, and the share of pixels the body itself covers."""
    scene = view.scene
    with_body = view.render_image()
    scene.aircraft_item.setVisible(False)
    without = view.render_image()
    scene.aircraft_item.setVisible(True)
    return with_body, changed_fraction(with_body, without)


def test_view_draws_each_builtin_body_framed_by_its_size(view):
    pictures = {}
    for name in BUILTINS:
        view.set_body(name, mass_properties(name).inertia)
        scene = view.scene
        assert scene.body.body == name
        assert scene.layout_scale == pytest.approx(scene.body.size / REFERENCE_SIZE)
        assert scene.opts["distance"] == pytest.approx(32.0 * scene.layout_scale)
        picture, covered = body_pixels(view)
        assert 0.01 < covered < 0.5, name  # the body is in the picture at a readable size
        pictures[name] = picture
    for a, b in itertools.combinations(pictures, 2):
        assert changed_fraction(pictures[a], pictures[b]) > 0.005, (a, b)


def test_ghosts_and_comparison_bodies_take_the_new_mesh(view):
    view.add_body("other", (1.0, 0.6, 0.15, 0.4))
    view.set_body("phone")
    scene = view.scene
    mesh = scene.aircraft_item.meshdata
    assert scene._ghost.meshdata is mesh and scene._bodies["other"].meshdata is mesh
    view.set_body_attitude("other", np.eye(3))
    view.remove_body("other")


def test_principal_axes_are_drawn_when_shown(view):
    view.set_body("phone", mass_properties("phone").inertia)
    plain = view.render_image()
    view.show_principal_axes(True)
    assert changed_fraction(view.render_image(), plain) > 0.002
    view.show_principal_axes(False)
    assert changed_fraction(view.render_image(), plain) < 0.001


def child(win, name):
    widget = win.findChild(QWidget, name)
    assert widget is not None, name
    return widget


def test_model_tab_chooses_a_body_and_its_mass(qtbot, main_window):
    window = main_window("tennis_racket")
    body = window.controls.body
    assert window.viewer.scene.body.body == "phone"
    combo = child(window, "combo_body")
    combo.setCurrentIndex(combo.findData("t_handle"))
    combo.activated.emit(combo.currentIndex())
    qtbot.waitUntil(lambda: window.worker.settings.body == "t_handle")
    qtbot.waitUntil(lambda: window.viewer.scene.body.body == "t_handle")
    assert window.worker.settings.inertia is None
    qtbot.waitUntil(lambda: body.mass.text() == "0.25")
    mass = child(window, "field_mass")
    mass.setText("0.5")
    mass.editingFinished.emit()
    qtbot.waitUntil(lambda: window.worker.settings.mass == 0.5)
    doubled = np.array(window.worker.settings.mass_properties.inertia)
    np.testing.assert_allclose(doubled, 2 * np.array(mass_properties("t_handle").inertia))
    check = child(window, "check_principal_axes")
    check.setChecked(True)
    assert window.viewer.scene._principal.visible()


def test_bad_mesh_file_gives_a_message_and_the_body_stays(qtbot, main_window, tmp_path):
    # (an inside-out box was the bad mesh here; issue 23 turns those outward, so an open box is refused instead)
    window = main_window("tennis_racket")
    bad = tmp_path / "open.obj"
    bad.write_text("\n".join(BOX_OBJ.splitlines()[:-1]) + "\n")  # the last face missing: open
    assert not window.controls.body.choose(str(bad))
    assert window.message.isVisible() and "not watertight" in window.message.text()
    assert "keeping phone" in window.message.text()
    text = tmp_path / "notes.stl"
    text.write_text("not a mesh at all\n")
    assert not window.controls.body.choose(str(text))
    assert "not a STL mesh" in window.message.text() or "not a readable STL mesh" in window.message.text()
    qtbot.waitUntil(advanced_twice(window.worker))   # anything sent would be applied by now
    assert window.worker.settings.body == "phone" and window.viewer.scene.body.body == "phone"
    assert child(window, "combo_body").currentData() == "phone"


def test_a_mesh_file_is_loaded_and_drawn(qtbot, main_window, tmp_path):
    window = main_window("tennis_racket")
    path = tmp_path / "slab.obj"
    path.write_text(BOX_OBJ)
    assert window.controls.body.choose(str(path))
    qtbot.waitUntil(lambda: window.viewer.scene.body.body == str(path))
    combo = child(window, "combo_body")
    assert combo.currentText() == "slab.obj"
    # A 1 x 0.5 x 0.2 m box of 1 kg: Jzz = (1 + 0.25) / 12.
    assert window.worker.settings.mass_properties.inertia[2] == pytest.approx(1.25 / 12)


def test_choosing_a_small_body_carries_the_tuning_and_sizes_the_torque_sliders(qtbot, main_window):
    """The default scenario's aircraft dampers on a T-handle would diverge (k dt / J = 24); chosen in
    the Model tab, the torque, dampers, gains and limits follow its inertia and the sliders' ranges too."""
    window = main_window("default")
    before = window.worker.settings
    assert before.dampers_on and before.dampers == (3.0, 4.0, 6.0)
    torque = window.controls.torque
    torque.sliders[0].set_value(2.0)  # fly with a roll torque: it is carried too
    qtbot.waitUntil(lambda: window.worker.settings.torque[0] == 2.0)
    assert window.controls.body.choose("t_handle")
    qtbot.waitUntil(lambda: window.worker.settings.body == "t_handle")
    j0, j1 = np.array(before.mass_properties.inertia[:3]), np.array(mass_properties("t_handle").inertia[:3])
    # the carried values are separate inputs: the worker may take them at consecutive steps, so wait for all
    def carried() -> bool:
        now = window.worker.settings
        return all(np.allclose(getattr(now, key), np.array(getattr(before, key)) * j1 / j0, rtol=1e-12)
                   for key in ("dampers", "gains", "limits"))

    qtbot.waitUntil(carried)
    settings = window.worker.settings
    np.testing.assert_allclose(settings.gains, np.array(before.gains) * j1 / j0, rtol=1e-12)
    np.testing.assert_allclose(settings.limits, np.array(before.limits) * j1 / j0, rtol=1e-12)
    assert settings.torque[0] == pytest.approx(2.0 * j1[0] / j0[0], rel=1e-12)
    assert not child(window, "label_damper_warning").isVisible()
    qtbot.waitUntil(lambda: torque.sliders[0].range[1] == pytest.approx(0.005))
    assert torque.sliders[0].value == pytest.approx(settings.torque[0], abs=0.00005)  # shown on the new range
    window.keys.changed.emit((0.0, 5.0, 0.0))  # a pitch key held: half the pitch slider's range
    qtbot.waitUntil(lambda: window.worker.settings.torque[1] == pytest.approx(0.0025))
    window.keys.changed.emit((0.0, 0.0, 0.0))
    t0 = window.last_snapshot.t
    qtbot.waitUntil(lambda: window.last_snapshot.t > t0 + 0.5)
    assert not window.fault_banner.isVisible()
    assert np.all(np.isfinite(window.last_snapshot.w)) and np.max(np.abs(window.last_snapshot.w)) < 50
    assert window.controls.body.choose("aircraft")  # and back: Hoffmann's numbers again
    qtbot.waitUntil(lambda: window.worker.settings.body == "aircraft")
    qtbot.waitUntil(lambda: np.allclose(window.worker.settings.dampers, before.dampers, rtol=1e-12))
    qtbot.waitUntil(lambda: torque.sliders[0].range[1] == pytest.approx(10.0))


def test_small_body_torques_read_in_millinewton_metres(qtbot, main_window):
    window = main_window("default")
    assert window.controls.body.choose("t_handle")
    slider = window.controls.torque.sliders[1]
    qtbot.waitUntil(lambda: slider.range[1] == pytest.approx(0.005))
    slider.set_value(0.0025)
    qtbot.waitUntil(lambda: window.worker.settings.torque[1] == pytest.approx(0.0025))
    assert slider._text.text() == "+2.50 mN m"
    # the readout is the net torque (the dampers oppose the command), in the sliders' unit
    qtbot.waitUntil(lambda: child(window, "readout_torque").text().endswith(") mN m"))
    assert window.controls.body.choose("aircraft")
    qtbot.waitUntil(lambda: child(window, "readout_torque").text().endswith(" N m")
                    and "mN" not in child(window, "readout_torque").text(), timeout=2000)
    assert slider._text.text().endswith(" N m") and "mN" not in slider._text.text()


def test_an_inside_out_mesh_in_millimetres_is_repaired_and_scaled_in_the_window(qtbot, main_window, tmp_path):
    # issue 23: an exported part wound inside out, its coordinates in millimetres
    window = main_window("tennis_racket")
    path = tmp_path / "part_mm.obj"
    lines = [line if not line.startswith("f") else "f " + " ".join(line.split()[1:][::-1])
             for line in BOX_OBJ.splitlines()]
    lines = [" ".join(["v", *(f"{1000 * float(x):g}" for x in line.split()[1:])]) if line.startswith("v") else line
             for line in lines]
    path.write_text("\n".join(lines) + "\n")
    body = window.controls.body
    assert body.choose(str(path))                        # in metres: a 1,000 m box, accepted and drawn
    qtbot.waitUntil(lambda: window.viewer.scene.body.body == str(path))
    qtbot.waitUntil(lambda: "turned outward" in body.source.text())
    units = child(window, "combo_mesh_units")
    assert units.isEnabled()
    assert body.set_units("mm")                          # what choosing "mm" in the chooser does
    qtbot.waitUntil(lambda: window.worker.settings.mesh_units == "mm")
    # a 1 x 0.5 x 0.2 m box of 1 kg once read in millimetres: Jzz = (1 + 0.25) / 12
    qtbot.waitUntil(lambda: abs(window.worker.settings.mass_properties.inertia[2] - 1.25 / 12) < 1e-12,
                    timeout=2000)
    qtbot.waitUntil(lambda: window.viewer.scene.body.units == "mm")
    assert window.viewer.scene.body.size < 1.0           # drawn in metres too


def test_a_body_and_its_carried_tuning_reach_the_simulation_at_the_same_step(qtbot, main_window, monkeypatch):
    """Sent one by one, a step could fall between the T-handle and the tuning carried to it: the aircraft's
    dampers on the T-handle (k dt / J = 24) diverged in a few hundred steps and the run stopped (seen under
    make stress).  Every input is now slowed as a preempted GUI thread would be: the body still flies."""
    window = main_window("default")
    window.controls.torque.sliders[0].set_value(2.0)   # rolling: the dampers have a rate to act on
    qtbot.waitUntil(lambda: window.worker.settings.torque[0] == 2.0)
    worker = window.flight.worker
    send = worker.send

    def preempted(entry):
        send(entry)
        time.sleep(0.3)   # the simulation thread steps on meanwhile

    monkeypatch.setattr(worker, "send", preempted)
    assert window.controls.body.choose("t_handle")
    qtbot.waitUntil(lambda: worker.settings.body == "t_handle")
    t0 = window.last_snapshot.t
    qtbot.waitUntil(lambda: window.last_snapshot.t > t0 + 0.5)
    assert worker.fault is None and not window.fault_banner.isVisible()
    j0, j1 = (np.array(mass_properties(b).inertia[:3]) for b in ("aircraft", "t_handle"))
    np.testing.assert_allclose(worker.settings.dampers, np.array((3.0, 4.0, 6.0)) * j1 / j0, rtol=1e-12)


@pytest.mark.parametrize("name, torque, reads", [
    # issue 43: reaction_wheels' ranges of 500, 50 and 100 N m (steps 5, 0.5, 1) read "+10", "+12.5", "-3"
    ("reaction_wheels", (10.0, 12.5, -3.0), ("+10.0 N m", "+12.5 N m", "-3.0 N m")),
    ("default", (2.0, 2.5, -3.1), ("+2.0 N m", "+2.5 N m", "-3.1 N m")),
    ("tennis_racket", (2e-4, 2.5e-3, -5e-5), ("+0.20 mN m", "+2.50 mN m", "-0.05 mN m")),
])
def test_the_torque_sliders_read_in_one_unit_with_the_same_decimals(qtbot, name, torque, reads):
    from app.controls.torque import TorqueGroup
    from sim.run.scenario import load

    group = TorqueGroup(lambda key, value: None)
    qtbot.addWidget(group)
    group.show_settings(load(name).settings.replace(torque=torque))
    assert [slider._text.text() for slider in group.sliders] == list(reads)
