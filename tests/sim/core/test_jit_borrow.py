"""Arrays borrowed down a call chain without reference counts (sim/core/jit_borrow.py, issue 42, stop 54).

``borrowed`` must be the array itself in Python, and compiled the same array (data, shape, strides, writes
through it) whose meminfo is null, so that numba's counts of it do nothing; a tuple of arrays each alike; any
other value (a formula given ``par`` and ``flags`` as tuples) as it is.  The meminfo is read here by a small intrinsic of the test's own (the first field of
numba's array structure), independent of the module under test.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from sim.core import jit
from sim.core.jit_borrow import borrowed

needs_jit = pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: nothing is compiled")


def test_borrowed_in_python_is_the_argument():
    a, b = np.zeros(3), np.ones((2, 2))
    assert borrowed(a) is a
    pair = (a, b)
    assert borrowed(pair) is pair


def _null_meminfo():
    """A compiled test of an array's meminfo: True when it is null (the first field of numba's array structure)."""
    jit.numba_module()
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def null_meminfo(typingctx, a):
        def codegen(context, builder, signature, args):
            array = context.make_array(a)(context, builder, value=args[0])
            return builder.icmp_unsigned("==", array.meminfo, array.meminfo.type(None))
        return types.boolean(a), codegen

    return null_meminfo


def _compiled():
    """``(owned, one, many, write)``: compiled functions telling whether an array's meminfo is null, as given and
    borrowed alone or in a tuple, and writing through a borrowed array."""
    numba = jit.numba_module()
    null_meminfo = _null_meminfo()

    @numba.njit
    def owned(a):
        return null_meminfo(a)

    @numba.njit
    def one(a):
        b = borrowed(a)
        return null_meminfo(b), b.shape[0], b[1], b.strides[0]

    @numba.njit
    def many(a, f):
        x, y = borrowed((a, f))
        return null_meminfo(x), null_meminfo(y), x[0] + y[1, 0], y.shape[1]

    @numba.njit
    def write(a):
        b = borrowed(a)
        v = b[1:]  # a view of a borrowed array: borrowed too
        v[0] = 7.0
        return null_meminfo(v)

    return owned, one, many, write


@needs_jit
def test_borrowed_compiled_has_no_meminfo_and_the_same_data():
    owned, one, many, write = _compiled()
    a = np.array([1.0, 2.5, 3.0])
    f = np.arange(6.0).reshape(2, 3)
    assert owned(a) is False  # numba counts an array it is given
    assert one(a) == (True, 3, 2.5, 8)
    assert many(a, f) == (True, True, 1.0 + 3.0, 3)
    assert write(a) is True
    assert a[1] == 7.0  # written through the borrowed view, into the caller's array


@needs_jit
def test_borrowed_compiled_passes_other_values_as_they_are():
    numba = jit.numba_module()
    null_meminfo = _null_meminfo()

    @numba.njit
    def mixed(a, x, p):
        b, y, r = borrowed((a, x, p))
        return null_meminfo(b), y, r, borrowed(p), borrowed(2.5)

    a = np.zeros(2)
    assert mixed(a, 1.5, (1.0, 2.0)) == (True, 1.5, (1.0, 2.0), (1.0, 2.0), 2.5)


def _arrays_returned(value):
    """The names a ``return`` gives back as arrays: bare, as a returned tuple's items, or sliced (a view)."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.Tuple):
        return set().union(*(_arrays_returned(e) for e in value.elts))
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and isinstance(value.value, ast.Name):
        return {value.value.id}
    return set()


def _borrowing_calls():
    """``(path, function, decorator text, borrowed names, parameters, names returned as arrays)`` of each
    ``borrowed(...)`` call in sim/."""
    root = Path(__file__).resolve().parents[3] / "sim"
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for call in ast.walk(fn):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "borrowed":
                    arg = call.args[0]
                    names = [ast.unparse(e) for e in (arg.elts if isinstance(arg, ast.Tuple) else [arg])]
                    returned = {n for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None
                                for n in _arrays_returned(r.value)}
                    found.append((path.relative_to(root.parent), fn.name,
                                  [ast.unparse(d) for d in fn.decorator_list], names,
                                  {a.arg for a in fn.args.args}, returned))
    return found


def test_sim_borrows_only_a_called_functions_own_arguments_never_returned():
    """The rule of sim/core/jit_borrow.py, read off the source: in a formula compiled as a function of its own
    (``@jitable``, not ``inline=True``: an inlined argument is a copy of a caller's variable that may die with it),
    only its own parameters borrowed, and none of them in a ``return`` (the borrowed array must not outlive the
    call)."""
    calls = _borrowing_calls()
    assert len(calls) >= 9  # the craft step's chain and the worlds (stop 54)
    for path, name, decorators, names, params, returned in calls:
        where = f"{path}:{name}"
        assert decorators == ["jitable"], where
        assert set(names) <= params, where
        assert not set(names) & returned, where
