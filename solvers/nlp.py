"""A smooth constrained program solved locally: IPOPT (Wächter & Biegler 2006, On the
implementation of an interior-point filter line-search algorithm for large-scale nonlinear
programming, Math. Programming 106:25–57; through cyipopt), SciPy's SLSQP (Kraft 1988, A
software package for sequential quadratic programming, DFVLR-FB 88-28) or trust-constr where
it cannot load or does not answer optimal.

    min f(x)  s.t.  c_i(x) ≤ 0 (the first rows),  c_i(x) = 0 (the last ``n_equality``),
                    lower ≤ x ≤ upper.

The program is an object with ``objective(x)``, ``gradient(x)``, ``constraints(x)`` (all the
rows, the inequalities first) and ``jacobian(x)`` (rows × n, dense) — cyipopt's
``problem_obj`` interface — and ``n_equality``, the number of equality rows at the end.
Values that are not finite at a trial point go to the back-end, which steps back.

:func:`minimize_nlp` tries the back-ends of ``methods`` in order until one answers optimal
(each try an :class:`~sipkl.solvers.status.Attempt`, so that no fallback is silent; the
first usable answer is kept when none does): ``"ipopt"`` (limited-memory Hessian, IPOPT's
own scaling off: the caller scales its rows; recorded as failed where cyipopt cannot load),
``"slsqp"`` and ``"trust-constr"`` (SciPy; the latter slow with many rows: minutes for a
thousand, where SLSQP takes a second). A local method proves a local statement only: IPOPT's
"Infeasible_Problem_Detected" is a point of local infeasibility, no proof that the program
is infeasible.

Multipliers λ are those of the Lagrangian L = f + Σ λ_i c_i (λ ≥ 0 on the inequalities, of
either sign on the equalities): IPOPT's and SLSQP's own (SLSQP's on the equalities are
still handed on with SciPy's opposite sign, L = f − μh: a known defect, marked ``xfail`` in
``tests/sip/test_sip_nonlinear.py``), else (a back-end that states none) by least squares on the
stationarity conditions (:func:`kkt_multipliers`);
:func:`active_multipliers` clears those of the inactive rows, where an interior-point method
leaves about its barrier parameter.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
from scipy.optimize import Bounds, minimize, nnls
from scipy.optimize import NonlinearConstraint as _ScipyConstraint

from . import ipopt
from .status import Attempt, Status

#: the back-ends tried by default, in order, until one answers optimal
METHODS = ("ipopt", "slsqp")

#: the back-ends one may name: also SciPy's ``"trust-constr"`` (slow with many rows:
#: minutes for a thousand, where SLSQP takes a second)
ALL_METHODS = ("ipopt", "slsqp", "trust-constr")

#: a multiplier is 0 where its row's value c_i(x) lies below −INACTIVE_RTOL (rows that the
#: caller scaled to order one; an interior-point method leaves multipliers of about its
#: barrier parameter, 10⁻¹², on inactive rows: they are reported as the zeros they are)
INACTIVE_RTOL = 1e-6


@dataclass
class NLPAnswer:
    """One back-end's answer: x, the multipliers of the rows (``None`` where it failed before
    stating any), and its status, as an attempt."""

    x: np.ndarray
    multipliers: Optional[np.ndarray]
    attempt: Attempt


def minimize_nlp(program, x0, lower, upper, *, methods: Sequence[str] = METHODS,
                 tol: float = 1e-10, max_iter: int = 3000, deadline: float = None
                 ) -> tuple[Optional[NLPAnswer], list[Attempt]]:
    """Minimize ``program`` (see the module docstring) from ``x0`` within the bounds, by the
    back-ends of ``methods`` in order until one answers optimal.

    Parameters
    ----------
    program : object
        ``objective``, ``gradient``, ``constraints``, ``jacobian`` and ``n_equality``.
    x0 : array (n,)
    lower, upper : arrays (n,)
        The bounds (±inf: none).
    methods : sequence of {"ipopt", "slsqp", "trust-constr"}
    tol, max_iter : float, int
        Each back-end's tolerance and iteration limit.
    deadline : float, optional
        A ``time.perf_counter()`` instant: IPOPT's wall-time limit, and no further back-end is
        tried after it once an answer is usable.

    Returns
    -------
    (answer, attempts)
        The optimal answer, else the first usable one, else ``None``; and every try.
    """
    unknown = [m for m in methods if m not in ALL_METHODS]
    if unknown:
        raise ValueError(f"methods must be among {list(ALL_METHODS)}, got {unknown}")
    answer, attempts = None, []
    for method in methods:
        if deadline is not None and time.perf_counter() >= deadline and answer is not None:
            break
        if method == "ipopt":
            found = solve_ipopt(program, x0, lower, upper, tol, max_iter, deadline)
        else:
            found = solve_scipy(method, program, x0, lower, upper, tol, max_iter)
        attempts.append(found.attempt)
        if found.attempt.status.usable and answer is None:
            answer = found
        if found.attempt.status is Status.OPTIMAL:
            answer = found
            break
    return answer, attempts


def solve_ipopt(program, x0, lower, upper, tol, max_iter, deadline=None) -> NLPAnswer:
    """One IPOPT solve (limited-memory Hessian, no scaling of its own); a solver error
    naming the import's failure where cyipopt cannot load."""
    start = time.perf_counter()
    if not ipopt.available:
        return NLPAnswer(x0, None, Attempt("ipopt", Status.SOLVER_ERROR, ipopt.unavailable()))
    m = len(program.constraints(x0))
    upper_rows = np.zeros(m)
    lower_rows = np.full(m, -np.inf)
    lower_rows[m - program.n_equality:] = 0.0
    problem = ipopt.Problem(n=len(x0), m=m, problem_obj=program, lb=lower, ub=upper,
                            cl=lower_rows, cu=upper_rows)
    options = {"hessian_approximation": "limited-memory", "print_level": 0, "sb": "yes",
               "tol": tol, "constr_viol_tol": tol, "max_iter": max_iter,
               "nlp_scaling_method": "none"}
    if deadline is not None:
        options["max_wall_time"] = max(deadline - time.perf_counter(), 1e-3)
    for key, value in options.items():
        problem.add_option(key, value)
    x, info = problem.solve(np.asarray(x0, dtype=float))
    code = int(info["status"])
    status = ipopt.status(code)
    message = info["status_msg"]
    message = message.decode() if isinstance(message, bytes) else str(message)
    attempt = Attempt("ipopt", status, f"{message} (IPOPT status {code})",
                      time.perf_counter() - start)
    multipliers = np.asarray(info["mult_g"], dtype=float)
    return NLPAnswer(np.asarray(x, dtype=float), multipliers, attempt)


