"""When settings describe a free rigid body (sim.core.tumble.torque_free): every torque source counts.

The closed-form period of the free top (Hoffmann ch. 4; Landau-Lifshitz
section 37) only applies with no torque at all: no command torque, no
dampers, no controller, no reaction wheels (a gyrostat is not a free top),
no gravity gradient and no disturbance, each alone enough to end it.
"""

import pytest

from sim.core.tumble import torque_free
from sim.model.settings import Settings


def test_the_default_body_is_free():
    assert torque_free(Settings()) is True


@pytest.mark.parametrize("change", [
    {"torque": (0.0, 1e-4, 0.0)},
    {"dampers_on": True},
    {"controller": "euler"},
    {"controller": "quaternion"},
    {"wheels": "orthogonal"},
    {"wheels": ((0.0, 0.0, 1.0),)},
    {"gravity_gradient": True},
    {"disturbance": (0.0, 0.0, 1e-6)},
    {"disturbance": (1.0, 1.0, 1.0)},
    {"disturbance": (-1e-9, 0.0, 0.0)},
], ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_any_single_torque_source_ends_free_motion(change):
    assert torque_free(Settings(**change)) is False


def test_several_torque_sources_together_are_not_free():
    assert torque_free(Settings(gravity_gradient=True, disturbance=(0.0, 0.0, 1e-6))) is False
    assert torque_free(Settings(wheels="orthogonal", gravity_gradient=True)) is False
    assert torque_free(Settings(dampers_on=True, controller="euler")) is False
