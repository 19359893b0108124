"""Generated data sets (nothing is downloaded)."""
from __future__ import annotations

import numpy as np


def make_checkerboard(n_samples: int = 300, n_noise: int = 18, n_cells: int = 4,
                      random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """The IKL chessboard toy (gehler_nowozin §4.3).

    Points uniform on ``[0, 1]²`` labelled ±1 by the colour of their cell on an
    ``n_cells × n_cells`` board, followed by ``n_noise`` uniform noise dimensions. Returns
    unstandardized ``X`` (``n_samples × (2 + n_noise)``) and ``y ∈ {−1, +1}``; the paper
    standardizes to zero mean and unit variance (use a ``StandardScaler`` fitted on train).
    """
    if n_samples < 1 or n_noise < 0 or n_cells < 1:
        raise ValueError("n_samples, n_cells must be positive and n_noise non-negative")
    rng = np.random.default_rng(random_state)
    X = rng.uniform(0.0, 1.0, size=(n_samples, 2 + n_noise))
    cells = np.floor(X[:, :2] * n_cells).astype(int)
    y = np.where(cells.sum(1) % 2 == 0, 1.0, -1.0)
    return X, y
