"""The control panel and its groups, one group per module.

Each group is a thin ``QGroupBox`` that takes ``submit(key, value)`` in its
constructor, sends validated inputs through it, and shows the model's
settings in ``show_settings(settings)`` with its signals blocked.
"""

from app.controls.panel import ControlPanel

__all__ = ["ControlPanel"]
