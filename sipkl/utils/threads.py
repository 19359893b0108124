"""Threads of a fit: one BLAS thread around the thin products, and a pool of worker threads
for the blocks of the compute layer.

**One BLAS thread.** The products inside a fit are small or thin (Gram matrices of a few
hundred points, pairs × dimensions times dimensions × starts, matrix-vector products): extra
BLAS threads only add synchronization to them, which on a two-core machine made a chessboard
fit 2× slower and single products up to 20× slower. The oracle, the Newton master and the
workspace run their products inside :func:`one_blas_thread` (threadpoolctl, a dependency of
scikit-learn). The loaded libraries are found once, on the first call: looking them up again
costs a scan of the process's shared objects (milliseconds, hundreds of times per fit). The
limit is counted: the first of the threads that enter sets it, the last to leave restores it,
so that fits in several threads at once (one-vs-rest classes, a user's own threads) neither
lift it under one another nor leave it behind. (OpenBLAS 0.3.31 ignores a thread count set
from a thread other than the main one once other threads have called it: the thread that
calls ``fit`` — the main thread of a script — holds the limit while the workers run.)

**Worker threads** (an estimator's ``n_jobs``). NumPy releases the GIL in its ufuncs (the
exponentials) and in BLAS, so the blocks of pairs of a pricer, the blocks of rows of a Gram
matrix and the Gram matrices of a sweep can be computed by threads, each with *one* BLAS
thread (never n_jobs × BLAS threads; no process, no copy of the data). The rule that keeps a
fit the same at every number of threads: the blocks are those of the serial code (their sizes
come from the budgets of :mod:`sipkl.utils.config`, never from the number of threads), each
block's partial results are computed as the serial code computes them, and they are added in
the order of the blocks, in the calling thread. The results are then bit-identical for every
n_jobs, and the same as with no thread at all.

What pays, measured on 16 cores (``benchmarks/ikl_threads.py --pricer --contention``): a
thread gains only while its calls have released the GIL. ``np.dot`` and the ufuncs (the
exponentials) release it for the whole call; NumPy's ``np.matmul`` of two matrices kept it
through the BLAS call of a reduction over many rows, and SciPy's level-1 BLAS wrappers (the
axpys of K(d)) keep it: the compute layer's reductions are ``np.dot`` (the same bits). Each
call takes the GIL back when it ends, so that many short calls wait for it in turn: passes
whose entries are computed alone go in one group per thread at least (:func:`per_task`).
At 16 threads: the products K_m w 7.8× faster, the pricers' evaluations 1.8–3.7× (3.2–4.4×
at their best number, 4 or 8), their Hessians 1.0×, K(d) not at all.

The pool is a context, not an argument: the estimators' ``fit`` open :func:`thread_pool` with
their resolved ``n_jobs`` (:func:`effective_n_jobs`, scikit-learn's meaning), and the compute
layer asks :func:`ordered_map` for its blocks, whatever the layers between (engine, oracle,
pricing problem, family, pricer) — none of them takes a new argument. The pool in force
belongs to the thread that opened it (a thread-local setting), so that fits running in
several threads at once each use their own; code that runs in a pool's worker never submits to
a pool again (it runs its blocks itself: no nested waits, no deadlock). Outside an estimator
(the engine used directly, a pricer called by hand) the budget ``threads`` of
:mod:`sipkl.utils.config` gives the number of threads, served by a pool that the process keeps
for that size (made on first use).

The budgets of :mod:`sipkl.utils.config` are per thread as well, and they follow the work:
each task that :func:`ordered_map` or :func:`map_tasks` hands to a worker runs under the
budgets that the submitting thread had when it submitted it (restored in the worker when the
task ends), so that a fit inside a ``config_context`` computes every block, in whatever
thread, with its own budgets, while a fit in another thread keeps its own.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from functools import lru_cache

from threadpoolctl import ThreadpoolController

from .config import budget, config_context, get_config


@lru_cache(maxsize=None)
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


_blas_lock = threading.Lock()
_blas_users = 0  # threads (and nested contexts) inside one_blas_thread
_blas_limits = None  # threadpoolctl's limiter while _blas_users > 0


@contextmanager
def one_blas_thread():
    """Context manager limiting BLAS libraries to one thread (restored on exit, when the
    last thread inside such a context leaves it)."""
    global _blas_users, _blas_limits
    with _blas_lock:
        if _blas_users == 0:
            _blas_limits = _controller().limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limits.restore_original_limits()
                _blas_limits = None


def effective_n_jobs(n_jobs) -> int:
    """The number of threads ``n_jobs`` asks for, with scikit-learn's meaning (joblib's
    :func:`joblib.effective_n_jobs`, which scikit-learn's own ``n_jobs`` go through): ``None``
    is 1 unless a ``joblib.parallel_config(n_jobs=…)`` context says otherwise, −1 all CPUs
    (those this process may use), −2 all but one, and so on."""
    if n_jobs is None or n_jobs != 1:
        from joblib import effective_n_jobs as joblib_effective_n_jobs
        return max(1, int(joblib_effective_n_jobs(n_jobs)))
    return 1


_UNSET = object()


class _ThreadState(threading.local):
    """``pool``: the :class:`_Pool` in force in this thread (``None``: its blocks in this
    thread; :data:`_UNSET`: none opened here, the budget ``threads`` rules); ``interrupt``:
    the event shared by the tasks of the :func:`map_tasks` whose task this thread runs."""

    pool = _UNSET
    interrupt = None


_local = _ThreadState()


class _Pool:
    """A ``ThreadPoolExecutor`` of ``size`` workers, each marked as a worker (code running in
    it runs its blocks itself) and, where the BLAS library keeps its thread count per thread
    (OpenBLAS built with OpenMP), limited to one BLAS thread in that thread."""

    def __init__(self, size: int):
        self.size = size
        self.executor = ThreadPoolExecutor(size, thread_name_prefix="sipkl",
                                           initializer=_worker_setup)

    def map(self, fn, items, interrupt: threading.Event = None) -> list:
        """``[fn(item) for item in items]`` on the workers, each under the budgets of the
        calling thread (:func:`_with_callers_budgets`); with ``interrupt``, a Ctrl-C while
        waiting sets it and the wait goes on (the tasks end early on seeing it)."""
        task = _with_callers_budgets(fn)
        futures = [self.executor.submit(task, item) for item in items]
        try:
            try:
                return [f.result() for f in futures]
            except KeyboardInterrupt:
                if interrupt is None:
                    raise
                interrupt.set()
                return [f.result() for f in futures]
        finally:  # on an error: nothing still runs on the caller's buffers once it raises
            for f in futures:
                f.cancel()
            wait(futures)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)


def _with_callers_budgets(fn):
    """``fn``, to be called in another thread under the budgets that this thread has now
    (:mod:`sipkl.utils.config` keeps them per thread): the worker's own come back after
    each call."""
    budgets = get_config()

    def under_budgets(*args):
        with config_context(**budgets):
            return fn(*args)
    return under_budgets


def _worker_setup() -> None:
    _local.pool = None  # a worker runs its own blocks: never submits to a pool
    # Where the count is per thread (OpenMP's), this thread's; elsewhere (OpenBLAS with
    # pthreads, MKL) the count is the process's, set by the caller's one_blas_thread.
    for lib in _controller().lib_controllers:
        if (lib.user_api == "blas" and lib.internal_api == "openblas"
                and lib.info().get("threading_layer") == "openmp"):
            lib.set_num_threads(1)


_shared_lock = threading.Lock()
_shared: dict[int, _Pool] = {}  # the pools of the budget ``threads``, by size


def _shared_pool(size: int) -> _Pool:
    with _shared_lock:
        if size not in _shared:
            _shared[size] = _Pool(size)
        return _shared[size]


def _pool_in_force():
    pool = _local.pool
    if pool is _UNSET:  # nothing opened in this thread: the budget ``threads``
        size = budget("threads")
        return _shared_pool(size) if size > 1 else None
    return pool


@contextmanager
def thread_pool(n_threads: int = None):
    """Inside the ``with`` block, the compute layer of this thread runs its blocks on
    ``n_threads`` worker threads (default: the budget ``threads``); 1: in this thread. The
    pool is made on entry and shut down on exit (an estimator's fit opens one)."""
    size = budget("threads") if n_threads is None else int(n_threads)
    if size < 1:
        raise ValueError(f"n_threads must be at least 1, got {n_threads!r}")
    previous = _local.pool
    pool = _Pool(size) if size > 1 else None
    _local.pool = pool
    try:
        yield
    finally:
        _local.pool = previous
        if pool is not None:
            pool.shutdown()


def n_threads() -> int:
    """The number of threads the compute layer of this thread runs its blocks on."""
    pool = _pool_in_force()
    return 1 if pool is None else pool.size


def per_task(count: int, least: int) -> int:
    """Items per task for a pass over ``count`` items whose results do not depend on how they
    are grouped (disjoint parts of an array, each computed alone): at least ``least``, and
    no fewer than makes one task per thread in force. Each NumPy or BLAS call returns the GIL
    when it ends, so that a task of many short calls waits for it at each; fewer, longer
    tasks wait less often."""
    threads = n_threads()
    return max(1, int(least), -(-int(count) // threads) if threads > 1 else 1)


def ordered_map(fn, items):
    """``fn(item)`` for each of ``items``, in their order: computed by the pool in force
    (:func:`thread_pool`; the workers under one BLAS thread and this thread's budgets, as
    they are at this call) where there is one and more than one item, else one after the
    other in this thread (lazily: a serial caller keeps one block's temporaries at a time).
    Add what it returns in this order for results that do not depend on the number of
    threads."""
    items = list(items)
    pool = _pool_in_force() if len(items) > 1 else None
    if pool is None:
        return map(fn, items)
    with one_blas_thread():
        return iter(pool.map(fn, items))


def map_tasks(fn, items, n_threads: int) -> list:
    """``[fn(item) for item in items]`` for independent whole computations (the binary
    problems of one-vs-rest): ``min(n_threads, len(items))`` threads run them, each inside a
    :func:`thread_pool` of its own with the rest of the ``n_threads`` (``n_threads //`` that
    many; 1: its blocks in its own thread) and under this thread's budgets, as they are at
    this call; the results in the order of ``items``. With one thread (or one item) they run
    one after the other in this thread, the item inside a pool of all ``n_threads``.

    Ctrl-C: the tasks share one ``threading.Event`` (:func:`shared_interrupt`, read in the
    task's thread), which a task sets where it catches the ``KeyboardInterrupt`` itself (in
    this thread, one after the other) and which is set where it reaches this thread while
    it waits for the worker threads; the tasks that read it end early, and their results
    are returned. A second Ctrl-C while waiting for them is raised."""
    items = list(items)
    outer = max(1, min(int(n_threads), len(items)))
    inner = max(1, int(n_threads) // outer)
    interrupt = threading.Event()

    def one(item):
        previous, _local.interrupt = _local.interrupt, interrupt
        try:
            with thread_pool(inner):
                return fn(item)
        finally:
            _local.interrupt = previous
    if outer == 1:
        return [one(item) for item in items]
    pool = _Pool(outer)
    try:
        with one_blas_thread():  # held for the tasks' whole lives, whatever they limit
            return pool.map(one, items, interrupt)
    finally:
        pool.shutdown()


def shared_interrupt():
    """The ``threading.Event`` shared by the tasks of the :func:`map_tasks` whose task this
    thread runs (set on Ctrl-C: the task should end early), or ``None`` outside one (for
    the engine's ``interrupt``: :class:`~sipkl.core.engine.ColumnGeneration`)."""
    return _local.interrupt
