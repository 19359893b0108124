"""The SVM for K(d) = Σ d_m K_m solved on a working set of points (chunking).

At n points libsvm reads the n × n matrix K(d), and for lazy Gram matrices
(:class:`~sipkl.lazy_gram.LazyGram`) every column's n² entries are computed again at each
solve. The SVM dual

    min_α  ½ αᵀQα − 1ᵀα   s.t.  0 ≤ α ≤ C,  yᵀα = 0,     Q = Y K(d) Y,

is instead solved on a working set S (α_i = 0 off S), which needs K(d) only on S × S, and
checked on all n points by libsvm's own optimality criterion (Fan, Chen & Lin 2005, the
maximal violating pair): with g = K(d)(α∘y) and v_i = y_i − g_i (= −y_i ∇_i),

    m(α) = max_{i ∈ I_up} v_i,   M(α) = min_{i ∈ I_low} v_i,   optimal to ε iff m(α) − M(α) ≤ ε,

I_up = {α_i < C, y_i = 1} ∪ {α_i > 0, y_i = −1}, I_low = {α_i < C, y_i = −1} ∪ {α_i > 0,
y_i = 1}. libsvm returns α with the criterion met on S, so a pair that violates it on all
points has a point off S: one with y_i = 1 and v_i > M + ε, or y_i = −1 and v_i < m − ε.
Those points (the worst first) join S and the SVM is solved again (Osuna, Freund & Girosi
1997), until no point off S violates: then α is what libsvm would return for all n points,
to its tolerance ε. The product g reads K_m only on the support of α (n × |SV| entries).
"""
from __future__ import annotations

import numpy as np

from ..config import budget
from ..lazy_gram import LazyGram, add_scaled, combined_gram, restrict
from ..solvers import SVMSolution, solve_svm_dual, violating_pair
from .common import SVM_LOCK



def first_working_set(y, size: int = None) -> np.ndarray:
    """Up to ``size`` (default: the budget ``working_set_start`` of :mod:`sipkl.config`)
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
    outside = np.setdiff1d(np.arange(len(y)), index)
    excess = np.where(y[outside] > 0, v[outside] - M, m - v[outside])
    violating = excess > tol
    return outside[violating][np.argsort(-excess[violating], kind="stable")]


def _grown(index, new) -> np.ndarray:
    """``index`` with the first of the violators ``new`` (worst first): as many as it has
    points, at least ``working_set_start`` (a budget of :mod:`sipkl.config`)."""
    return np.union1d(index, new[:max(budget("working_set_start"), len(index))])


def _combined_on(positive, index, columns=None) -> np.ndarray:
    """K(d) on S × S′ (S = ``index``, S′ = ``columns``, S when None) over the ``positive``
    pairs (K_m, d_m): the lazy Gram matrices' blocks summed as
    :func:`~sipkl.lazy_gram.combined_gram` sums them, then each cached matrix's submatrix
    added, one at a time (never a copy of every submatrix at once: 8|S||S′| bytes each)."""
    columns = index if columns is None else columns
    lazy = [(restrict(K, index, columns), dm) for K, dm in positive if isinstance(K, LazyGram)]
    K_S = (combined_gram([K for K, _ in lazy], [dm for _, dm in lazy]) if lazy
           else np.zeros((len(index), len(columns))))
    for K, dm in positive:
        if not isinstance(K, LazyGram):
            add_scaled(K_S, restrict(K, index, columns), dm)
    return K_S


def _grown_gram(positive, index, K_S, grown) -> np.ndarray:
    """K(d) on G × G (G = ``grown`` ⊃ S = ``index``, both sorted) from ``K_S`` = K(d) on
    S × S: copied, and the rows and columns of the points G ∖ S computed
    (:func:`_combined_on`; |G ∖ S|·|G| entries of each column instead of |G|²). Both
    matrices are held while the grown one is formed."""
    added = np.setdiff1d(grown, index, assume_unique=True)
    old, new = np.searchsorted(grown, index), np.searchsorted(grown, added)
    K_G = np.empty((len(grown), len(grown)))
    K_G[np.ix_(old, old)] = K_S
    rows = _combined_on(positive, added, grown)
    K_G[new] = rows
    K_G[:, new] = rows.T
    return K_G


def svm_on_working_set(grams, d, y, C: float, tol: float, start=None, max_iter: int = -1):
    """The SVM for K(d) = Σ d_m K_m on all points, solved on working sets as the module
    describes. ``start``: the α of an SVM at nearby weights (the last one solved), or None.
    The first working set is its support with the points that violate the criterion at
    that α for K(d) (for a lazy Gram matrix that just computed K_m (α∘y), read again at no
    cost), or :func:`first_working_set` without a start; both classes are always in it.
    ``max_iter`` bounds each round's libsvm iterations.

    Returns the SVM (α on all points, zero off the final working set; its attempts are
    libsvm's, one per round, its status the last round's), the final working set S and K(d)
    on S × S.
    """
    n = len(y)
    positive = [(K, dm) for K, dm in zip(grams, d) if dm > 0]
    if start is None:
        index = first_working_set(y)
    else:
        index = np.flatnonzero(start)
        index = _grown(index, _violators(positive, start, y, C, tol, index))
    if len(np.unique(y[index])) < 2:
        index = np.union1d(index, first_working_set(y))
    attempts, iterations = [], 0
    K_S = _combined_on(positive, index)
    while True:
        with SVM_LOCK:  # one at a time across threads (sipkl.masters.common)
            part = solve_svm_dual(K_S, y[index], C, tol=tol, max_iter=max_iter)
        attempts += part.attempts
        iterations += part.iterations
        alpha = np.zeros(n)
        alpha[index] = part.alpha
        new = _violators(positive, alpha, y, C, tol, index)
        if new.size == 0:
            break
        grown = _grown(index, new)
        K_S, index = _grown_gram(positive, index, K_S, grown), grown
    svm = SVMSolution(alpha, part.bias, part.objective, part.status, attempts, iterations)
    return svm, index, K_S
