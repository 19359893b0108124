"""The local reduction phase: the last digits of a semi-infinite program, by Newton steps.

Near a solution x* whose active index points t_i are nondegenerate local maxima of
t ↦ g(x*, t), the program is locally the finite one (Hettich & Kortanek 1993, §7; Reemtsen &
Görner 1998, §4)

    min f(x)   s.t.  finite constraints,   φ_i(x) = max_{t near t_i} g(x, t) ≤ 0,

and the exchange method, which imposes g(x, t_i) at fixed points, converges to it only
linearly where a maximum lies inside T (its position moves with x). Each round here solves
the user's convex problem with every φ_i replaced by its second-order model at x_k,

    φ_i(x) ≈ g(x, t_i) − ½ v_i(x)ᵀ A_i⁻¹ v_i(x),    v_i(x) = Dᵀ∇_t g(x, t_i),

with t_i the maximizer of g(x_k, ·) near the previous one
(:func:`~sipkl.sip.pricing.faces.climb`: projected Newton steps on a box, the set's search
and Newton steps on the active face elsewhere), D the directions of its face — the tangent
space of the constraints of T active there (a box's free coordinates, a polytope's active
facets, an ellipsoid's boundary; :mod:`sipkl.sip.pricing.faces`) —, A_i = Dᵀ(∇²_tt g −
Σ_k μ_k ∇²h_k)D the Hessian of the lower level's Lagrangian on it (μ_k the multipliers of
T's active inequalities h_k: the curvature of a curved boundary), negative definite, and v_i
affine in x (exact where g is affine in x, else linearized at x_k): the maximum over the
step d on the face of the quadratic model of g(x, t_i + d). The model is exact to second
order in x − x_k — the term −½ vᵀA⁻¹v carries the coupling ∇²_xt g A⁻¹ ∇²_tx g of the
reduced Hessian — so the rounds converge quadratically (a sequential convex programming
form of the Newton / SQP step on the reduced problem), and the model's constraint is convex
(−A_i⁻¹ is positive semidefinite): the user's cvxpy problem stays a DCP one. A maximum at a
vertex (no free direction), in a set that states no inequalities (a budget set), or whose
Hessian is not negative definite (degenerate) keeps the plain constraint g(x, t_i).

At the end of each round, every index set is searched at the new x
(:class:`~sipkl.sip.pricing.sets.SetSearchOracle`'s search, from a fixed seed, the active
points refined too): the reduced answer is kept only where its largest violation found is no
larger than the exchange method's cut; else the exchange method's answer stands.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import cvxpy as cp
import numpy as np
from scipy import sparse

from ...solvers import Status, solve_tightly
from ..constraints.semi_infinite import FD_STEP
from ..masters.scales import objective_units
from ..pricing.faces import climb, face, tangent_hessian
from ..pricing.sets import SetSearchOracle
from ..pricing.space import ConstraintPrice, IndexPointPricing

#: Newton rounds at most
MAX_ROUNDS = 8

#: stop when a round changes the objective by at most this fraction of its scale σ_f (ten
#: times the solvers' tolerance in the rounds, :data:`~sipkl.solvers.cvx.TIGHT`: below it a
#: step is round-off)
REDUCTION_RTOL = 1e-9

#: a model constraint at least −this (in its scaled units) at a round's solution is tight:
#: its point stays active (the solver may give a tight constraint a zero multiplier)
TIGHT_RTOL = 1e-8

#: the exchange method's index points this close to a maximizer (relative to the box's
#: width) are left out of the rounds: their plain constraints would duplicate its model's,
#: and the solver could split the multiplier between the two
NEAR_RTOL = 1e-3

#: two maximizers of one constraint this close (relative to the box's width) are one
SAME_RTOL = 1e-6

#: an index point whose multiplier is above this fraction of its constraint's largest is
#: active: the reductions climb from it
ACTIVE_RTOL = 1e-6


class Deadline:
    """The instant ``at`` (``time.perf_counter()``; ``None``: no limit) at which a phase must
    end, checked by calling it (``True`` once past); ``passed`` keeps the last check's
    answer: whether the deadline ended the work that checked it."""

    def __init__(self, at: Optional[float] = None):
        self.at, self.passed = at, False

    @classmethod
    def after(cls, seconds: Optional[float]) -> "Deadline":
        """The deadline ``seconds`` from now (``None``: none)."""
        return cls(None if seconds is None else time.perf_counter() + seconds)

    def remaining(self) -> Optional[float]:
        """The seconds left (at least 0), or ``None`` without a limit: a ``time_limit``."""
        return None if self.at is None else max(self.at - time.perf_counter(), 0.0)

    def __call__(self) -> bool:
        self.passed = self.at is not None and time.perf_counter() >= self.at
        return self.passed


@dataclass
class ReducedPoint:
    """One active index point of constraint ``j`` after a round's climb in t: the point,
    the directions D of its face (p × q; :class:`~sipkl.sip.pricing.faces.Face`), and
    R = Λ^(−1/2) Vᵀ where A = V Λ Vᵀ is the Hessian of the Lagrangian on the face, so that
    −A⁻¹ = RᵀR (``None`` where the maximum is degenerate, no direction is free, or the set
    states no inequalities)."""

    j: int
    t: np.ndarray
    directions: np.ndarray
    root: np.ndarray = None


def reduce_locally(master, values, points, multipliers, scales, objective_scale, cut,
                   solvers, deadline: Deadline):
    """Run the rounds of the module docstring from the exchange method's answer.

    ``master`` is the :class:`~sipkl.sip.masters.discretized.DiscretizedMaster`; ``values`` the values of
    its variables, ``points``/``multipliers``/``scales`` per constraint as in
    :class:`~sipkl.sip.SIPResult`, ``objective_scale`` σ_f, ``cut`` the exchange method's
    (relative violation). ``deadline`` is checked before each step of a round (the climbs
    to the maximizers, the solve, the dense check): past it the rounds end
    (``deadline.passed``), overrunning it by one step at most, and the answer is that of
    the last round whose check completed. Returns ``None`` where the reduction did not
    improve on the answer, else a dict: ``values``, ``points``, ``multipliers``,
    ``objective``, ``max_violation`` (raw units, the largest found on the final check),
    ``nit``, ``steps`` (|Δf|/σ_f per round), ``converged``, ``counterpart_multipliers``
    (:meth:`~sipkl.sip.masters.discretized.DiscretizedMaster.counterpart_multipliers`),
    ``attempts``.
    """
    # each constraint in the units where the solver's feasibility tolerance is one of the
    # objective: a violation v of g_j moves f by about M_j·v (M_j its total multiplier)
    units = objective_units(scales, [float(np.sum(m)) for m in multipliers], objective_scale)
    x_values, objective, steps, attempts = list(values), None, [], []
    active = [p[active_mask(m)] for p, m in zip(points, multipliers)]
    converged, done = False, None  # done: the last round whose dense check completed
    for _ in range(MAX_ROUNDS):
        if deadline():
            break
        master.set_values(x_values)
        reduced = [r for j, ts in enumerate(active) if len(ts)
                   for r in _maximizers(master, j, ts, scales[j])]
        problem, corrected = _model(master, reduced, points, units, objective_scale)
        if deadline():
            break
        status, tried = solve_tightly(problem, solvers, warn=False)  # optimal answers only
        attempts += tried
        if status is not Status.OPTIMAL or deadline():
            break
        new_objective = float(problem.value) * objective_scale
        if objective is not None:
            steps.append(abs(new_objective - objective) / objective_scale)
        x_values, objective = [v.value for v in master.variables], new_objective
        duals = np.array([max(float(np.max(c.dual_value)), 0.0) for c in corrected])
        tight = np.array([float(np.max(c.expr.value)) for c in corrected]) >= -TIGHT_RTOL
        keep = tight | (duals > 1e-9 * duals.max(initial=0.0))
        active, relative = checked_points(master.semi_infinite, [
            ConstraintPrice(sic.x_value(), s) for sic, s in zip(master.semi_infinite, scales)],
            [np.array([r.t for r, k in zip(reduced, keep) if r.j == j and k]).reshape(
                -1, sic.T.dim) for j, sic in enumerate(master.semi_infinite)], cut)
        done = {"values": x_values, "objective": objective, "reduced": reduced,
                "duals": duals, "relative": relative, "steps": list(steps),
                "counterpart_multipliers": master.counterpart_multipliers(objective_scale)}
        if steps and steps[-1] <= REDUCTION_RTOL and relative.max() <= cut:
            converged = True
            break
    if done is None or done["relative"].max() > cut:
        master.set_values(values)
        return None
    reduced, duals = done["reduced"], done["duals"]
    final = [np.array([d * objective_scale / units[j] for r, d in zip(reduced, duals)
                       if r.j == j]) for j in range(len(scales))]
    return {"values": done["values"], "points": [np.array([r.t for r in reduced if r.j == j]
                                                          ).reshape(-1, sic.T.dim)
                                                 for j, sic in enumerate(master.semi_infinite)],
            "multipliers": final, "objective": done["objective"],
            "max_violation": float(np.max(done["relative"] * np.asarray(scales))),
            "nit": len(done["steps"]) + 1, "steps": done["steps"], "converged": converged,
            "counterpart_multipliers": done["counterpart_multipliers"], "attempts": attempts}


def checked_points(semi_infinite, prices, active, cut):
    """Each constraint's active points with the violators that a search of its index set at
    its price (x and scale) finds (relative value above ``cut``; the exchange step within the
    rounds), and per constraint the largest relative value found. The search is the default
    one's (:class:`~sipkl.sip.pricing.sets.SetSearchOracle`: a dense sample refined by Newton
    steps in dimension ≤ 2, a screened sample from a fixed seed above, the active points
    refined in the set in any)."""
    active, largest = list(active), np.empty(len(active))
    for j, (sic, price, ts) in enumerate(zip(semi_infinite, prices, active)):
        where, value = SetSearchOracle().search(IndexPointPricing(sic, price), ts,
                                                np.random.default_rng(0))
        largest[j] = value[0]
        active[j] = np.vstack([ts, where[value > cut]])
    return active, largest


def active_mask(multipliers: np.ndarray) -> np.ndarray:
    """The index points of one constraint that a reduction climbs from: those whose
    multiplier exceeds ``ACTIVE_RTOL`` times the constraint's largest."""
    return multipliers > ACTIVE_RTOL * max(multipliers.max(initial=0.0), 1e-300)


