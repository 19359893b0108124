"""Binary soft-margin SVM dual through libsvm (scikit-learn's ``SVC(kernel="precomputed")``).

    max_α  1ᵀα − ½ (α∘y)ᵀ K (α∘y)   s.t.  0 ≤ α ≤ C,  yᵀα = 0.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from .status import Attempt, SolverError, Status


#: libsvm's cache of rows of Q = Y K Y (MB). With K precomputed a row is read again from K
#: at the cost of copying it, so the cache saves little; its rows are small heap blocks that
#: stay resident after the solve (at 10 000 points a full cache is 400 MB). scikit-learn's
#: default; every K up to about 7000 points fits in it whole.
LIBSVM_CACHE_MB = 200


@dataclass
class SVMSolution:
    alpha: np.ndarray
    bias: float
    objective: float
    status: Status
    attempts: list = field(default_factory=list)
    iterations: int = 0  # libsvm's


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
