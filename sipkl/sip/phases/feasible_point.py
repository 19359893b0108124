"""A certified feasible point by restriction of the right-hand side: the other bound.

Every restricted master of the exchange method is a relaxation: for a convex program solved
to optimality its value is a lower bound on the optimum (an upper bound for a maximization).
A bound on the other side needs a point proved feasible. Following Mitsos (2011), "Global
optimization of semi-infinite programs via restriction of the right-hand side"
(Optimization 60:1291–1308; EAGO's SIPres), the discretized program is solved with its
right-hand sides restricted,

    min f(x)  s.t.  finite constraints,   g_j(x, t) ≤ −ε·s_j   for t ∈ T_j^(k),

(s_j the constraint's scale, ε relative), and its solution x̄ is checked by a global oracle
that proves max_t g_j(x̄, t) ≤ 0 on the whole of T_j (the branch and bound of
:mod:`~sipkl.sip.pricing.branch_and_bound`, with the stated Lipschitz constant, else with
interval arithmetic on g; a finite set is enumerated): then f(x̄) bounds the optimum from
the other side. A point violated at x̄ joins T_j^(k) and the restricted program is solved
again; an infeasible restriction is loosened (ε/10); a proved point tightens it (ε/10), until
the two bounds meet to the run's tolerance.

The feasible side is a proof (the oracle's bound, f evaluated at x̄); the relaxation's side
holds to the accuracy of the conic solver's answer (an interior-point optimum is optimal to
about 10⁻⁸ of the problem's scale), not to the last digit.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np

from ...solvers import Status, solve_cvxpy
from .certification import bounded
from .reduction import Deadline

#: restricted programs solved at most
MAX_ROUNDS = 20

#: the smallest restriction tried, relative to the constraints' scales
MIN_RESTRICTION = 1e-12

#: cells per proof by interval arithmetic at most: a restriction so small that its proof
#: needs more ends the rounds (the best point proved so far stands)
INTERVAL_CELLS = 20_000


def restricted_feasible_point(master, points, scales, lipschitz, relaxation: float,
                              objective_scale: float, tol: float, solvers,
                              deadline: Deadline):
    """The best point proved feasible by the rounds of the module docstring, or ``None``.

    ``points`` and ``scales`` are per constraint (the exchange method's index points and
    s_j), ``lipschitz`` the stated constants (per constraint: a number or ``L(x)``, or
    ``None``: interval arithmetic on g; unused over a finite set, which is enumerated),
    ``relaxation`` the exchange method's bound, ``tol`` the run's (relative) tolerance: the
    restriction starts at 100·tol and the rounds stop once |f(x̄) − relaxation| ≤
    tol·σ_f. ``deadline`` (a :class:`~sipkl.sip.phases.reduction.Deadline`) is checked before
    each restricted solve and each proof: past it the rounds end (``deadline.passed``).
    Returns ``(f(x̄), values of the variables)``.
    """
    restriction = 100.0 * tol
    points = [np.array(p, dtype=float) for p in points]
    best = None
    for _ in range(MAX_ROUNDS):
        if restriction < MIN_RESTRICTION or deadline():
            break
        imposed = [(e + restriction * s) / s <= 0 for sic, ts, s in
                   zip(master.semi_infinite, points, scales) if len(ts)
                   for e in sic.expressions(ts)]
        sense = type(master.objective)
        problem = cp.Problem(sense(master.objective.expr / objective_scale),
                             master.constraints + imposed)
        status, _ = solve_cvxpy(problem, solvers, warn=False)
        if status is Status.INFEASIBLE:
            restriction /= 10.0
            continue
        if status is not Status.OPTIMAL or deadline():
            break
        proved, violated = _certify(master, points, scales, lipschitz)
        if violated is None:  # the search ran out of evaluations: no proof at this ε
            break
        if not proved:
            points = [np.vstack([p, v]) for p, v in zip(points, violated)]
            continue
        value = float(master.objective.expr.value)  # f at x̄ itself, not the solver's value
        if best is None or _better(value, best[0], sense):
            best = (value, [v.value for v in master.variables])
        if abs(value - relaxation) <= tol * objective_scale:
            break
        restriction /= 10.0
    return best


def _certify(master, points, scales, lipschitz):
    """Whether every constraint is proved ≤ 0 on its whole index set at the variables'
    values (:func:`~sipkl.sip.phases.certification.bounded`), and per constraint its most
    violated point found (an empty array where none); ``(False, None)`` where a search ran
    out of evaluations or g has no interval form."""
    proved, violated = True, []
    for sic, s, L in zip(master.semi_infinite, scales, lipschitz):
        found, values, bound, reason = bounded(sic, s, 0.0, L, INTERVAL_CELLS)
        if reason is not None:
            return False, None
        proved &= bound <= 0.0
        violated.append(found[values > 0.0][np.argsort(-values[values > 0.0])[:1]])
    return proved, violated


def _better(value: float, incumbent: float, sense) -> bool:
    return value < incumbent if sense is cp.Minimize else value > incumbent
