"""The folders are the architecture, and the imports keep to it (docs/architecture.md).

The import graph is read from the source with ``ast``, imports inside functions included:

* each module imports only its own floor and the floors below it (:data:`FLOORS`, at most
  seven); the siblings of a floor never import each other (generic pricing and compute; the
  two instances, semi-infinite programs and kernel learning), and inside each instance the
  sub-folders keep their order (:data:`SIP_ORDER`, :data:`KERNEL_LEARNING_ORDER`);
* the graph has no circle;
* no module imports a sipkl module inside a function, but the applications and the package's
  face (whose kernel-learning names are read on first use);
* no ``_private`` name is imported from another sipkl module, and scikit-learn's private API
  is imported in one module only (:mod:`sipkl.utils.sklearn_api`);
* the engine imports only the contracts, its checkpoints, its statuses and its progress log;
* ``import sipkl.sip`` loads no kernel-learning module (in a fresh interpreter);
* no capability is found by probing an attribute name (``hasattr``, or ``getattr`` of a
  literal name) below the front ends: the contracts declare each one;
* no folder holds more than twelve modules, and ``setup.cfg`` installs every package of the
  tree, the back-ends folder ``solvers/`` as ``sipkl.solvers`` (and as that only).
"""
import ast
import configparser
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import import_graph  # noqa: E402 - the reader that draws docs/architecture.md

#: the floors, lowest first: a module belongs to the first whose prefixes name it
FLOORS = {
    "back-ends": ("sipkl.solvers",),
    "utilities": ("sipkl.utils",),
    "core": ("sipkl.core",),
    "generic pricing, compute": ("sipkl.pricing", "sipkl.compute"),
    "instances": ("sipkl.sip", "sipkl.kernel_learning"),
    "front-end helpers": ("sipkl.persistence", "sipkl.plotting", "sipkl.datasets"),
    "applications": ("sipkl.apps", "sipkl"),
}

#: siblings on one floor, which never import each other (either way)
SIBLINGS = [("sipkl.pricing", "sipkl.compute"), ("sipkl.sip", "sipkl.kernel_learning")]

#: the semi-infinite programs' sub-folders, lowest first (a program never imports compute)
SIP_ORDER = (("sipkl.sip.sets",), ("sipkl.sip.constraints",), ("sipkl.sip.pricing",),
             ("sipkl.sip.masters",), ("sipkl.sip.phases",),
             ("sipkl.sip.program", "sipkl.sip.nonlinear_program", "sipkl.sip.robust",
              "sipkl.sip.generalized"),
             ("sipkl.sip.library",), ("sipkl.sip",))

#: kernel learning's sub-folders and modules, lowest first
KERNEL_LEARNING_ORDER = (
    ("sipkl.kernel_learning.families", "sipkl.kernel_learning.large_n"),
    ("sipkl.kernel_learning.price_matrix",),
    ("sipkl.kernel_learning.space", "sipkl.kernel_learning.nystrom"),
    ("sipkl.kernel_learning.masters", "sipkl.kernel_learning.dc_oracle"),
    ("sipkl.kernel_learning.names",), ("sipkl.kernel_learning.expansion",),
    ("sipkl.kernel_learning.estimators",), ("sipkl.kernel_learning",))


def rank(module: str, order) -> int:
    for k, prefixes in enumerate(order):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return k
    raise AssertionError(f"{module} is in no entry of {order}")


def floor(module: str) -> int:
    return rank(module, FLOORS.values())


MODULES = import_graph.modules()


@functools.lru_cache(maxsize=None)
def imports(module: str, path: Path) -> tuple:
    """(imported sipkl module, names, inside a function) of each import of ``module``."""
    return tuple(import_graph.imports(module, path, MODULES))


@functools.lru_cache(maxsize=None)
def graph() -> dict:
    """{module: the sipkl modules it imports}, function-level imports included (read once:
    the tests do not change it)."""
    return {m: {d for d, _, _ in imports(m, p)} - {m} for m, p in MODULES.items()}


def test_at_most_seven_floors_and_every_module_on_one():
    assert len(FLOORS) <= 7
    assert len(MODULES) > 90 and all(floor(m) >= 0 for m in MODULES)


def test_each_floor_imports_only_the_floors_below_it():
    upward = [f"{m} -> {d}" for m, deps in graph().items() for d in deps
              if floor(d) > floor(m)]
    assert not upward, upward


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_siblings_do_not_import_each_other():
    across = [f"{m} -> {d}" for m, deps in graph().items() for d in deps
              for a, b in SIBLINGS + [(b, a) for a, b in SIBLINGS]
              if within(m, a) and within(d, b)]
    assert not across, across
    compute = [f"{m} -> {d}" for m, deps in graph().items() for d in deps
               if within(m, "sipkl.sip") and within(d, "sipkl.compute")]
    assert not compute, compute


