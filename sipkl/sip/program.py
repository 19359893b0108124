"""A semi-infinite program modelled in cvxpy, solved by the column-generation engine.

    min f(x)  s.t.  finite constraints,   g_j(x, t) ≤ 0  for all t ∈ T_j   (j = 1 … J)

:meth:`SemiInfiniteProgram.solve` runs :class:`~sipkl.core.engine.ColumnGeneration` over the
:class:`~sipkl.sip.pricing.space.IndexPointSpace`: the restricted master
(:class:`~sipkl.sip.masters.discretized.DiscretizedMaster`) imposes each constraint at the current index
points, the oracle maximizes each violation t ↦ g_j(x_k, t)/s_j over T_j, the most violated
points become constraints, and points whose multiplier is zero are dropped after the
master's value has increased (the exchange method; Hettich & Kortanek 1993, §7; see
:mod:`sipkl.sip.masters.drop_rule`). :meth:`SemiInfiniteProgram.solve_discretized` solves the
same master once over a fixed grid of each T_j, the classical baseline.

:class:`ProgramBase` holds what it shares with
:class:`~sipkl.sip.NonlinearSemiInfiniteProgram` (the same exchange method with a local NLP
master): the named copies of the constraints, the run's options and oracles, the first index
points, the fixed grid, and the fields of the :class:`SIPResult`.
"""
from __future__ import annotations

import abc
import copy
import numbers
from collections.abc import Mapping
from typing import Sequence

import cvxpy as cp
import numpy as np
from scipy.optimize import OptimizeResult

from ..core.contracts import Column, Oracle, proves_bound
from ..core.engine import ColumnGeneration
from ..core.run_status import RunStatus
from ..pricing import GridOracle, MultiStartOracle
from ..solvers import Status
from ..solvers.cvx import DEFAULT_SOLVERS, MIXED_INTEGER_SOLVERS, check_solvers
from .constraints.semi_infinite import IndexConstraint, SemiInfiniteConstraint
from .constraints.worst_case import worst_case_constraints
from .masters.diagnosis import infeasible_parts, unbounded_direction
from .masters.discretized import DiscretizedMaster
from .masters.drop_rule import DropAfterIncrease
from .phases.certification import proved_violations, relaxation
from .phases.feasible_point import restricted_feasible_point
from .phases.reduction import Deadline, reduce_locally
from .pricing.dense import DenseSampleOracle
from .pricing.branch_and_bound import BranchAndBoundOracle, IntervalOracle, LipschitzOracle
from .pricing.sets import (AffineOracle, ExactWhereAffine, SetSearchOracle, affine_maximum,
                           affine_model)
from .pricing.space import ConstraintPrice, IndexPointPricing, IndexPointSpace
from .pricing.verification import verify
from .robust import affine_counterparts
from .sets.base import ConvexSet

#: points of the grid that ``oracle="grid"`` prices (about; a tensor grid, see ``Box.grid``)
GRID_SIZE = 1001

#: over continuous index sets of dimension at most this, ``oracle="grid"`` samples the tensor
#: grid of about ``GRID_SIZE`` points (3 per coordinate or more); above it, as many scattered
#: points (see ``SemiInfiniteProgram.solve``)
GRID_DIM = 6

#: index sets of at most this dimension are priced by default on a dense sample refined by
#: Newton steps (:class:`~sipkl.sip.pricing.dense.DenseSampleOracle`), global in practice there
DENSE_DIM = 2

#: index points per index set at most in the grids that bound the first master (a 1-D grid
#: of 1025 points, 17 × 17 in 2-D, 5³ in 3-D; see ``SemiInfiniteProgram._bounded_start``)
START_POINTS = 1089


class SIPResult(OptimizeResult):
    """The result of a semi-infinite program (a :class:`scipy.optimize.OptimizeResult`).

    Attributes
    ----------
    x : VariableValues
        The value of every variable of the program: ``x[w]`` for a cvxpy Variable ``w``,
        ``x["w"]`` for one created as ``cp.Variable(name="w")`` (see
        :class:`VariableValues`); the variables themselves hold the same values in
        ``.value`` (for :class:`~sipkl.sip.NonlinearSemiInfiniteProgram`: the NumPy array
        of the variables).
    fun, objective : float
        f at ``x``: one number under SciPy's name and cvxpy's (setting either sets both).
    status : RunStatus
        Why the run stopped (``certified_optimal`` only with an optimal master and a proven
        bound on the maximum violation; a success only where the final verification search
        found no violation above the cut, else ``no_new_column``); ``success``, ``message``
        as for :class:`~sipkl.core.engine.CGResult`.
    points, multipliers : list of arrays
        Per semi-infinite constraint, its active index points (m_j × p) and their multipliers
        (the cvxpy duals): the discrete measure of the dual program.
    max_violation : float
        The largest g_j(x, t) found at the returned x (raw units; ≤ 0 up to the tolerance at
        a solution): over the last round's candidates and the index points (after the local
        reduction, its final dense search), and over a verification search of every index set
        run once at the end of ``solve``, apart from the pricing's points
        (:func:`~sipkl.sip.pricing.verification.verify`): a scrambled Sobol sample of the set at a
        fixed seed (``VERIFY_BASE``·2^p points up to ``VERIFY_BUDGET``, and as many on its
        boundary; every point of a finite set), its best local maxima refined by a local
        ascent inside the set. Where that search finds g_j(x, t)/s_j above the cut
        ``tol + atol``, a success becomes ``no_new_column`` and the message says where. A
        value found, not a bound: a maximum narrower than the sample's spacing can be missed;
        it is proved only where ``violation_proved`` (then ``upper_bound`` bounds it). For
        ``solve_discretized``: measured on the grid refined twice (its points and
        midpoints), without the search.
    upper_bound : float or None
        The oracle's proven bound on max_j max_t g_j(x, t)/s_j (relative units: see
        ``scales``), ``None`` without a proof.
    violation_proved : bool
        Whether ``upper_bound`` proves the largest violation at the returned x (a global
        oracle: ``"lipschitz"``, or ``"grid"`` over finite sets).
    lower_bound : float or None
        The relaxation: the value of the last restricted master of the exchange method,
        which imposes the constraints at finitely many index points only, where that master
        is convex and was solved to optimality: a lower bound on the optimum of a
        minimization, an upper bound on that of a maximization (to the conic solver's
        accuracy, about 10⁻⁸ of the scales), whatever the oracle. It equals ``objective``
        unless the local reduction moved x. ``None`` where the last master was not solved
        to optimality, and for :class:`~sipkl.sip.NonlinearSemiInfiniteProgram`, whose
        local NLP master may stop at a local optimum of the relaxation: its value bounds
        nothing.
    cut : float or None
        ``tol + atol``: an index point whose relative violation g_j(x, t)/s_j exceeds it is
        violated (the exchange method's rule and the verification's); ``None`` where
        nothing was verified (``solve_discretized``, a callback's intermediate results).
    bracket : dict or None
        ``{"lower", "upper", "x"}``: the optimum of a convex program lies in
        [lower, upper] — one end the exchange method's relaxation (``lower_bound``), the
        other f(x̄) at a point x̄ (``x``, a :class:`VariableValues`) that a global oracle
        proved feasible on every index set (a proof; ``solve(bracket=...)``, Mitsos's
        restriction of the right-hand side, :mod:`sipkl.sip.phases.feasible_point`);
        ``None`` without such a point. The variables keep the result's ``x`` (the
        exchange method's, or the local reduction's); ``problem.load(result.bracket["x"])``
        puts the proved-feasible point in them (:meth:`SemiInfiniteProgram.load`).
    reduction : dict or None
        The local reduction phase (``solve(reduce=...)``): ``nit`` (rounds), ``steps``
        (|Δf|/σ_f per round, σ_f the objective's scale: quadratic convergence shows here),
        ``converged`` and ``stopped`` (the time limit ended its rounds); ``None`` where it
        did not run or did not improve on the exchange method's answer (the message says
        so).
    scales : list of float
        s_j, the natural scale of each constraint at the solution (the cut is relative to it).
    nit, history, attempts, gap, random_state
        As for :class:`~sipkl.core.engine.CGResult` (``history["best_price"]``: the largest
        relative violation per round; ``random_state`` the seed of the pricing's random
        starts, :data:`~sipkl.core.engine.DEFAULT_SEED` where none was given).
    """

    #: the two names of f(x), SciPy's and cvxpy's: setting one sets the other
    _SAME = {"fun": "objective", "objective": "fun"}

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.update(*args, **kwargs)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if key in self._SAME:
            super().__setitem__(self._SAME[key], value)

    __setattr__ = __setitem__

    def update(self, *args, **kwargs) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value


