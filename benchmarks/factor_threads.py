"""The Cholesky factor of the active-set SVMs on several threads: what it could gain.

The Newton master's active-set solves (:func:`sipkl.solvers.svm_on_active_set`) factor K(d)
on the free support vectors, A = L Lᵀ, with LAPACK's ``dpotrf`` on one BLAS thread. Two ways
to use more cores, timed here on A = exp(−0.05‖x_i − x_j‖²) + 10⁻³ I for m standard normal
points in 10 dimensions (the Gram matrix by :func:`sipkl.compute.exponential.gaussian_gram`; the
best of 5 runs each):

* ``dpotrf`` at k BLAS threads (threadpoolctl): OpenBLAS's own parallel factor, whose last
  bits depend on k (``docs/benchmarks.md``, "What is left");
* a blocked right-looking factor of the same bits at every k: blocks of b = 256 columns; the
  diagonal block by ``dpotrf``, the panel below it by the inverse of its factor (``dtrtri``,
  then one product per slab of b rows), and the trailing update by one product per slab of
  rows (``np.dot``, which releases the GIL), the slabs on k worker threads, each with one
  BLAS thread. The last column says whether its factor is the same to the bit at every k.

Run:  .venv/bin/python benchmarks/factor_threads.py
"""
from __future__ import annotations

import os
import platform
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import cho_factor, lapack
from threadpoolctl import threadpool_limits

from sipkl.compute.exponential import gaussian_gram

THREADS = (1, 2, 4, 8, 16)
SIZES = (500, 1000, 1700, 2500)
BLOCK = 256


def positive_definite_gram(m: int) -> np.ndarray:
    Z = np.random.default_rng(0).standard_normal((m, 10)) * np.sqrt(0.05)
    return gaussian_gram(Z, Z) + 1e-3 * np.eye(m)


def blocked_cholesky(A: np.ndarray, b: int, pool) -> np.ndarray:
    """The factor L (lower triangle; the upper one holds round-off of the updates)."""
    L = np.array(A, order="C")
    n = len(L)
    starts = list(range(0, n, b))

    def run(fn, items):
        return list(pool.map(fn, items)) if pool else [fn(item) for item in items]
    for k, s in enumerate(starts):
        e = min(s + b, n)
        factor, info = lapack.dpotrf(L[s:e, s:e], lower=1, clean=1)
        if info:
            raise np.linalg.LinAlgError("not positive definite")
        L[s:e, s:e] = factor
        if e == n:
            break
        inverse_t = np.ascontiguousarray(lapack.dtrtri(factor, lower=1)[0].T)
        slabs = [(r, min(r + b, n)) for r in starts[k + 1:]]

        def panel(rows):
            L[rows[0]:rows[1], s:e] = np.dot(L[rows[0]:rows[1], s:e], inverse_t)

        def update(rows):
            r0, r1 = rows
            L[r0:r1, e:r1] -= np.dot(L[r0:r1, s:e], L[e:r1, s:e].T)
        run(panel, slabs)
        run(update, slabs)
    return L


def best_ms(fn, repeats: int = 5):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times), out


def main() -> None:
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"NumPy {np.__version__}")
    print("| m | " + " | ".join(f"dpotrf {k} thr (ms)" for k in THREADS) + " | "
          + " | ".join(f"blocked {k} thr (ms)" for k in THREADS) + " | blocked same bits |")
    for m in SIZES:
        A = positive_definite_gram(m)
        row = []
        for k in THREADS:
            with threadpool_limits(k, "blas"):
                row.append(best_ms(lambda: cho_factor(A, lower=True, check_finite=False))[0])
        factors = []
        for k in THREADS:
            pool = ThreadPoolExecutor(k) if k > 1 else None
            with threadpool_limits(1, "blas"):
                elapsed, L = best_ms(lambda: blocked_cholesky(A, BLOCK, pool))
            row.append(elapsed)
            factors.append(np.tril(L))
            if pool:
                pool.shutdown()
        same = all(np.array_equal(factors[0], L) for L in factors)
        print(f"| {m} | " + " | ".join(f"{t:.1f}" for t in row) + f" | {same} |", flush=True)


if __name__ == "__main__":
    main()
