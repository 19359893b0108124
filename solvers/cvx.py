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
#: the default list of a problem with integer or boolean variables: HiGHS (mixed-integer
#: LPs), then ECOS's branch and bound (mixed-integer conic programs: a quadratic objective, a
#: second-order cone), each asked to prove its answer within a relative gap of 10⁻¹⁰ (their
#: defaults: 10⁻⁴ and 10⁻³; HiGHS's absolute gap 10⁻¹², ECOS_BB's stays 10⁻⁶, below which
#: its answers turned ``optimal_inaccurate``) with integrality to 10⁻⁹
MIXED_INTEGER_SOLVERS = ("HIGHS", "ECOS_BB")
SOLVER_OPTIONS: dict[str, dict] = {
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 100_000},
    "HIGHS": {"mip_rel_gap": 1e-10, "mip_abs_gap": 1e-12, "mip_feasibility_tolerance": 1e-9},
    "ECOS_BB": {"mi_rel_eps": 1e-10, "mi_int_tol": 1e-9, "mi_max_iters": 100_000}}

#: the interior-point solvers: their certificates of infeasibility and unboundedness hold to
#: their tolerances, so that their verdicts outrank those of every other solver (first-order
#: ones such as SCS and OSQP, whose certificates are those of an iteration that stopped)
INTERIOR_POINT = frozenset({"CLARABEL", "ECOS", "CVXOPT", "MOSEK", "QOCO"})

#: what each status claims of the problem, where it claims something: a solution (optimal,
#: accurate or not), or none
_VERDICTS = {Status.OPTIMAL: Status.OPTIMAL, Status.OPTIMAL_INACCURATE: Status.OPTIMAL,
             Status.INFEASIBLE: Status.INFEASIBLE, Status.UNBOUNDED: Status.UNBOUNDED}


def check_solvers(solvers) -> tuple[str, ...]:
    """``solvers`` as a tuple of cvxpy solver names (upper case, as cvxpy reads them).

    A ``TypeError`` for a string (one solver is a list of one name, ``["CLARABEL"]``) or
    anything but a sequence of names; a ``ValueError`` for an empty list or a name that
    cvxpy does not know (neither one of its solvers nor an installed one), naming those it
    knows. A known solver that is not installed is accepted: :func:`solve_cvxpy` records it
    as an attempt and tries the next one.
    """
    if isinstance(solvers, str) or not isinstance(solvers, Sequence) \
            or not all(isinstance(name, str) for name in solvers):
        raise TypeError(f"solvers must be a list of cvxpy solver names, e.g. ['CLARABEL'], got "
                        f"{solvers!r}")
    names = tuple(name.upper() for name in solvers)
    known = set(cp.settings.SOLVERS) | _installed_solvers()
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise ValueError(f"solvers: {'unknown ' + repr(unknown) if unknown else 'none given'}; "
                         f"cvxpy knows {sorted(known)} (installed here: "
                         f"{sorted(_installed_solvers())})")
    return names


