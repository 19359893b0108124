"""The restricted master of a semi-infinite program, old against new, in the same run.

``DiscretizedMaster`` solves a run's first master twice, unscaled (for the scales s_j and
σ_f) and then in those scales. The new master builds that problem once, with the scales as
cvxpy parameters 1/σ_f and 1/s_j (DPP): the second solve skips cvxpy's compilation (its
cached parameter map), which is most of a small master's time. Every later round builds and
compiles its own problem, as before. (The engine's first round continues from the bounded
start's last solve, one solve over the same points, in both.)

Old and new are the same code: the class flag ``DiscretizedMaster.reuse_first`` (``False``:
each solve builds and compiles its own problem, the behaviour before the change, which gives
HEAD's results bit for bit). Each repeat runs the case old and new (in turn first); the
table gives medians over ``--repeats``:

* ``first round``: the master's time in the solves of a run's first pair (the bounded
  start's) and the engine's first round, per run;
* ``later round``: the master's time per solve in every later round (unchanged code: its
  ratio shows the noise of the machine);
* ``master``: the master's time in all, per run; ``run``: the whole run (pricing, the local
  reduction phase, …), wall clock.

The last column checks that both took the same rounds (iterations, status, columns per
round) and gives the largest relative difference of the objectives (every round's master
and the result) over the case's runs.

``--breakdown`` prints instead where one run of each case (new master; ``--old``: the old
one) spends its time: the bounded start and the engine's master (each split into cvxpy's
compilation, the solver, building the constraints' expressions, the rest), the pricing and
the local reduction phase (which compiles its own cvxpy problems).

Cases: the 23 literature problems of ``sipkl.sip.library.convex`` (default ``solve()``: the dense
oracle and the local reduction), a Chebyshev approximation with n = 30 coefficients
(cos 20t on [−1, 1], minimax: 31 variables), a 2-D one (a polynomial of total degree 6
in (t1, t2), 28 coefficients, of 1/(1 + t1² + 2 t2²) on [0, 1]²), and two masters over
many index points (``solve_discretized``: chebyshev_t10 on 2001 points, watson8 on 101²).

Run:  .venv/bin/python benchmarks/sip_master.py [--repeats 5] [--only NAME,NAME]
                                                 [--breakdown [--old]]
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import cvxpy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram  # noqa: E402
from sipkl.sip.masters.discretized import DiscretizedMaster  # noqa: E402
from sipkl.sip.library.convex import PROBLEMS  # noqa: E402


def chebyshev(n: int = 30, target=lambda t: np.cos(20.0 * t)) -> SemiInfiniteProgram:
    """min z s.t. |Σ_k c_k T_k(t) − target(t)| ≤ z on [−1, 1] (Chebyshev polynomials T_k)."""
    c, z = cp.Variable(n, name="c"), cp.Variable(name="z")

    def err(c, t):
        return np.polynomial.chebyshev.chebvander(t[:, 0], n - 1) @ c - target(t[:, 0])

    T = Box([-1.0], [1.0])
    return SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda c, t: err(c, t) - z, c, T, vectorized=True),
        SemiInfiniteConstraint(lambda c, t: -err(c, t) - z, c, T, vectorized=True)])


def polynomial_2d(degree: int = 6) -> SemiInfiniteProgram:
    """min z s.t. |p(t) − 1/(1 + t1² + 2 t2²)| ≤ z on [0, 1]², p of total degree ``degree``."""
    powers = [(i, j) for i in range(degree + 1) for j in range(degree + 1 - i)]

    def basis(t):
        return np.column_stack([t[:, 0] ** i * t[:, 1] ** j for i, j in powers])

    def target(t):
        return 1.0 / (1.0 + t[:, 0] ** 2 + 2.0 * t[:, 1] ** 2)

    a, z = cp.Variable(len(powers), name="a"), cp.Variable(name="z")
    T = Box([0.0, 0.0], [1.0, 1.0])
    return SemiInfiniteProgram(cp.Minimize(z), [
        SemiInfiniteConstraint(lambda a, t: basis(t) @ a - target(t) - z, a, T, vectorized=True),
        SemiInfiniteConstraint(lambda a, t: target(t) - basis(t) @ a - z, a, T, vectorized=True)])


#: name → (description, a function returning a fresh run's result)
CASES = {name: (f"{name} (n = {p.n}, p = {p.p})", lambda p=p: p.build().solve())
         for name, p in PROBLEMS.items()}
CASES.update({
    "chebyshev_n30": ("Chebyshev approximation of cos 20t, n = 31", lambda: chebyshev().solve()),
    "polynomial_2d": ("degree-6 polynomial in 2-D, n = 29", lambda: polynomial_2d().solve()),
    "grid_t10": ("chebyshev_t10 on a grid of 2001 points",
                 lambda: PROBLEMS["chebyshev_t10"].build().solve_discretized(2001)),
    "grid_watson8": ("watson8 on a grid of 101² points",
                     lambda: PROBLEMS["watson8"].build().solve_discretized(101)),
})


class MasterClock:
    """Wraps ``DiscretizedMaster.solve``: the seconds of each call, as a first pair's
    (the master had no scales yet) or a later round's."""

    def __init__(self):
        self.first, self.later = [], []
        original = DiscretizedMaster.solve

        @functools.wraps(original)
        def solve(master, *args, **kwargs):
            first = master.get_state()["scales"] is None
            start = time.perf_counter()
            try:
                return original(master, *args, **kwargs)
            finally:
                (self.first if first else self.later).append(time.perf_counter() - start)

        DiscretizedMaster.solve = solve

    def clear(self):
        self.first, self.later = [], []


