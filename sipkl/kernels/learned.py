"""The learned kernel: a non-negative combination of columns, callable on new data."""
from __future__ import annotations

import json

import numpy as np


class LearnedKernel:
    """``k(x, x′) = (Σ_m d_m k_{θ_m}(x, x′))^degree`` over the learned columns.

    ``degree`` is 1 for the linear combinations of every master but the non-linear one
    (cortes_mohri_rostamizadeh eq. 4, entrywise power). ``kernel(X, Y=None)`` returns the
    Gram matrix, usable with ``SVC(kernel="precomputed")`` or ``KernelRidge``.
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

    def to_json(self) -> str:
        """The kernel as a JSON document (family names, parameters, weights, schema version)."""
        from ..persistence import columns_to_list, document
        return json.dumps(document("sipkl.learned_kernel", columns=columns_to_list(self.columns),
                                   weights=self.weights.tolist(), degree=self.degree))

    @classmethod
    def from_json(cls, text: str) -> "LearnedKernel":
        """Inverse of :meth:`to_json`; a tampered or unknown document raises ``ValueError``."""
        from ..persistence import check_document, columns_from_list
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON document: {exc}") from None
        data = check_document(data, "sipkl.learned_kernel")
        weights = np.asarray(data.get("weights"), dtype=float)
        if weights.ndim != 1 or not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError("weights must be a list of finite non-negative numbers")
        return cls(columns_from_list(data.get("columns")), weights, data.get("degree"))

    def __len__(self):
        return len(self.columns)

    def __repr__(self):
        terms = ", ".join(f"{d:.4g}·{c!r}" for d, c in zip(self.weights, self.columns))
        return f"LearnedKernel({terms})" + (f"^{self.degree}" if self.degree > 1 else "")
