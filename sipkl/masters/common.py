"""Helpers shared by masters whose kernel weights live on the simplex."""
from __future__ import annotations

import numpy as np


def simplex_start(warm_start, m: int) -> np.ndarray:
    """Starting weights on the simplex: the warm start (clipped at 0, normalized) when it
    fits ``m`` columns and has a positive entry, else uniform weights."""
    if warm_start is None or len(warm_start) != m or not np.any(np.asarray(warm_start) > 0):
        return np.full(m, 1.0 / m)
    d = np.clip(np.asarray(warm_start, dtype=float), 0.0, None)
    return d / d.sum()
