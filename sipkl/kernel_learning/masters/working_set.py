"""The SVM for K(d) = Σ d_m K_m solved on a working set of points (chunking).

At n points libsvm reads the n × n matrix K(d), and for lazy Gram matrices
(:class:`~sipkl.compute.lazy_gram.LazyGram`) every column's n² entries are computed again at each
solve. The SVM dual

    min_α  ½ αᵀQα − 1ᵀα   s.t.  0 ≤ α ≤ C,  yᵀα = 0,     Q = Y K(d) Y,

is instead solved on a working set S (α_i = 0 off S), which needs K(d) only on S × S, and
checked on all n points by libsvm's own optimality criterion (Fan, Chen & Lin 2005, the
maximal violating pair): with g = K(d)(α∘y) and v_i = y_i − g_i (= −y_i ∇_i),

    m(α) = max_{i ∈ I_up} v_i,   M(α) = min_{i ∈ I_low} v_i,   optimal to ε iff m(α) − M(α) ≤ ε,

I_up = {α_i < C, y_i = 1} ∪ {α_i > 0, y_i = −1}, I_low = {α_i < C, y_i = −1} ∪ {α_i > 0,
y_i = 1}. libsvm returns α with the criterion met on S, so a pair that violates it on all
points has a point off S: one with y_i = 1 and v_i > M + ε, or y_i = −1 and v_i < m − ε.
Those points (the worst first) join the support of α on S, which is the next working set,
and the SVM is solved again (Osuna, Freund & Girosi 1997: the points of S with α_i = 0
leave it, as their decomposition allows), until no point off S violates: then α is what
libsvm would return for all n points, to its tolerance ε. Each round's α is feasible for the
next set and violates there, so the dual objective falls strictly from round to round and
no set comes back. The product g reads K_m only on the support of α (n × |SV| entries).
Dropping the points with α_i = 0 keeps K(d) on S near the support's size: at n = 10⁵ on the
3 × 3 board the first SVM's last set had 18 082 points for 4086 support vectors when S only
grew.

Over Nyström columns K(d) = Z Zᵀ on S has rank at most p = Σ_m q_m, and its features
Z_S = [√d_m Φ_m[S]] are at hand: where |S| is large beside p, or the features lie on a GPU,
each set is solved by the interior-point method on Z_S
(:func:`~sipkl.solvers.svm_features.svm_on_features`, linear in |S|), K(d) on S × S is never
formed, and libsvm only takes over where that method fails. At n = 10⁶ on an H100 the sets
of 1.4–3·10⁴ points took 0.5–0.9 s each, where libsvm had taken 51 s on 2·10⁴.
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ...compute.lazy_gram import LazyGram, add_scaled, combined_gram, restrict
from ...solvers import (Attempt, SolverError, Status, SVMSolution, solve_svm_dual, svm_on_sets_of,
                        violating_pair)
from ...solvers.svm_features import LowRankGram, svm_on_features
from ...utils.config import budget
from .common import SVM_LOCK


def first_working_set(y, size: int = None) -> np.ndarray:
    """Up to ``size`` (default: the budget ``working_set_start`` of :mod:`sipkl.utils.config`)
    points of each class, spread evenly over that class's indices; sorted."""
    size = budget("working_set_start") if size is None else size
    picks = []
    for label in (-1.0, 1.0):
        members = np.flatnonzero(y == label)
        take = np.linspace(0, len(members) - 1, min(size, len(members))).round().astype(int)
        picks.append(members[np.unique(take)])
    return np.sort(np.concatenate(picks))


def _violators(positive, alpha, y, C: float, tol: float, index) -> np.ndarray:
    """The points off ``index`` that violate libsvm's criterion at α, K(d) = Σ d_m K_m over
    the ``positive`` pairs (K_m, d_m), the worst first."""
    v = y - sum(dm * (K @ (alpha * y)) for K, dm in positive)
    m, M = violating_pair(v, y, alpha, C)
    outside = np.ones(len(y), dtype=bool)
    outside[index] = False
    outside = np.flatnonzero(outside)
    excess = np.where(y[outside] > 0, v[outside] - M, m - v[outside])
    violating = excess > tol
    return outside[violating][np.argsort(-excess[violating], kind="stable")]


