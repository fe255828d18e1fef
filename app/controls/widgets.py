"""The two input widgets every control group is built from.

:class:`SettingField` is a line edit for one setting, checked by
:func:`sim.model.settings.validate` (the same check as scenario files and the
command line); :class:`ValueSlider` is a slider for a number with its value
shown beside it.  Both set themselves from the model with their signals
blocked, so showing a value never sends it back.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, QSize, Qt, Signal
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QLineEdit, QScrollArea, QSlider, QStyle, QToolButton,
                               QWidget)

from sim import SettingsError, validate

__all__ = ["SettingField", "ValueSlider", "PageScroll", "format_value", "text_decimals"]


def format_value(value) -> str:
    """A setting's value as the text a field shows: ``"6, 10, 12"`` or ``"0.001"`` (``""`` for None).

    A tuple of vectors (reaction wheel axes) reads ``"1, 0, 0; 0, 1, 0"``.
    """
    if value is None:
        return ""
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "; ".join(format_value(v) for v in value)
    if isinstance(value, tuple):
        return ", ".join(f"{x:g}" for x in value)
    return f"{value:g}"


class SettingField(QLineEdit):
    """A line edit for one setting; a bad value is marked and never sent.

    Typing marks the field red at once when the text is not a valid value
    (the tooltip then holds the library's message, which names the setting);
    Return or leaving the field emits :attr:`committed` with the normalised
    value if it is valid and new, or :attr:`rejected` with the message.  A
    bad value changes nothing else: the simulation keeps the last valid one.

    Parameters
    ----------
    key : str
        The setting, a :class:`~sim.model.settings.Settings` field name; the
        objectName is ``field_<key>``.
    hint : str
        Tooltip while the value is valid (what to type, units).
    parent : QWidget, optional
    check : callable, optional
        ``check(key, text)`` returns the normalised value or raises
        SettingsError; :func:`sim.model.settings.validate` unless given (a value
        that is not a setting, e.g. the ensemble's number of bodies).
    """

    #: The new valid value (normalised by validate).
    committed = Signal(object)
    #: Why the text was not accepted.
    rejected = Signal(str)

    def __init__(self, key: str, hint: str, parent=None, check=validate):
        super().__init__(parent)
        self.key = key
        self._validate = check
        self._hint = hint
        self._value = None
        self._error: str | None = None
        self.setObjectName(f"field_{key}")
        self.setToolTip(hint)
        self.setPlaceholderText(hint.split(";")[0])
        self.textEdited.connect(self._check)
        self.editingFinished.connect(self._commit)

    @property
    def value(self):
        """The last valid value (what the simulation uses)."""
        return self._value

    @property
    def error(self) -> str | None:
        """The message for the text in the field, or None when it is valid."""
        return self._error

    def show_value(self, value) -> None:
        """Show a value from the model (signals blocked); the text is kept while the user types."""
        self._value = value
        if self.hasFocus():
            return
        with QSignalBlocker(self):
            self.setText(format_value(value))
        self._mark(None)

    def _check(self, text: str):
        try:
            value = self._validate(self.key, text)
        except SettingsError as exc:
            self._mark(str(exc))
            return None
        self._mark(None)
        return value

    def _commit(self) -> None:
        value = self._check(self.text())
        if value is None:
            self.rejected.emit(f"{self._error} (keeping {format_value(self._value)})")
        elif value != self._value:
            self._value = value
            self.committed.emit(value)

    def _mark(self, error: str | None) -> None:
        if error == self._error:
            return
        self._error = error
        self.setProperty("invalid", "true" if error else "false")  # a string: PySide6 mis-counts bools
        self.setToolTip(self._hint if error is None else f"{error}\nThe simulation keeps {format_value(self._value)}.")
        self.style().unpolish(self)
        self.style().polish(self)


def _decimals(step: float) -> int:
    """Decimal places that show a multiple of ``step`` (0.1 -> 1, 0.05 -> 2, 5e-05 -> 5, 2 -> 0)."""
    return max(0, -math.floor(math.log10(step) + 1e-9))


class PageScroll(QScrollArea):
    """A page of controls that scrolls up and down, never sideways, and is never cut at its right edge.

    A ``QScrollArea`` reports no minimum width of its own, so the panel
    could be laid out narrower than its page plus the vertical scroll bar;
    the page was then cut at the right edge whenever the bar showed ("Use"
    read "Us", issue 43).  This one asks for the page's minimum width and
    the bar's, so the layouts above it (the tabs, the splitter) keep room for both.
    """

    def __init__(self, page, parent=None):
        super().__init__(parent, widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(page)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        return QSize(max(hint.width(), self.widget().minimumSizeHint().width() + bar + 2 * self.frameWidth()),
                     hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.minimumSizeHint().width()), hint.height())


def text_decimals(resolution: float, factor: float = 1.0) -> int:
    """Decimal places of a slider's text: those that show a step of ``resolution`` read as ``value * factor``."""
    return _decimals(resolution * factor)


class ValueSlider(QWidget):
    """A horizontal slider for a number, its value as text, and an optional zero button.

    Parameters
    ----------
    name : str
        objectName suffix: the slider is ``slider_<name>``, the zero button
        ``button_zero_<name>``.
    label : str
        Short label on the left.
    low, high, resolution : float
        Range and step of the value.
    unit : str
        Shown after the value.
    zero_button : bool
        Add a button that sets the value to 0.
    parent : QWidget, optional
    """

    #: The new value, from the user (not from :meth:`show_value`).
    moved = Signal(float)
    #: The user let go of the handle.
    released = Signal()

    def __init__(self, name: str, label: str, low: float, high: float, resolution: float,
                 unit: str = "", zero_button: bool = False, parent=None):
        super().__init__(parent)
        self._unit = unit
        self.slider = QSlider(Qt.Orientation.Horizontal, objectName=f"slider_{name}")
        self._text = QLabel(alignment=Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._set_range(low, high, resolution)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(label, minimumWidth=self.fontMetrics().horizontalAdvance("WW") + 4))
        layout.addWidget(self.slider, 1)
        layout.addWidget(self._text)
        if zero_button:
            zero = QToolButton(text="0", objectName=f"button_zero_{name}", toolTip=f"Set {label} to zero")
            zero.clicked.connect(lambda: self.slider.setValue(0))
            layout.addWidget(zero)
        self.slider.valueChanged.connect(self._changed)
        self.slider.sliderReleased.connect(self.released)
        self._show_text()

    @property
    def value(self) -> float:
        return round(self.slider.value() * self._resolution, self._value_decimals)

    @property
    def range(self) -> tuple:
        """``(low, high, resolution)`` of the value."""
        return (self.slider.minimum() * self._resolution, self.slider.maximum() * self._resolution,
                self._resolution)

    def set_range(self, low: float, high: float, resolution: float, unit: str | None = None,
                  factor: float = 1.0, decimals: int | None = None) -> None:
        """A new range and step; the value is kept, clamped into the range (signals blocked).

        ``unit`` and ``factor`` change how the value reads (``value * factor``
        followed by ``unit``; 1e3 and "mN m" for a value in N m), not the value;
        ``decimals``, the text's decimal places (default: those of a step, :func:`text_decimals`),
        lets sliders side by side read alike.
        """
        value = self.value
        if unit is not None:
            self._unit = unit
        with QSignalBlocker(self.slider):
            self._set_range(low, high, resolution, factor, decimals)
            self.slider.setValue(round(value / resolution))
        self._show_text()

    def _set_range(self, low: float, high: float, resolution: float, factor: float = 1.0,
                   decimals: int | None = None) -> None:
        self._resolution = resolution
        self._factor = factor
        self._value_decimals = _decimals(resolution)  # of the value
        self._decimals = text_decimals(resolution, factor) if decimals is None else decimals  # of the text
        self.slider.setRange(round(low / resolution), round(high / resolution))
        self.slider.setPageStep(max(1, round((high - low) / resolution / 20)))
        self._text.setMinimumWidth(self.fontMetrics().horizontalAdvance(
            f"-{max(abs(low), abs(high)) * factor:.{self._decimals}f} {self._unit}") + 6)

    def set_value(self, value: float) -> None:
        """Move the slider as the user would (emits :attr:`moved` when it changes)."""
        self.slider.setValue(round(value / self._resolution))

    def show_value(self, value: float) -> None:
        """Show a value from the model (signals blocked; clamped to the range)."""
        with QSignalBlocker(self.slider):
            self.slider.setValue(round(value / self._resolution))
        self._show_text()

    def _changed(self, _position: int) -> None:
        self._show_text()
        self.moved.emit(self.value)

    def _show_text(self) -> None:
        shown = round(self.value * self._factor, self._decimals) + 0.0  # never -0.0
        self._text.setText(f"{shown:+.{self._decimals}f} {self._unit}".rstrip())
