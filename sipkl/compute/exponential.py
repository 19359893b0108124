"""The compute layer of the kernel families: batched pricers and blocked pairwise data.

The prices ``<W, K(θ)>`` of many θ's at once for kernels ``exp(−θ·δ(x, x′))`` — through the
pairs (:class:`PairExponential`), through the points (:class:`PointExponential`), on the
coordinates that vary (:class:`VaryingCoordinates`) — and the pairwise squared distances and
Gaussian Gram blocks, each in blocks of rows bounded by the budgets of :mod:`sipkl.utils.config`.
The families of :mod:`sipkl.kernel_learning.families` build them; nothing here knows a family.
"""
from __future__ import annotations

import math
import threading
from typing import Protocol, runtime_checkable

import numpy as np

from ..utils.config import budget
from ..utils.threads import ordered_map, per_task


@runtime_checkable
class SecondOrderPricer(Protocol):
    """A batched pricer of θ's that also gives their Hessians (:class:`PairExponential` and
    its kin): ``pricer(thetas, grad, dtype, curvature=True)`` returns the diagonals of the
    Hessians too, ``hessians(thetas, coords, dtype)`` the Hessians on ``coords``."""

    def __call__(self, thetas, grad: bool = True, dtype=np.float64, curvature: bool = False):
        ...

    def hessians(self, thetas, coords=None, dtype=np.float64) -> np.ndarray: ...


_scratch = threading.local()


def scratch(name: str, shape, dtype) -> np.ndarray:
    """A C-contiguous array of ``shape`` and ``dtype`` for the temporaries of a block (its
    contents undefined), kept per thread and ``name`` and grown as needed, so that the
    blocks of a pricer allocate no megabyte each, in any thread. Valid until the next call
    with the same ``name`` in the same thread: what a block returns is never one."""
    size, key = math.prod(shape), (name, np.dtype(dtype).str)
    buffers = _scratch.__dict__
    buffer = buffers.get(key)
    if buffer is None or buffer.size < size:
        buffer = buffers[key] = np.empty(max(size, 1), dtype=dtype)
    return buffer[:size].reshape(shape)


