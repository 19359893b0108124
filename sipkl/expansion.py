"""The prediction model of every sipkl estimator: a kernel expansion

    f(x) = Σ_i coef_i · k(x, x_i) + bias,

over stored points x_i (the support vectors, or all training points for kernel ridge) with
the learned kernel k. Kept as plain arrays so that a fitted model saves to JSON + NPZ
(:mod:`sipkl.persistence`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kernels.learned import LearnedKernel


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
