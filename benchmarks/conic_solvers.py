"""The conic solvers on the package's own cvxpy solves: status, certified accuracy and time.

Each cvxpy problem that sipkl builds is solved by each solver of ``--solvers`` alone, with
the options the package passes (``sipkl.solvers.cvx.SOLVER_OPTIONS``; ``--bare`` for each
solver's own defaults), and its answer is checked by the tests' KKT certificate
(``tests/conic_reference.kkt_certificate``: primal, dual, stationarity and Lagrangian-gap
residuals, each relative to the magnitude of its terms; the table shows the worst of the four).
The problems, all on the instances of the tests and examples:

* ``qcqp``: ``HingeMKLQCQP`` (the MKL dual QCQP, eigen-factored) on the 18 random instances of
  ``tests/kernel_learning/test_masters.py`` (seeds 0–5 × C = 0.1, 1, 10) and its breast-cancer instance;
* ``sip``: the SIP master (``SemiInfiniteProgram.solve_discretized``) over a grid of 65 points
  (p = 1) or 17 × 17 (p = 2) for each problem of ``sipkl.sip.library.convex.PROBLEMS``;
* ``alignf``: ``AlignfMaster``'s QP on the Gram matrices of the QCQP instances;
* ``pairwise``: the QP (6) of ``examples/pothin_breast_cancer.py`` on the Wisconsin set (all
  683 points; γ = 0.1, σ_g = 1, σ_e = 3).

Prints one line per problem and solver, then a summary per family and solver: how many answers
were ``optimal``, how many certified to 1e-6 and to 1e-8, the median and worst certificate,
and the median time. Run it in each environment to compare (e.g. a venv with another Clarabel).

Run:  .venv/bin/python benchmarks/conic_solvers.py [--solvers CLARABEL,ECOS,SCS] [--bare]
"""
from __future__ import annotations

import argparse
import contextlib
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "examples")]  # a source checkout

import cvxpy as cp  # noqa: E402

import sipkl.kernel_learning.masters.alignment as alignment  # noqa: E402
import sipkl.kernel_learning.masters.hinge as hinge  # noqa: E402
import sipkl.sip.masters.discretized as sip_master  # noqa: E402
import sipkl.solvers.cvx as cvx  # noqa: E402
from conic_reference import kkt_certificate  # noqa: E402
from sipkl.datasets import load  # noqa: E402
from sipkl.kernel_learning.masters import AlignfMaster, HingeMKLQCQP  # noqa: E402
from sipkl.sip.library.convex import PROBLEMS  # noqa: E402


@contextlib.contextmanager
def captured(module):
    """Keep the last cvxpy problem that ``module`` hands to ``solve_cvxpy``."""
    seen, original = {}, module.solve_cvxpy

    def capture(problem, *args, **kwargs):
        seen["problem"] = problem
        return original(problem, *args, **kwargs)

    module.solve_cvxpy = capture
    try:
        yield seen
    finally:
        module.solve_cvxpy = original


def instances():
    """(family, name, module, solve(solvers)) for every problem of the module doc."""
    import pothin_breast_cancer as pothin
    from test_masters import FINITE_INSTANCES, rbf, random_grams

    grams_of = {}
    for seed in range(6):
        grams, y = random_grams(seed)
        grams_of[f"random{seed}"] = (grams, y, (0.1, 1.0, 10.0))
    make, gammas, C = FINITE_INSTANCES["breast_cancer80"]
    X, y = make()
    grams_of["breast_cancer80"] = ([rbf(X, g) for g in gammas], y, (C,))
    for name, (grams, y, Cs) in grams_of.items():
        for C in Cs:
            yield ("qcqp", f"{name} C={C:g}", hinge,
                   lambda s, g=grams, y=y, C=C: HingeMKLQCQP(y, C, solvers=s).solve(g))
        yield ("alignf", name, alignment,
               lambda s, g=grams, y=y: AlignfMaster(y, solvers=s).solve(g))
    for name, problem in PROBLEMS.items():
        points = 65 if problem.p == 1 else 17
        yield ("sip", name, sip_master,
               lambda s, p=problem, k=points: p.build().solve_discretized(k, solvers=s))
    Xb, yb = load("wisconsin")
    grams = [c.family.gram(np.asarray(c.theta), Xb) for c in pothin.candidates(0.1, 1.0, 3.0)]
    yield ("pairwise", "breast_cancer", pothin,
           lambda s, g=grams, y=yb: pothin.qp_weights(g, y, solvers=s))


def measure(solve, module, solver):
    with captured(module) as seen, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        solve((solver,))
        elapsed = time.perf_counter() - start
    problem = seen["problem"]
    if any(v.value is None for v in problem.variables()):
        return problem.status, np.inf, elapsed
    return problem.status, kkt_certificate(problem, solver).worst, elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--solvers", default="CLARABEL,ECOS,SCS")
    parser.add_argument("--bare", action="store_true",
                        help="each solver's own default options instead of the package's")
    args = parser.parse_args(argv)
    if args.bare:
        cvx.SOLVER_OPTIONS = {}
    solvers = args.solvers.split(",")
    versions = {s: _version(s) for s in solvers}
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"cvxpy {cp.__version__}, " + ", ".join(f"{s} {v}" for s, v in versions.items())
          + (", bare options" if args.bare else ", the package's options"))
    rows = []
    for family, name, module, solve in instances():
        for solver in solvers:
            status, worst, elapsed = measure(solve, module, solver)
            rows.append((family, solver, status, worst, elapsed))
            print(f"{family:9s} {name:22s} {solver:9s} {status:19s} {worst:8.1e} "
                  f"{elapsed:7.3f} s", flush=True)
    print("\nfamily    solver    n  optimal  cert≤1e-6  cert≤1e-8  median cert  worst cert  "
          "median time")
    for family in dict.fromkeys(r[0] for r in rows):
        for solver in solvers:
            mine = [r for r in rows if r[0] == family and r[1] == solver]
            certs = [r[3] for r in mine]
            print(f"{family:9s} {solver:9s} {len(mine):2d} "
                  f"{sum(r[2] == 'optimal' for r in mine):7d} "
                  f"{sum(c <= 1e-6 for c in certs):10d} {sum(c <= 1e-8 for c in certs):10d} "
                  f"{statistics.median(certs):11.1e} {max(certs):11.1e} "
                  f"{statistics.median(r[4] for r in mine):10.3f} s")


def _version(solver: str) -> str:
    module = {"CLARABEL": "clarabel", "ECOS": "ecos", "SCS": "scs"}.get(solver, solver.lower())
    try:
        from importlib.metadata import version
        return version(module)
    except Exception:  # noqa: BLE001 -- a version is only a label here
        return "?"


if __name__ == "__main__":
    main()