#: the conic solvers' tolerances of a solve for the last digits (:func:`solve_tightly`), tried
#: before their defaults (10⁻⁸, which leave an answer accurate to about 10⁻⁸ of its scale)
TIGHT = {"CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10},
         "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10}}


def solve_tightly(problem: cp.Problem, solvers: Sequence[str] = DEFAULT_SOLVERS, *,
                  warn: bool = True) -> tuple[Status, list[Attempt]]:
    """:func:`solve_cvxpy` with the :data:`TIGHT` tolerances, else (no optimal answer with
    them: an attempt, not a warning) with the solvers' defaults (``warn`` as there)."""
    status, attempts = solve_cvxpy(problem, solvers, warn=False, **TIGHT)
    if status is not Status.OPTIMAL:
        status, more = solve_cvxpy(problem, solvers, warn=warn)
        attempts += more
    return status, attempts


def solve_cvxpy(problem: cp.Problem, solvers: Sequence[str] = DEFAULT_SOLVERS, *,
                warn: bool = True, **solver_options) -> tuple[Status, list[Attempt]]:
    """Solve ``problem`` with the first solver of ``solvers`` that gives a usable answer.

    ``solvers`` is checked by :func:`check_solvers`. Each solver gets :data:`SOLVER_OPTIONS`
    updated by ``solver_options[name]``. Every solver is called cold (``warm_start=False``):
    a warm start after a change of the problem data can return a stale "optimal" with some
    back-ends. A solver that is not installed, that would crash on the problem
    (:func:`_crashes`: it is not called), that raises a solver failure (cvxpy's
    ``SolverError``, a ``ValueError``, an ``ArithmeticError``, a back-end's
    ``RuntimeError``) or that returns another status than ``optimal`` is recorded as an
    :class:`Attempt`, and the next one is tried. Any other exception (``TypeError``,
    ``NotImplementedError``, …) is a programming error and propagates.

    The verdicts — a solution (``optimal`` or ``optimal_inaccurate``), ``infeasible``,
    ``unbounded`` — of the interior-point solvers (:data:`INTERIOR_POINT`) outrank the
    others' (first-order, less accurate), and none is overruled by one of a lower rank:

    * the first ``optimal`` answer is returned, unless an interior-point solver found the
      problem infeasible or unbounded before: that verdict is definite, the solvers of a
      lower rank after it are not asked, and those of its rank are, to check it;
    * where the verdicts of the highest rank given differ, the status is
      ``conflicting_verdicts`` (no answer; the attempts say who said what);
    * else their one verdict is returned: ``infeasible``, ``unbounded``, or
      ``optimal_inaccurate`` with the first such solution (restored: later solvers may have
      overwritten it), which a :class:`RuntimeWarning` announces (``warn=False``: the status
      and the attempts alone say so, for callers that use optimal answers only);
    * without a verdict, the last attempt's status (``solver_error``, ``iteration_limit``).

    Returns the final status and the list of attempts.
    """
    solvers = check_solvers(solvers)
    installed = _installed_solvers()
    attempts: list[Attempt] = []
    inaccurate_values = None
    definite = None  # an interior-point solver's infeasible or unbounded
    for name in solvers:
        if definite is not None and name not in INTERIOR_POINT:
            continue
        if name not in installed:
            attempts.append(Attempt(name, Status.SOLVER_ERROR, "not installed"))
            continue
        start = time.perf_counter()
        try:
            if _crashes(name, problem):
                status, message = Status.SOLVER_ERROR, ("not asked: every cone constraint is "
                                                        "constant, which crashes its setup")
            else:
                problem.solve(solver=name, warm_start=False,
                              **{**SOLVER_OPTIONS.get(name, {}), **solver_options.get(name, {})})
                status, message = Status.from_cvxpy(problem.status), problem.status
        except (NotImplementedError, RecursionError):
            raise
        except (cp.error.SolverError, ValueError, ArithmeticError, RuntimeError) as exc:
            status, message = Status.SOLVER_ERROR, f"{type(exc).__name__}: {exc}"
        attempts.append(Attempt(name, status, message, time.perf_counter() - start))
        if status is Status.OPTIMAL and definite is None:
            return status, attempts
        if definite is None and name in INTERIOR_POINT and status in (Status.INFEASIBLE,
                                                                      Status.UNBOUNDED):
            definite = status
        if status is Status.OPTIMAL_INACCURATE and inaccurate_values is None:
            inaccurate_values = [v.value for v in problem.variables()], _duals(problem)
    verdicts = _verdicts(attempts)
    if len(verdicts) > 1:
        return Status.CONFLICTING, attempts
    if verdicts == {Status.OPTIMAL}:
        values, duals = inaccurate_values
        for var, val in zip(problem.variables(), values):
            var.value = val
        for con, values in zip(problem.constraints, duals):
            for dual, value in zip(con.dual_variables, values):
                dual.save_value(value)
        if warn:
            warnings.warn("cvxpy: only an 'optimal_inaccurate' solution was found "
                          f"({', '.join(a.solver + '=' + a.status.value for a in attempts)})",
                          RuntimeWarning, stacklevel=2)
        return Status.OPTIMAL_INACCURATE, attempts
    if verdicts:
        return verdicts.pop(), attempts
    return attempts[-1].status, attempts


def _verdicts(attempts: list[Attempt]) -> set[Status]:
    """The verdicts of the highest rank among ``attempts`` (:data:`_VERDICTS`): the
    interior-point solvers', or where none gave one, the others'."""
    ranked = [{_VERDICTS[a.status] for a in attempts if a.status in _VERDICTS
               and (a.solver in INTERIOR_POINT) is interior} for interior in (True, False)]
    return ranked[0] or ranked[1]


def _crashes(name: str, problem: cp.Problem) -> bool:
    """Whether the back-end ``name`` is known to crash on ``problem``: ECOS where no cone
    constraint has a coefficient on a variable (its inequality matrix G has no nonzero entry)
    fails in its setup, with a ``RuntimeError`` or a native crash (SIGSEGV, SIGABRT)."""
    if name != "ECOS":
        return False
    G = problem.get_problem_data(name)[0].get(cp.settings.G)
    return G is not None and G.nnz == 0


@functools.lru_cache(maxsize=1)
def _installed_solvers() -> frozenset:
    """cvxpy's installed solvers, asked once per process (cvxpy probes every back-end on
    each call, a few milliseconds: as long as a small master's solve)."""
    return frozenset(cp.installed_solvers())


def _duals(problem: cp.Problem):
    """Each constraint's dual variables' values (a second-order cone has two: kept as they
    are, which its ``save_dual_value`` would not take back)."""
    return [[d.value for d in c.dual_variables] for c in problem.constraints]
