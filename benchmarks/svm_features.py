"""The SVM on a working set of Nyström columns: libsvm on K(d) against the interior-point
method on the stacked features (:mod:`sipkl.solvers.svm_features`), on the CPU.

The board of ``ikl_large.py`` (n = 10⁵ training points, seed 0). Exact IKL on the first 3000
points (5 rounds) gives the columns and weights d; the ``--columns`` heaviest of them become
Nyström columns on q = 200 landmarks of all n points (p = 200 × columns features). A working
set is the m points nearest the subsample model's decision boundary (smallest |f(x)|: most are
support vectors, as in a master's working set). For each m, one thread, the same SVM

* by libsvm: K(d) on S × S formed from the features (``_combined_on``), then
  ``solve_svm_dual``;
* by the interior-point method: Z_S = [√d_m Φ_m[S]] stacked, then ``svm_on_features``;

with the dual objectives' relative difference (both meet libsvm's criterion to 10⁻⁶).

Run:  OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/svm_features.py \\
          [--columns 3] [--m 2000 5000 10000 20000]
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from ikl_chessboard import board

from sipkl import GaussianARD, IKLClassifier
from sipkl.kernel_learning.masters.working_set import _combined_on
from sipkl.kernel_learning.nystrom import NystromSpace
from sipkl.solvers import solve_svm_dual
from sipkl.solvers.svm_features import svm_on_features
from sipkl.utils.threads import one_blas_thread


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=3)
    parser.add_argument("--m", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    X, y, _, _ = board(100000, 1000, 3, 0, n_noise=8)
    model = IKLClassifier(family=GaussianARD(), C=10, random_state=0, max_iter=5)
    model.fit(X[:3000], y[:3000])
    weights = np.asarray(model.kernel_.weights)
    heaviest = np.argsort(-weights)[:args.columns]
    landmarks = np.sort(np.random.default_rng(0).choice(len(y), 200, replace=False))
    space = NystromSpace(X, GaussianARD(), landmarks)
    positive = [(space.gram(model.kernel_.columns[k]), weights[k] / weights[heaviest].sum())
                for k in heaviest]
    nearest = np.argsort(np.abs(model.decision_function(X)), kind="stable")
    p = 200 * len(positive)
    print(f"{len(positive)} columns, p = {p} features; C = 10, tol = 1e-6, one thread")
    print("| m | m/p | libsvm: K(d) (s) | libsvm: solve (s) | libsvm (s) | interior point (s) "
          "| ratio | support vectors | free | objectives, rel. diff. |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m in args.m:
        index = np.sort(nearest[:m])
        with one_blas_thread():
            t = time.perf_counter()
            K_S = _combined_on(positive, index)
            formed = time.perf_counter() - t
            reference = solve_svm_dual(K_S, y[index], 10.0, tol=1e-6)
            by_libsvm = time.perf_counter() - t
            del K_S
            t = time.perf_counter()
            Z = positive[0][0].stacked(positive, index)
            svm = svm_on_features(Z, y[index], 10.0, tol=1e-6)
            by_features = time.perf_counter() - t
        alpha = svm.alpha
        free = int(((alpha > 0) & (alpha < 10.0)).sum())
        diff = abs(svm.objective - reference.objective) / abs(reference.objective)
        print(f"| {m} | {m / p:.1f} | {formed:.2f} | {by_libsvm - formed:.2f} | "
              f"{by_libsvm:.2f} | {by_features:.2f} | {by_features / by_libsvm:.2f} | "
              f"{int((alpha > 0).sum())} | {free} | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
