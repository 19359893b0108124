"""Binary soft-margin SVM dual through libsvm (scikit-learn's ``SVC(kernel="precomputed")``),
or on the active set of a nearby solution (:func:`svm_on_active_set`).

    max_α  1ᵀα − ½ (α∘y)ᵀ K (α∘y)   s.t.  0 ≤ α ≤ C,  yᵀα = 0.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from .status import Attempt, SolverError, Status


#: libsvm's cache of rows of Q = Y K Y (MB). With K precomputed a row is read again from K
#: at the cost of copying it, so the cache saves little; its rows are small heap blocks that
#: stay resident after the solve (at 10 000 points a full cache is 400 MB). scikit-learn's
#: default; every K up to about 7000 points fits in it whole.
LIBSVM_CACHE_MB = 200

#: solves of :func:`svm_on_active_set` before it gives up (the first Newton step of a round
#: of column generation moves the sets by a few dozen points, which 2–3 rounds settle; at
#: n = 1500–2000 points a few starts in a fit need 6–15, and each costs |F|³/3, where the
#: libsvm solve it would fall back to costs 25–50 of them: IKL at n = 2000, C = 100 took
#: 41.6 s with 5, 37.7 s with 15, the same fit)
ACTIVE_SET_ROUNDS = 15


@dataclass
class SVMSolution:
    alpha: np.ndarray
    bias: float
    objective: float
    status: Status
    attempts: list = field(default_factory=list)
    iterations: int = 0  # libsvm's
    #: ``(F, L)`` where the solve factored K on the free points F of α (the active-set
    #: solves): L, K_FF = L Lᵀ, in the lower triangle (the upper one holds no data); else None
    free_factor: Optional[tuple] = None


def solve_svm_dual(K: np.ndarray, y: np.ndarray, C: float, tol: float = 1e-6,
                   max_iter: int = -1) -> SVMSolution:
    """Solve the SVM dual for a precomputed Gram matrix ``K`` and labels ``y ∈ {−1, +1}``;
    at most ``max_iter`` libsvm iterations (−1: no limit), a solve that reaches them has
    status ``ITERATION_LIMIT``.

    The dual objective is recomputed here from α (not read from libsvm) so that callers
    can check optimality outside the solver. A Gram matrix with non-finite entries raises
    :class:`~sipkl.solvers.status.SolverError`.
    """
    if not np.isfinite(K.sum()) and not np.all(np.isfinite(K)):  # the sum: no n × n mask
        raise SolverError("libsvm: the Gram matrix has non-finite entries")
    start = time.perf_counter()
    svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter, cache_size=LIBSVM_CACHE_MB)
    status = Status.OPTIMAL
    message = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc.fit(K, y)
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            status, message = Status.ITERATION_LIMIT, str(w.message)
    alpha = np.zeros(len(y))
    # libsvm stores y_i α_i for the support vectors; the positive class is classes_[1] = +1.
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    w = alpha * y
    objective = float(alpha.sum() - 0.5 * w @ K @ w)
    attempt = Attempt("libsvm", status, message, time.perf_counter() - start)
    return SVMSolution(alpha, float(svc.intercept_[0]), objective, status, [attempt],
                       int(svc.n_iter_[0]))


def violating_pair(v: np.ndarray, y: np.ndarray, alpha: np.ndarray, C: float):
    """libsvm's stopping quantities (the maximal violating pair of Fan, Chen & Lin 2005): with
    v = y − K(α∘y) (= −y∘∇ of the dual),

        m(α) = max_{i ∈ I_up} v_i,   M(α) = min_{i ∈ I_low} v_i,

    I_up = {α_i < C, y_i = 1} ∪ {α_i > 0, y_i = −1}, I_low = {α_i < C, y_i = −1} ∪
    {α_i > 0, y_i = 1}; α is optimal to ε iff m(α) − M(α) ≤ ε. Returns ``(m, M)``."""
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y < 0) & (alpha < C)) | ((y > 0) & (alpha > 0))
    return v[up].max(), v[low].min()


def meets_libsvm_rule(alpha, y, Kw, C: float, tol: float) -> bool:
    """Whether α ≥ 0 (found outside libsvm, with Kw = K(α∘y)) is an answer libsvm would
    give: Σ α_i y_i = 0 to 10⁻¹⁰ Σ α_i, and its stopping rule m(α) − M(α) ≤ ``tol`` on every
    point (:func:`violating_pair`)."""
    w = alpha * y
    m, M = violating_pair(y - Kw, y, alpha, C)
    return abs(w.sum()) <= 1e-10 * np.abs(w).sum() and m - M <= tol


def solve_bordered(M: np.ndarray, u: np.ndarray, R: np.ndarray, r, factor=None):
    """``(Z, b)`` solving the bordered system

        [M   u] [Z]   [R]
        [uᵀ  0] [b] = [r],

    M symmetric positive definite (m × m), u a vector, R one right-hand side (m,) or several
    (m × k) and r a number or k of them: with the Cholesky factor of M, A = M⁻¹R and
    c = M⁻¹u, the Schur complement uᵀc > 0 gives b = (uᵀA − r)/(uᵀc) and Z = A − c bᵀ —
    m³/3 operations, half an LU factorization of the bordered matrix. ``factor``: that
    factor where it is known, as :func:`scipy.linalg.cho_factor` returns it (lower). Raises
    ``numpy.linalg.LinAlgError`` where M is not positive definite."""
    if factor is None:
        factor = cho_factor(M, lower=True, check_finite=False)
    columns = R[:, None] if R.ndim == 1 else R
    solved = cho_solve(factor, np.column_stack([columns, u]), check_finite=False)
    A, c = solved[:, :-1], solved[:, -1]
    b = (u @ A - r) / (u @ c)
    Z = A - np.outer(c, b)
    return (Z[:, 0], float(b[0])) if R.ndim == 1 else (Z, b)


#: α_i ≤ SV_RTOL·C is 0 (not a support vector), α_i ≥ (1 − SV_RTOL)·C is at the bound C; the
#: free support vectors lie strictly between. Above the accuracy of interior-point duals (the
#: QCQP master), far below any α that moves the price.
SV_RTOL = 1e-6


def free_support_vectors(alpha, C) -> np.ndarray:
    """Mask of the free support vectors, SV_RTOL·C < α_i < (1 − SV_RTOL)·C."""
    return (alpha > SV_RTOL * C) & (alpha < (1 - SV_RTOL) * C)


def svm_on_sets_of(K, y, C: float, alpha, tol: float):
    """:func:`svm_on_active_set` from the sets of ``alpha`` (free, at C), or ``None``."""
    return svm_on_active_set(K, y, C, free_support_vectors(alpha, C),
                             alpha >= (1 - SV_RTOL) * C, tol)


def svm_on_active_set(K: np.ndarray, y: np.ndarray, C: float, free: np.ndarray,
                      upper: np.ndarray, tol: float = 1e-6, max_rounds: int = ACTIVE_SET_ROUNDS,
                      rank: int = None):
    """The SVM dual for ``K`` by primal-dual active-set steps from the sets of a nearby
    solution, or ``None``: ``free`` (0 < α_i < C) and ``upper`` (α_i = C) are masks, every
    other α_i is 0 (the next step of a Newton method on kernel weights changes K(d) a little,
    and the sets of its SVM by a few points, or, near the end, by none).

    On given sets the KKT conditions are linear: with w = α∘y (w_U = C y_U, w_L = 0) and the
    bias b, y_i f(x_i) = 1 on the free points F and Σ_i w_i = 0 give

        [K_FF  1] [w_F]   [y_F − K_FU w_U]
        [1ᵀ    0] [ b ] = [   −1ᵀ w_U    ],

    one solve of |F| + 1 unknowns (:func:`solve_bordered`; an LU solve of the whole system
    where K_FF is not positive definite). With the margins r_i = y_i f(x_i) − 1 of that solution,
    the sets are then updated as in the primal-dual active-set method (Hintermüller, Ito &
    Kunisch 2003, a semismooth Newton method): a free point whose α_i left (0, C) goes to
    that bound, a point at 0 with r_i < −tol/2 or at C with r_i > tol/2 becomes free; and the
    solve is repeated, at most ``max_rounds`` times, until the sets stay. The result is the
    SVM's when it is feasible (0 < α_F < C, Σ w_i = 0 to round-off) and libsvm's own stopping
    rule holds at it on all points to ``tol`` (:func:`violating_pair`), which is checked: the
    answer meets what libsvm guarantees for its own, with the free α exact. ``None`` where it
    does not, where F is empty, where the system is singular or the sets still change after
    ``max_rounds`` solves: solve that SVM with :func:`solve_svm_dual`. Each round costs
    |F|³/3 + n² operations; the factor of the last one is returned (``free_factor``).
    ``rank``: a bound on the rank of K where it is known to be low (K = Z Zᵀ of p features:
    p). The bordered matrix then has rank at most p + 2, so sets with more than p + 1 free
    points make the system singular: ``None`` at once, without the |F|³ solve (an LU
    factorization of a singular matrix of thousands of rows, whose answer round-off makes).
    """
    start = time.perf_counter()
    free, upper = free.copy(), upper.copy()
    for _ in range(max_rounds):
        F, U = np.flatnonzero(free), np.flatnonzero(upper)
        if F.size == 0 or (rank is not None and F.size > rank + 1):
            return None
        w = np.zeros(len(y))
        w[U] = C * y[U]
        K_FF = K[np.ix_(F, F)]
        rhs = y[F] - K[np.ix_(F, U)] @ w[U]
        try:
            factor = cho_factor(K_FF, lower=True, check_finite=False)
            w_F, bias = solve_bordered(K_FF, np.ones(F.size), rhs, -w[U].sum(), factor)
        except np.linalg.LinAlgError:  # K_FF not positive definite (repeated points)
            factor = None
            kkt = np.zeros((F.size + 1, F.size + 1))
            kkt[:-1, :-1] = K_FF
            kkt[:-1, -1] = kkt[-1, :-1] = 1.0
            try:
                solution = np.linalg.solve(kkt, np.append(rhs, -w[U].sum()))
            except np.linalg.LinAlgError:
                return None
            w_F, bias = solution[:-1], float(solution[-1])
        if not (np.all(np.isfinite(w_F)) and np.isfinite(bias)):
            return None
        w[F] = w_F
        alpha = w * y
        Kw = K @ w
        r = y * (Kw + bias) - 1.0
        at_zero = ~free & ~upper
        now_free = ((free & (alpha > 0) & (alpha < C)) | (at_zero & (r < -0.5 * tol))
                    | (upper & (r > 0.5 * tol)))
        now_upper = (free & (alpha >= C)) | (upper & (r <= 0.5 * tol))
        if np.array_equal(now_free, free) and np.array_equal(now_upper, upper):
            break
        free, upper = now_free, now_upper
    else:
        return None
    if not meets_libsvm_rule(alpha, y, Kw, C, tol):
        return None
    attempt = Attempt("active_set", Status.OPTIMAL, "", time.perf_counter() - start)
    return SVMSolution(alpha, bias, float(alpha.sum() - 0.5 * w @ Kw), Status.OPTIMAL,
                       [attempt], free_factor=None if factor is None else (F, factor[0]))