def climbed_maxima(constraint, price: ConstraintPrice, starts: np.ndarray) -> np.ndarray:
    """The distinct local maxima of the scaled g(x, ·) over its index set reached from the
    rows of ``starts`` (:func:`~sipkl.sip.pricing.faces.climb`), one copy of each to
    ``SAME_RTOL``: two copies of one constraint would make its multiplier ambiguous."""
    if not len(starts):
        return starts
    kept = []
    for t in climb(IndexPointPricing(constraint, price), starts).x:
        if not any(constraint.T.same_columns(k[None], t, SAME_RTOL).any() for k in kept):
            kept.append(t)
    return np.array(kept)


def _maximizers(master, j: int, ts: np.ndarray, scale: float) -> list[ReducedPoint]:
    """The distinct local maximizers of g_j(x_k, ·) near the rows of ``ts``
    (:func:`climbed_maxima`), each with its face's directions and the root R of −A⁻¹ there
    (``None`` where A is not negative definite)."""
    sic = master.semi_infinite[j]
    problem = IndexPointPricing(sic, ConstraintPrice(sic.x_value(), scale))
    points = []
    for t in climbed_maxima(sic, ConstraintPrice(sic.x_value(), scale), ts):
        _, gradient = problem.values_and_grads(t[None])
        f = face(sic.T, t, gradient[0])
        if f is None:
            points.append(ReducedPoint(j, t, np.zeros((len(t), 0))))
            continue
        point = ReducedPoint(j, t, f.directions)
        if f.dim:
            A = tangent_hessian(problem, f) * scale  # raw units: g, not g/s
            eigenvalues, vectors = np.linalg.eigh(0.5 * (A + A.T))
            if eigenvalues.max() < -1e-8 * np.abs(eigenvalues).max():
                point.root = vectors.T / np.sqrt(-eigenvalues)[:, None]
        points.append(point)
    return points


