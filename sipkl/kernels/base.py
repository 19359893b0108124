"""Kernel families: continuously parameterized kernels ``k_θ`` with θ in a box.

A family knows its parameter box, builds ``K(θ)`` between two point sets, and evaluates the
price ``<W, K(θ)>_F`` with its gradient in θ using matrix products only. Pairwise data that
does not depend on θ (distances, selected features) is computed once by :meth:`geometry` and
reused: the column-generation engine caches it for the whole fit and restricts it to the
support of the price matrix with :meth:`restrict`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from ..config import budget


@runtime_checkable
class SecondOrderPricer(Protocol):
    """A batched pricer of θ's that also gives their Hessians (:class:`PairExponential` and
    its kin): ``pricer(thetas, grad, dtype, curvature=True)`` returns the diagonals of the
    Hessians too, ``hessians(thetas, coords, dtype)`` the Hessians on ``coords``."""

    def __call__(self, thetas, grad: bool = True, dtype=np.float64, curvature: bool = False):
        ...

    def hessians(self, thetas, coords=None, dtype=np.float64) -> np.ndarray: ...


@runtime_checkable
class ExponentialSum(Protocol):
    """A family whose price is a signed sum of exponentials of its scales s (the Gaussians),

        <W, K(s)> = Σ_i W_ii + Σ_{i<j} (W_ij + W_ji) exp(−⟨s, D_ij⟩),

    what :class:`~sipkl.oracles.DCGaussianOracle` bounds: ``exp_sum_exponents(geometry)`` is
    the matrix of the rows D_ij ≥ 0, one per pair i < j in the order of
    ``np.triu_indices``, one column per scale."""

    def exp_sum_exponents(self, geometry) -> np.ndarray: ...


def row_blocks(n_rows: int, row_length: int, elements: int = None) -> list[slice]:
    """Consecutive slices of ``range(n_rows)``, each of about ``elements`` (default: the
    budget ``row_block_elements``, :mod:`sipkl.config`) / ``row_length`` rows."""
    elements = budget("row_block_elements") if elements is None else elements
    step = max(1, elements // max(1, row_length))
    return [slice(start, start + step) for start in range(0, n_rows, step)]


def _pairwise(X: np.ndarray, Y: np.ndarray, gaussian: bool) -> np.ndarray:
    """‖x_i − y_j‖² = (‖x_i‖² + ‖y_j‖²) − 2⟨x_i, y_j⟩ through one matrix product, clipped at
    0 against round-off, or with ``gaussian`` exp(−‖x_i − y_j‖²); the rest is done in the
    product's buffer in blocks of rows that stay in cache (the budget
    ``cache_block_elements``), one pass each (the sum of the
    norms is formed before the product is subtracted, so the result is symmetric when the
    product is); the diagonal is exact (distance 0) when ``Y is X``."""
    a, b = (X * X).sum(1), (Y * Y).sum(1)
    out = X @ Y.T
    elements = budget("cache_block_elements")
    buffer = np.empty(max(elements, len(b)))
    for rows in row_blocks(len(a), len(b), elements):
        block = out[rows]
        norms = buffer[:block.size].reshape(block.shape)
        np.add(a[rows, None], b[None, :], out=norms)
        if gaussian:  # −‖x_i − y_j‖² = 2⟨x_i, y_j⟩ − (‖x_i‖² + ‖y_j‖²), at most 0
            block *= 2.0
            block -= norms
            np.minimum(block, 0.0, out=block)
            np.exp(block, out=block)
        else:
            block *= -2.0
            block += norms
            np.maximum(block, 0.0, out=block)
    if X is Y:
        np.fill_diagonal(out, 1.0 if gaussian else 0.0)
    return out


def squared_distances(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """‖x_i − y_j‖² (n × m), clipped at 0 against round-off; see :func:`_pairwise`."""
    return _pairwise(X, Y, gaussian=False)


def gaussian_gram(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """exp(−‖x_i − y_j‖²) (n × m), the Gaussian Gram matrix of points already scaled, in
    the pass that forms the distances (:func:`_pairwise`)."""
    return _pairwise(X, Y, gaussian=True)


def upper_triangle(A: np.ndarray) -> np.ndarray:
    """The entries ``A[i, j]``, i < j, of a square matrix in the order of
    ``np.triu_indices(len(A), 1)``, selected by a boolean mask (n² bytes instead of the 16n²
    of the two index arrays)."""
    index = np.arange(len(A))
    return A[index[:, None] < index[None, :]]


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


class KernelFamily:
    """Base class of kernel families.

    Subclasses implement :meth:`n_params`, :meth:`param_bounds`, :meth:`_geometry`,
    :meth:`gram_from` and :meth:`price_and_grad`; the rest has generic defaults.
    ``features`` restricts the family to a subset of the input columns.

    As scikit-learn's estimators and kernels, a family keeps each argument of its
    constructor as an attribute of the same name: :meth:`get_params` reads them, two families
    are equal (and hash alike) when they are of the same class with equal arguments, and
    :mod:`sipkl.persistence` writes a family as its class name and arguments.
    """

    #: a finite family (a list of candidates) has no gradient and is priced by enumeration
    finite = False
    #: the name of the parameter θ in this family's formula (the scale ``"s"`` of a
    #: Gaussian), used when columns are printed and plotted
    param_name = "θ"
    #: θ's are parameters compared relative to their own magnitude, not index points (see
    #: :class:`~sipkl.contracts.ColumnFamily`)
    index_points = False

    def __init__(self, features=None):
        self.features = features

    def same_columns(self, thetas, theta, rtol: float) -> np.ndarray:
        """Whether the rows of ``thetas`` and ``theta`` (broadcast) are the same column:
        equal for a finite family, else ``|θa − θb| ≤ rtol·max(|θa|, |θb|)`` in every
        coordinate (scale-free, and exact at θ = 0)."""
        if self.finite:
            return np.all(thetas == theta, axis=-1)
        scale = np.maximum(np.abs(thetas), np.abs(theta))
        return np.all(np.abs(thetas - theta) <= rtol * scale, axis=-1)

    # -- structure -------------------------------------------------------------------
    def members(self, n_features: int) -> list["KernelFamily"]:
        """Concrete families making up this one (a union has several)."""
        return [self]

    def n_params(self, n_features: int) -> int:
        raise NotImplementedError

    def param_bounds(self, n_features: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def validate_theta(self, theta, n_features: int) -> np.ndarray:
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if theta.shape != (self.n_params(n_features),):
            raise ValueError(f"theta must have shape ({self.n_params(n_features)},) for "
                             f"{self!r}, got {theta.shape}")
        if not np.all(np.isfinite(theta)):
            raise ValueError(f"theta must be finite, got {theta}")
        return theta

    # -- pairwise data ---------------------------------------------------------------
    def _select(self, X):
        return X if self.features is None else X[:, list(self.features)]

    def geometry(self, X, Y=None):
        """θ-independent pairwise data of ``X`` against ``Y`` (``Y=None``: X against itself)."""
        Xs = self._select(X)
        return self._geometry(Xs, Xs if Y is None else self._select(Y))

    def _geometry(self, X, Y):
        return X, Y

    def restrict(self, geom, idx):
        """The square geometry of ``X`` restricted to the points ``idx``."""
        X, _ = geom
        Xr = X[idx]
        return Xr, Xr

    # -- kernel values ---------------------------------------------------------------
    def gram_from(self, geom, theta) -> np.ndarray:
        raise NotImplementedError

    def gram(self, theta, X, Y=None) -> np.ndarray:
        """Gram matrix ``K(θ)[i, j] = k_θ(X[i], Y[j])``."""
        X = np.asarray(X, dtype=float)
        theta = self.validate_theta(theta, X.shape[1])
        return self.gram_from(self.geometry(X, None if Y is None else np.asarray(Y, float)),
                              theta)

    def support_pricer(self, X, W_rows) -> "Callable":
        """The :meth:`batch_pricer` of the points ``X`` (the support of W), W given by its
        rows, ``W_rows(rows) -> W[rows, :]`` (``rows`` a slice). This default forms the
        square geometry and W; a family whose pricer keeps only the pairs builds them in
        blocks of rows instead (:meth:`PairExponential.from_row_blocks`)."""
        return self.batch_pricer(self.geometry(X), W_rows(slice(None)))

    def price_and_grad(self, geom, theta, W) -> tuple[float, np.ndarray]:
        """``<W, K(θ)>`` and its gradient in θ, for a square geometry and dense W."""
        raise NotImplementedError

    def prices(self, geom, thetas, W) -> np.ndarray:
        """``<W, K(θ)>`` for each row of ``thetas`` (vectorized where the family can)."""
        return np.array([np.sum(W * self.gram_from(geom, t)) for t in thetas])

    def batch_pricer(self, geom, W) -> "Callable":
        """``f(thetas, grad=True, dtype=np.float64) -> (values, gradients)``: the price
        ``<W, K(θ)>`` of each row of ``thetas`` (S × p), and with ``grad`` its gradient
        (S × p, else ``None``). ``dtype=np.float32`` allows single-precision arithmetic, for
        searches whose results are evaluated again in double precision.

        Families whose kernel is ``exp(−θ·δ(x, x′))`` (:class:`PairExponential`) evaluate all
        rows with two matrix products; this default evaluates :meth:`price_and_grad` per row
        (in double precision whatever ``dtype``).
        """
        def pricer(thetas, grad=True, dtype=np.float64):
            pairs = [self.price_and_grad(geom, t, W) for t in np.atleast_2d(thetas)]
            values = np.array([v for v, _ in pairs])
            return values, (np.array([g for _, g in pairs]) if grad else None)
        return pricer

    def column_space(self, X):
        """The column space of kernel learning with this family on the points ``X``: a
        :class:`~sipkl.workspace.Workspace` (what ``ColumnGeneration.run`` runs on)."""
        from ..workspace import Workspace  # the workspace is built on this module
        return Workspace(X, self)

    # -- candidate points ------------------------------------------------------------
    def grid(self, X, size: int, random_state=None) -> np.ndarray:
        """A default finite candidate list of about ``size`` parameters."""
        return self.starting_points(X, size, random_state)

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray:
        """``n`` starting points: a deterministic spread, then random draws."""
        raise NotImplementedError

    def __repr__(self):
        params = {k: v for k, v in vars(self).items() if not k.startswith("_") and v is not None}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})"

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments of this family, by name (as scikit-learn's
        ``Kernel.get_params``): ``type(self)(**self.get_params())`` is an equal family.
        ``deep`` is scikit-learn's (``clone`` of an estimator holding a family passes
        ``deep=False``); a family's arguments are all its own."""
        return {name: getattr(self, name) for name in _constructor_arguments(type(self))}

    def _key(self) -> tuple:
        return type(self), tuple(_hashable(getattr(self, name))
                                 for name in _constructor_arguments(type(self)))

    def __eq__(self, other):
        """Equal when of the same class with equal constructor arguments."""
        return self is other or (type(self) is type(other) and self._key() == other._key())

    def __hash__(self):
        return hash(self._key())


