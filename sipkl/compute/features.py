"""Gram matrices held by their features, K = Φ Φᵀ, and the Gaussian blocks they are made of.

The Nyström columns of kernel learning (:mod:`sipkl.kernel_learning.nystrom`) and their torch
twins (:mod:`sipkl.compute.torch_backend`) share these numerics: the jitter ε of the
landmarks' kernel matrix, its Cholesky factor, the Gaussian of stacks of scaled points and
the :class:`FeatureGram` a master reads like a lazy Gram matrix.
"""
from __future__ import annotations

import numpy as np

from .exponential import gaussian_gram
from .lazy_gram import LazyGram

#: the jitter ε added to the landmarks' kernel matrix, A = K(L, L) + εI (kernel values are
#: dimensionless: the same in any units of the data)
JITTER = 1e-4


def landmark_factor(Z_L: np.ndarray) -> np.ndarray:
    """C, the lower Cholesky factor of A = K(L, L) + εI, from the scaled landmarks ``Z_L``."""
    A = gaussian_gram(Z_L, Z_L)
    A[np.diag_indices_from(A)] += JITTER
    return np.linalg.cholesky(A)


class FeatureGram(LazyGram):
    """A Gram matrix held by its features, K = Φ Φᵀ (n × n, Φ n × q), read as the master reads
    a :class:`~sipkl.compute.lazy_gram.LazyGram`: ``K @ w`` = Φ (Φᵀ w) (2nq operations; the last
    product kept, as a lazy Gram matrix keeps it), blocks of rows Φ[rows] Φᵀ, and
    :meth:`~sipkl.compute.lazy_gram.LazyGram.restricted` to a working set. Its "points" ``X`` are the
    rows of Φ and its kernel the dot product."""

    features = True
    #: whether the features lie on an accelerator (a GPU)
    on_accelerator = False

    def __init__(self, features: np.ndarray):
        self.X = self.Y = features
        self.shape = (len(features), len(features))
        self._last_product = None

    def block(self, rows: slice, Y: np.ndarray) -> np.ndarray:
        return np.dot(self.X[rows], Y.T)

    def _on(self, X: np.ndarray) -> "FeatureGram":
        return FeatureGram(X)

    def feature_product(self, support, w_S) -> np.ndarray:
        """Φ[support]ᵀ w_S (length q)."""
        return np.dot(w_S, self.X[support])

    def _product(self, support, w_S) -> np.ndarray:
        return np.dot(self.X, self.feature_product(support, w_S))

    @staticmethod
    def stacked(terms, index):
        """Z_S = [√w Φ[S]] over the ``(K, w)`` of ``terms`` (S = ``index``): Σ w K = Z Zᵀ on
        S × S."""
        return np.hstack([np.sqrt(weight) * K.X[index] for K, weight in terms])

    def __repr__(self):
        return f"FeatureGram(n={self.shape[0]}, rank≤{self.X.shape[1]})"


def stacked_gaussian(Z_a, Z_b, xp=np):
    """exp(−‖z_a − z_b‖²) for stacks of scaled points (c × a × D, c × b × D): c × a × b, in
    the arrays of ``xp`` (NumPy, or torch: the same functions)."""
    out = xp.matmul(Z_a, xp.swapaxes(Z_b, 1, 2))
    out *= 2.0
    out -= xp.einsum("cad,cad->ca", Z_a, Z_a)[:, :, None]
    out -= xp.einsum("cbd,cbd->cb", Z_b, Z_b)[:, None, :]
    xp.clip(out, None, 0.0, out=out)
    return xp.exp(out, out=out)
