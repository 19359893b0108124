"""A certificate at the returned answer without a constant from the user.

A run of the exchange method with a local search (and the local reduction after it) ends at
an x whose largest violation was found, not proved. This phase proves it: for every
semi-infinite constraint over a box, the branch and bound of
:class:`~sipkl.sip.pricing.branch_and_bound.IntervalOracle` (interval arithmetic on g, no
Lipschitz constant) bounds max_t g_j(x, t)/s_j; a finite set is enumerated; a constraint
priced exactly (g affine in t) carries the bound of its support function. Where every bound
is at most the run's cut ``tol + atol``, x is feasible to the cut — proved.

The other half is a lower bound (for a minimization): the restricted master over the
exchange method's index points and the returned x's active points (the reduction's
maximizers) is a relaxation of the program, solved here once; where f(x) lies within
``tol·σ_f`` of it (σ_f the objective's scale), x is optimal to the tolerance, both sides
proved: ``certified_optimal``. The relaxation holds to the conic solver's accuracy (solved
at tight tolerances here), as every relaxation of the exchange method does.
"""
from __future__ import annotations

import cvxpy as cp

from ...solvers import Status
from ..pricing.branch_and_bound import IntervalOracle, LipschitzOracle
from ..pricing.space import ConstraintPrice, IndexPointPricing

#: index sets of at most this dimension are certified by default
CERTIFY_DIM = 3


def bounded(sic, scale: float, cut: float, lipschitz=None, interval_cells: int = None):
    """t ↦ g(x, t)/s over the whole index set of ``sic`` at its variables' values, proved:
    ``(points, values, bound, reason)`` — the points evaluated, their values g/s, the proven
    bound on the maximum, and ``None``, or why ``bound`` is no proof. A finite set is
    enumerated; a box is searched by the branch and bound to ``cut``
    (:meth:`~sipkl.sip.pricing.branch_and_bound.BranchAndBoundOracle.branch_and_bound`):
    with ``lipschitz`` (a number or ``L(x)``) by
    :class:`~sipkl.sip.pricing.branch_and_bound.LipschitzOracle`, else by
    :class:`~sipkl.sip.pricing.branch_and_bound.IntervalOracle` (``interval_cells``: its
    ``max_evals``; default its own),
    where g has an interval form (else the reason, and no points)."""
    x = sic.x_value()
    if sic.T.finite:  # every point: exact
        points = sic.T.tensor_grid(2)
        values = sic.values(x, points) / scale
        return points, values, float(values.max()), None
    if lipschitz is None:
        reason = sic.interval_form(x)
        if reason is not None:
            return None, None, None, f"no interval bound of {sic.name!r}: {reason}"
        oracle = IntervalOracle() if interval_cells is None else IntervalOracle(interval_cells)
        constant = None
    else:
        oracle = LipschitzOracle()
        constant = float(lipschitz(x) if callable(lipschitz) else lipschitz)
    problem = IndexPointPricing(sic, ConstraintPrice(x, scale), constant)
    points, values, bound, done = oracle.branch_and_bound(problem, cut)
    reason = None if done else (f"the {oracle.name} branch and bound of {sic.name!r} "
                                f"reached max_evals = {oracle.max_evals} (bound {bound:.3g})")
    return points, values, bound, reason


def proved_violations(semi_infinite, scales, cut: float, exact: dict, deadline):
    """Per constraint the proven bound on max_t g_j(x, t)/s_j at the variables' values
    (``exact``: the bounds already proved, by position; the others by :func:`bounded`), or
    the reason there is none: ``(bounds, reason)`` with ``reason`` ``None`` where every
    constraint has its bound. The searches stop once a bound exceeds ``cut`` (then the
    answer is not feasible to it) or at ``deadline`` (a
    :class:`~sipkl.sip.phases.reduction.Deadline`)."""
    bounds = []
    for j, (sic, s) in enumerate(zip(semi_infinite, scales)):
        if j in exact:
            bounds.append(exact[j])
            continue
        if deadline():
            return bounds, "the time limit came first"
        if not sic.T.finite and sic.T.dim > CERTIFY_DIM:
            return bounds, (f"{sic.name!r} is indexed by a set of dimension {sic.T.dim} > "
                            f"{CERTIFY_DIM}, where interval proofs are not tried by default")
        _, _, bound, reason = bounded(sic, s, cut)
        if reason is not None:
            return bounds, reason
        bounds.append(bound)
        if bound > cut:
            return bounds, (f"the interval bound on {sic.name!r}, {bound:.3g} of its scale, "
                            f"exceeds the cut {cut:.3g}")
    return bounds, None


def relaxation(master, columns) -> float | None:
    """The value of the restricted master over ``columns``, a relaxation of the program;
    ``None`` where it is not solved to optimality. Solved at tight tolerances
    (:func:`~sipkl.solvers.cvx.solve_tightly`): its value is the bound (a mixed-integer
    master's: less its gap). The variables and
    the master's scales keep their values."""
    values, state = [v.value for v in master.variables], master.get_state()
    tight, master.tight = master.tight, True
    try:
        solution = master.solve(columns)
    finally:
        master.tight = tight
    value = solution.objective if solution.status is Status.OPTIMAL else None
    if value is not None and master.integer:  # the bound its solver proved
        value -= (1.0 if isinstance(master.objective, cp.Minimize) else -1.0) * solution.gap
    master.set_values(values)
    master.set_state(state)
    return value