def _round_size(support) -> int:
    """The most violators that join a working set in one round: as many as ``support``
    has points, at least ``working_set_start`` (a budget of :mod:`sipkl.utils.config`)."""
    return max(budget("working_set_start"), len(support))


def _grown(support, new) -> np.ndarray:
    """The points ``support`` with the first of the violators ``new`` (worst first), at
    most :func:`_round_size` of them."""
    return np.union1d(support, new[:_round_size(support)])


def _combined_on(positive, index, columns=None) -> np.ndarray:
    """K(d) on S × S′ (S = ``index``, S′ = ``columns``, S when None) over the ``positive``
    pairs (K_m, d_m): the lazy Gram matrices' blocks summed as
    :func:`~sipkl.compute.lazy_gram.combined_gram` sums them, then each cached matrix's submatrix
    added, one at a time (never a copy of every submatrix at once: 8|S||S′| bytes each)."""
    columns = index if columns is None else columns
    lazy = [(restrict(K, index, columns), dm) for K, dm in positive if isinstance(K, LazyGram)]
    K_S = (combined_gram([K for K, _ in lazy], [dm for _, dm in lazy]) if lazy
           else np.zeros((len(index), len(columns))))
    for K, dm in positive:
        if not isinstance(K, LazyGram):
            add_scaled(K_S, restrict(K, index, columns), dm)
    return K_S


def _both_classes(index, y) -> np.ndarray:
    """``index``, with :func:`first_working_set` added where it lacks a class."""
    return index if len(np.unique(y[index])) == 2 else np.union1d(index, first_working_set(y))


def _next_gram(positive, index, K_S, following) -> np.ndarray:
    """K(d) on G × G (G = ``following``, sorted) from ``K_S`` = K(d) on S × S (S =
    ``index``, sorted): the entries of the points of G ∩ S copied, the rows and columns of
    the points G ∖ S computed (:func:`_combined_on`; |G ∖ S|·|G| entries of each column
    instead of |G|²). Both matrices are held while the next one is formed."""
    kept = np.intersect1d(following, index, assume_unique=True)
    added = np.setdiff1d(following, index, assume_unique=True)
    old, new = np.searchsorted(following, kept), np.searchsorted(following, added)
    K_G = np.empty((len(following), len(following)))
    source = np.searchsorted(index, kept)
    K_G[np.ix_(old, old)] = K_S if len(kept) == len(index) else K_S[np.ix_(source, source)]
    rows = _combined_on(positive, added, following)
    K_G[new] = rows
    K_G[:, new] = rows.T
    return K_G


def _low_rank(positive, index):
    """K(d) on S × S (S = ``index``) as the :class:`~sipkl.solvers.svm_features.LowRankGram`
    of the stacked features Z_S = [√d_m Φ_m[S]] where every K_m of the ``positive`` pairs
    (K_m, d_m) is held by its features (:class:`~sipkl.compute.features.FeatureGram`) and the
    interior-point method on them pays: the features lie on an accelerator, or |S| is at
    least the budget ``svm_features_ratio`` times p = Σ_m q_m (the solve costs about
    10 |S| p² operations where K(d) on S × S alone costs |S|² p, and libsvm more). Else
    None."""
    if not all(isinstance(K, LazyGram) and K.features for K, _ in positive):
        return None
    first, p = positive[0][0], sum(K.X.shape[1] for K, _ in positive)
    if not (first.on_accelerator or len(index) >= budget("svm_features_ratio") * p):
        return None
    return LowRankGram(first.stacked(positive, index))


def _gram_on(positive, index, last=None, K_last=None):
    """K(d) on S × S (S = ``index``): a :func:`_low_rank` one where it pays, else an array,
    grown from ``K_last`` on the set ``last`` where that is an array
    (:func:`_next_gram`)."""
    low = _low_rank(positive, index)
    if low is not None:
        return low
    if isinstance(K_last, np.ndarray):
        return _next_gram(positive, last, K_last, index)
    return _combined_on(positive, index)


