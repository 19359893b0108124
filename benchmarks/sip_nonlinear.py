"""Nonconvex semi-infinite programs from the literature, with default settings.

For each problem of ``sipkl.sip.library.nonlinear.NONLINEAR_PROBLEMS`` and
``NONLINEAR_PROBLEMS_2D`` (its statement,
start and reference value with its source): ``problem.build().solve()`` with nothing set (the
IPOPT master, the dense oracle), and the same with no derivative stated (``build(False)``:
the complex step in x, central differences in t); the objective, its difference from the
reference (absolute where the reference is 0), the status, iterations and time (median of
``--repeats``), and the largest violation of the returned x on an independent grid of 2·10⁵
points per constraint (1001² in 2-D), relative to the constraint's scale. The statuses are local ones:
the master is a local NLP solver.

Each run is made with every BLAS thread count of ``--threads`` (threadpoolctl's limit on
OpenBLAS): the round-off differs between them, the answers must not. A column shows one
entry where every thread count prints the same (the answer to 10 digits, the difference and
the violation to 2), else the entries in the order of ``--threads``.

Run:  .venv/bin/python benchmarks/sip_nonlinear.py [--repeats 3] [--threads 1,2]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from sipkl.sip.sets.box import Box  # noqa: E402
from sipkl.sip.library.nonlinear import NONLINEAR_PROBLEMS, NONLINEAR_PROBLEMS_2D  # noqa: E402


def grid_violation(problem, x, scales):
    """max_j max over 2·10⁵ grid points (1001² in 2-D) of g_j(x, t) / s_j."""
    worst = -np.inf
    for c, s in zip(problem.constraints, scales):
        t = Box(c.lower, c.upper).tensor_grid(200_001 if len(c.lower) == 1 else 1001)
        worst = max(worst, float(np.max(c.g(x, t))) / s)
    return worst


def joined(entries):
    """One entry where all are equal, else all of them, separated by " / "."""
    return entries[0] if len(set(entries)) == 1 else " / ".join(entries)


def run(problem, stated, repeats):
    """The default run of ``problem`` (``stated`` derivatives or none), ``repeats`` times:
    the last result and the median time."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = problem.build(stated).solve()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", default="1,2", help="BLAS thread counts, comma-separated")
    args = parser.parse_args(argv)
    threads = [int(k) for k in args.threads.split(",")]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}; Python "
          f"{platform.python_version()}, NumPy {np.__version__}; BLAS threads "
          f"{' / '.join(map(str, threads))}")
    print("\n| problem | n | reference | derivatives | ours | difference | status | "
          "iterations | time (s) | violation on a 2·10⁵ (1001²) grid ÷ s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, problem in {**NONLINEAR_PROBLEMS, **NONLINEAR_PROBLEMS_2D}.items():
        for stated in (True, False):
            rows = []
            for k in threads:
                with threadpool_limits(limits=k, user_api="blas"):
                    result, seconds = run(problem, stated, args.repeats)
                reference = problem.optimum
                difference = abs(result.objective - reference) / (abs(reference) or 1.0)
                violation = grid_violation(problem, np.asarray(result.x, float), result.scales)
                rows.append((f"{result.objective:.10g}",
                             f"{difference:.1e} ({'rel.' if reference else 'abs.'})",
                             str(result.status), str(result.nit), f"{seconds:.2f}",
                             f"{violation:.1e}"))
            print(f"| {name} | {len(problem.x0)} | {problem.optimum:.10g} | "
                  f"{'stated' if stated else 'complex step / differences'} | "
                  + " | ".join(joined(column) for column in zip(*rows)) + " |", flush=True)


if __name__ == "__main__":
    main()
