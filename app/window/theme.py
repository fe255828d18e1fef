"""The window's look: a dark Fusion palette and one style sheet, and the colours the window hands out.

Widgets find their style by object name (``label_fault``,
``status_recording``, ``readouts``...); only :func:`apply_theme` sets colours
on the application.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

__all__ = ["apply_theme", "STYLE_SHEET", "COMPARE_COLORS", "swatch", "cycle"]

#: Colours of comparison bodies (RGBA, translucent), in the scenario's order.
COMPARE_COLORS = ((1.0, 0.6, 0.15, 0.4), (0.85, 0.35, 1.0, 0.4), (1.0, 0.95, 0.25, 0.4),
                  (0.3, 1.0, 0.6, 0.4), (1.0, 0.4, 0.5, 0.4))

STYLE_SHEET = """
QGroupBox { font-weight: bold; border: 1px solid #3b414d; border-radius: 4px; margin-top: 9px; padding-top: 3px; }
QGroupBox::title { subcontrol-origin: margin; left: 8px; padding: 0 3px; color: #aeb6c4; }
QLineEdit { border: 1px solid #4a5060; border-radius: 3px; padding: 2px 4px; background: #1b1e24; }
QLineEdit[invalid="true"] { border: 1px solid #ff5c5c; background: #3a1f24; }
QLabel#label_caption { color: #d6dae2; }
QLabel#label_title { font-weight: bold; color: #ffffff; }
QLabel#label_fault { background: #5c1d24; color: #ffdada; padding: 5px 8px; border-radius: 3px; }
QLabel#label_message { background: #4d3d14; color: #ffe9ad; padding: 5px 8px; border-radius: 3px; }
QLabel#gimbal_lock_warning { color: #ffb347; font-weight: bold; }
QLabel[warning="true"] { color: #ffb347; }
QLabel#note { color: #8a93a3; }
QLabel#readout_name { color: #8f98a8; }
QFrame#readouts QLabel { font-family: "DejaVu Sans Mono", monospace; }
QFrame#readouts { background: #1c1f25; border-top: 1px solid #323844; }
QDialog#help_window { background: rgb(14, 16, 21); }
QDialog#help_window QLabel { font-size: 10.5pt; }
QLabel#status_recording { color: #ff6b6b; font-weight: bold; }
QLabel#status_video { color: #ff6b6b; font-weight: bold; }
"""


def apply_theme(app: QApplication) -> None:
    """A dark Fusion palette and the window's style sheet."""
    app.setStyle("Fusion")
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#23262d", QPalette.ColorRole.WindowText: "#dfe3ea",
        QPalette.ColorRole.Base: "#1b1e24", QPalette.ColorRole.AlternateBase: "#262a32",
        QPalette.ColorRole.ToolTipBase: "#2d313a", QPalette.ColorRole.ToolTipText: "#eef1f5",
        QPalette.ColorRole.Text: "#e3e6ec", QPalette.ColorRole.Button: "#2e323b",
        QPalette.ColorRole.ButtonText: "#e3e6ec", QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Highlight: "#3d7eff", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#6ea8ff", QPalette.ColorRole.PlaceholderText: "#6f7785",
    }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6a7180"))
    app.setPalette(palette)
    app.setStyleSheet(STYLE_SHEET)


def swatch(rgb) -> str:
    """A coloured square for rich text (a legend entry)."""
    r, g, b = (round(255 * c) for c in rgb[:3])
    return f'<span style="color: rgb({r},{g},{b})">■</span>'


def rgba(color: str, alpha: float = 1.0) -> tuple:
    """``"#rrggbb"`` as ``(r, g, b, alpha)`` floats in 0..1 (what the 3D view's items take)."""
    return tuple(int(color[i:i + 2], 16) / 255.0 for i in (1, 3, 5)) + (alpha,)


def cycle(items, n: int) -> list:
    """``n`` items taken from ``items`` in turn (the comparison bodies' colours)."""
    return [items[i % len(items)] for i in range(n)]
