"""The prediction model of every sipkl estimator: a kernel expansion

    f(x) = Σ_i coef_i · k(x, x_i) + bias,

over stored points x_i (the support vectors, or all training points for kernel ridge) with
the learned kernel k. Kept as plain arrays so that a fitted model saves to JSON + NPZ
(:mod:`sipkl.persistence`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .families.learned import LearnedKernel


@dataclass
class KernelExpansion:
    kernel: LearnedKernel
    points: np.ndarray
    coef: np.ndarray
    bias: float = 0.0

    def __call__(self, X) -> np.ndarray:
        return self.kernel(X, self.points) @ self.coef + self.bias

    @classmethod
    def from_svc(cls, kernel, X, svc) -> "KernelExpansion":
        """From a binary ``SVC(kernel="precomputed")`` fitted on ``kernel(X)``."""
        return cls(kernel, X[svc.support_], svc.dual_coef_[0].copy(), float(svc.intercept_[0]))


@dataclass
class LandmarkExpansion:
    """The prediction model of a fit on Nyström columns (:mod:`sipkl.kernel_learning.nystrom`): one
    expansion over the landmarks L per column,

        f(x) = Σ_m k_θm(x, L) β_m + bias,      β_m = d_m A_m⁻¹ K_θm(L, X_S) w_S,

    the decision function of the SVM on the approximated kernel Σ_m d_m K̂(θ_m), evaluated
    exactly (q kernel values per point and column). ``kernel`` holds the columns and their
    weights d (as a :class:`LearnedKernel` of the exact kernels), ``coef`` the β_m as columns
    (q × number of columns)."""

    kernel: LearnedKernel
    points: np.ndarray
    coef: np.ndarray
    bias: float = 0.0

    def __call__(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        out = np.full(len(X), float(self.bias))
        for column, beta in zip(self.kernel.columns, self.coef.T):
            out += column.family.gram(column.theta, X, self.points) @ beta
        return out
