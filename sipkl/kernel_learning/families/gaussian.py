"""Gaussian families of gehler_nowozin §4.2, parameterized by scales s ≥ 0 (a column's
generic parameter θ *is* s; columns print and plot as ``s``):

* :class:`GaussianIso` ("single", eq. 11):   k(x, x′; s) = exp(−s ‖x − x′‖²)
* :class:`GaussianSeparate` ("separate", eq. 12): one :class:`GaussianIso` per input
  dimension d, k(x, x′; d, s) = exp(−s ([x]_d − [x′]_d)²)
* :class:`GaussianARD` ("products", eq. 13):   k(x, x′; s) = exp(−Σ_d s_d ([x]_d − [x′]_d)²)

The paper writes the same kernels with θ² where we write s. We optimize over s because
∂k/∂θ_d vanishes at θ_d = 0 (a local search could never switch a dimension back on), while
∂k/∂s_d does not; s is also the variable in which the price is a difference of convex
functions (the DC oracle). Other notations: bandwidth σ with exp(−‖x − x′‖²/2σ²) is s = 1/(2σ²); scikit-learn's
``gamma`` is s. The default box s ∈ [0, 900] is the paper's θ ∈ [0, 30] (§4.4.1, data
standardized to zero mean and unit variance).
"""
from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict

import numpy as np

from ...compute.exponential import (PairExponential, PointExponential, PointPairExponential,
                                    VaryingCoordinates, gaussian_gram, pair_squared_differences,
                                    row_blocks, squared_distances, upper_from_row_blocks,
                                    upper_triangle)
from ...utils.config import budget
from ...utils.validation import check_bounds
from .base import KernelFamily, OneParameterFamily

#: scales (s · median squared distance) of the deterministic starting spread
_SPREAD = np.array([1.0, 0.25, 4.0, 0.0625, 16.0])
#: −ln 2⁻⁵²: exp(−s d²) is below double precision's ε once s d² exceeds it
_IDENTITY_EXPONENT = 52 * np.log(2.0)


def _memoized_on_content(fn):
    """``fn(X)`` for an array ``X``, remembered for the last ``8`` arrays by their content
    (shape, dtype and a digest of the bytes), not by identity: the starting points ask for
    the same data scales in every pricing round of a fit. A returned array is read-only."""
    cache, lock = OrderedDict(), threading.Lock()

    @functools.wraps(fn)
    def memoized(X):
        X = np.ascontiguousarray(X)
        key = (X.shape, X.dtype.str, hashlib.blake2b(X, digest_size=16).digest())
        with lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        value = fn(X)
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        with lock:
            cache[key] = value
            if len(cache) > 8:
                cache.popitem(last=False)
        return value
    return memoized


