"""The scripts of ``examples/`` run end to end in their ``--quick`` mode, with sensible numbers.

Each script has ``main(argv) -> dict``; :func:`run_example` imports it from its path and runs
``main(["--quick"])``.
"""
import importlib.util
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, argv=("--quick",)) -> dict:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(list(argv))


def test_afkanpour_sinusoid(capsys):
    out = run_example("afkanpour_sinusoid")
    assert "FSAM" in capsys.readouterr().out
    fsam = out["fsam"]
    # the three heaviest learned frequencies are the generating ones, √2, √12, √60
    top = np.sort(fsam["frequencies"][np.argsort(-fsam["weights"])[:3]])
    np.testing.assert_allclose(top, np.sqrt([2.0, 12.0, 60.0]), atol=0.05)
    assert fsam["test_error"] <= 0.15
    # H1: one true frequency is far worse than all three
    assert min(out["fixed"][(i,)] for i in range(3)) > 0.15
    assert out["fixed"][(0, 1, 2)] < 0.05
    # totally corrective re-weighting of FSAM's columns cannot lower the alignment
    assert out["alignf_on_fsam_columns"]["alignment"] >= fsam["alignment"] - 1e-9
    assert out["DU"]["test_error"] > 0.3  # the coarse grid {0, …, 9} misses the frequencies
