"""Tools of the checkout, not installed (not in the wheel or the package list of pyproject.toml).

The generators of the assets: ``python -m tools.make_aircraft``,
``python -m tools.make_bodies``, then ``python -m tools.bake_bodies``.
assets/ holds their output, data only; tests check it against them.
"""
