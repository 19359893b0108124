"""The prediction model of every sipkl estimator: a kernel expansion

    f(x) = Σ_i coef_i · k(x, x_i) + bias,

over stored points x_i (the support vectors, or all training points for kernel ridge) with
the learned kernel k. Kept as plain arrays so that a fitted model saves to JSON + NPZ.
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

    def arrays(self, prefix: str) -> dict:
        return {f"{prefix}points": self.points, f"{prefix}coef": self.coef}

    def to_dict(self) -> dict:
        return {"kernel": self.kernel.to_json(), "bias": float(self.bias)}

    @classmethod
    def from_parts(cls, data: dict, arrays, prefix: str) -> "KernelExpansion":
        points, coef = arrays[f"{prefix}points"], arrays[f"{prefix}coef"]
        if points.ndim != 2 or coef.shape != (len(points),):
            raise ValueError("model arrays have inconsistent shapes")
        return cls(LearnedKernel.from_json(data["kernel"]), points, coef, float(data["bias"]))
