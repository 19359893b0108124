"""Gram matrices of columns that are computed when read, never held whole.

At n training points a column's Gram matrix K_m = K(θ_m) takes 8n² bytes (0.8 GB at
n = 10 000). The hinge-loss masters read of it only

* its part of K(d) = Σ_m d_m K_m (the one n × n matrix libsvm solves on), and
* the products K_m w, w = α∘y, which involve only the columns of K_m on the support of w:
  K_m w = K(θ_m; X, X_S) w_S, S = {i : w_i ≠ 0}.

:class:`LazyGram` computes both from the points and θ_m, in blocks of rows, so that a run
holds one n × n matrix (K(d)) whatever its number of columns. :func:`add_scaled` is the one
accumulation both a cached Gram matrix (an ndarray) and a :class:`LazyGram` support;
``K @ w`` is the other.

Both go block by block — of rows of a lazy matrix (the budget ``lazy_block_elements``), of
consecutive entries of one held as an array (``thread_block_elements``) — and the blocks
are computed by the worker threads in force (:mod:`sipkl.utils.threads`). A block is a disjoint part
of the result, and within it the matrices are added in their order, so every entry is the
same sum, in the same order, at any number of threads.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from ..utils.blas import axpy
from ..utils.config import budget
from ..utils.threads import n_threads, ordered_map, per_task
from .exponential import row_blocks


class GramFamily(Protocol):
    """What a lazy Gram matrix asks of its family (a
    :class:`~sipkl.kernel_learning.families.base.KernelFamily`): the geometry of two sets of
    points, and the Gram matrix of a parameter θ on it."""

    def geometry(self, X: np.ndarray, Y: np.ndarray): ...

    def gram_from(self, geometry, theta: np.ndarray) -> np.ndarray: ...


class LazyGram:
    """K(θ) of one kernel on the points ``X`` (n × n), evaluated block by block of rows.

    Supports ``K @ w`` (a vector of length n, from the cross-Gram matrix of all points with
    the support of ``w``), :func:`add_scaled` and ``np.asarray(K)`` (the whole matrix, for
    masters that need it at the sizes they run at). ``shape`` is ``(n, n)``. ``device``: where
    its blocks are computed, None for NumPy (a torch device in a subclass of
    :mod:`sipkl.compute.torch_backend`). ``features``: whether the matrix is held by its features,
    K = Φ Φᵀ with Φ its ``X`` (:class:`~sipkl.compute.features.FeatureGram`, which stacks them).
    """

    ndim = 2
    device = None
    features = False

    def __init__(self, family: GramFamily, theta, X: np.ndarray):
        self.family, self.theta, self.X = family, np.asarray(theta, dtype=float), X
        self.Y = X  # the points of the columns (another set in a restricted block)
        self.shape = (len(X), len(X))
        self._last_product = None  # (w, K w) of the last product

    def blocks(self, Y: np.ndarray):
        """``(rows, K(θ; X[rows], Y))`` for consecutive slices ``rows`` of the points, each
        block of about ``lazy_block_elements`` entries (a budget of :mod:`sipkl.utils.config`)."""
        for rows in self.row_blocks(Y):
            yield rows, self.block(rows, Y)

    def row_blocks(self, Y: np.ndarray) -> list[slice]:
        """The slices ``rows`` of :meth:`blocks`."""
        return row_blocks(len(self.X), len(Y), budget("lazy_block_elements"))

    def block(self, rows: slice, Y: np.ndarray) -> np.ndarray:
        """K(θ; X[rows], Y)."""
        return self.family.gram_from(self.family.geometry(self.X[rows], Y), self.theta)

    def restricted(self, index, columns=None) -> "LazyGram":
        """K(θ) on the points ``X[index]`` × ``X[columns]`` (``columns``: ``index`` when
        None): the submatrix ``K[np.ix_(index, columns)]``, lazy (products ``@`` only when
        square)."""
        out = self._on(self.X[index])
        if columns is not None:
            out.Y = self.X[columns]
            out.shape = (len(out.X), len(out.Y))
        return out

    def _on(self, X: np.ndarray) -> "LazyGram":
        """The same kernel on the points ``X``."""
        return LazyGram(self.family, self.theta, X)

    def __matmul__(self, w) -> np.ndarray:
        """K w = K(θ; X, X_S) w_S over the support S of the vector ``w``. The last product is
        kept: the hinge masters ask for K_m w with the same w several times (the SVM's
        optimality check, the prices T_m, the master's solution)."""
        w = np.asarray(w, dtype=float)
        if w.shape != (self.shape[1],):
            raise ValueError(f"w must be a vector of length {self.shape[1]}, got shape {w.shape}")
        if self._last_product is not None and np.array_equal(self._last_product[0], w):
            return self._last_product[1].copy()
        support = np.flatnonzero(w)
        out = self._product(support, w[support])
        self._last_product = (w.copy(), out.copy())
        return out

    def _product(self, support, w_S) -> np.ndarray:
        """K[:, support] w_S, from the blocks of rows of K(θ; X, X_support)."""
        out = np.zeros(self.shape[0])
        if support.size:
            Y = self.X[support]

            def rows_of_product(rows):  # disjoint rows of K w: any thread, any order
                out[rows] = np.dot(self.block(rows, Y), w_S)  # releases the GIL
            for _ in ordered_map(rows_of_product, self.row_blocks(Y)):
                pass
        return out

    def __array__(self, dtype=None, copy=None):
        K = add_scaled(np.zeros(self.shape), self, 1.0)
        return K if dtype is None else K.astype(dtype, copy=False)

    def __repr__(self):
        return f"LazyGram({self.family!r}, theta={self.theta}, n={self.shape[0]})"


def restrict(K, index, columns=None):
    """The submatrix ``K[np.ix_(index, columns)]`` (``columns``: ``index`` when None) of a
    Gram matrix held as an array (a copy) or as a :class:`LazyGram` (a lazy one)."""
    if isinstance(K, LazyGram):
        return K.restricted(index, columns)
    return K[np.ix_(index, index if columns is None else columns)]


def add_scaled(out: np.ndarray, K, weight: float) -> np.ndarray:
    """``out += weight · K`` in place (``out`` C-contiguous float64), for a Gram matrix ``K``
    held as an array (BLAS axpy on blocks of consecutive entries) or a :class:`LazyGram` (one
    axpy per block of rows, the same arithmetic); returns ``out``."""
    return _add_all(out, [(K, weight)])


def combined_gram(grams, d) -> np.ndarray:
    """K(d) = Σ_{d_m > 0} d_m K_m, accumulated in place (:func:`add_scaled`'s axpys, block by
    block: each block of the result gets every matrix in turn, in their order, while it is in
    the cache; the blocks on the worker threads in force). Where the lazy matrices are square
    on one set of points, only the blocks on and below the diagonal are computed and the
    upper triangle is their mirror image (K(d) symmetric to the bit, half the kernel values).
    Where every matrix is computed on a torch device (a ``device`` that is not None:
    :class:`sipkl.compute.torch_backend.TorchFeatureGram`), their class sums them there (``combined``)."""
    terms = [(K, dm) for dm, K in zip(d, grams) if dm > 0]
    if terms and all(isinstance(K, LazyGram) and K.device is not None for K, _ in terms):
        return type(terms[0][0]).combined(terms)
    return _add_all(np.zeros(np.shape(grams[0])), terms, zero=True)


def _add_all(out: np.ndarray, terms, zero: bool = False) -> np.ndarray:
    """``out += Σ weight · K`` over the ``(K, weight)`` of ``terms``, in their order for every
    entry. Blocks of the result: of consecutive entries (``thread_block_elements``, a budget
    of :mod:`sipkl.utils.config`) where every K is an array, else the blocks of rows of the lazy
    ones (:meth:`LazyGram.row_blocks`); each block gets every term by one BLAS axpy while it
    is in the cache (whose result for an entry does not depend on where a block starts: the
    same bits at any number of threads, and as one axpy per matrix). With worker threads the
    blocks go to them, those of consecutive entries in one group per thread at least
    (:func:`~sipkl.utils.threads.per_task`), and the axpys release the GIL (:func:`sipkl.utils.blas.axpy`),
    so that the threads' axpys overlap. ``zero`` (``out`` is zero) with lazy terms square on
    one set of points (the terms symmetric): the blocks are of ``row_block_elements``
    (:func:`~sipkl.compute.exponential.row_blocks`), each block of rows a:b gets its columns :b
    only, and the upper triangle is copied from the lower."""
    if not terms:
        return out
    release_gil = n_threads() > 1
    lazy = [K for K, _ in terms if isinstance(K, LazyGram)]
    if lazy:
        lower = zero and all(K.Y is K.X for K in lazy)
        blocks = (row_blocks(len(out), len(out)) if lower  # a triangle: narrow blocks
                  else lazy[0].row_blocks(lazy[0].Y))
        terms = [(K, float(weight)) for K, weight in terms]

        def add_rows(rows):
            columns = slice(0, rows.stop) if lower else slice(None)
            target = np.zeros_like(out[rows, columns]) if lower else out[rows]
            flat = target.reshape(-1)
            for K, weight in terms:
                block = (K.block(rows, K.Y[columns]) if isinstance(K, LazyGram)
                         else K[rows, columns])
                axpy(weight, np.ascontiguousarray(block, dtype=float).reshape(-1), flat,
                     release_gil)
            if lower:
                out[rows, columns] = target
        for _ in ordered_map(add_rows, blocks):
            pass
        if lower:
            for rows in blocks:
                diagonal = out[rows, rows]
                out[rows, rows] = np.tril(diagonal) + np.tril(diagonal, -1).T
                out[rows, rows.stop:] = out[rows.stop:, rows].T
        return out
    flat_out = out.reshape(-1)
    flats = [(np.ascontiguousarray(K, dtype=float).reshape(-1), float(weight))
             for K, weight in terms]
    block = budget("thread_block_elements")
    group = per_task(flat_out.size, block)

    def add_entries(first):
        for start in range(first, min(first + group, flat_out.size), block):
            stop = min(start + block, first + group)
            target = flat_out[start:stop]
            for flat, weight in flats:
                axpy(weight, flat[start:stop], target, release_gil)
    for _ in ordered_map(add_entries, range(0, flat_out.size, group)):
        pass
    return out
