"""Greedy convex combination of kernels with the square loss (argyriou, §4 and Fig. 1).

With the square loss Q(w) = ‖w − y‖² the conjugate is Q*(v) = ¼‖v‖² + (y, v) (§2), so the
saddle function (14) is

    R(c, K) = (1/4μ) (c, K c) + ¼ ‖c‖² + (y, c),

and eq. (16), (1/2μ) K c + ∇Q*(c) = 0 with ∇Q*(c) = ½ c + y, reads

    (K + μI) c = −2μ y,     i.e.  c_K = −2μ α,   α = (K + μI)⁻¹ y.

α holds the coefficients of the minimizer f = Σ_j α_j K(x_j, ·) of the regularization
functional (1) (kernel ridge regression with ridge μ: scikit-learn's ``KernelRidge(alpha=μ)``;
the paper's c is the dual variable v of Lemma 2, with f's coefficients −c/2μ), and

    g(K) = R(c_K, K) = ½ (y, c_K) = −μ yᵀ(K + μI)⁻¹ y = −Q_μ(K)          (eqs. 7, 12, 27).

The engine minimizes ``objective = Q_μ(K) = μ yᵀα``; its decrease is the increase of g, eq. (28).

Pricing, inequality (29): ω̂ improves the kernel iff (c, G(ω̂) c) > (c, K c), hence the price
matrix W = c cᵀ (rank one) and the threshold λ = (c, K c). By Lemma 4 the derivative of g in
the direction G − K is (1/4μ) [(c, G c) − (c, K c)]; Lemma 3 is the statement that the line
search (30) moves iff that derivative is positive.

The master step is the line search (30): for a new column G and D = G − K,

    h(λ) = g(K + λ D),   h′(λ) = (1/4μ) (c_λ, D c_λ)               (Lemma 4)
                          h″(λ) = −(1/2μ) (D c_λ)ᵀ (K + λD + μI)⁻¹ (D c_λ) ≤ 0,

(differentiating c_λ = −2μ (K + λD + μI)⁻¹ y), so h is concave and Newton's method on h′ = 0,
safeguarded by bisection on [0, 1], finds the step. The combination is *stagewise*: the old
weights are scaled by (1 − λ*) and the new column gets λ*. The master takes such steps until
no current column satisfies (29) (see :class:`GreedySquareLossMaster`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from ...solvers import Attempt, Status

from ...core.contracts import MasterBase, MasterSolution
from ...utils.threads import one_blas_thread
from ...utils.validation import check_positive, check_targets
from ..price_matrix import PriceMatrix
from .common import simplex_start
from .models import SquareLossModel


def dual_vector(K: np.ndarray, y: np.ndarray, mu: float):
    """``(c_K, α, factor)``: eq. (16) for the square loss, c = −2μα, (K + μI) α = y."""
    factor = cho_factor(K + mu * np.eye(len(y)), lower=True)
    alpha = cho_solve(factor, y)
    return -2.0 * mu * alpha, alpha, factor


def line_search(K: np.ndarray, D: np.ndarray, y: np.ndarray, mu: float, t_max: float = 1.0,
                tol: float = 1e-10, max_iter: int = 50) -> tuple[float, int]:
    """argmax_{t ∈ [0, t_max]} h(t) = g(K + tD): safeguarded Newton on h′ = 0.

    Eq. (30) is D = G(ω̂) − K, t_max = 1. Returns ``(t*, Newton steps)``. Newton steps that
    leave the bracket [lo, hi] (h′(lo) > 0 > h′(hi)) are replaced by bisection; it stops when
    |h′(t)| ≤ ``tol``·h′(0) or the bracket is shorter than ``tol``·t_max.
    """
    def derivatives(t):
        c, _, factor = dual_vector(K + t * D, y, mu)
        Dc = D @ c
        return (c @ Dc) / (4.0 * mu), -(Dc @ cho_solve(factor, Dc)) / (2.0 * mu)

    d0, curvature = derivatives(0.0)
    if d0 <= 0:
        return 0.0, 0
    if derivatives(t_max)[0] >= 0:
        return t_max, 0
    lo, hi, t, slope = 0.0, t_max, 0.0, d0
    for step in range(1, max_iter + 1):
        newton = t - slope / curvature if curvature < 0 else np.inf
        t = newton if lo < newton < hi else 0.5 * (lo + hi)
        slope, curvature = derivatives(t)
        if slope > 0:
            lo = t
        else:
            hi = t
        if abs(slope) <= tol * d0 or hi - lo <= tol * t_max:
            return t, step
    return t, max_iter


class GreedySquareLossMaster(MasterBase):
    """The greedy master of argyriou Fig. 1, square loss, ridge ``mu`` (μ of eq. 1).

    ``solve(grams, warm_start)`` starts from the warm-start weights (the columns just added
    have weight 0) or, with ``warm_start=None``, from the average of the columns (§4.1: "the
    starting value of the kernel was the average of these ten kernels"), and repeats Fig. 1's
    iteration over the current columns until none satisfies (29) by more than ``tol``:

    * **forward step** (Fig. 1): the column G_j of largest price (c, G_j c) > (c, K c) is
      merged by the line search (30), weights × (1 − λ*) and λ* added to its own. A newly
      added column enters this way; so does a current one that satisfies (29), which step 2
      of Fig. 1 would pick as well (the engine's oracles only offer new columns);
    * **pairwise step** (not in the paper): when an atom K_a with weight w_a prices further
      below (c, K c) than the best column G_j prices above it, the same line search moves
      weight t ∈ [0, w_a] from K_a to G_j (direction G_j − K_a). Forward steps alone only
      rescale the old weights uniformly, and zig-zag for hundreds of steps between nearly
      parallel atoms (e.g. two Gaussians of large scale, both close to the identity) before
      (29) holds for every atom.

    Both steps maximize the concave g along a segment inside the convex hull of the columns:
    Frank–Wolfe with pairwise steps on Q_μ, convex in K (Lemma 2), so g increases at every
    step and (28) holds.

    The solution carries W = c cᵀ, λ = (c, K c), ``objective`` Q_μ(K) = −g(K) and ``gap``
    (1/4μ)·(max_j (c, K_j c) − (c, K c)): by convexity of Q_μ with gradient −c cᵀ/4μ
    (Lemma 4), a bound on Q_μ(K) − min Q_μ over the hull of the current columns — at most
    ``tol``·Q_μ(K) when the loop ends by its test, as (c, K c)/4μ = μ αᵀKα ≤ Q_μ(K).
    ``model`` holds α (predict with Σ_j α_j K(x_j, ·)), c, μ and the number of line searches.
    """

    def __init__(self, y, mu: float = 1e-3, tol: float = 1e-3, max_steps: int = 500,
                 newton_tol: float = 1e-10, max_newton: int = 50):
        self.y = check_targets(y)
        self.mu = check_positive(mu, "mu")
        self.tol = check_positive(tol, "tol")
        self.max_steps, self.newton_tol, self.max_newton = max_steps, newton_tol, max_newton

    def solve(self, grams: Sequence[np.ndarray],
              warm_start: np.ndarray | None = None) -> MasterSolution:
        # hundreds of n × n Cholesky factorizations: see sipkl.utils.threads
        with one_blas_thread():
            return self._solve(grams, warm_start)

    def _solve(self, grams, warm_start) -> MasterSolution:
        y, mu, m = self.y, self.mu, len(grams)
        grams = np.asarray(grams, dtype=float)
        weights = simplex_start(warm_start, m)
        attempts, status, n_steps = [], Status.ITERATION_LIMIT, 0
        try:
            while True:
                K = np.tensordot(weights, grams, axes=1)
                c, alpha, _ = dual_vector(K, y, mu)
                prices = (grams @ c) @ c
                threshold = float(c @ K @ c)
                j = int(np.argmax(prices))
                active = np.flatnonzero(weights > 0)
                a = int(active[np.argmin(prices[active])])
                forward, away = prices[j] - threshold, threshold - prices[a]
                if forward <= self.tol * threshold:
                    status = Status.OPTIMAL
                    break
                if n_steps == self.max_steps:
                    break
                n_steps += 1
                if forward >= away:
                    t, n_newton = line_search(K, grams[j] - K, y, mu, 1.0, self.newton_tol,
                                              self.max_newton)
                    weights *= 1.0 - t
                    weights[j] += t
                else:
                    t, n_newton = line_search(K, grams[j] - grams[a], y, mu, weights[a],
                                              self.newton_tol, self.max_newton)
                    weights[j] += t
                    weights[a] = 0.0 if t == weights[a] else weights[a] - t
                if n_newton == self.max_newton:
                    attempts.append(Attempt("newton", Status.OPTIMAL_INACCURATE,
                                            f"line search: max_newton={self.max_newton}"))
        except LinAlgError as exc:
            status = Status.SOLVER_ERROR
            return MasterSolution.failed(m, status, [Attempt("cholesky", status, f"K + μI: {exc}")])
        if status is Status.ITERATION_LIMIT:
            attempts.append(Attempt("frank-wolfe", status, f"max_steps={self.max_steps}: a "
                                    f"column still satisfies (29) by more than tol"))
        return MasterSolution(
            weights=weights, objective=float(mu * y @ alpha), price=PriceMatrix.rank_one(c),
            threshold=threshold, gap=max(0.0, float(forward)) / (4.0 * mu), status=status,
            model=SquareLossModel(alpha, c, mu, n_steps),
            column_prices=prices, attempts=attempts)
