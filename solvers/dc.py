"""Global maximization of signed sums of exponentials by branch and bound.

    f(s) = Σ_k w_k exp(−⟨s, D_k⟩),    s ∈ [lower, upper] ⊂ R^p,  p ≤ 3,  D_k ≥ 0.

This is the pricing problem <W, K(s)> of Gaussian kernels written with scales s (one term per
pair of points). Each term is convex in s (the exponential of an affine function), so
splitting the terms by the sign of their weight writes f as a difference of convex functions,

    f = g − h,   g(s) = Σ_k a_k e^{−⟨s, D_k⟩},   h(s) = Σ_k b_k e^{−⟨s, D_k⟩},   a, b ≥ 0,

gehler_nowozin eq. (10) for Gaussian kernels, after Argyriou et al. (2006). Branch and bound
over simplices S with vertices v_0 … v_p (intervals when p = 1) uses the smaller of two proven
upper bounds of max_S f:

1. **DC bound.** g is convex, so it lies below its affine interpolant at the vertices (a
   secant when p = 1); h is convex, so it lies above each tangent plane
   T_i(s) = h(v_i) + ∇h(v_i)·(s − v_i). Hence f ≤ (interpolant of g) − max_i T_i on S, and
   with M_ij = g(v_j) − T_i(v_j)

       max_S f  ≤  max_{λ∈Δ} min_i (Mλ)_i  =  min_{μ∈Δ} max_j (μᵀM)_j           (LP duality),

   the value of the matrix game M (Δ the unit simplex). Every μ ∈ Δ gives a valid bound
   max_j (μᵀM)_j, so no solver accuracy enters it: :func:`game_upper_value` takes the best
   of the Shapley–Snow candidates (the equalizing strategy of every square submatrix), among
   which is an optimal one.
2. **Convexification bound** (αBB). With ξ⁻ ≤ ξ⁺ the corners of the bounding box of S,
   every term's curvature is bracketed there (D_k ≥ 0), so on S

       ∇²f  ⪰  H = ∇²g(ξ⁺) − ∇²h(ξ⁻),     and with  ρ = max(0, −λ_min(H)),

   f + (ρ/2)‖s‖² is convex on S and lies below its interpolant: for s = Σ_j λ_j v_j,
   f(s) ≤ Σ_j λ_j f(v_j) + (ρ/2) Σ_j λ_j ‖v_j − s‖² ≤ max_j [f(v_j) + (ρ/2)‖v_j − c‖²] for
   *any* point c (expand around c). The best c is the power centre (equal f(v_j) +
   (ρ/2)‖v_j − c‖²) of one face of S; every face's centre is tried, and each gives a valid
   bound. This bound follows the curvature of f itself, where the DC bound pays for the
   curvature of g and h, large when they cancel (IKL's same-label and different-label pairs).

Both gaps are O(diam(S)²), so bisection closes them quickly. Norms and the Hessian are taken in
coordinates s_d·σ_d, σ_d = max_k D_kd (the exponent's units), in which longest edges are
bisected too. The search starts from a Kuhn triangulation of a grid, log-spaced around the
data's scale of s (which also gives a good incumbent), bisects the simplices with the largest
bounds, and stops when  bound − best ≤ max(atol, rtol·|best|)  (plus the rounding allowance
below).

Floating point: g, h, their derivatives and the Hessians are sums of terms of one sign
(a_k, b_k, D_kd ≥ 0), so each computed value has a relative error at most
γ = 2(2m + 750p + 8)u (u the unit roundoff; 2m covers merging equal exponents and the dot
product, 745p the exponential of an argument ≤ 745 computed by a p-term product, after
Higham's γ_n = nu/(1 − nu)). Every bound adds γ times the magnitudes it combines, so it holds
for the exact function of the given weights and exponents, up to underflow.
"""
from __future__ import annotations

import heapq
import itertools

import numpy as np
from scipy.optimize import OptimizeResult

