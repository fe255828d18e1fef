"""The window's rooms' tests see the window's look from their first test: the theme (a dark Fusion palette and
the style sheet, :func:`app.window.theme.apply_theme`) is set once on the application, as the window's launch
sets it, so no test's geometry depends on whether an earlier test of the same process launched the window (a
readout test passed alone and failed after the window's tests: the style sheet's border on the readouts)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _window_theme(request):
    """The theme on the QApplication, for a test that has one (pytest-qt's ``qapp``, also behind ``qtbot``)."""
    if {"qtbot", "qapp"} & set(request.fixturenames):
        from app.window.theme import apply_theme

        app = request.getfixturevalue("qapp")
        if app.styleSheet() != _sheet():
            apply_theme(app)
    yield


def _sheet() -> str:
    from app.window.theme import STYLE_SHEET

    return STYLE_SHEET
