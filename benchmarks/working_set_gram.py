"""K(d) = Σ d_m K_m on a working set of the hinge masters' SVMs: the ways it is formed.

For m lazy columns on |S| points — Nyström columns (:class:`~sipkl.compute.features.FeatureGram`,
q = 200 features) and exact GaussianARD columns (:class:`~sipkl.compute.lazy_gram.LazyGram`, 10
coordinates) — each row of the table times, in one process, one thread:

* ``square``: K(d) on S × S every block of rows whole (``_add_all`` into a matrix not known
  to be zero)
  against the lower triangle and its mirror image (:func:`~sipkl.compute.lazy_gram.combined_gram`);
* ``grown``: K(d) on G × G, G = S with |S|/2 more points, formed again on G
  (``_combined_on(positive, G)``) against the rows of the new points only, the rest copied
  from K(d) on S, already formed for the SVM on S (``_next_gram``).

The median of ``--repeats`` runs, and the largest difference of the two results.

Run:  OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/working_set_gram.py
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from sipkl import GaussianARD
from sipkl.compute.lazy_gram import LazyGram, _add_all, combined_gram
from sipkl.kernel_learning.masters.working_set import _combined_on, _next_gram
from sipkl.compute.features import FeatureGram
from sipkl.utils.threads import one_blas_thread


def columns(kind, n, m, rng):
    if kind == "nystrom":
        return [FeatureGram(rng.normal(size=(n, 200)) / np.sqrt(200)) for _ in range(m)]
    X = rng.normal(size=(n, 10))
    return [LazyGram(GaussianARD(), rng.uniform(0, 1, 10), X) for _ in range(m)]


def median_time(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        with one_blas_thread():
            out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000])
    parser.add_argument("--columns", type=int, nargs="+", default=[3, 20, 40])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print("| columns | kind | S | m | before (s) | now (s) | ratio | largest difference |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for kind in ("nystrom", "exact"):
        for size in args.sizes:
            for m in args.columns:
                grams = columns(kind, size + size // 2, m, rng)
                d = rng.uniform(0.5, 1.0, m)
                d /= d.sum()
                positive = list(zip(grams, d))
                index = np.sort(rng.choice(len(grams[0].X), size, replace=False))
                grown = np.arange(len(grams[0].X))
                square = [K.restricted(index) for K in grams]
                K_S = _combined_on(positive, index)  # formed for the SVM before the growth
                rows = [
                    ("square",
                     lambda: _add_all(np.zeros((size, size)), list(zip(square, d))),
                     lambda: combined_gram(square, d)),
                    ("grown", lambda: _combined_on(positive, grown),
                     lambda: _next_gram(positive, index, K_S, grown))]
                for name, before, now in rows:
                    t_before, K_before = median_time(before, args.repeats)
                    t_now, K_now = median_time(now, args.repeats)
                    print(f"| {name} | {kind} | {size} | {m} | {t_before:.3f} | {t_now:.3f} "
                          f"| {t_now / t_before:.2f} | {np.abs(K_now - K_before).max():.1e} |",
                          flush=True)


if __name__ == "__main__":
    main()
