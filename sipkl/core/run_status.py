"""Why a column-generation run stopped: one vocabulary for results, docs and the CLI."""
from __future__ import annotations

import enum


class RunStatus(str, enum.Enum):
    """Outcome of :meth:`sipkl.core.engine.ColumnGeneration.run` (``result.status``).

    A ``str``: ``result.status == "certified_optimal"`` holds, and it prints as its value.
    ``success`` is true for the statuses where the run reached its stop rule with an
    optimal master (see :data:`SUCCESS`); every other status says what is missing.
    """

    #: no column prices above the cut, proven by the oracle's bound; the master is optimal
    CERTIFIED_OPTIMAL = "certified_optimal"
    #: proven pricing bound, master at a KKT point of a non-convex problem (e.g. NKRR, d ≥ 2)
    STATIONARY_POINT = "stationary_point"
    #: the oracle (a local search) found no column above the cut: no proof none exists
    CONVERGED_LOCAL = "converged_local"
    #: the objective decreased by less than ``obj_tol·|objective| + obj_atol``
    OBJECTIVE_STALLED = "objective_stalled"
    #: the master prices nothing (``price=None``, e.g. uniform weights over a finite list):
    #: its optimal combination of the given columns is the result, no column generation ran
    FIXED_COLUMNS = "fixed_columns"
    #: the pricing (or the objective) says stop, but the master is not optimal
    MASTER_INACCURATE = "master_inaccurate"
    #: no new column above the cut while a violation may remain (a duplicate, a bound above,
    #: or a violation that a semi-infinite program's final verification search found)
    NO_NEW_COLUMN = "no_new_column"
    ITERATION_LIMIT = "iteration_limit"
    TIME_LIMIT = "time_limit"
    #: the callback raised ``StopIteration``
    CALLBACK = "callback"
    #: Ctrl-C (``KeyboardInterrupt``)
    INTERRUPTED = "interrupted"
    #: the master raised a solver error or returned an unusable status
    MASTER_FAILED = "master_failed"
    #: the oracle raised a solver error or returned an unusable status
    ORACLE_FAILED = "oracle_failed"
    #: a semi-infinite program without a feasible point: a restricted master (a relaxation
    #: of it) is infeasible
    INFEASIBLE = "infeasible"
    #: a semi-infinite program unbounded in its objective: the restricted master stays
    #: unbounded over the densest starting grid (:meth:`sipkl.sip.SemiInfiniteProgram.solve`)
    UNBOUNDED = "unbounded"
    #: the run is still going (intermediate results handed to a callback)
    RUNNING = "running"

    @property
    def success(self) -> bool:
        """True when the run reached its stop rule with an optimal master."""
        return self in SUCCESS

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


#: the statuses with ``success``: the run reached its stop rule with an optimal master
SUCCESS = frozenset({RunStatus.CERTIFIED_OPTIMAL, RunStatus.STATIONARY_POINT,
                     RunStatus.CONVERGED_LOCAL, RunStatus.OBJECTIVE_STALLED,
                     RunStatus.FIXED_COLUMNS})
