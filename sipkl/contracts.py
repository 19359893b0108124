"""The contracts between the engine, the masters and the oracles: everything a researcher
writing an oracle or a master needs, in one place.

    space.master_inputs(columns)     -> what the master reads of the columns (Gram matrices, …)
    master.solve(inputs, warm_start) -> MasterSolution   (weights, price W, threshold λ, …)
    space.pricing_problems(price, r) -> one PricingProblem per concrete family
    oracle.price(PricingRound)       -> OracleResult     (new Columns, their prices, a bound)

A :class:`Master` and an :class:`Oracle` are protocols (checked with ``isinstance``): any
object with the one method qualifies. A :class:`ColumnSpace` is what the columns are: for
kernel learning (:class:`sipkl.workspace.Workspace`) a column is a kernel k_θ, the master reads
its Gram matrix and each pricing problem is θ ↦ <W, K(θ)> − r(θ) of one concrete family over
its box; for a semi-infinite program (:mod:`sipkl.sip`) a column is an index point t of one
semi-infinite constraint, the master reads the points and the pricing problem is
t ↦ g(x_k, t) at the master's solution x_k. A :class:`Column` is a family and one θ.
Statuses: a solver call reports a :class:`~sipkl.solvers.status.Status` (``OPTIMAL``, …)
and records every fallback as an :class:`~sipkl.solvers.status.Attempt`; a failed solve
raises a :class:`~sipkl.solvers.status.SolverError` (the engine survives
:data:`SOLVER_FAILURES` and nothing else); a run ends with a
:class:`~sipkl.run_status.RunStatus`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from .price import PriceMatrix
from .run_status import SUCCESS, RunStatus
from .solvers.status import SOLVER_FAILURES, Attempt, SolverError, Status

__all__ = ["Attempt", "Column", "ColumnSpace", "Master", "MasterSolution", "Oracle", "OracleResult",
           "PriceMatrix", "PricingProblem", "PricingRound", "RunStatus", "SOLVER_FAILURES",
           "SUCCESS", "SolverError", "Stateful", "Status"]


@dataclass(frozen=True)
class Column:
    """One kernel of the restricted master: a concrete family and its parameter θ (printed
    under the family's :attr:`~sipkl.kernels.base.KernelFamily.param_name`, e.g. ``s=[…]``
    for the scale of a Gaussian)."""

    family: object
    theta: tuple

    @classmethod
    def make(cls, family, theta) -> "Column":
        return cls(family, tuple(float(t) for t in np.atleast_1d(theta)))

    def __repr__(self):
        return (f"Column({self.family!r}, "
                f"{self.family.param_name}={np.round(self.theta, 6).tolist()})")


@dataclass
class MasterSolution:
    """What a restricted master hands back after each solve.

    ``weights`` are the kernel weights of the columns (in order; for a semi-infinite program
    the multipliers of its index points), ``price`` what the column space builds its pricing
    problems from (the price matrix W of kernel learning, the solution x_k of a semi-infinite
    program; ``None`` for a master that prices no column: the run then ends
    ``fixed_columns``), ``threshold`` λ (a column is worth adding iff its price exceeds it),
    ``cut_scale`` the magnitude the relative pricing tolerance multiplies (``None``: |λ|; a
    master whose threshold is 0 states the natural scale of its prices), ``objective`` the
    master's objective (minimized), ``gap`` its own optimality gap (absolute), ``model`` what
    prediction needs (e.g. α and b), ``column_prices`` the price of each current column.
    ``convex`` is ``False`` when the master's problem is not convex: its ``gap`` then measures
    stationarity, and a proven pricing bound certifies a stationary point, not an optimum.
    """

    weights: np.ndarray
    objective: float
    price: Optional[PriceMatrix]
    threshold: float
    gap: float
    status: Status
    model: dict = field(default_factory=dict)
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
    what an oracle maximizes (implemented by :class:`sipkl.workspace.KernelPricingProblem`).

    ``values_and_grads`` prices the rows of a 2-D array of θ's in one batch (``grad=False``:
    values only; ``dtype=np.float32`` for a search whose results are evaluated again),
    ``column(θ)`` makes the :class:`Column` of a θ; ``n_evals`` counts evaluations.
    Optionally, ``hessian_batch(dtype)`` returns ``H(thetas, coords=None) -> (S, q, q)``,
    the Hessians of the rows on the coordinates ``coords`` (all by default), or ``None``:
    the IPOPT oracle then refines by projected Newton steps; and
    ``curvature_batch(dtype)`` returns ``F(thetas) -> (values, gradients, curvatures)``, the
    curvatures being the diagonals of the Hessians (or ``None``): its first search then takes
    diagonal Newton steps.
    """

    family: object
    lower: np.ndarray
    upper: np.ndarray
    n_evals: int

    def values(self, thetas) -> np.ndarray: ...

    def values_and_grads(self, thetas, grad: bool = True, dtype=np.float64): ...

    def value_and_grad(self, theta) -> tuple[float, np.ndarray]: ...

    def column(self, theta) -> Column: ...


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
    """

    problems: list[PricingProblem]
    X: Optional[np.ndarray]
    columns: list[Column]
    threshold: float
    n_price: int
    rng: np.random.Generator
    cut: Optional[float] = None
    any_violator: bool = False


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


class ColumnSpace(Protocol):
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
    that ``json`` writes; :mod:`sipkl.checkpoint`).
    """

    families: list
    X: Optional[np.ndarray]

    def master_inputs(self, columns: Sequence[Column]) -> Sequence: ...

    def pricing_problems(self, price, regularizer=None) -> list[PricingProblem]: ...

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
class Master(Protocol):
    """A restricted master: solves the problem over the given columns' master inputs (the
    Gram matrices of kernel learning, :meth:`ColumnSpace.master_inputs`).

    A master class may set ``empty_start = True`` when it can solve over no column (the
    first round then prices the first column). A master with a ``deadline`` attribute gets
    it from the engine before each solve: the ``time.perf_counter()`` instant at which the
    run's ``time_limit`` ends (None without one). An iterative master may then return its
    current iterate early, status ``iteration_limit`` (the engine stops the run with
    ``time_limit`` after that round).
    """

    def solve(self, grams: Sequence[np.ndarray],
              warm_start: Optional[np.ndarray]) -> MasterSolution: ...


@runtime_checkable
class Oracle(Protocol):
    """A pricing oracle: the best new columns of one round.

    An oracle may define ``proves_bound(family, n_features) -> bool``: ``True`` when every
    result over ``family`` carries a proven ``upper_bound`` (see
    :func:`sipkl.oracles.common.proves_bound`).
    """

    def price(self, pricing_round: PricingRound) -> OracleResult: ...
