"""Helpers shared by masters whose kernel weights live on the simplex."""
from __future__ import annotations

import numpy as np


def simplex_start(warm_start, m: int) -> np.ndarray:
    """Starting weights on the simplex: the warm start (clipped at 0, normalized unless it
    sums to 1 to rounding) when it fits ``m`` columns and has a positive entry, else uniform
    weights."""
    if warm_start is None or len(warm_start) != m or not np.any(np.asarray(warm_start) > 0):
        return np.full(m, 1.0 / m)
    d = np.clip(np.asarray(warm_start, dtype=float), 0.0, None)
    total = d.sum()
    # weights that sum to 1 to rounding are kept as they are, to the bit (a master can then
    # recognize its own last end point)
    return d if abs(total - 1.0) <= len(d) * np.finfo(float).eps else d / total
