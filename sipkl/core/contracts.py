"""The contracts between the engine, the masters and the oracles: everything a researcher
writing an oracle or a master needs, in one place.

    space.master_inputs(columns)     -> what the master reads of the columns (Gram matrices, …)
    master.solve(inputs, warm_start) -> MasterSolution   (weights, price W, threshold λ, …)
    space.pricing_problems(price, r) -> one PricingProblem per concrete family
    oracle.price(PricingRound)       -> OracleResult     (new Columns, their prices, a bound)

A :class:`Master` and an :class:`Oracle` are protocols (checked with ``isinstance``): any
object with the one method qualifies. A :class:`ColumnSpace` is what the columns are: for
kernel learning (:class:`sipkl.kernel_learning.space.KernelSpace`) a column is a kernel k_θ, the master reads
its Gram matrix and each pricing problem is θ ↦ <W, K(θ)> − r(θ) of one concrete family over
its box; for a semi-infinite program (:mod:`sipkl.sip`) a column is an index point t of one
semi-infinite constraint, the master reads the points and the pricing problem is
t ↦ g(x_k, t) at the master's solution x_k. A :class:`Column` is a family and one θ.
Statuses: a solver call reports a :class:`~sipkl.solvers.status.Status` (``OPTIMAL``, …)
and records every fallback as an :class:`~sipkl.solvers.status.Attempt`; a failed solve
raises a :class:`~sipkl.solvers.status.SolverError` (the engine survives
:data:`SOLVER_FAILURES` and nothing else); a run ends with a
:class:`~sipkl.core.run_status.RunStatus`.
"""
from __future__ import annotations

import abc
import time
from dataclasses import dataclass, field
from typing import Generic, Optional, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

from ..solvers.status import SOLVER_FAILURES, Attempt, SolverError, Status
from .run_status import SUCCESS, RunStatus

__all__ = ["Attempt", "Column", "ColumnFamily", "ColumnSpace", "Master", "MasterSolution",
           "MasterBase", "Oracle", "OracleBase", "OracleResult", "PricingProblem",
           "PricingProblemBase", "PricingRound", "ProvesBound", "RunStatus", "SOLVER_FAILURES", "SUCCESS",
           "SecondOrderRegularizer", "Signed", "SolverError", "StartsEmpty", "Stateful", "Status",
           "TimeLimited", "proves_bound"]


@runtime_checkable
class ColumnFamily(Protocol):
    """What the columns of a run are drawn from, for the oracles: a kernel family
    (:class:`~sipkl.kernel_learning.families.base.KernelFamily`, θ its parameters) or the index set of a
    semi-infinite constraint (:class:`~sipkl.sip.sets.base.IndexSet`, θ a point t).

    ``finite``: θ indexes a finite list (enumerated, compared by equality); ``param_name``:
    how θ is printed (``s`` for a Gaussian's scales, ``t`` for an index point);
    ``index_points``: θ is a point whose origin and signs carry no meaning (an index set):
    "the same" is then absolute, to a fraction of the set's extent, the local searches'
    tolerances are absolute, and a point priced above the cut is a new column however close
    to a current one (the exchange method moves it there) — where a kernel family's θ's are
    scales, compared relative to their own magnitude. ``members(n_features)`` the concrete
    families (one per pricing problem), ``param_bounds(n_features)`` the box of θ,
    ``grid`` and ``starting_points`` candidate θ's for the oracles, and
    ``same_columns(thetas, theta, rtol)`` the family's own rule for "the same column"
    (broadcast over the rows of ``thetas``).
    """

    finite: bool
    param_name: str
    index_points: bool

    def members(self, n_features: int) -> list: ...

    def param_bounds(self, n_features: int) -> tuple[np.ndarray, np.ndarray]: ...

    def grid(self, X, size: int, random_state=None) -> np.ndarray: ...

    def starting_points(self, X, n: int, random_state=None) -> np.ndarray: ...

    def same_columns(self, thetas, theta, rtol: float) -> np.ndarray: ...


@dataclass(frozen=True)
class Column:
    """One column of the restricted master: a concrete family and its parameter θ (printed
    under the family's ``param_name``, e.g. ``s=[…]`` for the scale of a Gaussian, ``t=[…]``
    for an index point)."""

    family: ColumnFamily
    theta: tuple

    @classmethod
    def make(cls, family, theta) -> "Column":
        return cls(family, tuple(float(t) for t in np.atleast_1d(theta)))

    def __repr__(self):
        return (f"Column({self.family!r}, "
                f"{self.family.param_name}={np.round(self.theta, 6).tolist()})")