def _model(master, reduced, points, scales, objective_scale):
    """The round's convex problem: the user's objective and finite constraints, each
    constraint's plain g at its index points, and the second-order model at each reduced
    point (all divided by their scales); returns it and the reduced points' constraints."""
    imposed = []
    for j, (sic, ts, scale) in enumerate(zip(master.semi_infinite, points, scales)):
        near = [r.t for r in reduced if r.j == j]  # each maximizer is imposed by its model
        if near:
            ts = ts[~sic.T.same_columns(ts[:, None], np.array(near), NEAR_RTOL).any(axis=1)]
        if len(ts):
            imposed += [e / scale <= 0 for e in sic.expressions(ts)]
    corrected = []
    for r in reduced:
        sic, scale = master.semi_infinite[r.j], scales[r.j]
        value = sic.expressions(r.t[None])[0]
        value = (value if value.size == 1 else value[0]) / scale
        if r.root is not None:  # −½ vᵀA⁻¹v = ½ ‖R v‖², R = Λ^(−1/2) Vᵀ, in the scale's units
            value = value + 0.5 * cp.sum_squares(r.root @ _t_gradient(sic, r)
                                                 / np.sqrt(scale))
        corrected.append(cp.reshape(value, (1,), order="F") <= 0)
    sense = type(master.objective)
    problem = cp.Problem(sense(master.objective.expr / objective_scale),
                         master.constraints + imposed + corrected)
    return problem, corrected


