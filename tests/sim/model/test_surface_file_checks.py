"""The surfaces file (sim.model.surface_file; docs/PHYSICS.md "Surface coefficients"): what it accepts at the
edges of each documented range, what it refuses (one SurfaceFileError naming the file, the entry and the key),
and which facets a ``normal`` / ``within_deg`` / ``box`` entry selects (geometry worked by hand)."""

import math
import re

import numpy as np
import pytest

from sim.model.surface_file import SurfaceFileError, coefficients, parse

CELLS = "absorbed = 0.8\nspecular = 0.1\ndiffuse = 0.1\n"


def words(message):
    return set(re.findall(r"\w+", message))


def refused(text):
    with pytest.raises(SurfaceFileError) as caught:
        parse(text, "panels.toml")
    message = str(caught.value)
    assert message.startswith("panels.toml"), message
    return message


@pytest.mark.parametrize("text", [
    "[default]\nabsorbed = 1\nspecular = 0\ndiffuse = 0\n",          # a black body: fractions at their ends
    "[default]\nabsorbed = 0\nspecular = 1.0\ndiffuse = 0\n",        # a perfect mirror
    "[default]\ndrag = 10\n",                                        # C_d at its documented top
    "[default]\ndrag = 0\n",
    "[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = 180\ndrag = 2\n",  # every facet
    "[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = 0\ndrag = 2\n",    # exactly aligned facets only
    "[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = 0.5\ndrag = 2\n",
    "[[surface]]\nbox = [[-1, -1, 0], [1, 1, 0]]\ndrag = 2\n",        # a flat panel's plane: min = max in z
])
def test_values_at_the_ends_of_their_ranges_are_accepted(text):
    parse(text, "panels.toml")


@pytest.mark.parametrize("text, key, shown", [
    ("[default]\ndrag = 10.5\n", "drag", "10.5"),
    ("[default]\ndrag = -0.1\n", "drag", "-0.1"),
    ('[default]\ndrag = "high"\n', "drag", "high"),
    ("[default]\ndrag = true\n", "drag", "True"),
    ("[default]\ndrag = nan\n", "drag", "nan"),
    ("[default]\nabsorbed = 1.5\nspecular = 0.0\ndiffuse = -0.5\n", "absorbed", "1.5"),   # sums to 1, yet > 1
    ("[[surface]]\nbox = [[0, 0, 0], [1, 1, 1]]\nabsorbed = 1.5\nspecular = 0\ndiffuse = -0.5\n", "absorbed", "1.5"),
    ("[[surface]]\nbox = [[0, 0, 0], [1, 1, 1]]\nspecular = 0.5\nabsorbed = 0.25\ndiffuse = true\n",
     "diffuse", "True"),
    ("[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = 180.5\n", "within_deg", "180.5"),
    ("[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = 200\n", "within_deg", "200"),
    ("[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = -1\n", "within_deg", "-1"),
    ('[[surface]]\nnormal = [0, 0, 1]\nwithin_deg = "wide"\n', "within_deg", "wide"),
    ("[[surface]]\ncolor = [0.2, 0.34]\n", "color", "0.34"),
    ('[[surface]]\ncolor = [0.2, "blue", 0.78]\n', "color", "blue"),
    ("[[surface]]\nnormal = [0, 0]\n", "normal", "0"),
    ("[[surface]]\nnormal = [0, true, 1]\n", "normal", "True"),
    ("[[surface]]\nbox = [[0, 0], [1, 1, 1]]\n", "box", "0"),
    ('[[surface]]\nbox = [[0, "low", 0], [1, 1, 1]]\n', "box", "low"),
    ("[[surface]]\nbox = [[0, 0, 0], [1, 1]]\n", "box", "1"),
    ('[[surface]]\nbox = [[0, 0, 0], [1, "high", 1]]\n', "box", "high"),
    ("[[surface]]\nbox = 3\n", "box", "3"),
    ("[[surface]]\nbox = [[0, 0, 0], [1, 1, 1], [2, 2, 2]]\n", "box", "2"),
    ("[[surface]]\nbox = [[0, 0, 0]]\n", "box", "0"),
    ("[[surface]]\nbox = [[0, 0, 2], [1, 1, 1]]\n", "box", "box"),    # a minimum above its maximum
])
def test_a_bad_value_is_refused_naming_the_entry_the_key_and_the_value(text, key, shown):
    message = refused(text)
    assert key in words(message) and shown in message, message
    if "[[surface]]" in text:
        assert "#1" in message, message