def fingerprint(result):
    """What must agree between old and new: the rounds, and the objectives (each round's
    master, then the result's)."""
    return ((result.nit, result.status.value, tuple(result.history["n_columns"])),
            np.r_[result.history["objective"], result.objective])


def compare(names, repeats):
    clock = MasterClock()
    rows, totals = [], collections.defaultdict(lambda: collections.defaultdict(list))
    for name in names:
        label, run = CASES[name]
        samples = {False: collections.defaultdict(list), True: collections.defaultdict(list)}
        same, worst = True, 0.0
        for repeat in range(repeats):
            prints = {}
            for reuse in ((False, True) if repeat % 2 == 0 else (True, False)):
                DiscretizedMaster.reuse_first = reuse
                clock.clear()
                start = time.perf_counter()
                result = run()
                wall = time.perf_counter() - start
                s = samples[reuse]
                s["first"].append(sum(clock.first))
                s["later"] += clock.later
                s["master"].append(sum(clock.first) + sum(clock.later))
                s["run"].append(wall)
                prints[reuse] = fingerprint(result)
            same &= prints[False][0] == prints[True][0]
            a, b = prints[False][1], prints[True][1]
            if len(a) == len(b):
                worst = max(worst, float(np.max(np.abs(a - b) / np.maximum(np.abs(a), 1e-300))))
            else:
                worst = np.inf
        DiscretizedMaster.reuse_first = True
        med = {reuse: {k: statistics.median(v) if v else float("nan") for k, v in s.items()}
               for reuse, s in samples.items()}
        for reuse in (False, True):
            for key in ("first", "master", "run"):
                totals[reuse][key].append(med[reuse][key])
        rows.append((label, med, same, worst))
    print("| case | first round old → new (ms) | later round old → new (ms) "
          "| master old → new (ms) | run old → new (ms) | same rounds, max rel. diff. |")
    print("|---|---|---|---|---|---|")

    def cell(med, key):
        old, new = 1e3 * med[False][key], 1e3 * med[True][key]
        if not np.isfinite(old):
            return "—"
        return f"{old:.1f} → {new:.1f} ({new / old - 1:+.0%})"

    for label, med, same, worst in rows:
        print(f"| {label} | {cell(med, 'first')} | {cell(med, 'later')} "
              f"| {cell(med, 'master')} | {cell(med, 'run')} "
              f"| {'yes' if same else 'NO'}, {worst:.1e} |")
    literature = [n for n in names if n in PROBLEMS]
    if len(literature) > 1:
        index = [i for i, n in enumerate(names) if n in PROBLEMS]
        sums = {reuse: {k: sum(totals[reuse][k][i] for i in index) for k in totals[reuse]}
                for reuse in (False, True)}
        sums_med = {reuse: {**sums[reuse], "later": float("nan")} for reuse in sums}
        print(f"| **the {len(literature)} literature problems (sum of medians)** "
              f"| {cell(sums_med, 'first')} | — | {cell(sums_med, 'master')} "
              f"| {cell(sums_med, 'run')} | |")


