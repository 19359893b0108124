"""The IKL / MKL restricted master with hinge loss (gehler_nowozin §2).

Over the current columns K_1 … K_m the master solves the MKL problem (1), whose dual is
(IKL-Dual-1), eq. (3) with the bias constraint yᵀα = 0:

    max_{α, λ}  1ᵀα − λ   s.t.  0 ≤ α ≤ C,  yᵀα = 0,  T_m(α) ≤ λ  (m = 1 … m),
    T_m(α) = ½ (α∘y)ᵀ K_m (α∘y)                                            (eq. 4)

The kernel weights d_m are the multipliers of T_m(α) ≤ λ and λ the multiplier of Σ d = 1.
Equivalently (SimpleMKL) the master minimizes over the simplex the convex function

    J(d) = max_α { 1ᵀα − Σ_m d_m T_m(α) : 0 ≤ α ≤ C, yᵀα = 0 }  =  SVM dual value for K(d),

with ∂J/∂d_m = −T_m(α*(d)). Both implementations hand the engine the price matrix
W = ½ w wᵀ, w = α∘y (rank one, supported on the support vectors), the threshold
λ = max_m T_m(α), and the gap max_m T_m(α) − Σ_m d_m T_m(α) — for α optimal for K(d) this
is exactly J(d) − (1ᵀα − λ), the MKL duality gap, recomputed here outside any solver.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Optional, Sequence

import cvxpy as cp
import numpy as np
from scipy.linalg import LinAlgError, cho_factor
from scipy.linalg.lapack import dpocon
from scipy.optimize import OptimizeResult, brentq

from ...compute.gram_storage import gram_storage
from ...compute.packed_gram import PackedGrams
from ...core.contracts import MasterBase, MasterSolution
from ...solvers import (SV_RTOL, Attempt, Status, SVMSolution, free_support_vectors,
                        minimize_simplex_qp, solve_bordered, solve_cvxpy, solve_svm_dual,
                        svm_on_sets_of)
from ...solvers.cvx import DEFAULT_SOLVERS, check_solvers
from ...utils.config import budget
from ...utils.threads import one_blas_thread
from ...utils.validation import check_labels, check_positive
from ..price_matrix import PriceMatrix
from .common import CVXPY_LOCK, SVM_LOCK, simplex_start
from .models import HingeModel
from .working_set import svm_on_working_set


#: Newton steps that stall (no step descends: J is only as exact as libsvm) with the gap at
#: most this fraction of max(|J|, λ), ten times inside the engine's optimality tolerance
#: (``sipkl.core.engine.GAP_RTOL``), end the solve as optimal; the QCQP master answers only for
#: larger gaps (on splice, 1000 points and 39 columns, ECOS had run for 8 minutes, unfinished,
#: on a stalled solve whose relative gap was 1.4·10⁻⁶)
STALLED_GAP_RTOL = 1e-4

#: libsvm at the Newton master's tightened tolerance gets this many times the iterations
#: (at least n) it took at the given one: tightening 100× costs a few times more where the
#: dual is unique, while where it is not (duplicated points with both labels) libsvm can
#: run millions of iterations and J is no better defined (the QCQP master takes over)
TIGHTENED_SVM_ITERATIONS = 100

#: the Hessian's bordered KKT system is solved through its eigen-decomposition, eigenvalues
#: at most this fraction of the largest left out (a pseudo-inverse), where Q_FF's reciprocal
#: condition number (LAPACK's estimate from its Cholesky factor) is at most this: there the
#: SVM dual is not unique (K(d) singular on the free support vectors, its null eigenvalues
#: round-off, about 10⁻¹⁶ of the largest, the next ones above 10⁻²), and a factorization
#: divides round-off by round-off (on breast-cancer's ARD round,
#: ``tests/kernel_learning/test_masters.py``, curvatures of ±10⁴ with X in one unit and none
#: in another, whence other steps)
KKT_RCOND = 1e-10

#: exact searches along a Frank–Wolfe edge per solve at most
#: (:meth:`HingeMKLNewton._exact_search`), and the steps that bracket J's minimum there
EXACT_SEARCHES = 1
EXACT_BRACKET = tuple(1e-10 * 4.0 ** k for k in range(17)) + (1.0,)
#: an exact search stops where what is left to gain along the edge is below this fraction
#: of the stop's resolution (far below it: the search is there to close the gap, J′ → 0)
EXACT_GAIN_RTOL = 1e-3


class _Unknown(Exception):
    """libsvm ran out of iterations (or the solve's time did): J is unknown at that point."""


class _Resolved(Exception):
    """The exact search's answer is the step ``args[0]``: J′ is within the stop's resolution
    there, or what is left to gain along the edge is far below it."""


class CombinedSVM:
    """The SVM (libsvm, tolerance ``tol``, at most ``max_iter`` iterations) for
    K(d) = Σ d_m K_m of the :class:`~sipkl.compute.gram_storage.GramStorage` ``grams``, and
    K(d) on the free support vectors of that SVM (what :meth:`HingeMKLNewton._hessian`
    reads); the n × n K(d) itself is not kept. Given the SVM ``start`` at nearby weights,
    its active sets are tried first (:func:`~sipkl.solvers.svm_on_active_set`: a few linear
    solves, checked by libsvm's own criterion), libsvm only where they do not settle;
    libsvm's α is then made exact on its own sets the same way. So the SVM is the exact
    solution on the optimal sets whichever way it was reached, and a run resumed from a
    checkpoint (its first SVM from libsvm) repeats the run it resumes to the bit. On lazy
    Gram matrices above ``working_set_min_n`` points (a budget of :mod:`sipkl.utils.config`)
    the SVM is solved on a working set grown from the SVM ``start`` (its α; K(d) only on
    that set, and past ``deadline`` no further set: status ``iteration_limit``).

    Parameters
    ----------
    dual : callable, optional
        libsvm on a whole kernel, ``dual(K, y, C, tol=tol, max_iter=max_iter)`` → an
        :class:`~sipkl.solvers.SVMSolution`; default :func:`~sipkl.solvers.solve_svm_dual`.
    on_sets : callable, optional
        The exact SVM on the active sets of a given α, ``on_sets(K, y, C, alpha, tol)``, or
        ``None`` where those sets do not settle; default
        :func:`~sipkl.solvers.svm_on_sets_of`.
    on_working_set : callable, optional
        The SVM on a working set of lazy Gram matrices, ``on_working_set(grams, d, y, C,
        tol, start, max_iter, deadline)`` → (SVM, working set, K(d) on it); default
        :func:`~sipkl.kernel_learning.masters.working_set.svm_on_working_set`.
    """

    def __init__(self, dual=None, on_sets=None, on_working_set=None):
        self.dual = solve_svm_dual if dual is None else dual
        self.on_sets = svm_on_sets_of if on_sets is None else on_sets
        self.on_working_set = svm_on_working_set if on_working_set is None else on_working_set

    def __call__(self, grams, d, y, C: float, tol: float, start=None, max_iter: int = -1,
                 deadline: float = None) -> tuple[SVMSolution, np.ndarray]:
        """The SVM for K(d) and K(d) on its free support vectors (see the class)."""
        if grams.lazy and len(y) > budget("working_set_min_n"):
            svm, index, K_S = self.on_working_set(grams, d, y, C, tol, start, max_iter,
                                                  deadline)
            free = np.flatnonzero(free_support_vectors(svm.alpha[index], C))
            return svm, K_S[np.ix_(free, free)]
        Kd = grams.combined(d)
        svm = None if start is None else self.on_sets(Kd, y, C, start, tol)
        if svm is None:
            with SVM_LOCK:  # one at a time across threads (sipkl.kernel_learning.masters.common)
                svm = self.dual(Kd, y, C, tol=tol, max_iter=max_iter)
            exact = self.on_sets(Kd, y, C, svm.alpha, tol) if svm.status.usable else None
            if exact is not None:
                svm = replace(exact, attempts=svm.attempts + exact.attempts,
                              iterations=svm.iterations)
        free = np.flatnonzero(free_support_vectors(svm.alpha, C))
        return svm, Kd[np.ix_(free, free)]


def combined_svm(grams, d, y, C: float, tol: float, start=None, max_iter: int = -1,
                 deadline: float = None) -> tuple[SVMSolution, np.ndarray]:
    """The SVM for K(d) = Σ d_m K_m of ``grams`` by this module's solvers, and K(d) on its
    free support vectors: :class:`CombinedSVM` with its default collaborators."""
    return CombinedSVM()(grams, d, y, C, tol, start, max_iter, deadline)


@dataclass
class _NewtonSteps:
    """The state of one solve's projected Newton steps: the weights d, their SVM and its
    kernel on the free support vectors, libsvm's tolerance and iteration cap (tightened once
    at most), the attempts and status so far, whether the steps stalled with the gap open,
    and the products K_m (α∘y) with the SVM they were formed for."""

    d: np.ndarray
    svm: SVMSolution
    K_free: np.ndarray
    svm_tol: float
    attempts: list
    status: Status
    max_iter: int = -1
    stalled: bool = False
    exact_searches: int = 0
    Kw: Optional[np.ndarray] = None
    Kw_of: Optional[SVMSolution] = None

    def end(self, status: Status, message: str, stalled: bool = False) -> None:
        """The steps end with ``status``, recorded as an attempt of the Newton method."""
        self.status, self.stalled = status, stalled
        self.attempts.append(Attempt("newton", status, message))


@dataclass(frozen=True)
class _LastEnd:
    """Where a solve's steps ended, the next solve's start: the Gram matrices with d_m > 0,
    their d_m, the SVM there, K(d) on its free support vectors (``None`` where the SVM is at
    a tightened tolerance: it is then a start, never reused as is) and the SVM's tolerance."""

    grams: list
    d: np.ndarray
    svm: SVMSolution
    K_free: Optional[np.ndarray]
    svm_tol: float

    @staticmethod
    def positive(grams, d) -> tuple[list, np.ndarray]:
        """The Gram matrices with d_m > 0 and their d_m."""
        return [K for K, dm in zip(grams, d) if dm > 0], d[d > 0]

    def is_at(self, grams, d, svm_tol: float) -> bool:
        """Whether the weights ``d`` of ``grams`` and the SVM tolerance ``svm_tol`` are this
        end point again: the same Gram matrices with positive weight, the same weights to
        the bit, the same tolerance (libsvm would return the same SVM)."""
        kept, weights = self.positive(grams, d)
        return (self.svm_tol == svm_tol and len(kept) == len(self.grams)
                and all(K is L for K, L in zip(kept, self.grams))
                and np.array_equal(weights, self.d))


def _solution(grams, y, C, alpha, bias, d, status, attempts, Kw=None) -> MasterSolution:
    """The master's solution at α (``Kw``: the products K_m (α∘y), when already known)."""
    w = alpha * y
    T = 0.5 * w @ (grams.products(w) if Kw is None else Kw)  # T_m(α) = ½ wᵀ K_m w
    lam = float(T.max())
    primal = float(alpha.sum() - d @ T)  # J(d) when α is optimal for K(d)
    return MasterSolution(weights=d, objective=primal, price=PriceMatrix.rank_one(w, 0.5),
                          threshold=lam, gap=lam - float(d @ T), status=status,
                          model=HingeModel(alpha, bias, y, C),
                          column_prices=T, attempts=attempts)


class HingeMKLQCQP(MasterBase):
    """Reference master: the dual QCQP (3) in cvxpy; kernel weights d_m are its duals.

    Each T_m(α) ≤ λ is written ``½‖F_m (α∘y)‖² ≤ λ`` with ``F_mᵀF_m = K_m`` (eigen-factor,
    eigenvalues below ``1e-10·max`` dropped). Solvers are tried in order (cold starts).
    """

    def __init__(self, y, C: float = 1.0, solvers: Sequence[str] = DEFAULT_SOLVERS):
        self.y, self.C = check_labels(y), check_positive(C, "C")
        self.solvers = check_solvers(solvers)

    def solve(self, grams, warm_start=None) -> MasterSolution:
        with CVXPY_LOCK:  # one at a time across threads (sipkl.kernel_learning.masters.common)
            return self._solve(grams)

    def _solve(self, grams) -> MasterSolution:
        y, C, n = self.y, self.C, len(self.y)
        alpha, lam = cp.Variable(n), cp.Variable()
        w = cp.multiply(y, alpha)
        quad = [0.5 * cp.sum_squares(_factor(K) @ w) <= lam for K in grams]
        problem = cp.Problem(cp.Maximize(cp.sum(alpha) - lam),
                             [alpha >= 0, alpha <= C, y @ alpha == 0] + quad)
        status, attempts = solve_cvxpy(problem, self.solvers)
        if not status.usable or alpha.value is None:
            return MasterSolution.failed(len(grams), status, attempts)
        a = np.clip(alpha.value, 0.0, C)
        a[a <= SV_RTOL * C] = 0.0
        # cvxpy reports the dual of a scalar constraint as an array of shape (1,); float() of
        # such an array is an error under NumPy >= 2.4, hence .item().
        d = np.clip(np.array([np.asarray(c.dual_value, dtype=float).item() for c in quad]),
                    0.0, None)
        d = d / d.sum()
        grams = gram_storage(grams)
        Kd = grams.combined(d)
        return _solution(grams, y, C, a, _bias(a, y, C, Kd), d, status, attempts)


def _factor(K):
    vals, vecs = np.linalg.eigh(K)
    keep = vals > 1e-10 * max(vals.max(), 1e-300)
    return np.sqrt(vals[keep])[:, None] * vecs[:, keep].T


def _bias(alpha, y, C, Kd):
    """b from the KKT conditions: y_i − (K(d) (α∘y))_i on free support vectors."""
    free = free_support_vectors(alpha, C)
    rows = free if free.any() else alpha > 0
    g = y[rows] - Kd[rows] @ (alpha * y)
    return float(np.median(g)) if rows.any() else 0.0


class HingeMKLNewton(MasterBase):
    """Fast master: minimize J(d) over the simplex by a projected Newton method.

    J is evaluated by an SVM solve (``svm``, by default :func:`combined_svm`: from the last
    SVM's active sets, else libsvm). Its gradient is −T(α) and its Hessian, from
    differentiating the KKT system of the free support vectors F,

        [Q_FF  y_F] [∂α_F/∂d_k]     [g_k]
        [y_Fᵀ   0 ] [∂b/∂d_k   ] = −[ 0 ],   g_k = (Y K_k Y α)_F,   Q = Y K(d) Y,

    is ∇²J_mk = g_mᵀ Z_k with Z = KKT⁻¹[G; 0]. Each step minimizes the quadratic model over
    the simplex (primal active set, :func:`solvers.minimize_simplex_qp`; the Frank-Wolfe
    vertex as recorded fallback, and when the model step is too small to descend) and is
    safeguarded by Armijo backtracking on J (t = 1, ½, …, down to steps whose first-order
    gain −t·slope is at most ``gap_tol·max(1, |J|)``, the stop's resolution); when
    backtracking fails (J is only as exact as libsvm's ``svm_tol``), the SVM tolerance is
    tightened 100× once and the step retried (libsvm then gets
    :data:`TIGHTENED_SVM_ITERATIONS` times the iterations it took, and a solve that runs out
    of them ends the steps as one that does not descend). Stops when the MKL duality gap
    (see module doc) is at most ``gap_tol·max(1, |J|)``. With a single column the master is
    one SVM solve. Steps that stop short of that gap end the solve as optimal where the gap
    is at most :data:`STALLED_GAP_RTOL` of max(|J|, λ) (recorded as an attempt, at any n),
    and hand the columns to the QCQP master (``fallback``) otherwise (:meth:`_qcqp_fallback`,
    recorded as an attempt; up to ``qcqp_fallback_max_n`` samples, a budget of
    :mod:`sipkl.utils.config`). A solve that starts where the last one ended (the next round
    of column generation) starts from its SVM (:meth:`_start_svm`). Its sweeps of the Gram
    matrices, K(d) and the products K_m w, read their lower triangles, packed once per
    column (:class:`~sipkl.compute.packed_gram.PackedGrams`, while they take at most
    ``packed_gram_bytes``, a budget of :mod:`sipkl.utils.config`). On lazy Gram matrices
    each SVM is solved on a working set (:func:`combined_svm`) grown from the support of the
    SVM before it. Past its ``deadline`` (set by the engine from its ``time_limit``, see
    :class:`~sipkl.core.contracts.Master`) it solves no further SVM (of a step, a line
    search, the tightening or an exact search; an SVM on working sets solves no further
    set) and does not fall back to the QCQP master: it returns the current weights, status
    ``iteration_limit``.

    Parameters
    ----------
    y : array of shape (n,)
        The labels, in {−1, +1}.
    C : float, default 1.0
        The SVM's box bound, 0 ≤ α ≤ C in (IKL-Dual-1).
    gap_tol : float, default 1e-6
        The stop: the MKL duality gap at most ``gap_tol·max(1, |J|)``.
    svm_tol : float, default 1e-6
        libsvm's tolerance (tightened 100× once where backtracking fails).
    max_steps : int, default 50
        Newton steps per solve at most.
    svm : callable, optional
        The SVM for K(d), called as ``svm(grams, d, y, C, tol, start=…, max_iter=…,
        deadline=…)`` and returning the :class:`~sipkl.solvers.SVMSolution` and K(d) on its
        free support vectors; by default :func:`combined_svm` (:class:`CombinedSVM` takes
        other solvers).
    fallback : callable, default :class:`HingeMKLQCQP`
        The master that answers where the steps stall with the gap open, built as
        ``fallback(y, C)`` and solved as ``.solve(grams, warm_start)``.
    """

    def __init__(self, y, C: float = 1.0, gap_tol: float = 1e-6, svm_tol: float = 1e-6,
                 max_steps: int = 50, svm=None, fallback=HingeMKLQCQP):
        self.y, self.C = check_labels(y), check_positive(C, "C")
        self.gap_tol, self.svm_tol, self.max_steps = gap_tol, svm_tol, max_steps
        self.svm = combined_svm if svm is None else svm
        self.fallback = fallback
        self._last: Optional[_LastEnd] = None  # where the last solve ended
        self._packed = None  # the PackedGrams of the last solve

    def _start_svm(self, grams, d):
        """The SVM at the starting weights: the last solve's final SVM when the warm start is
        its end point again (the same Gram matrices with positive weight, the same weights to
        the bit, the same SVM tolerance: libsvm would return that SVM again, so a run resumed
        from a checkpoint stays the same run), else the SVM solved from the last one
        (the master's ``svm`` with it as ``start``, also when the last solve ended at a
        tightened tolerance), or from scratch in a master's first solve. A round of column
        generation starts from the previous weights with the new columns at 0, which is that
        point."""
        start = None
        if self._last is not None:
            if self._last.is_at(grams, d, self.svm_tol):  # its libsvm run is already recorded
                return replace(self._last.svm, attempts=[]), self._last.K_free
            start = self._last.svm.alpha
        return self.svm(grams, d, self.y, self.C, self.svm_tol, start=start,
                        deadline=self.deadline)

    def solve(self, grams, warm_start=None) -> MasterSolution:
        # matrix-vector products and small solves: see sipkl.utils.threads
        with one_blas_thread():
            return self._solve(grams, warm_start)

    def _solve(self, grams, warm_start) -> MasterSolution:
        """Projected Newton steps on J(d) over the simplex, in named stages: the SVM at the
        warm start (:meth:`_start_steps`); per step, the gap test and the deadline, the step
        direction (:meth:`_direction`), the Armijo line search on J (:meth:`_line_search`)
        and, where it fails, libsvm once 100× tighter (:meth:`_tighten`); at the end, the
        solution (:meth:`_end_steps`) and, where the steps stalled with the gap open, the
        decision between a stalled optimum and the QCQP master (:meth:`_after_stall`)."""
        grams = self._packed_grams(gram_storage(grams))
        steps = self._start_steps(grams, warm_start)
        for _ in range(self.max_steps):
            steps.Kw, steps.Kw_of = grams.products(steps.svm.alpha * self.y), steps.svm
            T = 0.5 * (steps.svm.alpha * self.y) @ steps.Kw
            J = steps.svm.objective
            resolution = self.gap_tol * max(1.0, abs(J))
            if T.max() - steps.d @ T <= resolution or len(grams) == 1:
                break
            if self._past_deadline():
                steps.end(Status.ITERATION_LIMIT, "time limit reached (gap not closed)")
                break
            direction, slope = self._direction(steps, T)
            if slope >= 0:
                steps.end(Status.OPTIMAL_INACCURATE, "no descent direction (gap not closed)",
                          stalled=True)
                break
            if self._line_search(grams, steps, direction, slope, J, resolution):
                continue
            if self._tighten(grams, steps):
                continue
            if self._exact_search(grams, steps, T, resolution):
                continue
            if self._past_deadline():  # the line search stopped there
                steps.end(Status.ITERATION_LIMIT, "time limit reached (gap not closed)")
                break
            steps.end(Status.OPTIMAL_INACCURATE, "line search failed (gap not closed)",
                      stalled=True)
            break
        else:
            steps.end(Status.ITERATION_LIMIT, f"max_steps={self.max_steps} reached")
        solution = self._end_steps(grams, steps)
        return self._after_stall(grams, solution) if steps.stalled else solution

    def _start_steps(self, grams, warm_start) -> "_NewtonSteps":
        """The steps' state at the warm start's weights and their SVM (:meth:`_start_svm`)."""
        d = simplex_start(warm_start, len(grams))
        svm, K_free = self._start_svm(grams, d)
        self._last = None  # its K(d) on the free SVs is K_free or no longer needed
        return _NewtonSteps(d, svm, K_free, self.svm_tol, list(svm.attempts), svm.status)

    def _direction(self, steps: "_NewtonSteps", T) -> tuple[np.ndarray, float]:
        """The step towards the quadratic model's minimizer over the simplex
        (:meth:`_model_minimizer`), or towards the Frank-Wolfe vertex where that step is below
        round-off; with J's directional derivative along it (≥ 0: no descent)."""
        target, step_attempt = self._model_minimizer(steps.K_free, steps.Kw, steps.d,
                                                     steps.svm, T)
        if step_attempt is not None:
            steps.attempts.append(step_attempt)
        direction = target - steps.d
        slope = -T @ direction  # directional derivative of J
        if slope >= 0:  # the model step is below round-off: the Frank-Wolfe vertex
            direction = np.eye(len(steps.d))[np.argmax(T)] - steps.d  # descends by the gap
            slope = -T @ direction
        return direction, slope

    def _line_search(self, grams, steps: "_NewtonSteps", direction, slope, J,
                     resolution) -> bool:
        """Armijo backtracking on J from t = 1, halving while a step could still gain more
        than the stop resolves; an accepted point becomes the steps' weights and SVM. False
        when none is accepted (or libsvm ran out of iterations: J unknown there)."""
        t = 1.0
        while t == 1.0 or (t > 1e-10 and -t * slope > resolution
                           and not self._past_deadline()):
            point = np.clip(steps.d + t * direction, 0.0, None)
            point /= point.sum()  # the SVM below is the one of the accepted point, exactly
            trial, trial_K_free = self.svm(grams, point, self.y, self.C, steps.svm_tol,
                                           start=steps.svm.alpha, max_iter=steps.max_iter,
                                           deadline=self.deadline)
            if trial.status is Status.ITERATION_LIMIT:  # J(point) unknown
                steps.attempts += trial.attempts
                return False
            if trial.objective <= J + 1e-4 * t * slope:
                steps.d, steps.svm, steps.K_free = point, trial, trial_K_free
                steps.attempts += [a for a in trial.attempts if a.status is not Status.OPTIMAL]
                steps.status = trial.status
                return True
            t *= 0.5
        return False

    def _tighten(self, grams, steps: "_NewtonSteps") -> bool:
        """After a failed line search at the given SVM tolerance (J is only as exact as
        libsvm): the SVM again, 100× tighter, with :data:`TIGHTENED_SVM_ITERATIONS` times the
        iterations it took; True when the steps may go on from it (once per solve)."""
        if steps.svm_tol != self.svm_tol or self._past_deadline():
            return False
        steps.svm_tol *= 1e-2
        steps.max_iter = TIGHTENED_SVM_ITERATIONS * max(steps.svm.iterations, len(self.y))
        steps.attempts.append(Attempt("newton", Status.OPTIMAL_INACCURATE, "line search "
                                      f"failed: SVM tolerance tightened to {steps.svm_tol:g}"))
        tight, tight_K_free = self.svm(grams, steps.d, self.y, self.C, steps.svm_tol,
                                       start=steps.svm.alpha, max_iter=steps.max_iter,
                                       deadline=self.deadline)
        if tight.status is Status.ITERATION_LIMIT:
            steps.attempts += tight.attempts
            return False
        steps.svm, steps.K_free = tight, tight_K_free
        return True

    def _exact_search(self, grams, steps: "_NewtonSteps", T, resolution) -> bool:
        """After the Armijo search failed at the tightened tolerance: the minimum of J along
        the Frank–Wolfe edge d(t) = d + t(e_v − d), v = argmax T, where J's derivative
        J′(t) = −T(α(t))ᵀ(e_v − d) changes sign (Brent's root). Where J curves sharply along
        the edge, the steps that Armijo tries from t = 1 gain less than the stop resolves
        although the gap is still open (on a noisy chessboard at n = 1000: gap 9·10⁻⁴ of J,
        J 1.5·10⁻⁵ above its minimum on the edge); there the gap closes in one search, where
        the QCQP master took a minute. True when J decreased (at most ``EXACT_SEARCHES`` per
        solve).

        The search ends at the first step where |J′| is at most ``resolution`` (what the
        stop resolves), or where the steps around the minimum, t_l (J′ < 0) and t_r (J′ ≥ 0),
        bound what is left to gain below ``EXACT_GAIN_RTOL·resolution``: J being convex
        along the edge, J(t) − min J ≤ |J′(t)|·(t_r − t_l) at both ends. J′ is only as exact
        as the SVMs and jumps where their dual is not unique (a kink of J); there Brent's
        iteration would bisect down to 10⁻¹² of the bracket. Past the solve's deadline, no
        further SVM is solved."""
        if steps.exact_searches >= EXACT_SEARCHES or self._past_deadline():
            return False
        steps.exact_searches += 1
        edge = np.eye(len(steps.d))[np.argmax(T)] - steps.d
        found = {}
        # the steps nearest the minimum with J′ < 0 and with J′ ≥ 0, and their |J′|
        left, right = [0.0, T.max() - steps.d @ T], [np.inf, np.inf]

        def derivative(t):
            point = np.clip(steps.d + t * edge, 0.0, None)
            point /= point.sum()
            svm, K_free = self.svm(grams, point, self.y, self.C, steps.svm_tol,
                                   start=steps.svm.alpha, max_iter=steps.max_iter,
                                   deadline=self.deadline)
            if svm.status is Status.ITERATION_LIMIT:
                raise _Unknown
            w = svm.alpha * self.y
            found[t] = (point, svm, K_free)
            slope = float(-(0.5 * w @ grams.products(w)) @ edge)
            if slope < 0 and t > left[0]:
                left[:] = t, -slope
            if slope >= 0 and t < right[0]:
                right[:] = t, slope
            if abs(slope) <= resolution:
                raise _Resolved(t)
            if (right[0] - left[0]) * min(left[1], right[1]) <= EXACT_GAIN_RTOL * resolution:
                raise _Resolved(left[0] if left[1] <= right[1] else right[0])
            if self._past_deadline():
                raise _Unknown
            return slope

        try:
            low, high = 0.0, None
            for t in EXACT_BRACKET:  # J′(0) = −gap < 0
                if derivative(t) >= 0:
                    high = t
                    break
                low = t
            if high is None:
                return False
            best = brentq(derivative, low, high, xtol=1e-12 * high, maxiter=50)
            if best not in found:
                derivative(best)
        except _Resolved as resolved:
            best = resolved.args[0]
        except (_Unknown, RuntimeError):  # libsvm's iteration cap or the deadline, Brent's
            return False
        if best not in found:  # t = 0, never solved: the steps' own point
            return False
        point, svm, K_free = found[best]
        if not svm.objective < steps.svm.objective:
            return False
        steps.d, steps.svm, steps.K_free = point, svm, K_free
        steps.attempts.append(Attempt("newton", Status.OPTIMAL_INACCURATE, (
            f"Armijo search failed: exact search along the Frank–Wolfe edge, t = {best:.3g}")))
        return True

    def _end_steps(self, grams, steps: "_NewtonSteps") -> MasterSolution:
        """The solution at the steps' last weights, remembered as the next solve's start
        (:meth:`_start_svm`)."""
        svm, d = steps.svm, steps.d
        solution = _solution(grams, self.y, self.C, svm.alpha, svm.bias, d, steps.status,
                             steps.attempts, steps.Kw if steps.Kw_of is svm else None)
        # K(d) on the free SVs is reused only with the SVM as is (the same tolerance)
        self._last = _LastEnd(*_LastEnd.positive(grams, d), svm,
                              steps.K_free if steps.svm_tol == self.svm_tol else None,
                              steps.svm_tol)
        return solution

    def _after_stall(self, grams, solution: MasterSolution) -> MasterSolution:
        """Steps that stalled with the gap open: optimal where the gap is at most
        :data:`STALLED_GAP_RTOL` of max(|J|, λ), else the QCQP master's answer (up to the
        budget ``qcqp_fallback_max_n`` samples, and while time is left)."""
        scale = max(abs(solution.objective), abs(solution.threshold))
        if solution.gap <= STALLED_GAP_RTOL * scale:
            solution.status = Status.OPTIMAL
            solution.attempts.append(Attempt("newton", Status.OPTIMAL, (
                f"steps stalled at gap {solution.gap:.3g} ({solution.gap / scale:.2g} of the "
                f"scale, at most {STALLED_GAP_RTOL:g}): no QCQP fallback")))
            return solution
        if len(self.y) > budget("qcqp_fallback_max_n"):
            return solution
        if self._past_deadline():
            solution.status = Status.ITERATION_LIMIT  # no time left for the QCQP master
            solution.attempts.append(Attempt("newton", solution.status, "time limit reached: "
                                             "no QCQP fallback (gap not closed)"))
            return solution
        return self._qcqp_fallback(grams, solution)

    def _packed_grams(self, grams):
        """``grams`` as the :class:`~sipkl.compute.packed_gram.PackedGrams` kept from solve to
        solve (only new columns are packed) where they are arrays whose lower triangles take
        at most ``packed_gram_bytes`` (:mod:`sipkl.utils.config`); the storage as given
        otherwise (lazy Gram matrices, larger ones, or a non-finite entry)."""
        n = len(self.y)
        if (grams.lazy or 4 * n * (n + 1) * len(grams) > budget("packed_gram_bytes")
                or not all(np.shape(K) == (n, n) for K in grams)):
            self._packed = None
            return grams
        if self._packed is None:
            self._packed = PackedGrams(n)
        packed = self._packed.hold(grams)
        return grams if packed is None else packed

    def _past_deadline(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def _qcqp_fallback(self, grams, stopped: MasterSolution) -> MasterSolution:
        """The reference QCQP master (``fallback``) on the same columns, after Newton steps
        that stopped short of a closed gap; its solution when it is optimal, else the Newton
        one.

        Where the SVM dual for K(d) is not unique (K(d) singular on the free support vectors,
        e.g. kernels constant on blocks of samples), −T(α) at libsvm's α is one subgradient of
        J among many: J can be minimal while the gap measured at that α stays open, and no
        step descends. The QCQP's α and d are optimal together."""
        qcqp = self.fallback(self.y, self.C).solve(grams, stopped.weights)
        note = Attempt("newton", stopped.status, "gap not closed: solved by the QCQP master")
        if qcqp.status is Status.OPTIMAL:
            qcqp.attempts = stopped.attempts + [note] + qcqp.attempts
            return qcqp
        stopped.attempts += [note] + qcqp.attempts
        return stopped

    def _model_minimizer(self, K_free, Kw, d, svm, T):
        """argmin over the simplex of −Tᵀ(e − d) + ½ (e − d)ᵀ H (e − d).

        J is convex, but the computed H (free support vectors only, round-off) can have
        negative eigenvalues: they are clipped to 0 (a modified Newton model, convex), and a
        ridge of 10⁻⁸ times the mean eigenvalue makes it strictly convex."""
        vals, vecs = np.linalg.eigh(self._hessian(K_free, Kw, d, svm.alpha, svm.free_factor))
        vals = np.clip(vals, 0.0, None)
        vals += 1e-8 * (vals.mean() + 1e-12)
        H = (vecs * vals) @ vecs.T
        m = len(d)
        # the model is ½ eᵀHe − (T + H d)ᵀe + const
        try:
            res = minimize_simplex_qp(H, T + H @ d, d)
        except LinAlgError as exc:
            res = OptimizeResult(success=False, message=f"singular KKT system ({exc})")
        if res.success and np.all(np.isfinite(res.x)):
            return res.x, None
        vertex = np.eye(m)[np.argmax(T)]  # Frank-Wolfe: a descent direction whenever gap > 0
        return vertex, Attempt("simplex_qp", Status.SOLVER_ERROR,
                               f"model step failed ({res.message}); Frank-Wolfe vertex used")

    def _hessian(self, K_free, Kw, d, alpha, free_factor=None):
        """∇²J from K(d) on the free support vectors of α (``K_free``) and the products
        K_m (α∘y) (columns of ``Kw``). ``free_factor``: the SVM's ``(F, L)`` (K_FF = L Lᵀ),
        where its solve factored K(d) on these free points: Q_FF = Y K_FF Y then has the
        Cholesky factor Y L Y — the numbers of L with their signs changed, the bits of
        factoring Q_FF — and is not factored again.

        Where Q_FF is singular (repeated samples, kernels constant on blocks: the SVM dual is
        not unique and J has a kink), ∂α/∂d is not defined along its null space: Z is then
        the minimum-norm solution KKT⁺[G; 0] of the bordered system, its eigenvalues below
        ``KKT_RCOND`` of the largest left out — the curvature of J along the directions in
        which α moves smoothly, the same to round-off on every machine and in any units."""
        y, C = self.y, self.C
        F = np.flatnonzero(free_support_vectors(alpha, C))
        if F.size == 0:
            return np.zeros((len(d), len(d)))
        yF = y[F]
        G = yF[:, None] * Kw[F]
        QFF = K_free * np.outer(yF, yF)
        factor, Z = None, None
        if free_factor is not None and np.array_equal(free_factor[0], F):
            factor = (free_factor[1] * yF[:, None] * yF[None, :], True)
        try:  # the bordered KKT system by the Cholesky factor of Q_FF, where it is regular
            if factor is None:
                factor = cho_factor(QFF, lower=True, check_finite=False)
            if dpocon(factor[0], np.abs(QFF).sum(axis=0).max(), "L")[0] > KKT_RCOND:
                Z = solve_bordered(QFF, yF, G, np.zeros(G.shape[1]), factor)[0]
        except LinAlgError:  # Q_FF not positive definite to round-off
            pass
        if Z is None or not np.all(np.isfinite(Z)):
            kkt = np.block([[QFF, yF[:, None]], [yF[None, :], np.zeros((1, 1))]])
            vals, vecs = np.linalg.eigh(kkt)
            kept = np.abs(vals) > KKT_RCOND * np.abs(vals).max()
            Z = (vecs[:-1, kept] / vals[kept]) @ (vecs[:-1, kept].T @ G)
        H = G.T @ Z
        return 0.5 * (H + H.T)
