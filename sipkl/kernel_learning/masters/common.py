"""Helpers shared by masters whose kernel weights live on the simplex, and the locks of the
solvers that run one at a time across threads."""
from __future__ import annotations

import threading

import numpy as np

#: held around libsvm's solves (:func:`~sipkl.solvers.solve_svm_dual`): they record
#: scikit-learn's warnings with ``warnings.catch_warnings``, which swaps process-wide state,
#: and two at once in two threads (one-vs-rest problems fitted in parallel,
#: :func:`sipkl.utils.threads.map_tasks`) could take each other's warning — the iteration limit
#: that sets a solve's status — or leave a recorder installed: they run one at a time
SVM_LOCK = threading.Lock()
#: held around the QCQP master's cvxpy model and solve: one at a time across threads too
CVXPY_LOCK = threading.Lock()


def simplex_start(warm_start, m: int) -> np.ndarray:
    """Starting weights on the simplex: the warm start (clipped at 0, normalized unless it
    sums to 1 to rounding) when it fits ``m`` columns and has a positive entry, else uniform
    weights."""
    if warm_start is None or len(warm_start) != m or not np.any(np.asarray(warm_start) > 0):
        return np.full(m, 1.0 / m)
    d = np.clip(np.asarray(warm_start, dtype=float), 0.0, None)
    total = d.sum()
    # weights that sum to 1 to rounding are kept as they are, to the bit (a master can then
    # recognize its own last end point)
    return d if abs(total - 1.0) <= len(d) * np.finfo(float).eps else d / total
