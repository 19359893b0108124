"""Threads of column generation: one BLAS thread for the thin products, two halves of a
batched pricing at once.

The products inside a fit are small or thin (Gram matrices of a few hundred points, pairs ×
dimensions times dimensions × starts, matrix-vector products): extra BLAS threads only add
synchronization to them, which on a two-core machine made a chessboard fit 2× slower and
single products up to 20× slower. The oracle, the Newton master and the workspace run their
products inside :func:`one_blas_thread` (threadpoolctl, a dependency of scikit-learn).
The loaded libraries are found once, on the first call: looking them up again costs a scan of
the process's shared objects (milliseconds, hundreds of times per fit).

A batched pricing (:class:`~sipkl.kernels.base.PairExponential`) sums over the pairs of the
support in two halves, and :func:`sum_halves` computes the second half on a pool thread while
the calling thread computes the first (NumPy releases the GIL in its products and
exponentials): the sums are the same whether one thread or two compute them. Two threads run
where this process may use two CPUs or more, one where ``OMP_NUM_THREADS=1`` (the limit that
joblib sets in its workers and that scikit-learn's threaded loops obey), and
:func:`pricing_threads` sets the count for a block of code.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache

from threadpoolctl import ThreadpoolController

#: a pricing whose products have fewer multiply-adds than this runs on one thread (waking a
#: pool thread and handing the GIL over cost tens of µs on a virtual machine)
MIN_THREADED_WORK = 2 ** 22


@lru_cache(maxsize=None)
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


def one_blas_thread():
    """Context manager limiting BLAS libraries to one thread (restored on exit)."""
    return _controller().limit(limits=1, user_api="blas")


def _usable_cpus() -> int:
    """The CPUs this process may run on, at most ``OMP_NUM_THREADS`` where that is set."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    limit = os.environ.get("OMP_NUM_THREADS", "").strip()
    return min(cpus, int(limit)) if limit.isdigit() and int(limit) > 0 else cpus


_threads = min(2, _usable_cpus())


@contextmanager
def pricing_threads(n: int):
    """Run the batched pricings inside the block on ``n`` threads (1 or 2; restored on exit).
    The results are the same; the time is what changes."""
    global _threads
    if n not in (1, 2):
        raise ValueError(f"n must be 1 or 2, got {n!r}")
    before, _threads = _threads, n
    try:
        yield
    finally:
        _threads = before


@lru_cache(maxsize=None)
def _pool(pid: int) -> ThreadPoolExecutor:
    """The pool thread of process ``pid`` (a forked child makes its own)."""
    return ThreadPoolExecutor(1, thread_name_prefix="sipkl-pricing")


def sum_halves(half, work: int):
    """``half(0) + half(1)``, ``half(1)`` on the pool thread while this one computes
    ``half(0)`` when two threads are allowed and ``work`` (the multiply-adds of the
    exponents' product) is at least :data:`MIN_THREADED_WORK`. An exception in either half
    propagates."""
    if _threads < 2 or work < MIN_THREADED_WORK:
        return half(0) + half(1)
    other = _pool(os.getpid()).submit(half, 1)
    first = half(0)
    return first + other.result()
