"""Other kernel families: Dirichlet, polynomial, Laplacian, precomputed lists, unions.

* :class:`Dirichlet` (afkanpour §3.1):  k(x, x′; σ) = 1 + 2 cos(σ ‖x − x′‖)
* :class:`Polynomial` (pothin_richard §5): k(x, x′; γ) = (1 + γ ⟨x, x′⟩)^q, q fixed
* :class:`Laplacian` (pothin_richard §5, "exponential"): k(x, x′; σ) = exp(−‖x − x′‖ / 2σ²)
* :class:`Precomputed`: a finite list of user Gram matrices or kernel functions
* :class:`KernelUnion`: several families priced together (e.g. IKL "separate" + "single")

Each continuous family here has one parameter, θ = (σ,) or θ = (γ,) as named above.
"""
from __future__ import annotations

import warnings

import numpy as np

from ...compute.exponential import squared_distances
from .base import KernelFamily, OneParameterFamily
from .gaussian import median_sqdist


def _starts(base: float, n: int, random_state, lo, hi) -> np.ndarray:
    """Starting points of a one-parameter family: ``base`` × (1, ½, 2, ¼, 4), then ``base``
    × log-uniform factors in [0.1, 10], clipped to the box."""
    spread = base * np.array([1.0, 0.5, 2.0, 0.25, 4.0])[:n]
    rng = np.random.default_rng(random_state)
    extra = base * np.exp(rng.uniform(np.log(0.1), np.log(10.0), max(0, n - len(spread))))
    return np.clip(np.concatenate([spread, extra]), lo, hi)[:, None]


class Dirichlet(OneParameterFamily):
    """Dirichlet kernel of degree one, ``1 + 2 cos(σ ‖x − x′‖)`` (afkanpour §3.1), θ = (σ,).

    σ is a frequency: the kernel is even in σ, so the box is σ ≥ 0. It is positive
    semi-definite for one-dimensional inputs (its spectrum is {0, ±σ}), not in general for
    inputs of higher dimension. The price oscillates in σ, so the starting points reach high
    frequencies: σ × median distance ∈ {1, 3, 10, 30, 100}, then uniform random draws over
    [σ_min, min(σ_max, 100/median distance)].

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])       # two points at distance √5
    >>> from sipkl import Dirichlet
    >>> bool(np.isclose(Dirichlet().gram([np.pi / np.sqrt(5)], X)[0, 1], -1.0))  # 1 + 2 cos π
    True
    """

    param_name = "σ"

    def __init__(self, bounds=(1e-3, 10.0), features=None):
        super().__init__(bounds, features)

    def _geometry(self, X, Y):
        return np.sqrt(squared_distances(X, Y))

    def gram_from(self, geom, theta):
        return 1.0 + 2.0 * np.cos(theta[0] * geom)

    def price_and_grad(self, geom, theta, W):
        angle = theta[0] * geom
        return (float(np.sum(W * (1.0 + 2.0 * np.cos(angle)))),
                np.array([-2.0 * np.sum(W * geom * np.sin(angle))]))

    def starting_points(self, X, n, random_state=None):
        lo, hi = self.param_bounds(None)
        base = 1.0 / np.sqrt(median_sqdist(self._select(X)))
        spread = base * np.array([1.0, 3.0, 10.0, 30.0, 100.0])[:n]
        rng = np.random.default_rng(random_state)
        extra = rng.uniform(lo[0], max(lo[0], min(hi[0], 100.0 * base)), max(0, n - len(spread)))
        return np.clip(np.concatenate([spread, extra]), lo, hi)[:, None]


class Polynomial(OneParameterFamily):
    """Polynomial kernel ``(1 + γ ⟨x, x′⟩)^q`` (pothin_richard §5), θ = (γ,).

    The degree ``q`` (an integer ≥ 1) is fixed; the scale γ ≥ 0 is the parameter (γ > 0 gives
    a positive semi-definite kernel). The starting points are scaled so that γ‖x‖² ≈ 1 for a
    median point.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])       # two points at distance √5
    >>> from sipkl import Polynomial
    >>> float(Polynomial(degree=2).gram([0.5], X)[1, 1])          # (1 + 0.5·5)²
    12.25
    """

    param_name = "γ"

    def __init__(self, degree=2, bounds=(1e-3, 10.0), features=None):
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)):
            raise TypeError(f"degree must be an integer, got {degree!r}")
        if degree < 1:
            raise ValueError(f"degree must be at least 1, got {degree}")
        super().__init__(bounds, features)
        self.degree = int(degree)

    def _geometry(self, X, Y):
        return X @ Y.T

    def gram_from(self, geom, theta):
        return (1.0 + theta[0] * geom) ** self.degree

    def price_and_grad(self, geom, theta, W):
        B = 1.0 + theta[0] * geom
        M = W * B ** (self.degree - 1)  # K = B^q, dK/dγ = q G B^(q−1)
        return float(np.sum(M * B)), np.array([self.degree * np.sum(M * geom)])

    def starting_points(self, X, n, random_state=None):
        Xs = self._select(X)
        sq = np.median((Xs * Xs).sum(1))
        return _starts(1.0 / sq if sq > 0 else 1.0, n, random_state, *self.param_bounds(None))