from .box_nlp import maximize_box
from .status import Status

#: largest parameter dimension handled (simplices in dimension p have p + 1 vertices and the
#: initial triangulation has p! simplices per grid cell)
MAX_DIM = 3
#: default points per axis of the initial grid, by dimension
_INIT_POINTS = {1: 24, 2: 16, 3: 12}
#: default simplices bisected per round, by dimension
_BATCH = {1: 8, 2: 16, 3: 32}
_CHUNK_ELEMENTS = 2 ** 22  # bound on the (points × terms) block of one evaluation
#: two returned points are the same local maximum when, in every coordinate,
#: |s_d − s′_d| ≤ _SAME·(max(s_d, s′_d) + 1/scale_d): their kernel values e^{−s·D} then differ
#: by at most _SAME/e for every D ≥ 0 (relative in s, absolute near 0)
_SAME = 1e-3


class ExpSum:
    """f(s) = g(s) − h(s) = Σ_k (a_k − b_k) exp(−⟨s, D_k⟩) with equal exponent rows merged.

    Terms are merged per sign of their weight (so that merging only adds terms of one sign);
    a row may then carry both an a_k and a b_k.
    """

    def __init__(self, weights, exponents):
        w = np.asarray(weights, dtype=float).ravel()
        D = np.asarray(exponents, dtype=float)
        D = D[:, None] if D.ndim == 1 else D
        if len(w) == 0:
            raise ValueError("weights: at least one term is needed")
        if D.ndim != 2 or len(D) != len(w) or D.shape[1] == 0:
            raise ValueError(f"exponents must have shape ({len(w)},) or ({len(w)}, p), p ≥ 1, "
                             f"got {np.shape(exponents)}")
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(D))):
            raise ValueError("weights and exponents must be finite")
        if np.any(D < 0):
            raise ValueError("exponents must be non-negative")
        if D.shape[1] > MAX_DIM:
            raise ValueError(f"at most {MAX_DIM} parameters are supported by the DC branch and "
                             f"bound, got {D.shape[1]}")
        order = np.lexsort(D.T[::-1])
        D, w = D[order], w[order]
        group = np.cumsum(np.r_[True, np.any(D[1:] != D[:-1], axis=1)]) - 1
        first = np.flatnonzero(np.r_[True, np.diff(group) > 0])
        a = np.bincount(group, np.maximum(w, 0.0))
        b = np.bincount(group, np.maximum(-w, 0.0))
        keep = (a > 0) | (b > 0)
        self.a, self.b, self.D = a[keep], b[keep], D[first][keep]
        self.m, self.p = self.D.shape
        DD = (self.D[:, :, None] * self.D[:, None, :]).reshape(self.m, -1)
        # columns: g, h, ∇g, ∇h, ∇²g, ∇²h — one exp per (point, term), one product per chunk
        self._coef = np.column_stack([self.a, self.b, -self.a[:, None] * self.D,
                                      -self.b[:, None] * self.D, self.a[:, None] * DD,
                                      self.b[:, None] * DD])
        #: per-axis scale σ_d = max_k D_kd (0 where f does not depend on the axis)
        self.scale = self.D.max(axis=0) if self.m else np.zeros(self.p)
        self.gamma = (2 * len(w) + 750 * self.p + 8) * np.finfo(float).eps  # 2(...)u

    def evaluate(self, S):
        """g, h (N,), ∇g, ∇h (N, p) and ∇²g, ∇²h (N, p, p) at the rows of ``S``."""
        S = np.asarray(S, dtype=float).reshape(-1, self.p)
        out = np.empty((len(S), self._coef.shape[1]))
        step = max(1, _CHUNK_ELEMENTS // max(1, self.m))
        for k in range(0, len(S), step):
            out[k:k + step] = np.exp(-(S[k:k + step] @ self.D.T)) @ self._coef
        p, n = self.p, len(S)
        return (out[:, 0], out[:, 1], out[:, 2:2 + p], out[:, 2 + p:2 + 2 * p],
                out[:, 2 + 2 * p:2 + 2 * p + p * p].reshape(n, p, p),
                out[:, 2 + 2 * p + p * p:].reshape(n, p, p))

    def value_and_grad(self, s):
        g, h, dg, dh, _, _ = self.evaluate(s)
        return float(g[0] - h[0]), dg[0] - dh[0]

    def initial_axes(self, lower, upper, n_points):
        """Per axis: the box ends, its midpoint, and points log-spaced over the part of the
        box within 10^±3 times the inverse median exponent (where the terms change)."""
        axes = []
        for d in range(self.p):
            col = self.D[:, d]
            positive = col[col > 0]
            centre = 1.0 / np.median(positive) if positive.size else 1.0
            first, last = max(lower[d], 1e-3 * centre), min(upper[d], 1e3 * centre)
            inner = np.geomspace(first, last, n_points - 3) if first < last else []
            axes.append(np.unique(np.concatenate(
                [[lower[d], upper[d], 0.5 * (lower[d] + upper[d])], inner])))
        return axes


def kuhn_triangulation(axes):
    """Points of the tensor grid ``axes`` and its Kuhn triangulation: each grid cell split
    into p! simplices, one per order in which the axes are stepped from its lowest corner."""
    p = len(axes)
    shape = tuple(len(a) for a in axes)
    points = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    cells = np.stack(np.meshgrid(*[np.arange(n - 1) for n in shape], indexing="ij"),
                     axis=-1).reshape(-1, p)
    simplices = []
    for order in itertools.permutations(range(p)):
        corner = cells.copy()
        vertices = [np.ravel_multi_index(corner.T, shape)]
        for d in order:
            corner[:, d] += 1
            vertices.append(np.ravel_multi_index(corner.T, shape))
        simplices.append(np.stack(vertices, axis=1))
    return points, np.concatenate(simplices)


def _subsets(n, smallest):
    """Index arrays of all subsets of range(n) with at least ``smallest`` elements, by size."""
    return [np.array(list(itertools.combinations(range(n), k))) for k in range(smallest, n + 1)]


#: per number of vertices n: the square submatrices (rows, cols) of an n × n game, k ≥ 2
_SUPPORTS = {n: [(np.repeat(c, len(c), 0), np.tile(c, (len(c), 1))) for c in _subsets(n, 2)]
             for n in range(2, MAX_DIM + 2)}
#: per number of vertices n: the faces of a simplex with at least two vertices
_FACES = {n: _subsets(n, 2) for n in range(2, MAX_DIM + 2)}


def _det(A):
    """Determinants of a stack of k × k matrices, k ≤ 3, by their explicit formulas."""
    k = A.shape[-1]
    if k == 1:
        return A[..., 0, 0]
    if k == 2:
        return A[..., 0, 0] * A[..., 1, 1] - A[..., 0, 1] * A[..., 1, 0]
    return (A[..., 0, 0] * (A[..., 1, 1] * A[..., 2, 2] - A[..., 1, 2] * A[..., 2, 1])
            - A[..., 0, 1] * (A[..., 1, 0] * A[..., 2, 2] - A[..., 1, 2] * A[..., 2, 0])
            + A[..., 0, 2] * (A[..., 1, 0] * A[..., 2, 1] - A[..., 1, 1] * A[..., 2, 0]))


def _cofactors(A):
    """Cofactor matrices C_ij = (−1)^{i+j} det(A without row i and column j) of a stack of
    k × k matrices, k ≤ 4; adj(A) = Cᵀ, defined (by minors) even where A is singular."""
    k = A.shape[-1]
    if k == 1:
        return np.ones_like(A)
    keep = np.array([[r for r in range(k) if r != i] for i in range(k)])  # (k, k − 1)
    minors = _det(A[..., keep[:, None, :, None], keep[None, :, None, :]])
    return (-1.0) ** np.add.outer(np.arange(k), np.arange(k)) * minors


def game_upper_value(M):
    """Upper bound on the value max_{λ∈Δ} min_i (Mλ)_i of each matrix game ``M`` (N, n, n).

    For any μ ∈ Δ, max_j (μᵀM)_j bounds the value (weak duality). Candidates: the pure
    strategies and, for every square submatrix A = M_RC, the μ supported on R that equalizes
    the columns C (μ_Rᵀ A = v 1ᵀ, so μ_R ∝ 1ᵀ adj(A)), clipped to Δ. By the Shapley–Snow
    theorem an optimal μ is among them, so the minimum over candidates is the value (up to
    rounding) — and it is a valid bound whatever the accuracy of these small computations.
    """
    N, n, _ = M.shape
    best = M.max(axis=2).min(axis=1)
    for rows, cols in _SUPPORTS.get(n, []):
        P, k = rows.shape
        mu_R = _cofactors(M[:, rows[:, :, None], cols[:, None, :]]).sum(axis=-1)  # (N, P, k)
        mu_R *= np.sign(mu_R.sum(axis=-1, keepdims=True))
        np.maximum(mu_R, 0.0, out=mu_R)
        total = mu_R.sum(axis=-1, keepdims=True)
        mu = np.zeros((N, P, n))
        np.put_along_axis(mu, np.broadcast_to(rows, (N, P, k)),
                          np.divide(mu_R, total, out=np.zeros_like(mu_R), where=total > 0),
                          axis=-1)
        values = np.einsum("npi,nij->npj", mu, M).max(axis=-1)
        values[total[..., 0] <= 0] = np.inf
        best = np.minimum(best, values.min(axis=1))
    return best


def dc_bound(V, g, h, dh, gamma):
    """DC bound (module docstring, 1.) on simplices with vertices ``V`` (N, n, p), from g, h
    (N, n) and ∇h (N, n, p) at the vertices; entries of M are raised by γ times their
    magnitude."""
    delta = V[:, None, :, :] - V[:, :, None, :]                          # v_j − v_i
    M = g[:, None, :] - h[:, :, None] - np.einsum("nip,nijp->nij", dh, delta)
    R = g[:, None, :] + h[:, :, None] + np.einsum("nip,nijp->nij", np.abs(dh), np.abs(delta))
    return game_upper_value(M + gamma * R)


def convexification_bound(Z, f, mag, rho, gamma):
    """Convexification bound (module docstring, 2.) on simplices with vertices ``Z`` (N, n, p)
    in scaled coordinates, values ``f`` (N, n) of magnitude ``mag`` = g + h, and curvature
    deficit ``rho`` (N,) ≥ 0: min over centres c of max_j [f_j + (ρ/2)‖z_j − c‖²], c running
    over the vertices and the power centre of every face (c = z_0 + βᵀE with
    2 E Eᵀ β = ‖E_i‖² + 2(f_i − f_0)/ρ, E_i = z_i − z_0)."""
    half = 0.5 * (1.0 + gamma) * rho[:, None, None]
    top = f + gamma * mag                                                # (N, n)

    def worst(c):                                                        # c (N, P, p)
        d2 = ((Z[:, None, :, :] - c[:, :, None, :]) ** 2).sum(-1)        # (N, P, n)
        return (top[:, None, :] + half * d2).max(axis=-1).min(axis=-1)

    best = worst(Z)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for face in _FACES.get(Z.shape[1], []):
            E = Z[:, face[:, 1:]] - Z[:, face[:, :1]]                    # (N, P, k − 1, p)
            G = 2.0 * np.einsum("npid,npjd->npij", E, E)
            df = f[:, face[:, 1:]] - f[:, face[:, :1]]
            r = (E ** 2).sum(-1) + 2.0 * df / rho[:, None, None]
            beta = np.einsum("npji,npj->npi", _cofactors(G), r) / _det(G)[..., None]
            c = Z[:, face[:, 0]] + np.einsum("npi,npid->npd", beta, E)
            best = np.fmin(best, worst(c))
    return best


class _Rows:
    """An array grown by appending rows (capacity doubling); ``rows`` is the filled part."""

    def __init__(self, width: int, dtype=float):
        self._data, self.n = np.empty((64, width), dtype=dtype), 0

    def append(self, new) -> int:
        """Append ``new`` (k, width); return the index of its first row."""
        start, stop = self.n, self.n + len(new)
        if stop > len(self._data):
            grown = np.empty((max(stop, 2 * len(self._data)), self._data.shape[1]),
                             dtype=self._data.dtype)
            grown[:start] = self._data[:start]
            self._data = grown
        self._data[start:stop] = new
        self.n = stop
        return start

    @property
    def rows(self):
        return self._data[:self.n]


class _Vertices:
    """Evaluated points with g, h, ∇h, ∇²g, ∇²h, and a cache keyed by their exact coordinates."""

    def __init__(self, fun: ExpSum):
        self.fun, self.index = fun, {}
        p = fun.p
        self._rows = _Rows(2 * p + 2 + 2 * p * p)  # s, g, h, ∇h, ∇²g, ∇²h
        self.best = -np.inf
        sigma = np.where(fun.scale > 0, fun.scale, 1.0)
        self._sigma, self._outer = sigma, np.outer(sigma, sigma)

    def __len__(self):
        return self._rows.n

    def _columns(self, idx):
        p, rows = self.fun.p, self._rows.rows[idx]
        lead = rows.shape[:-1]
        return (rows[..., :p], rows[..., p], rows[..., p + 1], rows[..., p + 2:2 * p + 2],
                rows[..., 2 * p + 2:2 * p + 2 + p * p].reshape(lead + (p, p)),
                rows[..., 2 * p + 2 + p * p:].reshape(lead + (p, p)))

    @property
    def S(self):
        return self._rows.rows[:, :self.fun.p]

    @property
    def f(self):
        rows, p = self._rows.rows, self.fun.p
        return rows[:, p] - rows[:, p + 1]

    def add(self, points) -> np.ndarray:
        """Indices of ``points``, evaluating those not seen before (all in one call)."""
        keys = [pt.tobytes() for pt in np.ascontiguousarray(points)]
        new = list(dict.fromkeys(k for k in keys if k not in self.index))
        if new:
            fresh = np.frombuffer(b"".join(new), dtype=float).reshape(len(new), self.fun.p)
            g, h, _, dh, d2g, d2h = self.fun.evaluate(fresh)
            start = self._rows.append(np.column_stack(
                [fresh, g, h, dh, d2g.reshape(len(new), -1), d2h.reshape(len(new), -1)]))
            self.index.update((k, start + i) for i, k in enumerate(new))
            self.best = max(self.best, float(np.max(g - h)))
        return np.array([self.index[k] for k in keys], dtype=int)

    def bounds(self, simplices):
        """The smaller of the two bounds of the module docstring on each simplex (N, p + 1)."""
        V, g, h, dh, _, _ = self._columns(simplices)
        d2g_hi = self._columns(self.add(V.max(axis=1)))[4]   # box corners ξ⁺ and ξ⁻
        d2h_lo = self._columns(self.add(V.min(axis=1)))[5]
        H = (d2g_hi - d2h_lo) / self._outer
        err = 2.0 * self.fun.gamma * np.linalg.norm((d2g_hi + d2h_lo) / self._outer, axis=(1, 2))
        rho = np.maximum(err - np.linalg.eigvalsh(H)[:, 0], 0.0)
        return np.minimum(dc_bound(V, g, h, dh, self.fun.gamma),
                          convexification_bound(V * self._sigma, g - h, g + h, rho,
                                                self.fun.gamma))


def maximize_exp_sum(weights, exponents, lower, upper, *, rtol: float = 1e-6,
                     atol: float = 0.0, n_best: int = 1, max_nodes: int = 20_000,
                     init_points: int | None = None, batch: int | None = None,
                     polish_iter: int = 30) -> OptimizeResult:
    """Globally maximize f(s) = Σ_k w_k exp(−⟨s, D_k⟩) over a box of dimension p ≤ 3.

    Parameters
    ----------
    weights : array (m,)
        Signed weights w_k.
    exponents : array (m,) or (m, p)
        Non-negative rows D_k (``(m,)`` means p = 1). Equal rows are merged.
    lower, upper : array (p,) or float
        The box.
    rtol, atol : float
        Stop when the proven bound exceeds the best value by at most
        ``max(atol, rtol·|best|)`` plus the floating-point resolution of f,
        4γ·Σ_k |w_k| (module docstring; about 1e-10·Σ|w| for 10⁵ terms).
    n_best : int
        Number of distinct local maxima to return at most (best first).
    max_nodes : int
        Simplices bisected at most; the bound stays valid when this limit stops the search.
    init_points : int, optional
        Points per axis of the initial grid (default 24, 16, 12 for p = 1, 2, 3).
    batch : int, optional
        Simplices bisected per round, their new vertices evaluated together (default 8, 16,
        32 for p = 1, 2, 3).
    polish_iter : int
        L-BFGS-B iterations from each returned point (local ascent, never worse than the start).

    Returns
    -------
    OptimizeResult with ``x`` (n_found, p) and ``fun`` (n_found,): distinct local maxima,
    best first, ``x[0]`` within the tolerance of the global maximum; ``upper_bound`` (proven
    bound on max f over the box); ``tol`` (the absolute tolerance of the stop rule); ``nit``
    (simplices bisected); ``nleaves``; ``nfev`` (points evaluated, each over all terms, the
    corners of bounding boxes and the local ascent included); ``status`` (a
    :class:`~sipkl.solvers.status.Status`: ``OPTIMAL`` when the tolerance was reached,
    ``ITERATION_LIMIT`` at ``max_nodes``, ``OPTIMAL_INACCURATE`` when simplices too small to
    bisect in floating point keep the bound above it); ``success`` and ``message``.
    """
    fun = ExpSum(weights, exponents)
    p = fun.p
    lower, upper = (np.atleast_1d(np.asarray(b, dtype=float)) for b in (lower, upper))
    lower, upper = (np.repeat(b, p) if b.shape == (1,) else b for b in (lower, upper))
    if lower.shape != (p,) or upper.shape != (p,):
        raise ValueError(f"lower and upper must be scalars or have shape ({p},), got "
                         f"{lower.shape} and {upper.shape}")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ValueError(f"need finite lower < upper, got lower={lower}, upper={upper}")
    batch = batch or _BATCH[p]
    if n_best < 1 or max_nodes < 0 or batch < 1:
        raise ValueError("n_best and batch must be positive and max_nodes non-negative")

    points, simplices = kuhn_triangulation(
        fun.initial_axes(lower, upper, init_points or _INIT_POINTS[p]))
    verts = _Vertices(fun)
    nodes = _Rows(p + 1, dtype=int)  # vertex indices of every simplex ever created
    nodes.append(verts.add(points)[simplices])
    heap = [(-b, i) for i, b in enumerate(verts.bounds(nodes.rows))]  # the leaves
    heapq.heapify(heap)
    frozen = []  # leaves whose longest edge cannot be halved in floating point
    edges = np.array(list(itertools.combinations(range(p + 1), 2)))
    nit = 0

    # below this, bounds are made of rounding allowances: f's floating-point resolution
    resolution = 4.0 * fun.gamma * (fun.a.sum() + fun.b.sum())

    def cut():
        return verts.best + max(atol, rtol * abs(verts.best)) + resolution

    while heap and -heap[0][0] > cut() and nit < max_nodes:
        level = cut()
        taken = []  # (−bound, index) of the leaves to bisect
        while heap and len(taken) < batch and -heap[0][0] > level:
            taken.append(heapq.heappop(heap))
        simplex = nodes.rows[[t for _, t in taken]]                      # (k, p + 1)
        V = verts.S[simplex]
        lengths = np.linalg.norm((V[:, edges[:, 0]] - V[:, edges[:, 1]]) * fun.scale, axis=2)
        i, j = edges[np.argmax(lengths, axis=1)].T
        k = np.arange(len(taken))
        mid = 0.5 * (V[k, i] + V[k, j])
        splits = np.any(mid != V[k, i], axis=1) & np.any(mid != V[k, j], axis=1)
        frozen += [leaf for leaf, ok in zip(taken, splits) if not ok]
        simplex, i, j, mid = simplex[splits], i[splits], j[splits], mid[splits]
        k = np.arange(len(simplex))
        new = verts.add(mid)
        left, right = simplex.copy(), simplex.copy()
        left[k, i], right[k, j] = new, new
        children = np.concatenate([left, right])
        child_bounds = verts.bounds(children)
        first = nodes.append(children)
        for offset, b in enumerate(child_bounds):
            heapq.heappush(heap, (-b, first + offset))
        nit += len(simplex)

    leaves = heap + frozen
    best_f = verts.best
    upper_bound = max([best_f] + [-b for b, _ in leaves])
    tol = max(atol, rtol * abs(best_f)) + resolution
    if upper_bound - best_f <= tol:
        status, message = Status.OPTIMAL, "bound within tolerance of the best value"
    elif nit >= max_nodes:
        status, message = Status.ITERATION_LIMIT, f"max_nodes={max_nodes} simplices bisected"
    else:
        status, message = (Status.OPTIMAL_INACCURATE,
                           "simplices too small to bisect in floating point keep the bound "
                           "above the tolerance")
    starts = _local_maxima(verts.f, nodes.rows[[t for _, t in leaves]])[:n_best]
    x, values, nfev_polish = _polish(fun, verts.S[starts], verts.f[starts], lower, upper,
                                     rtol, polish_iter)
    return OptimizeResult(x=x, fun=values, upper_bound=upper_bound, tol=tol, nit=nit,
                          nleaves=len(leaves), nfev=len(verts) + nfev_polish, status=status,
                          success=status is Status.OPTIMAL, message=message)


def _local_maxima(f, leaves):
    """Vertices strictly above every other vertex of each leaf simplex containing them (the
    best vertex always included), best first."""
    values = f[leaves]                                                   # (L, n)
    order = np.sort(values, axis=1)
    top = np.where(values == order[:, -1:], order[:, -2:-1], order[:, -1:])  # best of the others
    others = np.full(len(f), -np.inf)
    np.maximum.at(others, leaves.ravel(), top.ravel())
    used = np.unique(leaves)
    peaks = used[f[used] > others[used]]
    peaks = np.union1d(peaks, [int(np.argmax(f))])
    return peaks[np.argsort(-f[peaks], kind="stable")]


def _polish(fun: ExpSum, starts, start_values, lower, upper, rtol, max_iter):
    """Local ascent (L-BFGS-B) from each start; keep the better of start and end, then drop
    points that are the same (``_SAME``) as a better one."""
    if max_iter > 0:
        res = maximize_box(fun.value_and_grad, starts, lower, upper, method="lbfgsb",
                           tol=rtol, max_iter=max_iter)
        x = np.vstack([res.x, starts])
        values = np.concatenate([res.fun, start_values])
        nfev = res.nfev
    else:
        x, values, nfev = starts, start_values, 0
    with np.errstate(divide="ignore"):
        unit = 1.0 / fun.scale
    kept = []
    for idx in np.argsort(-values, kind="stable"):  # a loop over the few candidates
        if all(np.any(np.abs(x[idx] - x[k]) > _SAME * (np.maximum(x[idx], x[k]) + unit))
               for k in kept):
            kept.append(idx)
    kept = kept[:len(starts)]
    return x[kept], values[kept], nfev