def test_optical_fractions_given_only_in_part_are_refused_naming_those_given():
    message = refused("[[surface]]\nbox = [[0, 0, 0], [1, 1, 1]]\nabsorbed = 0.5\nspecular = 0.5\n")
    given = re.search(r"only (.*)$", message)
    assert given and words(given.group(1)) == {"absorbed", "specular"} and "#1" in message, message


@pytest.mark.parametrize("text, names", [
    ("default = 3\n", {"default"}),
    ("[default]\nemissivity = 0.9\n", {"emissivity", "absorbed", "specular", "diffuse", "drag"}),
    ("surface = 3\n", {"surface"}),
    ("surface = [1, 2]\n", {"surface", "1"}),
    ("[[surface]]\nnormal = [0, 0, 1]\nglossy = 1\n",
     {"glossy", "name", "color", "normal", "within_deg", "box", "absorbed", "specular", "diffuse", "drag"}),
])
def test_a_misplaced_or_unknown_table_or_key_is_refused_naming_it_and_what_is_known(text, names):
    message = refused(text)
    assert names <= words(message), message


# Triangles: facet k has its outward normal tilted by angle[k] from +z (about x).
def tilted_facets(angles_deg, centre_z=(0.0, 0.0)):
    vertices, faces = [], []
    for k, angle in enumerate(np.radians(angles_deg)):
        # edges x and (0, cos a, sin a): normal x × (0, cos a, sin a) = (0, -sin a, cos a), at angle a from +z
        p0 = np.array([3.0 * k, 0.0, centre_z[k]])
        vertices += [p0, p0 + [1.0, 0.0, 0.0], p0 + [0.0, math.cos(angle), math.sin(angle)]]
        faces.append([3 * k, 3 * k + 1, 3 * k + 2])
    colors = np.full((len(vertices), 3), 0.5)
    return np.array(vertices), np.array(faces), colors


@pytest.mark.parametrize("entry, angles, chosen", [
    ("normal = [0, 0, 1]\n", (4.5, 5.5), [True, False]),                       # within_deg defaults to 5
    ("normal = [0, 0, 2]\n", (4.5, 45.0), [True, False]),                      # a normal of any length: its direction
    ("normal = [0, 0, 0.5]\n", (4.5, 5.5), [True, False]),
    ("normal = [0, 0, 1]\nwithin_deg = 30\n", (20.0, 40.0), [True, False]),
    ("normal = [0, 0, 3]\nwithin_deg = 30\n", (29.0, 31.0), [True, False]),
])
def test_a_normal_entry_selects_the_facets_within_its_cone(entry, angles, chosen):
    spec = parse(f"[[surface]]\n{entry}drag = 3.0\n", "panels.toml")
    vertices, faces, colors = tilted_facets(angles)
    drag = coefficients(spec, vertices, faces, colors)["drag"]
    assert list(drag) == [3.0 if c else 2.2 for c in chosen]


def test_a_flat_box_selects_the_facets_of_its_plane():
    spec = parse("[[surface]]\nbox = [[-10, -10, 0], [10, 10, 0]]\n" + CELLS, "panels.toml")
    vertices, faces, colors = tilted_facets((0.0, 0.0), centre_z=(0.0, 0.5))
    absorbed = coefficients(spec, vertices, faces, colors)["absorbed"]
    assert list(absorbed) == [0.8, 1.0]
