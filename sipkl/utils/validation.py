"""The argument checks the masters share, one message style: the argument's name, what it
must be, and what it was."""
from __future__ import annotations

import numpy as np


def check_positive(value, name: str) -> float:
    """``value`` as a float; a ``ValueError`` naming ``name`` unless it is a positive finite
    number."""
    if not (np.isscalar(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def check_labels(y) -> np.ndarray:
    """``y`` as floats; a ``ValueError`` unless it is a 1-D array of labels in {−1, +1} with
    both classes."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must be a 1-D array of labels in {-1, +1}")
    if len(np.unique(y)) < 2:
        raise ValueError("y must contain both classes -1 and +1")
    return y


def check_targets(y) -> np.ndarray:
    """``y`` as floats; a ``ValueError`` unless it is a non-empty 1-D array of finite
    targets."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or len(y) == 0 or not np.all(np.isfinite(y)):
        raise ValueError("y must be a non-empty 1-D array of finite targets")
    return y