@pytest.mark.parametrize("prefix, order", [("sipkl.sip", SIP_ORDER),
                                           ("sipkl.kernel_learning", KERNEL_LEARNING_ORDER)])
def test_each_instance_keeps_its_inner_order(prefix, order):
    inside = {m: {d for d in deps if within(d, prefix)}
              for m, deps in graph().items() if within(m, prefix)}
    upward = [f"{m} -> {d}" for m, deps in inside.items() for d in deps
              if rank(d, order) > rank(m, order)]
    assert not upward, upward


def test_the_import_graph_has_no_circle():
    """Every module gets a floor, one above the highest it imports, which a graph with a
    circle does not allow (a ``ValueError`` naming a module on it)."""
    assert len(import_graph.floors(graph())) == len(MODULES)


def test_the_rules_see_what_they_check():
    """The graph is read from the source: a package's import of its submodules, a
    function-level import of the face, a relative import two floors up."""
    edges = graph()
    assert "sipkl.kernel_learning" in edges["sipkl"]
    assert "sipkl.core.engine" in edges["sipkl.core"]
    assert "sipkl.utils.config" in edges["sipkl.kernel_learning.masters.hinge"]
    assert any(inside for _, _, inside in imports("sipkl", MODULES["sipkl"]))
    assert floor("sipkl.apps.cli") > floor("sipkl.sip.program") > floor("sipkl.core.engine")


def test_no_function_level_import_of_sipkl_below_the_applications():
    found = [f"{m} imports {d} in a function" for m, p in MODULES.items()
             if floor(m) < floor("sipkl.apps") for d, _, inside in imports(m, p) if inside]
    assert not found, found


def test_no_private_name_is_imported_across_modules():
    private = [f"{m} imports {n} from {d}" for m, p in MODULES.items()
               for d, names, _ in imports(m, p) for n in names if n.startswith("_")]
    assert not private, private


def test_scikit_learns_private_api_is_imported_in_one_module():
    users = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn")
                    and ("._" in node.module or any(a.name.startswith("_")
                                                    for a in node.names))):
                users.add(module)
    assert users == {"sipkl.utils.sklearn_api"}, users


def test_the_engine_imports_only_the_core_it_runs():
    assert graph()["sipkl.core.engine"] <= {"sipkl.core.contracts", "sipkl.core.checkpoint",
                                            "sipkl.core.progress", "sipkl.core.run_status"}


def run_fresh(code: str, cwd=ROOT):
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def test_sipkl_sip_loads_no_kernel_learning_and_the_back_ends_are_sipkl_solvers_only():
    """In a fresh interpreter from the repository root: ``import sipkl.sip`` loads no
    kernel-learning (nor compute) module; the back-ends are the folder ``solvers/`` as
    ``sipkl.solvers``, and ``import solvers`` refuses (one module identity)."""
    out = run_fresh("import sys, pathlib, sipkl.sip\n"
                    "print(sorted(m for m in sys.modules if m.startswith('sipkl.')))\n"
                    "import sipkl.solvers.status as s\n"
                    "print(pathlib.Path(s.__file__).parent.name)\n"
                    "try:\n    import solvers\nexcept ImportError:\n    print('refused')")
    assert out.returncode == 0, out.stderr[-3000:]
    modules, folder, refused = out.stdout.splitlines()
    loaded = eval(modules)
    assert "sipkl.sip.program" in loaded
    assert not [m for m in loaded if m.startswith(("sipkl.kernel_learning", "sipkl.compute"))]
    assert (folder, refused) == ("solvers", "refused")


def test_setup_cfg_installs_every_package_of_the_tree():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    listed = set(config["options"]["packages"].split())
    tree = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    assert listed == tree
    assert config["options"]["package_dir"].split() == ["sipkl.solvers", "=", "solvers"]


def test_no_folder_holds_more_than_twelve_modules():
    folders = {}
    for path in MODULES.values():
        folders.setdefault(path.parent, []).append(path)
    crowded = {str(f.relative_to(ROOT)): len(v) for f, v in folders.items() if len(v) > 12}
    assert not crowded, crowded


def test_no_capability_is_probed_by_attribute_name():
    """Below the front ends (the helpers, the applications, and the scikit-learn estimators,
    which follow scikit-learn's ``hasattr(self, "fitted_")`` idiom)."""
    front = floor("sipkl.persistence")
    probes = []
    for module, path in MODULES.items():
        if floor(module) >= front or within(module, "sipkl.kernel_learning.estimators"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and (node.func.id == "hasattr" or node.func.id == "getattr"
                         and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                         and not node.args[1].value.startswith("__"))):  # a name to print
                probes.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    assert not probes, probes
