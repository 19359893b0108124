"""The restricted master of a semi-infinite program (the exchange / cutting-plane method):
the user's cvxpy problem with each semi-infinite constraint imposed at finitely many index
points,

    min f(x)  s.t.  finite constraints,   g_j(x, t) ≤ 0  for t ∈ T_j^(k)  (j = 1 … J).

In the dual this is column generation: each index point is a column, and its multiplier
(the cvxpy dual of its constraint) is the column's weight — the discrete measure of the
dual of the semi-infinite program, which the engine prunes with.
"""
from __future__ import annotations

from dataclasses import dataclass

from typing import Sequence

import cvxpy as cp
import numpy as np

from ...core.contracts import Column, MasterBase, MasterSolution
from ...solvers import Status, solve_cvxpy, solve_tightly
from ...solvers.cvx import DEFAULT_SOLVERS, SOLVER_OPTIONS, check_solvers
from ..constraints.semi_infinite import IndexConstraint, SemiInfiniteConstraint, magnitude
from ..pricing.space import ConstraintPrice
from .conic_data import ConicDataMaster
from .scales import next_objective_scale, positive_scale


@dataclass
class DiscretizedModel:
    """What a solve of the restricted master leaves: the value of every variable (in the
    order of ``DiscretizedMaster.variables``), the price (one
    :class:`~sipkl.sip.pricing.space.ConstraintPrice` per constraint), the multipliers of the
    constraints imposed by counterparts (by position, in the user's units; ``None`` where
    the solver gave none), and σ_f, the objective's scale of the next solve."""

    values: list
    price: list
    objective_scale: float = 1.0
    counterpart_multipliers: dict = None


class IndexPointMaster(MasterBase):
    """A restricted master whose columns are the index points of its semi-infinite
    constraints, each constraint owning its index set (the columns' family): the base of
    :class:`DiscretizedMaster` (cvxpy) and :class:`~sipkl.sip.NonlinearMaster` (NumPy),
    which reads the columns by constraint (:meth:`groups`, :meth:`points`). The program may
    be solved over no index point (``empty_start``; a convex master is then often
    unbounded)."""

    empty_start = True
    #: whether some variable is integer (a mixed-integer master, without multipliers)
    integer = False
    #: n, the number of scalar variables of the program (each master sets it)
    n_variables: int

    def __init__(self, semi_infinite: Sequence[IndexConstraint]):
        self.semi_infinite = list(semi_infinite)
        self._owner = {c.T: j for j, c in enumerate(self.semi_infinite)}  # each owns its set

    def signature(self) -> dict:
        """What identifies the program, which checkpoints record
        (:func:`~sipkl.core.checkpoint.fingerprint`): each semi-infinite constraint's name and
        index set (its class and dimension), and the number of variables."""
        return {"constraints": [[c.name, type(c.T).__name__, c.T.dim]
                                for c in self.semi_infinite],
                "variables": self.n_variables}

    def groups(self, columns: Sequence[Column]) -> list[np.ndarray]:
        """The positions, in ``columns``, of each constraint's index points."""
        owners = np.array([self._owner[c.family] for c in columns], dtype=int)
        return [np.flatnonzero(owners == j) for j in range(len(self.semi_infinite))]

    def points(self, columns: Sequence[Column], groups: list[np.ndarray]) -> list[np.ndarray]:
        """Each constraint's index points (m_j × p_j), at the positions ``groups``."""
        return [np.array([columns[k].theta for k in g]).reshape(-1, sic.T.dim)
                for sic, g in zip(self.semi_infinite, groups)]


