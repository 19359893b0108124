"""Smooth semi-infinite programs that are not convex, written once in NumPy, solved on the
same engine as :class:`~sipkl.sip.SemiInfiniteProgram` with a local NLP master:

    min f(x)  s.t.  c_k(x) ≤ 0 (or = 0),  lower ≤ x ≤ upper,  g_j(x, t) ≤ 0 for all t ∈ T_j.

The column space, the pricing problems and the oracles are those of the convex program
(:class:`~sipkl.sip.pricing.space.IndexPointSpace`, :class:`~sipkl.sip.program.ProgramBase`): a
:class:`~sipkl.sip.NonlinearConstraint` is an :class:`~sipkl.sip.constraints.semi_infinite.IndexConstraint`
whose ``g`` is a NumPy function of a NumPy ``x``, so t ↦ g_j(x_k, t)/s_j is priced by the
same code. Only the master differs: :class:`~sipkl.sip.NonlinearMaster` imposes each
constraint at the current index points and solves the finite, smooth, possibly non-convex
program locally (:mod:`sipkl.solvers.nlp`), from the previous round's x, with the
multipliers of the index points as the columns' weights. x-derivatives that the user does
not state are taken by the complex step or central differences (:mod:`sipkl.sip.constraints.derivatives`).

A local solver proves a local statement only: the run ends ``converged_local`` (or
``stationary_point`` with a proven pricing bound) and never ``certified_optimal``; the
master's value bounds nothing (``lower_bound`` is ``None``); a master that finds no
feasible point has found none locally (``master_failed`` with the solver's message, never
``infeasible``).
"""
from __future__ import annotations

import copy
import itertools
import warnings
from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import Bounds

from ..core.contracts import Column, MasterSolution
from ..core.engine import default_seed
from ..core.run_status import RunStatus
from ..solvers.nlp import ALL_METHODS, METHODS
from ..utils.validation import finite_array
from .constraints.nonlinear import FiniteConstraint, NonlinearConstraint
from .constraints.semi_infinite import IndexConstraint, checked_callable
from .masters.nonlinear import NonlinearMaster
from .phases.nonlinear_reduction import reduce_nonlinear
from .phases.reduction import Deadline
from .phases.saddle import negative_curvature
from .pricing.dense import DenseSampleOracle
from .pricing.space import IndexPointSpace
from .program import ProgramBase, SIPResult
from .sets.box import Box

#: restarts from saddle points at most (``solve(second_order=True)``)
ESCAPES = 3

#: the restarts' distances from a saddle along a direction d (‖d / D‖ = 1, D the variables'
#: sizes), as fractions of the variables' sizes
ESCAPE_STEPS = (0.1, 0.5)

#: directions tried from one saddle: the first of its directions of negative curvature
#: (:func:`~sipkl.sip.phases.saddle.canonical_directions`) at most, then pseudo-random ones, the
#: same in every run (:meth:`~sipkl.sip.phases.saddle.Saddle.escape_directions`)
ESCAPE_DIRECTIONS, ESCAPE_RANDOM = 2, 2