class Laplacian(OneParameterFamily):
    """Laplacian ("exponential") kernel ``exp(−‖x − x′‖ / 2σ²)`` (pothin_richard §5), θ = (σ,).

    σ > 0 is a bandwidth, as in the Gaussian ``exp(−‖x − x′‖² / 2σ²)`` of the same paper; in
    the scale notation ``exp(−s ‖x − x′‖)``, s = 1/(2σ²). The lower bound must be positive.
    The starting points are scaled so that ‖x − x′‖ ≈ 2σ² for a median pair.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])       # two points at distance √5
    >>> from sipkl import Laplacian
    >>> bool(np.isclose(Laplacian().gram([0.5], X)[0, 1], np.exp(-np.sqrt(5) / 0.5)))
    True
    """

    param_name = "σ"

    def __init__(self, bounds=(1e-2, 10.0), features=None):
        super().__init__(bounds, features)

    def param_bounds(self, n_features):
        lo, hi = super().param_bounds(n_features)
        if lo[0] <= 0:
            raise ValueError(f"bounds: σ must be positive, got lower={lo[0]}")
        return lo, hi

    def _geometry(self, X, Y):
        return np.sqrt(squared_distances(X, Y))

    def gram_from(self, geom, theta):
        return np.exp(-geom / (2.0 * theta[0] ** 2))

    def price_and_grad(self, geom, theta, W):
        M = W * np.exp(-geom / (2.0 * theta[0] ** 2))
        return float(M.sum()), np.array([np.sum(M * geom) / theta[0] ** 3])

    def starting_points(self, X, n, random_state=None):
        base = np.sqrt(np.sqrt(median_sqdist(self._select(X))) / 2.0)
        return _starts(base, n, random_state, *self.param_bounds(None))


