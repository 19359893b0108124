"""The default runs of the nonconvex literature problems (sipkl.sip.library.nonlinear), for
tests that demand the same answers in another process with another BLAS thread count: run as
a script it prints ``{"name derivatives": objective}`` as JSON."""
import json
import sys
import warnings

import numpy as np

from sipkl.sip.library.nonlinear import NONLINEAR_PROBLEMS, NONLINEAR_PROBLEMS_2D

#: the programs with a minimizer (OET5 has none: a run ends where its tolerance stops it on
#: the way to the infimum), each with the closed-form derivatives; OET6 and OET7 also as a
#: user writes them (no derivatives, start 0), whose symmetric start leads to saddles
CASES = [(name, True) for name in NONLINEAR_PROBLEMS if name != "oet5"] + [
    ("fseminf2d", True), ("oet6", False), ("oet7", False)]


def default_runs(perturbation: float = 0.0) -> dict:
    """``{"name derivatives": result}`` of ``problem.build(derivatives).solve()`` for every
    case, from the start moved by ``perturbation`` times max(|x0_k|, 1) (along a fixed
    pattern of signs and sizes)."""
    results = {}
    for name, derivatives in CASES:
        problem = {**NONLINEAR_PROBLEMS, **NONLINEAR_PROBLEMS_2D}[name]
        x0 = np.asarray(problem.x0, dtype=float)
        program = problem.build(derivatives, x0 + perturbation * np.maximum(np.abs(x0), 1.0)
                                * np.cos(1.0 + np.arange(len(x0))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an inaccurate master on the way
            result = program.solve()
        assert result.success, (name, derivatives, result.message)
        results[f"{name} {derivatives}"] = result
    return results


def default_answers(perturbation: float = 0.0) -> dict:
    """``{"name derivatives": objective}`` of :func:`default_runs`."""
    return {key: float(r.objective) for key, r in default_runs(perturbation).items()}


if __name__ == "__main__":
    json.dump(default_answers(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0), sys.stdout)