def _t_gradient(sic, r: ReducedPoint) -> cp.Expression:
    """Dᵀ∇_t g(x, t) at the reduced point, an expression in the variables: central
    differences along the face's directions D with the step ``2·FD_STEP`` (``FD_STEP`` of
    the box's width along a coordinate) (affine in x where g is; else linearized at the
    variables' values)."""
    step = 2 * FD_STEP
    nodes = np.vstack([r.t + step * r.directions.T, r.t - step * r.directions.T])
    exprs = sic.expressions(nodes)
    values = exprs[0] if len(exprs) == 1 else cp.hstack(exprs)
    q = r.directions.shape[1]
    gradient = cp.multiply(values[:q] - values[q:], np.full(q, 1.0 / (2.0 * step)))
    return gradient if gradient.is_affine() else _linearized(gradient)


def _linearized(expression: cp.Expression) -> cp.Expression:
    """The first-order Taylor expansion of ``expression`` at its variables' values,
    e(x_k) + Σ_v ∂e/∂v (v − v_k) (``cvxpy.transforms.linearize``'s, written out so that a
    scalar variable is a vector of one entry); an expression that is not differentiable
    there stays as it is (the solver then sees a non-DCP model and the round fails)."""
    terms = [cp.Constant(np.asarray(expression.value, dtype=float))]
    for variable in expression.variables():
        gradient = expression.grad[variable]  # (size of v) × (size of e), v in F order
        if gradient is None:
            return expression
        gradient = np.reshape(gradient.toarray() if sparse.issparse(gradient)
                              else np.asarray(gradient, dtype=float),
                              (variable.size, expression.size))
        terms.append(gradient.T @ cp.vec(variable - variable.value, order="F"))
    return cp.sum(terms) if len(terms) > 1 else terms[0]
