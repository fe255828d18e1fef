"""A function's array arguments borrowed for its callees: no reference counts below it (issue 42, stop 54).

numba counts the references of every array a compiled function takes: an ``NRT_incref`` of its meminfo at the
function's entry, an ``NRT_decref`` where the argument's variable dies, each an atomic add on a counter the
ensemble's threads may share.  Down a call chain that passes the same arrays level by level (a spacecraft's step:
:func:`sim.model.advance_craft.craft_step`, its stages, their loads and torque laws), each level counts each
array in and out again, though the caller's reference keeps it alive for the whole call: about 240 ns of a
350 ns craft step (docs/PERFORMANCE.md, "Reference counts in the craft step").

:func:`borrowed` is the same array (the same data, shape, strides and type) without its meminfo: its counts
find a null pointer and do nothing (numba's ``NRT_incref``/``NRT_decref`` test for it first).  In Python (a
formula's Python, ``NUMBA_DISABLE_JIT``) it is the array itself.  The rule that makes it safe: borrow only a
function's own arguments, in a function that is called (not inlined at numba's IR level, where an argument is a
copy of the caller's variable, which may die with it), and never let the borrowed array outlive the call (not
returned, not stored): the caller's reference holds the array for the whole call.  Writes through it are
writes into the array.  No arithmetic changes: the same numbers reach the same formulas.
"""

from __future__ import annotations

__all__ = ["borrowed", "install"]


def borrowed(arrays):
    """The array, or the tuple of arrays, as it is (Python); compiled, the same with no reference counting (any other
    value, or a tuple's other items, as it is: a formula given its numbers as tuples borrows nothing)."""
    return arrays


def install(numba) -> None:
    """Teach ``numba`` (imported) :func:`borrowed`: typed as its argument, lowered as copies of its arrays'
    structures with their meminfo set to null."""
    from numba.core import cgutils, types
    from numba.core.imputils import impl_ret_borrowed
    from numba.extending import lower_builtin, type_callable

    @type_callable(borrowed)
    def _typer(context):
        def typer(arrays):
            return arrays
        return typer

    def _unowned(context, builder, ty, value):
        if isinstance(ty, types.Array):
            array = context.make_array(ty)(context, builder, value=value)
            array.meminfo = cgutils.get_null_value(array.meminfo.type)
            return array._getvalue()
        if isinstance(ty, types.BaseTuple):
            items = [_unowned(context, builder, t, builder.extract_value(value, i)) for i, t in enumerate(ty)]
            return context.make_tuple(builder, ty, items)
        return value

    @lower_builtin(borrowed, types.Any)
    def _lower(context, builder, sig, args):  # a new reference, as any call's result: counts of null do nothing
        ty = sig.args[0]
        return impl_ret_borrowed(context, builder, ty, _unowned(context, builder, ty, args[0]))
