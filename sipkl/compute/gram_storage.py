"""The Gram matrices of a master's columns, in one storage chosen once per fit.

The hinge masters read their columns' Gram matrices through two sweeps — K(d) = Σ_m d_m K_m
for each SVM, and the products K_m w (w = α∘y) for the prices T_m(α) = ½ wᵀ K_m w — and solve
the SVM on all points or on a working set. How both are done depends on how the matrices
are held, which the column space decides once per fit (:meth:`~sipkl.kernel_learning.space.KernelSpace.
master_inputs`):

* :class:`DenseGrams`: n × n arrays (one BLAS axpy per matrix, matrix-vector products);
* :class:`LazyGrams`: :class:`~sipkl.compute.lazy_gram.LazyGram` matrices computed when read, in
  blocks of rows; the SVM on them is solved on a working set above the budget
  ``working_set_min_n`` (``lazy``);
* :class:`~sipkl.compute.packed_gram.PackedGrams`: dense matrices read through their packed lower
  triangles, which the Newton master holds from solve to solve within the budget
  ``packed_gram_bytes``.

Each is a sequence of the matrices themselves (``grams[m]`` is K_m), so a master that reads
them one by one (the QCQP master's eigen-factors) needs nothing else.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..utils.threads import ordered_map
from .lazy_gram import LazyGram, combined_gram


class GramStorage(Sequence):
    """Gram matrices with the two sweeps: :meth:`combined` and :meth:`products`. ``lazy``:
    the matrices are computed when read (the SVM on them goes to a working set)."""

    lazy = False

    def __init__(self, grams=()):
        self._grams = list(grams)

    def __len__(self) -> int:
        return len(self._grams)

    def __getitem__(self, m):
        return self._grams[m]

    def combined(self, d) -> np.ndarray:
        """K(d) = Σ_{d_m > 0} d_m K_m (n × n, :func:`~sipkl.compute.lazy_gram.combined_gram`)."""
        return combined_gram(self._grams, d)

    def products(self, w) -> np.ndarray:
        """The columns K_m w (n × M): matrix-vector products, no copy of any Gram block (a
        lazy Gram matrix computes only its columns on the support of w); the matrices on the
        worker threads in force (:mod:`sipkl.utils.threads`: each product is the same whichever
        thread makes it), by ``np.dot``, which releases the GIL during its BLAS call (see
        :meth:`~sipkl.compute.exponential.PairExponential.__call__`)."""
        return np.column_stack(list(ordered_map(
            lambda K: np.dot(K, w) if isinstance(K, np.ndarray) else K @ w, self._grams)))


class DenseGrams(GramStorage):
    """Gram matrices held as n × n arrays."""


class LazyGrams(GramStorage):
    """Gram matrices computed when read (:class:`~sipkl.compute.lazy_gram.LazyGram`)."""

    lazy = True


def gram_storage(grams) -> GramStorage:
    """``grams`` in its storage: itself when it is one (as a column space hands it), else the
    storage of its matrices — lazy when any is a :class:`~sipkl.compute.lazy_gram.LazyGram` — for
    matrices given as a plain sequence."""
    if isinstance(grams, GramStorage):
        return grams
    return LazyGrams(grams) if any(isinstance(K, LazyGram) for K in grams) else DenseGrams(grams)