_SCALARS = (bool, int, float, str)


@functools.cache
def _constructor_arguments(cls) -> tuple[str, ...]:
    """The names of the arguments of ``cls.__init__`` (read once per class)."""
    return tuple(name for name in inspect.signature(cls.__init__).parameters if name != "self")


def _hashable(value):
    """``value`` with lists, tuples and arrays as tuples, NumPy scalars as Python numbers."""
    if value is None or type(value) in _SCALARS:
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(map(_hashable, value))
    if isinstance(value, np.generic):
        return value.item()
    return value


class OneParameterFamily(KernelFamily):
    """A family with one parameter in ``bounds`` whose geometry is an n × m matrix."""

    def __init__(self, bounds, features=None):
        super().__init__(features)
        self.bounds = bounds

    def n_params(self, n_features):
        return 1

    def param_bounds(self, n_features):
        lo, hi = check_bounds(self.bounds)
        return np.array([lo]), np.array([hi])

    def restrict(self, geom, idx):
        return geom[np.ix_(idx, idx)]


class PairExponential:
    """Prices of a kernel ``k_θ(x, x′) = exp(−θ·δ(x, x′))``, δ ≥ 0 per pair, for many θ.

    With the pairs i < j of the support stacked into ``deltas`` (P × p) and ``weights``
    ``2 W_ij`` (the diagonal has δ = 0 and contributes ``trace W``),

        price(θ_s)  = tr W + Σ_ij w_ij exp(−δ_ij·θ_s)  = tr W + wᵀ E_s,   E = exp(−Δ Θᵀ),
        ∇price(θ_s) = −Σ_ij w_ij E_ij,s δ_ij            = −(E ∘ w)ᵀ Δ,

    so S parameters cost two (P × p × S) matrix products and P·S exponentials, done in
    blocks of pairs so that the temporary block of E stays bounded (stored as S × pairs:
    the product that follows the exponentials then has S rows, which OpenBLAS serves best
    for S a multiple of 4, see :data:`GEMM_ROWS`). The diagonals of the Hessians
    (``curvature=True``: the curvature along each coordinate),

        ∂²price/∂θ_d²(θ_s) = Σ_ij w_ij E_ij,s δ_ij,d²  = ((E ∘ w)ᵀ (Δ ∘ Δ))_s,d,

    cost no product of their own: the gradient's takes ``[Δ, Δ ∘ Δ]`` in place of Δ. With
    ``dtype=np.float32`` the products and exponentials are single precision (about twice
    as fast; relative error ~10⁻⁷ per term) and the sums over blocks double precision.
    """

    def __init__(self, deltas: np.ndarray, weights: np.ndarray, trace: float):
        self.deltas, self.weights, self.trace = deltas, weights, float(trace)

    @classmethod
    def from_upper(cls, deltas, W):
        """``deltas`` for the pairs ``np.triu_indices(len(W), 1)`` (in that order)."""
        weights = upper_triangle(W)
        weights *= 2.0  # in place: one P-vector, not two
        return cls(deltas, weights, np.trace(W))

    @classmethod
    def from_row_blocks(cls, m: int, blocks):
        """The pricer of :meth:`from_upper` (one δ per pair, p = 1) from an m × m geometry
        and W given in consecutive blocks of rows, ``blocks`` yielding ``(rows, δ[rows, :],
        W[rows, :])``: only the pairs i < j are kept, no m × m matrix is formed."""
        (deltas, weights), trace = upper_from_row_blocks(m, blocks, 2)
        weights *= 2.0
        return cls(deltas[:, None], weights, trace)

    def __call__(self, thetas, grad: bool = True, dtype=np.float64, curvature: bool = False):
        """Values and gradients (``None`` without ``grad``) of the rows of ``thetas``, and
        with ``curvature`` the diagonals of their Hessians as a third array."""
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        S, p = thetas.shape
        values = np.full(S, self.trace)
        grads = np.zeros((S, p)) if grad else None
        curvatures = np.zeros((S, p)) if curvature else None
        for rows, w, E in self._blocks(thetas, dtype, squares=curvature):
            values += (E @ w)[:S]
            if not (grad or curvature):
                continue
            E *= w
            products = (E @ rows)[:S]  # [gradient, curvature] terms: one product
            if grad:
                grads -= products[:, :p]
            if curvature:
                curvatures += products[:, p:]
        return (values, grads, curvatures) if curvature else (values, grads)

    def _blocks(self, thetas, dtype, per_pair: int = 1, squares: bool = False):
        """Blocks of pairs, not single pairs: ``(Δ_b, w_b, E_b = exp(−Θ Δ_bᵀ))``, E_b with one
        row per parameter (S′ × pairs), each block of about
        ``pricing_chunk_elements / (S′·per_pair)``
        pairs (``per_pair``: the temporaries of a caller, per pair and parameter; see
        :meth:`_pairs_per_block`);
        ``squares``: ``[Δ_b, Δ_b ∘ Δ_b]`` in place of Δ_b. S′ is S rounded up to a multiple
        of :data:`GEMM_ROWS`, the extra rows of E_b being 0 (no exponential computed)."""
        weights = self._weights(dtype)
        S, p = thetas.shape
        padded = np.zeros((_gemm_rows(S), p), dtype=weights.dtype)
        np.negative(thetas, out=padded[:S])  # the exponents −Θ Δ_bᵀ come out of the product
        step = self._pairs_per_block(len(padded) * per_pair)
        for k in range(0, len(weights), step):
            rows = self._deltas(k, min(k + step, len(weights)), weights.dtype, squares)
            E = padded @ rows[:, :p].T
            np.exp(E[:S], out=E[:S])
            yield rows, weights[k:k + step], E

    def _pairs_per_block(self, per_pair: int) -> int:
        """Pairs per block: ``per_pair`` temporary elements each within the budget
        ``pricing_chunk_elements`` (:mod:`sipkl.config`)."""
        return max(1, budget("pricing_chunk_elements") // per_pair)

    def hessians(self, thetas, coords=None, dtype=np.float64) -> np.ndarray:
        """The Hessians of the prices at the rows of ``thetas`` on the coordinates ``coords``
        (all by default), S × q × q:

            ∇²price(θ_s) = Σ_ij w_ij E_ij,s δ_ij δ_ijᵀ = Δᵀ diag(w ∘ E_s) Δ,

        one product of the (S·q × pairs) matrix of the rows ``w_ij E_ij,s δ_ij`` with Δ per
        block of pairs (about ``q`` times the work of the gradient)."""
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        coords = np.arange(thetas.shape[1]) if coords is None else np.asarray(coords)
        S, q = len(thetas), len(coords)
        hess = np.zeros((S * q, q))
        for delta, w, E in self._blocks(thetas, dtype, per_pair=q):
            E = E[:S]  # the rows of the parameters (a view), weighted in place
            E *= w
            part = delta[:, coords]
            hess += (E[:, None, :] * part.T[None, :, :]).reshape(S * q, len(delta)) @ part
        return hess.reshape(S, q, q)

    def _deltas(self, start: int, stop: int, dtype, squares: bool = False) -> np.ndarray:
        """The rows ``start:stop`` of Δ in ``dtype``, or of ``[Δ, Δ ∘ Δ]`` with ``squares``
        (made once; in single precision its left half serves as Δ, with no other copy)."""
        if np.dtype(dtype) == np.float64 and not squares:
            return self.deltas[start:stop]
        both = self.__dict__.setdefault("_with_squares", {})
        key = np.dtype(dtype).str
        p = self.deltas.shape[1]
        if key not in both:
            both[key] = np.empty((len(self.deltas), 2 * p), dtype=dtype)
            both[key][:, :p] = self.deltas
            np.square(both[key][:, :p], out=both[key][:, p:])
        return both[key][start:stop, :None if squares else p]

    def _weights(self, dtype) -> np.ndarray:
        return self._in("weights", dtype)

    def _in(self, name: str, dtype) -> np.ndarray:
        """The array attribute ``name`` in ``dtype``: itself, or its single-precision copy
        (made once)."""
        if np.dtype(dtype) == np.float64:
            return getattr(self, name)
        if np.dtype(dtype) != np.float32:
            raise ValueError(f"dtype must be float64 or float32, got {dtype!r}")
        single = self.__dict__.setdefault("_single", {})
        if name not in single:
            single[name] = getattr(self, name).astype(np.float32)
        return single[name]


class PointPairExponential(PairExponential):
    """:class:`PairExponential` of the squared differences of points,
    δ_ij = ([x_i]_d − [x_j]_d)²_d (p = D), with Δ formed block by block from the rows of X
    at each evaluation instead of stored: P·D numbers less (P = m(m − 1)/2 pairs) for P·D
    subtractions per evaluation, a D-th or less of the products' work. The pairs are those
    of ``np.triu_indices(m, 1)``, in that order; pair f lies in row i with
    c_i ≤ f < c_(i+1), c_i = i·m − i(i + 1)/2 the pairs of the rows before i."""

    def __init__(self, X: np.ndarray, weights: np.ndarray, trace: float):
        m = len(X)
        rows = np.arange(m)
        self.X, self.weights, self.trace = X, weights, float(trace)
        self._row_starts = rows * m - rows * (rows + 1) // 2

    def _pairs_per_block(self, per_pair: int) -> int:
        # the block of [Δ, Δ ∘ Δ] (2D per pair) is formed too: within the budget as well
        return max(1, min(super()._pairs_per_block(per_pair),
                          budget("pricing_chunk_elements") // max(1, 2 * self.X.shape[1])))

    def _deltas(self, start: int, stop: int, dtype, squares: bool = False) -> np.ndarray:
        pairs = np.arange(start, stop)
        i = np.searchsorted(self._row_starts, pairs, side="right") - 1
        j = pairs - self._row_starts[i] + i + 1
        X = self._in("X", dtype)
        deltas = np.square(X[i] - X[j])
        return np.hstack([deltas, np.square(deltas)]) if squares else deltas


class PointExponential(PointPairExponential):
    """:class:`PointPairExponential`'s prices, gradients and curvatures through products of
    the points instead of their pairs, for many dimensions (where forming the P × D squared
    differences at each evaluation costs more than the products). With z_i = √θ ∘ x_i and
    a_i = ‖z_i‖², the kernel is K_ij = exp(2 z_iᵀz_j − a_i − a_j), one (m × D)(D × m)
    product per θ; with M = W ∘ K (diagonal of W set to 0, its trace added) and M symmetric,

        price(θ)   = tr W + 1ᵀ M 1,
        ∂/∂θ_d     = −Σ_ij M_ij (x_id − x_jd)²  = −2 Σ_i x_id² r_i + 2 Σ_i x_id (M X)_id,
        ∂²/∂θ_d²   =  Σ_ij M_ij (x_id − x_jd)⁴  =  2 Σ_i x_id⁴ r_i − 8 Σ_i x_id³ (M X)_id
                                                  + 6 Σ_i x_id² (M X²)_id,

    r = M 1: a second product M [1, X, X²] gives all three (the sums over j of the terms in
    x_j alone equal those in x_i alone by the symmetry of M). Rows of M are formed in blocks
    of about ``pricing_chunk_elements`` (θ's × rows × m). X is centred per dimension first (the
    differences, hence the prices, do not change; the cancellations in a_i + a_j − 2 z_iᵀz_j
    and in the sums above shrink). The exponents' round-off is about ε·a_i: a θ whose
    8ε·max a_i exceeds :data:`POINT_EXPONENT_ERROR` in single precision (scales far beyond
    those where K ≈ I, which a search's starts reach) is priced in double precision, and
    where even that bound exceeds it, through the pairs, whose exponents −θ·δ_ij carry a
    relative error only; the exponents are also clipped at 0 (exp of a round-off above 0
    on the diagonal or between nearly equal points). This costs m² D (2 or 3 with the
    derivatives) per θ against P·D = m² D / 2 (3 with the derivatives) for the pairs, but
    forms nothing: it is used for at most ``point_thetas`` θ's at a time (a budget of
    :mod:`sipkl.config`), the pairs
    beyond, where forming the squared differences is shared by many θ's (500 MNIST digits,
    D = 784, single precision with curvatures: 4 θ's 199 → 71 ms, 24 θ's 340 → 355 ms; one
    θ in double precision 136 → 27 ms). The Hessians on a few coordinates are those of the pairs
    (:meth:`PointPairExponential.hessians`)."""

    #: largest bound on the round-off of an exponent (so on the relative error of a kernel
    #: value) that is priced through the points
    POINT_EXPONENT_ERROR = 1e-4

    def __init__(self, X: np.ndarray, W: np.ndarray):
        X = X - X.mean(0)
        super().__init__(X, 2.0 * upper_triangle(W), np.trace(W))
        self.X2 = X * X
        self.W0 = np.array(W, dtype=float)
        np.fill_diagonal(self.W0, 0.0)

    def __call__(self, thetas, grad: bool = True, dtype=np.float64, curvature: bool = False):
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        S, p = thetas.shape
        if S > budget("point_thetas"):
            return super().__call__(thetas, grad, dtype, curvature)
        # each θ in the first of dtype, double precision and the pairs where its round-off
        # bound is within POINT_EXPONENT_ERROR
        a_max = (self.X2 @ thetas.T).max(0, initial=0.0)
        bounds = [8 * np.finfo(dt).eps * a_max for dt in (dtype, np.float64)]
        way = np.where(bounds[0] <= self.POINT_EXPONENT_ERROR, 0,
                       np.where(bounds[1] <= self.POINT_EXPONENT_ERROR, 1, 2))
        if np.all(way == way[0]):
            return self._one_way(thetas, grad, dtype, curvature, way[0])
        out = [np.empty(S), np.empty((S, p)) if grad else None,
               np.empty((S, p)) if curvature else None]
        for k in np.unique(way):
            rows = way == k
            for array, part in zip(out, self._one_way(thetas[rows], grad, dtype, curvature, k)):
                if array is not None:
                    array[rows] = part
        return tuple(out) if curvature else tuple(out[:2])

    def _one_way(self, thetas, grad, dtype, curvature, way):
        """:meth:`__call__` through the points in ``dtype`` (way 0) or in double precision
        (1), or through the pairs (2)."""
        if way == 2:
            return super().__call__(thetas, grad, dtype, curvature)
        return self._through_points(thetas, grad, np.float64 if way == 1 else dtype, curvature)

    def _through_points(self, thetas, grad, dtype, curvature):
        S, p = thetas.shape
        X, X2, W0 = self._in("X", dtype), self._in("X2", dtype), self._in("W0", dtype)
        m = len(X)
        a = X2 @ thetas.T.astype(X.dtype)  # m × S: a_i for every θ
        right = np.hstack([np.ones((m, 1), dtype=X.dtype)] + [X] * (grad or curvature)
                          + [X2] * curvature)
        values = np.full(S, self.trace)
        grads = np.zeros((S, p)) if grad else None
        curvatures = np.zeros((S, p)) if curvature else None
        elements = budget("pricing_chunk_elements")
        rows = max(1, min(m, elements // m))
        group = max(1, elements // (rows * m))
        for g in range(0, S, group):
            G = slice(g, min(g + group, S))
            theta = thetas[G].astype(X.dtype)
            for r0 in range(0, m, rows):
                R = slice(r0, min(r0 + rows, m))
                E = (X[None, R] * theta[:, None, :]).reshape(-1, p) @ X.T
                E = E.reshape(len(theta), -1, m)
                E *= 2.0
                E -= a[R, G].T[:, :, None]
                E -= a[:, G].T[:, None, :]
                np.minimum(E, 0.0, out=E)  # −‖z_i − z_j‖² ≤ 0, against round-off
                np.exp(E, out=E)
                E *= W0[None, R]
                P = (E.reshape(-1, m) @ right).reshape(len(theta), -1, right.shape[1])
                r = P[:, :, 0]
                values[G] += r.sum(1)
                XR, X2R = X[R], X2[R]
                if grad or curvature:
                    MX = P[:, :, 1:p + 1]
                if grad:
                    grads[G] -= 2.0 * (r @ X2R) - 2.0 * np.einsum("rd,srd->sd", XR, MX)
                if curvature:
                    curvatures[G] += (2.0 * (r @ (X2R * X2R))
                                      - 8.0 * np.einsum("rd,srd->sd", X2R * XR, MX)
                                      + 6.0 * np.einsum("rd,srd->sd", X2R, P[:, :, p + 1:]))
        return (values, grads, curvatures) if curvature else (values, grads)


class VaryingCoordinates:
    """A pricer of θ's (the rows of a batch) that sees only the coordinates ``keep``: those
    of the dimensions that vary over the points. A scale of a dimension that is constant
    over the points multiplies δ_ij,d = 0 in every pair, so it changes no kernel value, and
    its gradient, curvature and row and column of the Hessian are exactly 0 (MNIST digits:
    a third of the 784 pixels are 0 on every training digit, and the pricer's products are
    over the other two thirds). ``pricer`` prices θ[:, keep]."""

    def __init__(self, pricer, keep: np.ndarray):
        self.pricer, self.keep = pricer, np.asarray(keep, dtype=bool)
        self._position = np.cumsum(self.keep) - 1  # of a kept coordinate, in the pricer's θ

    def __call__(self, thetas, grad: bool = True, dtype=np.float64, curvature: bool = False):
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        out = self.pricer(thetas[:, self.keep], grad, dtype, curvature)
        return (out[0],) + tuple(None if part is None else self._full(part, thetas.shape)
                                 for part in out[1:])

    def _full(self, part, shape):
        full = np.zeros(shape)
        full[:, self.keep] = part
        return full

    def hessians(self, thetas, coords=None, dtype=np.float64) -> np.ndarray:
        """The pricer's Hessians on the kept ones of ``coords`` (all by default), 0 on the
        others (S × q × q)."""
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        coords = np.arange(thetas.shape[1]) if coords is None else np.asarray(coords)
        kept = self.keep[coords]
        hess = np.zeros((len(thetas), len(coords), len(coords)))
        if kept.any():
            hess[np.ix_(np.arange(len(thetas)), kept, kept)] = self.pricer.hessians(
                thetas[:, self.keep], self._position[coords[kept]], dtype)
        return hess


#: :class:`PairExponential` computes E for a multiple of this many parameters: OpenBLAS's
#: kernels for the product (S × pairs)·(pairs × 2p) are made for S a multiple of 4 (single
#: precision, 5461 pairs, 2p = 40: S = 3 took 91 µs, S = 4 46 µs; S = 11 139 µs, S = 12
#: 83 µs), and rows of zeros cost no exponential
GEMM_ROWS = 4


def _gemm_rows(S: int) -> int:
    """S rounded up to a multiple of :data:`GEMM_ROWS` (1 stays 1: a matrix-vector product)."""
    return S if S == 1 else S + -S % GEMM_ROWS


def upper_from_row_blocks(m: int, blocks, k: int) -> tuple[list[np.ndarray], float]:
    """The entries i < j of k m × m matrices given in consecutive blocks of rows.

    ``blocks`` yields ``(rows, A_1[rows, :], …, A_k[rows, :])`` (``rows`` a slice). Returns
    the k vectors of entries A[i, j], i < j, in the order of ``np.triu_indices(m, 1)``, and
    the trace of A_k; no m × m matrix is formed."""
    index = np.arange(m)
    uppers, trace, at = [np.empty(m * (m - 1) // 2) for _ in range(k)], 0.0, 0
    for rows, *arrays in blocks:
        upper = index[rows, None] < index[None, :]
        count = int(np.count_nonzero(upper))
        for out, array in zip(uppers, arrays):
            out[at:at + count] = array[upper]
        trace += np.trace(arrays[-1][:, rows])
        at += count
    return uppers, trace


def family_to_dict(family: KernelFamily) -> dict:
    """``{"type": class name, "params": constructor arguments}`` of a family: how files and
    checkpoints name it (read back by :func:`sipkl.persistence.family_from_dict`)."""
    if not isinstance(family, KernelFamily):
        raise TypeError(f"family must be a KernelFamily, got {type(family).__name__}")
    try:
        params = {name: json_value(value) for name, value in family.get_params().items()}
    except TypeError as exc:
        raise TypeError(f"{type(family).__name__} cannot be written to JSON ({exc}); "
                        f"families holding matrices or functions are not serializable") from None
    return {"type": type(family).__name__, "params": params}


def column_to_dict(column) -> dict:
    """A kernel column as files and checkpoints write it: its family's document and θ."""
    return {"family": family_to_dict(column.family), "theta": list(map(float, column.theta))}


def json_value(value):
    """``value`` (a family, numbers, strings, lists of them) as ``json`` writes it; a
    ``TypeError`` for anything else."""
    if isinstance(value, KernelFamily):
        return family_to_dict(value)
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot write {type(value).__name__} to JSON")
