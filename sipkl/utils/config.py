"""The speed and memory budgets of sipkl, in one configuration.

As scikit-learn's ``config_context(working_memory=…)``: the budgets say how large a cache,
a temporary block or a batch may be, never what is computed: the results are the same at any
budget, to round-off where a sum is split into other blocks, and to the SVM's tolerance where
the Gram budgets send the hinge masters' SVMs to working sets (``gram_cache_bytes``,
``gram_total_bytes``) or ``svm_features_ratio`` picks the solver of a set — round-off and
tolerance can then lead a fit along another path of columns. They are read where they are
used, so a fit inside ``config_context`` (the estimators included) runs with its budgets:

    >>> import sipkl
    >>> with sipkl.config_context(gram_cache_bytes=0):   # every Gram matrix lazy
    ...     sipkl.get_config()["gram_cache_bytes"]
    0
    >>> sipkl.get_config()["gram_cache_bytes"] == 2 ** 28
    True

**One configuration per thread**, as scikit-learn's: :func:`set_config` and
:func:`config_context` change the budgets of the calling thread only, so that fits running in
several threads at once (a user's own threads, the one-vs-rest problems of an estimator) each
keep their own. A new thread starts from the defaults (:data:`BUDGETS`), not from the budgets
of the thread that started it. The budgets are propagated only where :mod:`sipkl.utils.threads`
hands work to its worker threads: each task runs under the budgets that the submitting thread
had when it submitted it, whichever worker computes it and whatever that worker ran before.

The budgets (:data:`BUDGETS` holds the defaults):

``gram_cache_bytes`` (2²⁸, 256 MiB)
    A column's n × n Gram matrix (8n² bytes) is cached while it takes at most this many bytes
    (n ≤ 5792); beyond, the kernel column space is lazy
    (:class:`~sipkl.kernel_learning.space.KernelSpace`,
    :class:`~sipkl.compute.lazy_gram.LazyGram`).
``gram_total_bytes`` (2³², 4 GiB)
    The cached Gram matrices of one fit take at most this many bytes together: a column
    whose matrix would pass it is lazy (a :class:`~sipkl.compute.lazy_gram.LazyGram`, computed
    when read), the columns cached before it stay cached, and the hinge masters solve their
    SVMs on working sets above ``working_set_min_n`` points from then on. 59 columns of 3000
    points, 21 of 5000. A run resumed from a checkpoint caches its columns in their order,
    so that past this budget it may hold other columns lazy than the run it resumes did (the
    same run to the SVM's tolerance, not to the bit).
``packed_gram_bytes`` (2²⁶)
    The Newton hinge master holds packed copies of its Gram matrices (their lower triangles,
    :class:`~sipkl.compute.packed_gram.PackedGrams`) while they take at most this many bytes,
    besides the full matrices of the workspace (185 columns of 300 points, 16 of 1000, 1 of 3000):
    the copies pay where the sweeps are a large part of a round.
``lazy_block_elements`` (2²², 32 MB)
    Elements of one block of rows of a lazy Gram matrix.
``row_block_elements`` (2²⁰, 8 MB)
    Elements of one temporary block of rows (:func:`~sipkl.compute.exponential.row_blocks`).
``cache_block_elements`` (2¹⁵, 256 kB)
    Elements of one block of a pass over pairwise distances that should stay in the core's
    cache.
``thread_block_elements`` (2¹⁶, 512 kB)
    Elements of one block of a pass over a large array that the worker threads share
    (:mod:`sipkl.utils.threads`): the entries of K(d) = Σ d_m K_m, the rows of a Gram matrix
    formed from its distances, the rows of the squared differences of the pairs. Fixed, not
    derived from the number of threads (the results do not depend on it); 16 blocks per
    10⁶ entries, a 1000 × 1000 Gram matrix.
``pricing_chunk_elements`` (2¹⁸)
    Elements of the temporary (parameters × pairs) block of the batched pricers: small
    enough for the block and its rows of Δ to stay in cache between the two products, large
    enough for few calls per evaluation (single precision, 44 850 pairs of 20 dimensions,
    with 2¹⁶ / 2¹⁸ / 2²² elements: 200 values 20.7 / 19.7 / 24.5 ms, 12 values, gradients
    and curvatures 2.30 / 2.15 / 2.13 ms, 5 Hessians on 8 coordinates 3.0 / 2.4 / 2.4 ms).
``pair_elements`` (2²⁴)
    GaussianARD stores the (pairs × dimensions) matrix of squared differences up to this
    size, and forms it block by block at each evaluation beyond.
``point_thetas`` (16)
    At most this many θ's are priced through the points rather than the pairs
    (:class:`~sipkl.compute.exponential.PointExponential`).
``working_set_start`` (1000)
    Points of each class in the first working set of an SVM on lazy Gram matrices, when no
    start is given; also the fewest points that join a working set in one round.
``working_set_min_n`` (2000)
    Above this many samples the SVM on lazy Gram matrices is solved on a working set
    (:mod:`~sipkl.kernel_learning.masters.working_set`); at most this many, on all points at
    once.
``svm_features_ratio`` (12)
    The hinge masters' SVM on a working set S over Nyström columns (K(d) = Z Zᵀ, Z of p
    features in all) is solved by the interior-point method on the features
    (:mod:`~sipkl.solvers.svm_features`: about 10|S|p² operations, K(d) never formed) where
    |S| is at least this many times p, or the features lie on a GPU; else by libsvm on
    K(d) on S × S (|S|²p operations to form). On one core the two take equal time near
    |S| = 12p (``benchmarks/svm_features.py``: 1.32× at 8.3p, 0.75× at 16.7p).
``qcqp_fallback_max_n`` (1000)
    The Newton hinge master falls back to the QCQP master (eigen-factors of every Gram
    matrix, O(n³) per column) only up to this many samples; beyond, its stopped solution is
    reported as is.
``threads`` (1, at least 1)
    Worker threads of the compute layer (the blocks of pairs of a pricer, the blocks of rows
    of a Gram matrix, the Gram matrices of a sweep) for code run outside an estimator: the
    engine used directly, a pricer called by hand (:mod:`sipkl.utils.threads`; a pool of that
    size is made on first use and kept by the process). An estimator's ``n_jobs`` sets the
    threads of its own fit instead (:func:`sipkl.utils.threads.thread_pool`, the pool made and
    shut down by the fit), whatever this budget. Like the others it never changes what is
    computed: the blocks do not depend on it, and their partial sums are added in the blocks'
    order, so the results are the same to the bit at any number of threads.
"""
from __future__ import annotations

