"""One linear kernel per input feature (cortes_mohri_rostamizadeh §4.1):

    k_d(x, x′) = [x]_d [x′]_d,        d = 0 … p − 1,

"a base kernel [associated] to each feature, which computes the product of this feature
between different examples". Their sum is the linear kernel ⟨x, x′⟩.
"""
from __future__ import annotations

import numpy as np

from .base import KernelFamily


class LinearPerFeature(KernelFamily):
    """A finite family: the per-feature linear kernels, θ = (d,), the index of the feature.

    ``features`` restricts the family to a subset of the input columns; θ then indexes that
    subset. Finite: priced by enumerating every feature (``grid``), vectorized over features
    as ``<W, x_d x_dᵀ> = x_dᵀ W x_d``; no gradient and no starting points.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])       # two points at distance √5
    >>> from sipkl import LinearPerFeature
    >>> LinearPerFeature().gram([1], X).tolist()        # x_1 x_1′ of the second feature
    [[0.0, 0.0], [0.0, 4.0]]
    """

    param_name = "d"

    finite = True

    def __init__(self, features=None):
        super().__init__(features)

    def n_params(self, n_features):
        return 1

    def param_bounds(self, n_features):
        p = len(self.features) if self.features is not None else n_features
        return np.array([0.0]), np.array([float(p - 1)])

    def _index(self, theta, n_features):
        d = int(theta[0])
        if d != theta[0] or not 0 <= d < n_features:
            raise ValueError(f"theta must be a feature index in [0, {n_features}), got {theta}")
        return d

    def gram_from(self, geom, theta):
        X, Y = geom
        d = self._index(theta, X.shape[1])
        return np.outer(X[:, d], Y[:, d])

    def price_and_grad(self, geom, theta, W):
        raise TypeError(f"{self!r} is finite: it has no gradient, price it with prices()")

    def prices(self, geom, thetas, W):
        X, _ = geom
        idx = [self._index(t, X.shape[1]) for t in np.asarray(thetas, float).reshape(-1, 1)]
        Xd = X[:, idx]
        return np.einsum("id,id->d", Xd, W @ Xd)

    def grid(self, X, size, random_state=None):
        """Every feature index (``size`` is ignored)."""
        return np.arange(self._select(np.asarray(X)).shape[1], dtype=float)[:, None]

    def starting_points(self, X, n, random_state=None):
        raise ValueError(f"{self!r} is a finite family: it has no starting points, "
                         f"enumerate it with grid()")
