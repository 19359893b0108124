"""Workload W3: value and gradient of <W, K(s)> for GaussianARD, n = 1000, D = 20.

The floor is what any implementation must do: one n × D × n matrix product (the scaled
squared distances) and n² exponentials. The ratio time(price_and_grad) / time(floor) is
measured in one run (median of repeats; BLAS threads as the machine gives them, or
``--blas-threads``, through threadpoolctl, a dependency of scikit-learn).

Run:  .venv/bin/python benchmarks/price_gradient.py [--n 1000] [--d 20] [--repeats 20]
                                                    [--blas-threads 1]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from sipkl import GaussianARD


def median_time(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--blas-threads", type=int, default=None)
    args = parser.parse_args(argv)
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        return measure(args)


def measure(args):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.n, args.d))
    w = rng.normal(size=args.n)
    W = 0.5 * np.outer(w, w)
    s = rng.uniform(0.01, 0.1, size=args.d)
    family = GaussianARD()
    geom = family.geometry(X)

    def floor():
        Z = X * np.sqrt(s)
        return np.exp(Z @ Z.T)

    t_price = median_time(lambda: family.price_and_grad(geom, s, W), args.repeats)
    t_floor = median_time(floor, args.repeats)
    print(f"| n={args.n}, D={args.d} | time (ms) | ratio to floor |")
    print("|---|---:|---:|")
    print(f"| floor: one n×D×n product + n² exp | {1e3 * t_floor:.2f} | 1.00 |")
    print(f"| GaussianARD.price_and_grad | {1e3 * t_price:.2f} | {t_price / t_floor:.2f} |")
    return t_price / t_floor


if __name__ == "__main__":
    main()
