"""Certified 1-D pricing: the DC branch and bound against a 10⁴-point grid search.

Data: the IKL chessboard (2 signal + 2 noise dimensions, ``--samples`` points, standardized),
one SVM with the Gaussian kernel exp(−s‖x − x′‖²) at s = 1/median squared distance, C = 1,
solved by the IKL master (``HingeMKLNewton``, one column). Its price matrix W = ½ w wᵀ,
w = α∘y, is supported on the support vectors (about 500 with the defaults), and the pricing
problem max_s <W, K(s)> over s ∈ [0, 900] is what the engine hands to an oracle.

* DC: ``DCGaussianOracle(rtol=1e-6)`` — global, with a proven upper bound.
* grid: ``GridOracle(size=10_000)`` — GaussianIso's default list, 10⁴ scales log-spaced over
  10^±4 times 1/median squared distance (clipped to the box); no bound.

Both price the same PricingRound (the engine's, with ``n_price=5``); times are medians over
``--repeats`` calls after one warm-up call, evaluations are price evaluations per call (each
over all pairs of support vectors).

Run:  .venv/bin/python benchmarks/dc_oracle.py [--repeats 3] [--samples 539]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_info, threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from sipkl import Column, GaussianIso, PricingRound  # noqa: E402
from sipkl.datasets import make_checkerboard  # noqa: E402
from sipkl.compute.exponential import squared_distances  # noqa: E402
from sipkl.kernel_learning.masters import HingeMKLNewton  # noqa: E402
from sipkl.kernel_learning.dc_oracle import DCGaussianOracle  # noqa: E402
from sipkl.pricing import GridOracle
from sipkl.kernel_learning.space import KernelSpace  # noqa: E402


def pricing_round(n_samples: int) -> PricingRound:
    X, y = make_checkerboard(n_samples, n_noise=2, random_state=0)
    X = StandardScaler().fit_transform(X)
    family = GaussianIso()
    d2 = squared_distances(X, X)
    column = Column.make(family, 1.0 / np.median(d2[np.triu_indices(len(X), 1)]))
    space = KernelSpace(X)
    sol = HingeMKLNewton(y, C=1.0).solve([space.gram(column)], None)
    problems = [space.pricing_problem(family, sol.price)]
    return PricingRound(problems, X, [column], sol.threshold, 5, np.random.default_rng(0))


def timed(oracle, round_, repeats):
    oracle.price(round_)  # warm-up
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = oracle.price(round_)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed calls per oracle (median)")
    ap.add_argument("--samples", type=int, default=539, help="training points")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads (default 1; 0 = library default)")
    args = ap.parse_args(argv)
    if args.blas_threads > 0:
        threadpool_limits(args.blas_threads)

    round_ = pricing_round(args.samples)
    n_sv = len(round_.problems[0].W)
    print(f"chessboard, {args.samples} points, {n_sv} support vectors "
          f"({n_sv * (n_sv - 1) // 2} pairs), λ = {round_.threshold:.6g}")
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, BLAS threads: "
          + ", ".join(f"{i['internal_api']}={i['num_threads']}" for i in threadpool_info()))

    t_dc, dc = timed(DCGaussianOracle(rtol=1e-6), round_, args.repeats)
    t_grid, grid = timed(GridOracle(size=10_000), round_, args.repeats)
    best = max(dc.scores[0], grid.scores[0])
    print(f"\nDC: status {dc.status.value}, best s = {dc.columns[0].theta[0]:.6g}, "
          f"bound − best = {dc.upper_bound - dc.scores[0]:.3g} "
          f"({(dc.upper_bound - dc.scores[0]) / abs(dc.scores[0]):.2g} relative)")
    print(f"grid: best s = {grid.columns[0].theta[0]:.6g}; the DC bound is "
          f"{'≥' if dc.upper_bound >= grid.scores[0] else 'BELOW'} the grid's best price")

    print("\n| oracle | median time per call (s) | evaluations per call | best price "
          "| proven upper bound | time / DC |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, t, r in (("DC branch and bound, rtol 1e-6", t_dc, dc),
                       ("grid, 10⁴ scales", t_grid, grid)):
        bound = "—" if r.upper_bound is None else f"{r.upper_bound:.10g}"
        print(f"| {name} | {t:.4f} | {r.n_evals} | {r.scores[0]:.10g} | {bound} | "
              f"{t / t_dc:.1f}× |")
    print(f"\nbest price: DC − grid = {dc.scores[0] - grid.scores[0]:.3g} "
          f"(relative {(dc.scores[0] - grid.scores[0]) / abs(best):.2g})")


if __name__ == "__main__":
    main()
