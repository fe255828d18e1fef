"""A formula's library is only linked, never run: numba's code generation told so (a version-checked hook).

What it rests on (numba 0.68's ``numba/core/typed_passes.py`` ``BaseNativeLowering.run_pass``,
``numba/core/cpu.py`` ``CPUContext.get_executable`` and ``numba/core/codegen.py`` ``CPUCodeLibrary.finalize``):
every function numba compiles, a ``register_jitable`` formula (:func:`sim.core.jit.jitable`) too, gets a code
library of its own, which ``get_executable`` finalises at once: its module optimised (a cheap then a full ``-O3``
module pipeline, ``_optimize_final_module``), added to the execution engine and compiled to machine code
(``finalize_object``), for the address of a Python-callable wrapper.  A formula's wrapper is never called (Python
callers run the formula's Python; :func:`~sim.core.jit.jitable` returns it); its library serves only to be linked
into its callers' libraries (``add_linking_library``: the module as it is, its functions ``linkonce_odr``), and each
caller optimises the linked module again, up to the kernel, whose library is the one compiled to machine code and
written to the disk cache.  So for a formula this hook skips the module pipeline and the machine code: its
library keeps the function-level passes numba ran when its IR was added and is marked finalised; the kernel's
library (and any library not of a formula) is finalised as numba does, its module optimised once with every
formula in it.  Nor are a formula's callees linked into it (stop 51): numba's ``finalize`` links each library's
callees into its module, so a formula's module held its whole subtree, cloned and linked again into each caller,
level by level up to the kernel (715 module clones and 994 links for ``advance_craft``).  The first library up
the call tree that is not a formula (the kernel, a numba overload, a ``prange`` loop's gufunc) links every formula
below it directly, each once (:func:`linked_once`): the same functions in the kernel's module, 300 clones and 579
links.  A formula's entry (``CompileResult.entry_point``) gets a null address: nothing
calls it.  Its environment pointer stays unset, as it is for every callee of a kernel loaded from numba's disk
cache (numba sets only the entry's).

Type inference asks each ``@overload`` template (a formula's ``register_jitable`` too, and every overload of an
operator, tried at each ``+`` or ``[]``) for its implementation again and again as constraints propagate; numba's
``_OverloadFunctionTemplate._get_impl`` finds it in a cache keyed by the compile's flags, whose hash is the same for
every flags object (numba hashes their option names) and whose comparison builds two dicts of about forty options:
about 4 % of a compile.  The hook keeps a memo beside it, per template, for the flags object of the compile under
way (numba pushes a copy of a function's flags for its whole compile): the same implementation, found without
asking (:data:`IMPLS_FOUND`); a new flags object starts a new memo, asking numba's cache as before.

The optimisations are numba's own passes on the same IR, without ``fastmath``: LLVM reorders no floating-point
operation without it, so the numbers are the same bits (the golden and compiled-against-Python tests say so);
the machine code differs only where the inliner decided otherwise.  The figures: docs/PERFORMANCE.md, "Compile
time (issue 42, stop 50)" and "(issue 42, stop 51)".

Checked, not assumed: :func:`install` patches only the numba versions in :data:`TESTED` whose classes have the
methods it wraps, else leaves numba as it is (:data:`ACTIVE` False: slower compiles, the same kernels).
``ATTITUDE_SIM_FULL_CODEGEN=1`` turns it off.
"""

from __future__ import annotations

import os

__all__ = ["TESTED", "ACTIVE", "LINKED", "IMPLS_FOUND", "applies", "install", "link_only", "linked_once", "FORMULAS",
           "FORMULA_OPTIONS"]

#: numba versions whose code generation this hook was read against and tested with.
TESTED = ("0.68.1",)

#: True once :func:`install` has patched numba (this process).
ACTIVE = False

#: Formulas' libraries only linked so far in this process (no module pipeline, no machine code of their own).
LINKED = 0

#: An overload's implementation found again in :func:`install`'s memo (numba's own cache not asked) in this process.
IMPLS_FOUND = 0

