"""The layers are what docs/architecture.md says they are.

* Each module imports only its own layer and the layers below it (:data:`LAYERS`, read from
  the source with ``ast``, imports inside functions included); the engine imports only the
  contracts, its checkpoints and its progress log; masters and oracles do not import each
  other.
* No capability is found by probing an attribute name (``hasattr``, or ``getattr`` of a
  literal name) below the front ends: the contracts declare each one
  (:mod:`sipkl.contracts`: ``StartsEmpty``, ``TimeLimited``, ``ProvesBound``, ``Stateful``,
  ``ColumnFamily``, ``PricingProblemBase``, ``SecondOrderRegularizer``; the kernels'
  ``ExponentialSum`` and the pricers' ``SecondOrderPricer``).
* Importing the back-ends folder as ``solvers`` (from the repository root, where it lies) gives
  the package ``sipkl.solvers`` itself: one ``Status`` enum, whichever is imported first.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_from_root(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("first, second", [("solvers", "sipkl.solvers"),
                                           ("sipkl.solvers", "solvers")])
def test_solvers_from_the_root_is_sipkl_solvers(first, second):
    out = run_from_root(
        f"import importlib\n"
        f"a = importlib.import_module('{first}.status')\n"
        f"b = importlib.import_module('{second}.status')\n"
        f"import solvers, sipkl.solvers, solvers.cvx, sipkl.solvers.cvx\n"
        f"print(a is b, a.Status.OPTIMAL is b.Status.OPTIMAL, solvers is sipkl.solvers,\n"
        f"      solvers.cvx is sipkl.solvers.cvx)")
    assert out.split() == ["True"] * 4


#: the layers, lowest first: a module belongs to the first whose prefixes name it
LAYERS = {
    "back-ends": ("sipkl.solvers",),
    "contracts": ("sipkl.contracts", "sipkl.run_status", "sipkl.price", "sipkl.progress",
                  "sipkl.documents", "sipkl.threads", "sipkl.blas", "sipkl.config",
                  "sipkl.cache"),
    "engine": ("sipkl.engine", "sipkl.checkpoint"),
    "kernels": ("sipkl.kernels", "sipkl.lazy_gram", "sipkl.packed_gram", "sipkl.gram_storage",
                "sipkl.expansion", "sipkl.workspace"),
    "masters and oracles": ("sipkl.masters", "sipkl.oracles"),
    "semi-infinite programs": ("sipkl.sip",),
    "names": ("sipkl.registry",),
    "front ends": ("sipkl.persistence", "sipkl.estimators", "sipkl.plotting", "sipkl.datasets",
                   "sipkl.demo", "sipkl.cli", "sipkl.experiments", "sipkl"),
}


def layer(module: str) -> int:
    for rank, prefixes in enumerate(LAYERS.values()):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} is in no layer of LAYERS")


def sources():
    """(module name, path) of every module of sipkl."""
    for path in sorted((ROOT / "sipkl").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        yield ".".join(parts if parts[-1] != "__init__" else parts[:-1]), path


def sipkl_imports() -> dict:
    """{module: the sipkl modules it imports}, from the source of every module of sipkl."""
    graph = {}
    for module, path in sources():
        package = list(path.relative_to(ROOT).parts[:-1])
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""])
                imported |= ({base.rstrip(".")} if node.module else
                             {f"{base.rstrip('.')}.{a.name}" for a in node.names})
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sipkl"):
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names if a.name.startswith("sipkl")}
        graph[module] = imported - {module}
    return graph


def test_each_layer_imports_only_the_layers_below_it():
    graph = sipkl_imports()
    assert len(graph) > 50 and "sipkl.engine" in graph
    upward = [f"{m} -> {d}" for m, deps in graph.items() for d in deps if layer(d) > layer(m)]
    assert not upward, upward
    assert graph["sipkl.engine"] <= {"sipkl.contracts", "sipkl.checkpoint", "sipkl.progress",
                                     "sipkl.run_status"}, graph["sipkl.engine"]
    across = [f"{m} -> {d}" for m, deps in graph.items() for d in deps
              for a, b in (("sipkl.masters", "sipkl.oracles"), ("sipkl.oracles", "sipkl.masters"))
              if m.startswith(a) and d.startswith(b)]
    assert not across, across


def test_the_rule_sees_an_upward_import():
    """The graph is read from the source: the kernel family base module's import of the
    workspace (inside a method) is there, and the workspace is in the same layer."""
    graph = sipkl_imports()
    assert "sipkl.workspace" in graph["sipkl.kernels.base"]
    assert "sipkl.registry" in graph["sipkl.persistence"]
    assert layer("sipkl.registry") > layer("sipkl.engine") > layer("sipkl.contracts")


def test_no_capability_is_probed_by_attribute_name():
    front = layer("sipkl.persistence")
    probes = []
    for module, path in sources():
        if layer(module) >= front:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and (node.func.id == "hasattr" or node.func.id == "getattr"
                         and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                         and not node.args[1].value.startswith("__"))):  # a name to print
                probes.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    assert not probes, probes