#: the price of a column space, what its master hands the pricing: a
#: :class:`~sipkl.kernel_learning.price_matrix.PriceMatrix` W for kernel learning, a list of
#: :class:`~sipkl.sip.pricing.space.ConstraintPrice` (x_k and each constraint's scale) for a
#: semi-infinite program
P = TypeVar("P")


@dataclass
class MasterSolution(Generic[P]):
    """What a restricted master hands back after each solve.

    ``weights`` are the kernel weights of the columns (in order; for a semi-infinite program
    the multipliers of its index points), ``price`` what the column space builds its pricing
    problems from (the price matrix W of kernel learning, the solution x_k of a semi-infinite
    program; ``None`` for a master that prices no column: the run then ends
    ``fixed_columns``), ``threshold`` λ (a column is worth adding iff its price exceeds it),
    ``cut_scale`` the magnitude the relative pricing tolerance multiplies (``None``: |λ|; a
    master whose threshold is 0 states the natural scale of its prices), ``objective`` the
    master's objective (minimized), ``gap`` its own optimality gap (absolute), ``model`` what
    prediction needs, one typed model per master (e.g. :class:`~sipkl.kernel_learning.masters.models.
    HingeModel`: α and b; ``None`` for a failed solve), ``column_prices`` the price of each
    current column.
    ``convex`` is ``False`` when the master's problem is not convex: its ``gap`` then measures
    stationarity, and a proven pricing bound certifies a stationary point, not an optimum.
    """

    weights: np.ndarray
    objective: float
    price: Optional[P]
    threshold: float
    gap: float
    status: Status
    model: object = None
    column_prices: Optional[np.ndarray] = None
    attempts: list = field(default_factory=list)
    convex: bool = True
    cut_scale: Optional[float] = None

    @classmethod
    def failed(cls, n_columns: int, status: Status, attempts=()) -> "MasterSolution":
        """The solution of a solve that failed with ``status``: NaN weights and numbers, no
        price (the engine stops with ``master_failed`` and keeps its best iterate)."""
        return cls(np.full(n_columns, np.nan), np.nan, None, np.nan, np.nan, status,
                   attempts=list(attempts))


class PricingProblem(Protocol):
    """``θ ↦ <W, K(θ)> − r(θ)`` for one concrete family over its box ``[lower, upper]``:
    what an oracle maximizes (implemented by :class:`sipkl.kernel_learning.space.KernelPricingProblem`,
    and :class:`sipkl.sip.pricing.space.IndexPointPricing` for t ↦ g(x_k, t)).

    Required: ``values_and_grads`` prices the rows of a 2-D array of θ's in one batch
    (``grad=False``: values only; ``dtype=np.float32`` for a search whose results are
    evaluated again), ``column(θ)`` makes the :class:`Column` of a θ; ``n_evals`` counts
    evaluations. Optional, with the defaults of :class:`PricingProblemBase` ("not known"):
    ``hessian_batch(dtype)`` returns ``H(thetas, coords=None) -> (S, q, q)``, the Hessians of
    the rows on the coordinates ``coords`` (all by default), or ``None``: the IPOPT oracle
    then refines by projected Newton steps; ``curvature_batch(dtype)`` returns
    ``F(thetas) -> (values, gradients, curvatures)``, the curvatures being the diagonals of
    the Hessians (or ``None``): its first search then takes diagonal Newton steps;
    ``value_scale``, the magnitude the prices are relative to (their solvers' tolerances
    follow it); ``lipschitz``, a stated Lipschitz constant of the price in θ (what
    :class:`~sipkl.sip.LipschitzOracle` turns into a proof).
    """

    family: ColumnFamily
    lower: np.ndarray
    upper: np.ndarray
    n_evals: int
    value_scale: Optional[float]
    lipschitz: Optional[float]

    def values(self, thetas) -> np.ndarray: ...

    def values_and_grads(self, thetas, grad: bool = True, dtype=np.float64): ...

    def value_and_grad(self, theta) -> tuple[float, np.ndarray]: ...

    def column(self, theta) -> Column: ...

    def hessian_batch(self, dtype): ...

    def curvature_batch(self, dtype): ...