class DiscretizedMaster(IndexPointMaster):
    """Solves the program over the index points given as columns, in cvxpy.

    The solution hands the engine: ``weights``, the multipliers of the index points (in the
    columns' order, clipped at 0 against the solver's round-off); ``objective``, the value of
    the user's objective (maximized for ``cp.Maximize``); ``threshold`` 0 and ``cut_scale``
    1, because the prices are relative violations (see :mod:`sipkl.sip.pricing.space`); ``price``,
    one :class:`~sipkl.sip.pricing.space.ConstraintPrice` per constraint with the scale

        s_j = max over t ∈ T_j^(k) ∪ {t_0} of  Σ_terms |term of g_j(x_k, t)|,

    the magnitude of the numbers g_j compares at its index points (t_0 the first of
    ``T_j.initial_points``, so that a constraint with no point has a scale; 1 when every term
    is 0). Multiplying g_j by c multiplies s_j by c, rescaling T_j or the objective leaves it
    unchanged: the engine's cut ``tol·1 + atol`` is then the same rule in any units, where a
    cut at ``tol·|0|`` would be empty.

    The problem handed to cvxpy is the same rule's twin: it minimizes f/σ_f subject to
    g_j/s_j ≤ 0, with σ_f (Σ |terms| of f, likewise) and s_j from the previous solve (the
    first solve of a run is done twice, unscaled for its scales and then in them;
    :meth:`reset` starts a new run), so that the solver sees the same numbers in any units
    of f and g. The multipliers are given back in the user's units (dual · σ_f / s_j).

    The two solves of a run's first pair share one problem, in which the scales are cvxpy
    parameters (f·(1/σ_f), g_j·(1/s_j): DPP), compiled by cvxpy once: the second solve only
    sets the parameters (cvxpy's compilation is most of a small master's time). Where the
    user's own parameters make those products non-DPP, each solve builds its problem with
    constant scales, as every later solve does.

    ``column_prices`` are the relative values g_j(x_k, t)/s_j at the index points.

    ``gap`` is 0: cvxpy reports no duality gap, and the master's optimality is the solver's
    status (``optimal``; anything else is no certificate).

    With integer or boolean variables (``integer``) the master is a mixed-integer program:
    still a relaxation of the semi-infinite program over the same integrality (the outer
    approximation needs no duals), solved by the mixed-integer solvers
    (:data:`~sipkl.solvers.cvx.MIXED_INTEGER_SOLVERS` where the default list was given),
    ``optimal`` only within their relative gap (:data:`~sipkl.solvers.cvx.SOLVER_OPTIONS`).
    Its integer variables are rounded to the nearest integers (the solvers hold them
    integral to 10⁻⁹) before anything is priced. It has no multipliers: its ``weights`` are 0, and neither the drop rule nor the local
    reduction, which read them, applies. Its ``gap`` is the distance from its value to the
    bound its solver proved (:func:`integer_gap`), so that the relaxation's bound is the
    value less the gap. ``model`` (a
    :class:`DiscretizedModel`) holds the values of every variable, the price, and σ_f at
    this solution (the scale of the next solve). The problem may be infeasible or
    unbounded: then the solution is the failed one with that status, which the engine
    reports as ``master_failed``.
    """

    #: whether the solves of a run's first pair share one compiled problem (``False``: each
    #: builds and compiles its own, as every later one does; ``benchmarks/sip_master.py``
    #: compares the two)
    reuse_first = True

    def __init__(self, objective, semi_infinite: Sequence[SemiInfiniteConstraint],
                 constraints=(), solvers: Sequence[str] = DEFAULT_SOLVERS):
        super().__init__(semi_infinite)
        self.objective, self.finite_constraints = objective, list(constraints)
        self.counterparts = []
        #: whether the solves are tight (:func:`~sipkl.solvers.solve_tightly`; set by the
        #: program for a run whose first master is its answer)
        self.tight = False
        self.solvers = check_solvers(solvers)
        #: g_j's expressions at t_0, the first of T_j.initial_points (the centre of a box or a
        #: convex set): a scale where T_j^(k) is empty, and the numeric form's check of g_j
        #: at the centre (:func:`~sipkl.sip.robust.affine_counterparts`)
        self.references = [(c.T.initial_points(1)[0], c.expressions(c.T.initial_points(1)))
                           for c in self.semi_infinite]
        whole = cp.Problem(objective, self.constraints + [
            e <= 0 for _, exprs in self.references for e in exprs])
        self.variables = whole.variables()
        #: whether some variable is integer or boolean (a mixed-integer master)
        self.integer = whole.is_mixed_integer()
        self.n_variables = sum(v.size for v in self.variables)
        # 1/σ_f and 1/s_j in the problem of a run's first pair of solves
        self._inverse_objective_scale = cp.Parameter(nonneg=True, value=1.0)
        self._inverse_scales = [cp.Parameter(nonneg=True, value=1.0)
                                for _ in self.semi_infinite]
        self.reset()

    @property
    def counterparts(self) -> list:
        """The :class:`~sipkl.sip.robust.Counterpart` s that impose semi-infinite constraints
        exactly (:mod:`sipkl.sip.robust`), set by the program for a run: their cvxpy
        constraints join the finite constraints."""
        return self._counterparts

    @counterparts.setter
    def counterparts(self, value) -> None:
        self._counterparts, self._conic_data = list(value), None

    def conic_data(self) -> ConicDataMaster | None:
        """The master as numbers (:mod:`~sipkl.sip.masters.conic_data`), solved without
        cvxpy's compilation, where every semi-infinite constraint is imposed by a numeric
        counterpart, the rest is affine and continuous and the solvers are the default ones
        (``None`` elsewhere; made once per set of counterparts)."""
        if self._conic_data is None:
            applies = self.solvers == DEFAULT_SOLVERS and not self.integer \
                and self.semi_infinite and len(self.imposed) == len(self.semi_infinite)
            self._conic_data = (applies and ConicDataMaster.of(
                self.objective, self.finite_constraints, self.counterparts,
                self.variables)) or False
        return self._conic_data or None

    @property
    def scale_weights(self) -> list:
        """Per semi-infinite constraint, the cvxpy Parameter 1/s_j by which every solve
        divides it (its value set before each solve): the weight of its counterpart
        (:func:`~sipkl.sip.robust.robust_counterpart`), which the solvers then see in the
        same units as its index points."""
        return self._inverse_scales

    def counterpart_multipliers(self, objective_scale: float) -> dict:
        """The multiplier of each constraint imposed by a counterpart (by position), in the
        user's units, from the duals of the last problem solved with them (its objective
        divided by ``objective_scale``): the dual of its entry of the counterpart's
        inequality (of w_j·g_j, w_j = 1/s_j) times σ_f·w_j (``None`` without a dual)."""
        found = {}
        for counterpart in self.counterparts:
            dual = counterpart.dual
            for k, j in enumerate(counterpart.members):
                found[j] = None if dual is None else float(np.ravel(dual)[k]) \
                    * objective_scale * float(self._inverse_scales[j].value)
        return found

    @property
    def imposed(self) -> set:
        """The positions of the semi-infinite constraints imposed by counterparts."""
        return {j for counterpart in self.counterparts for j in counterpart.members}

    @property
    def constraints(self) -> list:
        """The finite constraints of every solve: the user's, then the counterparts'."""
        return self.finite_constraints + [c for counterpart in self.counterparts
                                          for c in counterpart.constraints]

    def set_values(self, values) -> None:
        """Give the cvxpy variables (in the order of ``variables``) these values: the user's
        variables then hold a solution (g's closures read them in pricing)."""
        for variable, value in zip(self.variables, values):
            variable.value = value

    def reset(self) -> None:
        """Forget the scales of the previous solve: the next solve starts a new run."""
        self._objective_scale, self._scales = None, None

    def get_state(self) -> dict:
        """The scales the next solve divides by (:class:`~sipkl.core.contracts.Stateful`)."""
        return {"objective_scale": self._objective_scale,
                "scales": None if self._scales is None else self._scales.tolist()}

    def set_state(self, state: dict) -> None:
        """Restore :meth:`get_state`: a ``ValueError`` for scales that are not positive
        finite numbers, one per semi-infinite constraint (or ``None``, a new run)."""
        objective_scale, scales = state["objective_scale"], state["scales"]
        if scales is not None:
            scales = np.asarray(scales, dtype=float)
        if not ((objective_scale is None or _positive(objective_scale)) and (
                scales is None or (scales.shape == (len(self.semi_infinite),)
                                   and all(map(_positive, scales))))):
            raise ValueError(f"the master's scales must be positive finite numbers, one per "
                             f"constraint ({len(self.semi_infinite)}), got {state!r}")
        self._objective_scale, self._scales = objective_scale, scales

    def solve(self, columns: Sequence[Column], warm_start=None) -> MasterSolution:
        groups = self.groups(columns)
        expressions = [sic.expressions(p) if len(p) else [] for sic, p in zip(
            self.semi_infinite, self.points(columns, groups))]
        if self._scales is not None:
            return self._solve(columns, groups, expressions,
                               lambda: self._build(expressions, False))
        # a run's first solve: unscaled, for the scales, then again in them
        self._objective_scale, self._scales = 1.0, np.ones(len(self.semi_infinite))
        shared = self._build(expressions, True) if self.reuse_first and not (
            not columns and self.conic_data()) else None
        if shared is not None and not shared[0].is_dpp():  # the user's parameters in products
            shared = None

        def build():
            return shared or self._build(expressions, False)
        first = self._solve(columns, groups, expressions, build, rough=True)
        if first.price is None:
            return first
        return self._solve(columns, groups, expressions, build)

    def _solve(self, columns: Sequence[Column], groups, expressions, build,
               rough=False) -> MasterSolution:
        """Solve the master over ``expressions`` in the current scales — as numbers where it
        is of their kind (:meth:`conic_data`), else the problem ``build()`` makes
        (:meth:`_build`) — then take the scales of this solution (``rough``: a solve for the
        scales alone, which the master as numbers leaves to an interior point at its default
        tolerances, an LP included)."""
        self._inverse_objective_scale.value = 1.0 / self._objective_scale
        for parameter, scale in zip(self._inverse_scales, self._scales):
            parameter.value = 1.0 / scale
        data = None if columns else self.conic_data()
        status, attempts, value = data.solve(1.0 / self._objective_scale, self.tight, rough) \
            if data else (None, [], None)
        imposed = [None] * len(self.semi_infinite)
        if not (status is Status.OPTIMAL or rough and status is Status.OPTIMAL_INACCURATE):
            # cvxpy's compilation, and its fallbacks
            problem, imposed, _ = build()
            solve = solve_tightly if self.tight else solve_cvxpy
            status, more = solve(problem, self.solvers)
            attempts, value = attempts + more, problem.value
        if not status.usable or any(v.value is None for v in self.variables):
            return MasterSolution.failed(len(columns), status, attempts)
        for variable in self.variables:  # integral to the solver's tolerance: made integral
            if variable.attributes["integer"] or variable.attributes["boolean"]:
                variable.project_and_assign(variable.value)
        weights = np.zeros(len(columns))
        for group, constraint, scale in zip(groups, imposed, self._scales):
            if constraint is not None and not self.integer:
                duals = np.clip(np.ravel(constraint.dual_value), 0.0, None)
                weights[group] = duals * self._objective_scale / scale
        price = [ConstraintPrice(sic.x_value(), positive_scale(float(np.max(
                     sic.magnitudes(list(exprs) + reference[1])))))
                 for sic, exprs, reference in zip(self.semi_infinite, expressions,
                                                  self.references)]
        relative = np.zeros(len(columns))  # g_j(x_k, t) / s_j at the index points
        for group, exprs, p in zip(groups, expressions, price):
            if exprs:
                relative[group] = np.ravel(cp.hstack(exprs).value) / p.scale
        gap = integer_gap(problem, attempts[-1].solver) if self.integer else 0.0
        solution = MasterSolution(
            weights=weights, objective=float(value) * self._objective_scale,
            price=price, threshold=0.0, gap=gap * self._objective_scale, status=status,
            attempts=attempts,
            model=DiscretizedModel([v.value for v in self.variables], price,
                                   counterpart_multipliers=self.counterpart_multipliers(
                                       self._objective_scale)),
            column_prices=relative, cut_scale=1.0)
        self._scales = np.array([p.scale for p in price])
        self._objective_scale = next_objective_scale(self._objective_scale, positive_scale(
            float(np.max(magnitude(self.objective.expr, 1)))))
        solution.model.objective_scale = self._objective_scale
        return solution

    def _build(self, expressions: list, parametrized: bool):
        """The cvxpy problem of the master over ``expressions``: f/σ_f subject to
        g_j/s_j ≤ 0, the scales the current ones (constants), or ``parametrized``: products
        with the parameters 1/σ_f and 1/s_j (DPP, whose values are set before each solve).
        Returns the problem, each constraint's imposed constraint (``None`` without an index
        point) and ``expressions``."""
        if parametrized:
            objective = self.objective.expr * self._inverse_objective_scale
            imposed = [cp.hstack(exprs) * inverse <= 0 if exprs else None
                       for exprs, inverse in zip(expressions, self._inverse_scales)]
        else:
            objective = self.objective.expr / self._objective_scale
            imposed = [cp.hstack(exprs) / scale <= 0 if exprs else None
                       for exprs, scale in zip(expressions, self._scales)]
        problem = cp.Problem(type(self.objective)(objective),
                             self.constraints + [c for c in imposed if c is not None])
        return problem, imposed, expressions


def integer_gap(problem: cp.Problem, solver: str) -> float:
    """The gap between the value of the mixed-integer ``problem`` solved by ``solver`` and
    the bound the solver proved: HiGHS's own (its objective less its dual bound), ECOS_BB's
    stopping rule's largest, max(mi_abs_eps, mi_rel_eps·|value|) (:data:`SOLVER_OPTIONS`, its
    defaults 10⁻⁶ and 10⁻³ where not set), 0 for another solver (its ``optimal`` taken as
    stated)."""
    if solver == "HIGHS":
        info = problem.solver_stats.extra_stats
        return abs(float(info.objective_function_value) - float(info.mip_dual_bound))
    if solver == "ECOS_BB":
        options = SOLVER_OPTIONS.get("ECOS_BB", {})
        return max(options.get("mi_abs_eps", 1e-6),
                   options.get("mi_rel_eps", 1e-3) * abs(float(problem.value)))
    return 0.0


def _positive(value) -> bool:
    """Whether ``value`` is a finite number > 0 (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and bool(np.isfinite(value)) and value > 0
