"""make mutate reaches the kernel formulas (docs/RELIABILITY.md, "With the compiled kernels, the JIT off").

mutmut 3.8 leaves every decorated function without a mutant, so the ``@jitable`` and ``@kernel`` functions of
issue 42 had none.  ``tools/mutate.py`` writes them in its copy of the checkout as a plain ``def`` and an
assignment (:func:`plain_kernels`); these tests check that the rewrite keeps what the module defines, and that
mutmut then makes mutants of a formula it made none of before.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import mutate  # noqa: E402

SOURCE = '''
from sim.core.jit import jitable, kernel


def plain(x):
    return x - 1


@jitable
def half(x):
    """A formula."""
    return x / 2.0


@jitable(inline=True)
def twice(x):
    return 2.0 * x


@kernel
def entry(x):
    return half(x) + twice(x)


@kernel(parallel=True)
def many(x):
    return entry(x)


@kernel
@jitable
def stacked(x):
    return -x


@staticmethod
def left_alone(x):
    return x
'''


def _decorated(tree):
    return {f.name: [ast.unparse(d) for d in f.decorator_list] for f in tree.body if isinstance(f, ast.FunctionDef)}


def test_each_kernel_decorator_becomes_an_assignment_after_its_def_and_nothing_else_changes():
    plain = mutate.plain_kernels(SOURCE)
    tree = ast.parse(plain)
    assert _decorated(tree) == {"plain": [], "half": [], "twice": [], "entry": [], "many": [],
                                "stacked": [], "left_alone": ["staticmethod"]}
    assigned = [ast.unparse(s) for s in tree.body if isinstance(s, ast.Assign)]
    assert assigned == ["half = jitable(half)", "twice = jitable(inline=True)(twice)", "entry = kernel(entry)",
                        "many = kernel(parallel=True)(many)", "stacked = jitable(stacked)", "stacked = kernel(stacked)"]
    order = [s.name if isinstance(s, ast.FunctionDef) else s.targets[0].id for s in tree.body
             if isinstance(s, (ast.FunctionDef, ast.Assign))]
    assert order == ["plain", "half", "half", "twice", "twice", "entry", "entry", "many", "many", "stacked", "stacked",
                     "stacked", "left_alone"]
    assert mutate.plain_kernels(plain) == plain


def test_the_rewritten_module_defines_the_same_kernels(monkeypatch):
    from sim.core import jit

    before, after = {}, {}
    exec(compile(SOURCE, "before", "exec"), before)
    exec(compile(mutate.plain_kernels(SOURCE), "after", "exec"), after)
    for name in ("entry", "many"):
        assert isinstance(after[name], jit.Kernel) and after[name].py_func.__name__ == name
        assert after[name]._options == before[name]._options
        assert after[name].py_func(3.0) == before[name].py_func(3.0) == 7.5


def test_mutmut_mutates_a_formula_only_once_it_is_undecorated(tmp_path, monkeypatch):
    file_mutation = pytest.importorskip("mutmut.mutation.file_mutation")
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "setup.cfg").write_text("[mutmut]\nsource_paths =\n    m.py\n")   # mutmut reads its configuration
    monkeypatch.chdir(tmp_path)
    made = file_mutation.mutate_file_contents("m.py", SOURCE)
    assert {n.split("__mutmut_")[0] for n in made.mutant_names} == {"x_plain"}
    made = file_mutation.mutate_file_contents("m.py", mutate.plain_kernels(SOURCE))
    assert {n.split("__mutmut_")[0] for n in made.mutant_names} == {"x_plain", "x_half", "x_twice", "x_entry",
                                                                     "x_many",
                                                                     "x_stacked"}


def test_every_kernel_function_of_sim_is_undecorated_in_the_copy():
    for path in sorted((ROOT / "sim").rglob("*.py")):
        text = path.read_text()
        decorated = _decorated(ast.parse(mutate.plain_kernels(text)))
        assert not [n for n, ds in decorated.items() if any(d.split("(")[0] in ("jitable", "kernel") for d in ds)], path