class PricingProblemBase:
    """The optional hooks of a :class:`PricingProblem`, at their defaults: no value scale,
    no stated Lipschitz constant, no curvatures, no Hessians. A pricing problem derives from
    it and overrides what it knows."""

    value_scale: Optional[float] = None
    lipschitz: Optional[float] = None

    def hessian_batch(self, dtype):
        """``H(thetas, coords=None) -> (S, q, q)`` in ``dtype``, or ``None`` (not known)."""
        return None

    def curvature_batch(self, dtype):
        """``F(thetas) -> (values, gradients, curvatures)`` in ``dtype``, or ``None``."""
        return None


@runtime_checkable
class SecondOrderRegularizer(Protocol):
    """A pricing regularizer ``r(θ) -> (value, gradient)`` that also states its Hessian,
    ``hessian(θ) -> (p, p)`` (e.g. :class:`~sipkl.kernel_learning.masters.alignment.Shrinkage`): the pricing
    problems then keep their second derivatives."""

    def __call__(self, theta) -> tuple[float, np.ndarray]: ...

    def hessian(self, theta) -> np.ndarray: ...


@dataclass
class PricingRound:
    """The input of an oracle: one pricing problem per concrete family, and context.

    ``cut`` is the price above which the engine adds a column, ``λ + tol·|λ| + atol``
    (``|λ|`` replaced by the master's ``cut_scale`` when it states one; ``None``: the
    threshold λ). ``X`` is the data the families draw their grids and starting points from
    (the training points of kernel learning, ``None`` for a semi-infinite program).
    ``any_violator``: the engine needs only whether some new column prices above the cut
    (the master's objective stalled: the run stops after this round whatever the oracle
    finds, and a violator decides only that the stop is ``objective_stalled`` rather than
    ``converged_local``); an oracle may then answer with the first violators it finds
    instead of the best columns, and must search as usual while it has found none.
    ``deadline``: the ``time.perf_counter()`` instant at which the run's ``time_limit`` ends
    (``None`` without one); an oracle may stop its search there and answer with what it has
    found, status ``iteration_limit`` (the engine then stops the run with ``time_limit`` and
    claims nothing of that round's pricing).
    """

    problems: list[PricingProblem]
    X: Optional[np.ndarray]
    columns: list[Column]
    threshold: float
    n_price: int
    rng: np.random.Generator
    cut: Optional[float] = None
    any_violator: bool = False
    deadline: Optional[float] = None

    def out_of_time(self) -> bool:
        """Whether the run's deadline has passed."""
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def price_cut(self) -> float:
        """The price above which a candidate is a violator: :attr:`cut`, or the threshold λ
        where the round states none."""
        return self.threshold if self.cut is None else self.cut

    def n_evals(self) -> int:
        """The price evaluations the round's problems have made so far."""
        return sum(p.n_evals for p in self.problems)


@dataclass
class OracleResult:
    """Best candidates (best first), their prices, and how they were found.

    ``upper_bound`` is a proven bound on max_θ <W, K(θ)> when the oracle is global over the
    whole family (``None`` otherwise).
    """

    columns: list[Column]
    scores: np.ndarray
    n_evals: int
    status: Status = Status.OPTIMAL
    upper_bound: Optional[float] = None
    attempts: list = field(default_factory=list)


@runtime_checkable
class ColumnSpace(Protocol[P]):
    """What the columns of a run are, for the engine: built once per run.

    ``families`` are the concrete families (each with ``param_bounds``, ``grid``,
    ``starting_points``, ``finite``, ``param_name``: what the oracles search), ``X`` the data
    handed to the oracles (:attr:`PricingRound.X`). ``master_inputs(columns)`` is what the
    master's ``solve`` reads of the columns (their Gram matrices for kernel learning, the
    columns themselves — index points — for a semi-infinite program),
    ``pricing_problems(price, regularizer)`` the pricing problems of a
    :attr:`MasterSolution.price`, one per family, and ``forget(columns)`` drops whatever is
    cached for columns not in ``columns`` (after pruning). ``column_to_json(column)`` and
    ``column_from_json(data)`` write a column into a checkpoint and read it back (a value
    that ``json`` writes; :mod:`sipkl.core.checkpoint`).
    """

    families: list
    X: Optional[np.ndarray]

    def master_inputs(self, columns: Sequence[Column]) -> Sequence: ...

    def pricing_problems(self, price: P, regularizer=None) -> list[PricingProblem]: ...

    def forget(self, columns: Sequence[Column]) -> None: ...

    def column_to_json(self, column: Column) -> object: ...

    def column_from_json(self, data) -> Column: ...


