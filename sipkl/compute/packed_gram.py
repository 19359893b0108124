"""Symmetric Gram matrices read through their lower triangles: the Newton master's sweeps.

Every step of the hinge Newton master (:class:`~sipkl.kernel_learning.masters.hinge.HingeMKLNewton`) sweeps
the Gram matrices of all its columns: K(d) = Σ_m d_m K_m for each SVM, and the products
K_m w (w = α∘y) for the prices T_m(α) = ½ wᵀ K_m w and the Hessian. Both sweeps are bound by
memory traffic, not by arithmetic, and a symmetric matrix holds each number twice. Held as
the n(n + 1)/2 entries of its lower triangle (row by row, which is LAPACK's upper packed
storage by columns),

    K(d) = Σ_m d_m K_m   is one BLAS axpy per packed matrix, copied to both triangles,
    K_m w                is one packed symmetric product per matrix (BLAS ``dspmv``),

each reading half the bytes of the full matrices. The full matrices stay where they are (the
workspace's cache): :class:`PackedGrams` is a sequence of them, with the two sweeps added (a
:class:`~sipkl.compute.gram_storage.GramStorage`).
"""
from __future__ import annotations

import numpy as np

from ..utils.blas import spmv
from ..utils.threads import n_threads, ordered_map
from .gram_storage import GramStorage
from .lazy_gram import combined_gram


class PackedGrams(GramStorage):
    """The n × n Gram matrices of :meth:`hold` as a sequence (``grams[m]`` is the matrix
    itself), each with its lower triangle packed, for the two sweeps.

    Kept from one master solve to the next: :meth:`hold` packs only the matrices it does not
    hold yet (by identity) and forgets those no longer asked for. Only the lower triangle of
    each matrix is read: a Gram matrix is symmetric (to round-off, where formed by a matrix
    product).
    """

    def __init__(self, n: int):
        super().__init__()
        self.n = n
        self._lower = np.tri(n, dtype=bool)  # (i, j), j ≤ i: row by row, the packed order
        self._packed: dict[int, np.ndarray] = {}  # id of a held matrix -> its lower triangle

    def hold(self, grams) -> "PackedGrams | None":
        """Hold exactly ``grams`` (n × n arrays, in this order) and return ``self``; ``None``
        (nothing changed) where one of the new matrices has a non-finite entry in its lower
        triangle."""
        new = {id(K): np.asarray(K, dtype=float)[self._lower] for K in grams
               if id(K) not in self._packed}
        if not all(np.isfinite(row).all() for row in new.values()):
            return None
        self._packed = {id(K): self._packed.get(id(K), new.get(id(K))) for K in grams}
        self._grams = list(grams)
        return self

    def _rows(self):
        return [self._packed[id(K)] for K in self._grams]

    def products(self, w) -> np.ndarray:
        """The columns K_m w (n × M), one packed symmetric product each (BLAS ``dspmv``), the
        matrices on the worker threads in force (:mod:`sipkl.utils.threads`; each product is the
        same whichever thread makes it), which call it without the GIL
        (:func:`sipkl.utils.blas.spmv`)."""
        w = np.ascontiguousarray(w, dtype=float)
        release_gil = n_threads() > 1
        return np.column_stack(list(ordered_map(lambda row: spmv(self.n, row, w, release_gil),
                                                self._rows())))

    def combined(self, d) -> np.ndarray:
        """K(d) = Σ_{d_m > 0} d_m K_m (n × n): the packed triangles summed as
        :func:`~sipkl.compute.lazy_gram.combined_gram` sums the matrices (one BLAS axpy each, in
        order), then written to both triangles."""
        packed = combined_gram(self._rows(), d)
        out = np.empty((self.n, self.n))
        out[self._lower] = packed
        out.T[self._lower] = packed  # (j, i) in the same order
        return out
