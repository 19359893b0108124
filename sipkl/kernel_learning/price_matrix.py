"""The price matrix W: the one contract between masters and pricing oracles.

Every pricing problem of the package is linear in the Gram matrix of the candidate kernel,

    score(θ) = <W, K(θ)>_F = Σ_ij W_ij k_θ(x_i, x_j),

for a symmetric W handed over by the master. W is kept factored, ``W = U diag(s) Uᵀ``, when
it is low rank (IKL's ``½ w wᵀ`` is rank one); only the rows where U is non-zero (the
*support*, e.g. the support vectors) enter any kernel evaluation.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np


class PriceMatrix:
    """Symmetric matrix ``W`` given densely or as ``U diag(signs) Uᵀ``.

    Parameters
    ----------
    factor : array (n, r), optional
        Low-rank factor ``U``.
    signs : array (r,), optional
        Diagonal ``s`` of the middle factor (default all ones).
    dense : array (n, n), optional
        The full symmetric matrix, when no useful factor exists.
    """

    def __init__(self, factor=None, signs=None, dense=None):
        if (factor is None) == (dense is None):
            raise ValueError("give exactly one of factor= or dense=")
        if dense is not None:
            dense = np.asarray(dense, dtype=float)
            if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
                raise ValueError(f"dense must be a square matrix, got shape {dense.shape}")
            if not np.allclose(dense, dense.T, rtol=1e-10, atol=1e-12 * np.abs(dense).max()):
                raise ValueError("dense price matrix must be symmetric")
            self.n = dense.shape[0]
        else:
            factor = np.asarray(factor, dtype=float)
            if factor.ndim == 1:
                factor = factor[:, None]
            signs = np.ones(factor.shape[1]) if signs is None else np.asarray(signs, float)
            if signs.shape != (factor.shape[1],):
                raise ValueError(f"signs must have shape ({factor.shape[1]},), got {signs.shape}")
            self.n = factor.shape[0]
        self.factor, self.signs, self._dense = factor, signs, dense

    @classmethod
    def rank_one(cls, w, scale: float = 1.0) -> "PriceMatrix":
        """``W = scale · w wᵀ`` (IKL: ``scale = ½``, ``w = α∘y``, eq. 4 of gehler_nowozin)."""
        w = np.asarray(w, dtype=float)
        return cls(factor=np.sqrt(abs(scale)) * w, signs=[np.sign(scale) or 1.0])

    @cached_property
    def support(self) -> np.ndarray:
        """Indices of the rows of W that are not identically zero."""
        if self._dense is not None:
            return np.flatnonzero(np.any(self._dense != 0, axis=1))
        return np.flatnonzero(np.any(self.factor != 0, axis=1))

    @cached_property
    def on_support(self) -> np.ndarray:
        """W restricted to ``support × support``, as a dense array (kept)."""
        return self.rows_on_support(slice(None))

    def rows_on_support(self, rows: slice) -> np.ndarray:
        """The rows ``rows`` of W restricted to ``support × support``, a new dense array."""
        idx = self.support
        if self._dense is not None:
            return self._dense[np.ix_(idx[rows], idx)]
        U = self.factor[idx]
        return (U[rows] * self.signs) @ U.T

    def dense(self) -> np.ndarray:
        """The full n × n matrix."""
        if self._dense is not None:
            return self._dense
        return (self.factor * self.signs) @ self.factor.T

    def inner(self, K: np.ndarray) -> float:
        """``<W, K>_F`` for a Gram matrix ``K`` on the full n points."""
        idx = self.support
        return float(np.sum(self.on_support * K[np.ix_(idx, idx)]))
