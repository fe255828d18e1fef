"""Rewrite app/'s imports of sim's inner rooms so they go through the one door, ``sim``.

    python tools/one_door.py [ROOT] [--check] [--add]

For every ``.py`` file under ``ROOT/app`` (ROOT defaults to this repository),
every import of a module of sim that is not a door (``sim``, ``sim.api``,
``sim.lab``, ``sim.sweep``: the ``one-door`` contract in pyproject.toml) is
rewritten to import the same object from ``sim``, by the name the face gives
it (the ``_FACE`` table in ``ROOT/sim/__init__.py``, read as text)::

    from sim.model.settings import Settings, validate as check
        -> from sim import Settings, validate as check
    from sim.run.scenario import load    -> from sim import load_scenario as load
    import sim.core.quaternion as quat   -> from sim import quaternion as quat   (if the face has the module)

Only import statements change (at module level, in functions, in ``try`` and
``if`` blocks, parenthesised over several lines); a run of consecutive
``from sim import`` lines becomes one, wrapped in parentheses past 120
characters.  Running it again changes nothing.  Whatever it cannot convert (a
name the face does not offer, a bare ``import sim.x.y``, a relative import) is
printed as ``path:line: reason`` and left as it was; the exit status is then 1.
With ``--add``, a name the face lacks is put on it (a line in ``_FACE``, under
its module) when no other name of the face holds it and the module has it, and
the import converted; a clash of two names is still only printed (rename one by
hand).  With ``--check`` nothing is written and the status is 1 if a file would change.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

#: The modules app/ may import besides ``sim`` itself.
DOORS = ("sim", "sim.api", "sim.lab", "sim.sweep")
WIDTH = 120


def read_face(root: Path) -> dict[str, tuple[str, str]]:
    """The face's table, name -> (module, attribute), read from ``root/sim/__init__.py`` without importing it."""
    tree = ast.parse((root / "sim" / "__init__.py").read_text())
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "_FACE" for t in targets):
            table = ast.literal_eval(node.value)
            face = {}
            for name, target in table.items():
                module, _, attribute = target.partition(":")
                face[name] = (module, attribute or name)
            return face
    raise SystemExit(f"{root / 'sim' / '__init__.py'}: no _FACE table")


def is_door(module: str) -> bool:
    return module in DOORS


def inner(module: str | None) -> bool:
    """True for a module of sim that app/ may not import directly."""
    return bool(module) and (module == "sim" or module.startswith("sim.")) and not is_door(module)


class Converter:
    """Turns the targets of imports into names of the face; notes what it cannot."""

    def __init__(self, face: dict[str, tuple[str, str]], add: bool = False):
        self.face = face
        self.by_target = {target: name for name, target in face.items()}
        self.add = add
        self.added: dict[str, str] = {}   # name -> module, put on the face by --add

    def name_for(self, module: str, attribute: str) -> tuple[str | None, str]:
        """The face's name for ``module.attribute``, or None and the reason."""
        if (module, attribute) in self.by_target:
            return self.by_target[module, attribute], ""
        if attribute in self.face:
            # the same name from another module: the face may offer the same object (a re-export)
            other = self.face[attribute]
            return (attribute, "") if same_object(other, (module, attribute)) else (
                None, f"'{attribute}' on the face is {other[0]}.{other[1]}, not {module}.{attribute}: "
                      "add it to sim._FACE under another name")
        if self.add and not attribute.startswith("_") and exists(module, attribute):
            self.face[attribute] = self.by_target[module, attribute] = (module, attribute)
            self.added[attribute] = module
            return attribute, ""
        return None, f"{module}.{attribute} is not on the face: add it to sim._FACE in sim/__init__.py (or --add)"