class VariableValues(dict):
    """The values of a program's cvxpy variables (a ``dict``): keyed by each variable's name
    (the one given as ``cp.Variable(name="w")``, else cvxpy's own, e.g. ``var12``, which
    changes between sessions), and readable through the Variable objects themselves.

    ``values[w]`` for a Variable ``w`` of the program (found by its ``id``, whatever its
    name); ``values["w"]`` by name. Where several variables share a name, each is keyed by
    cvxpy's unique name ``var<id>`` instead, and ``values["w"]`` is a ``KeyError`` saying
    so: read them through the objects. A plain dict besides (``dict(values)``, pickle).

    Parameters
    ----------
    variables : sequence of cvxpy Variable
    values : sequence
        Their values, in the same order.
    """

    def __init__(self, variables, values):
        variables = list(variables)
        names = [v.name() for v in variables]
        shared = {name for name in names if names.count(name) > 1}
        keys = [f"var{v.id}" if name in shared else name for v, name in zip(variables, names)]
        super().__init__(zip(keys, values))
        self._keys = {v.id: key for v, key in zip(variables, keys)}
        self._shared = {name: [k for k, n in zip(keys, names) if n == name] for name in shared}

    def _key(self, key):
        """The dict key of ``key`` (a Variable, or a name); a KeyError for a Variable of
        another program or a shared name."""
        if isinstance(key, cp.Variable):
            if key.id not in self._keys:
                raise KeyError(f"the variable {key.name()!r} (id {key.id}) is not a variable "
                               "of this program")
            return self._keys[key.id]
        if isinstance(key, str) and key in self._shared:
            raise KeyError(f"{key!r} names {len(self._shared[key])} variables (keyed "
                           f"{self._shared[key]}): index by the cvxpy Variable objects")
        return key

    def __getitem__(self, key):
        return super().__getitem__(self._key(key))

    def __contains__(self, key) -> bool:
        try:
            return super().__contains__(self._key(key))
        except KeyError:
            return False

    def get(self, key, default=None):
        return self[key] if key in self else default


