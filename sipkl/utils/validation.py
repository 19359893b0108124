"""The argument checks sipkl shares, one message style: the argument's name, what it must
be, and what it was (a ``TypeError`` for the wrong kind of value, a ``ValueError`` for a
wrong value)."""
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


def finite_array(values, name: str, ndim: int = 1) -> np.ndarray:
    """``values`` as a non-empty finite float array of ``ndim`` dimensions (a scalar is a 1-D
    array of one), or a TypeError/ValueError naming ``name``."""
    kind = "sequence" if ndim == 1 else "array"
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a{'n' if ndim > 1 else ''} {kind} of numbers, got "
                        f"{values!r}") from None
    array = np.atleast_1d(array) if ndim == 1 else array
    if array.ndim != ndim or array.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D {kind}, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite" + (f", got {array.tolist()}" if ndim == 1
                                                       else ""))
    return array


def check_bounds(bounds, name: str = "bounds", nonnegative: bool = True) -> tuple[float, float]:
    """Validate a ``(lower, upper)`` pair of finite floats with lower < upper."""
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (lower, upper) of numbers, "
                        f"got {bounds!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"{name} must be finite, got {bounds!r}")
    if lo >= hi:
        raise ValueError(f"{name}: lower bound {lo} must be smaller than upper bound {hi}")
    if nonnegative and lo < 0:
        raise ValueError(f"{name}: parameters of this family are non-negative, got lower={lo}")
    return lo, hi
