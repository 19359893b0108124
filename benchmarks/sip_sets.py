"""Semi-infinite programs on every kind of index set, with closed-form optima: the default run.

The problems are :mod:`sipkl.sip.library.touching`'s: min cᵀx s.t. f(t) − xᵀφ(t) ≤ 0 on T,
built so that the optimum Σ λ_i f(t_i) is a closed form (weak duality; no solver involved),
with maximizers inside the set, on a polytope's facet and on an ellipsoid's curved
boundary. Index sets: an ellipse, a triangle, the 3-simplex, boxes of dimension 3 to 15,
balls of dimension 3, 5 and 10, a disc × interval product, and an ellipse cut by a
half-plane (a smooth intersection).

For each: **the default run** (``problem.build()[0].solve()``, nothing set; ``--repeats``
runs, median time): |f − f*|/max(1, |f*|), the largest g(x, t)/s on an independent sample of
20 000 points of the set drawn here (s the constraint's scale), status, exchange iterations
+ reduction rounds; beside it **the exchange method alone** (``solve(reduce=False)``, the
default before the reduction covered every set) and with ``tol=1e-8``: time and difference.

Times are wall clock on this machine with other processes running.

Run:  .venv/bin/python benchmarks/sip_sets.py [--repeats 3] [--only NAME,NAME]
Writes benchmarks/results/sip_sets.md (the whole table: without ``--only``).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

from sipkl.sip import Box
from sipkl.sip.library.touching import touching
from sipkl.sip.sets import Ball, Ellipsoid, Intersection, Polytope, Product

ROTATION = np.array([[np.cos(0.6), -np.sin(0.6)], [np.sin(0.6), np.cos(0.6)]])


def normal(T, t):
    """The outward normal at the boundary point t of T's first inequality."""
    return T.inequalities()[2][0][1](np.asarray(t, dtype=float)[None])[0, 0]


def problems() -> list:
    rng = np.random.default_rng(1)
    E = Ellipsoid([1.0, -2.0], ROTATION @ np.diag([2.0, 0.5]))
    edge = E.center + E.P @ np.array([np.cos(1.0), np.sin(1.0)])
    inside = [E.center + E.P @ [0.3, 0.2], E.center + E.P @ [-0.4, -0.1]]
    cut = Intersection(E, ([[-1.0, -1.0]], [2.0 - float(np.sum(E.center))]))  # t₁ + t₂ ≥ …
    out = [touching("ellipse", E, inside, edge, normal(E, edge)),
           touching("triangle", Polytope([[-1, 0], [0, -1], [1, 1]], [0, 0, 1]),
                    [[0.2, 0.3], [0.5, 0.2]], [0.5, 0.5], [1, 1]),
           touching("ellipse ∩ half-plane", cut, inside, edge, normal(E, edge)),
           touching("3-simplex", Polytope.simplex(3), [[0.2, 0.3, 0.1], [0.1, 0.1, 0.5]],
                    [0.3, 0.3, 0.4], [1, 1, 1]),
           touching("disc × interval", Product(Ball([0.0, 0.0], 1.0), Box([0.0], [2.0])),
                    [[0.2, 0.1, 0.5], [-0.3, 0.2, 1.4]], [0.6, 0.8, 1.0], [0.6, 0.8, 0.0])]
    for p in (3, 4, 5, 10):
        out.append(touching(f"box {p}-D", Box(np.zeros(p), np.ones(p)),
                            rng.uniform(0.2, 0.8, (2, p))))
    for p in (3, 5):
        ball = Ball(np.zeros(p), 2.0)
        d = rng.normal(size=p)
        on = 2.0 * d / np.linalg.norm(d)
        out.append(touching(f"ball {p}-D", ball, rng.uniform(-0.6, 0.6, (2, p)), on,
                            normal(ball, on)))
    more = np.random.default_rng(5)  # the larger dimensions
    out.append(touching("box 15-D", Box(np.zeros(15), np.ones(15)),
                        more.uniform(0.2, 0.8, (2, 15))))
    ball, inside = Ball(np.zeros(10), 2.0), more.uniform(-0.5, 0.5, (2, 10))
    d = more.normal(size=10)
    on = 2.0 * d / np.linalg.norm(d)
    out.append(touching("ball 10-D", ball, inside, on, normal(ball, on)))
    return out


def violation(problem, program, result) -> float:
    """max g(x, t)/s over 20 000 points of T drawn here (a fixed seed), s the constraint's
    scale at the answer."""
    g = program.semi_infinite[0]
    sample = problem.T.starting_points(None, 20000, np.random.default_rng(12345))
    return float(g.values(g.x_value(), sample).max()) / result.scales[0]


def run(problem, repeats: int, **options):
    """Median time, the last result, and its independent-sample violation."""
    times, result = [], None
    for _ in range(repeats):
        program, _ = problem.build()
        start = time.perf_counter()
        result = program.solve(**options)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result, violation(problem, program, result)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    lines = []

    def say(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    say(f"Machine: {platform.platform()}, {os.cpu_count()} cores; times: median of "
        f"{args.repeats} runs (s).\n")
    say("| problem | p | n | f* | default: time (s) | \\|f − f*\\| | sample violation | status "
          "| iterations + rounds | exchange alone: time, \\|f − f*\\| | exchange, tol 1e-8: "
          "time, \\|f − f*\\| |")
    say("|---|---|---|---|---|---|---|---|---|---|---|")
    chosen = None if args.only is None else set(args.only.split(","))
    for problem in problems():
        if chosen is not None and problem.name not in chosen:
            continue
        scale = max(1.0, abs(problem.optimum))
        t, r, v = run(problem, args.repeats)
        t0, r0, _ = run(problem, 1, reduce=False)
        t8, r8, _ = run(problem, 1, reduce=False, tol=1e-8)
        rounds = r.reduction["nit"] if r.reduction else 0
        say(f"| {problem.name} | {problem.T.dim} | {len(problem.x_star)} | "
              f"{problem.optimum:.10g} | {t:.2f} | "
              f"{abs(r.objective - problem.optimum) / scale:.1e}"
              f" | {v:.1e} | {r.status.value} | {r.nit} + {rounds} | {t0:.2f}, "
              f"{abs(r0.objective - problem.optimum) / scale:.1e} | {t8:.2f}, "
              f"{abs(r8.objective - problem.optimum) / scale:.1e} |")
    if chosen is None:
        (Path(__file__).parent / "results" / "sip_sets.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