class NonlinearSemiInfiniteProgram(ProgramBase):
    """``min f(x)`` subject to smooth semi-infinite constraints ``g_j(x, t) ≤ 0`` for all
    ``t ∈ T_j``, finite constraints and bounds, all written in NumPy, not necessarily convex:
    the same exchange method as :class:`~sipkl.sip.SemiInfiniteProgram` (its oracles, its
    column space, its engine), with the local NLP master :class:`~sipkl.sip.NonlinearMaster`.

    Parameters
    ----------
    f : callable
        ``f(x) -> float`` for a NumPy x of length n.
    semi_infinite : NonlinearConstraint or list of them
        Each with its own index set (unnamed ones are called ``"g0"``, ``"g1"``, …).
    x0 : array (n,)
        The start of the first master (inside ``bounds``).
    grad_f : callable, optional
        ``grad_f(x) -> (n,)``; ``None``: the complex step or central differences (see
        :mod:`sipkl.sip.constraints.derivatives`).
    bounds : sequence of (lower, upper) pairs or scipy.optimize.Bounds, optional
        One pair per variable, ``None`` or ±inf for no bound.
    constraints : FiniteConstraint, callable, or list of them
        The finite constraints, as SciPy's ``constraints`` (a callable ``c(x)`` is
        ``FiniteConstraint(c)``: c(x) ≤ 0).

    The keywords of sipkl 0.1, ``constraints=`` for the semi-infinite constraints (told
    apart by their type, :class:`~sipkl.sip.NonlinearConstraint`) and ``finite=`` for the
    finite ones, still work with a ``DeprecationWarning`` naming the new keyword; they are
    removed in the next release. Positional calls ``(f, semi_infinite, x0)`` are unchanged.

    Examples
    --------
    Watson's problem 2 (Mitsos's test set): min x₁²/3 + x₂² + x₁/2 s.t.
    (1 − x₁²t²)² − x₁t² − x₂² + x₂ ≤ 0 on [0, 1], not convex in x; the optimum
    (3 − √5)/2 − 3/16 is at x = (−3/4, (1 − √5)/2), the active point t = 0:

    >>> import numpy as np
    >>> from sipkl.sip import Box, NonlinearConstraint, NonlinearSemiInfiniteProgram
    >>> g = lambda x, t: (1 - x[0]**2 * t[:, 0]**2)**2 - x[0] * t[:, 0]**2 - x[1]**2 + x[1]
    >>> program = NonlinearSemiInfiniteProgram(
    ...     lambda x: x[0]**2 / 3 + x[1]**2 + x[0] / 2,
    ...     NonlinearConstraint(g, Box([0.0], [1.0])), x0=[-1.0, -1.0])
    >>> result = program.solve()
    >>> result.status.value, bool(abs(result.objective - ((3 - 5**0.5) / 2 - 3 / 16)) < 1e-8)
    ('converged_local', True)
    """

    def __init__(self, f: Callable, semi_infinite=None, x0=None, *, grad_f: Callable = None,
                 bounds=None, constraints=(), finite=None):
        checked_callable(f, "f", optional=False)
        checked_callable(grad_f, "grad_f")
        semi_infinite, finite = _renamed(semi_infinite, constraints, finite)
        sics = [semi_infinite] if isinstance(semi_infinite, IndexConstraint) \
            else list(semi_infinite or ())
        if not sics or not all(isinstance(c, NonlinearConstraint) for c in sics):
            raise TypeError("semi_infinite must be a NonlinearConstraint or a non-empty list "
                            "of them")
        if x0 is None:
            raise TypeError("x0, the start of the first master, is required")
        x0 = finite_array(x0, "x0")
        lower, upper = _bounds(bounds, len(x0))
        if np.any(x0 < lower) or np.any(x0 > upper):
            outside = np.flatnonzero((x0 < lower) | (x0 > upper))[0]
            raise ValueError(f"x0 must lie within the bounds: x0[{outside}] = {x0[outside]} is "
                             f"outside [{lower[outside]}, {upper[outside]}]")
        finite = [finite] if isinstance(finite, FiniteConstraint) or callable(finite) \
            else list(finite)
        finite = [copy.copy(c) if isinstance(c, FiniteConstraint) else FiniteConstraint(c)
                  for c in finite]
        for k, c in enumerate(finite):
            c.name = f"c{k}" if c.name is None else c.name
        names = [c.name for c in finite]
        if len(set(names)) < len(names):
            raise ValueError(f"constraints: names must be distinct, got {names}")
        super().__init__(f, sics, finite)
        self.master = NonlinearMaster(f, self.semi_infinite, x0, grad_f, lower, upper, finite)
        self._check_start()

    def _check_start(self) -> None:
        """f, g, the finite constraints and their derivatives at x0 (g at the first index
        points): finite numbers of the right shapes, else an error naming the argument."""
        master, x0 = self.master, self.master.x0
        value = np.asarray(master.f(x0), dtype=float)
        if value.size != 1 or not np.isfinite(value).all():
            raise ValueError(f"f must return one finite number, got {value.tolist()} at x0")
        gradient = np.asarray(master.grad_f(x0), dtype=float) if master.grad_f is not None \
            else master.objective_gradient(x0)
        if gradient.shape != x0.shape or not np.all(np.isfinite(gradient)):
            raise ValueError(f"grad_f must return {len(x0)} finite numbers, got "
                             f"{gradient.tolist()} at x0")
        n = len(x0)
        for c in self.semi_infinite:
            points = np.vstack([c.T.initial_points(n + 1), c.T.initial_points(1)])
            c.values(x0, points)
            c.jacobian(x0, points, master.typical)
        for c in master.finite:
            c.jacobian(x0, master.typical)

    def solve(self, oracle=None, *, tol: float = 1e-6, atol: float = 0.0, max_iter: int = 100,
              time_limit: float = None, lipschitz=None, initial_points=None, n_price=None,
              prune="increase", random_state=None, verbose: int = 0, callback=None,
              methods: Sequence[str] = METHODS, checkpoint=None, resume=None,
              reduce=None, second_order: bool = True) -> SIPResult:
        """Solve by the exchange method on :class:`~sipkl.core.engine.ColumnGeneration` with the
        local NLP master.

        The options are those of :meth:`SemiInfiniteProgram.solve
        <sipkl.sip.SemiInfiniteProgram.solve>` (``oracle``: default ``"dense"`` on index
        sets of dimension ≤ 2, ``tol``, ``atol``, ``max_iter``, ``time_limit``,
        ``lipschitz``, ``initial_points``, ``n_price``, ``prune``, ``random_state``,
        ``verbose``, ``callback``, ``checkpoint``, ``resume``, ``reduce``: default with the
        dense oracle), less those of the convex master (no bracket, no unboundedness test:
        the first master over ``initial_points`` must have a solution), and ``methods``, the
        NLP back-ends tried in order (see :class:`~sipkl.sip.NonlinearMaster` and
        :mod:`sipkl.solvers.nlp`). The local reduction here is one NLP solve of the reduced
        problem itself (:mod:`sipkl.sip.phases.nonlinear_reduction`).

        ``second_order`` (default ``True``): a successful run's answer is checked for
        negative curvature of the Lagrangian on the active constraints' tangent space
        (:mod:`sipkl.sip.phases.saddle`); at such a saddle the run restarts from steps along
        several directions (of negative curvature, and fixed pseudo-random ones), both
        signs, and keeps the lowest restart where it is lower by more than ``tol`` of the
        objective's scale (:meth:`_below_saddle`: the answer does not hang on round-off), at
        most ``ESCAPES`` times, within ``time_limit``. A callback sees the restarts' rounds.
        Over index sets beyond boxes and finite sets there is no such check.

        Returns
        -------
        SIPResult
            As for :meth:`SemiInfiniteProgram.solve <sipkl.sip.SemiInfiniteProgram.solve>`,
            with ``x`` the array of the variables, ``finite_multipliers`` (one array per
            finite constraint), ``differences`` (how each derivative was taken:
            ``"stated"``, ``"complex-step"`` or ``"central"``), ``lower_bound`` ``None``
            (a local master's value bounds nothing), and status ``converged_local`` (or
            ``stationary_point`` with a proven pricing bound) at best.
        """
        self._check_tol(tol)
        unknown = [m for m in methods if m not in ALL_METHODS] \
            if not isinstance(methods, str) else [methods]
        if unknown or not methods:
            raise ValueError(f"methods must be a non-empty sequence of {list(ALL_METHODS)}, "
                             f"got {methods!r}")
        constants = self._per_constraint(lipschitz, "lipschitz")
        options = {"tol": tol, "atol": atol, "max_iter": max_iter,
                   "n_price": self._n_price(n_price), "prune": self._prune(prune),
                   "verbose": verbose, "random_state": random_state, "checkpoint": checkpoint}
        space = IndexPointSpace(self.semi_infinite, constants)
        oracle = self._oracle(oracle, constants)
        self.master.methods = tuple(methods)
        if reduce is None:
            reduce = isinstance(oracle, DenseSampleOracle)
        reduce = reduce and not any(c.T.finite for c in self.semi_infinite)
        clock = Deadline.after(time_limit)

        def finish(result):
            """``result`` after the local reduction (where it applies)."""
            if reduce and result.success:
                self._reduce(result, tol + atol, clock.at)
            return result

        def run(start, columns, resume=None, reduced=True):
            """The run from ``start`` (``reduced``: then :func:`finish`); a failed result
            where its first master solve failed in every back-end."""
            engine = self._engine(oracle, callback, time_limit=clock.remaining(), **options)
            self.master.reset(start)
            try:
                result = self._result(engine.run(space, columns, resume))
            except RuntimeError:  # the engine's "failed before any master solution"
                if self.master.failure is None:
                    raise
                return self._failed(self.master.failure, default_seed(random_state))
            return finish(result) if reduced else result

        result = run(self.master.x0, self._initial_columns(initial_points), resume)
        if not all(isinstance(c.T, Box) or c.T.finite for c in self.semi_infinite):
            second_order = False  # the maximizers' motion is known in boxes only
        for _ in range(ESCAPES if second_order else 0):
            if not result.success or clock():
                break
            lower = self._below_saddle(result, run, finish, tol + atol, clock)
            if lower is None:
                break
            result = lower
        self._verify(result, tol + atol, [result.x] * len(self.semi_infinite))
        return result

    def _below_saddle(self, result: SIPResult, run, finish, tol: float, clock: Deadline):
        """Where ``result`` is a saddle (:func:`~sipkl.sip.phases.saddle.negative_curvature`), the
        lowest of the runs restarted near it, lower than ``result`` by more than
        ``tol``·σ_f, else ``None`` (the message then says that x is a saddle); its ``nit``
        and ``attempts`` count every run.

        First the run from the point of x + span(directions of negative curvature) nearest
        the start (:meth:`~sipkl.sip.phases.saddle.Saddle.toward`): where round-off left a flat
        family of KKT points, this is the member it would have reached without the drift;
        where that run ends at the same value, the trials start from its answer. Then, for
        each step s of ``ESCAPE_STEPS`` in turn (the next only where no trial went lower),
        the runs from x ± s·d for each direction d of
        :meth:`~sipkl.sip.phases.saddle.Saddle.escape_directions` (``ESCAPE_DIRECTIONS`` of
        negative curvature, ``ESCAPE_RANDOM`` pseudo-random). Each runs over the first index
        points and the saddle's, without its local reduction; the lowest is then reduced
        (``finish``) and compared again. They run in a fixed order and a later one replaces
        the kept one only where it is lower by more than ``tol``·σ_f, so that neither a
        direction's sign, nor the basis of an eigenspace, nor where a flat family was left,
        nor a near-tie decides the answer."""
        saddle = self._saddle(result)
        if saddle is None:
            return None
        decrease = tol * self.master.objective_scale(result.x)
        columns = self._initial_columns(None) + [
            Column.make(c.T, t) for c, points in zip(self.semi_infinite, result.points)
            for t in points]
        nit, attempts = result.nit, list(result.attempts)

        def trial(start):
            nonlocal nit
            answer = run(np.clip(start, self.master.lower, self.master.upper), columns,
                         reduced=False)
            attempts.extend((nit + it, a) for it, a in answer.attempts)
            nit += answer.nit
            return answer

        base, best = result, None
        for _ in range(ESCAPES):  # along a flat family, to its member nearest the start
            toward = saddle.toward(base.x, self.master.x0)
            if np.abs((toward - base.x) / saddle.size).max() <= ESCAPE_STEPS[0]:
                break  # as near as the trials below start
            moved = trial(toward)
            if moved.success and moved.objective < result.objective - decrease:
                best = moved
                break
            relocated = self._saddle(moved) if moved.success and \
                moved.objective <= result.objective + decrease else None
            if relocated is None:
                break
            base, saddle = moved, relocated  # the same value: the trials start there
        directions = saddle.escape_directions(ESCAPE_DIRECTIONS, ESCAPE_RANDOM)
        for step in ESCAPE_STEPS:
            if best is not None:
                break
            for d, sign in itertools.product(directions, (1.0, -1.0)):
                if clock():
                    break
                answer = trial(base.x + sign * step * d)
                if answer.success and answer.objective < (
                        result.objective if best is None else best.objective) - decrease:
                    best = answer
        if best is not None:
            best = finish(best)
        if best is None or not best.objective < result.objective - decrease:
            result.message += ("; a saddle point: the Lagrangian has negative curvature on the "
                               "active constraints' tangent space, and no lower point was "
                               "found along it")
            return None
        best.attempts, best.nit = attempts, nit
        best.message += (f"; restarted from a saddle point at f = {result.objective:.10g} "
                         "along directions of negative curvature of the Lagrangian")
        return best

    def _saddle(self, result: SIPResult):
        """The :class:`~sipkl.sip.phases.saddle.Saddle` at ``result``'s x, or ``None``."""
        return negative_curvature(self.master, result.x, result.points, result.multipliers,
                                  result.scales, result.finite_multipliers)

    def _reduce(self, result: SIPResult, cut: float, deadline) -> None:
        """The local reduction (:func:`~sipkl.sip.phases.nonlinear_reduction.reduce_nonlinear`)
        from ``result``, which it updates where the reduced answer passes its check; its
        rounds end at ``deadline`` (a ``time.perf_counter()`` instant, or ``None``)."""
        clock = Deadline(deadline)
        reduced = reduce_nonlinear(self.master, result.x, result.points, result.multipliers,
                                   result.scales, cut, clock)
        if self._reduced(result, reduced, clock.passed):
            result.x, result.finite_multipliers = reduced["x"], reduced["finite_multipliers"]

    def solve_discretized(self, n_points: int = 101, methods: Sequence[str] = METHODS
                          ) -> SIPResult:
        """Solve the master once over the fixed grid :meth:`discretize` (see
        :meth:`SemiInfiniteProgram.solve_discretized
        <sipkl.sip.SemiInfiniteProgram.solve_discretized>`), locally, from ``x0``."""
        self.master.methods = tuple(methods)
        try:
            return self._solve_on_grid(n_points)
        except RuntimeError:
            if self.master.failure is None:
                raise
            return self._failed(self.master.failure)

    def _differences(self) -> dict:
        """How each x-derivative was taken, by name."""
        master = self.master
        found = {"f": "stated" if master.grad_f is not None else master.differences}
        found.update({c.name: "stated" if c.jac_g is not None else c.differences
                      for c in self.semi_infinite})
        found.update({c.name: "stated" if c.jac is not None else c.differences
                      for c in master.finite})
        return found

    def _result(self, cg, check_points=None) -> SIPResult:
        """The :class:`~sipkl.sip.SIPResult` of an engine result."""
        located = self._located(cg, check_points)
        message = cg.message + ("; the masters are solved by a local NLP method: at best a "
                                "local solution, and no bound on the optimum")
        if cg.status is RunStatus.MASTER_FAILED:  # the back-ends' tries of the failed solve
            tried = [a for it, a in cg.attempts if it == cg.attempts[-1][0]
                     and a.solver in ALL_METHODS]
            message += "; the failed master's tries: " + "; ".join(
                f"{a.solver}: {a.status.value} ({a.message})" for a in tried)
        model = cg.master.model
        return self._assemble(cg, located, model.x.copy(), cg.status, message,
                              finite_multipliers=model.finite_multipliers,
                              differences=self._differences())

    def _failed(self, failure: MasterSolution, random_state=None) -> SIPResult:
        """The result of a run whose first master solve failed in every back-end (the run's
        seed ``random_state``, ``None`` where it prices nothing)."""
        tried = "; ".join(f"{a.solver}: {a.status.value} ({a.message})"
                          for a in failure.attempts)
        return SIPResult(
            x=None, objective=np.nan, status=RunStatus.MASTER_FAILED, success=False,
            message=("the first restricted master failed in every NLP back-end (a local "
                     f"method: no proof that the program is infeasible): {tried}"),
            points=[], multipliers=[], max_violation=np.nan, upper_bound=None,
            violation_proved=False, lower_bound=None, cut=None, reduction=None, bracket=None,
            scales=[], finite_multipliers=[], differences=self._differences(), nit=1, history={},
            attempts=[(0, a) for a in failure.attempts], gap=np.nan, random_state=random_state)


