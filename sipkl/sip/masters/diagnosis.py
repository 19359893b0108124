"""What is at fault when a restricted master is infeasible or unbounded.

Every restricted master is a relaxation of the semi-infinite program: an infeasible one
proves the program infeasible, and :func:`infeasible_parts` names the smallest part of the
model found infeasible — the finite constraints alone, or one semi-infinite constraint with
them. An unbounded one over the densest starting grid suggests an unbounded program (no
proof: a finer grid could bound it), and :func:`unbounded_direction` says along which
variables the objective improves without end.
"""
from __future__ import annotations

from typing import Sequence

import cvxpy as cp
import numpy as np

from ...core.contracts import Column
from ...solvers import Status, solve_cvxpy

#: the box radii |v| ≤ R of the two solves that show the direction of an unbounded master:
#: a variable whose value grows with R as R does is on the direction
DIRECTION_RADII = (1e4, 1e8)


def infeasible_parts(master, columns: Sequence[Column]) -> list[str]:
    """The parts of ``master``'s problem over ``columns`` that are infeasible on their own:
    ``["the finite constraints"]`` when those are, else ``"<name> with the finite
    constraints"`` for each semi-infinite constraint infeasible with them, else ``[]`` (only
    their combination is). A semi-infinite constraint imposed by its robust counterpart
    (``master.counterparts``) is that counterpart, alone."""
    finite = master.finite_constraints
    if _status(cp.Problem(cp.Minimize(0), finite), master) is Status.INFEASIBLE:
        return ["the finite constraints"]
    faulty = []
    for j, (sic, group) in enumerate(zip(master.semi_infinite, master.groups(columns))):
        exact = [c for counterpart in master.counterparts if j in counterpart.members
                 for c in counterpart.alone(j)]
        problem = cp.Problem(cp.Minimize(0), finite + exact + _imposed(sic, columns, group))
        if _status(problem, master) is Status.INFEASIBLE:
            faulty.append(f"{sic.name} with the finite constraints")
    return faulty


def unbounded_direction(master, columns: Sequence[Column]) -> dict[str, np.ndarray]:
    """The variables of ``master`` along which its objective improves without bound over
    ``columns``: the solution over the box |v| ≤ R, divided by R, for R = 1e8, by variable
    name, keeping the variables whose value grew with R (from R = 1e4) as R does; ``{}``
    where the boxed solves fail."""
    imposed = [c for sic, group in zip(master.semi_infinite, master.groups(columns))
               for c in _imposed(sic, columns, group)]
    values = []
    for radius in DIRECTION_RADII:
        box = [cp.abs(v) <= radius for v in master.variables]
        problem = cp.Problem(master.objective, master.constraints + imposed + box)
        if not _status(problem, master).usable:
            return {}
        values.append([np.asarray(v.value, dtype=float) / radius for v in master.variables])
    small, large = values
    return {v.name(): np.where(np.abs(b) > 0.5 * np.abs(a) + 1e-3, np.round(b, 3), 0.0)
            for v, a, b in zip(master.variables, small, large)
            if np.any(np.abs(b) > 0.5 * np.abs(a) + 1e-3)}


def _imposed(sic, columns: Sequence[Column], group) -> list:
    points = np.array([columns[k].theta for k in group]).reshape(-1, sic.T.dim)
    return [e <= 0 for e in sic.expressions(points)] if len(points) else []


def _status(problem: cp.Problem, master) -> Status:
    return solve_cvxpy(problem, master.solvers)[0]
