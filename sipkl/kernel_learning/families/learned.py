"""The learned kernel: a non-negative combination of columns, callable on new data."""
from __future__ import annotations

import numpy as np


class LearnedKernel:
    """``k(x, x′) = (Σ_m d_m k_{θ_m}(x, x′))^degree`` over the learned columns.

    ``degree`` is 1 for the linear combinations of every master but the non-linear one
    (cortes_mohri_rostamizadeh eq. 4, entrywise power). ``kernel(X, Y=None)`` returns the
    Gram matrix, usable with ``SVC(kernel="precomputed")`` or ``KernelRidge``. It is saved
    as JSON by :func:`sipkl.persistence.kernel_to_json`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])       # two points at distance √5
    >>> from sipkl import Column, GaussianIso, LearnedKernel
    >>> kernel = LearnedKernel([Column.make(GaussianIso(), 1.0), Column.make(GaussianIso(), 4.0)],
    ...                        [0.25, 0.75])
    >>> bool(np.isclose(kernel(X)[0, 1], 0.25 * np.exp(-5.0) + 0.75 * np.exp(-20.0)))
    True
    """

    def __init__(self, columns, weights, degree: int = 1):
        weights = np.asarray(weights, dtype=float)
        if len(columns) != len(weights):
            raise ValueError("columns and weights must have the same length")
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        self.columns = list(columns)
        self.weights = weights
        self.degree = int(degree)

    def __call__(self, X, Y=None) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        Y = None if Y is None else np.asarray(Y, dtype=float)
        K = np.zeros((len(X), len(X) if Y is None else len(Y)))
        for d, column in zip(self.weights, self.columns):
            if d > 0:
                K += d * column.family.gram(np.asarray(column.theta), X, Y)
        return K if self.degree == 1 else K ** self.degree

    def __len__(self):
        return len(self.columns)

    def __repr__(self):
        terms = ", ".join(f"{d:.4g}·{c!r}" for d, c in zip(self.weights, self.columns))
        return f"LearnedKernel({terms})" + (f"^{self.degree}" if self.degree > 1 else "")