@runtime_checkable
class Stateful(Protocol):
    """A party of a run (master, oracle, drop rule) whose state carries from one round to the
    next: a checkpoint keeps ``get_state()`` (a value that ``json`` writes) and a resumed run
    hands it back to ``set_state``, so that it continues as the uninterrupted run would."""

    def get_state(self) -> dict: ...

    def set_state(self, state: dict) -> None: ...


@runtime_checkable
class Signed(Protocol):
    """A master that states what identifies its program beyond the column space's classes
    and data (a semi-infinite program's constraints, index sets and number of variables):
    ``signature()``, a value that ``json`` writes, which checkpoints record
    (:func:`~sipkl.core.checkpoint.fingerprint`) so that a run resumes only its own program's."""

    def signature(self) -> dict: ...


@runtime_checkable
class Master(Protocol):
    """A restricted master: solves the problem over the given columns' master inputs (the
    Gram matrices of kernel learning, the index points of a semi-infinite program:
    :meth:`ColumnSpace.master_inputs`), ``warm_start`` the weights of the last solve (zeros
    for the columns added since), or ``None``.

    Required: ``solve``. Optional, each a declared capability: :class:`StartsEmpty`,
    :class:`TimeLimited`, :class:`Stateful`, :class:`Signed`.
    """

    def solve(self, inputs: Sequence, warm_start: Optional[np.ndarray]) -> MasterSolution: ...


@runtime_checkable
class StartsEmpty(Protocol):
    """A master that states whether it can solve over no column (``empty_start = True``: a
    run may start from no column, and its first round prices the first one)."""

    empty_start: bool


@runtime_checkable
class TimeLimited(Protocol):
    """A master that takes the run's deadline: the engine sets ``deadline`` before each solve,
    the ``time.perf_counter()`` instant at which the run's ``time_limit`` ends (``None``
    without one). An iterative master may then return its current iterate early, status
    ``iteration_limit`` (the engine stops the run with ``time_limit`` after that round)."""

    deadline: Optional[float]


@runtime_checkable
class Oracle(Protocol):
    """A pricing oracle: the best new columns of one round. Required: ``price``. Optional:
    :class:`ProvesBound`, :class:`Stateful`."""

    def price(self, pricing_round: PricingRound) -> OracleResult: ...


@runtime_checkable
class ProvesBound(Protocol):
    """An oracle that says when its results carry a proven ``upper_bound``:
    ``proves_bound(family, n_features)`` is ``True`` when every result over ``family`` does
    (what a ``certified_optimal`` stop needs). An oracle without it is taken to be local."""

    def proves_bound(self, family: ColumnFamily, n_features: int) -> bool: ...


class MasterBase(abc.ABC):
    """A base for masters, with the optional capabilities at their defaults: no start from no
    column (``empty_start = False``, :class:`StartsEmpty`), the run's ``deadline``, which the
    engine sets before each solve and the master may read (:class:`TimeLimited`), and no
    state to checkpoint (:class:`Stateful`: ``get_state()`` is ``{}``). ``solve`` is
    required. Deriving from it is optional: any object with ``solve`` is a :class:`Master`."""

    empty_start: bool = False
    deadline: Optional[float] = None

    @abc.abstractmethod
    def solve(self, inputs: Sequence, warm_start: Optional[np.ndarray] = None) -> MasterSolution:
        """The restricted master over the columns' ``inputs``, from the weights
        ``warm_start`` (see :class:`Master`)."""

    def get_state(self) -> dict:
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (see :meth:`get_state`)."""


class OracleBase(abc.ABC):
    """A base for oracles, with the optional capabilities at their defaults: a local search
    (``proves_bound`` is ``False``, :class:`ProvesBound`) with no state to checkpoint.
    ``price`` is required. Deriving from it is optional: any object with ``price`` is an
    :class:`Oracle`."""

    @abc.abstractmethod
    def price(self, pricing_round: PricingRound) -> OracleResult:
        """The best new columns of one round (see :class:`Oracle`)."""

    def proves_bound(self, family: ColumnFamily, n_features: int) -> bool:
        """Whether every result over ``family`` carries a proven bound: not by default."""
        return False


def proves_bound(oracle, family: ColumnFamily, n_features: int) -> bool:
    """Whether ``oracle`` returns a proven upper bound in every round over ``family``
    (:class:`ProvesBound`)."""
    return isinstance(oracle, ProvesBound) and bool(oracle.proves_bound(family, n_features))
