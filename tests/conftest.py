"""Shared test set-up: the Qt platform and the GL guard.

pytest-xvfb starts a virtual screen and sets DISPLAY; OpenGL then works with
the xcb platform (Mesa llvmpipe).  Without a display Qt runs offscreen, where
no GL context exists, so GL tests skip (a GL call there kills the process).
"""

import os

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("DISPLAY") else "offscreen"


def gl_available() -> bool:
    """True when Qt runs on a real (virtual) X screen, where a GL context can be made."""
    return bool(os.environ.get("DISPLAY")) and os.environ.get("QT_QPA_PLATFORM") == "xcb"


def pytest_collection_modifyitems(config, items):
    if gl_available():
        return
    skip = pytest.mark.skip(reason="no OpenGL: needs a display with the xcb platform (Xvfb)")
    for item in items:
        if "gl" in item.keywords:
            item.add_marker(skip)


def pytest_addoption(parser):
    parser.addoption("--soak-minutes", type=float, default=0.5,
                     help="wall time of the soak test in minutes (make soak: 30)")
