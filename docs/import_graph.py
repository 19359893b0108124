"""Draw sipkl's architecture from its code: the import graph between its folders, by floor.

Every ``import`` of every module (those inside functions too) is read with ``ast``; a
folder's arrows are the folders its modules import. A folder's floor is one above the highest
floor it imports, so the floors are computed, not declared: the drawing is what the code
does. ``docs/architecture.md`` shows its output, and ``tests/apps/test_docs.py`` checks that it
still does; ``tests/test_layers.py`` reads the imports through :func:`imports` to enforce the
floors.

Run:  python docs/import_graph.py
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the two instances, whose inner folders get a drawing of their own
INSTANCES = ("sipkl.sip", "sipkl.kernel_learning")


def modules() -> dict:
    """{module name: path} of sipkl and of its back-ends (``solvers/``, ``sipkl.solvers``)."""
    found = {}
    for path in sorted((ROOT / "sipkl").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in sorted((ROOT / "solvers").glob("*.py")):
        found["sipkl.solvers" + ("" if path.stem == "__init__" else "." + path.stem)] = path
    return found


def imports(module: str, path: Path, known) -> list:
    """``(imported, names, inside a function)`` of each import of a sipkl module that
    ``module`` (its source at ``path``) makes: the module imported (a submodule where the
    import names one of ``known``), the names taken from it (none for a module), and whether
    the import sits inside a function."""
    package = module.split(".") if path.stem == "__init__" else module.split(".")[:-1]
    tree = ast.parse(path.read_text())
    in_function = {id(n) for f in ast.walk(tree)
                   if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for n in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        inside = id(node) in in_function
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "")
                                                 .split(".")[0] == "sipkl"):
            base = (".".join(package[:len(package) - node.level + 1]
                             + ([node.module] if node.module else []))
                    if node.level else node.module)
            out += [(f"{base}.{a.name}", (), inside) if f"{base}.{a.name}" in known
                    else (base, (a.name,), inside) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, (), inside) for a in node.names
                    if a.name.split(".")[0] == "sipkl"]
    return out


def imported(module: str, path: Path, known) -> set:
    """The sipkl modules that ``module`` imports (function-level imports included)."""
    return {target for target, _, _ in imports(module, path, known)}


def unit(module: str, within: str = "sipkl") -> str:
    """The folder or module drawn for ``module``: the first name below ``within``."""
    depth = within.count(".") + 2
    return ".".join(module.split(".")[:depth])


def folder_graph(within: str = "sipkl") -> dict:
    """{unit: the other units its modules import}, for the modules inside ``within`` (the
    package, or one instance) and the imports that stay inside it."""
    known = modules()
    graph = {}
    for module, path in known.items():
        if not module.startswith(within + ".") or module == within:
            continue
        deps = {unit(d, within) for d in imported(module, path, known)
                if d.startswith(within + ".")}
        graph.setdefault(unit(module, within), set()).update(deps - {unit(module, within)})
    if within == "sipkl":
        graph["sipkl"] = {unit(d) for d in imported("sipkl", known["sipkl"], known)}
    return graph


def floors(graph: dict) -> dict:
    """{unit: its floor}: 0 for a unit that imports none, else one above the highest it
    imports. A circle has no floor (a ``ValueError``)."""
    floor, visiting = {}, set()

    def visit(name):
        if name in floor:
            return floor[name]
        if name in visiting:
            raise ValueError(f"an import circle through {name}")
        visiting.add(name)
        floor[name] = 1 + max((visit(d) for d in graph[name]), default=-1)
        visiting.discard(name)
        return floor[name]

    for name in sorted(graph):
        visit(name)
    return floor


def floor_lines(within: str) -> list:
    """The floors of the units inside ``within``, top first: each with what it imports."""
    graph = folder_graph(within)
    floor = floors(graph)

    def short(name):
        return name[len(within) + 1:] if name.startswith(within + ".") else name

    lines = []
    for level in sorted(set(floor.values()), reverse=True):
        names = sorted(u for u in graph if floor[u] == level)
        for k, name in enumerate(names):
            head = f"{level:>2} " if k == 0 else "   "
            deps = ", ".join(short(d) for d in sorted(graph[name])) or "—"
            lines.append(f"{head}{short(name):<24} → {deps}")
    return lines


def drawing() -> str:
    """The package's floors, then each instance's."""
    blocks = [["sipkl"] + floor_lines("sipkl")]
    blocks += [[name] + floor_lines(name) for name in INSTANCES]
    return "\n\n".join("\n".join(block) for block in blocks)


if __name__ == "__main__":
    print(drawing())
