"""Conic programs given as data, solved without a modelling layer.

    min cᵀv   s.t.   A v + s = b,   s ∈ {0}^zero × R₊^nonneg × Q^{q₁} × … × Q^{q_s}

(Clarabel's standard form; Q^q the second-order cone {(s₀, s̄) : ‖s̄‖₂ ≤ s₀}). A program
with no second-order cone is an LP, solved by HiGHS (SciPy's ``linprog``: a vertex, exact to
round-off); else by Clarabel (an interior point). The duals z are Clarabel's — c + Aᵀz = 0,
z in the dual cone — from either solver, and so are the statuses (:class:`Status`): an
``optimal`` answer comes with v and z, and so does Clarabel's ``optimal_inaccurate``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from .cvx import TIGHT
from .status import Attempt, Status

#: HiGHS's tolerances (dual simplex: a vertex, whose active rows hold to round-off; the
#: polytopes' LPs use them too, :mod:`sipkl.sip.sets.geometry`)
HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}

#: the size (rows × columns) up to which linprog gets the LP's matrix dense: its own
#: checks of a small sparse matrix cost more than the solve
DENSE_ENTRIES = 20_000

#: linprog's status codes and Clarabel's statuses, normalized
_LINPROG = {0: Status.OPTIMAL, 1: Status.ITERATION_LIMIT, 2: Status.INFEASIBLE,
            3: Status.UNBOUNDED, 4: Status.SOLVER_ERROR}
_CLARABEL = {"Solved": Status.OPTIMAL, "AlmostSolved": Status.OPTIMAL_INACCURATE,
             "PrimalInfeasible": Status.INFEASIBLE, "DualInfeasible": Status.UNBOUNDED,
             "AlmostPrimalInfeasible": Status.INFEASIBLE,
             "AlmostDualInfeasible": Status.UNBOUNDED,
             "MaxIterations": Status.ITERATION_LIMIT, "MaxTime": Status.ITERATION_LIMIT}


@dataclass
class ConicSolution:
    """The status, the attempts (one per solver call), and where ``optimal`` (or Clarabel's
    ``optimal_inaccurate``) the primal v and the duals z."""
    status: Status
    attempts: list
    v: np.ndarray = None
    z: np.ndarray = None


def solve_conic_data(c, A, b, zero: int, nonneg: int, cones=(), *, signs=None,
                     tight: bool = False, simplex: bool = True) -> ConicSolution:
    """Solve the program of the module docstring (``A`` dense or sparse, its rows in the
    cones' order) with, where ``signs`` is given, v_i ≥ 0 where ``signs[i] > 0`` and v_i ≤ 0
    where ``signs[i] < 0`` (bounds for HiGHS, rows of the orthant for Clarabel, whose duals
    are not returned): HiGHS where ``cones`` is empty (and ``simplex``), else Clarabel —
    with ``tight``, first at the tolerances of :data:`~sipkl.solvers.cvx.TIGHT`, then at its
    defaults."""
    A = sp.csc_matrix(A)
    c, b = np.asarray(c, dtype=float), np.asarray(b, dtype=float)
    signs = np.zeros(len(c)) if signs is None else np.asarray(signs, dtype=float)
    if simplex and not cones:
        return _highs(c, A, b, zero, signs)
    # the signs as rows −s_i v_i ≤ 0 after the orthant's rows
    signed = np.flatnonzero(signs)
    rows = sp.csc_matrix((-np.sign(signs[signed]), (np.arange(signed.size), signed)),
                         (signed.size, len(c)))
    end = zero + nonneg
    A = sp.vstack([A[:end], rows, A[end:]]).tocsc()
    b = np.concatenate([b[:end], np.zeros(signed.size), b[end:]])
    solution = _clarabel(c, A, b, zero, nonneg + signed.size, cones,
                         TIGHT["CLARABEL"] if tight else {})
    if tight and solution.status is not Status.OPTIMAL:
        again = _clarabel(c, A, b, zero, nonneg + signed.size, cones, {})
        again.attempts = solution.attempts + again.attempts
        solution = again
    if solution.z is not None:
        solution.z = np.delete(solution.z, np.arange(end, end + signed.size))
    return solution


def _highs(c, A, b, zero: int, signs) -> ConicSolution:
    start = time.perf_counter()
    if A.shape[0] * A.shape[1] <= DENSE_ENTRIES:  # linprog takes dense data faster
        A = A.toarray()
    bounds = np.column_stack([np.where(signs > 0, 0.0, -np.inf), np.where(signs < 0, 0.0, np.inf)])
    result = linprog(c, A_ub=A[zero:], b_ub=b[zero:], A_eq=A[:zero] if zero else None,
                     b_eq=b[:zero] if zero else None, bounds=bounds, method="highs",
                     options=HIGHS_OPTIONS)
    status = _LINPROG.get(result.status, Status.SOLVER_ERROR)
    attempts = [Attempt("HIGHS", status, f"linprog: {result.message}",
                        time.perf_counter() - start)]
    if status is not Status.OPTIMAL:
        return ConicSolution(status, attempts)
    # linprog's marginals are ∂(cᵀv*)/∂b: Clarabel's z = −∂(cᵀv*)/∂b
    z = -np.concatenate([result.eqlin.marginals if zero else np.zeros(0),
                         result.ineqlin.marginals])
    return ConicSolution(status, attempts, result.x, z)


def _clarabel(c, A, b, zero: int, nonneg: int, cones, options: dict) -> ConicSolution:
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    for name, value in options.items():
        setattr(settings, name, value)
    kinds = [clarabel.ZeroConeT(zero)] if zero else []
    kinds += [clarabel.NonnegativeConeT(nonneg)] if nonneg else []
    kinds += [clarabel.SecondOrderConeT(int(q)) for q in cones]
    start = time.perf_counter()
    n = len(c)
    result = clarabel.DefaultSolver(sp.csc_matrix((n, n)), c, A, b, kinds, settings).solve()
    name = str(result.status).split(".")[-1]
    status = _CLARABEL.get(name, Status.SOLVER_ERROR)
    attempts = [Attempt("CLARABEL", status, f"Clarabel (conic data): {name}",
                        time.perf_counter() - start)]
    if status not in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE):
        return ConicSolution(status, attempts)
    return ConicSolution(status, attempts, np.array(result.x), np.array(result.z))