def _renamed(semi_infinite, constraints, finite) -> tuple:
    """``(semi_infinite, finite constraints)`` from the arguments, the keywords of sipkl 0.1
    read with a ``DeprecationWarning``: ``constraints=`` holding semi-infinite constraints
    (where ``semi_infinite`` is not given), and ``finite=``."""
    if semi_infinite is None and (isinstance(constraints, IndexConstraint) or (
            isinstance(constraints, (list, tuple))
            and any(isinstance(c, IndexConstraint) for c in constraints))):
        warnings.warn("NonlinearSemiInfiniteProgram: constraints= for the semi-infinite "
                      "constraints is deprecated: pass them as semi_infinite= (constraints= "
                      "holds the finite ones, as in scipy.optimize.minimize)",
                      DeprecationWarning, stacklevel=3)
        semi_infinite, constraints = constraints, ()
    if finite is None:
        return semi_infinite, constraints
    warnings.warn("NonlinearSemiInfiniteProgram: finite= is deprecated: pass the finite "
                  "constraints as constraints=", DeprecationWarning, stacklevel=3)
    if not (isinstance(constraints, (list, tuple)) and len(constraints) == 0):
        raise TypeError("constraints and finite= (its deprecated name) are both given: pass "
                        "the finite constraints as constraints= only")
    return semi_infinite, finite


