"""The learned kernel: a non-negative combination of columns, callable on new data."""
from __future__ import annotations

import numpy as np


class LearnedKernel:
    """``k(x, x′) = Σ_m d_m k_{θ_m}(x, x′)`` over the learned columns.

    ``kernel(X, Y=None)`` returns the Gram matrix, usable with
    ``SVC(kernel="precomputed")`` or ``KernelRidge(kernel="precomputed")``.
    """

    def __init__(self, columns, weights):
        weights = np.asarray(weights, dtype=float)
        if len(columns) != len(weights):
            raise ValueError("columns and weights must have the same length")
        self.columns = list(columns)
        self.weights = weights

    def __call__(self, X, Y=None) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        Y = None if Y is None else np.asarray(Y, dtype=float)
        K = np.zeros((len(X), len(X) if Y is None else len(Y)))
        for d, column in zip(self.weights, self.columns):
            if d > 0:
                K += d * column.family.gram(np.asarray(column.theta), X, Y)
        return K

    def __len__(self):
        return len(self.columns)

    def __repr__(self):
        terms = ", ".join(f"{d:.4g}·{c!r}" for d, c in zip(self.weights, self.columns))
        return f"LearnedKernel({terms})"