class ProgramBase(abc.ABC):
    """What :class:`SemiInfiniteProgram` (cvxpy) and
    :class:`~sipkl.sip.NonlinearSemiInfiniteProgram` (NumPy) share around their masters: the
    semi-infinite constraints, each a copy with a name and an index set of its own; the
    options of a run (one per constraint, the oracle and its default, the first index points,
    the pruning rule, the engine); the fixed grid of :meth:`discretize`; and the fields of a
    :class:`SIPResult` that both fill alike.

    A subclass builds its ``master`` (an :class:`~sipkl.sip.masters.discretized.IndexPointMaster` whose
    solutions' ``model`` holds the ``price``, with ``reset()`` and ``n_variables``) after this
    ``__init__``, and states :meth:`_result`.

    Parameters
    ----------
    objective
        The program's objective (a cvxpy objective, or a NumPy function).
    semi_infinite : list of :class:`~sipkl.sip.constraints.semi_infinite.IndexConstraint`
        The semi-infinite constraints, checked by the subclass (an unnamed one is called
        ``"g0"``, ``"g1"``, … by its position; names must be distinct).
    constraints : list
        The finite constraints.
    """

    def __init__(self, objective, semi_infinite: Sequence[IndexConstraint], constraints):
        self.objective, self.constraints = objective, list(constraints)
        self.semi_infinite = [_owned(c, f"g{j}" if c.name is None else c.name)
                              for j, c in enumerate(semi_infinite)]
        names = [c.name for c in self.semi_infinite]
        if len(set(names)) < len(names):
            raise ValueError(f"semi_infinite: constraint names must be distinct, got {names}")

    # -- the options of a run ------------------------------------------------------
    @staticmethod
    def _check_tol(tol) -> None:
        if not (isinstance(tol, numbers.Real) and np.isfinite(tol) and tol >= 0):
            raise ValueError(f"tol must be a finite number ≥ 0, got {tol!r}")

    def _n_price(self, n_price) -> int:
        """``n_price``, checked; default n, the number of scalar variables."""
        if n_price is None:
            return self.master.n_variables
        if not (isinstance(n_price, numbers.Integral) and n_price >= 1):
            raise ValueError(f"n_price must be an integer ≥ 1 or None, got {n_price!r}")
        return n_price

    @staticmethod
    def _prune(prune, sense: int = 1):
        """The engine's ``prune`` of ``"increase"`` (the drop rule, ``sense`` 1 for a
        minimization, −1 for a maximization), ``True`` or ``False``."""
        if prune == "increase":
            return DropAfterIncrease(sense)
        if not isinstance(prune, bool):
            raise ValueError(f"prune must be 'increase', True or False, got {prune!r}")
        return prune

    def _per_constraint(self, value, name: str) -> list:
        """``value`` for each constraint: one for all, a list, or a dict by name."""
        n = len(self.semi_infinite)
        if isinstance(value, dict):
            unknown = set(value) - {c.name for c in self.semi_infinite}
            if unknown:
                raise ValueError(f"{name}: no constraint named {sorted(unknown)}")
            return [value.get(c.name) for c in self.semi_infinite]
        if isinstance(value, (list, tuple)):
            if len(value) != n:
                raise ValueError(f"{name} must have one entry per constraint ({n}), got "
                                 f"{len(value)}")
            return list(value)
        if value is not None and not (callable(value) or isinstance(value, numbers.Real)):
            raise TypeError(f"{name} must be a number, a callable, a list or a dict, got "
                            f"{type(value).__name__}")
        return [value] * n

    def _oracle(self, oracle, constants, exact=()):
        """The run's oracle object: ``oracle`` (a name or an object), checked, or the
        default (:meth:`_default_oracle`; ``exact``: the positions of the constraints imposed
        by their exact robust counterparts)."""
        if oracle is None:
            return self._default_oracle(constants, exact)
        if isinstance(oracle, str):
            makers = {"ipopt": MultiStartOracle, "grid": self._grid_oracle,
                      "lipschitz": LipschitzOracle, "interval": IntervalOracle,
                      "dense": DenseSampleOracle,
                      "sets": SetSearchOracle, "affine": AffineOracle}
            if oracle not in makers:
                raise ValueError(f"oracle must be one of {sorted(makers)} or an object with a "
                                 f"price(pricing_round) method, got {oracle!r}")
            if oracle == "lipschitz" and any(c is None for c in constants):
                raise ValueError("lipschitz: oracle='lipschitz' needs a Lipschitz constant for "
                                 "every semi-infinite constraint")
            oracle = makers[oracle]()
        if not isinstance(oracle, Oracle):
            raise TypeError(f"oracle must be a name or an object with a price(pricing_round) "
                            f"method, got {type(oracle).__name__}")
        beyond = [c.T for c in self.semi_infinite if isinstance(c.T, ConvexSet)]
        if beyond and isinstance(oracle, (MultiStartOracle, BranchAndBoundOracle)):
            raise ValueError(f"oracle: {type(oracle).__name__} searches boxes (over "
                             f"{beyond[0]!r} its bounding box, whose maxima may lie outside "
                             "the set): use oracle='sets' (the default there) or 'affine'")
        return oracle

    def _grid_oracle(self):
        """``oracle="grid"``: the enumeration of finite index sets (:class:`GridOracle`, exact);
        over continuous ones a grid of about ``GRID_SIZE`` points covering each set, its local
        maxima and the current index points refined inside the set
        (:class:`~sipkl.sip.pricing.sets.SetSearchOracle` without its affine shortcut; no
        proof)."""
        if all(c.T.finite for c in self.semi_infinite):
            return GridOracle(size=GRID_SIZE)
        return SetSearchOracle(GRID_SIZE, affine=False, dense_dim=GRID_DIM)

    def _default_oracle(self, constants, exact=()):
        """The default over the constraints not in ``exact``: ``"lipschitz"`` where a
        constraint states a constant, ``"grid"`` (exact) where every index set is finite, a
        :class:`~sipkl.sip.pricing.sets.SetSearchOracle` where some index set is beyond a box
        (a polytope, an ellipsoid, a product: the box oracles would search its bounding
        box), ``"dense"`` where every index set has dimension ≤ 2, else ``"ipopt"``; the
        constraints in ``exact`` (affine in t) priced exactly beside it
        (:class:`~sipkl.sip.pricing.sets.ExactWhereAffine`)."""
        rest = [j for j in range(len(self.semi_infinite)) if j not in exact]
        sets = [self.semi_infinite[j].T for j in rest]
        beyond = [T for T in sets if isinstance(T, ConvexSet)]
        if any(constants[j] is not None for j in rest):
            if beyond:
                raise ValueError(f"lipschitz: the Lipschitz oracle searches boxes, not "
                                 f"{beyond[0]!r}: leave lipschitz out over such sets")
            if any(constants[j] is None for j in rest):
                raise ValueError("lipschitz: oracle='lipschitz' needs a Lipschitz constant for "
                                 "every semi-infinite constraint")
            choice = LipschitzOracle()
        elif all(T.finite for T in sets):
            choice = GridOracle(size=GRID_SIZE)
        elif beyond:
            choice = SetSearchOracle()
        elif all(T.dim <= DENSE_DIM for T in sets):
            choice = DenseSampleOracle()
        else:
            choice = MultiStartOracle()
        if not exact:
            return choice
        return ExactWhereAffine([self.semi_infinite[j].T for j in exact],
                                choice if rest else None)

    def _initial_columns(self, initial_points, exact=()) -> list[Column]:
        """The first index points: ``initial_points`` checked, or n + 1 points of each index
        set but those of the constraints in ``exact`` (imposed by their counterparts)."""
        if initial_points is None:
            n = self.master.n_variables + 1
            return [Column.make(c.T, t) for j, c in enumerate(self.semi_infinite)
                    if j not in exact for t in c.T.initial_points(n)]
        points = self._per_constraint(list(initial_points), "initial_points")
        columns = []
        for c, rows in zip(self.semi_infinite, points):
            rows = np.asarray(rows, dtype=float)
            if rows.ndim == 1:  # m points of a 1-D set, or one point
                rows = rows[:, None] if c.T.dim == 1 else rows[None, :]
            if rows.ndim != 2 or rows.shape[1] != c.T.dim:
                raise ValueError(f"initial_points: the points of constraint {c.name!r} must be "
                                 f"an (m, {c.T.dim}) array, got shape {rows.shape}")
            lower, upper = c.T.param_bounds()
            if not np.all(np.isfinite(rows)) or np.any(rows < lower) or np.any(rows > upper) \
                    or not (c.T.finite or np.all(c.T.contains(rows))):
                raise ValueError(f"initial_points: the points of constraint {c.name!r} must "
                                 f"lie in {c.T!r}")
            columns += [Column.make(c.T, t) for t in rows]
        return columns

    def _engine(self, oracle, callback, **options) -> ColumnGeneration:
        """The engine over this program's master; ``callback`` sees each round's
        :class:`SIPResult`."""
        return ColumnGeneration(
            self.master, oracle,
            callback=None if callback is None else (lambda cg: callback(self._result(cg))),
            **options)

    # -- the fixed grid ------------------------------------------------------------
    def discretize(self, n_points: int = 101) -> list[Column]:
        """The index points of the fixed grid: ``n_points`` per coordinate of each box (the
        tensor grid, endpoints included; every point of a finite set)."""
        if not (isinstance(n_points, numbers.Integral) and n_points >= 2):
            raise ValueError(f"n_points must be an integer ≥ 2, got {n_points!r}")
        return [Column.make(c.T, t) for c in self.semi_infinite for t in c.T.tensor_grid(n_points)]

    def _solve_on_grid(self, n_points: int) -> SIPResult:
        """The master once over :meth:`discretize`, through the engine as a master that
        prices nothing; ``max_violation`` measured on the grid with ``2·n_points − 1`` points
        per coordinate."""
        columns = self.discretize(n_points)
        self.master.reset()
        engine = ColumnGeneration(_Unpriced(self.master), GridOracle(), max_iter=1)
        return self._result(engine.run(IndexPointSpace(self.semi_infinite), columns),
                            check_points=[c.T.tensor_grid(2 * n_points - 1)
                                          for c in self.semi_infinite])

    # -- the result ----------------------------------------------------------------
    @abc.abstractmethod
    def _result(self, cg, check_points=None) -> SIPResult:
        """The :class:`SIPResult` of an engine result (see :meth:`_located`,
        :meth:`_assemble`)."""

    def _located(self, cg, check_points=None) -> dict:
        """The fields of a :class:`SIPResult` that both programs fill alike from an engine
        result: per constraint its index points and their multipliers, the largest violation
        found over ``check_points`` (default: the index points and the last round's
        candidates) at the master's x (``NaN`` without a master solution), the oracle's
        bound, the scales, and ``lower_bound``: the last master's value where it is convex
        and optimal (then it is a relaxation); ``cut``, ``reduction`` and ``bracket``
        empty."""
        model = cg.master.model  # None: a failed first solve
        relaxed = model is not None and cg.master.convex and cg.master.status is Status.OPTIMAL
        groups = self.master.groups(cg.columns)
        points = self.master.points(cg.columns, groups)
        price = None if model is None else model.price
        if check_points is None:
            candidates = [] if cg.pricing is None else cg.pricing.columns
            check_points = [np.vstack([p] + [np.array([k.theta]) for k in candidates
                                             if k.family is c.T]).reshape(-1, c.T.dim)
                            for c, p in zip(self.semi_infinite, points)]
        violation = np.nan if price is None else max(
            (float(c.values(p.x, t).max()) for c, p, t in
             zip(self.semi_infinite, price, check_points) if len(t)), default=-np.inf)
        multipliers = [np.full(len(g), np.nan) if self.master.integer
                       else np.asarray(cg.weights)[g] for g in groups]
        return {"points": points, "multipliers": multipliers,
                "max_violation": violation, "upper_bound": cg.upper_bound,
                "violation_proved": cg.upper_bound is not None,
                "lower_bound": self._bound(cg.master) if relaxed else None, "cut": None,
                "reduction": None, "bracket": None,
                "scales": [] if price is None else [p.scale for p in price]}

    def _bound(self, solution) -> float:
        """The bound on the optimum of the master's optimal ``solution``: its value, less
        its gap for a mixed-integer master (a minimization's; more, a maximization's)."""
        if not self.master.integer:
            return solution.objective
        sense = 1.0 if isinstance(self.master.objective, cp.Minimize) else -1.0
        return solution.objective - sense * solution.gap

    @staticmethod
    def _reduced(result: SIPResult, reduced, stopped: bool) -> bool:
        """``result`` updated by a local reduction's answer ``reduced`` (its x aside; then
        ``True``): the objective, the violation, the points and multipliers, ``reduction``,
        the failed solves as attempts, and no oracle bound (one was at another x). Where
        ``reduced`` is ``None`` (``False``) the message says why the exchange method's answer
        stands; ``stopped``: the time limit ended the reduction's rounds."""
        if reduced is None:
            result.message += ("; the time limit stopped the local reduction before it "
                               "improved on this answer, which stands" if stopped
                               else "; the local reduction did not improve on this answer")
            return False
        result.objective, result.max_violation = reduced["objective"], reduced["max_violation"]
        result.points, result.multipliers = reduced["points"], reduced["multipliers"]
        result.reduction = {k: reduced[k] for k in ("nit", "steps", "converged")}
        result.reduction["stopped"] = stopped
        result.upper_bound, result.violation_proved = None, False
        result.attempts += [(result.nit, a) for a in reduced["attempts"]
                            if a.status is not Status.OPTIMAL]
        result.message += (f"; then {reduced['nit']} rounds of local reduction "
                           + ("(converged)" if reduced["converged"]
                              else "(stopped by the time limit)" if stopped
                              else "(not converged)"))
        if reduced["converged"] and result.status is RunStatus.ITERATION_LIMIT:
            # converged, and its search found no violation above the cut: what the exchange
            # method's own stop would have claimed
            result.status, result.success = RunStatus.CONVERGED_LOCAL, True
            result.message += (", whose search found no violation above the cut: a local "
                               "solution")
        return True

    def _verify(self, result: SIPResult, cut: float, xs: list, exact=()) -> None:
        """The final verification search (:func:`~sipkl.sip.pricing.verification.verify`) at the
        answer, ``xs`` the numeric x at which each constraint is evaluated, over every
        constraint but those of ``exact`` (priced exactly at this x): ``max_violation``
        becomes the largest violation found by it or before it. Where the largest relative
        violation found, g_j(x, t)/s_j, exceeds ``cut`` (``tol + atol``, the exchange
        method's, which becomes ``result.cut``), the message says where, a proven bound that
        it contradicts is no longer ``violation_proved``, and a success becomes
        ``no_new_column``: the oracle stopped while a violation remains."""
        result.cut = cut
        searched = [j for j in range(len(self.semi_infinite)) if j not in exact]
        if not result.scales or not searched:  # no master solution, or nothing to search
            return
        found = verify([self.semi_infinite[j] for j in searched],
                       [ConstraintPrice(xs[j], result.scales[j]) for j in searched])
        j = searched[found.j]
        raw = found.relative * result.scales[j]
        result.max_violation = max(result.max_violation, raw)
        if not found.relative > cut:
            return
        result.message += (f"; the final verification search found g = {raw:.3g} on "
                           f"constraint {self.semi_infinite[j].name!r} at t = "
                           f"{np.round(found.t, 10).tolist()}, {found.relative:.3g} of its "
                           f"scale, above the cut {cut:.3g}")
        if result.violation_proved:
            result.violation_proved = False
            result.message += ", which contradicts the oracle's bound"
        if result.success:
            result.status, result.success = RunStatus.NO_NEW_COLUMN, False
            result.message += ": the oracle missed it, and the run has not converged"

    @staticmethod
    def _assemble(cg, located: dict, x, status: RunStatus, message: str,
                  **extra) -> SIPResult:
        """The :class:`SIPResult` of an engine result: ``x``, ``status`` and ``message`` as
        the program states them, ``objective`` (and ``fun``, which the result keeps equal to
        it) the master's value at x, the fields :meth:`_located` found, ``extra`` fields,
        and the engine's counts."""
        return SIPResult(x=x, objective=cg.master.objective, status=status,
                         success=status.success, message=message, **located, **extra,
                         nit=cg.nit, history=cg.history, attempts=cg.attempts, gap=cg.gap,
                         random_state=cg.random_state)


