"""Multi-start maximization of a smooth function over a box.

IPOPT (through cyipopt, limited-memory Hessian) is the default back-end; SciPy's L-BFGS-B
serves when cyipopt cannot be imported or a start fails in IPOPT. Every such fallback is
recorded in the result, never silent.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np
from scipy.optimize import OptimizeResult, minimize

from .status import Attempt, Status

try:  # pragma: no cover - exercised through the `ipopt_available` flag
    from cyipopt import minimize_ipopt as _minimize_ipopt
    IPOPT_IMPORT_ERROR = None
except Exception as exc:  # ImportError, or a broken shared library
    _minimize_ipopt = None
    IPOPT_IMPORT_ERROR = f"{type(exc).__name__}: {exc}"

ipopt_available = _minimize_ipopt is not None

# IPOPT's return codes (``status`` of cyipopt's result) that leave a usable point.
_IPOPT_OK = {0: Status.OPTIMAL, 1: Status.OPTIMAL_INACCURATE,  # solved / acceptable level
             -1: Status.ITERATION_LIMIT, -4: Status.ITERATION_LIMIT}


def maximize_box(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], starts: np.ndarray,
                 lower: np.ndarray, upper: np.ndarray, *, method: str = "ipopt",
                 tol: float = 1e-8, max_iter: int = 100) -> OptimizeResult:
    """Maximize ``fun`` over the box ``[lower, upper]`` from each row of ``starts``.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)`` of the function to *maximize*.
    starts : array (n_starts, n_params)
        Starting points; they are clipped into the box.
    method : {"ipopt", "lbfgsb"}
        Back-end. ``"ipopt"`` falls back to L-BFGS-B per start when IPOPT is missing or
        fails; each fallback is an :class:`~solvers.status.Attempt` in ``result.attempts``.

    Returns
    -------
    OptimizeResult with ``x`` (local maximizers, one row per start, best first), ``fun``
    (their values), ``statuses``, ``nfev`` (function evaluations in all), ``attempts``
    (one per start, naming the back-end that produced it) and ``status`` (the best start's).
    """
    if method not in ("ipopt", "lbfgsb"):
        raise ValueError(f"method must be 'ipopt' or 'lbfgsb', got {method!r}")
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    starts = np.clip(np.atleast_2d(np.asarray(starts, dtype=float)), lower, upper)
    bounds = list(zip(lower, upper))
    nfev = 0

    def negated(x):
        nonlocal nfev
        nfev += 1
        value, grad = fun(np.clip(x, lower, upper))  # IPOPT may step 1e-8 outside the box
        return -value, -np.asarray(grad, dtype=float)

    xs, values, statuses, attempts = [], [], [], []
    for x0 in starts:
        t0 = time.perf_counter()
        res, status, solver, message = None, Status.SOLVER_ERROR, "ipopt", ""
        if method == "ipopt" and ipopt_available:
            try:
                res = _minimize_ipopt(negated, x0, jac=True, bounds=bounds,
                                      options=_ipopt_options(negated, x0, lower, upper, tol,
                                                             max_iter))
                status = _IPOPT_OK.get(int(res.status), Status.SOLVER_ERROR)
                message = str(res.message)
            except Exception as exc:  # an exception raised inside a callback lands here
                message = f"{type(exc).__name__}: {exc}"
        elif method == "ipopt":
            message = f"cyipopt unavailable ({IPOPT_IMPORT_ERROR})"
        if method == "lbfgsb" or not status.usable:
            if method == "ipopt":
                attempts.append(Attempt("ipopt", status, message, time.perf_counter() - t0))
            res = minimize(negated, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                           options={"maxiter": max_iter, "ftol": 1e-3 * tol, "gtol": 1e-3 * tol})
            solver = "lbfgsb"
            status = Status.OPTIMAL if res.success else Status.ITERATION_LIMIT
            message = str(res.message)
        attempts.append(Attempt(solver, status, message, time.perf_counter() - t0))
        xs.append(np.clip(np.asarray(res.x, dtype=float), lower, upper))
        values.append(-float(res.fun))
        statuses.append(status)
    order = np.argsort(values)[::-1]
    return OptimizeResult(x=np.array(xs)[order], fun=np.array(values)[order],
                          statuses=[statuses[i] for i in order], nfev=nfev,
                          attempts=attempts, status=statuses[order[0]])


def _ipopt_options(negated, x0, lower, upper, tol, max_iter) -> dict:
    """IPOPT options for a bound-constrained local search that stays near its start.

    Three defaults of IPOPT send a start far away on functions with plateaus (such as
    kernel prices, flat where K(θ) ≈ I): the barrier parameter (``mu_init = 0.1``, absolute)
    can outweigh a small objective and pull variables towards the middle of the box, so
    that a step making the objective worse is accepted; ``bound_push`` moves starts off
    their bounds; and the first limited-memory step is the raw gradient. We scale the
    objective to order one at the start, keep the barrier small, and make the first step
    a tenth of the start's size.
    """
    value, grad = negated(x0)
    width = float(np.min(upper - lower)) if np.all(np.isfinite(upper - lower)) else 1.0
    typical = max(float(np.max(np.abs(x0))), 1e-3 * width, 1e-8)
    gmax = float(np.max(np.abs(grad)))
    scale = 1.0 / max(abs(float(value)), gmax * typical, 1e-300)
    return {"hessian_approximation": "limited-memory", "obj_scaling_factor": scale,
            "nlp_scaling_method": "none",
            "limited_memory_init_val": float(max(scale * gmax / (0.1 * typical), 1e-8)),
            "mu_strategy": "monotone", "mu_init": 1e-6, "bound_push": 1e-8, "bound_frac": 1e-8,
            "print_level": 0, "sb": "yes", "tol": tol, "max_iter": max_iter}