def row_blocks(n_rows: int, row_length: int, elements: int = None) -> list[slice]:
    """Consecutive slices of ``range(n_rows)``, each of about ``elements`` (default: the
    budget ``row_block_elements``, :mod:`sipkl.utils.config`) / ``row_length`` rows."""
    elements = budget("row_block_elements") if elements is None else elements
    step = max(1, elements // max(1, row_length))
    return [slice(start, start + step) for start in range(0, n_rows, step)]


def _pairwise(X: np.ndarray, Y: np.ndarray, gaussian: bool) -> np.ndarray:
    """‖x_i − y_j‖² = (‖x_i‖² + ‖y_j‖²) − 2⟨x_i, y_j⟩ through one matrix product, clipped at
    0 against round-off, or with ``gaussian`` exp(−‖x_i − y_j‖²); the rest is done in the
    product's buffer in blocks of rows that stay in cache (the budget
    ``cache_block_elements``), one pass each (the sum of the
    norms is formed before the product is subtracted, so the result is symmetric when the
    product is); the diagonal is exact (distance 0) when ``Y is X``. The passes over the
    blocks are shared by the worker threads in force (:mod:`sipkl.utils.threads`), in groups of
    blocks of about ``thread_block_elements`` entries, one group per thread at least
    (:func:`~sipkl.utils.threads.per_task`): each entry is computed alone, the same way in any
    thread and group."""
    a, b = (X * X).sum(1), (Y * Y).sum(1)
    out = X @ Y.T
    elements = budget("cache_block_elements")
    blocks = row_blocks(len(a), len(b), elements)
    per_group = per_task(len(blocks), budget("thread_block_elements") // max(1, elements))

    def passes(group):
        buffer = np.empty(max(elements, len(b)))
        for rows in group:
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
    for _ in ordered_map(passes, [blocks[k:k + per_group]
                                  for k in range(0, len(blocks), per_group)]):
        pass
    if X is Y:
        np.fill_diagonal(out, 1.0 if gaussian else 0.0)
    return out


def pair_squared_differences(X: np.ndarray) -> np.ndarray:
    """([x_i]_d − [x_j]_d)² for the pairs i < j in the order of ``np.triu_indices(len(X),
    1)`` (P × D): row i's pairs by one subtraction ``x_j − x_i`` of the rows after it (the
    same numbers as x_i − x_j, squared; no index arrays), in groups of rows of about
    ``thread_block_elements`` entries, one group per thread at least
    (:func:`~sipkl.utils.threads.per_task`), shared by the worker threads in force (disjoint parts
    of the result)."""
    m, D = X.shape
    starts = np.concatenate([[0], np.cumsum(np.arange(m - 1, 0, -1))]).astype(np.intp)
    out = np.empty((int(starts[-1]), D), dtype=X.dtype)
    per_group = per_task(len(out), budget("thread_block_elements") // max(1, D))  # pairs
    firsts = np.searchsorted(starts, np.arange(0, len(out), per_group), side="right") - 1
    bounds = np.unique(np.concatenate([firsts, [max(m - 1, 0)]]))

    def rows(group):
        first, last = group
        for i in range(first, last):
            np.subtract(X[i + 1:], X[i], out=out[starts[i]:starts[i + 1]])
        part = out[starts[first]:starts[last]]
        np.square(part, out=part)
    for _ in ordered_map(rows, list(zip(bounds[:-1], bounds[1:]))):
        pass
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
        with ``curvature`` the diagonals of their Hessians as a third array.

        The blocks of pairs are computed by the worker threads in force
        (:func:`sipkl.utils.threads.ordered_map`), each giving its partial values and products;
        these are added here in the order of the blocks, as the serial loop adds them, so the
        results are the same to the bit at any number of threads. The products that reduce
        over the pairs are ``np.dot``: NumPy's ``np.matmul`` kept the GIL through them, so
        that threads computed them one at a time (16 threads of the 16-core machine, each
        reducing its own blocks: 0.9× the throughput of one thread, 9.2× with ``np.dot``;
        the same bits), while the exponents' product ``np.matmul`` forms faster, and in
        parallel (5.6× there, 2.8× as ``np.dot``: ``benchmarks/ikl_threads.py --contention``)."""
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        S, p = thetas.shape
        values = np.full(S, self.trace)
        grads = np.zeros((S, p)) if grad else None
        curvatures = np.zeros((S, p)) if curvature else None
        derivatives = grad or curvature

        def block(pairs):
            rows, w, E = self._block(pairs, padded, S, dtype, curvature)
            value = np.dot(E, w)[:S]
            if not derivatives:
                return value, None
            E *= w
            return value, np.dot(E, rows)[:S]  # [gradient, curvature] terms: one product

        padded, pairs = self._plan(thetas, dtype, squares=curvature)
        for value, products in ordered_map(block, pairs):
            values += value
            if grad:
                grads -= products[:, :p]
            if curvature:
                curvatures += products[:, p:]
        return (values, grads, curvatures) if curvature else (values, grads)

    def _plan(self, thetas, dtype, per_pair: int = 1, squares: bool = False):
        """The padded −Θ of the products and the blocks of pairs, ``(start, stop)``, each of
        about ``pricing_chunk_elements / (S′·per_pair)`` pairs (``per_pair``: the temporaries
        of a caller, per pair and parameter; see :meth:`_pairs_per_block`), S′ being S
        rounded up to a multiple of :data:`GEMM_ROWS` (the extra rows of −Θ are 0). The blocks
        depend on the budget and on S′, never on the number of threads. The arrays the blocks
        read (single-precision copies, ``[Δ, Δ ∘ Δ]``, Δᵀ) are made here, before any thread
        reads them."""
        weights = self._weights(dtype)
        self._exponent_factor(0, 0, self._deltas(0, 0, weights.dtype, squares))
        S, p = thetas.shape
        padded = np.zeros((_gemm_rows(S), p), dtype=weights.dtype)
        np.negative(thetas, out=padded[:S])  # the exponents −Θ Δ_bᵀ come out of the product
        step = self._pairs_per_block(len(padded) * per_pair)
        total = len(weights)
        return padded, [(k, min(k + step, total)) for k in range(0, total, step)]

    def _block(self, pairs, padded, S, dtype, squares: bool = False):
        """One block of pairs, not single pairs: ``(Δ_b, w_b, E_b = exp(−Θ Δ_bᵀ))``, E_b
        with one row per row of ``padded`` (S′ × pairs), the rows beyond S being 0 (no
        exponential computed); ``squares``: ``[Δ_b, Δ_b ∘ Δ_b]`` in place of Δ_b."""
        start, stop = pairs
        weights = self._weights(dtype)
        rows = self._deltas(start, stop, weights.dtype, squares)
        E = np.matmul(padded, self._exponent_factor(start, stop, rows),
                      out=scratch("E", (len(padded), stop - start), weights.dtype))
        np.exp(E[:S], out=E[:S])
        return rows, weights[start:stop], E

    def _exponent_factor(self, start: int, stop: int, rows: np.ndarray) -> np.ndarray:
        """Δ_bᵀ (p × pairs) for the exponents' product −Θ Δ_bᵀ. In single precision (the
        searches' evaluations), the columns ``start:stop`` of a contiguous copy of Δᵀ (made
        once; P·p numbers): OpenBLAS forms the product of the thin −Θ (S′ × p) with
        contiguous rows of Δᵀ in 0.6 of the time it takes with the transposed view of the
        rows of ``[Δ, Δ ∘ Δ]`` (245 000 pairs, p = 10, S = 12, on the 2-core machine: 1.07
        against 1.80 ms), the rest of a block unchanged. In double precision (a few evaluations per search) the
        view of ``rows``."""
        if rows.dtype != np.float32:
            return rows[:, :self.deltas.shape[1]].T
        single = self.__dict__.setdefault("_single", {})
        if "deltas T" not in single:  # published once filled (threads may read it)
            single["deltas T"] = np.ascontiguousarray(self.deltas.T, dtype=np.float32)
        return single["deltas T"][:, start:stop]

    def _pairs_per_block(self, per_pair: int) -> int:
        """Pairs per block: ``per_pair`` temporary elements each within the budget
        ``pricing_chunk_elements`` (:mod:`sipkl.utils.config`)."""
        return max(1, budget("pricing_chunk_elements") // per_pair)

    def hessians(self, thetas, coords=None, dtype=np.float64) -> np.ndarray:
        """The Hessians of the prices at the rows of ``thetas`` on the coordinates ``coords``
        (all by default), S × q × q:

            ∇²price(θ_s) = Σ_ij w_ij E_ij,s δ_ij δ_ijᵀ = Δᵀ diag(w ∘ E_s) Δ,

        one product of the (S·q × pairs) matrix of the rows ``w_ij E_ij,s δ_ij`` with Δ per
        block of pairs (about ``q`` times the work of the gradient); the blocks' products
        are computed by the worker threads in force and added in the blocks' order (see
        :meth:`__call__`)."""
        thetas = np.atleast_2d(np.asarray(thetas, dtype=float))
        coords = np.arange(thetas.shape[1]) if coords is None else np.asarray(coords)
        S, q = len(thetas), len(coords)
        hess = np.zeros((S * q, q))

        def block(pairs):
            delta, w, E = self._block(pairs, padded, S, dtype)
            E = E[:S]  # the rows of the parameters (a view), weighted in place
            E *= w
            part = delta[:, coords]
            rows = np.multiply(E[:, None, :], part.T[None, :, :],
                               out=scratch("hessian rows", (S, q, len(delta)), E.dtype))
            return np.dot(rows.reshape(S * q, len(delta)), part)

        padded, pairs = self._plan(thetas, dtype, per_pair=q)
        for product in ordered_map(block, pairs):
            hess += product
        return hess.reshape(S, q, q)

    def _deltas(self, start: int, stop: int, dtype, squares: bool = False) -> np.ndarray:
        """The rows ``start:stop`` of Δ in ``dtype``, or of ``[Δ, Δ ∘ Δ]`` with ``squares``
        (made once; in single precision its left half serves as Δ, with no other copy)."""
        if np.dtype(dtype) == np.float64 and not squares:
            return self.deltas[start:stop]
        both = self.__dict__.setdefault("_with_squares", {})
        key = np.dtype(dtype).str
        p = self.deltas.shape[1]
        if key not in both:  # published once filled (threads may read it)
            made = np.empty((len(self.deltas), 2 * p), dtype=dtype)
            made[:, :p] = self.deltas
            np.square(made[:, :p], out=made[:, p:])
            both[key] = made
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

    def _exponent_factor(self, start: int, stop: int, rows: np.ndarray) -> np.ndarray:
        return rows[:, :self.X.shape[1]].T  # Δ_b is formed per block: no copy of Δᵀ

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
    :mod:`sipkl.utils.config`), the pairs
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

        def block(task):  # the partial sums of the θ's G over the rows R of M
            G, R = task
            theta = thetas[G].astype(X.dtype)
            E = np.dot((X[None, R] * theta[:, None, :]).reshape(-1, p), X.T)
            E = E.reshape(len(theta), -1, m)
            E *= 2.0
            E -= a[R, G].T[:, :, None]
            E -= a[:, G].T[:, None, :]
            np.minimum(E, 0.0, out=E)  # −‖z_i − z_j‖² ≤ 0, against round-off
            np.exp(E, out=E)
            E *= W0[None, R]
            P = np.dot(E.reshape(-1, m), right).reshape(len(theta), -1, right.shape[1])
            r = P[:, :, 0]
            XR, X2R = X[R], X2[R]
            if grad or curvature:
                MX = P[:, :, 1:p + 1]
            gradient = (2.0 * (r @ X2R) - 2.0 * np.einsum("rd,srd->sd", XR, MX)) if grad \
                else None
            curv = (2.0 * (r @ (X2R * X2R)) - 8.0 * np.einsum("rd,srd->sd", X2R * XR, MX)
                    + 6.0 * np.einsum("rd,srd->sd", X2R, P[:, :, p + 1:])) if curvature \
                else None
            return r.sum(1), gradient, curv

        # blocks of θ's and rows fixed by the budget; their sums added in this order
        tasks = [(slice(g, min(g + group, S)), slice(r0, min(r0 + rows, m)))
                 for g in range(0, S, group) for r0 in range(0, m, rows)]
        for (G, _), (value, gradient, curv) in zip(tasks, ordered_map(block, tasks)):
            values[G] += value
            if grad:
                grads[G] -= gradient
            if curvature:
                curvatures[G] += curv
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