import numbers
import threading
from contextlib import contextmanager

#: the budgets and their defaults (see the module doc)
BUDGETS = {
    "gram_cache_bytes": 2 ** 28,
    "gram_total_bytes": 2 ** 32,
    "packed_gram_bytes": 2 ** 26,
    "lazy_block_elements": 2 ** 22,
    "row_block_elements": 2 ** 20,
    "cache_block_elements": 2 ** 15,
    "thread_block_elements": 2 ** 16,
    "pricing_chunk_elements": 2 ** 18,
    "pair_elements": 2 ** 24,
    "point_thetas": 16,
    "working_set_start": 1000,
    "working_set_min_n": 2000,
    "svm_features_ratio": 12,
    "qcqp_fallback_max_n": 1000,
    "threads": 1,
}

#: the least value of each budget that has one above 0
_LEAST = {"threads": 1}


class _ThreadBudgets(threading.local):
    """``values``: the budgets of one thread by name, the defaults until it sets its own
    (``__init__`` runs in each thread on its first use of the object)."""

    def __init__(self):
        self.values = dict(BUDGETS)


_local = _ThreadBudgets()


def get_config() -> dict:
    """The budgets in force in this thread, by name (a copy)."""
    return dict(_local.values)


def budget(name: str) -> int:
    """The budget ``name`` in force in this thread."""
    return _local.values[name]


def set_config(**budgets) -> None:
    """Set budgets of this thread by name (the others keep their values); each a non-negative
    integer (``threads`` at least 1). Other threads keep theirs."""
    for name, value in budgets.items():
        if name not in BUDGETS:
            raise ValueError(f"{name}: not a budget of sipkl (known: {sorted(BUDGETS)})")
        least = _LEAST.get(name, 0)
        if not (isinstance(value, numbers.Integral) and not isinstance(value, bool)
                and value >= least):
            raise ValueError(f"{name} must be an integer ≥ {least}, got {value!r}")
    _local.values.update({name: int(value) for name, value in budgets.items()})


@contextmanager
def config_context(**budgets):
    """The budgets ``budgets`` in this thread inside the ``with`` block; after it, however it
    ends (an exception included), the budgets this thread had before it (what
    :func:`set_config` changed inside the block is undone too)."""
    previous = get_config()
    set_config(**budgets)
    try:
        yield
    finally:
        _local.values = previous
