"""Griffe extension: sipkl's docstrings as the API reference should show them.

Once a package is loaded (statically), the back-ends folder ``solvers/`` becomes its member
``sipkl.solvers`` (setuptools installs it there: ``package_dir`` in ``setup.cfg``; griffe
reads the package's folder only), and two adaptations follow:

* **Prose after a parameter list** — numpy-style sections run to the next header, so a
  paragraph written after the last parameter would be read as more parameters; it is put
  under a ``Notes`` header.
* **Sphinx roles** — ``:class:`~sipkl.core.engine.ColumnGeneration```, ``:meth:`stop_reason```,
  ``:mod:`solvers.dc``` … become mkdocs-autorefs references to the object named, resolved
  like a Python name from the docstring's scope (enclosing classes and modules, then their
  imports), else by a unique object of that name in the package. The references are
  *optional*: a target the site does not render (a private helper, the standard library)
  stays plain code.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([\w.]+)`")
#: a numpy-style entry of a parameter list: names separated by commas, then `` : type``
ENTRY = re.compile(r"^\*{0,2}\w+(\s*,\s*\*{0,2}\w+)*(\s*:.*)?$")
LISTS = ("Parameters", "Other Parameters", "Attributes")
#: the repository, where the back-ends folder ``solvers/`` lies
ROOT = Path(__file__).resolve().parents[1]


def _objects(obj):
    """``obj`` and every object defined below it (aliases, i.e. imports, excluded)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def _target(member) -> str:
    try:
        return member.final_target.path if member.is_alias else member.path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return member.target_path


def prose_as_notes(text: str) -> str:
    """Put a paragraph that follows a parameter list under a ``Notes`` header."""
    lines, out, section = text.splitlines(), [], None
    for k, line in enumerate(lines):
        if k + 1 < len(lines) and line.strip() and set(lines[k + 1].strip()) == {"-"}:
            section = line.strip()
        elif (section in LISTS and line and not line[0].isspace() and k > 0
              and not lines[k - 1].strip() and not ENTRY.match(line)
              and set(line.strip()) != {"-"}):
            out += ["Notes", "-----"]
            section = "Notes"
        out.append(line)
    return "\n".join(out)


def resolve(obj, name: str, by_name: dict) -> str | None:
    head, _, rest = name.partition(".")
    scope = obj if obj.is_class or obj.is_module else obj.parent
    while scope is not None:
        if head in scope.members:
            path = _target(scope.members[head])
            return f"{path}.{rest}" if rest else path
        scope = scope.parent
    if head in ("sipkl", "solvers"):
        return name
    matches = [p for p in by_name.get(name.rpartition(".")[2], []) if p.endswith(name)]
    return matches[0] if len(matches) == 1 else None


class SipklDocstrings(griffe.Extension):
    def on_package(self, *, pkg, loader, **kwargs) -> None:
        if pkg.name == "sipkl" and "solvers" not in pkg.members:
            pkg.set_member("solvers", loader.load(ROOT / "solvers"))
        objects = list(_objects(pkg))
        by_name: dict[str, list[str]] = {}
        for obj in objects:
            by_name.setdefault(obj.name, []).append(obj.path)
        for obj in objects:
            if obj.docstring is not None:
                text = prose_as_notes(obj.docstring.value)
                obj.docstring.value = ROLE.sub(
                    lambda m, obj=obj: self._reference(obj, m, by_name), text)

    @staticmethod
    def _reference(obj, match, by_name) -> str:
        short, name = match.group(1) == "~", match.group(2)
        title = f"<code>{html.escape(name.rpartition('.')[2] if short else name)}</code>"
        path = resolve(obj, name, by_name)
        if path is None:
            return title
        return f'<autoref identifier="{html.escape(path)}" optional>{title}</autoref>'