#: numba's options for a formula (numba's own ``jit`` options, given to ``register_jitable``): no Python wrapper
#: and no C wrapper are made for it, since nothing calls it from outside a kernel (numba's ``BaseNativeLowering``
#: makes them unless told; they were lowered, optimised and linked for each of a kernel's formulas).
FORMULA_OPTIONS = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)

#: ``(module, qualified name)`` of every formula (:func:`sim.core.jit.jitable`): their libraries are only linked.
FORMULAS: set = set()


def link_only(fn) -> None:
    """Record ``fn`` (a formula) as compiled only to be linked into its callers."""
    FORMULAS.add((fn.__module__, fn.__qualname__))


def applies(version: str) -> bool:
    """True when the hook is to be installed on numba ``version`` (in :data:`TESTED`, and not turned off by
    ``ATTITUDE_SIM_FULL_CODEGEN``): part of the disk cache's key (:func:`sim.core.jit.source_key`)."""
    return version in TESTED and os.environ.get("ATTITUDE_SIM_FULL_CODEGEN", "") in ("", "0")


def linked_once(libraries) -> list:
    """``libraries`` (a library's ``_linking_libraries``, in order) with every formula's own linking libraries after
    it, recursively, each once: what a caller that is not a formula links.  A formula's module holds only its own
    functions; numba would link its callees' modules into it, then that whole module into each of its callers,
    copying a formula's subtree once per level of the call tree up to the kernel."""
    out, seen, todo = [], set(), list(reversed(libraries))
    while todo:
        library = todo.pop()
        if library in seen:
            continue
        seen.add(library)
        out.append(library)
        if getattr(library, "_sim_link_only", False):
            todo.extend(reversed(library._linking_libraries))
    return out


def install(numba) -> bool:
    """Patch ``numba`` (imported) when :func:`applies` to its version and its code generation has what is
    patched; True when the hook is active."""
    global ACTIVE
    if ACTIVE:
        return True
    if not applies(numba.__version__):
        return False
    try:
        from numba import _dynfunc
        from numba.core import codegen, cpu
        from numba.core.targetconfig import ConfigStack
        from numba.core.typing.templates import _OverloadFunctionTemplate as template_class
        library_class, context_class = codegen.CPUCodeLibrary, cpu.CPUContext
        wanted = ("_finalize_dynamic_globals", "_raise_if_finalized", "finalize", "_ensure_finalized")
        if not all(hasattr(library_class, name) for name in wanted) or not hasattr(context_class, "get_executable") \
                or not hasattr(template_class, "_get_impl") or not hasattr(ConfigStack, "top_or_none"):
            return False
    except ImportError:
        return False
    finalize, get_executable, get_impl = library_class.finalize, context_class.get_executable, template_class._get_impl

    def _finalize(self):
        if not getattr(self, "_sim_link_only", False):
            self._linking_libraries = linked_once(self._linking_libraries)
            return finalize(self)
        self._raise_if_finalized()  # a formula: its own functions only, its callees' modules not linked in
        self._finalize_dynamic_globals()
        self._finalized = True  # no module pipeline, not added to the engine: no machine code

    def executable(self, library, fndesc, env):
        global LINKED
        if (fndesc.modname, fndesc.qualname) not in FORMULAS or library._finalized:
            return get_executable(self, library, fndesc, env)
        library._sim_link_only = True
        library._ensure_finalized()
        LINKED += 1
        return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                      f"linked-only formula {fndesc.qualname!r} (never called)", 0, env, (library,))

    def _get_impl(self, args, kws):
        global IMPLS_FOUND
        flags, cls = ConfigStack.top_or_none(), type(self)
        memo = cls.__dict__.get("_sim_impls")
        if memo is None or memo[0] is not flags:  # a function's compile pushes a copy of its flags: a new memo
            memo = (flags, {})
            cls._sim_impls = memo
        key = (self.context, tuple(args), tuple(kws.items()))
        found = memo[1].get(key)
        if found is None:
            found = memo[1][key] = get_impl(self, args, kws)
        else:
            IMPLS_FOUND += 1
        return found

    library_class.finalize = _finalize
    template_class._get_impl = _get_impl
    context_class.get_executable = executable
    ACTIVE = True
    return True