def solve_scipy(method: str, program, x0, lower, upper, tol, max_iter) -> NLPAnswer:
    """One SciPy solve, ``"slsqp"`` or ``"trust-constr"``, its multipliers in the order of
    the rows (by :func:`kkt_multipliers` where SciPy states none)."""
    start = time.perf_counter()
    m = len(program.constraints(x0))
    n_inequality = m - program.n_equality
    bounds = Bounds(lower, upper) if np.any(np.isfinite(lower) | np.isfinite(upper)) else None
    x0 = np.clip(x0, lower, upper)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # SciPy's remarks on its own approximations
        if method == "slsqp":
            constraints = []
            if n_inequality:
                constraints.append({"type": "ineq",
                                    "fun": lambda x: -program.constraints(x)[:n_inequality],
                                    "jac": lambda x: -program.jacobian(x)[:n_inequality]})
            if program.n_equality:
                constraints.append({"type": "eq",
                                    "fun": lambda x: program.constraints(x)[n_inequality:],
                                    "jac": lambda x: program.jacobian(x)[n_inequality:]})
            res = minimize(program.objective, x0, jac=program.gradient, method="SLSQP",
                           bounds=bounds, constraints=constraints,
                           options={"maxiter": max_iter, "ftol": tol})
            stated = res.get("multipliers")
            if stated is not None and len(stated) == m:  # SciPy ≥ 1.15: equalities first,
                # for its Lagrangian f − λᵀc: an equality's multiplier is −λ in f + μᵀh
                stated = np.concatenate([stated[program.n_equality:],
                                         -stated[:program.n_equality]])
            limit = res.status == 9
        else:
            constraints = [] if not m else [_ScipyConstraint(
                program.constraints, np.where(np.arange(m) < n_inequality, -np.inf, 0.0),
                np.zeros(m), jac=program.jacobian)]
            res = minimize(program.objective, x0, jac=program.gradient, method="trust-constr",
                           bounds=bounds, constraints=constraints,
                           options={"maxiter": max_iter, "gtol": tol, "xtol": tol * tol})
            stated = np.asarray(res.v[0], dtype=float) if m else np.zeros(0)
            limit = res.status == 0
    x = np.clip(np.asarray(res.x, dtype=float), lower, upper)
    status = Status.OPTIMAL if res.success else (Status.ITERATION_LIMIT if limit
                                                  else Status.SOLVER_ERROR)
    if stated is None or len(stated) != m:
        stated = kkt_multipliers(program, x, n_inequality)
    attempt = Attempt(method, status, str(res.message), time.perf_counter() - start)
    return NLPAnswer(x, np.asarray(stated, dtype=float), attempt)


def kkt_multipliers(program, x, n_inequality: int) -> np.ndarray:
    """Multipliers λ of the rows at x from the stationarity ∇f + Jᵀλ = 0 by least squares
    (λ ≥ 0 on the inequalities near activity, 0 on the others; free on the equalities):
    for a back-end that states none."""
    values, jac = program.constraints(x), program.jacobian(x)
    active = np.arange(len(values)) >= n_inequality
    active |= values >= -INACTIVE_RTOL
    rows = np.flatnonzero(active)
    multipliers = np.zeros(len(values))
    if not len(rows):
        return multipliers
    A, b = jac[rows].T, -program.gradient(x)
    eq = rows >= n_inequality  # free equality multipliers: split into two non-negative parts
    solution, _ = nnls(np.hstack([A, -A[:, eq]]), b)
    multipliers[rows] = solution[:len(rows)]
    multipliers[rows[eq]] -= solution[len(rows):]
    return multipliers


def active_multipliers(program, answer: NLPAnswer) -> np.ndarray:
    """The answer's multipliers as reported: clipped at 0 on the inequalities, and 0 on those
    whose row lies below ``−INACTIVE_RTOL`` at the answer's x."""
    multipliers = answer.multipliers
    inequality = np.arange(len(multipliers)) < len(multipliers) - program.n_equality
    inactive = inequality & (program.constraints(answer.x) < -INACTIVE_RTOL)
    reported = np.where(inequality, np.clip(multipliers, 0.0, None), multipliers)
    reported[inactive] = 0.0
    return reported
