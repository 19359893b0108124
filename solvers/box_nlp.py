"""Multi-start maximization of a smooth function over a box.

IPOPT (through cyipopt, limited-memory Hessian) is the default back-end; SciPy's L-BFGS-B
serves when cyipopt cannot be imported or a start fails in IPOPT. Every such fallback is
recorded in the result, never silent. :func:`ascend_box` (projected gradient) and
:func:`newton_box` (projected Newton) move all starts at once, for functions that evaluate
many points in one call.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

import numpy as np
from scipy.optimize import OptimizeResult, minimize

from . import ipopt
from .status import Attempt, Status


def maximize_box(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], starts: np.ndarray,
                 lower: np.ndarray, upper: np.ndarray, *, method: str = "ipopt",
                 tol: float = 1e-8, max_iter: int = 100,
                 value_scale: float = None, relative: bool = False,
                 deadline: float = None) -> OptimizeResult:
    """Maximize ``fun`` over the box ``[lower, upper]`` from each row of ``starts``.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)`` of the function to *maximize*.
    starts : array (n_starts, n_params)
        Starting points; they are clipped into the box.
    method : {"ipopt", "lbfgsb"}
        Back-end. ``"ipopt"`` falls back to L-BFGS-B per start when IPOPT is missing or
        fails; each fallback is an :class:`~sipkl.solvers.status.Attempt` in ``result.attempts``.
    value_scale : float, optional
        The magnitude of the numbers ``fun`` compares, when it is known (IPOPT scales the
        objective by it). Default: |fun| at the start, which misleads when the value is
        a difference of larger terms that nearly cancel (a violation near 0): the scaled
        objective is then round-off, and IPOPT spends its iterations on it.
    relative : bool
        The first step is sized by the start alone, not by the box (see :func:`ascend_box`).
    deadline : float, optional
        A ``time.perf_counter()`` instant: IPOPT's wall-time limit (``max_wall_time``; at
        least a millisecond per start), past which it returns its current point, status
        ``iteration_limit``.

    Returns
    -------
    OptimizeResult with ``x`` (local maximizers, one row per start, best first), ``fun``
    (their values), ``statuses``, ``nfev`` (function evaluations in all), ``attempts``
    (one per start, naming the back-end that produced it) and ``status`` (the best start's).
    Where a solver ends more than ``tol`` (relative) below a point it evaluated, that
    point is returned instead, with status ``optimal_inaccurate`` where the solver's was
    ``optimal`` (its optimality conditions held where it ended, not there): IPOPT's barrier
    can lead it downhill from a start near a bound (the scales of raw MNIST pixels sit near
    0: from a price of 191 to one of 0).
    """
    if method not in ("ipopt", "lbfgsb"):
        raise ValueError(f"method must be 'ipopt' or 'lbfgsb', got {method!r}")
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    starts = np.clip(np.atleast_2d(np.asarray(starts, dtype=float)), lower, upper)
    bounds = list(zip(lower, upper))
    nfev = 0

    best = {}  # the best point evaluated from the current start

    def negated(x):
        nonlocal nfev
        nfev += 1
        x = np.clip(x, lower, upper)  # IPOPT may step 1e-8 outside the box
        value, grad = fun(x)
        if value > best.get("fun", -np.inf):
            best.update(fun=float(value), x=x)
        return -value, -np.asarray(grad, dtype=float)

    xs, values, statuses, attempts = [], [], [], []
    for x0 in starts:
        best.clear()
        t0 = time.perf_counter()
        res, status, solver, message = None, Status.SOLVER_ERROR, "ipopt", ""
        if method == "ipopt" and ipopt.available:
            try:
                options = _ipopt_options(negated, x0, lower, upper, tol, max_iter,
                                         value_scale, relative)
                if deadline is not None:
                    options["max_wall_time"] = max(deadline - time.perf_counter(), 1e-3)
                res = ipopt.minimize_ipopt(negated, x0, jac=True, bounds=bounds,
                                           options=options)
                # a search direction too small is a failed start here: L-BFGS-B retries it
                status = ipopt.status(res.status, small_direction=False)
                message = str(res.message)
            except Exception as exc:  # an exception raised inside a callback lands here
                message = f"{type(exc).__name__}: {exc}"
        elif method == "ipopt":
            message = ipopt.unavailable()
        if method == "lbfgsb" or not status.usable:
            if method == "ipopt":
                attempts.append(Attempt("ipopt", status, message, time.perf_counter() - t0))
            res = minimize(negated, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                           options={"maxiter": max_iter, "ftol": 1e-3 * tol, "gtol": 1e-3 * tol})
            solver = "lbfgsb"
            status = Status.OPTIMAL if res.success else Status.ITERATION_LIMIT
            message = str(res.message)
        x, value = np.clip(np.asarray(res.x, dtype=float), lower, upper), -float(res.fun)
        if best and best["fun"] - value > tol * abs(best["fun"]):
            # the solver's optimality conditions were met where it ended, not at this point
            message += (f"; ended at {value:.6g}, below the {best['fun']:.6g} of a point it "
                        "evaluated: that point is returned")
            x, value = best["x"], best["fun"]
            if status is Status.OPTIMAL:
                status = Status.OPTIMAL_INACCURATE
        attempts.append(Attempt(solver, status, message, time.perf_counter() - t0))
        xs.append(x)
        values.append(value)
        statuses.append(status)
    order = np.argsort(values)[::-1]
    return OptimizeResult(x=np.array(xs)[order], fun=np.array(values)[order],
                          statuses=[statuses[i] for i in order], nfev=nfev,
                          attempts=attempts, status=statuses[order[0]])


def _start_size(x, lower, upper, relative: bool = False) -> np.ndarray:
    """The size of each start (rows of ``x``) that scales its first step: its largest
    |coordinate|, at least 10⁻³ of the box's narrowest width (1 for an unbounded box) and
    10⁻⁸. ``relative=True`` (coordinates that are scales, see :func:`ascend_box`): the
    largest |coordinate| alone, that floor only for a start at 0."""
    width = float(np.min(upper - lower)) if np.all(np.isfinite(upper - lower)) else 1.0
    size = np.abs(np.atleast_2d(x)).max(1)
    floor = max(1e-3 * width, 1e-8)
    return np.where(size > 0, size, floor) if relative else np.maximum(size, floor)


def _ipopt_options(negated, x0, lower, upper, tol, max_iter, value_scale=None,
                   relative=False) -> dict:
    """IPOPT options for a bound-constrained local search that stays near its start.

    Three defaults of IPOPT send a start far away on functions with plateaus (such as
    kernel prices, flat where K(θ) ≈ I): the barrier parameter (``mu_init = 0.1``, absolute)
    can outweigh a small objective and pull variables towards the middle of the box, so
    that a step making the objective worse is accepted; ``bound_push`` moves starts off
    their bounds; and the first limited-memory step is the raw gradient. We scale the
    objective to order one at the start, keep the barrier small, and make the first step
    a tenth of the start's size. The objective's magnitude is ``value_scale`` when given,
    else |value| at the start (or the gradient times the start's size, when larger).
    """
    value, grad = negated(x0)
    typical = float(_start_size(x0, lower, upper, relative)[0])
    gmax = float(np.max(np.abs(grad)))
    magnitude = abs(float(value)) if value_scale is None else value_scale
    scale = 1.0 / max(magnitude, gmax * typical, 1e-300)
    return {"hessian_approximation": "limited-memory", "obj_scaling_factor": scale,
            "nlp_scaling_method": "none",
            "limited_memory_init_val": float(max(scale * gmax / (0.1 * typical), 1e-8)),
            "mu_strategy": "monotone", "mu_init": 1e-6, "bound_push": 1e-8, "bound_frac": 1e-8,
            "print_level": 0, "sb": "yes", "tol": tol, "max_iter": max_iter}


def ascend_box(fun: Callable[[np.ndarray], tuple], starts: np.ndarray,
               lower: np.ndarray, upper: np.ndarray, *, tol: float = 1e-5,
               max_iter: int = 100, window: Optional[int] = None,
               relative: bool = False,
               stop: Optional[Callable[[np.ndarray, np.ndarray], bool]] = None
               ) -> OptimizeResult:
    """Maximize ``fun`` over the box ``[lower, upper]`` from all rows of ``starts`` at once.

    ``fun(X) -> (values, gradients)`` evaluates the rows of ``X`` (S × p) in one call. Each
    start follows the projected gradient ascent (Birgin, Martínez & Raydan's spectral
    projected gradient, monotone variant)

        x⁺ = P(x + a g),   accepted when f(x⁺) ≥ f(x) + 10⁻⁴ gᵀ(x⁺ − x), else a ← a/4,

    with the Barzilai–Borwein step a = sᵀs / (−sᵀu) (s = x⁺ − x, u = g⁺ − g) after an
    accepted step; the first step moves by a tenth of the start's size (as in
    :func:`maximize_box`). Where ``fun`` also returns the diagonals h of the Hessians,
    ``(values, gradients, curvatures)``, the direction is the diagonal Newton step instead,

        x⁺ = P(x + t d),   d_i = g_i / |h_i| clipped to ± 10 times the row's size,

    with t = 1, divided by 4 after a rejected step and multiplied by 4 (up to 1) after an
    accepted one. The size is the row's largest |coordinate| (:func:`_start_size`): a
    coordinate along which f is nearly linear (h_i ≈ 0) is not sent to the box's far side.
    The step is invariant to the scale of each coordinate, where the gradient's is not: the
    scales of ARD kernels (signal and noise dimensions) differ by orders of magnitude. A
    start stops when ``window`` accepted steps in a row (default 5 for Barzilai–Borwein
    steps, which can gain little singly far from a maximum, 3 for diagonal Newton steps)
    raised f by at most ``tol·|f|`` in all, when its step has shrunk below round-off, or,
    with diagonal Newton steps, when the model's gain of the whole step, gᵀ(P(x + d) − x),
    is at most ``tol·|f| / 10`` (as :func:`newton_box` stops; a start at its maximum
    otherwise has its steps rejected, f being flat to round-off there, some 20 times before
    they shrink below it: on W2's recorded rounds that was 8–11 % of the pricing time); one
    function call per iteration serves all starts still moving.

    ``relative=True`` is for coordinates that are scales (kernel parameters: θ ≥ 0 in the
    units of the data, inside a box that is not their size, such as the default (0, 900) of
    the Gaussians on raw pixels, where useful θ are ~10⁻⁷): the first step is a tenth of the
    start's own largest |coordinate|, so that the run does not depend on a box it does not
    touch. Sized by the box, that step jumped from θ ~ 10⁻⁷ to the plateau K(θ) ≈ I.

    ``stop(x, f) -> bool``, where given, sees all current points and their values after the
    first evaluation and after each iteration; the ascent ends as soon as it returns
    ``True`` (e.g. once some point reaches a target value).

    Returns
    -------
    OptimizeResult with ``x`` (one row per start, best first), ``fun`` (their values, each
    evaluated at its returned point), ``converged`` (per row: stopped by the rule above
    rather than by ``max_iter`` or ``stop``), ``order`` (per row: its start's row in
    ``starts``), ``nit`` and ``nfev`` (points evaluated in all).
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    x = np.clip(np.atleast_2d(np.asarray(starts, dtype=float)), lower, upper)
    f, g, *h = fun(x)
    h = h[0] if h else None  # curvatures: diagonal Newton steps
    window = window or (5 if h is None else 3)
    nfev = len(x)
    typical = _start_size(x, lower, upper, relative)
    a = 0.1 * typical / np.maximum(np.abs(g).max(1), 1e-300) if h is None else np.ones(len(x))
    moving = np.ones(len(x), dtype=bool)
    f_ref, since = f.copy(), np.zeros(len(x), dtype=int)  # f `since` iterations ago
    nit = 0
    stopped = stop is not None and stop(x, f)
    while moving.any() and nit < max_iter and not stopped:
        nit += 1
        k = np.flatnonzero(moving)
        direction = g[k] if h is None else _diagonal_newton(g[k], h[k], 10.0 * _start_size(
            x[k], lower, upper, relative))
        if h is not None:  # the model's gain of the whole step below tol·|f| / 10: converged
            gain = np.einsum("ij,ij->i", g[k], np.clip(x[k] + direction, lower, upper) - x[k])
            flat = gain <= 0.1 * tol * np.abs(f[k])
            moving[k[flat]] = False
            k, direction = k[~flat], direction[~flat]
            if not k.size:
                break
        trial = np.clip(x[k] + a[k, None] * direction, lower, upper)
        step = trial - x[k]
        ft, gt, *ht = fun(trial)
        nfev += len(k)
        slope = np.einsum("ij,ij->i", g[k], step)
        accept = ft >= f[k] + 1e-4 * slope
        tiny = np.abs(step).max(1) <= 1e-14 * (np.abs(x[k]).max(1) + typical[k])
        since[k] += accept
        checked = accept & (since[k] >= window)
        done = (checked & (ft - f_ref[k] <= tol * np.abs(ft))) | (~accept & tiny)
        f_ref[k[checked]], since[k[checked]] = ft[checked], 0
        if h is None:
            curvature = -np.einsum("ij,ij->i", step, gt - g[k])
            a[k] = np.where(accept, np.where(
                curvature > 0, np.einsum("ij,ij->i", step, step)
                / np.where(curvature > 0, curvature, 1.0), 4.0 * a[k]), 0.25 * a[k])
        else:
            a[k] = np.where(accept, np.minimum(4.0 * a[k], 1.0), 0.25 * a[k])
            h[k[accept]] = ht[0][accept]
        ka = k[accept]
        x[ka], f[ka], g[ka] = trial[accept], ft[accept], gt[accept]
        moving[k[done]] = False
        stopped = stop is not None and stop(x, f)
    order = np.argsort(f)[::-1]
    return OptimizeResult(x=x[order], fun=f[order], converged=~moving[order], nit=nit,
                          nfev=nfev, order=order)


def _diagonal_newton(g, h, size) -> np.ndarray:
    """Rows g_d / |h_d|, each coordinate clipped to ± its row's ``size`` (see
    :func:`ascend_box`; a coordinate with h_d = 0 takes the full ± size)."""
    step = g / np.maximum(np.abs(h), 1e-300)
    return np.clip(step, -size[:, None], size[:, None])


def newton_box(fun: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
               hessians: Callable[[np.ndarray], np.ndarray], starts: np.ndarray,
               lower: np.ndarray, upper: np.ndarray, *, tol: float = 1e-8,
               max_iter: int = 30, max_backtracks: int = 10,
               relative: bool = False,
               stop: Optional[Callable[[np.ndarray, np.ndarray], bool]] = None
               ) -> OptimizeResult:
    """Maximize ``fun`` over the box ``[lower, upper]`` from all rows of ``starts`` at once,
    by projected Newton steps (Bertsekas, "Projected Newton methods for optimization problems
    with simple constraints", SIAM J. Control Optim. 20, 1982).

    ``fun(X, grad=True) -> (values, gradients)`` evaluates the rows of ``X`` in one call
    (``grad=False``: values only, gradients ``None``; the backtracked step lengths are tried
    with their gradients, which an accepted step keeps, the longer ones on values),
    and ``hessians(X, coords) -> (S, q, q)`` their Hessians restricted to the coordinates
    ``coords`` (the union of the rows' free sets: often few, where many coordinates sit at a
    bound). At x with gradient g and Hessian H, the coordinates within ε = 10⁻⁶ of the box's
    width of a bound whose gradient points out of the box (the ε-active set) step onto that
    bound; on the free set F the direction solves ``B d_F = g_F`` with B = −H_FF whose
    eigenvalues λ are replaced by ``max(|λ|, 10⁻⁸ max|λ|)`` (an ascent direction where f is
    not concave; the Newton step where it is). The step follows the projected arc
    ``x(a) = P(x + a d)``, a = 1, 1/4, …, accepted when ``f(x(a)) ≥ f(x) + 10⁻⁴ gᵀ(x(a) − x)``;
    where the full step gains more than 1.1 times the model's gain ½ gᵀd, and did so at the
    iteration before, a = 4, 16, … are tried after it and the arc followed while f grows
    (Newton steps on f = c − exp(−θδ) as θ grows, the price of a Gaussian scale whose best
    value is the box's top, gain 1.26 times the model's and each shrink the gap by e⁻¹ only:
    20 steps to a relative 10⁻⁸). A start has converged when the model's gain gᵀd or an
    accepted step's gain is at most ``tol·|f|``; it stops unconverged when no step length of
    ``max_backtracks`` was accepted (where the model misleads: a case for a more careful
    local solver). Every rule is invariant to the scale of f, and of x with its box; the
    Hessians may be approximate (e.g. single precision): only ``fun``'s values decide.
    ``relative=True`` (coordinates that are scales, as in :func:`ascend_box`): ε is 10⁻⁶ of
    the row's largest |coordinate| instead
    of the box's width, and the run is also invariant to a box it does not touch.
    ``stop(x, f)``, where given, ends the run as in :func:`ascend_box` (checked after the
    first evaluation and after each iteration).

    Returns
    -------
    OptimizeResult with ``x`` (one row per start, best first), ``fun`` (their values),
    ``converged`` (per row: stopped by the gain rule, not by ``max_iter`` or a failed line
    search), ``order`` (per row: its start's row in ``starts``), ``nit`` and ``nfev``
    (points evaluated in all, Hessians not counted).
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    x = np.clip(np.atleast_2d(np.asarray(starts, dtype=float)), lower, upper)
    f, g = fun(x)
    nfev = len(x)
    moving = np.ones(len(x), dtype=bool)
    converged = np.zeros(len(x), dtype=bool)
    underestimated = np.zeros(len(x), dtype=bool)  # the last full step gained > 1.1× the model
    nit = 0
    while moving.any() and nit < max_iter and not (stop is not None and stop(x, f)):
        nit += 1
        k = np.flatnonzero(moving)
        direction = _newton_directions(hessians, x[k], g[k], lower, upper, relative)
        # the model's own gain estimate gᵀd below the tolerance: converged, no search
        gain = np.einsum("ij,ij->i", g[k], direction)
        flat = gain <= tol * np.abs(f[k])
        converged[k[flat]], moving[k[flat]] = True, False
        k, direction, gain = k[~flat], direction[~flat], gain[~flat]
        a = np.ones(len(k))
        searching = np.ones(len(k), dtype=bool)
        x_old, f_old = x[k], f[k]
        for _ in range(max_backtracks):  # one batched evaluation per step length
            j = np.flatnonzero(searching)
            if not len(j):
                break
            trial = np.clip(x_old[j] + a[j, None] * direction[j], lower, upper)
            ft, gt = fun(trial)  # the gradient too: most first steps are accepted
            nfev += len(j)
            ok = ft >= f_old[j] + 1e-4 * np.einsum("ij,ij->i", g[k[j]], trial - x_old[j])
            x[k[j[ok]]], f[k[j[ok]]], g[k[j[ok]]] = trial[ok], ft[ok], gt[ok]
            searching[j[ok]] = False
            a[j[~ok]] *= 0.25
        # the full step gained over 1.1 times the model's ½ gᵀd, as did the one before: f is
        # flatter ahead than the model says (e.g. exp(−θδ) as θ grows, where Newton steps
        # shrink the gap only by e⁻¹ each); longer steps (a = 4, 16, …) while they gain
        flatter = ~searching & (a == 1.0) & (f[k] - f_old > 0.55 * gain)
        grow = np.flatnonzero(flatter & underestimated[k])
        underestimated[k] = flatter
        longer = np.zeros(len(k), dtype=bool)  # moved by a longer step: gradient not known
        for _ in range(max_backtracks):
            if not len(grow):
                break
            a[grow] *= 4.0
            trial = np.clip(x_old[grow] + a[grow, None] * direction[grow], lower, upper)
            ft, _ = fun(trial, grad=False)
            nfev += len(grow)
            better = (ft > f[k[grow]]) & np.any(trial != x[k[grow]], axis=1)
            x[k[grow[better]]], f[k[grow[better]]] = trial[better], ft[better]
            longer[grow[better]] = True
            grow = grow[better]
        if longer.any():
            f[k[longer]], g[k[longer]] = fun(x[k[longer]])
            nfev += int(longer.sum())
        flat = ~searching & (f[k] - f_old <= tol * np.abs(f[k]))
        converged[k[flat]] = True
        moving[k[searching | flat]] = False
    order = np.argsort(f)[::-1]
    return OptimizeResult(x=x[order], fun=f[order], converged=converged[order], nit=nit,
                          nfev=nfev, order=order)


def _newton_directions(hessians, x, g, lower, upper, relative=False) -> np.ndarray:
    """Projected Newton ascent directions (rows) at the rows of ``x`` with gradients ``g``.

    The ε-active set (Bertsekas 1982) — coordinates within ε = 10⁻⁶ of the box's width
    (``relative``: of the row's size, :func:`_start_size`) of a bound, their gradient
    pointing out — moves straight to that bound (the projected step of
    length 1 lands on it); the other coordinates take the modified Newton direction (see
    :func:`newton_box`), with Hessians evaluated on the union of the free sets only."""
    eps = 1e-6 * _start_size(x, lower, upper, True)[:, None] if relative else np.where(
        np.isfinite(upper - lower), 1e-6 * (upper - lower), 0.0)
    to_lower = (x - lower <= eps) & (g < 0)
    to_upper = (upper - x <= eps) & (g > 0)
    free = ~(to_lower | to_upper)
    direction = np.where(to_lower, lower - x, np.where(to_upper, upper - x, 0.0))
    coords = np.flatnonzero(free.any(0))
    if not len(coords):
        return direction
    free = free[:, coords]
    B = -np.asarray(hessians(x, coords), dtype=float) * (free[:, :, None] & free[:, None, :])
    # held coordinates get a decoupled eigenvalue of B's size (their gradient entry is 0)
    size = np.abs(B).max((1, 2), initial=0.0)
    B[:, np.arange(len(coords)), np.arange(len(coords))] += ~free * np.where(
        size > 0, size, 1.0)[:, None]
    lam, V = np.linalg.eigh(B)
    lam = np.maximum(np.abs(lam), np.maximum(1e-8 * np.abs(lam).max(1, keepdims=True), 1e-300))
    gf = np.where(free, g[:, coords], 0.0)
    newton = np.einsum("sij,sj->si", V, np.einsum("sji,sj->si", V, gf) / lam)
    direction[:, coords] = np.where(free, newton, direction[:, coords])
    return direction
