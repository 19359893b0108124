"""Solve a cvxpy problem with a preference list of solvers and explicit fallback."""
from __future__ import annotations

import functools
import time
import warnings
from typing import Sequence

import cvxpy as cp

from .status import Attempt, Status

#: the solvers tried in turn, and the options each gets (before those of a call), chosen from
#: the measurements of ``benchmarks/conic_solvers.py`` on the package's own problems (the table
#: "Conic solvers" of docs/benchmarks.md): Clarabel first (every answer optimal or
#: optimal_inaccurate, KKT residuals 1e-10 to 2e-4), then ECOS, then SCS at 1e-9 — at its
#: default 1e-4 an SCS answer's KKT residual reached 3e-4, at 1e-9 it stays below 1e-8, so
#: an answer from the last fallback is not less accurate than the first solver's
DEFAULT_SOLVERS = ("CLARABEL", "ECOS", "SCS")
SOLVER_OPTIONS: dict[str, dict] = {"SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 100_000}}


def solve_cvxpy(problem: cp.Problem, solvers: Sequence[str] = DEFAULT_SOLVERS, *,
                warn: bool = True, **solver_options) -> tuple[Status, list[Attempt]]:
    """Solve ``problem`` with the first solver of ``solvers`` that gives a usable answer.

    Each solver gets :data:`SOLVER_OPTIONS` updated by ``solver_options[name]``.
    Every solver is called cold (``warm_start=False``): a warm start after a change of the
    problem data can return a stale "optimal" with some back-ends. A solver that raises, is
    not installed, or returns a non-optimal status is recorded as an :class:`Attempt` and the
    next one is tried. ``optimal_inaccurate`` is accepted only if no later solver does better,
    and a :class:`RuntimeWarning` says so (``warn=False``: the status and the attempts alone
    say so, for callers that use optimal answers only).

    Returns the final status and the list of attempts (the last one is the one in effect).
    """
    installed = _installed_solvers()
    attempts: list[Attempt] = []
    inaccurate_values = None
    for name in solvers:
        if name not in installed:
            attempts.append(Attempt(name, Status.SOLVER_ERROR, "not installed"))
            continue
        start = time.perf_counter()
        try:
            problem.solve(solver=name, warm_start=False,
                          **{**SOLVER_OPTIONS.get(name, {}), **solver_options.get(name, {})})
            status = Status.from_cvxpy(problem.status)
            message = problem.status
        except (cp.error.SolverError, ValueError, ArithmeticError) as exc:
            status, message = Status.SOLVER_ERROR, f"{type(exc).__name__}: {exc}"
        attempts.append(Attempt(name, status, message, time.perf_counter() - start))
        if status is Status.OPTIMAL:
            return status, attempts
        if status is Status.OPTIMAL_INACCURATE and inaccurate_values is None:
            inaccurate_values = [v.value for v in problem.variables()], _duals(problem)
    if inaccurate_values is not None:
        # Restore the first inaccurate solution: later failing solvers may have overwritten it.
        values, duals = inaccurate_values
        for var, val in zip(problem.variables(), values):
            var.value = val
        for con, val in zip(problem.constraints, duals):
            con.save_dual_value(val)
        if warn:
            warnings.warn("cvxpy: only an 'optimal_inaccurate' solution was found "
                          f"({', '.join(a.solver + '=' + a.status.value for a in attempts)})",
                          RuntimeWarning, stacklevel=2)
        return Status.OPTIMAL_INACCURATE, attempts
    return (attempts[-1].status if attempts else Status.SOLVER_ERROR), attempts


@functools.lru_cache(maxsize=1)
def _installed_solvers() -> frozenset:
    """cvxpy's installed solvers, asked once per process (cvxpy probes every back-end on
    each call, a few milliseconds: as long as a small master's solve)."""
    return frozenset(cp.installed_solvers())


def _duals(problem: cp.Problem):
    return [c.dual_value for c in problem.constraints]