def same_object(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """True if two (module, attribute) pairs name one object (imports both; False if either fails)."""
    from importlib import import_module
    try:
        return getattr(import_module(a[0]), a[1]) is getattr(import_module(b[0]), b[1])
    except Exception:   # a tree that does not import cannot prove the two the same
        return False


def exists(module: str, attribute: str) -> bool:
    """True if this tree's ``module`` has ``attribute`` (imports it)."""
    from importlib import import_module
    try:
        return hasattr(import_module(module), attribute)
    except Exception:   # a module that does not import offers nothing
        return False


def add_to_face(init: Path, added: dict[str, str]) -> None:
    """Write names put on the face by --add into ``_FACE``: under their module's comment, or a new one at the end."""
    lines = init.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("_FACE = {"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    for name, module in sorted(added.items()):
        entry = f'    "{name}": "{module}",\n'
        heading = f"    # {module}\n"
        if heading in lines[start:end]:
            lines.insert(lines.index(heading, start, end) + 1, entry)
        else:
            lines[end:end] = [heading, entry]
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    init.write_text("".join(lines))


def alias_text(name: str, local: str) -> str:
    return name if name == local else f"{name} as {local}"


def statement(names: list[str], indent: str) -> str:
    """``from sim import a, b as c``, wrapped in parentheses (names packed to WIDTH) past WIDTH."""
    line = f"from sim import {', '.join(names)}"
    if len(indent) + len(line) <= WIDTH:
        return line
    rows, row = [], ""
    for n in names:
        if row and len(indent) + 4 + len(row) + len(n) + 2 > WIDTH:
            rows.append(row)
            row = ""
        row += f"{n}, "
    rows.append(row)
    inside = "".join(f"{indent}    {r.rstrip()}\n" for r in rows)
    return f"from sim import (\n{inside}{indent})"


def bodies(tree: ast.AST):
    """Every list of statements in the tree (module, functions, classes, if/try/with/for blocks)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
        for handler in getattr(node, "handlers", []):
            yield handler.body


def convert(source: str, path: str, converter: Converter, problems: list[str]) -> str:
    """The source with its imports of sim's inner rooms rewritten through the face."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def span(node: ast.stmt) -> tuple[int, int]:
        return (offsets[node.lineno - 1] + node.col_offset, offsets[node.end_lineno - 1] + node.end_col_offset)

    def names_of(node: ast.stmt) -> list[str] | None:
        """The face names a statement becomes (None: leave it as it is)."""
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if node.module is None or node.module.split(".")[0] != "sim":
                    return None
            if node.module == "sim" and node.level == 0:
                return [alias_text(a.name, a.asname or a.name) for a in node.names]
            if not inner(node.module) or node.level:
                return None
            out = []
            for a in node.names:
                if a.name == "*":
                    problems.append(f"{path}:{node.lineno}: 'from {node.module} import *' cannot go through the face")
                    return None
                name, why = converter.name_for(node.module, a.name)
                if name is None:
                    problems.append(f"{path}:{node.lineno}: {why}")
                    return None
                out.append(alias_text(name, a.asname or a.name))
            return out
        if isinstance(node, ast.Import):
            found = [a for a in node.names if inner(a.name) and a.name != "sim"]
            if not found:
                return None
            if len(node.names) > 1:
                problems.append(f"{path}:{node.lineno}: split 'import {', '.join(a.name for a in node.names)}' "
                                "into one import a line first")
                return None
            a = found[0]
            if a.asname is None:
                problems.append(f"{path}:{node.lineno}: 'import {a.name}' is used as a dotted path: "
                                f"import its names from sim instead")
                return None
            module, _, attribute = a.name.rpartition(".")
            name, why = converter.name_for(module, attribute)
            if name is None:
                problems.append(f"{path}:{node.lineno}: {why}")
                return None
            return [alias_text(name, a.asname)]
        return None

    edits = []

    def flush(run: list) -> None:
        """Rewrite a run of consecutive imports as one, if one of them comes from an inner room."""
        if run and any(not (isinstance(n, ast.ImportFrom) and n.module == "sim" and not n.level) for n, _ in run):
            indent = lines[run[0][0].lineno - 1][:run[0][0].col_offset]
            names = list(dict.fromkeys(name for _, ns in run for name in ns))
            edits.append((span(run[0][0])[0], span(run[-1][0])[1], statement(names, indent)))
        run.clear()

    for block in bodies(tree):
        run: list[tuple[ast.stmt, list[str]]] = []
        for node in block:
            names = names_of(node)
            alone = lines[node.lineno - 1][:node.col_offset].strip() != ""   # after a semicolon
            if names is not None and run and not alone and node.lineno == run[-1][0].end_lineno + 1:
                run.append((node, names))
                continue
            flush(run)
            if names is not None:
                run.append((node, names))
                if alone:
                    flush(run)
        flush(run)

    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    parser.add_argument("--add", action="store_true",
                        help="put a name the face lacks on it (sim/__init__.py's _FACE), if no other name holds it")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    sys.path.insert(0, str(root))   # same_object imports this tree's sim
    converter = Converter(read_face(root), add=args.add and not args.check)
    problems: list[str] = []
    changed = []
    for path in sorted((root / "app").rglob("*.py")):
        old = path.read_text()
        new = convert(old, path.relative_to(root).as_posix(), converter, problems)
        if new != old:
            ast.parse(new)   # never write a file that no longer parses
            changed.append(path.relative_to(root).as_posix())
            if not args.check:
                path.write_text(new)
    if converter.added:
        add_to_face(root / "sim" / "__init__.py", converter.added)
        print("put on the face: " + ", ".join(f"{n} ({m})" for n, m in sorted(converter.added.items())))
    for line in changed:
        print(("would rewrite " if args.check else "rewrote ") + line)
    for line in problems:
        print("not converted: " + line)
    print(f"{len(changed)} files {'to rewrite' if args.check else 'rewritten'}, {len(problems)} imports not converted")
    return 1 if problems or (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
