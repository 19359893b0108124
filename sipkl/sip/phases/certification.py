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

import numpy as np

from ...core.contracts import Column
from ...solvers import Status
from ..pricing.branch_and_bound import IntervalOracle
from ..pricing.space import ConstraintPrice, IndexPointPricing

#: index sets of at most this dimension are certified by default
CERTIFY_DIM = 3


def proved_violations(semi_infinite, scales, cut: float, exact: dict, deadline,
                      max_evals: int = 200_000):
    """Per constraint the proven bound on max_t g_j(x, t)/s_j at the variables' values
    (``exact``: the bounds already proved, by position), or the reason there is none:
    ``(bounds, reason)`` with ``reason`` ``None`` where every constraint has its bound. The
    searches stop once a bound exceeds ``cut`` (then the answer is not feasible to it) or
    at ``deadline`` (a :class:`~sipkl.sip.phases.reduction.Deadline`)."""
    oracle = IntervalOracle(max_evals)
    bounds = []
    for j, (sic, s) in enumerate(zip(semi_infinite, scales)):
        if j in exact:
            bounds.append(exact[j])
            continue
        if deadline():
            return bounds, "the time limit came first"
        x = sic.x_value()
        if sic.T.finite:  # every point: exact
            bounds.append(float(sic.values(x, sic.T.tensor_grid(2)).max()) / s)
            continue
        if sic.T.dim > CERTIFY_DIM:
            return bounds, (f"{sic.name!r} is indexed by a set of dimension {sic.T.dim} > "
                            f"{CERTIFY_DIM}, where interval proofs are not tried by default")
        reason = sic.interval_form(x)
        if reason is not None:
            return bounds, f"no interval bound of {sic.name!r}: {reason}"
        problem = IndexPointPricing(sic, ConstraintPrice(x, s))
        _, _, bound, done = oracle.branch_and_bound(problem, cut)
        bounds.append(bound)
        if not done:
            return bounds, (f"the interval branch and bound of {sic.name!r} reached "
                            f"max_evals = {max_evals} (bound {bound:.3g})")
        if bound > cut:
            return bounds, (f"the interval bound on {sic.name!r}, {bound:.3g} of its scale, "
                            f"exceeds the cut {cut:.3g}")
    return bounds, None


def relaxation(master, columns, points) -> float | None:
    """The value of the restricted master over ``columns`` and the rows of ``points`` (per
    constraint), a relaxation of the program; ``None`` where it is not solved to
    optimality. Solved at tight tolerances (:func:`~sipkl.solvers.cvx.solve_tightly`): its
    value is the bound. The variables and the master's scales keep their values."""
    values, state = [v.value for v in master.variables], master.get_state()
    extra = [Column.make(sic.T, t) for sic, ts in zip(master.semi_infinite, points)
             for t in np.atleast_2d(ts)]
    tight, master.tight = master.tight, True
    try:
        solution = master.solve(list(columns) + extra)
    finally:
        master.tight = tight
    value = solution.objective if solution.status is Status.OPTIMAL else None
    master.set_values(values)
    master.set_state(state)
    return value