def _bounds(bounds, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of ``bounds``: None, a scipy Bounds, or n pairs (None: no bound); a
    ``ValueError`` naming ``bounds`` for any other length or inconsistent bounds."""
    if bounds is None:
        return np.full(n, -np.inf), np.full(n, np.inf)
    if isinstance(bounds, Bounds):
        sides = [np.asarray(b, dtype=float) for b in (bounds.lb, bounds.ub)]
        if any(side.shape not in ((), (n,)) for side in sides):
            raise ValueError(f"bounds: a Bounds needs lb and ub of {n} entries, one per "
                             f"variable of x0 (or one number), got {bounds!r}")
        lower, upper = (np.broadcast_to(side, (n,)).copy() for side in sides)
    else:
        pairs = list(bounds)
        if len(pairs) != n or not all(isinstance(p, (tuple, list)) and len(p) == 2
                                      for p in pairs):
            raise ValueError(f"bounds must be {n} (lower, upper) pairs, one per variable of "
                             f"x0, got {bounds!r}")
        lower = np.array([-np.inf if lo is None else lo for lo, _ in pairs], dtype=float)
        upper = np.array([np.inf if hi is None else hi for _, hi in pairs], dtype=float)
    if np.any(np.isnan(lower)) or np.any(np.isnan(upper)) or np.any(lower > upper) \
            or np.any(lower == np.inf) or np.any(upper == -np.inf):
        raise ValueError(f"bounds are inconsistent: need lower ≤ upper, not NaN, got lower "
                         f"{lower.tolist()} and upper {upper.tolist()}")
    return lower, upper
