"""Normalized solver statuses, in the spirit of cvxpy's ``s.OPTIMAL`` and friends."""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np
from cvxpy.error import SolverError as CvxpySolverError


class Status(str, enum.Enum):
    """Outcome of one solver call, normalized across back-ends."""

    OPTIMAL = "optimal"
    OPTIMAL_INACCURATE = "optimal_inaccurate"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ITERATION_LIMIT = "iteration_limit"
    SOLVER_ERROR = "solver_error"
    #: the solvers' verdicts contradict each other (one finds a solution, another none, or
    #: one proves infeasibility, another unboundedness): no answer
    CONFLICTING = "conflicting_verdicts"

    @property
    def usable(self) -> bool:
        """True when the returned point may be used (possibly with a warning)."""
        return self in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.ITERATION_LIMIT)

    @classmethod
    def from_cvxpy(cls, status: str | None) -> "Status":
        if status is None:
            return cls.SOLVER_ERROR
        status = status.lower()
        if status == "optimal":
            return cls.OPTIMAL
        if status.endswith("inaccurate") and status.startswith("optimal"):
            return cls.OPTIMAL_INACCURATE
        if status.startswith("infeasible"):
            return cls.INFEASIBLE
        if status.startswith("unbounded"):
            return cls.UNBOUNDED
        if "limit" in status:
            return cls.ITERATION_LIMIT
        return cls.SOLVER_ERROR


@dataclass(frozen=True)
class Attempt:
    """One try of one back-end: kept in results so that no fallback is silent."""

    solver: str
    status: Status
    message: str = ""
    seconds: float = 0.0


class SolverError(RuntimeError):
    """A numerical back-end failed: the family of exceptions a caller may survive.

    Raise it (or a subclass) from a master or an oracle when the solver gave up — a
    factorization broke down, a back-end returned nothing usable — and the column-generation
    engine records the failure as an :class:`Attempt` and stops with its best iterate. Any
    other exception (``AttributeError``, ``TypeError``, …) is a programming error and
    propagates with its traceback. :data:`SOLVER_FAILURES` adds the back-ends' own solver
    exceptions to this family.
    """


#: what the engine survives: :class:`SolverError` and the back-ends' own exceptions for a
#: failed solve, cvxpy's ``SolverError`` and NumPy/SciPy's ``LinAlgError`` (a factorization
#: that broke down)
SOLVER_FAILURES = (SolverError, CvxpySolverError, np.linalg.LinAlgError)