class _Unpriced:
    """A master that solves like ``master`` and prices nothing (a fixed set of columns)."""

    def __init__(self, master):
        self.master = master

    def solve(self, columns, warm_start=None):
        solution = self.master.solve(columns, warm_start)
        solution.price = None
        return solution


def _owned(constraint: IndexConstraint, name: str) -> IndexConstraint:
    """A copy of ``constraint`` named ``name`` with an index set of its own."""
    owned = copy.copy(constraint)
    owned.name, owned.T = name, constraint.T.named(name)
    return owned


class SemiInfiniteProgram(ProgramBase):
    """``min f(x)`` (or ``max``) subject to finite cvxpy constraints and semi-infinite ones.

    Parameters
    ----------
    objective : cvxpy.Minimize or cvxpy.Maximize
    semi_infinite : SemiInfiniteConstraint or list of them
        Each with its own index set; a constraint without a name is called ``"g0"``,
        ``"g1"``, … by its position. The worst cases ``max_over(f, x, T)`` of the objective
        (:mod:`~sipkl.sip.constraints.worst_case`) add theirs after these; without them the
        list may be empty.
    constraints : list of cvxpy constraints
        The finite constraints.

    Examples
    --------
    The best quadratic approximation of eᵗ on [−1, 1] in the uniform norm, |err(c, t)| ≤ z,
    with a stated Lipschitz constant of t ↦ err(c, t), which makes the pricing a proof:

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from sipkl.sip import Box, SemiInfiniteConstraint, SemiInfiniteProgram
    >>> c, z = cp.Variable(3), cp.Variable()
    >>> err = lambda c, t: np.vander(t[:, 0], 3, increasing=True) @ c - np.exp(t[:, 0])
    >>> T = Box([-1.0], [1.0])
    >>> problem = SemiInfiniteProgram(cp.Minimize(z), [
    ...     SemiInfiniteConstraint(lambda c, t: err(c, t) - z, c, T, vectorized=True),
    ...     SemiInfiniteConstraint(lambda c, t: -err(c, t) - z, c, T, vectorized=True)])
    >>> result = problem.solve(lipschitz=lambda c: abs(c[1]) + 2 * abs(c[2]) + np.e)
    >>> result.status.value, round(result.objective, 5)
    ('certified_optimal', 0.04502)
    """

    def __init__(self, objective, semi_infinite=(), constraints: Sequence = ()):
        if not isinstance(objective, (cp.Minimize, cp.Maximize)):
            raise TypeError(f"objective must be cvxpy.Minimize or cvxpy.Maximize, got "
                            f"{type(objective).__name__}")
        constraints = list(constraints)
        if not all(isinstance(c, cp.constraints.constraint.Constraint) for c in constraints):
            raise TypeError("constraints must be a list of cvxpy constraints")
        sics = [semi_infinite] if isinstance(semi_infinite, IndexConstraint) \
            else list(semi_infinite)
        sics += worst_case_constraints(objective, constraints)
        numpy = [(f"g{j}" if c.name is None else c.name, type(c).__name__)
                 for j, c in enumerate(sics)
                 if isinstance(c, IndexConstraint) and not isinstance(c, SemiInfiniteConstraint)]
        if numpy:  # a NonlinearConstraint: g of a NumPy x
            raise TypeError(f"semi-infinite constraint {numpy[0][0]!r}: a {numpy[0][1]} is "
                            "written in NumPy and has no cvxpy expressions (solve it with "
                            "sipkl.sip.NonlinearSemiInfiniteProgram)")
        if not sics or not all(isinstance(c, SemiInfiniteConstraint) for c in sics):
            raise TypeError("semi_infinite must be a SemiInfiniteConstraint or a list of "
                            "them, non-empty unless the objective has a max_over")
        super().__init__(objective, sics, constraints)
        self.master = DiscretizedMaster(objective, self.semi_infinite, constraints)

    # -- solving -------------------------------------------------------------------
    def solve(self, oracle=None, *, tol: float = 1e-6, atol: float = 0.0, max_iter: int = 100,
              time_limit: float = None, lipschitz=None, initial_points=None, n_price=None,
              prune=None, random_state=None, verbose: int = 0, callback=None,
              solvers: Sequence[str] = DEFAULT_SOLVERS, checkpoint=None,
              resume=None, reduce=None, certify=None, bracket=None,
              counterparts=None) -> SIPResult:
        """Solve by column generation (the exchange method) on
        :class:`~sipkl.core.engine.ColumnGeneration`.

        Parameters
        ----------
        oracle : str or an oracle object, optional
            ``"dense"``: a dense sample of each box, its local maxima refined by
            Newton steps (:class:`~sipkl.sip.pricing.dense.DenseSampleOracle`; global in practice
            in dimension ≤ 2, no proof: at best ``converged_local``); ``"sets"``: the same
            search inside polytopes, ellipsoids and products
            (:class:`~sipkl.sip.pricing.sets.SetSearchOracle`); ``"affine"``: exact pricing
            where g is affine in t (a vertex LP over a polytope, the closed form over an
            ellipsoid; :class:`~sipkl.sip.pricing.sets.AffineOracle`, which checks the
            affinity each round and proves its bound); ``"ipopt"``:
            multi-start local searches (:class:`~sipkl.pricing.MultiStartOracle`; at best
            ``converged_local``); ``"grid"``: every point of finite index sets
            (:class:`~sipkl.pricing.GridOracle`; exact, hence ``certified_optimal``, where
            every set is a :class:`~sipkl.sip.FiniteSet`), and over a continuous set a grid
            of about ``GRID_SIZE`` points that covers it (the tensor grid of a box, its
            radial image in a convex set; in dimension above ``GRID_DIM``, 6, as many
            scattered points), its local maxima refined inside the set (no proof: at best
            ``converged_local``); ``"lipschitz"``: the certified
            :class:`~sipkl.sip.LipschitzOracle`. Default: ``"lipschitz"`` when ``lipschitz``
            is given, else ``"grid"`` where every index set is finite, ``"sets"`` where one
            is beyond a box, ``"dense"`` where every one has dimension ≤ ``DENSE_DIM`` (2),
            else ``"ipopt"``.
        bracket : bool, optional
            Whether to look for a point proved feasible (:mod:`sipkl.sip.phases.feasible_point`), whose
            objective bounds the optimum from the other side than the relaxation
            (``result.bracket``). Needs a proof on every index set: a box's by its
            Lipschitz constant (``lipschitz``) or else by interval arithmetic on g, a finite
            set's by enumeration. Default: with a branch-and-bound oracle (``"lipschitz"``,
            ``"interval"``), where every index set is finite, or after a run that
            ``certify`` proved (no constraint imposed by its counterpart).
        reduce : bool, optional
            Whether a local reduction phase follows the exchange method
            (:mod:`sipkl.sip.phases.reduction`: Newton rounds on the reduced problem, quadratically
            convergent, each one the user's convex problem with second-order models of the
            active constraints): the last digits of the objective, to about 10⁻¹⁰ of its
            scale where the solvers allow, from the exchange method's ``tol``. Its answer
            is kept only where a final search of every index set finds no violation above
            the cut. It runs on every index set: boxes of any dimension, polytopes,
            ellipsoids, products and smooth sets (the maximizers' faces,
            :mod:`sipkl.sip.pricing.faces`; a set that states no inequalities, a budget set,
            keeps its plain index points). It also follows a run that reached ``max_iter``:
            where its rounds converge and their search finds no violation above the cut, the
            run ends ``converged_local`` (the message says so). Default: after a local
            search without a proof
            (the default oracle, ``"dense"``, ``"sets"``, ``"ipopt"``), not after
            ``"grid"`` nor a certified oracle, whose proof holds at the exchange method's x
            (the exchange method's value stays in ``lower_bound``).
        certify : bool, optional
            Whether to prove the answer of a run without a proof
            (:mod:`sipkl.sip.phases.certification`): interval arithmetic on each g over its
            box (a branch and bound, :class:`~sipkl.sip.IntervalOracle`, no constant from
            the user; index sets of dimension ≤ ``CERTIFY_DIM``, 3; finite sets enumerated,
            g affine in t by its support function) bounds the violation at the returned x,
            and the master over the exchange method's and the returned x's active points
            bounds the optimum: where the violation is within the cut and f(x) within
            ``tol·σ_f`` of that relaxation, the run ends ``certified_optimal``. Where it
            cannot (a set beyond a box, g that interval arithmetic cannot evaluate — it
            converts t with ``np.asarray``, branches on t, closes over a variable — or a
            search out of cells) the message says why. Default: after a local search
            without a proof (as ``reduce``).
        counterparts : bool, optional
            Whether every constraint whose g passes the affinity check in t (over a
            continuous set with a conic form, no Lipschitz constant stated) is imposed by
            its exact robust counterpart (:func:`~sipkl.sip.robust.affine_counterparts`,
            in its constraint's scale) and, with the default oracle, priced exactly with a
            proof (:class:`~sipkl.sip.pricing.sets.ExactWhereAffine`); where every
            constraint is, the one master is solved at tight tolerances and the run ends
            after one round. Default: with the default oracle.
        tol, atol : float
            A point is violated when g_j(x, t) > (tol + atol)·s_j: ``tol`` and ``atol`` are
            both relative to the constraint's scale s_j (see
            :class:`~sipkl.sip.masters.discretized.DiscretizedMaster`), the one rule in any units.
        max_iter, time_limit, random_state, verbose
            As for :class:`~sipkl.core.engine.ColumnGeneration`. ``time_limit`` counts from the
            call and ends every phase: the exchange method (checked after each master solve
            and each pricing), then the local reduction and the bracket (checked before each
            step of their rounds: a climb, a solve, a check), each overrunning it by one
            such step at most. A reduction or bracket cut short keeps its last complete
            round, or else the exchange method's answer stands; the message says so. The
            final verification search (``max_violation``) runs in any case: its cost is
            bounded (a sample of at most ``VERIFY_BUDGET`` points, and a few local ascents,
            per index set).
        n_price : int, optional
            Index points added per round at most. Default: n, the number of scalar variables
            (by Carathéodory's theorem an optimal dual measure needs at most n index points):
            every maximizer of the violation that carries one may move in one round (the
            exchange method), where a smaller cap moves some of them per round — e.g. 5 of
            the 11 extrema of the Chebyshev approximation of t¹⁰.
        prune : {"increase", True, False}, optional
            When to drop the index points whose multiplier is 0. ``"increase"`` (the default
            of a continuous program; a mixed-integer one has no multipliers and keeps every
            point, ``False``, the only value it takes):
            after a master solve whose value has increased (decreased, for a maximization)
            by more than ``DROP_RTOL`` times the objective's scale since the last drop, and
            else keep every point (:class:`~sipkl.sip.masters.drop_rule.DropAfterIncrease`; the
            exchange method of Hettich & Kortanek 1993, §7, which converges). ``True``: after
            every master solve (the engine's pruning: the smallest masters, but a run can
            cycle where a dropped point is needed again, e.g. from one index point per side
            of |g| ≤ z). ``False``: never (Kelley's cutting planes).
        lipschitz : number, callable, list or dict, optional
            A Lipschitz constant L of t ↦ g_j(x, t) (Euclidean norm in t) valid at every x the
            run visits: a number, or ``L(x)`` of the constraint's numeric x; one for all
            constraints, a list (one per constraint) or a dict by constraint name. A wrong L
            makes a wrong proof: it is the user's statement.
        initial_points : list of arrays, optional
            Per constraint, the first index points (m × p). Default: ``n + 1`` points spread
            over each T_j (``T.initial_points``), n the number of scalar variables (the size
            of a reference set of Chebyshev approximation), or, where the master over them
            is unbounded, the first tensor grid of 4^j + 1 points per coordinate that bounds
            it (up to ``START_POINTS`` points per index set; else the run ends
            ``unbounded``, the message giving the direction).
        callback : callable, optional
            ``callback(intermediate_result)`` (a :class:`SIPResult`) after each iteration;
            raise ``StopIteration`` to stop.
        solvers : sequence of str
            cvxpy solvers for the master, tried in order. With integer or boolean variables
            the default list is :data:`~sipkl.solvers.cvx.MIXED_INTEGER_SOLVERS` (HiGHS for
            mixed-integer LPs, ECOS_BB for mixed-integer conic programs), and the run has no
            local reduction (``reduce=True`` is a ``ValueError``) and no multipliers
            (``multipliers`` are NaN): see :class:`~sipkl.sip.DiscretizedMaster`.
        checkpoint, resume : path, optional
            Write the run's state there after each iteration / continue the run saved there
            (as for :class:`~sipkl.core.engine.ColumnGeneration`): the same problem solved with the
            same options from ``resume`` gives the uninterrupted run's result.
        """
        self._check_tol(tol)
        clock = Deadline.after(time_limit)
        constants = self._per_constraint(lipschitz, "lipschitz")
        if bracket and any(L is None and isinstance(c.T, ConvexSet)
                           for L, c in zip(constants, self.semi_infinite)):
            raise ValueError("bracket: a certified feasible point needs boxes or finite "
                             "index sets (proofs by a Lipschitz constant or by interval "
                             "arithmetic on g)")
        n_price = self._n_price(n_price)
        solvers = check_solvers(solvers)
        if self.master.integer:
            prune, reduce, solvers = self._integer_options(prune, reduce, solvers)
        prune = self._prune("increase" if prune is None else prune,
                            1 if isinstance(self.objective, cp.Minimize) else -1)
        space = IndexPointSpace(self.semi_infinite, constants)
        self.master.solvers = solvers
        if counterparts is None:
            counterparts = oracle is None
        self.master.counterparts = affine_counterparts(self.semi_infinite, skip={
            j for j, L in enumerate(constants) if L is not None},
            weights=self.master.scale_weights, references=self.master.references) \
            if counterparts else []
        exact = self.master.imposed
        # every constraint imposed exactly: the first master is the answer, solved tightly
        self.master.tight = len(exact) == len(self.semi_infinite)
        named, oracle = oracle, self._oracle(oracle, constants, exact)
        if reduce is None:
            reduce = named != "grid" and self._searches(oracle)
        columns = self._initial_columns(initial_points, exact)
        if initial_points is None and resume is None and columns:
            columns = self._bounded_start(columns)  # its last solve is the engine's first
        else:
            self.master.reset()
        engine = self._engine(oracle, callback, tol=tol, atol=atol, max_iter=max_iter,
                              time_limit=clock.remaining(), n_price=n_price, prune=prune,
                              verbose=verbose, random_state=random_state,
                              checkpoint=checkpoint)
        run = engine.run(space, columns, resume)
        result = self._result(run)
        if self.master.integer:
            result.message += ("; the master is mixed-integer: its bound is the value of its "
                               "solver's proof (the value less its gap), and it has no "
                               "multipliers: every index point kept, no local reduction")
        duals = {} if run.master.model is None else run.master.model.counterpart_multipliers
        if reduce and (result.success or result.status is RunStatus.ITERATION_LIMIT):
            duals = self._reduce(result, tol + atol, clock.at) or duals
        checked = self._worst_cases(result, exact, duals, oracle)
        self._verify(result, tol + atol, [c.x_value() for c in self.semi_infinite], checked)
        if certify is None:
            certify = self._searches(oracle)
        columns = self._answer_columns(run.columns, result)
        if certify and result.success and result.lower_bound is not None \
                and not result.violation_proved:
            self._certify(result, columns, checked, tol, tol + atol, clock.at)
        if bracket is None:
            bracket = isinstance(oracle, BranchAndBoundOracle) or all(
                c.T.finite for c in self.semi_infinite) or (
                result.status is RunStatus.CERTIFIED_OPTIMAL and not exact)
        if bracket and result.success:
            self._bracket(result, columns, constants, tol + atol, clock.at)
        return result

    @staticmethod
    def _integer_options(prune, reduce, solvers) -> tuple:
        """``(prune, reduce, solvers)`` of a mixed-integer program: no point dropped and no
        local reduction (both read multipliers, which it has none of: a ``ValueError`` where
        one is asked for), the mixed-integer solvers in place of the default list."""
        if prune not in (None, False):
            raise ValueError(f"prune: a mixed-integer master has no multipliers to drop index "
                             f"points by; it keeps every one (prune=False), got {prune!r}")
        if reduce:
            raise ValueError("reduce: the local reduction steps on the multipliers of a "
                             "continuous master; a mixed-integer one has none")
        return False, False, MIXED_INTEGER_SOLVERS if solvers == DEFAULT_SOLVERS else solvers

    def solve_discretized(self, n_points: int = 101,
                          solvers: Sequence[str] = DEFAULT_SOLVERS) -> SIPResult:
        """Solve the same master once over the fixed grid :meth:`discretize` (the baseline).

        No pricing: the constraints hold at the grid points only. The run goes through the
        engine as a master that prices nothing (status ``fixed_columns`` when the master is
        optimal); ``max_violation`` is measured on the grid with ``2·n_points − 1`` points per
        coordinate (the grid and its midpoints).
        """
        solvers = check_solvers(solvers)
        self.master.solvers = MIXED_INTEGER_SOLVERS if self.master.integer \
            and solvers == DEFAULT_SOLVERS else solvers
        self.master.counterparts, self.master.tight = [], False
        return self._solve_on_grid(n_points)

    def _searches(self, oracle) -> bool:
        """Whether ``oracle`` prices some constraint by a local search without a proof
        (:class:`~sipkl.sip.pricing.dense.DenseSampleOracle`, a
        :class:`~sipkl.sip.pricing.sets.SetSearchOracle`, a
        :class:`~sipkl.pricing.MultiStartOracle`, alone or beside exact pricing): the runs
        that the local reduction follows by default."""
        searched = oracle.rest if isinstance(oracle, ExactWhereAffine) else oracle
        return isinstance(searched, (DenseSampleOracle, SetSearchOracle, MultiStartOracle)) \
            and not all(proves_bound(oracle, c.T, None) for c in self.semi_infinite)

    def _reduce(self, result: SIPResult, cut: float, deadline):
        """The local reduction phase (:func:`~sipkl.sip.phases.reduction.reduce_locally`) from
        ``result``, which it updates where the reduced answer passes its final check; its
        rounds end at ``deadline`` (a ``time.perf_counter()`` instant, or ``None``). Returns
        the multipliers of the constraints imposed by counterparts at the reduced answer
        (``None`` where the exchange method's stands)."""
        if not self.master.semi_infinite or any(c.T.finite for c in self.semi_infinite):
            return None
        values = [v.value for v in self.master.variables]
        clock = Deadline(deadline)
        reduced = reduce_locally(self.master, values, result.points, result.multipliers,
                                 result.scales, self.master.get_state()["objective_scale"],
                                 cut, self.master.solvers, clock)
        if not self._reduced(result, reduced, clock.passed):
            return None
        self.master.set_values(reduced["values"])
        result.x = self._values()
        return reduced["counterpart_multipliers"]

    def _worst_cases(self, result: SIPResult, exact, duals: dict, oracle) -> dict:
        """The constraints imposed by their robust counterparts (``exact``, positions) at
        the returned x: each one's maximizer of t ↦ g_j(x, t) over T_j (the support point of
        its affine model; the ``oracle``'s last round's where it priced this x) as its point,
        the counterpart's multiplier (``duals``, by position; NaN where the solver gave
        none), and its value g_j(x, t*) in ``max_violation``.
        Returns the proven bounds on max_t g_j(x, t)/s_j of those whose g passed the affinity
        check at this x, by position: their maximum is exact, and the final verification
        search skips them."""
        checked = {}
        if not result.scales:
            return checked
        for j in sorted(exact):
            sic = self.semi_infinite[j]
            problem = IndexPointPricing(sic, ConstraintPrice(sic.x_value(), result.scales[j]))
            t, value, bound = oracle.exact_maximum(problem) \
                if isinstance(oracle, ExactWhereAffine) \
                else affine_maximum(problem, affine_model(problem))
            if bound is not None:
                checked[j] = bound
            result.max_violation = max(result.max_violation, value * result.scales[j])
            dual = duals.get(j)
            result.points[j] = t[None]
            result.multipliers[j] = np.array([np.nan if dual is None else dual])
        return checked

    def _answer_columns(self, columns, result: SIPResult) -> list[Column]:
        """The exchange method's index points ``columns`` and, where the local reduction
        moved x, the returned x's active points (``result.points``): the points of the
        relaxation and of the bracket at the answer."""
        if result.reduction is None:
            return list(columns)
        return list(columns) + [Column.make(c.T, t) for c, ts in
                                zip(self.semi_infinite, result.points) for t in ts]

    def _certify(self, result: SIPResult, columns, exact: dict, tol: float, cut: float,
                 deadline) -> None:
        """The certificate of :mod:`~sipkl.sip.phases.certification` at the returned x
        (``exact``: the bounds of the constraints priced exactly, by position; ``columns``:
        :meth:`_answer_columns`), its searches ended at ``deadline``. Where both
        halves hold, ``result`` becomes ``certified_optimal`` with the proven bound in
        ``upper_bound`` and the relaxation in ``lower_bound``; else the message says why
        not."""
        bounds, reason = proved_violations(self.semi_infinite, result.scales, cut, exact,
                                           Deadline(deadline))
        if reason is not None:
            result.message += f"; not certified: {reason}"
            return
        sense = 1.0 if isinstance(self.objective, cp.Minimize) else -1.0
        lower = result.lower_bound
        if result.reduction is not None:  # x moved: the relaxation at its active points too
            value = relaxation(self.master, columns)
            if value is not None:
                lower = max(sense * lower, sense * value) * sense
        gap = sense * (result.objective - lower)
        allowed = tol * self.master.get_state()["objective_scale"]
        if gap > allowed:
            result.message += (f"; not certified: f(x) is {gap:.3g} from the relaxation "
                               f"{lower:.10g}, more than tol·σ_f = {allowed:.3g}")
            return
        result.lower_bound, result.upper_bound = lower, max(bounds)
        result.violation_proved = True
        result.status, result.success = RunStatus.CERTIFIED_OPTIMAL, True
        result.message += (f"; certified: interval arithmetic proved every violation ≤ "
                           f"{max(bounds):.3g} of its scale (cut {cut:.3g}), and f(x) is "
                           f"within {max(0.0, gap):.3g} of the relaxation {lower:.10g}")

    def _bracket(self, result: SIPResult, columns, constants, tol: float,
                 deadline) -> None:
        """``result.bracket`` from a certified feasible point
        (:func:`~sipkl.sip.phases.feasible_point.restricted_feasible_point` from the index
        points ``columns``, :meth:`_answer_columns`, its rounds ended at ``deadline``); the
        variables keep the result's values. The run is a success, so its last master was
        optimal: ``lower_bound`` is the relaxation."""
        relaxation = result.lower_bound
        values = [v.value for v in self.master.variables]
        clock = Deadline(deadline)
        found = restricted_feasible_point(
            self.master, self.master.points(columns, self.master.groups(columns)),
            result.scales, constants, relaxation,
            self.master.get_state()["objective_scale"], tol, self.master.solvers, clock)
        self.master.set_values(values)
        stopped = "; the time limit ended its rounds" if clock.passed else ""
        if found is None:
            result.message += f"; no feasible point was proved (no bracket){stopped}"
            return
        feasible, x = found
        low, high = sorted((relaxation, feasible))
        result.bracket = {"lower": low, "upper": high, "x": self._values(x)}
        result.message += (f"; the optimum lies in [{low:.10g}, {high:.10g}] (the exchange "
                           f"method's relaxation and a feasible point proved by the oracle)"
                           f"{stopped}")

    def _bounded_start(self, columns: list[Column]) -> list[Column]:
        """The first index points: ``columns`` where the master over them is bounded, else
        tensor grids of 4^j + 1 points per coordinate of each box (every point of a finite
        set), j = 1, 2, …, the first over which it is bounded (a polynomial that may dive
        between n + 1 points cannot between enough of them), up to ``START_POINTS`` points
        per index set; the last grid tried where none is (the run then ends ``unbounded``)."""
        j = 1
        while True:
            self.master.reset()
            if self.master.solve(columns).status is not Status.UNBOUNDED:
                return columns
            per_axis = 4 ** j + 1
            if any(per_axis ** c.T.dim > START_POINTS for c in self.semi_infinite):
                return columns
            columns = [Column.make(c.T, t) for c in self.semi_infinite
                       for t in c.T.tensor_grid(per_axis)]
            j += 1

    def _result(self, cg, check_points=None) -> SIPResult:
        """The :class:`SIPResult` of an engine result (variables set to its values)."""
        model = cg.master.model  # None: a failed first solve
        self.master.set_values([] if model is None else model.values)
        located = self._located(cg, check_points)  # g at the variables' values (closures)
        status, message = cg.status, cg.message
        # the master's failed solve is the run's last attempt (its status: cvxpy's)
        failed = cg.attempts[-1][1].status if cg.status is RunStatus.MASTER_FAILED else None
        if failed is Status.INFEASIBLE:
            parts = infeasible_parts(self.master, cg.columns)
            status = RunStatus.INFEASIBLE
            message += ("; the restricted master is infeasible, so is the semi-infinite "
                        "program (the master is a relaxation of it)"
                        + (f"; infeasible on their own: {', '.join(parts)}" if parts else ""))
        elif failed is Status.UNBOUNDED and cg.attempts[-1][0] > 0:
            # a later master has every constraint of a bounded one but the dropped points,
            # whose multipliers were 0: unbounded only by the solver's round-off
            message += ("; a restricted master became unbounded after dropping points with "
                        "zero multipliers, which only round-off allows: the master's problem "
                        "is ill-conditioned (try prune=False, or a better-conditioned model)")
        elif failed is Status.UNBOUNDED:
            direction = unbounded_direction(self.master, cg.columns)
            status = RunStatus.UNBOUNDED
            message += (f"; the restricted master over {len(cg.columns)} index points is "
                        "unbounded, as the semi-infinite program appears to be (no proof: "
                        "more index points could bound it)"
                        + (f"; direction: {_format(direction)}" if direction else ""))
        return self._assemble(cg, located, self._values(), status, message)

    def _values(self, values=None) -> VariableValues:
        """``values`` (in the order of ``master.variables``; default: the variables' current
        values) as a :class:`VariableValues`."""
        variables = self.master.variables
        return VariableValues(variables,
                              [v.value for v in variables] if values is None else values)

    def load(self, values) -> None:
        """Set every variable's ``.value`` from ``values``: a :class:`VariableValues` (as
        ``result.x`` or ``result.bracket["x"]``), or a mapping by variable name.

        E.g. ``problem.load(result.bracket["x"])`` puts the point proved feasible in the
        variables (which hold ``result.x`` after a run). A ``ValueError`` names the variables
        that ``values`` lacks (none is set then), cvxpy's a value of the wrong shape.
        """
        if not isinstance(values, Mapping):
            raise TypeError(f"values must be a mapping of the variables' values (e.g. "
                            f"result.x), got {type(values).__name__}")
        keys = [v if isinstance(values, VariableValues) else v.name()
                for v in self.master.variables]
        missing = [v.name() for v, key in zip(self.master.variables, keys) if key not in values]
        if missing:
            raise ValueError(f"values: no value for the variables {missing}")
        self.master.set_values([values[key] for key in keys])


def _format(direction: dict) -> str:
    """``x = [1, 0, -1], z = -1``: a direction by variable name."""
    return ", ".join(f"{name} = {np.asarray(v).tolist()}"
                     for name, v in direction.items())

