"""The window's Ensemble view: N bodies flying the main body's inputs, drawn at once.

With the view on, the runner of the main body carries a
:class:`~sim.ensemble.Ensemble` (the input :data:`sim.run.runner.ENSEMBLE`): the
simulation thread steps it in lockstep with the aircraft, every input the
user gives and every scenario event reaches it at the same step, and a
reset resets it (:mod:`sim.run.runner`).  Each batch the thread publishes ends
with an :class:`~sim.ensemble.info.EnsembleFrame`; this module only draws those
frames, it computes no physics.

The "Ensemble" tab beside the plots shows:

* the sphere (:class:`~app.ensemble.scene.EnsembleScene`): each body's
  nose direction, coloured by its attitude error, larger once it has
  turned more than 180 deg from its start (``travelled_deg``: it takes the
  long way, shortest path off);
* a histogram of the errors (:class:`~app.ensemble.histogram.ErrorHistogram`),
  whose coloured bars are the legend of the sphere's colours;
* a line of statistics, the number of bodies (a checked field, up to
  :data:`MAX_BODIES`), a mirror of the controller's shortest-path box, the
  "Aircraft" box (the bodies drawn as small copies of their mesh beside the
  points, at most :data:`MAX_AIRCRAFT` of them), and "Load worst" (or a
  click on a point), which loads that body's initial state
  (:meth:`~sim.ensemble.info.EnsembleInfo.body_settings`) into the main simulation
  and restarts the run, so the aircraft then flies exactly that body.

Turning the view on, changing the number of bodies or loading a body
restarts the run at t = 0 (the ensemble's bodies start there).  A scenario
with an ``[ensemble]`` section opens with the view on and its settings.

Drawing 10,000 bodies live: the view draws only the latest frame, only
while the tab is in view, at most once per display frame; it computes
the frame's nose directions and angles then (:class:`~sim.ensemble.info.EnsembleFrame`),
into buffers it keeps from frame to frame.  The histogram and the line of
statistics follow at most every :data:`SLOW_SECONDS` (the latest frame
always reaches them).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QPushButton, QSplitter, QToolButton, QVBoxLayout,
                               QWidget)

from app.controls.widgets import SettingField
from app.ensemble.colors import error_colors
from app.ensemble.histogram import ErrorHistogram
from app.ensemble.scene import LONG_WAY_SIZE, POINT_SIZE, EnsembleSceneView, aircraft_size
from app.plots.legend import FitRow
from app.view3d.mesh import body_mesh
from sim import norm2_Q, cayley_entries, EnsembleSpec, LIMITS, cayley, ENSEMBLE, SettingsError, ShapeError

__all__ = ["EnsembleView", "MAX_BODIES", "MAX_AIRCRAFT", "DEFAULT_BODIES", "parse_bodies", "aircraft_indices",
           "body_to_ned"]

#: Most bodies the window flies (``attitude-sim sweep`` runs more): :data:`sim.io.limits.LIMITS`' ``window_bodies``.
MAX_BODIES = int(LIMITS["window_bodies"].high)
#: Most bodies drawn as aircraft (the others stay points).
MAX_AIRCRAFT = 1000
#: Least wall time between two updates of the histogram and the statistics, s.
SLOW_SECONDS = 0.1
#: Bodies when the view is turned on without a scenario section.
DEFAULT_BODIES = 1000
#: Travelled angle (deg) beyond which a body took the long way.
LONG_WAY_DEG = 180.0


def parse_bodies(key: str, text) -> int:
    """The number of bodies typed in the field: a whole number in 1 .. :data:`MAX_BODIES`.

    Raises
    ------
    SettingsError
        Naming ``key`` and saying what is wrong.

    Examples
    --------
    >>> parse_bodies("bodies", " 2,000 ")
    2000
    """
    cleaned = str(text).strip().replace(",", "").replace("_", "")
    if not cleaned.isdigit():
        raise SettingsError(f"{key}: expected a whole number of bodies, got {text!r}")
    bodies = int(cleaned)
    if not 1 <= bodies <= MAX_BODIES:
        raise SettingsError(f"{key}: {bodies:,} is out of range: 1 to {MAX_BODIES:,} in the window "
                            "(attitude-sim sweep runs more)")
    EnsembleSpec(bodies=bodies)  # the engine's own check
    return bodies


def aircraft_indices(n: int, most: int = MAX_AIRCRAFT) -> np.ndarray:
    """The bodies drawn as aircraft among ``n``: every ``ceil(n / most)``-th, from body 0 (at most ``most``).

    Examples
    --------
    >>> aircraft_indices(5).tolist(), len(aircraft_indices(10_000)), aircraft_indices(2500)[:3].tolist()
    ([0, 1, 2, 3, 4], 1000, [0, 3, 6])
    """
    return np.arange(0, n, -(-n // most))


def body_to_ned(q) -> np.ndarray:
    """``C^T`` of each column of ``q`` (4, m), shape (m, 3, 3): body to inertial (NED) axes.

    The Cayley matrix :func:`sim.core.angles.cayley_entries` (Hoffmann (2.12))
    over ``|Q|^2``, so a quaternion a little off unit length still gives a
    rotation (as :func:`sim.ensemble.metrics.nose` does).
    """
    q = np.asarray(q, dtype=float)
    qq = norm2_Q(q)
    c = np.array(cayley_entries(tuple(q))).reshape(3, 3, -1) / qq  # c[row, column, body]
    return c.transpose(2, 1, 0)  # [body, column, row]: C^T


def _spec_with(spec: EnsembleSpec | None, bodies: int) -> EnsembleSpec:
    return EnsembleSpec(bodies=bodies) if spec is None else dataclasses.replace(spec, bodies=bodies)


class EnsembleView(QWidget):
    """The Ensemble tab and its menu action, bound to the window's inputs.

    Parameters
    ----------
    settings : callable
        ``settings()``: the main body's settings in force (the worker's, read only).
    controls : app.controls.ControlPanel
        The reset fields (a restart keeps them) and the shortest-path box.
    send : callable
        ``send(entry)``: the window's one way for inputs into the worker (an
        entry: ``(key, value)`` pairs that take effect at one step).
    reset : callable
        ``reset(with_inputs=())``: the window's reset (the reset fields'
        state at t = 0, clearing a fault), carrying ``with_inputs`` in its
        entry.  A restart is one entry: angles, rates, the new ensemble or
        the loaded body's inertia and gains, and the reset.
    message : callable
        ``message(text, error=True)``: the window's inline message.
    tabs : QTabWidget
        Where the view adds its tab while it is on.

    Attributes
    ----------
    action : QAction
        "Ensemble" (checkable, Ctrl+E) for the View menu.
    scene : app.ensemble.scene.EnsembleScene
    histogram : app.ensemble.histogram.ErrorHistogram
    frame : sim.ensemble.info.EnsembleFrame or None
        The latest state received.
    """

    def __init__(self, settings, controls, send, reset, message, tabs, parent=None):
        super().__init__(parent)
        self.setObjectName("ensemble")
        self._settings = settings
        self._controls = controls
        self._send = send
        self._reset = reset
        self._message = message
        self._tabs = tabs
        self._spec = EnsembleSpec(bodies=DEFAULT_BODIES)
        self._on = False
        self._by_scenario = False  # on because the scenario has an [ensemble] section (not the user)
        self._following = False  # a replay starts and stops the ensemble: the view follows the model
        self.frame = None
        self._last = None  # the aircraft's latest Snapshot (for its marks)
        self._drawn = None  # (frame, marks) on screen
        self._buffers = None  # (colours (n, 4), sizes (n,)) float32, reused while n stays
        self._slow_due = 0.0  # perf_counter time from which the histogram and statistics may be updated
        self._slow_timer = QTimer(self, singleShot=True)  # brings them the latest frame after a skipped update
        self._slow_timer.timeout.connect(self._show_slow)
        self._aircraft_body = None  # the body whose mesh the aircraft are drawn with
        self.action = QAction("Ensemble", self, checkable=True, shortcut=QKeySequence("Ctrl+E"),
                              statusTip="Fly many bodies with the aircraft's inputs (the Ensemble tab); "
                              "restarts the run")
        self.action.toggled.connect(self.set_on)
        self._build()

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        self.bodies = SettingField("bodies", f"number of bodies, 1 to {MAX_BODIES:,}; Return restarts the run",
                                   check=parse_bodies)
        self.bodies.setMaximumWidth(70)
        self.bodies.show_value(self._spec.bodies)
        self.bodies.committed.connect(self.set_bodies)
        self.bodies.rejected.connect(self._message)
        self.shortest_path = QCheckBox("Shortest path", objectName="check_ensemble_shortest_path",
                                       toolTip="The controller's shortest path (Control tab), for every body: "
                                       "off, bodies whose error quaternion has a negative scalar unwind")
        self.shortest_path.toggled.connect(self._controls.controller.shortest_path.setChecked)
        self.aircraft = QCheckBox("Aircraft", objectName="check_ensemble_aircraft",
                                  toolTip=f"Draw the bodies themselves beside their points: small copies of the "
                                  f"body, each turned by its attitude, standing on its nose point (at most "
                                  f"{MAX_AIRCRAFT:,}: every k-th body; the others stay points)")
        self.aircraft.toggled.connect(self.show_aircraft)
        self.worst = QPushButton("Load worst", objectName="button_ensemble_worst",
                                 toolTip="Load the body with the largest attitude error into the main view "
                                 "(its initial state; restarts the run). A click on a point loads that body.")
        self.worst.clicked.connect(self.load_worst)
        off = QToolButton(text="✕", objectName="button_ensemble_off", toolTip="Turn the ensemble off (Ctrl+E)",
                          autoRaise=True)
        off.clicked.connect(lambda: self.set_on(False))
        count = QWidget(objectName="ensemble_bodies")  # the label and its field stay together
        pair = QHBoxLayout(count)
        pair.setContentsMargins(0, 0, 0, 0)
        pair.addWidget(QLabel("Bodies"))
        pair.addWidget(self.bodies)
        controls = FitRow(spacing=8)  # side by side, or in rows as the plot column's width asks (issue 43)
        for widget in (count, self.shortest_path, self.aircraft, self.worst):
            controls.addWidget(widget)
        head = QHBoxLayout()
        head.setContentsMargins(6, 4, 4, 0)
        head.addLayout(controls, 1)
        head.addWidget(off, 0, Qt.AlignmentFlag.AlignTop)
        self.stats = QLabel(objectName="ensemble_stats", wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.stats.setContentsMargins(6, 0, 6, 0)
        self.view = EnsembleSceneView()
        self.view.setObjectName("ensemble_scene")
        self.scene = self.view.scene
        self.view.picked.connect(self.load_body)
        self.histogram = ErrorHistogram()
        self.histogram.setObjectName("ensemble_histogram")
        note = QLabel("Each point is a body's nose direction, coloured by its attitude error (the histogram's "
                      "colours); large points have turned more than 180° from where they started: the long way "
                      "round (shortest path off). ✛ aircraft, ○ command. Click a point to fly that body; "
                      "Aircraft draws the bodies themselves.",
                      objectName="note", wordWrap=True)
        note.setContentsMargins(6, 0, 6, 2)
        split = QSplitter(Qt.Orientation.Vertical, objectName="ensemble_splitter")
        split.addWidget(self.view)
        split.addWidget(self.histogram)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setCollapsible(0, False)
        split.setSizes([360, 220])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addLayout(head)
        layout.addWidget(self.stats)
        layout.addWidget(split, 1)
        layout.addWidget(note)

    # ---------------------------------------------------------------- state
    @property
    def is_on(self) -> bool:
        """Whether the ensemble flies."""
        return self._on

    @property
    def spec(self) -> EnsembleSpec:
        """What the ensemble is (or will be when turned on)."""
        return self._spec

    def prepare(self, scenario, runner) -> None:
        """Give a new runner, not yet stepped, the ensemble.

        Called by the window before it hands ``runner`` to the worker, so the
        ensemble starts with the runner at t = 0.  A scenario with an
        ``[ensemble]`` section turns the view on with its spec (at most
        :data:`MAX_BODIES` bodies); one without turns it off again if a
        scenario turned it on, and leaves it as it is if the user did.  A
        replay whose recording starts an ensemble leaves that to the
        recording and follows it (:meth:`show_batch`).
        """
        recorded = [spec for _, spec in runner.scheduled(ENSEMBLE) if spec is not None]
        spec = scenario.ensemble
        self._following = bool(recorded)
        if recorded:  # on when the recorded input starts it, not before
            self._spec, self._on, self._by_scenario = recorded[0], False, True
        elif spec is not None:
            if spec.bodies > MAX_BODIES:
                self._message(f"Scenario {scenario.name}: the window flies {MAX_BODIES:,} of its "
                              f"{spec.bodies:,} bodies (attitude-sim sweep runs them all)")
                spec = dataclasses.replace(spec, bodies=MAX_BODIES)
            self._spec = spec
            self._on = self._by_scenario = True
        elif self._by_scenario:
            self._on = self._by_scenario = False
        self.frame = self._drawn = None
        self._show_spec()
        if self._on:
            runner.submit(ENSEMBLE, self._spec)
        self._show_tab()

    def _show_spec(self) -> None:
        """Show the spec's body count and settling threshold."""
        self.bodies.show_value(self._spec.bodies)
        self.histogram.set_threshold(self._spec.settle_deg)

    def set_on(self, on: bool) -> None:
        """Turn the ensemble on (restarts the run at t = 0) or off (the aircraft flies on alone)."""
        on = bool(on)
        self._by_scenario = self._following = False
        if on == self._on:
            self._show_tab()
            return
        self._on = on
        if on:
            self._restart(f"Ensemble of {self._spec.bodies:,} bodies: the run restarted at t = 0")
        else:
            self._send(((ENSEMBLE, None),))
            self.frame = self._drawn = None
        self._show_tab()

    def set_bodies(self, bodies: int) -> None:
        """Fly ``bodies`` bodies from now on (restarts the run when on)."""
        self._spec = _spec_with(self._spec, bodies)
        self._following = False
        self.bodies.show_value(bodies)
        if self._on:
            self._restart(f"Ensemble of {bodies:,} bodies: the run restarted at t = 0")

    def _restart(self, text: str) -> None:
        """Attach a new ensemble built from the settings in force and restart everything at t = 0.

        One entry: the reset's angles and rates (first: an ensemble of "same"
        attitudes takes them), the ensemble, the reset.
        """
        self.frame = self._drawn = None
        self._reset(((ENSEMBLE, self._spec),))
        self._message(text, error=False)

    def _show_tab(self) -> None:
        with QSignalBlocker(self.action):
            self.action.setChecked(self._on)
        index = self._tabs.indexOf(self)
        if self._on and index < 0:
            self._tabs.addTab(self, "Ensemble")
            self._tabs.setCurrentWidget(self)
        elif not self._on and index >= 0:
            self._tabs.removeTab(index)

    # -------------------------------------------------------- loading a body
    def load_worst(self) -> int | None:
        """Load the body with the largest attitude error now (see :meth:`load_body`); returns its index."""
        frame = self.frame
        if frame is None or frame.n == 0:
            self._message("No ensemble state yet")
            return None
        error = np.where(np.isfinite(frame.error_deg), frame.error_deg, np.inf)
        j = int(np.argmax(error))
        self.load_body(j)
        return j

    def load_body(self, j: int) -> None:
        """Put body ``j``'s initial state (attitude, rates, inertia, gains) into the main simulation and restart.

        From the restart on, the aircraft flies exactly what ensemble body
        ``j`` flies (same inputs at the same steps).
        """
        frame = self.frame
        if frame is None or not 0 <= j < frame.n:
            return
        settings = frame.info.body_settings(j)
        current = self._settings()
        carried = []  # with the reset, in its entry
        if settings.inertia != current.mass_properties.inertia:  # else the body keeps its own
            carried.append(("inertia", settings.inertia))
        if settings.gains != current.gains:
            carried.append(("gains", settings.gains))
        self._controls.body.angles.show_value(settings.angles_deg)
        self._controls.body.rates.show_value(settings.rates)
        index = int(frame.info.index[j])
        error = frame.error_deg[j]
        self.frame = self._drawn = None
        self._reset(tuple(carried))
        self._message(f"Flying ensemble body {index:,} (its error was {error:.3g}°): its initial attitude, "
                      "rates, inertia and gains; the run restarted at t = 0", error=False)

    # --------------------------------------------------------------- drawing
    def show_batch(self, batch) -> None:
        """Take the latest batch of the worker (every display frame); draw when the tab is in view."""
        if self._following and (batch.ensemble is not None) != self._on:  # the replay started or stopped it
            self._on = batch.ensemble is not None
            if self._on:
                self._spec = batch.ensemble.info.spec
                self._show_spec()
            self._show_tab()
        if batch.ensemble is not None or not self._on:
            self.frame = batch.ensemble
        self._last = batch.last
        wanted = self._settings().shortest_path
        if self.shortest_path.isChecked() != wanted:  # only a change: this runs every display frame
            with QSignalBlocker(self.shortest_path):
                self.shortest_path.setChecked(wanted)
        if self.isVisible():
            self._draw(self._last)

    @property
    def settled(self) -> bool:
        """True when the histogram and the statistics show the latest frame drawn (none is waiting)."""
        return not self._slow_timer.isActive()

    def show_aircraft(self, on: bool) -> None:
        """Draw the bodies as small aircraft beside their points (at most :data:`MAX_AIRCRAFT`), or only points."""
        with QSignalBlocker(self.aircraft):
            self.aircraft.setChecked(bool(on))
        if not on:
            self.scene.show_aircraft(None)
            self._aircraft_body = None
        self._drawn = None
        if self._last is not None and self.isVisible():
            self._draw(self._last)

    def _draw(self, last) -> None:
        frame = self.frame
        controller = self._settings().controller != "none"
        marks = (last.attitude, last.qc if controller else None)
        if frame is None or (self._drawn is not None and self._drawn[0] is frame and self._drawn[1] == marks):
            return
        self._drawn = (frame, marks)
        n = frame.n
        if self._buffers is None or len(self._buffers[1]) != n:
            self._buffers = (np.empty((n, 4), dtype=np.float32), np.empty(n, dtype=np.float32))
        colors, sizes = self._buffers
        error_colors(frame.error_deg, frame.faulted, out=colors)
        sizes.fill(POINT_SIZE)
        sizes[frame.travelled_deg > LONG_WAY_DEG] = LONG_WAY_SIZE  # the turn from the start, unfolded: the long way
        self.scene.set_bodies(frame.nose, colors, sizes)
        self.scene.set_marks(cayley(marks[0]), None if marks[1] is None else cayley(marks[1]))
        if self.aircraft.isChecked():
            self._place_aircraft(frame)  # after the colours: each aircraft takes its point's
        if time.perf_counter() >= self._slow_due:
            self._show_slow()
        elif not self._slow_timer.isActive():
            self._slow_timer.start(max(1, round(1e3 * (self._slow_due - time.perf_counter()))))

    def _place_aircraft(self, frame) -> None:
        body = frame.info.settings.body
        if body != self._aircraft_body:
            try:
                self.scene.show_aircraft(body_mesh(body))
            except (ShapeError, OSError) as exc:  # the file changed on disk since it was chosen
                self._message(f"Aircraft: {exc}")
                self.show_aircraft(False)
                return
            self._aircraft_body = body
        index = aircraft_indices(frame.n)
        self.scene.set_aircraft(body_to_ned(frame.q[:, index]), aircraft_size(len(index)), self._buffers[0][index])

    def _show_slow(self) -> None:
        """The histogram and the statistics of the latest frame drawn (at most every :data:`SLOW_SECONDS`)."""
        self._slow_timer.stop()
        if self._drawn is None:
            return
        frame = self._drawn[0]
        self._slow_due = time.perf_counter() + SLOW_SECONDS
        self.histogram.set_errors(frame.error_deg, frame.faulted)
        self._show_stats(frame, int(np.count_nonzero(frame.travelled_deg > LONG_WAY_DEG)))

    def _show_stats(self, frame, long_way: int) -> None:
        ok = ~frame.faulted & np.isfinite(frame.error_deg)
        error = frame.error_deg[ok]
        settle = self._spec.settle_deg
        parts = [f"<b>{frame.n:,} bodies</b>", f"t = {frame.t:.2f} s"]
        if len(error):
            median, p95 = np.percentile(error, (50, 95))
            worst = int(np.flatnonzero(ok)[np.argmax(error)])
            parts += [f"error median {median:.3g}°, 95 % {p95:.3g}°, max {error.max():.3g}° "
                      f"(body {int(frame.info.index[worst]):,})",
                      f"within {settle:g}°: {int(np.count_nonzero(error <= settle)):,}"]
        parts.append(f"long way (turned > 180°): {long_way:,}")
        faulted = int(np.count_nonzero(frame.faulted))
        parts.append(f'<span style="color: #ff8080">faulted: {faulted:,}</span>' if faulted else "faulted: 0")
        self.stats.setText(" · ".join(parts))

    def showEvent(self, event):
        """Draw the latest state when the tab comes into view."""
        super().showEvent(event)
        self._drawn = None
        if self._last is not None:
            self._draw(self._last)
