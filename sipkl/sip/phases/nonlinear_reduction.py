"""The local reduction phase of a smooth, possibly non-convex semi-infinite program: the last
digits by one NLP solve of the reduced problem itself.

Near a local solution x* whose active index points t_i are nondegenerate local maxima of
t ↦ g_j(x*, t) over T_j, the program is locally the finite one (Hettich & Kortanek
1993, §7, eq. (7.2); Reemtsen & Görner 1998, §4)

    min f(x)   s.t.  c_k(x) ≤ 0,   φ_i(x) = g_j(x, t_i(x)) ≤ 0,

t_i(x) the local maximizer of g_j(x, ·) near t_i, a smooth function of x. The exchange
method imposes g_j(x, t) at fixed points and converges to this only linearly, stopping when
the violation is below ``tol`` of the constraint's scale s_j (which, where the terms of g
are large beside f, can leave f wrong in its third digit). Here the master's NLP back-ends
(:func:`~sipkl.solvers.nlp.minimize_nlp`) solve the reduced problem directly: at every x they
ask for, each φ_i is evaluated by a climb in t from the fixed point t_i
(:func:`~sipkl.sip.pricing.faces.climb`: projected Newton steps on a box, the set's search and
Newton steps on the active face elsewhere; the same start at every x, so φ_i is a function of
x alone), and its gradient is the envelope theorem's (Danskin)

    ∇φ_i(x) = ∇ₓ g_j(x, t_i(x)),

exact at a maximizer whether it lies inside T_j or on a face. The back-end's quasi-Newton
Hessian sees the curvature of φ_i, the coupling ∇²ₓₜ g (∇²ₜₜ g)⁻¹ ∇²ₜₓ g included, so the
solve converges to the reduced problem's KKT point to the back-end's tolerance (10⁻¹⁰).

Each constraint is divided by u_j = min(s_j, σ_f/M_j) (M_j its total multiplier, σ_f the
objective's scale): a violation v of g_j moves f by about M_j·v, so the back-end's
feasibility tolerance is one on the objective. The exchange method's other index points
stay imposed as plain constraints (but those within ``NEAR_RTOL`` of a maximizer, which
would duplicate it). After each solve every index set is searched at the new x
(:func:`~sipkl.sip.phases.reduction.checked_points`); maximizers above the
exchange method's cut join the next solve. The reduced answer is kept only where the last
check finds no relative violation above the cut and its objective is not above the exchange
method's by more than the cut allows (``len(constraints)·cut·σ_f``: a higher value is another
point, not a correction); else the exchange method's answer stands. A solve that ends at its
iteration limit is not used.
"""
from __future__ import annotations

import numpy as np

from ...solvers import Status
from ...solvers.nlp import active_multipliers, minimize_nlp
from ..masters.nonlinear import ScaledProgram
from ..masters.scales import objective_units
from ..pricing.space import ConstraintPrice
from .reduction import MAX_ROUNDS, NEAR_RTOL, Deadline, active_mask, checked_points, climbed_maxima

#: the back-ends' iteration limit in a solve (it starts near a solution: where the reduced
#: problem is well posed IPOPT needs tens of iterations; a solve that reaches the limit is
#: not used)
MAX_ITER = 200


def reduce_nonlinear(master, x, points, multipliers, scales, cut, deadline: Deadline):
    """Run the reduction of the module docstring from the exchange method's answer.

    ``master`` is the :class:`~sipkl.sip.NonlinearMaster`, ``x`` its answer, ``points``,
    ``multipliers`` and ``scales`` per constraint as in :class:`~sipkl.sip.SIPResult` and
    ``cut`` the exchange method's (relative violation). ``deadline`` (a
    :class:`~sipkl.sip.phases.reduction.Deadline`) is checked before each step of a round (the
    climbs, the solve, whose IPOPT wall-time limit it is, the check): past it the rounds end
    (``deadline.passed``) and, no round's check having passed, the answer is ``None``.
    Returns ``None`` where the reduction did not improve on the answer, else a dict: ``x``,
    ``points`` (the plain points kept and the maximizers), ``multipliers`` (user's units),
    ``finite_multipliers``, ``objective``, ``max_violation`` (raw units, the largest found
    on the last check), ``nit`` (solves), ``steps`` (|Δf|/σ_f of each solve),
    ``converged``, ``attempts``.
    """
    sics = master.semi_infinite
    objective_scale = master.objective_scale(x)
    units = objective_units(scales, [float(np.sum(m)) for m in multipliers], objective_scale)
    active = [p[active_mask(m)] for p, m in zip(points, multipliers)]
    steps, attempts = [], []
    objective, program, answer, relative = float(master.f(x)), None, None, np.array([np.inf])
    # the exchange method's x violates g_j by at most cut·u_j, which moves f by about
    # cut·σ_f per constraint: a reduced value further above it is another point, not a
    # correction of this one
    ceiling = objective + len(sics) * cut * objective_scale
    for _ in range(MAX_ROUNDS):  # a round whose check passes is the last
        if deadline():
            break
        starts = [climbed_maxima(sic, ConstraintPrice(x, s), ts)
                  for sic, s, ts in zip(sics, scales, active)]
        plain = [p[~sic.T.same_columns(p[:, None], m, NEAR_RTOL).any(axis=1)] if len(m) else p
                 for sic, p, m in zip(sics, points, starts)]
        program = ScaledProgram(master, plain, objective_scale, units,
                                master.finite_scales(x), climbed=starts)
        if deadline():
            break
        found, tried = minimize_nlp(program, x, master.lower, master.upper,
                                    methods=master.methods, tol=master.tol,
                                    max_iter=MAX_ITER, deadline=deadline.at)
        attempts += tried
        if deadline() or found is None or found.attempt.status is Status.ITERATION_LIMIT:
            break
        answer, x = found, found.x
        new_objective = float(master.f(x))
        steps.append(abs(new_objective - objective) / objective_scale)
        objective = new_objective
        tops = program.climbed_at(x)
        active, relative = checked_points(sics, [ConstraintPrice(x, s) for s in scales],
                                          tops, cut)
        if relative.max() <= cut:
            break
    if answer is None or relative.max() > cut or objective > ceiling:
        return None
    weights = active_multipliers(program, answer) * objective_scale
    located, found, finite, row = [], [], {}, 0
    for kind, k in program.blocks:  # the rows' order: g_0, g_1, …, then the finite ones
        if kind == "g":
            where = np.vstack([program.points[k], tops[k]])
            located.append(where)
            found.append(weights[row:row + len(where)] / units[k])
            row += len(where)
        else:
            q = len(master.finite[k].values(x))
            finite[k] = weights[row:row + q] / program.finite_scales[k]
            row += q
    return {"x": x.copy(), "points": located, "multipliers": found,
            "finite_multipliers": [finite[k] for k in range(len(master.finite))],
            "objective": objective,
            "max_violation": float(np.max(relative * np.asarray(scales))),
            "nit": len(steps), "steps": steps,
            "converged": answer.attempt.status is Status.OPTIMAL, "attempts": attempts}
