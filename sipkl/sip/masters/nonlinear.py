"""The restricted master of a smooth, possibly non-convex semi-infinite program written in
NumPy: f, the finite constraints, the bounds, and each g_j imposed at its current index points,

    min f(x)  s.t.  c_k(x) ≤ 0 (or = 0),  lower ≤ x ≤ upper,  g_j(x, t) ≤ 0 for t ∈ T_j^(k),

solved locally (:func:`~sipkl.solvers.nlp.minimize_nlp`: IPOPT, SciPy where it cannot load)
from the previous round's x, with the multipliers of the index points as the columns'
weights — the exchange method's master (Hettich & Kortanek 1993, §7) with a local NLP
solver in place of the convex one of :class:`~sipkl.sip.masters.discretized.DiscretizedMaster`, whose
scale rule it keeps (:mod:`sipkl.sip.masters.scales`), in the objective's units where those are
smaller (:func:`~sipkl.sip.masters.scales.objective_units`).

A local solver proves a local statement only: the master declares ``convex = False``, so the
engine ends ``converged_local`` (or ``stationary_point`` with a proven pricing bound) and
never ``certified_optimal``; a master that finds no feasible point has found none locally.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...core.contracts import Column, MasterSolution
from ...solvers.nlp import METHODS, NLPAnswer, active_multipliers, minimize_nlp
from ..constraints.derivatives import derivative, measured_differences
from ..constraints.nonlinear import FiniteConstraint, NonlinearConstraint
from ..constraints.semi_infinite import NonFiniteValue
from ..pricing.faces import climb
from ..pricing.space import ConstraintPrice, IndexPointPricing
from .discretized import IndexPointMaster
from .scales import implied_objective_scale, next_objective_scale, objective_units, positive_scale


class ScaledProgram:
    """The restricted master as the back-ends see it (the program of
    :mod:`sipkl.solvers.nlp`): f/σ_f, and the rows g_j(x, t)/s_j at the index points and
    c_k(x)/σ_k (inequalities first, then equalities), each evaluated once per x (the
    back-ends ask for values and derivatives at the same x several times). Values that are
    not finite at a trial point go to the back-end, which steps back; the accepted points
    are checked (:meth:`NonlinearMaster.scales`).

    ``climbed`` (the local reduction's, :mod:`sipkl.sip.phases.nonlinear_reduction`): per
    constraint, points from which g_j(x, ·) is climbed to a local maximum at every x, the
    maxima's rows following the index points' (values and x-gradients at the maximizers:
    the reduced constraints and their envelope-theorem gradients)."""

    def __init__(self, master: NonlinearMaster, points, objective_scale, scales,
                 finite_scales, climbed=None):
        self.master, self.points = master, points
        self.climbed = [np.zeros((0, c.T.dim)) for c in master.semi_infinite] \
            if climbed is None else climbed
        self._tops = None
        self.objective_scale, self.scales, self.finite_scales = (objective_scale, scales,
                                                                 finite_scales)
        inequality = [c for c in master.finite if not c.equality]
        equality = [c for c in master.finite if c.equality]
        order = {id(c): k for k, c in enumerate(master.finite)}
        self.blocks = ([("g", j) for j in range(len(points))]
                       + [("c", order[id(c)]) for c in inequality + equality])
        self.n_equality = sum(len(c.values(master.x0)) for c in equality)
        self._key, self._value, self._jacobian = None, None, None

    def objective(self, x):
        return float(self.master.f(x)) / self.objective_scale

    def gradient(self, x):
        return self.master.objective_gradient(x) / self.objective_scale

    def constraints(self, x):
        return self._evaluate(x)[0]

    def jacobian(self, x):
        return self._evaluate(x)[1]

    def _evaluate(self, x):
        key = np.asarray(x, dtype=float).tobytes()
        if key != self._key:
            values, jacobians, tops = [], [], list(self.climbed)
            x = np.asarray(x, dtype=float)
            for kind, k in self.blocks:
                if kind == "g":
                    sic, points = self.master.semi_infinite[k], self.points[k]
                    tops[k] = self._climb(sic, x, k)
                    points = np.vstack([points, tops[k]])
                    if not len(points):
                        continue
                    with np.errstate(all="ignore"):  # a trial point may overflow: the
                        values.append(sic.raw_values(x, points).real  # back-end steps back
                                      / self.scales[k])  # (accepted points are checked later)
                        jacobians.append(sic.jacobian(x, points, self.master.typical,
                                                      check=False) / self.scales[k])
                else:
                    c = self.master.finite[k]
                    with np.errstate(all="ignore"):
                        values.append(c.values(x, check=False) / self.finite_scales[k])
                        jacobians.append(c.jacobian(x, self.master.typical, check=False)
                                         / self.finite_scales[k])
            n = len(x)
            self._value = np.concatenate(values) if values else np.zeros(0)
            self._jacobian = np.vstack(jacobians) if jacobians else np.zeros((0, n))
            self._key, self._tops = key, tops
        return self._value, self._jacobian

    def climbed_at(self, x) -> list:
        """Per constraint, the maximizers that the ``climbed`` points reach at x."""
        self._evaluate(x)
        return self._tops

    def _climb(self, sic, x, k) -> np.ndarray:
        """The local maximizers of g_k(x, ·) from the ``climbed`` points (NaN where g is not
        finite on the way at this trial x: the back-end steps back)."""
        starts = self.climbed[k]
        if not len(starts):
            return starts
        problem = IndexPointPricing(sic, ConstraintPrice(x, self.scales[k]))
        try:
            with np.errstate(all="ignore"):
                return climb(problem, starts).x
        except NonFiniteValue:
            return np.full_like(starts, np.nan)


@dataclass
class NonlinearModel:
    """What a solve of :class:`NonlinearMaster` leaves: ``x``, the price (one
    :class:`~sipkl.sip.pricing.space.ConstraintPrice` per semi-infinite constraint), σ_f (the
    objective's scale of the next solve, for the drop rule), and the multipliers of the
    finite constraints (one array per :class:`~sipkl.sip.FiniteConstraint`, user's units)."""

    x: np.ndarray
    price: list
    objective_scale: float = 1.0
    finite_multipliers: list = field(default_factory=list)


class NonlinearMaster(IndexPointMaster):
    """The restricted master of a smooth, possibly non-convex semi-infinite program: f, the
    finite constraints, the bounds, and each g_j at its current index points, solved by a
    local NLP method from the previous solve's x (from ``x0`` at a run's first solve).

    The solution hands the engine what :class:`~sipkl.sip.masters.discretized.DiscretizedMaster` hands
    it, by the same rules: ``weights`` the multipliers of the index points (in the columns'
    order, user's units, clipped at 0), ``threshold`` 0 and ``cut_scale`` 1 (the prices are
    relative violations), ``price`` one :class:`~sipkl.sip.pricing.space.ConstraintPrice` per
    constraint with the scale

        s_j = max over t ∈ T_j^(k) ∪ {t_0} of  Σ_terms |term of g_j(x_k, t)|,

    where, g being a NumPy function, its terms are those of its linearization at x_k,
    g = [g − ∇ₓg·x_k] + Σ_i ∂g/∂x_i·x_k,i (for g affine in x, a(t)·x + b(t), the terms
    b(t) and a_i(t)·x_i of the cvxpy rule), in the objective's units where they are smaller:

        u_j = min(s_j, σ_f / M_j)      (M_j > 0 the constraint's total multiplier),

    (:func:`~sipkl.sip.masters.scales.objective_units`): a violation v of g_j moves f by about M_j·v, so the cut
    tol·u_j is one on f as well as on g_j's terms. Multiplying g_j by c multiplies u_j by
    |c|; rescaling T_j or f leaves the run unchanged (the scales do not depend on the units
    of x either; the back-ends' iterations do). The back-ends see f/σ_f and g_j/u_j (σ_f the
    same magnitude of f, kept where it collapses below ``SCALE_COLLAPSE`` times the previous
    one — at a run's first solve, times the magnitude that the rows imply,
    :func:`~sipkl.sip.masters.scales.implied_objective_scale`, so that a start where f ≈ 0 is no
    scale; u_j with the last solve's multipliers, s_j at a run's first solve; c_k/σ_k, σ_k the
    largest magnitude of c_k's rows), taken at the solve's start x over the current points,
    and the multipliers are handed back in the user's units (multiplier · σ_f / u_j; 0 where
    the point is inactive, below ``−INACTIVE_RTOL``; L = f + Σ λ g + Σ μ c, so μ ≥ 0 for an
    inequality, of either sign for an equality). ``column_prices`` are g_j(x_k, t)/u_j.
    Each solve starts from the last solve's x (kept by the master, and by checkpoints): the
    engine's ``warm_start``, the last weights, is not used.

    ``convex`` is ``False``: a stopped run is at best ``converged_local`` (or
    ``stationary_point``), never ``certified_optimal``. ``status`` is the back-end's
    (``optimal``: a local KKT point to ``tol``), ``gap`` 0 (the back-end's own test
    decides). The back-ends are tried in ``methods``' order until one answers optimal (each
    try an attempt; the first usable answer is kept when none does): ``"ipopt"`` (cyipopt,
    limited-memory Hessian; recorded as failed where cyipopt cannot load), then ``"slsqp"``
    (SciPy; ``"trust-constr"`` on request, see :mod:`sipkl.solvers.nlp`). A solve that none
    completes is a failed solution whose status and attempts carry the back-ends' messages
    (IPOPT's "Infeasible_Problem_Detected" means a point of local infeasibility: no proof
    that the program is infeasible).
    """

    def __init__(self, f: Callable, semi_infinite: Sequence[NonlinearConstraint],
                 x0: np.ndarray, grad_f: Callable = None, lower=None, upper=None,
                 finite: Sequence[FiniteConstraint] = (), methods: Sequence[str] = METHODS,
                 tol: float = 1e-10, max_iter: int = 500):
        super().__init__(semi_infinite)
        self.f, self.grad_f, self.finite = f, grad_f, list(finite)
        self.x0 = np.asarray(x0, dtype=float)
        n = self.n_variables = len(self.x0)
        self.lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self.upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self.methods, self.tol, self.max_iter = tuple(methods), tol, max_iter
        width = self.upper - self.lower
        #: the size of each variable where x_k = 0 (central differences' step, the complex
        #: step's): |x0_k|, else the bounds' width, else 1
        self.typical = np.where(self.x0 != 0, np.abs(self.x0),
                                np.where(np.isfinite(width) & (width > 0), width, 1.0))
        self.differences = None  # the objective's: "complex-step" or "central"
        self._references = [c.T.initial_points(1) for c in self.semi_infinite]
        self.reset()

    def reset(self, start=None) -> None:
        """Start a new run: from ``start`` (default ``x0``), with no scale kept."""
        self._x = (self.x0 if start is None else np.asarray(start, dtype=float)).copy()
        self._objective_scale, self._totals, self.failure = None, None, None

    def get_state(self) -> dict:
        """The start of the next solve and σ_f (:class:`~sipkl.core.contracts.Stateful`)."""
        return {"x": self._x.tolist(), "objective_scale": self._objective_scale,
                "totals": self._totals}

    def set_state(self, state: dict) -> None:
        """Restore :meth:`get_state`: a ``ValueError`` for an x that is not n finite
        numbers."""
        x = np.asarray(state["x"], dtype=float)
        if x.shape != (self.n_variables,) or not np.all(np.isfinite(x)):
            raise ValueError(f"the master's x must be {self.n_variables} finite numbers, got "
                             f"{state['x']!r}")
        self._x, self._objective_scale = x, state["objective_scale"]
        self._totals = state.get("totals")

    # -- values and scales -------------------------------------------------------------
    def objective_gradient(self, x) -> np.ndarray:
        """∇f at x: ``grad_f``, else the complex step or central differences."""
        if self.grad_f is not None:
            return np.asarray(self.grad_f(x), dtype=float).reshape(len(x))
        def fun(z):
            return np.asarray(self.f(z)).reshape(())
        if self.differences is None:
            self.differences = measured_differences(fun, np.asarray(x, float), self.typical)
        return derivative(fun, np.asarray(x, dtype=float), self.differences, self.typical)

    def objective_scale(self, x) -> float:
        """Σ |terms| of f's linearization at x (see the class docstring), or 1 where 0."""
        return positive_scale(float(_magnitudes(np.atleast_1d(float(self.f(x))),
                                                self.objective_gradient(x)[None], x)[0]))

    def scales(self, x, points) -> np.ndarray:
        """s_j at x over the rows of ``points[j]`` and t_0 (see the class docstring)."""
        scales = []
        for sic, own, reference in zip(self.semi_infinite, points, self._references):
            where = np.vstack([own, reference])
            values = sic.values(x, where)
            scales.append(positive_scale(float(np.max(_magnitudes(
                values, sic.jacobian(x, where, self.typical), x)))))
        return np.array(scales)

    def finite_scales(self, x) -> np.ndarray:
        return np.array([positive_scale(float(np.max(_magnitudes(
            c.values(x), c.jacobian(x, self.typical), x)))) for c in self.finite])

    # -- the solve ---------------------------------------------------------------------
    def solve(self, columns: Sequence[Column], warm_start=None) -> MasterSolution:
        groups = self.groups(columns)
        points = self.points(columns, groups)
        start = self._x
        scales = self.scales(start, points)
        current = self._objective_scale
        if current is None:  # a run's first solve: what the rows imply (see scales)
            rows = ScaledProgram(self, points, 1.0, scales, self.finite_scales(start))
            current = implied_objective_scale(self.objective_gradient(start),
                                              rows.jacobian(start))
        self._objective_scale = next_objective_scale(current, self.objective_scale(start))
        if self._totals is not None:
            scales = objective_units(scales, self._totals, self._objective_scale)
        program = ScaledProgram(self, points, self._objective_scale, scales,
                                self.finite_scales(start))
        answer, attempts = minimize_nlp(program, start, self.lower, self.upper,
                                        methods=self.methods, tol=self.tol,
                                        max_iter=self.max_iter, deadline=self.deadline)
        if answer is None:
            self.failure = MasterSolution.failed(len(columns), attempts[-1].status, attempts)
            return self.failure
        return self._solution(answer, program, groups, points, attempts)

    def _solution(self, answer: NLPAnswer, program: ScaledProgram, groups, points,
                  attempts) -> MasterSolution:
        x = answer.x
        multipliers = active_multipliers(program, answer)
        weights = np.zeros(sum(len(g) for g in groups))
        row = 0
        for group, scale in zip(groups, program.scales):
            weights[group] = multipliers[row:row + len(group)] * self._objective_scale / scale
            row += len(group)
        finite = []
        for kind, k in program.blocks[len(points):]:
            q = len(self.finite[k].values(x))
            finite.append((k, multipliers[row:row + q] * self._objective_scale
                           / program.finite_scales[k]))
            row += q
        self._totals = [float(weights[g].sum()) for g in groups]
        price_scales = objective_units(self.scales(x, points), self._totals,
                                       self.objective_scale(x))
        price = [ConstraintPrice(x.copy(), s) for s in price_scales]
        relative = np.zeros(len(weights))
        for sic, group, own, s in zip(self.semi_infinite, groups, points, price_scales):
            if len(group):
                relative[group] = sic.values(x, own) / s
        self._x = x.copy()
        model = NonlinearModel(x.copy(), price, self._objective_scale,
                               [m for _, m in sorted(finite, key=lambda km: km[0])])
        return MasterSolution(weights=weights, objective=float(self.f(x)), price=price,
                              threshold=0.0, gap=0.0, status=answer.attempt.status,
                              attempts=attempts, model=model, column_prices=relative,
                              convex=False, cut_scale=1.0)


def _magnitudes(values: np.ndarray, jacobian: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ |terms| of each row's linearization at x: |g − J x| + Σ_i |J_i x_i|."""
    return np.abs(values - jacobian @ x) + np.abs(jacobian) @ np.abs(x)
