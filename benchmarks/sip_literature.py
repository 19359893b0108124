"""Semi-infinite programs from the literature: the exchange method against fixed grids.

For each problem of ``sipkl.sip.problems.PROBLEMS`` (known optimal value f*): one run of
``LiteratureProblem.solve`` (the column-generation engine: master = the cvxpy problem over
the current index points, pricing = ``--oracle``: IPOPT multi-start on max_t g(x_k, t), or
the certified Lipschitz branch and bound with the problem's stated constants; stopping
tolerance ``--tol``, relative to each constraint's scale), its objective f,
the relative difference |f − f*|/|f*|, iterations, wall time and status; then the fixed-grid
discretization of the same model (``solve_discretized``) on grids with 2^j + 1 points per
axis of T, j = 2, 3, …, until the discretized optimum reaches the same accuracy — the
engine's relative difference, or the target 10⁻⁶ when the engine is more accurate than
that — or a grid solve takes longer than ``--grid-time`` seconds or the next grid would
have more than ``--max-points`` points (then the table says the accuracy was not reached,
with the last grid tried). The last column is the ratio of the grid's time to the engine's;
it is a lower bound where the grid did not reach the accuracy.

Times are medians of ``--repeats`` runs (wall clock, this machine, other processes running).

Run:  .venv/bin/python benchmarks/sip_literature.py [--oracle ipopt] [--tol 1e-8]
                         [--repeats 3] [--grid-time 60] [--max-points 1050625]
                         [--only NAME,NAME]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import warnings

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from sipkl.sip.problems import PROBLEMS  # noqa: E402

#: the relative accuracy targeted, the floor of "the same accuracy" for the grids
TARGET = 1e-6


def timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def relative_error(value, optimum):
    return abs(value - optimum) / abs(optimum)


def smallest_grid(problem, accuracy, grid_time, max_points, repeats):
    """(points per axis, total points, time, reached) of the first grid of 2^j + 1 points per
    axis (j = 2, 3, …; one run each) whose discretized optimum is within ``accuracy`` of the
    known optimum, timed again over ``repeats`` runs; or of the last grid tried (not reached)
    when one run took longer than ``grid_time`` seconds or the next grid would have more than
    ``max_points`` points."""
    j = 2
    while True:
        per_axis = 2**j + 1

        def discretized():
            return problem.build().solve_discretized(n_points=per_axis)

        result, seconds = timed(discretized, 1)
        reached = relative_error(result.objective, problem.optimum) <= accuracy
        if reached:
            seconds = timed(discretized, repeats)[1]
        if reached or seconds > grid_time or (2 * per_axis - 1) ** problem.p > max_points:
            return per_axis, per_axis**problem.p, seconds, reached
        j += 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", default="ipopt", choices=["ipopt", "lipschitz"])
    ap.add_argument("--tol", type=float, default=1e-8, help="the engine's stopping tolerance")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per solve (median)")
    ap.add_argument("--grid-time", type=float, default=60.0,
                    help="stop doubling the grid once one solve takes longer (seconds)")
    ap.add_argument("--max-points", type=int, default=1025**2,
                    help="the largest grid tried (points in all)")
    ap.add_argument("--only", default=None, help="comma-separated problem names")
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else list(PROBLEMS)
    unknown = sorted(set(names) - set(PROBLEMS))
    if unknown:
        ap.error(f"unknown problems {unknown}; choose from {sorted(PROBLEMS)}")

    warnings.simplefilter("ignore", RuntimeWarning)  # inaccurate masters: in the attempts
    header = ("| problem | n | p | known f* | ours | rel. diff. | iterations | time (s) "
              "| status | grid reaching it (points) | grid time (s) | grid / ours |")
    print(header)
    print("|---" * 12 + "|")
    for name in names:
        problem = PROBLEMS[name]
        result, seconds = timed(
            lambda: problem.solve(args.oracle, tol=args.tol, random_state=0), args.repeats)
        error = relative_error(result.objective, problem.optimum)
        accuracy = max(error, TARGET)
        per_axis, size, grid_seconds, reached = smallest_grid(
            problem, accuracy, args.grid_time, args.max_points, args.repeats)
        grid = (f"{size:,}" if problem.p == 1 else f"{per_axis}² = {size:,}")
        if not reached:
            grid = f"not reached ({grid} tried)"
        ratio = grid_seconds / seconds
        print(f"| {name} | {problem.n} | {problem.p} | {problem.optimum:.10g} "
              f"| {result.objective:.10g} | {error:.1e} | {result.nit} | {seconds:.2f} "
              f"| {result.status} | {grid} | {grid_seconds:.2f} "
              f"| {'≥ ' if not reached else ''}{ratio:.1f} |", flush=True)
    print(f"\noracle {args.oracle}, tol {args.tol:g}, median of {args.repeats}; "
          f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, NumPy {np.__version__}")


if __name__ == "__main__":
    main()
