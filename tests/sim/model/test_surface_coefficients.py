"""sim.world.surfaces.facets refuses a bad optical or drag coefficient with a message naming the coefficient
(as the user wrote it: absorbed, specular, diffuse, drag)."""

import math

import pytest

from sim.model.surface_file import SurfaceFileError, parse
from sim.world.surfaces import facets

TRIANGLE = ([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)], [(0, 1, 2)])


@pytest.mark.parametrize("name, bad", [("absorbed", -0.1), ("absorbed", math.nan), ("specular", -0.5),
                                       ("diffuse", math.inf), ("drag", -2.2)])
def test_a_bad_coefficient_is_named(name, bad):
    good = dict(absorbed=0.2, specular=0.5, diffuse=0.3, drag=2.2)
    good[name] = bad
    with pytest.raises(ValueError) as err:
        facets(*TRIANGLE, **good)
    assert name in str(err.value)


def test_coefficients_that_do_not_sum_to_one_are_refused_naming_all_three():
    with pytest.raises(ValueError) as err:
        facets(*TRIANGLE, absorbed=0.5, specular=0.3, diffuse=0.3)
    assert all(w in str(err.value) for w in ("absorbed", "specular", "diffuse"))


@pytest.mark.parametrize("off, accepted", [(5e-10, True), (5e-9, False), (5e-8, False)])
def test_facets_and_the_surfaces_file_agree_on_what_sums_to_one(off, accepted):
    # one rule for both entry points: what the file reader refuses, facets refuses too, and the other way round
    diffuse = 0.3 + off
    text = f"[default]\nabsorbed = 0.2\nspecular = 0.5\ndiffuse = {diffuse!r}\n"
    try:
        parse(text, "panels.toml")
        file_ok = True
    except SurfaceFileError:
        file_ok = False
    try:
        facets(*TRIANGLE, absorbed=0.2, specular=0.5, diffuse=diffuse)
        facets_ok = True
    except ValueError:
        facets_ok = False
    assert file_ok == facets_ok == accepted
