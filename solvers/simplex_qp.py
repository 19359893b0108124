"""Convex quadratic program over the probability simplex, by a primal active-set method.

    min_x  ½ xᵀ H x − bᵀ x   s.t.  x ≥ 0,  1ᵀx = 1          (H symmetric positive definite)

Nocedal & Wright, Algorithm 16.3: on the working set S of free coordinates solve the
equality-constrained problem through its KKT system

    [H_SS  1] [x_S]   [b_S]
    [1ᵀ    0] [ ν ] = [ 1 ],

step towards its solution as far as x ≥ 0 allows (a blocking coordinate leaves S), and when
the solution is feasible add the coordinate i ∉ S with the most negative multiplier
μ_i = (H x − b)_i + ν; stop when every μ_i ≥ −tol·scale. Each iteration is one small
dense solve (|S| + 1 unknowns).
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import OptimizeResult


def minimize_simplex_qp(H: np.ndarray, b: np.ndarray, x0: np.ndarray, *, tol: float = 1e-9,
                        max_iter: int | None = None) -> OptimizeResult:
    """Minimize ``½ xᵀHx − bᵀx`` over the simplex from the feasible point ``x0``.

    Returns an OptimizeResult with ``x``, ``fun``, ``success`` (the KKT conditions hold to
    ``tol`` times the scale of ``H`` and ``b``), ``nit`` and ``message``.
    """
    H = np.asarray(H, dtype=float)
    b = np.asarray(b, dtype=float)
    m = len(b)
    x = np.clip(np.asarray(x0, dtype=float), 0.0, None)
    x /= x.sum()
    free = x > 0
    scale = max(float(np.abs(H).max()), float(np.abs(b).max()), 1e-300)
    max_iter = 10 * m + 10 if max_iter is None else max_iter
    for nit in range(1, max_iter + 1):
        S = np.flatnonzero(free)
        k = len(S)
        kkt = np.zeros((k + 1, k + 1))
        kkt[:k, :k] = H[np.ix_(S, S)]
        kkt[:k, k] = kkt[k, :k] = 1.0
        sol = np.linalg.solve(kkt, np.append(b[S], 1.0))
        target, nu = sol[:k], sol[k]
        if np.all(target >= 0):
            x = np.zeros(m)
            x[S] = target
            mu = H @ x - b + nu
            mu[S] = np.inf
            i = int(np.argmin(mu))
            if mu[i] >= -tol * scale:
                return OptimizeResult(x=x, fun=float(0.5 * x @ H @ x - b @ x), success=True,
                                      nit=nit, message="KKT conditions satisfied")
            free[i] = True
            continue
        # ratio test: the largest step from x[S] towards target keeping x ≥ 0
        direction = target - x[S]
        shrinking = direction < 0
        steps = np.where(shrinking, x[S] / np.where(shrinking, -direction, 1.0), np.inf)
        j = int(np.argmin(steps))
        x[S] = x[S] + steps[j] * direction
        x[S[j]] = 0.0
        x = np.clip(x, 0.0, None)
        free[S[j]] = False
    return OptimizeResult(x=x / x.sum(), fun=float(0.5 * x @ H @ x - b @ x), success=False,
                          nit=max_iter, message=f"max_iter={max_iter} reached")