def breakdown(names):
    """Where each case's run spends its time: per phase (the bounded start, the
    engine's master, the pricing, the local reduction), its share of the run and how it
    splits into cvxpy's compilation, the solver, the constraints' expressions and the rest
    (self times: each timed call less the timed calls inside it)."""
    from cvxpy.problems.problem import Problem
    from cvxpy.reductions.solvers.solving_chain import SolvingChain

    from sipkl.sip import program
    from sipkl.sip.pricing import dense as sampled
    from sipkl.sip.constraints.semi_infinite import SemiInfiniteConstraint as SIC

    seconds, stack = collections.defaultdict(float), []
    phases = ("bounded start", "master", "pricing", "reduction")

    def wrap(owner, attr, label):
        original = getattr(owner, attr)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            outer = next((s[0] for s in stack if s[0] in phases), label)
            stack.append([label, 0.0])
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                _, inside = stack.pop()
                if stack:
                    stack[-1][1] += elapsed
                part = "rest" if label in phases else label
                seconds[outer, part] += elapsed - inside
        setattr(owner, attr, timed)
        return owner, attr, original

    originals = [
        wrap(program.SemiInfiniteProgram, "_bounded_start", "bounded start"),
        wrap(DiscretizedMaster, "solve", "master"),
        wrap(sampled.DenseSampleOracle, "price", "pricing"),
        wrap(program, "reduce_locally", "reduction"),
        wrap(SIC, "expressions", "expressions"),
        wrap(Problem, "get_problem_data", "compilation"),
        wrap(SolvingChain, "solve_via_data", "solver"),
    ]
    def row(label, seconds, total):
        cells = []
        for phase in phases:
            parts = {part: v for (outer, part), v in seconds.items() if outer == phase}
            share = sum(parts.values()) / total
            split = ", ".join(f"{part} {100 * v / total:.0f}" for part, v in sorted(
                parts.items(), key=lambda kv: -kv[1]) if v / total >= 0.005)
            cells.append(f"{100 * share:.0f}%" + (f" ({split})" if split else ""))
        print(f"| {label} | {1e3 * total:.0f} | " + " | ".join(cells) + " |")

    literature, literature_total = collections.defaultdict(float), 0.0
    try:
        for name in names:
            label, run = CASES[name]
            seconds.clear()
            start = time.perf_counter()
            run()
            total = time.perf_counter() - start
            row(label, seconds, total)
            if name in PROBLEMS:
                literature_total += total
                for key, v in seconds.items():
                    literature[key] += v
        if sum(name in PROBLEMS for name in names) > 1:
            row(f"**the {sum(name in PROBLEMS for name in names)} literature problems**",
                literature, literature_total)
    finally:
        for owner, attr, original in originals:
            setattr(owner, attr, original)


def machine() -> str:
    import clarabel
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{platform.machine()}, {cores} cores, Python {platform.python_version()}, "
            f"NumPy {np.__version__}, cvxpy {cp.__version__}, Clarabel {clarabel.__version__}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per case and side (median)")
    ap.add_argument("--only", default=None, help="comma-separated case names")
    ap.add_argument("--breakdown", action="store_true",
                    help="print where each case's run spends its time instead")
    ap.add_argument("--old", action="store_true",
                    help="with --breakdown: of the old master (reuse_first = False)")
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else list(CASES)
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        ap.error(f"unknown cases {unknown}; choose from {sorted(CASES)}")
    warnings.simplefilter("ignore")  # inaccurate masters: in the results' attempts
    for reuse in (False, True):  # warm up: cvxpy's and the solvers' first calls import more
        DiscretizedMaster.reuse_first = reuse
        CASES["tanaka_tan3"][1]()
    if args.breakdown:
        DiscretizedMaster.reuse_first = not args.old
        print(f"{'old' if args.old else 'new'} master; shares of the run in %, a phase's "
              "split in points of the run\n")
        print("| case | run (ms) | bounded start | master | pricing | local reduction |")
        print("|---|---|---|---|---|---|")
        breakdown(names)
    else:
        compare(names, args.repeats)
        print(f"\nmedians of {args.repeats} repeats (old and new in turn)")
    print(f"machine: {machine()}")


if __name__ == "__main__":
    main()