def _solved(K_S, y, C: float, tol: float, near, max_iter: int) -> SVMSolution:
    """The SVM on one set: where K_S is a :class:`~sipkl.solvers.svm_features.LowRankGram`,
    the interior-point method (a failure recorded as an attempt; it ends with active-set
    steps from its own sets, where steps from ``near`` can take many rounds of |F|³/3 on the
    CPU: 80–180 s on sets of 2–3·10⁴ points at n = 10⁶); else active-set steps from
    ``near`` (its α, or None); then libsvm on K_S."""
    failed, part = [], None
    if isinstance(K_S, LowRankGram):
        try:
            return svm_on_features(K_S.Z, y, C, tol)
        except SolverError as error:
            failed = [Attempt("interior_point", Status.SOLVER_ERROR, str(error))]
    elif near is not None:
        part = svm_on_sets_of(K_S, y, C, near, tol)
    if part is None:
        with SVM_LOCK:  # one at a time across threads (sipkl.kernel_learning.masters.common)
            part = solve_svm_dual(np.asarray(K_S), y, C, tol=tol, max_iter=max_iter)
    return replace(part, attempts=failed + part.attempts) if failed else part


def svm_on_working_set(grams, d, y, C: float, tol: float, start=None, max_iter: int = -1,
                       deadline: float = None):
    """The SVM for K(d) = Σ d_m K_m on all points, solved on working sets as the module
    describes. ``start``: the α of an SVM at nearby weights (the last one solved), or None.
    The first working set is its support with the points that violate the criterion at
    that α for K(d) (for a lazy Gram matrix that just computed K_m (α∘y), read again at no
    cost), or :func:`first_working_set` without a start; both classes are always in it.
    The first set is solved by libsvm; a later set that took in every violator (the last
    rounds, a few points each) by active-set steps from the sets of the last set's α
    (:func:`~sipkl.solvers.svm_on_sets_of`), and by libsvm where they do not settle or while
    the set still grows by the most points a round takes; over features where it pays
    (:func:`_low_rank`) every set by the interior-point method (:func:`_solved`).
    ``max_iter`` bounds each libsvm solve's iterations. Past ``deadline`` (a
    ``time.perf_counter()`` instant) no further set is solved: where points off the last
    set still violate, its SVM is returned with status ``iteration_limit`` (the SVM of that
    set, not of all points).

    Returns the SVM (α on all points, zero off the final working set; its attempts are
    those of each round, its status the last round's), the final working set S and K(d) on
    S × S (an array, or a :class:`~sipkl.solvers.svm_features.LowRankGram`).
    """
    n = len(y)
    positive = [(K, dm) for K, dm in zip(grams, d) if dm > 0]
    if start is None:
        index = first_working_set(y)
    else:
        support = np.flatnonzero(start)
        index = _grown(support, _violators(positive, start, y, C, tol, support))
    index, near = _both_classes(index, y), None
    attempts, iterations = [], 0
    K_S = _gram_on(positive, index)
    while True:
        part = _solved(K_S, y[index], C, tol, None if near is None else near[index], max_iter)
        attempts += part.attempts
        iterations += part.iterations
        alpha = np.zeros(n)
        alpha[index] = part.alpha
        new = _violators(positive, alpha, y, C, tol, index)
        status = part.status
        if new.size == 0:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            status = Status.ITERATION_LIMIT
            attempts.append(Attempt("working_set", status, f"time limit reached: {new.size} "
                                    f"points off the working set of {len(index)} violate"))
            break
        support = index[part.alpha > 0]
        following = _both_classes(_grown(support, new), y)
        near = alpha if new.size <= _round_size(support) else None
        K_S, index = _gram_on(positive, following, index, K_S), following
    svm = SVMSolution(alpha, part.bias, part.objective, status, attempts, iterations)
    return svm, index, K_S
