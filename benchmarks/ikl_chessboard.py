"""Workload W2 over several seeds: IKL (GaussianARD) against the SVM a user tries first.

The 3 × 3 chessboard with 300 training points, 2 signal + 18 noise dimensions, the signal
dimensions at random positions (not first), standardized on the training set. For each
seed the RBF ``SVC`` tuned by 5-fold ``GridSearchCV`` over 13 widths × 6 C values is timed
once, and ``IKLClassifier(family=GaussianARD(), C=C)`` for each C; the table gives both
times, their ratio (measured in the same run, one after the other), the ratio of their CPU
times (``time.process_time``, all threads of the process: steadier than wall time on a
machine shared with other work; run with ``OPENBLAS_NUM_THREADS=1`` there) and the test
errors.

Run:  .venv/bin/python benchmarks/ikl_chessboard.py [--seeds 0 1 2] [--C 1 100]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sipkl import GaussianARD, IKLClassifier
from sipkl.datasets import make_checkerboard
from sipkl.apps.demo import INVERSE_THETAS


def board(n_train, n_test, n_cells, seed, n_noise=18, noise="uniform"):
    """Train and test sets with the two signal dimensions moved to random positions; the
    noise dimensions uniform on [0, 1] (the paper's) or standard normal (``"gaussian"``)."""
    X, y = make_checkerboard(n_train, n_noise, n_cells, random_state=seed)
    X_test, y_test = make_checkerboard(n_test, n_noise, n_cells, random_state=seed + 1)
    if noise == "gaussian":
        rng = np.random.default_rng([seed, 1])
        X[:, 2:], X_test[:, 2:] = rng.normal(size=X[:, 2:].shape), rng.normal(
            size=X_test[:, 2:].shape)
    elif noise != "uniform":
        raise ValueError(f"noise must be 'uniform' or 'gaussian', got {noise!r}")
    order = np.random.default_rng(seed).permutation(X.shape[1])
    scaler = StandardScaler().fit(X[:, order])
    return scaler.transform(X[:, order]), y, scaler.transform(X_test[:, order]), y_test


def grid_search(X, y):
    grid = {"gamma": [1.0 / v ** 2 for v in INVERSE_THETAS], "C": np.logspace(-2, 3, 6)}
    return GridSearchCV(SVC(), grid, cv=5).fit(X, y)


def timed(fn):
    """``fn()``, its wall time and its CPU time (s)."""
    cpu0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - cpu0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--C", type=float, nargs="+", default=[1.0, 100.0])
    parser.add_argument("--n-train", type=int, default=300)
    parser.add_argument("--n-test", type=int, default=2000)
    parser.add_argument("--cells", type=int, default=3)
    args = parser.parse_args(argv)
    print("| seed | C | IKL (s) | SVC+GS (s) | ratio | CPU ratio | IKL error | SVC error "
          "| iterations | status |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    ratios = {C: [] for C in args.C}
    cpu_ratios = {C: [] for C in args.C}
    for seed in args.seeds:
        X, y, X_test, y_test = board(args.n_train, args.n_test, args.cells, seed)
        svm, t_svm, cpu_svm = timed(lambda: grid_search(X, y))
        for C in args.C:
            ikl, t_ikl, cpu_ikl = timed(lambda: IKLClassifier(family=GaussianARD(), C=C,
                                                              random_state=seed).fit(X, y))
            ratios[C].append(t_ikl / t_svm)
            cpu_ratios[C].append(cpu_ikl / cpu_svm)
            print(f"| {seed} | {C:g} | {t_ikl:.2f} | {t_svm:.2f} | {t_ikl / t_svm:.2f} "
                  f"| {cpu_ikl / cpu_svm:.2f} "
                  f"| {1 - ikl.score(X_test, y_test):.3f} | {1 - svm.score(X_test, y_test):.3f} "
                  f"| {ikl.n_iter_} | {ikl.result_.status} |", flush=True)
    for C, r in ratios.items():
        print(f"median ratio IKL / SVC+GS at C = {C:g}: {statistics.median(r):.2f} "
              f"(CPU: {statistics.median(cpu_ratios[C]):.2f})")
    return ratios


if __name__ == "__main__":
    main()