def _subsample(X, max_points: int) -> np.ndarray:
    """Every k-th row of ``X``, k = max(1, ⌊n / max_points⌋)."""
    return X[:: max(1, len(X) // max_points)]


def _sqdist_range(X, max_points: int = 500) -> tuple[float, float]:
    """The median and the smallest positive squared distance between the rows of (a
    subsample of) ``X``; the median of the positive ones where most are 0 (repeated rows),
    1 and ∞ where all are (every value in the data's units otherwise)."""
    return _sqdist_range_of(_subsample(X, max_points))


@_memoized_on_content
def _sqdist_range_of(X) -> tuple[float, float]:
    d2 = squared_distances(X, X)[np.triu_indices(len(X), 1)]
    positive = d2[d2 > 0]
    if not positive.size:
        return 1.0, np.inf
    med = float(np.median(d2))
    return (med if med > 0 else float(np.median(positive))), float(positive.min())


def median_sqdist(X, max_points: int = 500) -> float:
    return _sqdist_range(X, max_points)[0]


def _median_sqdiff_per_dim(X, max_points: int = 150) -> np.ndarray:
    """Per dimension d, the median of ([x_i]_d − [x_j]_d)² over pairs of (a subsample of)
    the rows of ``X`` (the two middle values by one partition); where it is 0 (a dimension
    that is mostly one value, such as a border pixel) the mean, and where that is 0 too (a
    constant dimension, whose scale changes no kernel) the median of the other dimensions':
    every value in the data's units."""
    return _median_sqdiff_per_dim_of(_subsample(X, max_points))


@_memoized_on_content
def _median_sqdiff_per_dim_of(X) -> np.ndarray:
    i, j = np.triu_indices(len(X), 1)
    if not len(i):
        return np.ones(X.shape[1])
    diffs = np.square(X.T[:, i] - X.T[:, j])
    lo, hi = (len(i) - 1) // 2, len(i) // 2
    med = np.partition(diffs, (lo, hi), axis=1)[:, [lo, hi]].mean(axis=1)
    med = np.where(med > 0, med, diffs.mean(axis=1))
    varying = med[med > 0]
    return np.where(med > 0, med, np.median(varying) if len(varying) else 1.0)


class GaussianIso(OneParameterFamily):
    """Isotropic Gaussian, ``exp(−s ‖x − x′‖²)``, one scale s ∈ ``bounds``.

    Parameters
    ----------
    bounds : (float, float)
        The box of s (non-negative).
    features : sequence of int, optional
        The input columns the kernel reads (all by default).

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl import GaussianIso
    >>> K = GaussianIso().gram([2.0], np.array([[0.0], [1.0]]))
    >>> bool(K[0, 1] == np.exp(-2.0)), K.diagonal().tolist()
    (True, [1.0, 1.0])
    """

    param_name = "s"

    def __init__(self, bounds=(0.0, 900.0), features=None):
        super().__init__(bounds, features)

    def _geometry(self, X, Y):
        return squared_distances(X, Y)

    def gram_from(self, geom, theta):
        K = np.multiply(geom, -theta[0])
        return np.exp(K, out=K)

    def price_and_grad(self, geom, theta, W):
        WK = W * np.exp(-theta[0] * geom)
        return float(WK.sum()), np.array([-np.sum(WK * geom)])

    def prices(self, geom, thetas, W):
        thetas = np.asarray(thetas, float).reshape(-1, 1)
        return self.batch_pricer(geom, W)(thetas, grad=False)[0]

    def batch_pricer(self, geom, W):
        # δ_ij = ‖x_i − x_j‖² over the upper triangle
        return PairExponential.from_upper(upper_triangle(geom)[:, None], W)

    def exp_sum_exponents(self, geom) -> np.ndarray:
        """D_ij = ‖x_i − x_j‖², one row per pair i < j (:class:`~sipkl.kernel_learning.families.base.
        ExponentialSum`)."""
        return upper_triangle(geom)[:, None]

    def support_pricer(self, X, W_rows):
        """:meth:`batch_pricer` from blocks of rows of the squared distances and of W: the
        pairs only (16 bytes each), no n_sv × n_sv matrix."""
        X = self._select(X)
        return PairExponential.from_row_blocks(len(X), (
            (rows, squared_distances(X[rows], X), W_rows(rows))
            for rows in row_blocks(len(X), len(X))))

    def starting_points(self, X, n, random_state=None):
        lo, hi = self.param_bounds(None)
        median, smallest = _sqdist_range(self._select(X))
        base = 1.0 / median
        spread = base * _SPREAD[:n]
        # random scales log-uniform from 10⁻³ times the data scale up to the scale where
        # K(s) = I to round-off (exp(−s d²) < 2⁻⁵² for the closest pair), or the box's top
        # where it is lower: in the data's units, not the box's (on raw pixels the default
        # box reaches 10⁹ times the data scale, where every kernel is the identity)
        rng = np.random.default_rng(random_state)
        top = max(min(hi[0], _IDENTITY_EXPONENT / smallest), 1e-3 * base)
        extra = np.exp(rng.uniform(np.log(1e-3 * base), np.log(top), max(0, n - len(spread))))
        return np.clip(np.concatenate([spread, extra]), lo, hi)[:, None]

    def grid(self, X, size, random_state=None):
        """``size`` scales log-spaced over 10⁻⁴ … 10⁴ times 1/median squared distance."""
        lo, hi = self.param_bounds(None)
        base = 1.0 / median_sqdist(self._select(X))
        grid = np.geomspace(base * 1e-4, base * 1e4, size)
        return np.clip(grid, lo, hi)[:, None]  # the box may miss the data-scaled range


class GaussianSeparate(KernelFamily):
    """One-dimensional Gaussians, one :class:`GaussianIso` per input dimension (eq. 12).

    A column is a pair (dimension d, scale s); the dimension is fixed by the member family.

    Examples
    --------
    >>> from sipkl import GaussianSeparate
    >>> [m.features for m in GaussianSeparate().members(3)]   # one GaussianIso per dimension
    [(0,), (1,), (2,)]
    """

    param_name = "s"

    def __init__(self, bounds=(0.0, 900.0)):
        super().__init__(None)
        self.bounds = bounds

    def members(self, n_features):
        check_bounds(self.bounds)
        return [GaussianIso(self.bounds, features=(d,)) for d in range(n_features)]


def _on_varying(X, make):
    """``make(X)``, the pricer of the points X, or where some dimensions are constant on
    them, ``make`` of the others wrapped in :class:`VaryingCoordinates`."""
    keep = np.ptp(X, axis=0) > 0
    return make(X) if keep.all() else VaryingCoordinates(make(X[:, keep]), keep)


class GaussianARD(KernelFamily):
    """Gaussian with one scale per dimension, ``exp(−Σ_d s_d ([x]_d − [x′]_d)²)`` (eq. 13).

    Parameters
    ----------
    n_features : int, optional
        The dimension; ``None`` takes it from the data.
    bounds : (float, float)
        The box of each scale s_d (non-negative).
    features : sequence of int, optional
        The input columns the kernel reads (all by default).

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl import GaussianARD
    >>> K = GaussianARD().gram([1.0, 0.0], np.array([[0.0, 0.0], [1.0, 5.0]]))
    >>> bool(K[0, 1] == np.exp(-1.0))   # the second dimension has scale 0: ignored
    True
    """

    param_name = "s"

    def __init__(self, n_features=None, bounds=(0.0, 900.0), features=None):
        super().__init__(features)
        self.n_features = n_features
        self.bounds = bounds

    def n_params(self, n_features):
        if self.features is not None:
            return len(self.features)
        if self.n_features is not None and n_features is not None and n_features != self.n_features:
            raise ValueError(f"GaussianARD(n_features={self.n_features}) got data with "
                             f"{n_features} features")
        return self.n_features if n_features is None else n_features

    def param_bounds(self, n_features):
        lo, hi = check_bounds(self.bounds)
        p = self.n_params(n_features)
        return np.full(p, lo), np.full(p, hi)

    def gram_from(self, geom, theta):
        X, Y = geom
        r = np.sqrt(theta)
        Z = X * r  # one object for both sides when Y is X: a diagonal of exactly 0, K_ii = 1
        return gaussian_gram(Z, Z if Y is X else Y * r)

    def exp_sum_exponents(self, geom) -> np.ndarray:
        """D_ijd = ([x_i]_d − [x_j]_d)², one row per pair i < j (:class:`~sipkl.kernel_learning.families.base.
        ExponentialSum`)."""
        X, _ = geom
        i, j = np.triu_indices(len(X), 1)
        return (X[i] - X[j]) ** 2

    def price_and_grad(self, geom, theta, W):
        X, _ = geom
        Z = X * np.sqrt(theta)
        a = np.einsum("id,id->i", Z, Z)
        one = np.ones((len(X), 1))
        # −‖z_i − z_j‖² = [√2 z_i, −a_i, −1]·[√2 z_j, 1, a_j] (a = ‖z‖²): the exponents in one
        # product, then M = W ∘ K(s) in place
        M = np.hstack([np.sqrt(2.0) * Z, -a[:, None], -one]) @ np.hstack(
            [np.sqrt(2.0) * Z, one, a[:, None]]).T
        np.exp(M, out=M)
        M *= W
        # Σ_ij M_ij ([x_i]_d − [x_j]_d)² = 2 Σ_i r_i [x_i]_d² − 2 Σ_i [x_i]_d [M X]_id, r = M1
        # (M is symmetric): one product M [X, 1] gives r and the whole gradient.
        MX = M @ np.hstack([X, one])
        r = MX[:, -1]
        quad = 2.0 * (r @ (X * X)) - 2.0 * np.einsum("id,id->d", X, MX[:, :-1])
        return float(r.sum()), -quad

    def prices(self, geom, thetas, W):
        return self.batch_pricer(geom, W)(thetas, grad=False)[0]

    def batch_pricer(self, geom, W):
        """All scales at once through the pairs i < j: δ_ij = ([x_i]_d − [x_j]_d)²_d (P × D),
        stored when that matrix has at most ``pair_elements`` entries (a budget of
        :mod:`sipkl.utils.config`), else formed in blocks at each evaluation, few scales at a time
        through the points instead (:class:`PointExponential`); over the dimensions that vary on the points only
        (:class:`VaryingCoordinates`)."""
        X, _ = geom
        return _on_varying(X, lambda X: self._pair_pricer(X, W))

    @staticmethod
    def _pair_pricer(X, W):
        if len(X) * (len(X) - 1) // 2 * X.shape[1] > budget("pair_elements"):
            return PointExponential(X, W)
        weights = upper_triangle(W)
        weights *= 2.0
        return PairExponential(pair_squared_differences(X), weights, np.trace(W))

    def support_pricer(self, X, W_rows):
        """:meth:`batch_pricer` with W taken in blocks of rows: no n_sv × n_sv matrix
        beyond the budget ``pair_elements`` (the weights of the pairs only, 8 bytes each)."""
        Xs = self._select(X)
        m = len(Xs)
        if m * (m - 1) // 2 * Xs.shape[1] <= budget("pair_elements"):
            return super().support_pricer(X, W_rows)
        (weights,), trace = upper_from_row_blocks(
            m, ((rows, W_rows(rows)) for rows in row_blocks(m, m)), 1)
        weights *= 2.0
        return _on_varying(Xs, lambda X: PointPairExponential(X, weights, trace))

    def starting_points(self, X, n, random_state=None):
        """Isotropic scales first (the spread of :class:`GaussianIso`), then random sparse
        points: a random subset of 1 to 3 dimensions switched on at a data-scaled level."""
        Xs = self._select(X)
        p = Xs.shape[1]
        lo, hi = self.param_bounds(p)
        spread = (_SPREAD[:n] / median_sqdist(Xs))[:, None] * np.ones(p)
        rng = np.random.default_rng(random_state)
        n_extra = max(0, n - len(spread))
        per_dim = _median_sqdiff_per_dim(Xs)
        # per row: k ∈ {1, 2, 3} random dimensions (the first k of a random permutation),
        # each at a log-uniform level in [0.1, 10] / (k · its median squared difference)
        k = np.minimum(p, rng.integers(1, 4, n_extra))[:, None]
        on = np.argsort(rng.random((n_extra, p)), axis=1).argsort(axis=1) < k
        level = np.exp(rng.uniform(np.log(0.1), np.log(10.0), (n_extra, p)))
        extra = np.where(on, level / (k * per_dim), 0.0)
        return np.clip(np.vstack([spread, extra]), lo, hi)
