"""``import sim``'s face (sim/__init__.py): a lazy module (PEP 562) whose ``dir()`` still shows every public name."""

import sim


def test_dir_of_sim_lists_every_name_of_the_face_loaded_or_not_and_the_modules_own():
    """PEP 562: ``dir(module)`` is the module's ``__dir__()``; a completion or ``help(sim)`` must see the names
    not loaded yet (``__all__``) as well as the module's own globals."""
    names = dir(sim)
    assert names == sorted(set(names))
    assert set(sim.__all__) <= set(names)
    assert {"__all__", "__dir__", "__getattr__", "__name__", "__doc__"} <= set(names)
