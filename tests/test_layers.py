"""The layers are what docs/architecture.md says they are.

* Importing the back-ends folder as ``solvers`` (from the repository root, where it lies) gives
  the package ``sipkl.solvers`` itself: one ``Status`` enum, whichever is imported first.
"""
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
