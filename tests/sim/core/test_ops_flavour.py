"""A flavour of the operations (sim.core.ops.Ops) built by a user: the formulas run on what it is given.

The module docstring of sim.core.ops: each formula is written once over an
``ops`` argument.  A third flavour, here FLOAT's own functions wrapped to
count their calls, must give the formulas FLOAT's results bit for bit and
must be the one whose functions the formulas call.
"""

import collections

import pytest

from sim.core.angles import aircraft_angles
from sim.core.ops import FLOAT, Ops
from sim.core.quaternion import from_aircraft_angles
from sim.world.eclipse import beta_angle

NAMES = ("sqrt", "sin", "cos", "atan2", "hypot", "select", "clip", "any")


def counting():
    calls = collections.Counter()

    def wrap(name):
        f = getattr(FLOAT, name)

        def counted(*args):
            calls[name] += 1
            return f(*args)
        return counted
    return Ops("counting", **{name: wrap(name) for name in NAMES}), calls


def test_a_new_flavour_is_named_and_keeps_its_functions():
    functions = {name: (lambda *args, _n=name: _n) for name in NAMES}
    ops = Ops("mine", **functions)
    assert ops.name == "mine" and "mine" in repr(ops)
    for name in NAMES:
        assert getattr(ops, name) is functions[name], name


@pytest.mark.parametrize("angles", [(0.4, -0.2, 0.1), (-2.0, 1.2, 3.0)])
def test_formulas_run_on_a_new_flavour_as_on_floats(angles):
    ops, calls = counting()
    q = tuple(float(x) for x in from_aircraft_angles(*angles))
    assert aircraft_angles(q, ops) == aircraft_angles(q, FLOAT)
    assert calls["atan2"] >= 3 and calls["sqrt"] + calls["hypot"] >= 1
    r, v, sun = (7000.0, 100.0, -300.0), (0.2, 7.4, 1.1), (0.6, 0.0, 0.8)
    assert beta_angle(r, v, sun, ops) == beta_angle(r, v, sun, FLOAT)
    assert calls["clip"] >= 1
