"""IPOPT (Wächter & Biegler 2006, On the implementation of an interior-point filter
line-search algorithm for large-scale nonlinear programming, Math. Programming 106:25–57)
through cyipopt: the one place that imports it, and the meaning of its return codes.

IPOPT solves

    min f(x)  s.t.  c_L ≤ c(x) ≤ c_U,  x_L ≤ x ≤ x_U

locally by a primal-dual barrier method and ends with a return code (IPOPT's
``ApplicationReturnStatus``). :data:`STATUS` maps the codes that leave a usable point to a
:class:`~sipkl.solvers.status.Status`: a solution (to IPOPT's tolerance or to its acceptable
one) or the iterate at which a limit stopped it. Every other code (local infeasibility,
diverging iterates, a failed restoration phase, an error in a callback, …) leaves no point to
use: :func:`status` makes it a solver error.

cyipopt may be missing or its shared library broken: :data:`available` is then false,
:data:`IMPORT_ERROR` says why, and ``minimize_ipopt`` (cyipopt's SciPy-style interface) and
``Problem`` (its ``problem_obj`` interface) are ``None``. The callers read these attributes
at each call, so that a test may replace them.
"""
from __future__ import annotations

from .status import Status

try:
    from cyipopt import Problem, minimize_ipopt
    IMPORT_ERROR = None
except Exception as exc:  # ImportError, or a broken shared library
    Problem = minimize_ipopt = None
    IMPORT_ERROR = f"{type(exc).__name__}: {exc}"

#: cyipopt imported: ``minimize_ipopt`` and ``Problem`` may be called
available = IMPORT_ERROR is None

#: IPOPT's return codes that leave a usable point, and their status
STATUS = {
    0: Status.OPTIMAL,  # Solve_Succeeded
    1: Status.OPTIMAL_INACCURATE,  # Solved_To_Acceptable_Level
    # Search_Direction_Becomes_Too_Small: IPOPT asks for more accuracy than the problem's
    # rounding allows; the point is near a solution, inaccurate
    3: Status.OPTIMAL_INACCURATE,
    -1: Status.ITERATION_LIMIT,  # Maximum_Iterations_Exceeded
    -4: Status.ITERATION_LIMIT,  # Maximum_CpuTime_Exceeded
    -5: Status.ITERATION_LIMIT,  # Maximum_WallTime_Exceeded
}

#: Search_Direction_Becomes_Too_Small
SMALL_DIRECTION = 3


def status(code: int, small_direction: bool = True) -> Status:
    """The status of IPOPT's return ``code``: :data:`STATUS`, and ``solver_error`` for any
    other code. ``small_direction=False`` counts code 3 (the search direction became too
    small) as a solver error too, for a caller that would rather try another method."""
    code = int(code)
    if code == SMALL_DIRECTION and not small_direction:
        return Status.SOLVER_ERROR
    return STATUS.get(code, Status.SOLVER_ERROR)


def unavailable() -> str:
    """The message of a try that IPOPT could not make: cyipopt did not import, and why."""
    return f"cyipopt unavailable ({IMPORT_ERROR})"
