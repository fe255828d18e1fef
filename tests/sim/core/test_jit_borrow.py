"""Arrays borrowed down a call chain without reference counts (sim/core/jit_borrow.py, issue 42, stop 54).

``borrowed`` must be the array itself in Python, and compiled the same array (data, shape, strides, writes
through it) whose meminfo is null, so that numba's counts of it do nothing; a tuple of arrays each alike; any
other value (a formula given ``par`` and ``flags`` as tuples) as it is.  The meminfo is read here by a small intrinsic of the test's own (the first field of
numba's array structure), independent of the module under test.
"""

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