class Precomputed(KernelFamily):
    """A finite family: a list of Gram matrices, or of kernel functions, θ = (m,).

    Parameters
    ----------
    kernels : list
        Either N × N Gram matrices over one fixed set of N points (symmetric, positive
        semi-definite, all of the same shape), or callables ``f(X, Y) -> Gram`` of shape
        ``(len(X), len(Y))``. Do not mix the two. Matrices are checked here (an indefinite
        one is an error, one whose smallest eigenvalue is negative but above −10⁻⁶ × the
        largest |eigenvalue| a warning); the output of callables is checked at each call.

    With matrices, the ``X`` given to fit and predict are **integer indices** into the N
    points, as a column array of shape ``(n, 1)``: ``K(θ)`` is the block ``K_m[X, Y]`` of the
    ``m``-th matrix. With callables, ``X`` is ordinary data. The parameter θ = (m,) is the
    index of the kernel in the list (stored as a float). Finite: priced by enumerating every
    index (``grid``), no gradient and no starting points.

    Examples
    --------
    >>> import numpy as np
    >>> from sipkl import Precomputed
    >>> family = Precomputed([np.array([[2.0, 1.0], [1.0, 2.0]]), np.eye(2)])
    >>> family.gram([0], np.array([[0], [1]])).tolist()     # the points are indices
    [[2.0, 1.0], [1.0, 2.0]]
    """

    param_name = "m"

    finite = True

    def __init__(self, kernels):
        super().__init__(None)
        if not isinstance(kernels, (list, tuple, np.ndarray)):
            raise TypeError(f"kernels must be a list of Gram matrices or of callables, got "
                            f"{type(kernels).__name__}")
        if len(kernels) == 0:
            raise ValueError("kernels must not be empty")
        n_callable = sum(callable(k) for k in kernels)
        if 0 < n_callable < len(kernels):
            raise TypeError("kernels must be all Gram matrices or all callables, not a mix")
        self.callables = n_callable > 0
        self.kernels = list(kernels) if self.callables else [_checked_gram(K, m, kernels[0])
                                                             for m, K in enumerate(kernels)]

    def n_params(self, n_features):
        return 1

    def param_bounds(self, n_features):
        return np.array([0.0]), np.array([float(len(self.kernels) - 1)])

    def _geometry(self, X, Y):
        if self.callables:
            return X, Y
        return self._indices(X, "X"), self._indices(Y, "Y")

    def _indices(self, X, name):
        n = len(self.kernels[0])
        if X.ndim != 2 or X.shape[1] != 1:
            raise ValueError(f"{name}: with precomputed matrices, pass indices as a column of "
                             f"shape (n, 1), got shape {X.shape}")
        idx = X[:, 0].astype(int)
        if np.any(idx != X[:, 0]) or np.any(idx < 0) or np.any(idx >= n):
            raise ValueError(f"{name} must hold integer indices in [0, {n}), got {X[:, 0]}")
        return idx

    def gram_from(self, geom, theta):
        m = int(theta[0])
        if m != theta[0] or not 0 <= m < len(self.kernels):
            raise ValueError(f"theta must be an index in [0, {len(self.kernels)}), got {theta}")
        X, Y = geom
        if not self.callables:
            return self.kernels[m][np.ix_(X, Y)]
        K = np.asarray(self.kernels[m](X, Y), dtype=float)
        if K.shape != (len(X), len(Y)):
            raise ValueError(f"kernels[{m}] returned shape {K.shape}, expected "
                             f"{(len(X), len(Y))}")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"kernels[{m}] returned non-finite values")
        return K

    def price_and_grad(self, geom, theta, W):
        raise TypeError(f"{self!r} is finite: it has no gradient, price it with prices()")

    def grid(self, X, size, random_state=None):
        """Every index (``size`` is ignored)."""
        return np.arange(len(self.kernels), dtype=float)[:, None]

    def starting_points(self, X, n, random_state=None):
        raise ValueError(f"{self!r} is a finite family: it has no starting points, "
                         f"enumerate it with grid()")

    def __repr__(self):
        if self.callables:
            names = ", ".join(getattr(k, "__name__", type(k).__name__) for k in self.kernels)
            return f"Precomputed(kernels=[{names}])"
        n = len(self.kernels[0])
        return f"Precomputed(kernels=<{len(self.kernels)} Gram matrices {n}×{n}>)"

    def __eq__(self, other):
        if self is other:
            return True
        return (type(self) is type(other) and len(self.kernels) == len(other.kernels)
                and all(a is b or (not callable(a) and not callable(b) and np.array_equal(a, b))
                        for a, b in zip(self.kernels, other.kernels)))

    def __hash__(self):
        return hash(repr(self))


def _checked_gram(K, m, first) -> np.ndarray:
    """The ``m``-th Gram matrix of a :class:`Precomputed`, validated (and symmetrized)."""
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"kernels[{m}] must be a square matrix, got shape {K.shape}")
    if K.shape != np.shape(first):
        raise ValueError(f"kernels[{m}] has shape {K.shape}, kernels[0] has {np.shape(first)}")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"kernels[{m}] has non-finite entries")
    if np.abs(K - K.T).max(initial=0.0) > 1e-8 * np.abs(K).max(initial=0.0):
        raise ValueError(f"kernels[{m}] is not symmetric")
    K = 0.5 * (K + K.T)
    eig = np.linalg.eigvalsh(K)
    scale = np.abs(eig).max(initial=0.0)
    if eig.size and eig[0] < -1e-6 * scale:
        raise ValueError(f"kernels[{m}] is not positive semi-definite: smallest eigenvalue "
                         f"{eig[0]:.3g} (largest |eigenvalue| {scale:.3g})")
    if eig.size and eig[0] < -1e-12 * scale:
        warnings.warn(f"kernels[{m}] is slightly indefinite: smallest eigenvalue {eig[0]:.3g} "
                      f"(largest |eigenvalue| {scale:.3g})", UserWarning)
    return K


class KernelUnion(KernelFamily):
    """The union of several families: its members are all of theirs, priced together.

    IKL "separate" (gehler_nowozin §4.2), for instance, is
    ``KernelUnion([GaussianIso(), GaussianSeparate()])``.

    Examples
    --------
    >>> from sipkl import GaussianIso, GaussianSeparate, KernelUnion
    >>> [m.features for m in KernelUnion([GaussianIso(), GaussianSeparate()]).members(2)]
    [None, (0,), (1,)]
    """

    def __init__(self, families):
        super().__init__(None)
        if (not isinstance(families, (list, tuple)) or len(families) == 0
                or not all(isinstance(f, KernelFamily) for f in families)):
            raise TypeError(f"families must be a non-empty list of KernelFamily, got {families!r}")
        self.families = families  # as given (scikit-learn's clone checks its identity)

    def members(self, n_features):
        return [m for f in self.families for m in f.members(n_features)]
